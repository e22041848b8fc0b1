//! The funds' availability: a billing paid by card turns `available` once its escrow end
//! (`gw_escrow_end_date`, the gateway's `available_on`) has come.
//!
//! No account is scanned: while it waits, a billing paid by card has its key entry in the
//! availability index under its escrow end's day (`keys::payment::availability_index`, `gsi1`, sixteen
//! shards a day), and leaves it when it turns `available` (or anything else). The daily step
//! ([`run`], EventBridge Scheduler → `GatewayAvailabilityFunction`; `infra/ops gateway available
//! --date D` by hand) reads the day's partitions and the few days before it (a missed run is
//! caught up), a page at a time.

use futures::StreamExt as _;

use crate::billings::card::{self, Card};
use crate::billings::model::Billing;
use crate::billings::service::{change, Ruled};
use crate::refusal::Refusal;
use crate::store::{keys, KeyRange, Sort, Store};
use crate::values::{AccountId, BillingId, BillingStatus, Timestamp};

/// Index entries read at a time.
pub const PAGE: usize = 500;

/// Billings changed at once.
const AT_ONCE: usize = 8;

/// Days before `day` a run looks at too.
pub const CATCH_UP_DAYS: i64 = 3;

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Report {
    pub found: usize,
    pub made_available: usize,
}

/// Makes `available` every billing paid by card whose escrow ends on `day` or up to
/// [`CATCH_UP_DAYS`] before it.
pub async fn run(store: &Store, day: chrono::NaiveDate) -> anyhow::Result<Report> {
    let mut report = Report::default();
    for back in (0..=CATCH_UP_DAYS).rev() {
        let on = day - chrono::Duration::days(back);
        for shard in 0..keys::payment::AVAILABILITY_INDEX_SHARDS {
            let range = KeyRange::index(keys::payment::availability_index_partition(on, shard), Sort::All, true);
            let mut after = None;
            loop {
                let page = store.page(&range, PAGE, after).await?;
                let found: Vec<(AccountId, BillingId)> = page
                    .items
                    .iter()
                    .filter_map(|item| crate::store::item::text(item, keys::payment::AVAILABILITY_INDEX_SK))
                    .filter_map(keys::payment::read_availability_index)
                    .collect();
                report.found += found.len();
                let done: Vec<Result<bool, Refusal>> = futures::stream::iter(found)
                    .map(|(account, billing)| Box::pin(make_available(store, account, billing, day)))
                    .buffer_unordered(AT_ONCE)
                    .collect()
                    .await;
                for one in done {
                    report.made_available += usize::from(one.map_err(|e| anyhow::anyhow!("{e}"))?);
                }
                match page.next {
                    Some(next) => after = Some(next),
                    None => break,
                }
            }
        }
    }
    Ok(report)
}

/// Makes the billing `available` when its card's escrow has ended by `day`; whether it did.
pub async fn make_available(
    store: &Store,
    account: AccountId,
    id: BillingId,
    day: chrono::NaiveDate,
) -> Result<bool, Refusal> {
    let outcome = change(store, account, id, |billing, _| async move {
        let Some(card) = billing.gw_card.clone().filter(|c| c.settled && !c.available) else {
            return Ok(Ruled::Unchanged(false));
        };
        let due = card.escrow_end.is_some_and(|at| at.date() <= day);
        if !due || billing.status != BillingStatus::Paid {
            return Ok(Ruled::Unchanged(false));
        }
        let card = Card { available: true, ..card };
        let status = card::status(billing.status, &card).unwrap_or(billing.status);
        let next = Billing { status, gw_card: Some(card), updated_at: Timestamp::now(), ..billing };
        Ok(Ruled::Changed { next, billet: None, also: Vec::new(), announce: true, then: true })
    })
    .await;
    match outcome {
        Ok((_, done)) => Ok(done),
        Err(Refusal::NotFound) => Ok(false),
        Err(other) => Err(other),
    }
}
