//! `GET /v1/billings` (§4.2): which billings a list shows, in order `id` descending. The route
//! reads a typed [`BillingQuery`]; [`plan`](plan::plan) maps it to a [`Plan`](plan::Plan), which
//! names the reads that answer it (a pure function, with a table test of every query shape);
//! [`run`](run::run) carries them out.
//!
//! - `query`: the query, typed; `statuses`: §3.1's statuses and aggregates as status ranges;
//! - `plan`: which reads answer which query;
//! - `run`: each plan's reads; `counts`: a list's total from the counters; `walk`: reading
//!   postings and key entries, the shards in step; `intersect`: filters read whole and
//!   intersected, or one value's postings carrying the others; `search`: `s`.

mod counts;
mod intersect;
mod plan;
mod query;
mod run;
mod search;
mod statuses;
mod walk;

use chrono::NaiveDate;

pub use query::BillingQuery;

use crate::billings::model::Billing;
use crate::refusal::Refusal;
use crate::store::records::Listed;
use crate::store::Store;
use crate::values::AccountId;

/// The page of billings `query` asks for, and the total after its filters.
pub async fn list(
    store: &Store,
    account: AccountId,
    query: &BillingQuery,
    today: NaiveDate,
) -> Result<Listed<Billing>, Refusal> {
    let plan = plan::plan(query, today);
    match query.billing_type {
        Some(billing_type) => run::run(store, account, billing_type, plan, query.window).await,
        None => Ok(Listed::empty()),
    }
}
