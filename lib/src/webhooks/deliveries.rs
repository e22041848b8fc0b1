//! Deliveries and their attempts: the delivery log.
//!
//! A delivery is one event for one receiver; its id, `dlv_<the event's UUID>_<receiver id>`, is the
//! same on every attempt and every replay, so a receiver deduplicates on it. It lives in the
//! account's webhook partition (`pk = A#<account>#WEBHOOKS`, `sk = DELIVERY#<event ms>#<event
//! id>#<receiver>`: the id gives the key), with each attempt beside it (`ATTEMPT#…#<n>`: time,
//! response status, latency, error). The table's TTL removes both 30 days after their last change.
//! A failed delivery is also listed under `A#<account>#WEBHOOKS#FAILED` in `gsi1`, by the time it
//! failed, which `webhook deliveries --status failed` and `replay --failed-since` read.
//!
//! Retries follow [`Schedule`]: after attempt *n* fails, attempt *n + 1* waits the *n*-th wait,
//! ±10 % (jitter spreads a receiver's recovery). Every write of a delivery is conditioned on the
//! version it read, and an attempt first claims the delivery (a lease of [`LEASE`]), so two
//! copies of its message never send it twice at once.

use std::time::Duration as StdDuration;

use chrono::Duration;
use rand::Rng as _;
use serde::{Deserialize, Serialize};

use super::receivers::Receiver;
use crate::events::{self, Event, KEPT_SECONDS};
use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, Condition, KeyItem, KeyRange, Sort, Store, StoreError, StoreResult, Write};
use crate::values::{AccountId, DeliveryStatus, Timestamp, WebhookId};

/// How long an attempt holds its delivery (a 10 s POST and its writes, with room).
const LEASE: Duration = Duration::seconds(30);

/// The waits between attempts (`WEBHOOK_RETRY_SCHEDULE`, seconds separated by commas, replaces
/// the default: tests and the local stack retry in seconds).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule(pub Vec<StdDuration>);

impl Default for Schedule {
    /// 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h: ten attempts over 75.6 hours.
    fn default() -> Self {
        let seconds = [5, 300, 1_800, 7_200, 18_000, 36_000, 50_400, 72_000, 86_400];
        Schedule(seconds.into_iter().map(StdDuration::from_secs).collect())
    }
}

impl Schedule {
    pub fn parse(text: &str) -> Option<Self> {
        let waits: Option<Vec<StdDuration>> =
            text.split(',').map(|part| part.trim().parse::<u64>().ok().map(StdDuration::from_secs)).collect();
        waits.filter(|w| !w.is_empty() && w.len() < 100).map(Schedule)
    }

    pub fn from_env() -> Self {
        match std::env::var("WEBHOOK_RETRY_SCHEDULE") {
            Ok(text) => Schedule::parse(&text).unwrap_or_else(|| {
                tracing::warn!(%text, "WEBHOOK_RETRY_SCHEDULE is not a list of seconds; the default applies");
                Schedule::default()
            }),
            Err(_) => Schedule::default(),
        }
    }

    /// The wait after the `made`-th attempt of a round failed (with jitter), or `None` when that
    /// was the last one.
    fn wait_after(&self, made: u32) -> Option<StdDuration> {
        let base = self.0.get(usize::try_from(made).ok()?.checked_sub(1)?)?;
        let jitter = rand::rng().random_range(0.9..=1.1);
        Some(base.mul_f64(jitter))
    }

    /// Attempts in one round.
    pub fn attempts(&self) -> u32 {
        u32::try_from(self.0.len()).unwrap_or(u32::MAX - 1) + 1
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Delivery {
    pub delivery_id: String,
    pub account_id: AccountId,
    pub event_id: String,
    pub event_type: String,
    pub receiver_id: WebhookId,
    /// The receiver's URL when the delivery was made (for the log).
    pub url: String,
    pub status: DeliveryStatus,
    /// Attempts made, replays included.
    pub attempts: u32,
    /// Attempts since the delivery was made or last replayed: the place in the schedule.
    pub round_attempts: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_attempt_at: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leased_until: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_response_status: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// When the last attempt was made, and how long it took (deliveries attempted before these
    /// were kept have neither).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_attempt_at: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_latency_ms: Option<u64>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivered_at: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_at: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replayed_at: Option<Timestamp>,
    pub expires_at: i64,
    pub version: i64,
}

impl Stored for Delivery {
    const KIND: Option<&'static str> = Some("delivery");
    type Scope<'a> = ();

    /// In the account's webhook log, in order of its event (whose id carries its millisecond).
    fn key(&self, (): ()) -> Key {
        (
            keys::webhook::webhook_log(self.account_id),
            keys::webhook::delivery(self.event_millis(), &self.event_id, self.receiver_id),
        )
    }

    /// In the account's failed index while failed, by the time it failed.
    fn index(&self, (): ()) -> Option<Key> {
        let failed_at = self.failed_at.filter(|_| self.status == DeliveryStatus::Failed)?;
        let (_, sk) = self.key(());
        Some((
            keys::webhook::failed_deliveries(self.account_id),
            keys::webhook::failed_delivery(failed_at.0.timestamp_millis(), &sk),
        ))
    }
}

/// One attempt of a delivery.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    pub delivery_id: String,
    pub event_id: String,
    pub receiver_id: WebhookId,
    pub url: String,
    pub attempt: u32,
    pub at: Timestamp,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_status: Option<u16>,
    pub latency_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub expires_at: i64,
}

impl Stored for Attempt {
    const KIND: Option<&'static str> = Some("delivery_attempt");
    /// The account: its webhook log.
    type Scope<'a> = AccountId;

    fn key(&self, account: AccountId) -> Key {
        let millis = events::created_millis(&self.event_id).unwrap_or_default();
        (
            keys::webhook::webhook_log(account),
            keys::webhook::delivery_attempt(millis, &self.event_id, self.receiver_id, self.attempt),
        )
    }
}

/// The id of the delivery of `event_id` to `receiver`.
pub fn delivery_id(event_id: &str, receiver: WebhookId) -> String {
    format!("dlv_{}_{}", event_id.strip_prefix("evt_").unwrap_or(event_id), receiver.get())
}

/// The event id, its millisecond and the receiver a delivery id names.
pub fn parse_id(delivery_id: &str) -> Option<(String, i64, WebhookId)> {
    let (event, receiver) = delivery_id.strip_prefix("dlv_")?.split_once('_')?;
    let event_id = format!("evt_{event}");
    let millis = events::created_millis(&event_id)?;
    let receiver = receiver.parse::<i64>().ok().filter(|id| *id > 0)?;
    Some((event_id, millis, WebhookId::new(receiver)))
}

fn kept_until(at: Timestamp) -> i64 {
    at.0.timestamp() + KEPT_SECONDS
}

impl Delivery {
    /// The pending delivery of `event` to `receiver`, due at once.
    pub fn new(event: &Event, receiver: &Receiver) -> Delivery {
        let now = Timestamp::now();
        Delivery {
            delivery_id: delivery_id(&event.event_id, receiver.id),
            account_id: event.account_id,
            event_id: event.event_id.clone(),
            event_type: event.event_type.clone(),
            receiver_id: receiver.id,
            url: receiver.url.clone(),
            status: DeliveryStatus::Pending,
            attempts: 0,
            round_attempts: 0,
            next_attempt_at: Some(now),
            leased_until: None,
            last_response_status: None,
            last_error: None,
            last_attempt_at: None,
            last_latency_ms: None,
            created_at: now,
            updated_at: now,
            delivered_at: None,
            failed_at: None,
            replayed_at: None,
            expires_at: kept_until(now),
            version: 1,
        }
    }

    /// The millisecond of its event (in the event's id): its place in its keys.
    fn event_millis(&self) -> i64 {
        events::created_millis(&self.event_id).unwrap_or_default()
    }

    /// The keys of the event it delivers.
    pub fn event_keys(&self) -> Option<(String, String)> {
        let millis = events::created_millis(&self.event_id)?;
        Some((keys::event::events(self.account_id, &self.event_id), keys::event::event(millis, &self.event_id)))
    }

    /// When it may be attempted: now, or the later of its next attempt and its lease.
    pub fn due_at(&self) -> Option<Timestamp> {
        [self.next_attempt_at, self.leased_until].into_iter().flatten().max_by_key(|t| t.0)
    }

    /// `self` changed into `next`, provided it is still the version read.
    fn replaced_by(&self, next: &Delivery) -> StoreResult<Write> {
        stored::put_if(next, (), Condition::version(self.version))
    }

    fn next_version(&self, now: Timestamp) -> Delivery {
        Delivery { version: self.version + 1, updated_at: now, expires_at: kept_until(now), ..self.clone() }
    }
}

/// Stores a new delivery; `false` when it already exists (a repeated dispatch).
pub async fn create(store: &Store, delivery: &Delivery) -> StoreResult<bool> {
    match store.write(vec![stored::insert(delivery, ())?]).await {
        Ok(()) => Ok(true),
        Err(StoreError::ConditionFailed(_)) => Ok(false),
        Err(error) => Err(error),
    }
}

pub async fn find(store: &Store, account: AccountId, delivery_id: &str) -> StoreResult<Option<Delivery>> {
    let Some((event_id, millis, receiver)) = parse_id(delivery_id) else { return Ok(None) };
    stored::find(store, (keys::webhook::webhook_log(account), keys::webhook::delivery(millis, &event_id, receiver)))
        .await
}

/// Claims a due delivery for one attempt; `None` when another copy of its message got there first.
/// The attempt goes to `url`, the receiver's address now (an account may have changed it since the
/// delivery was made): the delivery and its attempt record where it went.
pub async fn claim(store: &Store, delivery: &Delivery, url: &str, now: Timestamp) -> StoreResult<Option<Delivery>> {
    let mut claimed = delivery.next_version(now);
    claimed.url = url.to_owned();
    claimed.attempts += 1;
    claimed.round_attempts += 1;
    claimed.leased_until = Some(Timestamp(now.0 + LEASE));
    match store.write(vec![delivery.replaced_by(&claimed)?]).await {
        Ok(()) => Ok(Some(claimed)),
        Err(StoreError::ConditionFailed(_)) => Ok(None),
        Err(error) => Err(error),
    }
}

/// What an attempt came to, as the log keeps it.
#[derive(Clone, Debug)]
pub struct Answer {
    pub at: Timestamp,
    pub status: Option<u16>,
    pub latency: StdDuration,
    pub error: Option<String>,
}

/// Records the attempt of a claimed delivery and its consequence, in one transaction: delivered;
/// or pending until the schedule's next wait; or failed when the round's attempts ran out.
pub async fn settle(store: &Store, claimed: &Delivery, answer: &Answer, schedule: &Schedule) -> StoreResult<Delivery> {
    let receiver = claimed.receiver_id;
    let attempt = Attempt {
        delivery_id: claimed.delivery_id.clone(),
        event_id: claimed.event_id.clone(),
        receiver_id: receiver,
        url: claimed.url.clone(),
        attempt: claimed.attempts,
        at: answer.at,
        response_status: answer.status,
        latency_ms: u64::try_from(answer.latency.as_millis()).unwrap_or(u64::MAX),
        error: answer.error.clone(),
        expires_at: kept_until(answer.at),
    };
    let mut next = claimed.next_version(Timestamp::now());
    next.leased_until = None;
    next.last_response_status = answer.status;
    next.last_error = answer.error.clone();
    next.last_attempt_at = Some(answer.at);
    next.last_latency_ms = Some(attempt.latency_ms);
    match (&answer.error, schedule.wait_after(claimed.round_attempts)) {
        (None, _) => {
            next.status = DeliveryStatus::Delivered;
            next.delivered_at = Some(answer.at);
            next.next_attempt_at = None;
        }
        (Some(_), Some(wait)) => {
            let wait = Duration::from_std(wait).unwrap_or(Duration::hours(24));
            next.next_attempt_at = Some(Timestamp(answer.at.0 + wait));
        }
        (Some(_), None) => fail(&mut next, answer.at),
    }
    store.write(vec![stored::put(&attempt, claimed.account_id)?, claimed.replaced_by(&next)?]).await?;
    Ok(next)
}

fn fail(delivery: &mut Delivery, at: Timestamp) {
    delivery.status = DeliveryStatus::Failed;
    delivery.failed_at = Some(at);
    delivery.next_attempt_at = None;
}

/// Gives a pending delivery up without an attempt (its receiver or event is gone): failed, with
/// the reason as its last error. `None` when it changed meanwhile.
pub async fn give_up(store: &Store, delivery: &Delivery, reason: &str) -> StoreResult<Option<Delivery>> {
    let now = Timestamp::now();
    let mut next = delivery.next_version(now);
    next.last_error = Some(reason.to_owned());
    next.leased_until = None;
    fail(&mut next, now);
    match store.write(vec![delivery.replaced_by(&next)?]).await {
        Ok(()) => Ok(Some(next)),
        Err(StoreError::ConditionFailed(_)) => Ok(None),
        Err(error) => Err(error),
    }
}

/// Makes a delivery pending again for a new round of attempts, due now, with its original id.
/// `None` when it changed meanwhile.
pub async fn reopen(store: &Store, delivery: &Delivery) -> StoreResult<Option<Delivery>> {
    let now = Timestamp::now();
    let mut next = delivery.next_version(now);
    next.status = DeliveryStatus::Pending;
    next.round_attempts = 0;
    next.next_attempt_at = Some(now);
    next.leased_until = None;
    next.replayed_at = Some(now);
    // Its message goes out once the delivery is reopened (a task in the same transaction), so a
    // replay that dies half way leaves no pending delivery without a message.
    let message = crate::jobs::WebhookDelivery::new(next.account_id, &next.delivery_id);
    match store.write(vec![delivery.replaced_by(&next)?, crate::jobs::tasks::one(next.account_id, message)?]).await {
        Ok(()) => Ok(Some(next)),
        Err(StoreError::ConditionFailed(_)) => Ok(None),
        Err(error) => Err(error),
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_delivery_id_names_its_key() {
        let event = Event::new(AccountId::new(3), events::BILLING_UPDATED, json!({}));
        let id = delivery_id(&event.event_id, WebhookId::new(12));
        assert!(id.starts_with("dlv_") && id.ends_with("_12"), "{id}");
        let (event_id, millis, receiver) = parse_id(&id).unwrap();
        assert_eq!((event_id.as_str(), receiver), (event.event_id.as_str(), WebhookId::new(12)));
        assert_eq!(millis, event.created_at.0.timestamp_millis());
        for bad in ["", "dlv_", "dlv_x_1", &format!("dlv_{}_0", &event.event_id[4..]), "evt_1"] {
            assert_eq!(parse_id(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_schedule_spans_about_three_days_with_jitter() {
        let schedule = Schedule::default();
        assert_eq!(schedule.attempts(), 10);
        let total: StdDuration = schedule.0.iter().sum();
        assert_eq!(total.as_secs(), 272_105);
        for made in 1..=9 {
            let wait = schedule.wait_after(made).unwrap().as_secs_f64();
            let base = schedule.0[made as usize - 1].as_secs_f64();
            assert!((base * 0.9..=base * 1.1).contains(&wait), "{made}: {wait}");
        }
        assert_eq!(schedule.wait_after(10), None);
        assert_eq!(schedule.wait_after(0), None);
        assert_eq!(
            Schedule::parse("1, 2,3"),
            Some(Schedule(vec![StdDuration::from_secs(1), StdDuration::from_secs(2), StdDuration::from_secs(3)]))
        );
        assert_eq!(Schedule::parse("1,x"), None);
        assert_eq!(Schedule::parse(""), None);
    }
}
