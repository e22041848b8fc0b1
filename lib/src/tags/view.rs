//! What a tag looks like to the API (§4.5).

use serde::Serialize;

use super::model::Tag;
use crate::values::{TagColor, TagId, Timestamp};

/// A tag as the API shows it.
#[derive(Serialize)]
pub struct TagView {
    pub id: TagId,
    pub name: String,
    pub color: TagColor,
    pub allows_on_account: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl From<Tag> for TagView {
    fn from(tag: Tag) -> Self {
        TagView {
            id: tag.id,
            name: tag.name,
            color: tag.color,
            allows_on_account: tag.allows_on_account,
            created_at: tag.created_at,
            updated_at: tag.updated_at,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::editing::Editable;
    use crate::tags::input::TagChanges;

    #[test]
    fn representation_has_the_spec_fields() {
        let changes = TagChanges { name: Some("VIP".into()), ..TagChanges::default() };
        let tag = Tag::create(TagId::new(3), &changes, Timestamp::now()).unwrap();
        let v = serde_json::to_value(TagView::from(tag)).unwrap();
        let mut keys: Vec<_> = v.as_object().unwrap().keys().cloned().collect();
        keys.sort();
        assert_eq!(keys, ["allows_on_account", "color", "created_at", "id", "name", "updated_at"]);
    }
}
