//! The daily issuing run, by key: the schedules whose next cycle's issue day is the run's day or
//! before are the issuing index's entries up to that day (`keys::schedule::issue_index`, sixteen
//! shards), and nothing else: a run costs about its due schedules' entries, whatever the accounts
//! hold, and a day a run missed is caught by the next. Each schedule found is run on the day
//! (`billings::service::issue_cycle`): its cycle issued once, the entry moved to the next cycle in
//! the same transaction.
//!
//! On AWS the scheduler starts the run ([`start`]): it reads the index and sends one message per
//! schedule to the schedule cycles queue under its account, where the fair queue serves tenants in
//! turn, and the issuer issues each ([`handle_batch`]). Locally, `infra/ops schedules run` runs a
//! day in the process ([`run_day`]), accounts in turn.

use std::collections::BTreeMap;

use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use chrono::NaiveDate;
use futures::StreamExt as _;

use crate::billings::service::{issue_cycle, Issued};
use crate::jobs::{self, Message as _, Queues, ScheduleCycle};
use crate::store::{keys, Item, KeyRange, Sort, Store, StoreResult};
use crate::values::{AccountId, BillingId};

/// Index entries a page reads at a time (about 80 bytes each).
pub const PAGE: usize = 1_000;

/// One page of shard `shard` of the issuing index up to `day`, from `after`: the schedules it holds,
/// and where the next page starts.
pub async fn page(
    store: &Store,
    day: NaiveDate,
    shard: i64,
    after: Option<Item>,
) -> StoreResult<(Vec<(AccountId, BillingId)>, Option<Item>)> {
    let below = Sort::Below(keys::schedule::issue_index_after(day));
    let range = KeyRange::index(keys::schedule::issue_index_partition(shard), below, true);
    let found = store.page(&range, PAGE, after).await?;
    let due = found
        .items
        .iter()
        .filter_map(|item| crate::store::item::text(item, keys::reminder::REMINDER_INDEX_SK))
        .filter_map(keys::schedule::read_issue_index)
        .map(|(_, account, schedule)| (account, schedule))
        .collect();
    Ok((due, found.next))
}

/// Every schedule due on `day` (the index up to it), shards read at once.
async fn due_on(store: &Store, day: NaiveDate) -> StoreResult<(Vec<(AccountId, BillingId)>, usize)> {
    let shards = (0..keys::schedule::ISSUE_INDEX_SHARDS).map(|shard| async move {
        let (mut due, mut pages, mut after) = (Vec::new(), 0, None);
        loop {
            let (found, next) = page(store, day, shard, after).await?;
            due.extend(found);
            pages += 1;
            match next {
                Some(next) => after = Some(next),
                None => return Ok::<_, crate::store::StoreError>((due, pages)),
            }
        }
    });
    let mut all = (Vec::new(), 0);
    for (due, pages) in futures::future::try_join_all(shards).await? {
        all.0.extend(due);
        all.1 += pages;
    }
    Ok(all)
}

/// Starts `day`'s run: one message per due schedule on the schedule cycles queue, each account's
/// together. Returns how many. Sending a day again is harmless (a cycle is issued once).
pub async fn start(store: &Store, queues: &Queues, day: NaiveDate) -> anyhow::Result<usize> {
    let (due, _) = due_on(store, day).await?;
    let mut by_account: BTreeMap<AccountId, Vec<String>> = BTreeMap::new();
    for (account_id, schedule_id) in &due {
        let message = ScheduleCycle { account_id: *account_id, schedule_id: *schedule_id, day };
        by_account.entry(*account_id).or_default().push(jobs::body(&message)?);
    }
    // Each account's sends, sixteen accounts at a time (owned: a stream of borrowing closures is
    // not `Send` for the dev server's spawned run).
    let mut sends = Vec::new();
    for (account, bodies) in by_account {
        sends.push(async move { queues.send_bodies(ScheduleCycle::KIND, account, &bodies, 0).await });
    }
    let sent: Vec<anyhow::Result<()>> = futures::stream::iter(sends).buffer_unordered(16).collect().await;
    sent.into_iter().collect::<anyhow::Result<Vec<()>>>()?;
    Ok(due.len())
}

/// Runs one queued schedule on its day.
pub async fn run_one(store: &Store, message: ScheduleCycle) -> anyhow::Result<Issued> {
    Ok(issue_cycle(store, message.account_id, message.schedule_id, message.day).await?)
}

/// The issuer over a batch of the schedule cycles queue; the failed ones go back.
pub async fn handle_batch(store: &Store, event: SqsEvent) -> SqsBatchResponse {
    jobs::handle_batch(event, "schedule cycle", |message: ScheduleCycle| run_one(store, message)).await
}

/// What a day's run did.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct DayReport {
    pub day: Option<NaiveDate>,
    /// Index pages read.
    pub pages: usize,
    /// Schedules found due.
    pub due: usize,
    /// Cycles issued.
    pub issued: usize,
    /// Schedules that moved on past cycles whose due date had passed.
    pub skipped: usize,
    /// Schedules found with nothing to issue (issued already, ended, deleted).
    pub nothing: usize,
    /// Schedules that failed for now: a run again retries them.
    pub failed: usize,
}

/// Runs `day` in this process: every due schedule, accounts in turn (one of each account, then the
/// next of each), up to `concurrency` at a time. A skip that makes a cycle due issues it in the
/// same run. Running the same day again issues nothing new.
pub async fn run_day(store: &Store, day: NaiveDate, concurrency: usize) -> anyhow::Result<DayReport> {
    let (due, pages) = due_on(store, day).await?;
    let mut report = DayReport { day: Some(day), pages, due: due.len(), ..DayReport::default() };
    let outcomes: Vec<_> = futures::stream::iter(jobs::in_turns(due, |(account, _)| *account))
        .map(|(account, schedule)| async move {
            let first = issue_cycle(store, account, schedule, day).await?;
            match first {
                Issued::Skipped => issue_cycle(store, account, schedule, day).await.map(|then| (first, then)),
                _ => Ok((first, first)),
            }
        })
        .buffer_unordered(concurrency.max(1))
        .collect()
        .await;
    for outcome in outcomes {
        match outcome {
            Ok((first, then)) => {
                report.skipped += usize::from(first == Issued::Skipped);
                match then {
                    Issued::Billing { .. } => report.issued += 1,
                    Issued::Skipped => {}
                    Issued::NotYet | Issued::Nothing => report.nothing += usize::from(first != Issued::Skipped),
                }
            }
            Err(error) => {
                tracing::warn!(error = ?error, "a schedule's cycle failed; a run again retries it");
                report.failed += 1;
            }
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accounts_take_turns() {
        let (a, b) = (AccountId::new(1), AccountId::new(2));
        let due = vec![(a, BillingId::new(1)), (a, BillingId::new(2)), (a, BillingId::new(3)), (b, BillingId::new(9))];
        let turns: Vec<_> =
            jobs::in_turns(due, |(account, _)| *account).into_iter().map(|(account, _)| account).collect();
        assert_eq!(turns, [a, b, a, a]);
    }
}
