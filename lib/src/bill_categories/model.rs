//! A financial category (§2.6): a description and whether it is `receivable` or `payable`.

use serde::{Deserialize, Serialize};

use crate::values::{BillCategoryId, CategoryType, Timestamp};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BillCategory {
    pub id: BillCategoryId,
    pub description: String,
    pub category_type: CategoryType,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub version: i64,
}
