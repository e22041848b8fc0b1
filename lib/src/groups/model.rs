//! A group (§2.5): the legacy classification of contacts, unique by description ignoring case.

use serde::{Deserialize, Serialize};

use crate::editing::Editable;
use crate::http::Fields;
use crate::refusal::Refusal;
use crate::store::keys;
use crate::store::postings::{ordered, Posting};
use crate::store::records::Record;
use crate::values::text::{sort_key, uniqueness_key};
use crate::values::{AccountId, GroupContactType, GroupId, Timestamp};

pub const DESCRIPTION_MAX_CHARS: usize = 255;

pub const MSG_TYPE_INVALID: &str = "Tipo de contato não está incluído na lista (customers, suppliers)";
pub const MSG_DESCRIPTION_BLANK: &str = "Descrição não pode ficar em branco";
pub const MSG_DESCRIPTION_TOO_LONG: &str = "Descrição é muito longa (máximo: 255 caracteres)";
pub const MSG_DESCRIPTION_TAKEN: &str = "Descrição já está em uso";
pub const MSG_IN_USE: &str = "Grupo não pode ser excluído: há cobranças que dependem dele";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Group {
    pub id: GroupId,
    pub contact_type: GroupContactType,
    pub description: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub version: i64,
    /// Billings that depend on the group; whoever changes it bumps `version`.
    #[serde(default)]
    pub billing_refs: i64,
}

/// What the listing index keeps of a group.
#[derive(Serialize, Deserialize)]
pub struct GroupListFields {
    pub contact_type: GroupContactType,
    #[serde(default)]
    pub description: String,
}

/// Index sort keys start with the contact type, so a list narrowed by type reads only its part.
pub fn index_prefix(contact_type: GroupContactType) -> String {
    format!("{contact_type}#")
}

impl Record for Group {
    const KIND: &'static str = "GROUP";
    const UNIQUE: Option<&'static str> = Some("GROUPDESC");
    type Id = GroupId;
    type ListFields = GroupListFields;

    fn id(&self) -> GroupId {
        self.id
    }

    fn version(&self) -> i64 {
        self.version
    }

    fn list_fields(&self) -> GroupListFields {
        GroupListFields { contact_type: self.contact_type, description: self.description.clone() }
    }

    fn index_sk(&self) -> String {
        format!("{}{}", index_prefix(self.contact_type), keys::record(Self::KIND, self.id))
    }

    fn unique_value(&self) -> Option<String> {
        Some(uniqueness_key(&self.description))
    }

    /// Lists read the group postings of a contact type, by description.
    const LISTED: bool = false;

    fn postings(&self, account: AccountId) -> Vec<Posting> {
        let partition = keys::group_postings(account, self.contact_type.as_str());
        vec![Posting::new(partition, ordered(&sort_key(&self.description), self.id.get()))]
    }

    fn counted_in(&self, account: AccountId) -> Option<String> {
        Some(keys::count_shards(account, &format!("{}#{}", Self::KIND, self.contact_type)))
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct GroupChanges {
    pub contact_type: Option<GroupContactType>,
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
            Some(Some(raw)) => match GroupContactType::parse(raw.trim()) {
                Some(kind) => changes.contact_type = Some(kind),
                None => errors.push(MSG_TYPE_INVALID.into()),
            },
        }
        let rule = (DESCRIPTION_MAX_CHARS, MSG_DESCRIPTION_BLANK, MSG_DESCRIPTION_TOO_LONG);
        changes.description = fields.name("description", "Descrição", creating, rule, &mut errors);
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

    fn create(id: GroupId, changes: &GroupChanges, now: Timestamp) -> Result<Self, Refusal> {
        Ok(Group {
            id,
            contact_type: changes.contact_type.unwrap_or(GroupContactType::Customers),
            description: changes.description.clone().unwrap_or_default(),
            created_at: now,
            updated_at: now,
            version: 1,
            billing_refs: 0,
        })
    }

    /// The group with the changes applied, or `None` when nothing would change.
    fn changed(&self, changes: &GroupChanges, now: Timestamp) -> Result<Option<Group>, Refusal> {
        let next = Group {
            contact_type: changes.contact_type.unwrap_or(self.contact_type),
            description: changes.description.clone().unwrap_or_else(|| self.description.clone()),
            ..self.clone()
        };
        if next == *self {
            return Ok(None);
        }
        Ok(Some(Group { updated_at: now, version: self.version + 1, ..next }))
    }

    fn duplicate(&self) -> String {
        MSG_DESCRIPTION_TAKEN.to_owned()
    }

    fn in_use(&self) -> bool {
        self.billing_refs > 0
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
            GroupId::new(1),
            &parse(json!({"contact_type": "customers", "description": "A"}), true).unwrap(),
            Timestamp::now(),
        )
        .unwrap();
        let next =
            g.changed(&parse(json!({"contact_type": "suppliers"}), false).unwrap(), Timestamp::now()).unwrap().unwrap();
        assert_eq!((next.contact_type, next.description.as_str()), (GroupContactType::Suppliers, "A"));
        assert_eq!(next.index_sk(), "suppliers#GROUP#0000000001");
    }
}
