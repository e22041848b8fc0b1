//! `ops schedules …`: the schedules' issuing run of a day in this process, and a schedule's cycles.

use billing_api::store::Store;
use billing_api::values::{AccountId, BillingId};
use clap::Subcommand;
use serde_json::{json, Value};

#[derive(Subcommand, Debug)]
pub enum SchedulesCommand {
    /// Runs a day's issuing at once for every account, in this process (what the daily schedule
    /// runs through the queue): every schedule whose next cycle is due by that day issues it, once;
    /// running the same day again issues nothing new.
    Run {
        /// YYYY-MM-DD. Default: today (São Paulo).
        #[arg(long)]
        date: Option<chrono::NaiveDate>,
        /// Schedules in flight at once.
        #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..=64))]
        concurrency: u16,
    },
    /// The billing each of a schedule's cycles made, from `--from`, `--count` of them (`null`
    /// where none was made: not yet, or skipped).
    Cycles {
        /// The account.
        #[arg(long)]
        account: AccountId,
        /// The schedule (its billing id).
        #[arg(long)]
        schedule: BillingId,
        /// The first cycle to show (from 0).
        #[arg(long, default_value_t = 0)]
        from: u32,
        /// How many cycles at most.
        #[arg(long, default_value_t = 24, value_parser = clap::value_parser!(u32).range(1..=600))]
        count: u32,
    },
}

pub async fn run(store: &Store, command: SchedulesCommand) -> anyhow::Result<Value> {
    match command {
        SchedulesCommand::Run { date, concurrency } => {
            let day = date.unwrap_or_else(billing_api::values::today);
            let report = billing_api::schedules::run::run_day(store, day, usize::from(concurrency)).await?;
            Ok(serde_json::to_value(report)?)
        }
        SchedulesCommand::Cycles { account, schedule, from, count } => {
            let mut cycles = Vec::new();
            for cycle in from..from.saturating_add(count) {
                let billing = billing_api::billings::service::cycle_billing_of(store, account, schedule, cycle).await?;
                cycles.push(json!({ "cycle": cycle, "billing_id": billing }));
            }
            Ok(json!({ "account_id": account, "schedule_id": schedule, "cycles": cycles }))
        }
    }
}
