//! Tags (§2.4, §4.5): free labels of the account, unique by name ignoring case.

mod routes;

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::Serialize;

pub use routes::router;

use crate::accounts::AccountId;
use crate::http::{ApiResult, Fields};
use crate::store::item::{b, n, s};
use crate::store::records::{version_of, Editable, Record};
use crate::store::{keys, Item, ItemExt, Store, Write};
use crate::text::{collapse_whitespace, uniqueness_key};
use crate::time::Timestamp;

pub const NAME_MAX_CHARS: usize = 40;
pub const COLORS: [&str; 7] = ["default", "info", "primary", "success", "warning", "danger", "purple"];
pub const DEFAULT_COLOR: &str = "info";

pub const MSG_NAME_BLANK: &str = "Nome não pode ficar em branco";
pub const MSG_NAME_TOO_LONG: &str = "Nome é muito longo (máximo: 40 caracteres)";
pub const MSG_NAME_TAKEN: &str = "Nome já está em uso";
pub const MSG_COLOR_INVALID: &str =
    "Cor não está incluída na lista (default, info, primary, success, warning, danger, purple)";
pub const MSG_IN_USE: &str = "Etiqueta não pode ser excluída: está em uso por cobranças";

#[derive(Clone, Debug, Serialize)]
pub struct Tag {
    pub id: i64,
    pub name: String,
    pub color: String,
    pub allows_on_account: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    #[serde(skip)]
    pub version: i64,
    /// Billings that use the tag as bulk target or in `excluded_tag_ids`. Whoever changes it bumps
    /// `version`, so a delete racing with a new billing fails its version condition.
    #[serde(skip)]
    pub billing_refs: i64,
}

/// The fields a create or update sent; `None` keeps the current (or default) value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TagChanges {
    pub name: Option<String>,
    pub color: Option<String>,
    pub allows_on_account: Option<bool>,
}

impl TagChanges {
    /// Reads and validates the `tag` envelope. On create the name is required.
    pub fn parse(fields: Fields<'_>, creating: bool) -> Result<Self, Vec<String>> {
        let mut errors = Vec::new();
        let mut changes = TagChanges::default();

        match fields.text("name", "Nome", &mut errors) {
            None if !creating => {}
            None | Some(None) => errors.push(MSG_NAME_BLANK.into()),
            Some(Some(raw)) => {
                let name = collapse_whitespace(&raw);
                if name.is_empty() {
                    errors.push(MSG_NAME_BLANK.into());
                } else if name.chars().count() > NAME_MAX_CHARS {
                    errors.push(MSG_NAME_TOO_LONG.into());
                } else {
                    changes.name = Some(name);
                }
            }
        }
        // Blank or null colour means the default.
        match fields.text("color", "Cor", &mut errors) {
            None => {}
            Some(raw) => {
                let color = raw.map(|c| c.trim().to_owned()).filter(|c| !c.is_empty());
                match color {
                    None => changes.color = Some(DEFAULT_COLOR.into()),
                    Some(c) if COLORS.contains(&c.as_str()) => changes.color = Some(c),
                    Some(_) => errors.push(MSG_COLOR_INVALID.into()),
                }
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

    fn create(id: i64, changes: &TagChanges, now: Timestamp) -> ApiResult<Self> {
        let changes = changes.clone();
        Ok(Tag {
            id,
            name: changes.name.unwrap_or_default(),
            color: changes.color.unwrap_or_else(|| DEFAULT_COLOR.into()),
            allows_on_account: changes.allows_on_account.unwrap_or(false),
            created_at: now,
            updated_at: now,
            version: 1,
            billing_refs: 0,
        })
    }

    /// The tag with the changes applied, or `None` when nothing would change.
    fn changed(&self, changes: &TagChanges, now: Timestamp) -> ApiResult<Option<Tag>> {
        let mut next = self.clone();
        if let Some(name) = &changes.name {
            next.name = name.clone();
        }
        if let Some(color) = &changes.color {
            next.color = color.clone();
        }
        if let Some(allows) = changes.allows_on_account {
            next.allows_on_account = allows;
        }
        let unchanged =
            next.name == self.name && next.color == self.color && next.allows_on_account == self.allows_on_account;
        if unchanged {
            return Ok(None);
        }
        next.updated_at = now;
        next.version += 1;
        Ok(Some(next))
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
    ) -> impl std::future::Future<Output = ApiResult<Vec<Write>>> + Send {
        let delta = i64::from(self.allows_on_account) - i64::from(before.is_some_and(|b| b.allows_on_account));
        async move { Ok(on_account_counter(account, delta).into_iter().collect()) }
    }

    fn delete_writes(&self, account: AccountId) -> Vec<Write> {
        on_account_counter(account, -i64::from(self.allows_on_account)).into_iter().collect()
    }

    /// Links to contacts go with the tag; the contacts are otherwise untouched.
    fn after_delete(
        &self,
        store: &Store,
        account: AccountId,
    ) -> impl std::future::Future<Output = ApiResult<()>> + Send {
        let tag = self.id;
        async move {
            crate::contacts::detach(store, account, |e| list_holds(e, tag), |c| c.tag_ids.retain(|t| *t != tag))
                .await?;
            let links = store.partition_keys(keys::tag_links(account, tag)).await?;
            store.delete_all(links).await?;
            Ok(())
        }
    }
}

fn on_account_counter(account: AccountId, delta: i64) -> Option<Write> {
    (delta != 0)
        .then(|| Write::add(keys::account(account), keys::counter(crate::contacts::ON_ACCOUNT_TAGS), "value", delta))
}

/// Whether a contact's index entry lists the tag.
fn list_holds(entry: &crate::store::IndexEntry, tag: i64) -> bool {
    match entry.fields.get("tag_ids") {
        Some(AttributeValue::L(ids)) => {
            ids.iter().any(|v| v.as_n().ok().and_then(|n| n.parse::<i64>().ok()) == Some(tag))
        }
        _ => false,
    }
}

/// The account's tags with these ids (one batch read); ids of no tag are left out.
pub async fn find_many(store: &Store, account: AccountId, ids: &[i64]) -> ApiResult<Vec<Tag>> {
    let keys: Vec<_> = ids.iter().map(|id| (keys::account(account), keys::record(Tag::KIND, *id))).collect();
    Ok(store.batch_get(&keys).await?.iter().map(Tag::from_item).collect::<anyhow::Result<Vec<_>>>()?)
}

/// Those of `ids` that are not tags of the account.
pub async fn missing(store: &Store, account: AccountId, ids: &[i64]) -> ApiResult<Vec<i64>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let found: Vec<i64> = find_many(store, account, ids).await?.iter().map(|t| t.id).collect();
    Ok(ids.iter().copied().filter(|id| !found.contains(id)).collect())
}

impl Record for Tag {
    const KIND: &'static str = "TAG";
    const UNIQUE: Option<&'static str> = Some("TAGNAME");

    fn id(&self) -> i64 {
        self.id
    }

    fn version(&self) -> i64 {
        self.version
    }

    fn attributes(&self) -> Item {
        HashMap::from([
            ("id".into(), n(self.id)),
            ("name".into(), s(&self.name)),
            ("color".into(), s(&self.color)),
            ("allows_on_account".into(), b(self.allows_on_account)),
            ("created_at".into(), s(self.created_at.to_string())),
            ("updated_at".into(), s(self.updated_at.to_string())),
            ("billing_refs".into(), n(self.billing_refs)),
        ])
    }

    fn from_item(item: &Item) -> anyhow::Result<Self> {
        Ok(Tag {
            id: item.int("id")?,
            name: item.string("name")?,
            color: item.string("color")?,
            allows_on_account: item.boolean("allows_on_account")?,
            created_at: item.timestamp("created_at")?,
            updated_at: item.timestamp("updated_at")?,
            version: version_of(item)?,
            billing_refs: item.opt_int("billing_refs").unwrap_or(0),
        })
    }

    fn list_fields(&self) -> HashMap<String, AttributeValue> {
        HashMap::from([("name".into(), s(&self.name))])
    }

    fn unique_value(&self) -> Option<String> {
        Some(uniqueness_key(&self.name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(body: serde_json::Value, creating: bool) -> Result<TagChanges, Vec<String>> {
        TagChanges::parse(Fields::new(body.as_object().unwrap()), creating)
    }

    #[test]
    fn create_defaults() {
        let c = parse(json!({"name": "  Clientes   VIP "}), true).unwrap();
        let tag = Tag::create(1, &c, Timestamp::now()).unwrap();
        assert_eq!(tag.name, "Clientes VIP");
        assert_eq!(tag.color, "info");
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
        assert_eq!(c.color.as_deref(), Some("purple"));
        assert_eq!(c.allows_on_account, Some(true));
        assert_eq!(parse(json!({"name": "a", "color": ""}), true).unwrap().color.as_deref(), Some("info"));
        assert_eq!(parse(json!({"name": "a", "color": null}), true).unwrap().color.as_deref(), Some("info"));
        let errors = parse(json!({"name": "", "color": "pink", "allows_on_account": "talvez"}), true).unwrap_err();
        assert_eq!(errors.len(), 3);
        assert!(errors.contains(&MSG_COLOR_INVALID.to_owned()));
    }

    #[test]
    fn unchanged_updates_change_nothing() {
        let tag = Tag::create(1, &parse(json!({"name": "VIP"}), true).unwrap(), Timestamp::now()).unwrap();
        assert!(tag
            .changed(&parse(json!({"name": "VIP", "color": "info"}), false).unwrap(), Timestamp::now())
            .unwrap()
            .is_none());
        let next = tag.changed(&parse(json!({"name": "vip"}), false).unwrap(), Timestamp::now()).unwrap().unwrap();
        assert_eq!(next.version, 2);
        assert_eq!(next.unique_value(), tag.unique_value());
    }

    #[test]
    fn representation_has_the_spec_fields() {
        let tag = Tag::create(3, &parse(json!({"name": "VIP"}), true).unwrap(), Timestamp::now()).unwrap();
        let v = serde_json::to_value(&tag).unwrap();
        let mut keys: Vec<_> = v.as_object().unwrap().keys().cloned().collect();
        keys.sort();
        assert_eq!(keys, ["allows_on_account", "color", "created_at", "id", "name", "updated_at"]);
    }
}
