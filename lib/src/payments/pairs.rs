//! The table of every pair of channels (first payment, second payment) among boleto, Pix, card and
//! pay-off, through the one decision ([`super::decide`]) and the one withdrawal rule
//! ([`super::withdrawals::withdrawn`]): the first settles and withdraws every other channel's
//! charge, the second is kept to refund (a boleto reported again is the same payment: applied
//! before). A pay-off second never gets as far: its route answers 422 for a billing no longer
//! collectable, which is this same refusal.

use super::channel::Withdrawal;
use super::withdrawals::withdrawn;
use super::{decide, entry, Channel, Decided, Entry, Outcome, Payment};
use crate::billets::model::{BankBillet, BilletStatus};
use crate::billings::billets::lifecycle::BilletWrite;
use crate::billings::card::{Card, Stage};
use crate::billings::model::Billing;
use crate::values::{AccountId, BankRuleId, BilletId, BillingId, BillingStatus, DischargeReason, Money};

fn account() -> AccountId {
    AccountId::new(7)
}

fn pix_secret() -> String {
    super::pix::psp::secret_id(account(), BankRuleId::new(1))
}

/// A billing on a rule with a PSP, its billet sent to the bank in a remittance (with its Pix
/// charge), and a card authorized on the checkout, waiting for its capture.
fn open_billing() -> (Billing, BankBillet) {
    let billet = BankBillet {
        status: BilletStatus::Remittanced,
        bank_symbol: "itau".into(),
        agreement_code: Some("0057/12345-7/109".into()),
        remittance_id: Some(4),
        pix_psp: Some(pix_secret()),
        amount: Money::parse("135.00").unwrap(),
        ..crate::billets::model::tests::sample()
    };
    let card = Card { intent_id: "pi_1".into(), stage: Stage::Authorized, amount: billet.amount, ..Card::default() };
    let billing = Billing {
        id: billet.billing_id,
        status: BillingStatus::AwaitingCapture,
        billet_id: Some(billet.id),
        gw_card: Some(card),
        gw_payment_link: Some("http://localhost:3000/pay/k3Qh0v1Yw9r6ZpXc2LmN8bTa5sUe4dFg/cartao".into()),
        ..crate::billings::model::tests::sample()
    };
    (billing, billet)
}

/// The `n`th payment (1, 2) of `channel` of the billet `billet`; a boleto's is named by the billet,
/// so its second is the first reported again.
fn payment(channel: Channel, n: u8, billing: BillingId, billet: BilletId) -> Payment {
    let provider_id = match channel {
        Channel::BankBillet => format!("{billing}/{billet}"),
        Channel::Pix => format!("E1234567820261128000000000{n}"),
        Channel::CreditCard => format!("pi_{n}"),
        _ => format!("cash_entry/{n}"),
    };
    let amount = Money::parse("135.00").unwrap();
    let day = "2026-11-28".parse().unwrap();
    Payment {
        channel,
        provider_id,
        billet_id: Some(billet),
        amount,
        paid_on: day,
        fee: Money::ZERO,
        credit_on: day,
        net_amount: amount,
        paid_off: (channel == Channel::Manual).then_some(DischargeReason::BankDeposit),
    }
}

/// What the first payment of `channel` leaves: the billing, its billet, the ledger, and what it
/// withdrew.
fn first(channel: Channel) -> (Billing, Option<BankBillet>, Vec<Entry>, Vec<Withdrawal>) {
    let (billing, billet) = open_billing();
    let paid = payment(channel, 1, billing.id, billet.id);
    let decided = decide(account(), billing.clone(), Some(&billet), &paid, None).unwrap();
    let Decided::Settles { next, billet: written, .. } = decided else { panic!("{channel:?} first: {decided:?}") };
    let mut next = *next;
    if channel == Channel::CreditCard {
        // The card channel's own rule marks its card paid (`card::sync`).
        next.gw_card = next.gw_card.map(|card| Card { stage: Stage::Succeeded, settled: true, ..card });
    }
    let withdrew = withdrawn(account(), &billing, &next, written.as_ref());
    let after = written.as_ref().map(BilletWrite::after).cloned();
    let ledger = vec![entry(account(), billing.id, &paid, Outcome::Settled, "")];
    (next, after, ledger, withdrew)
}

fn others(channel: Channel) -> Vec<Withdrawal> {
    let all = [
        (Channel::BankBillet, Withdrawal::BoletoWriteOff),
        (Channel::Pix, Withdrawal::PixCharge(pix_secret())),
        (Channel::CreditCard, Withdrawal::CardIntents(Some("pi_1".into()))),
    ];
    all.into_iter().filter(|(c, _)| *c != channel).map(|(_, w)| w).collect()
}

#[test]
fn every_pair_of_channels_settles_once_withdraws_the_others_and_keeps_the_second_to_refund() {
    let mut rows = Vec::new();
    for one in Channel::ALL {
        let (settled, billet, ledger, withdrew) = first(one);
        let status = if one == Channel::Manual { BillingStatus::Discharged } else { BillingStatus::Paid };
        assert_eq!(settled.status, status, "{one:?} first");
        assert_eq!(withdrew, others(one), "{one:?} first withdraws every other channel's charge");
        for two in Channel::ALL {
            let (billing_id, billet_id) = (settled.id, billet.as_ref().map_or(BilletId::new(3), |b| b.id));
            let paid = payment(two, 2, billing_id, billet_id);
            let found = ledger.iter().find(|e| e.channel == paid.channel && e.provider_id == paid.provider_id);
            let decided = decide(account(), settled.clone(), billet.as_ref(), &paid, found).unwrap();
            let outcome = match decided {
                Decided::Already(_) => "already",
                Decided::ToRefund(_) => "to_refund",
                Decided::Settles { .. } => "settles",
            };
            rows.push(format!("{one:?} then {two:?}: {outcome}"));
        }
    }
    let expected: Vec<String> = Channel::ALL
        .iter()
        .flat_map(|one| {
            Channel::ALL.iter().map(move |two| {
                let outcome =
                    if (*one, *two) == (Channel::BankBillet, Channel::BankBillet) { "already" } else { "to_refund" };
                format!("{one:?} then {two:?}: {outcome}")
            })
        })
        .collect();
    assert_eq!(rows, expected);
}

#[test]
fn a_payment_reported_again_is_applied_once_whatever_its_channel() {
    for channel in Channel::ALL {
        let (billing, billet) = open_billing();
        let paid = payment(channel, 1, billing.id, billet.id);
        let recorded = entry(account(), billing.id, &paid, Outcome::Settled, "");
        let again = decide(account(), billing, Some(&billet), &paid, Some(&recorded)).unwrap();
        assert!(matches!(again, Decided::Already(Outcome::Settled)), "{channel:?}: {again:?}");
    }
}
