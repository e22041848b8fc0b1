//! The category workflows: creating one (the ops CLI, the demo data) and the list of
//! `GET /v1/bill_categories`.

use super::model::BillCategory;
use crate::refusal::Refusal;
use crate::store::records::{self, Listed, Window};
use crate::store::Store;
use crate::values::text::{collapse_whitespace, sort_key};
use crate::values::{AccountId, CategoryType, Timestamp};

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
        Some(Err(())) => return Ok(Listed::empty()),
        Some(Ok(kind)) => Some(crate::store::keys::typed_prefix(kind)),
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
