//! Groups (§2.5, §4.6): the legacy classification of contacts, unique by description ignoring case.

mod routes;

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::Serialize;

pub use routes::router;

use crate::accounts::AccountId;
use crate::http::{ApiResult, Fields};
use crate::store::item::{n, s};
use crate::store::records::{version_of, Editable, Record};
use crate::store::{keys, Item, ItemExt, Store};
use crate::text::{collapse_whitespace, uniqueness_key};
use crate::time::Timestamp;

pub const DESCRIPTION_MAX_CHARS: usize = 255;
pub const CONTACT_TYPES: [&str; 2] = ["customers", "suppliers"];

pub const MSG_TYPE_INVALID: &str = "Tipo de contato não está incluído na lista (customers, suppliers)";
pub const MSG_DESCRIPTION_BLANK: &str = "Descrição não pode ficar em branco";
pub const MSG_DESCRIPTION_TOO_LONG: &str = "Descrição é muito longa (máximo: 255 caracteres)";
pub const MSG_DESCRIPTION_TAKEN: &str = "Descrição já está em uso";
pub const MSG_IN_USE: &str = "Grupo não pode ser excluído: há cobranças que dependem dele";

#[derive(Clone, Debug, Serialize)]
pub struct Group {
    pub id: i64,
    pub contact_type: String,
    pub description: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    #[serde(skip)]
    pub version: i64,
    /// Billings that depend on the group; whoever changes it bumps `version`.
    #[serde(skip)]
    pub billing_refs: i64,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct GroupChanges {
    pub contact_type: Option<String>,
    pub description: Option<String>,
}

impl GroupChanges {
    /// Reads and validates the `group` envelope; on create both fields are required.
    pub fn parse(fields: Fields<'_>, creating: bool) -> Result<Self, Vec<String>> {
        let mut errors = Vec::new();
        let mut changes = GroupChanges::default();
        match fields.text("contact_type", "Tipo de contato", &mut errors) {
            None if !creating => {}
            None | Some(None) => errors.push(MSG_TYPE_INVALID.into()),
            Some(Some(raw)) => {
                let kind = raw.trim();
                if CONTACT_TYPES.contains(&kind) {
                    changes.contact_type = Some(kind.to_owned());
                } else {
                    errors.push(MSG_TYPE_INVALID.into());
                }
            }
        }
        match fields.text("description", "Descrição", &mut errors) {
            None if !creating => {}
            None | Some(None) => errors.push(MSG_DESCRIPTION_BLANK.into()),
            Some(Some(raw)) => {
                let description = collapse_whitespace(&raw);
                if description.is_empty() {
                    errors.push(MSG_DESCRIPTION_BLANK.into());
                } else if description.chars().count() > DESCRIPTION_MAX_CHARS {
                    errors.push(MSG_DESCRIPTION_TOO_LONG.into());
                } else {
                    changes.description = Some(description);
                }
            }
        }
        if errors.is_empty() {
            Ok(changes)
        } else {
            Err(errors)
        }
    }
}

impl Editable for Group {
    type Changes = GroupChanges;
    const IN_USE: &'static str = MSG_IN_USE;

    fn create(id: i64, changes: &GroupChanges, now: Timestamp) -> ApiResult<Self> {
        let changes = changes.clone();
        Ok(Group {
            id,
            contact_type: changes.contact_type.unwrap_or_default(),
            description: changes.description.unwrap_or_default(),
            created_at: now,
            updated_at: now,
            version: 1,
            billing_refs: 0,
        })
    }

    /// The group with the changes applied, or `None` when nothing would change.
    fn changed(&self, changes: &GroupChanges, now: Timestamp) -> ApiResult<Option<Group>> {
        let mut next = self.clone();
        if let Some(kind) = &changes.contact_type {
            next.contact_type = kind.clone();
        }
        if let Some(description) = &changes.description {
            next.description = description.clone();
        }
        if next.contact_type == self.contact_type && next.description == self.description {
            return Ok(None);
        }
        next.updated_at = now;
        next.version += 1;
        Ok(Some(next))
    }

    fn duplicate(&self) -> String {
        MSG_DESCRIPTION_TAKEN.to_owned()
    }

    fn in_use(&self) -> bool {
        self.billing_refs > 0
    }

    /// Contacts that pointed to the group get `group_id` null.
    fn after_delete(
        &self,
        store: &Store,
        account: AccountId,
    ) -> impl std::future::Future<Output = ApiResult<()>> + Send {
        let group = self.id;
        async move {
            let points_here = |e: &crate::store::IndexEntry| matches!(e.fields.get("group_id"), Some(AttributeValue::N(n)) if n.parse::<i64>().ok() == Some(group));
            crate::contacts::detach(store, account, points_here, |c| c.group_id = None).await
        }
    }
}

/// Index sort keys start with the contact type, so a list narrowed by type reads only its part.
pub fn index_prefix(contact_type: &str) -> String {
    format!("{contact_type}#")
}

impl Record for Group {
    const KIND: &'static str = "GROUP";
    const UNIQUE: Option<&'static str> = Some("GROUPDESC");

    fn id(&self) -> i64 {
        self.id
    }

    fn version(&self) -> i64 {
        self.version
    }

    fn attributes(&self) -> Item {
        HashMap::from([
            ("id".into(), n(self.id)),
            ("contact_type".into(), s(&self.contact_type)),
            ("description".into(), s(&self.description)),
            ("created_at".into(), s(self.created_at.to_string())),
            ("updated_at".into(), s(self.updated_at.to_string())),
            ("billing_refs".into(), n(self.billing_refs)),
        ])
    }

    fn from_item(item: &Item) -> anyhow::Result<Self> {
        Ok(Group {
            id: item.int("id")?,
            contact_type: item.string("contact_type")?,
            description: item.string("description")?,
            created_at: item.timestamp("created_at")?,
            updated_at: item.timestamp("updated_at")?,
            version: version_of(item)?,
            billing_refs: item.opt_int("billing_refs").unwrap_or(0),
        })
    }

    fn list_fields(&self) -> HashMap<String, AttributeValue> {
        HashMap::from([("contact_type".into(), s(&self.contact_type)), ("description".into(), s(&self.description))])
    }

    fn index_sk(&self) -> String {
        format!("{}{}", index_prefix(&self.contact_type), keys::record(Self::KIND, self.id))
    }

    fn unique_value(&self) -> Option<String> {
        Some(uniqueness_key(&self.description))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(body: serde_json::Value, creating: bool) -> Result<GroupChanges, Vec<String>> {
        GroupChanges::parse(Fields::new(body.as_object().unwrap()), creating)
    }

    #[test]
    fn create_needs_both_fields() {
        assert_eq!(parse(json!({}), true), Err(vec![MSG_TYPE_INVALID.to_owned(), MSG_DESCRIPTION_BLANK.to_owned()]));
        assert_eq!(
            parse(json!({"contact_type": "customer", "description": "x"}), true),
            Err(vec![MSG_TYPE_INVALID.to_owned()])
        );
        let ok = parse(json!({"contact_type": "suppliers", "description": " Fornecedores  locais "}), true).unwrap();
        assert_eq!(ok.description.as_deref(), Some("Fornecedores locais"));
    }

    #[test]
    fn description_size() {
        assert!(parse(json!({"contact_type": "customers", "description": "a"}), true).is_ok());
        assert!(parse(json!({"contact_type": "customers", "description": "é".repeat(255)}), true).is_ok());
        assert_eq!(
            parse(json!({"contact_type": "customers", "description": "a".repeat(256)}), true),
            Err(vec![MSG_DESCRIPTION_TOO_LONG.to_owned()])
        );
    }

    #[test]
    fn update_keeps_omitted_fields() {
        assert_eq!(parse(json!({}), false), Ok(GroupChanges::default()));
        let g = Group::create(
            1,
            &parse(json!({"contact_type": "customers", "description": "A"}), true).unwrap(),
            Timestamp::now(),
        )
        .unwrap();
        let next =
            g.changed(&parse(json!({"contact_type": "suppliers"}), false).unwrap(), Timestamp::now()).unwrap().unwrap();
        assert_eq!((next.contact_type.as_str(), next.description.as_str()), ("suppliers", "A"));
        assert_eq!(next.index_sk(), "suppliers#GROUP#0000000001");
    }
}
