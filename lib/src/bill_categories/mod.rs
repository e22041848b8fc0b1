//! Financial categories (§2.6, §4.7): `receivable` or `payable`. Created elsewhere; the API lists
//! them (`GET /v1/bill_categories`) and billings name a receivable one.

mod routes;

use serde::{Deserialize, Serialize};

pub use routes::router;

use crate::refusal::Refusal;
use crate::store::records::{self, Listed, Record, Window};
use crate::store::{keys, Store};
use crate::values::text::{collapse_whitespace, sort_key};
use crate::values::{AccountId, BillCategoryId, CategoryType, Timestamp};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BillCategory {
    pub id: BillCategoryId,
    pub description: String,
    pub category_type: CategoryType,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub version: i64,
}

#[derive(Serialize, Deserialize)]
pub struct BillCategoryListFields {
    #[serde(default)]
    pub description: String,
    pub category_type: Option<CategoryType>,
}

impl Record for BillCategory {
    const KIND: &'static str = "CATEGORY";
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
        format!("{}#{}", self.category_type, keys::record(Self::KIND, self.id))
    }
}

pub async fn create(
    store: &Store,
    account: AccountId,
    description: &str,
    category_type: CategoryType,
) -> anyhow::Result<BillCategory> {
    let now = Timestamp::now();
    let category = BillCategory {
        id: records::next_id::<BillCategory>(store, account).await?,
        description: collapse_whitespace(description),
        category_type,
        created_at: now,
        updated_at: now,
        version: 1,
    };
    records::insert(store, account, &category, Vec::new()).await?;
    Ok(category)
}

/// The account's categories ordered by description (ignoring case and accents), then id; of one
/// type when `category_type` is given (`Err`: a value that is no type, which matches nothing).
pub async fn list(
    store: &Store,
    account: AccountId,
    category_type: Option<Result<CategoryType, ()>>,
    window: Window,
) -> Result<Listed<BillCategory>, Refusal> {
    let prefix = match category_type {
        Some(Err(())) => return Ok(Listed { records: Vec::new(), total: 0 }),
        Some(Ok(kind)) => Some(format!("{kind}#")),
        None => None,
    };
    Ok(records::list::<BillCategory, _, _, _>(
        store,
        account,
        prefix.as_deref(),
        |_| true,
        |entry| sort_key(&entry.fields.description),
        window,
    )
    .await?)
}
