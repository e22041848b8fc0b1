//! `ops payment …`: payments as every channel applies them; the account's payments kept to refund
//! (a billing paid twice, or paid after it was settled otherwise).

use billing_api::store::Store;
use billing_api::values::AccountId;
use clap::Subcommand;
use serde_json::{json, Value};

use super::require_account;

#[derive(Subcommand, Debug)]
pub enum PaymentCommand {
    /// The account's payments kept to refund (a billing paid twice, through two channels or
    /// after it was settled otherwise), oldest first: each with its billing, billet, channel,
    /// amount, day and why.
    Refunds {
        /// The account whose payments these are.
        #[arg(long)]
        account: AccountId,
        /// How many (oldest first).
        #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u16).range(1..=1000))]
        limit: u16,
    },
}

/// Runs one `payment` command.
pub async fn run(store: &Store, command: PaymentCommand) -> anyhow::Result<Value> {
    match command {
        PaymentCommand::Refunds { account, limit } => payments_to_refund(store, account, usize::from(limit)).await,
    }
}

/// The account's payments kept to refund (`payments::to_refund`).
pub async fn payments_to_refund(store: &Store, account: AccountId, limit: usize) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    let kept = billing_api::payments::to_refund(store, account, limit).await?;
    Ok(json!({ "to_refund": kept }))
}
