//! How a category is stored: its list fields and its index key, by category type. The model
//! (`super::model`) knows nothing of them.

use serde::{Deserialize, Serialize};

use super::model::BillCategory;
use crate::store::counting::Counting;
use crate::store::keys;
use crate::store::records::Record;
use crate::values::{BillCategoryId, CategoryType};

#[derive(Serialize, Deserialize)]
pub struct BillCategoryListFields {
    #[serde(default)]
    pub description: String,
    pub category_type: Option<CategoryType>,
}

impl Record for BillCategory {
    const KIND: &'static str = "CATEGORY";
    const ITEM_KIND: &'static str = "category";
    type Id = BillCategoryId;
    type ListFields = BillCategoryListFields;

    fn id(&self) -> BillCategoryId {
        self.id
    }

    fn version(&self) -> i64 {
        self.version
    }

    fn list_fields(&self) -> BillCategoryListFields {
        BillCategoryListFields { description: self.description.clone(), category_type: Some(self.category_type) }
    }

    /// Listed per type: a list narrowed by type reads only its part.
    fn index_sk(&self) -> String {
        keys::typed(self.category_type, &keys::record(Self::KIND, self.id))
    }
}

impl Counting for BillCategory {}
