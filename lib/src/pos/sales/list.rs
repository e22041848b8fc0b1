//! `GET /v1/sales`: a page of the account's (or one contact's) sales, newest first.

use chrono::NaiveDate;

use super::model::Sale;
use super::service::SALES_COUNTER;
use crate::contacts::Contact;
use crate::http::Pagination;
use crate::refusal::Refusal;
use crate::store::stored;
use crate::store::{keys, records, KeyItem, KeyRange, Sort, Store};
use crate::values::calendar::sao_paulo;
use crate::values::{AccountId, ContactId, SaleId};

/// Which sales a list shows.
#[derive(Clone, Debug, Default)]
pub struct SaleFilter {
    pub contact_id: Option<ContactId>,
    /// Sold on or after this day (São Paulo time).
    pub start_date: Option<NaiveDate>,
    /// Sold on or before this day.
    pub end_date: Option<NaiveDate>,
}

/// Epoch milliseconds at the start of `day` in São Paulo.
fn day_start_millis(day: NaiveDate) -> i64 {
    let start = day.and_hms_opt(0, 0, 0).expect("midnight");
    start.and_local_timezone(sao_paulo()).single().map(|t| t.timestamp_millis()).unwrap_or_default()
}

/// A page of sales, newest first, and the total after filters. Reads the page's key items (up to
/// it) and its sales; the total comes from a counter, or, with a date range, from counting the
/// range's key items (about 70 per read unit).
pub async fn list(
    store: &Store,
    account: AccountId,
    filter: &SaleFilter,
    page: Pagination,
) -> Result<(Vec<Sale>, usize), Refusal> {
    let partition = match filter.contact_id {
        Some(contact) => keys::pos::sales_of_contact(account, contact),
        None => keys::pos::sales(account),
    };
    let dated = filter.start_date.is_some() || filter.end_date.is_some();
    let sort = match dated {
        false => Sort::All,
        true => {
            let from = filter.start_date.map(day_start_millis).unwrap_or(0).max(0);
            let to = filter.end_date.and_then(|d| d.succ_opt()).map(day_start_millis).unwrap_or(9_999_999_999_999) - 1;
            if to < from {
                return Ok((Vec::new(), 0));
            }
            keys::pos::sales_between(from, to)
        }
    };
    let range = KeyRange::listing(partition, sort, false);
    let total = match (dated, filter.contact_id) {
        (true, _) => store.count(&range).await?,
        (false, Some(contact)) => match records::find::<Contact>(store, account, contact).await? {
            Some(found) => usize::try_from(found.sales).unwrap_or_default(),
            None => 0,
        },
        (false, None) => {
            usize::try_from(store.counter(keys::account(account), keys::counter::counter(SALES_COUNTER)).await?)
                .unwrap_or_default()
        }
    };
    let keyed = store.items_in(&range, page.offset(), page.per_page).await?;
    let wanted: Vec<(String, String)> = keyed
        .iter()
        .filter_map(|item| {
            let (_, sk) = KeyItem::keys_of(item);
            let id = SaleId::new(keys::id_of(&sk)?);
            Some((keys::account(account), keys::pos::sale(id)))
        })
        .collect();
    let mut sales: Vec<Sale> = stored::find_many(store, &wanted).await?;
    sales.sort_by_key(|s| std::cmp::Reverse((s.sold_at.0, s.id)));
    Ok((sales, total))
}
