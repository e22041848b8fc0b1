//! A tag (§2.4): a free label of the account, unique by name ignoring case, that may allow
//! on-account sales. The record and its rules: how changes (`super::input`) make and change a tag,
//! and the account's count of on-account tags kept alongside.

use serde::{Deserialize, Serialize};

use super::input::{TagChanges, DEFAULT_COLOR};
use crate::editing::Editable;
use crate::refusal::{Problem, Refusal};
use crate::store::{keys, Store, Write};
use crate::values::{AccountId, TagColor, TagId, Timestamp};

pub const MSG_NAME_TAKEN: &str = "Nome já está em uso";
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

    fn duplicate(&self) -> Problem {
        Problem::taken("name", MSG_NAME_TAKEN)
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
    (delta != 0).then(|| {
        Write::add(
            keys::account(account),
            keys::counter::counter(ON_ACCOUNT_TAGS),
            keys::counter::COUNT_ATTRIBUTE,
            delta,
        )
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::store::records::Record as _;
    use serde_json::json;

    pub(crate) use crate::tags::input::tests::parse;

    /// A tag created from a name (for the tests of every layer).
    pub(crate) fn created(name: &str) -> Tag {
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
}
