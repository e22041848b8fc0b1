//! What a group looks like to the API (§4.6).

use serde::Serialize;

use super::model::Group;
use crate::values::{GroupContactType, GroupId, Timestamp};

/// A group as the API shows it.
#[derive(Serialize)]
pub struct GroupView {
    pub id: GroupId,
    pub contact_type: GroupContactType,
    pub description: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl From<Group> for GroupView {
    fn from(group: Group) -> Self {
        GroupView {
            id: group.id,
            contact_type: group.contact_type,
            description: group.description,
            created_at: group.created_at,
            updated_at: group.updated_at,
        }
    }
}
