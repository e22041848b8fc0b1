//! A tag (§2.4): a free label of the account, unique by name ignoring case, that may allow
//! on-account sales. The record, its changes and their rules.

use serde::{Deserialize, Serialize};

use crate::editing::Editable;
use crate::http::Fields;
use crate::refusal::Refusal;
use crate::store::postings::{ordered, Posting};
use crate::store::records::Record;
use crate::store::{keys, Store, Write};
use crate::values::text::{sort_key, uniqueness_key};
use crate::values::{AccountId, TagColor, TagId, Timestamp};

pub const NAME_MAX_CHARS: usize = 40;
pub const DEFAULT_COLOR: TagColor = TagColor::Info;

pub const MSG_NAME_BLANK: &str = "Nome não pode ficar em branco";
pub const MSG_NAME_TOO_LONG: &str = "Nome é muito longo (máximo: 40 caracteres)";
pub const MSG_NAME_TAKEN: &str = "Nome já está em uso";
pub const MSG_COLOR_INVALID: &str =
    "Cor não está incluída na lista (default, info, primary, success, warning, danger, purple)";
pub const MSG_IN_USE: &str = "Etiqueta não pode ser excluída: está em uso por cobranças";

/// Counter of the account's tags with `allows_on_account`, kept by tag writes in their own
/// transactions, so the on-account rule (§2.4) needs one read instead of a scan of the tags.
pub const ON_ACCOUNT_TAGS: &str = "ON_ACCOUNT_TAGS";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tag {
    pub id: TagId,
    pub name: String,
    pub color: TagColor,
    pub allows_on_account: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub version: i64,
    /// Billings (and bulk requests still expanding) that use the tag as bulk target or in
    /// `excluded_tag_ids`. Whoever changes it bumps `version`, so a delete racing with a new
    /// billing fails its version condition.
    #[serde(default)]
    pub billing_refs: i64,
}

/// What the listing index keeps of a tag.
#[derive(Serialize, Deserialize)]
pub struct TagListFields {
    #[serde(default)]
    pub name: String,
}

impl Record for Tag {
    const KIND: &'static str = "TAG";
    const UNIQUE: Option<&'static str> = Some("TAGNAME");
    type Id = TagId;
    type ListFields = TagListFields;

    fn id(&self) -> TagId {
        self.id
    }

    fn version(&self) -> i64 {
        self.version
    }

    fn list_fields(&self) -> TagListFields {
        TagListFields { name: self.name.clone() }
    }

    fn unique_value(&self) -> Option<String> {
        Some(uniqueness_key(&self.name))
    }

    /// Lists read the tag postings, by name.
    const LISTED: bool = false;

    fn postings(&self, account: AccountId) -> Vec<Posting> {
        vec![Posting::new(keys::tag_postings(account), ordered(&sort_key(&self.name), self.id.get()))]
    }

    fn counted_in(&self, account: AccountId) -> Option<String> {
        Some(keys::count_shards(account, Self::KIND))
    }
}

/// The fields a create or update sent; `None` keeps the current (or default) value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TagChanges {
    pub name: Option<String>,
    pub color: Option<TagColor>,
    pub allows_on_account: Option<bool>,
}

impl TagChanges {
    /// Reads and validates the `tag` envelope. On create the name is required.
    pub fn parse(fields: Fields<'_>, creating: bool) -> Result<Self, Vec<String>> {
        let mut errors = Vec::new();
        let mut changes = TagChanges::default();

        let rule = (NAME_MAX_CHARS, MSG_NAME_BLANK, MSG_NAME_TOO_LONG);
        changes.name = fields.name("name", "Nome", creating, rule, &mut errors);
        // Blank or null colour means the default.
        if let Some(raw) = fields.text("color", "Cor", &mut errors) {
            match raw.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
                None => changes.color = Some(DEFAULT_COLOR),
                Some(text) => match TagColor::parse(text) {
                    Some(color) => changes.color = Some(color),
                    None => errors.push(MSG_COLOR_INVALID.into()),
                },
            }
        }
        if let Some(value) =
            fields.boolean("allows_on_account", "Permite venda a prazo (allows_on_account)", &mut errors)
        {
            changes.allows_on_account = Some(value.unwrap_or(false));
        }

        if errors.is_empty() {
            Ok(changes)
        } else {
            Err(errors)
        }
    }
}

impl Editable for Tag {
    type Changes = TagChanges;
    const IN_USE: &'static str = MSG_IN_USE;

    fn create(id: TagId, changes: &TagChanges, now: Timestamp) -> Result<Self, Refusal> {
        Ok(Tag {
            id,
            name: changes.name.clone().unwrap_or_default(),
            color: changes.color.unwrap_or(DEFAULT_COLOR),
            allows_on_account: changes.allows_on_account.unwrap_or(false),
            created_at: now,
            updated_at: now,
            version: 1,
            billing_refs: 0,
        })
    }

    /// The tag with the changes applied, or `None` when nothing would change.
    fn changed(&self, changes: &TagChanges, now: Timestamp) -> Result<Option<Tag>, Refusal> {
        let next = Tag {
            name: changes.name.clone().unwrap_or_else(|| self.name.clone()),
            color: changes.color.unwrap_or(self.color),
            allows_on_account: changes.allows_on_account.unwrap_or(self.allows_on_account),
            ..self.clone()
        };
        if next == *self {
            return Ok(None);
        }
        Ok(Some(Tag { updated_at: now, version: self.version + 1, ..next }))
    }

    fn duplicate(&self) -> String {
        MSG_NAME_TAKEN.to_owned()
    }

    fn in_use(&self) -> bool {
        self.billing_refs > 0
    }

    /// Keeps the account's count of tags that allow on-account sales (§2.4 rule 6) in the same
    /// transaction as the tag.
    fn related_writes(
        &self,
        before: Option<&Self>,
        _store: &Store,
        account: AccountId,
    ) -> impl std::future::Future<Output = Result<Vec<Write>, Refusal>> + Send {
        let delta = i64::from(self.allows_on_account) - i64::from(before.is_some_and(|b| b.allows_on_account));
        async move { Ok(on_account_counter(account, delta).into_iter().collect()) }
    }

    fn delete_writes(&self, account: AccountId) -> Vec<Write> {
        on_account_counter(account, -i64::from(self.allows_on_account)).into_iter().collect()
    }
}

fn on_account_counter(account: AccountId, delta: i64) -> Option<Write> {
    (delta != 0).then(|| Write::add(keys::account(account), keys::counter(ON_ACCOUNT_TAGS), "value", delta))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(body: serde_json::Value, creating: bool) -> Result<TagChanges, Vec<String>> {
        TagChanges::parse(Fields::new(body.as_object().unwrap()), creating)
    }

    fn created(name: &str) -> Tag {
        Tag::create(TagId::new(1), &parse(json!({"name": name}), true).unwrap(), Timestamp::now()).unwrap()
    }

    #[test]
    fn create_defaults() {
        let tag = created("  Clientes   VIP ");
        assert_eq!(tag.name, "Clientes VIP");
        assert_eq!(tag.color, TagColor::Info);
        assert!(!tag.allows_on_account);
    }

    #[test]
    fn name_rules() {
        assert_eq!(parse(json!({}), true), Err(vec![MSG_NAME_BLANK.to_owned()]));
        assert_eq!(parse(json!({"name": null}), true), Err(vec![MSG_NAME_BLANK.to_owned()]));
        assert_eq!(parse(json!({"name": "   "}), true), Err(vec![MSG_NAME_BLANK.to_owned()]));
        assert!(parse(json!({"name": "x".repeat(40)}), true).is_ok());
        assert!(parse(json!({"name": "ç".repeat(40)}), true).is_ok());
        assert_eq!(parse(json!({"name": "x".repeat(41)}), true), Err(vec![MSG_NAME_TOO_LONG.to_owned()]));
        // On update an omitted name keeps the current one, an explicit blank is refused.
        assert_eq!(parse(json!({}), false), Ok(TagChanges::default()));
        assert_eq!(parse(json!({"name": ""}), false), Err(vec![MSG_NAME_BLANK.to_owned()]));
    }

    #[test]
    fn color_and_flag_rules() {
        let c = parse(json!({"name": "a", "color": "purple", "allows_on_account": "1"}), true).unwrap();
        assert_eq!(c.color, Some(TagColor::Purple));
        assert_eq!(c.allows_on_account, Some(true));
        assert_eq!(parse(json!({"name": "a", "color": ""}), true).unwrap().color, Some(TagColor::Info));
        assert_eq!(parse(json!({"name": "a", "color": null}), true).unwrap().color, Some(TagColor::Info));
        let errors = parse(json!({"name": "", "color": "pink", "allows_on_account": "talvez"}), true).unwrap_err();
        assert_eq!(errors.len(), 3);
        assert!(errors.contains(&MSG_COLOR_INVALID.to_owned()));
    }

    #[test]
    fn unchanged_updates_change_nothing() {
        let tag = created("VIP");
        assert!(tag
            .changed(&parse(json!({"name": "VIP", "color": "info"}), false).unwrap(), Timestamp::now())
            .unwrap()
            .is_none());
        let next = tag.changed(&parse(json!({"name": "vip"}), false).unwrap(), Timestamp::now()).unwrap().unwrap();
        assert_eq!(next.version, 2);
        assert_eq!(next.unique_value(), tag.unique_value());
    }

    #[test]
    fn a_tag_round_trips_through_its_item_with_todays_attribute_names() {
        let tag = created("VIP");
        let item = crate::store::records::item_of(AccountId::new(7), &tag).unwrap();
        let mut names: Vec<&str> = item.keys().map(String::as_str).collect();
        names.sort_unstable();
        assert_eq!(
            names,
            [
                "allows_on_account",
                "billing_refs",
                "color",
                "created_at",
                "id",
                "kind",
                "name",
                "pk",
                "sk",
                "updated_at",
                "version"
            ]
        );
        assert_eq!(crate::store::records::read::<Tag>(item).unwrap(), tag);
    }
}
