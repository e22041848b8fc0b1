//! What a category looks like to the API (§4.7).

use serde::Serialize;

use super::model::BillCategory;
use crate::values::{BillCategoryId, CategoryType, Timestamp};

/// A category as the API shows it.
#[derive(Serialize)]
pub struct BillCategoryView {
    pub id: BillCategoryId,
    pub description: String,
    pub category_type: CategoryType,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl From<BillCategory> for BillCategoryView {
    fn from(c: BillCategory) -> Self {
        BillCategoryView {
            id: c.id,
            description: c.description,
            category_type: c.category_type,
            created_at: c.created_at,
            updated_at: c.updated_at,
        }
    }
}
