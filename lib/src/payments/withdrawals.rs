//! The one rule that withdraws a billing's charges when it stops being payable through them, for
//! every channel, written in the change's own transaction (the billing's `channels::Channels`,
//! which the edge installs):
//!
//! - **boleto**: a billet the bank knows from a file and that closes (cancelled, re-issued, paid
//!   off, paid through another channel) gets its write-off queued (`boleto::remittance::written_off`);
//! - **Pix**: the billing's charge is removed at its PSP when the billing does not go on with it
//!   (`pix::charge::removed`, through the Pix charges queue);
//! - **card**: when a billing that takes cards stops being collectable otherwise than paid by
//!   card, its card intents are cancelled at the gateway through the card releases queue
//!   ([`CardRelease`], worker `card::releases`): its card's when still open (confirming,
//!   authorized, or refused and waiting for another card), so the payer's card is not held, and
//!   those its checkout made that nobody confirmed, so a page left open cannot pay it.
//!
//! The channel that settles keeps its own charge: a billet paid by boleto is not written off, a
//! billing paid by Pix keeps its (paid) charge, a card that paid is not cancelled.

use super::boleto::remittance::{self, Instruction::WriteOff};
use super::boleto::Boleto;
use super::card::Cards;
use super::channel::{ChannelRoom, Withdrawal};
use super::manual::Manual;
use super::pix::Pix;
use crate::bank_rules::BankRule;
use crate::billings::billets::lifecycle::BilletWrite;
use crate::billings::channels::Channels;
use crate::billings::compute::Terms;
use crate::billings::model::Billing;
use crate::jobs::{tasks, CardRelease, PixCharge};
use crate::refusal::Problem;
use crate::store::{StoreResult, Write};
use crate::values::AccountId;

/// The channels of the service, as billings ask them (installed by `app::wire`).
pub struct PaymentChannels;

impl Channels for PaymentChannels {
    fn withdrawals(
        &self,
        account: AccountId,
        current: &Billing,
        next: &Billing,
        billet: Option<&BilletWrite>,
    ) -> StoreResult<Vec<Write>> {
        withdrawals(account, current, next, billet)
    }

    fn terms_refused(&self, rule: &BankRule, terms: &Terms) -> Vec<Problem> {
        match rule.pix_secret_id {
            Some(_) => super::pix::charge::refused(terms).unwrap_or_default(),
            None => Vec::new(),
        }
    }
}

/// What the change of a billing from `current` to `next`, writing `billet`, withdraws: each
/// channel's room says what of its own (see the module's documentation).
pub fn withdrawn(
    account: AccountId,
    current: &Billing,
    next: &Billing,
    billet: Option<&BilletWrite>,
) -> Vec<Withdrawal> {
    [
        Boleto::withdrawn(account, current, next, billet),
        Pix::withdrawn(account, current, next, billet),
        Cards::withdrawn(account, current, next, billet),
        Manual::withdrawn(account, current, next, billet),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The writes of [`withdrawn`], for the change's transaction: the write-off queued, a Pix charges
/// task, a card releases task.
pub fn withdrawals(
    account: AccountId,
    current: &Billing,
    next: &Billing,
    billet: Option<&BilletWrite>,
) -> StoreResult<Vec<Write>> {
    let mut writes = Vec::new();
    for withdrawal in withdrawn(account, current, next, billet) {
        match (withdrawal, billet) {
            // What the room found written off is the billet as the change leaves it.
            (Withdrawal::BoletoWriteOff, Some(b)) => writes.extend(remittance::queue(account, b.after(), WriteOff)?),
            (Withdrawal::PixCharge(secret_id), _) => writes.push(tasks::one(
                account,
                PixCharge { account_id: account, billing_id: next.id, secret_id, automatic: None },
            )?),
            (Withdrawal::CardIntents(intent_id), _) => {
                let message = CardRelease { account_id: account, billing_id: next.id, intent_id, off_session: false };
                writes.push(tasks::one(account, message)?);
            }
            (Withdrawal::BoletoWriteOff, None) => {}
        }
    }
    Ok(writes)
}
