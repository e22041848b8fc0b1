//! The daily run of reminders, by key: for each step some schedule has (`schedule::days_in_use`),
//! the billings due that many days before the run's day are the due-day index's partitions of that
//! date (`keys::reminder::reminder_index`, sixteen shards), which hold only billings that can be paid; a page
//! of one partition gives a few accounts' billings (sorted by account), whose schedules are read
//! together (one batch read), and each billing whose account has the step gets its reminder.
//! Nothing reads an account's billings: a day costs about its due billings' index entries.
//!
//! On AWS the scheduler starts the run ([`start`]: a scan message per step and shard on the scans
//! queue); each scan reads one page, sends its reminders to the reminders queue (each under its
//! account: the fair queue serves tenants in turn) and then the next page's scan. Scans have a
//! queue of their own so that they never wait behind reminders: a small account's reminders are
//! queued within the scans' few seconds, not after a big account's backlog. Locally,
//! `infra/ops reminders run` runs a whole day in the process ([`run_day`]) through the same page
//! and sender.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use chrono::NaiveDate;
use futures::StreamExt as _;

use super::providers::Providers;
use super::schedule::{self, Channel};
use super::send::{self, Reminder};
use crate::jobs::{self, Message as _, Queues, ReminderScan};
use crate::store::{keys, Item, Store, StoreResult};
use crate::store::{KeyRange, Sort};
use crate::values::AccountId;

/// Index entries a scan reads at a time (about 100 bytes each: a tenth of a 1 MB page).
pub const PAGE: usize = 1_000;

/// The account the scans run under (the service's: no tenant's).
const SERVICE: AccountId = AccountId::new(0);

/// One page of the index for the step `days` on `day`, in `shard`, from `after`: the reminders it
/// holds for accounts whose schedule has that step, and where the next page starts.
pub async fn page(
    store: &Store,
    day: NaiveDate,
    days: i64,
    shard: i64,
    after: Option<Item>,
) -> StoreResult<(Vec<Reminder>, Option<Item>)> {
    let due_date = day - chrono::Duration::days(days);
    let range = KeyRange::index(keys::reminder::reminder_index_partition(due_date, shard), Sort::All, true);
    let found = store.page(&range, PAGE, after).await?;
    let due: Vec<_> = found
        .items
        .iter()
        .filter_map(|item| crate::store::item::text(item, keys::reminder::REMINDER_INDEX_SK))
        .filter_map(keys::reminder::read_reminder_index)
        .collect();
    let accounts: Vec<AccountId> = due.iter().map(|(a, _)| *a).collect::<BTreeSet<_>>().into_iter().collect();
    let mut schedules = HashMap::new();
    for chunk in accounts.chunks(100) {
        schedules.extend(schedule::of_many(store, chunk).await?);
    }
    let reminders = due
        .into_iter()
        .filter_map(|(account_id, billing_id)| {
            let channels = schedules.get(&account_id)?.channels_on(days);
            (!channels.is_empty()).then_some(Reminder { account_id, billing_id, day, days, due_date, channels })
        })
        .collect();
    Ok((reminders, found.next))
}

/// Starts `day`'s run on the scans queue: a scan of the first page of each step in use and shard;
/// how many.
pub async fn start(store: &Store, queues: &Queues, day: NaiveDate) -> anyhow::Result<usize> {
    let steps = schedule::days_in_use(store).await?;
    let mut bodies = Vec::new();
    for days in &steps {
        for shard in 0..keys::reminder::REMINDER_INDEX_SHARDS {
            bodies.push(jobs::body(&ReminderScan { day, days: *days, shard, after: None })?);
        }
    }
    queues.send_bodies(ReminderScan::KIND, SERVICE, &bodies, 0).await?;
    Ok(bodies.len())
}

/// The message of a reminder to send.
fn send_message(reminder: &Reminder) -> jobs::Reminder {
    jobs::Reminder {
        account_id: reminder.account_id,
        billing_id: reminder.billing_id,
        day: reminder.day,
        days: reminder.days,
        due_date: reminder.due_date,
        channels: reminder.channels.iter().map(|c| c.as_str().to_owned()).collect(),
    }
}

/// A page's start as a message carries it (its keys are text), and back: mapped by the store.
fn cursor_of(item: &Item) -> StoreResult<BTreeMap<String, String>> {
    crate::store::item::from_item(item.clone())
}

fn item_of(cursor: &BTreeMap<String, String>) -> StoreResult<Item> {
    crate::store::item::to_item(cursor)
}

/// What a scan did: the reminders it queued, and whether a next page follows.
#[derive(Debug, Default)]
pub struct Scanned {
    pub queued: usize,
    pub more: bool,
}

/// Handles a scan: its page's reminders to the reminders queue, each account's together, then the
/// next page's scan.
pub async fn scan(store: &Store, queues: &Queues, message: ReminderScan) -> anyhow::Result<Scanned> {
    let ReminderScan { day, days, shard, after } = message;
    let (reminders, next) = page(store, day, days, shard, after.as_ref().map(item_of).transpose()?).await?;
    let mut by_account: BTreeMap<AccountId, Vec<String>> = BTreeMap::new();
    for reminder in &reminders {
        by_account.entry(reminder.account_id).or_default().push(jobs::body(&send_message(reminder))?);
    }
    for (account, bodies) in &by_account {
        queues.send_bodies(jobs::Reminder::KIND, *account, bodies, 0).await?;
    }
    if let Some(next) = &next {
        queues.send(&ReminderScan { day, days, shard, after: Some(cursor_of(next)?) }).await?;
    }
    Ok(Scanned { queued: reminders.len(), more: next.is_some() })
}

/// Sends a queued reminder.
pub async fn deliver(store: &Store, providers: &Providers, message: jobs::Reminder) -> anyhow::Result<send::Sent> {
    let jobs::Reminder { account_id, billing_id, day, days, due_date, channels } = message;
    let channels = channels.iter().filter_map(|c| Channel::parse(c)).collect();
    let reminder = Reminder { account_id, billing_id, day, days, due_date, channels };
    send::send(store, providers, &reminder).await
}

/// The reminders' worker over a batch of either queue (one function takes both): scans and
/// reminders, each handled once at most in the process; the failed ones go back.
pub async fn handle_batch(store: &Store, queues: &Queues, providers: &Providers, event: SqsEvent) -> SqsBatchResponse {
    let is_scan = |record: &aws_lambda_events::event::sqs::SqsMessage| {
        let body = record.body.as_deref().unwrap_or_default();
        serde_json::from_str::<serde_json::Value>(body)
            .is_ok_and(|value| value.get("kind").and_then(|k| k.as_str()) == Some(ReminderScan::KIND))
    };
    let (scans, sends): (Vec<_>, Vec<_>) = event.records.into_iter().partition(is_scan);
    let of = |records| {
        let mut event = SqsEvent::default();
        event.records = records;
        event
    };
    let (scans, sends) = (of(scans), of(sends));
    let (mut scanned, sent) = tokio::join!(
        jobs::handle_batch(scans, "reminder scan", |message: ReminderScan| scan(store, queues, message)),
        jobs::handle_batch(sends, "reminder", |message: jobs::Reminder| deliver(store, providers, message)),
    );
    scanned.batch_item_failures.extend(sent.batch_item_failures);
    scanned
}

/// What a day's run did.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct DayReport {
    pub day: Option<NaiveDate>,
    /// Index pages read.
    pub pages: usize,
    /// Reminders found (billings × step).
    pub reminders: usize,
    /// Deliveries by their status after the run (those sent earlier count as they stand).
    pub statuses: BTreeMap<String, usize>,
    /// Reminders whose billing no longer wanted them (paid, cancelled, moved) when their turn came.
    pub dropped: usize,
    /// Reminders that failed for now (storage, a provider still refusing): a run again retries them.
    pub failed: usize,
}

/// Runs `day`'s reminders in this process: every step in use, shard and page, each page's
/// reminders taken in turns of their accounts (one of each account, then the next of each), up to
/// `concurrency` at a time, paced by `providers`. Running the same day again sends nothing new.
pub async fn run_day(
    store: &Store,
    providers: &Providers,
    day: NaiveDate,
    concurrency: usize,
) -> anyhow::Result<DayReport> {
    let mut report = DayReport { day: Some(day), ..DayReport::default() };
    for days in schedule::days_in_use(store).await? {
        for shard in 0..keys::reminder::REMINDER_INDEX_SHARDS {
            let mut after = None;
            loop {
                let (reminders, next) = page(store, day, days, shard, after).await?;
                report.pages += 1;
                report.reminders += reminders.len();
                let outcomes: Vec<_> = futures::stream::iter(in_turns(reminders))
                    .map(|reminder| async move { send::send(store, providers, &reminder).await })
                    .buffer_unordered(concurrency.max(1))
                    .collect()
                    .await;
                for outcome in outcomes {
                    match outcome {
                        Ok(sent) if sent.is_empty() => report.dropped += 1,
                        Ok(sent) => {
                            for (_, status) in sent {
                                *report.statuses.entry(status.as_str().to_owned()).or_default() += 1;
                            }
                        }
                        Err(error) => {
                            tracing::warn!(error = ?error, "a reminder failed for now");
                            report.failed += 1;
                        }
                    }
                }
                match next {
                    Some(next) => after = Some(next),
                    None => break,
                }
            }
        }
    }
    Ok(report)
}

/// Reminders reordered in turns of their accounts (`jobs::in_turns`).
pub fn in_turns(reminders: Vec<Reminder>) -> Vec<Reminder> {
    jobs::in_turns(reminders, |reminder| reminder.account_id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::BillingId;

    #[test]
    fn turns_serve_each_account_before_anyone_twice() {
        let day: NaiveDate = "2026-11-27".parse().unwrap();
        let of = |account: i64, billing: i64| Reminder {
            account_id: AccountId::new(account),
            billing_id: BillingId::new(billing),
            day,
            days: 0,
            due_date: day,
            channels: vec![Channel::Email],
        };
        let big: Vec<Reminder> = (1..=5).map(|b| of(1, b)).chain([of(2, 1), of(3, 1), of(3, 2)]).collect();
        let order: Vec<(i64, i64)> = in_turns(big).iter().map(|r| (r.account_id.get(), r.billing_id.get())).collect();
        assert_eq!(order, [(1, 1), (2, 1), (3, 1), (1, 2), (3, 2), (1, 3), (1, 4), (1, 5)]);
    }

    #[test]
    fn a_cursor_goes_through_a_message() {
        let keys = [("gsi1pk", "REMIND#2026-11-27#01"), ("gsi1sk", "0000000007#0000000012"), ("pk", "p"), ("sk", "s")];
        let cursor: BTreeMap<String, String> = keys.into_iter().map(|(k, v)| (k.to_owned(), v.to_owned())).collect();
        let item = item_of(&cursor).unwrap();
        assert_eq!(crate::store::item::text(&item, "gsi1sk"), Some("0000000007#0000000012"));
        assert_eq!(cursor_of(&item).unwrap(), cursor);
    }
}
