//! Reading the delivery log: the operators' listing by status, event or failure time
//! ([`list`]), the API's pages ([`page`]), and a delivery's attempts ([`attempts`]).

use super::{parse_id, Attempt, Delivery};
use crate::events;
use crate::store::stored::{self, Stored as _};
use crate::store::{keys, KeyItem, KeyRange, Sort, Store, StoreResult};
use crate::values::{AccountId, DeliveryStatus, Timestamp, WebhookId};

/// Which deliveries a listing shows.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    pub status: Option<DeliveryStatus>,
    pub event_id: Option<String>,
    /// Failed at or after this moment (failed deliveries only).
    pub failed_since: Option<Timestamp>,
}

/// The most items one listing reads when it filters by a status other than `failed`: the
/// listing stays bounded however many deliveries the account has.
const SCAN_LIMIT: usize = 5_000;

/// Up to `limit` of the account's deliveries matching `filter`, newest first (failed ones: by the
/// time they failed, oldest first when `failed_since` is given). Reads by key: an event's
/// deliveries are one key range, failed ones an index partition; other statuses filter the
/// newest [`SCAN_LIMIT`] deliveries. Returns the deliveries and whether more may match.
pub async fn list(
    store: &Store,
    account: AccountId,
    filter: &Filter,
    limit: usize,
) -> StoreResult<(Vec<Delivery>, bool)> {
    let limit = limit.clamp(1, 1_000);
    if let Some(event_id) = &filter.event_id {
        let Some(millis) = events::created_millis(event_id) else { return Ok((Vec::new(), false)) };
        let range =
            KeyRange::prefix(keys::webhook::webhook_log(account), keys::webhook::deliveries_of(millis, event_id), true);
        let page = store.page(&range, 100, None).await?;
        let found: Vec<Delivery> = stored::read_all(page.items)?;
        let kept = found.into_iter().filter(|d| filter.status.is_none_or(|s| d.status == s)).collect();
        return Ok((kept, false));
    }
    if filter.status == Some(DeliveryStatus::Failed) || filter.failed_since.is_some() {
        let (sort, ascending) = match filter.failed_since {
            Some(since) => (Sort::From(keys::webhook::failed_since(since.0.timestamp_millis())), true),
            None => (Sort::All, false),
        };
        let range = KeyRange::index(keys::webhook::failed_deliveries(account), sort, ascending);
        let page = store.page(&range, limit, None).await?;
        let keys: Vec<(String, String)> = page.items.iter().map(KeyItem::keys_of).collect();
        let mut found: Vec<Delivery> = stored::find_many(store, &keys).await?;
        // The index is eventually consistent: drop any replayed since.
        found.retain(|d| d.status == DeliveryStatus::Failed);
        return Ok((found, page.next.is_some()));
    }
    let range = KeyRange::prefix(keys::webhook::webhook_log(account), keys::webhook::DELIVERY_PREFIX, false);
    let (mut found, mut read, mut start) = (Vec::new(), 0, None);
    loop {
        let page = store.page(&range, 200, start).await?;
        read += page.items.len();
        for item in page.items {
            let delivery: Delivery = stored::read(item)?;
            if filter.status.is_none_or(|s| delivery.status == s) {
                found.push(delivery);
                if found.len() == limit {
                    return Ok((found, true));
                }
            }
        }
        match page.next {
            Some(next) if read < SCAN_LIMIT => start = Some(next),
            rest => return Ok((found, rest.is_some())),
        }
    }
}

/// Which deliveries a page of the API's listing shows (`GET /v1/webhook_deliveries`).
#[derive(Clone, Debug, Default)]
pub struct Listing {
    pub status: Option<DeliveryStatus>,
    pub event_id: Option<String>,
    pub receiver: Option<WebhookId>,
    /// Only deliveries after this one in the listing's order (the cursor: the last delivery the
    /// previous page examined).
    pub after: Option<String>,
}

/// The most deliveries one page examines: what bounds a page whose filter matches rarely.
const PAGE_READ_LIMIT: usize = 1_000;

/// A page of the account's deliveries matching `listing`, newest event first: `take` of them
/// after skipping `skip`, and the cursor of the next page while more may follow. One key range
/// of the account's webhook log (an event's deliveries when `event_id` is given), read in order
/// and filtered as it is read; at most [`PAGE_READ_LIMIT`] deliveries are examined, so a filter
/// that matches rarely gives a short page with a cursor rather than a read of the whole log.
pub async fn page(
    store: &Store,
    account: AccountId,
    listing: &Listing,
    skip: usize,
    take: usize,
) -> StoreResult<(Vec<Delivery>, Option<String>)> {
    let log = keys::webhook::webhook_log(account);
    let cursor = match listing.after.as_deref().map(parse_id) {
        Some(Some((event_id, millis, receiver))) => Some(keys::webhook::delivery(millis, &event_id, receiver)),
        Some(None) => return Ok((Vec::new(), None)),
        None => None,
    };
    let prefix = match &listing.event_id {
        Some(event_id) => match events::created_millis(event_id) {
            Some(millis) => keys::webhook::deliveries_of(millis, event_id),
            None => return Ok((Vec::new(), None)),
        },
        None => keys::webhook::DELIVERY_PREFIX.to_owned(),
    };
    // An event's deliveries are a few (one per receiver): the cursor is applied as they are read.
    let sort = match &cursor {
        Some(cursor) if listing.event_id.is_none() => Sort::Between(prefix, cursor.clone()),
        _ => Sort::Prefix(prefix),
    };
    let range = KeyRange::listing(log, sort, false);
    let now = Timestamp::now().0.timestamp();
    let (mut shown, mut examined, mut skipped, mut start) = (Vec::new(), 0usize, 0usize, None);
    loop {
        let wanted = (skip - skipped).saturating_add(take - shown.len()).min(PAGE_READ_LIMIT - examined);
        let chunk = wanted.clamp(10, 200);
        let read = store.page(&range, chunk, start).await?;
        let more_stored = read.next.is_some();
        let found: Vec<Delivery> = stored::read_all(read.items)?;
        let mut found = found.into_iter().peekable();
        while let Some(delivery) = found.next() {
            let sk = delivery.key(()).1;
            if cursor.as_deref().is_some_and(|cursor| sk.as_str() >= cursor) {
                continue;
            }
            examined += 1;
            let last = delivery.delivery_id.clone();
            let wanted = listing.status.is_none_or(|s| delivery.status == s)
                && listing.receiver.is_none_or(|r| delivery.receiver_id == r)
                && delivery.expires_at > now;
            if wanted {
                if skipped < skip {
                    skipped += 1;
                } else {
                    shown.push(delivery);
                }
            }
            if shown.len() == take || examined == PAGE_READ_LIMIT {
                let more = found.peek().is_some() || more_stored;
                return Ok((shown, more.then_some(last)));
            }
        }
        match read.next {
            Some(next) => start = Some(next),
            None => return Ok((shown, None)),
        }
    }
}

/// The most attempts a delivery shows: the latest ones (a delivery replayed again and again keeps
/// every attempt for 30 days; one read stays one page).
const ATTEMPTS_SHOWN: usize = 100;

/// The latest [`ATTEMPTS_SHOWN`] attempts of a delivery, in order.
pub async fn attempts(store: &Store, delivery: &Delivery) -> StoreResult<Vec<Attempt>> {
    let millis = events::created_millis(&delivery.event_id).unwrap_or_default();
    let prefix = keys::webhook::attempts_of(millis, &delivery.event_id, delivery.receiver_id);
    let range = KeyRange::prefix(keys::webhook::webhook_log(delivery.account_id), prefix, false);
    let page = store.page(&range, ATTEMPTS_SHOWN, None).await?;
    let mut found: Vec<Attempt> = stored::read_all(page.items)?;
    found.reverse();
    Ok(found)
}
