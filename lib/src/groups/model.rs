//! A group (§2.5): the legacy classification of contacts, unique by description ignoring case.
//! The record and its rules: how changes (`super::input`) make and change a group.

use serde::{Deserialize, Serialize};

use super::input::GroupChanges;
use crate::editing::Editable;
use crate::refusal::{Problem, Refusal};
use crate::values::{GroupContactType, GroupId, Timestamp};

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

    fn duplicate(&self) -> Problem {
        Problem::taken("description", MSG_DESCRIPTION_TAKEN)
    }

    fn in_use(&self) -> bool {
        self.billing_refs > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::records::Record as _;
    use serde_json::json;

    use crate::groups::input::tests::parse;

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
        // Its list is its type's postings: the change moves it there.
        let postings = next.postings(crate::values::AccountId::new(1));
        assert_eq!(
            postings[0].pk,
            crate::store::keys::contact::group_postings(crate::values::AccountId::new(1), "suppliers")
        );
    }
}
