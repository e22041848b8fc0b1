//! A billing's card payment as the gateway last told it ([`Card`], kept on the billing as
//! `gw_card`) and the billing status it makes ([`status`]): pure functions, so that the order in
//! which the gateway's events arrive does not matter.
//!
//! Every part of a card payment only moves forward: the intent's stage (`open` → `pending` →
//! `authorized` → `succeeded`, or `canceled`), a review (opened → closed), a dispute (open → won or
//! lost), the amount refunded (it only grows), the funds' availability (once available, always).
//! [`Card::merge`] keeps the furthest of what it had and what it is told, so an event delivered
//! twice, late or out of order leaves the card as the latest facts make it, and the billing's
//! status follows from the card alone.

use serde::{Deserialize, Serialize};

use crate::store::item::number;
use crate::values::{BillingStatus, Money, Timestamp};

/// Where the card's intent stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Made, not confirmed by the payer yet (or refused: the payer may try another card).
    #[default]
    Open,
    /// Confirmed, the bank not done (3-D Secure, processing): a checkout under way.
    Pending,
    /// Authorized, waiting for the account to capture or release it (manual capture).
    Authorized,
    /// Paid.
    Succeeded,
    /// Released or expired without payment.
    Canceled,
}

impl Stage {
    /// How far it is: `canceled` ends an intent that never succeeded, `succeeded` one that did.
    fn rank(self) -> u8 {
        match self {
            Stage::Open => 0,
            Stage::Pending => 1,
            Stage::Authorized => 2,
            Stage::Canceled => 3,
            Stage::Succeeded => 4,
        }
    }
}

/// A review of the payment (the gateway's fraud check), as its events told it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Review {
    pub id: String,
    pub open: bool,
}

/// Where a dispute (a chargeback) stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DisputeStatus {
    Open,
    Won,
    Lost,
}

/// A dispute of the payment, as its events told it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dispute {
    pub id: String,
    pub status: DisputeStatus,
}

/// How the payer paid: the spec's numeric gateway codes (`gw_payment_method_type`,
/// `gw_payment_method_code`; PagSeguro's, which the spec's fields mirror) and the installments.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Method {
    /// 1 credit card, 8 debit card.
    pub kind: i64,
    /// The brand: 101 Visa, 102 Mastercard, 103 American Express, 104 Diners, 105 Hipercard,
    /// 107 Elo, 110 JCB, 111 Discover; 199 another.
    pub code: i64,
    pub installments: i64,
    /// The brand and last digits, for the operator (never the number).
    #[serde(default)]
    pub label: String,
}

impl Method {
    /// The codes of a card of `brand` (the gateway's word) and `funding` (`credit`, `debit`).
    pub fn of(brand: &str, funding: &str, installments: i64, last4: &str) -> Method {
        let code = match brand.to_ascii_lowercase().replace([' ', '_'], "").as_str() {
            "visa" => 101,
            "mastercard" => 102,
            "amex" | "americanexpress" => 103,
            "diners" | "dinersclub" => 104,
            "hipercard" => 105,
            "elo" => 107,
            "jcb" => 110,
            "discover" => 111,
            _ => 199,
        };
        let kind = if funding == "debit" { 8 } else { 1 };
        Method { kind, code, installments: installments.max(1), label: format!("{brand} •••• {last4}") }
    }
}

/// The card payment of a billing: the intent that counts and what the gateway said of it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Card {
    /// The gateway's intent id.
    pub intent_id: String,
    pub stage: Stage,
    /// What the intent asks (then: what was paid).
    #[serde(with = "number")]
    pub amount: Money,
    /// The gateway's fee and what it credits (from its balance transaction, once paid).
    #[serde(default, with = "number")]
    pub fee: Money,
    #[serde(default, with = "number")]
    pub net: Money,
    /// When the funds become available to the account (`gw_escrow_end_date`).
    #[serde(default)]
    pub escrow_end: Option<Timestamp>,
    /// The funds are available (the daily step saw the escrow end pass).
    #[serde(default)]
    pub available: bool,
    #[serde(default)]
    pub method: Option<Method>,
    /// Given back to the payer so far.
    #[serde(default, with = "number")]
    pub refunded: Money,
    #[serde(default)]
    pub review: Option<Review>,
    #[serde(default)]
    pub dispute: Option<Dispute>,
    /// The payment settled the billing (its ledger entry says so): the card moves it from now on.
    #[serde(default)]
    pub settled: bool,
    /// The payment did not settle the billing (it was settled otherwise first): kept to refund,
    /// and the card no longer moves the billing.
    #[serde(default)]
    pub to_refund: bool,
}

impl Card {
    /// A checkout under way: the payer confirmed the intent and the gateway has not said how it
    /// ends, or it is authorized or in review. A billing in that state is "on the checkout
    /// gateway" (§2.1): its amount and terms stay as the payer saw them.
    pub fn under_way(&self) -> bool {
        !self.to_refund
            && (matches!(self.stage, Stage::Pending | Stage::Authorized)
                || self.review.as_ref().is_some_and(|r| r.open))
    }

    /// The card with `told` over it, each part the furthest of the two (see the module). `told`
    /// about another intent replaces an intent that never got anywhere (`open`, `canceled`), and
    /// is ignored otherwise (the caller keeps a second payment to refund).
    pub fn merge(&self, told: &Card) -> Card {
        if told.intent_id != self.intent_id {
            let replaceable = matches!(self.stage, Stage::Open | Stage::Canceled) || self.intent_id.is_empty();
            return if replaceable { told.clone() } else { self.clone() };
        }
        let stage = if told.stage.rank() > self.stage.rank() { told.stage } else { self.stage };
        let (paid, source) = if told.stage == Stage::Succeeded { (true, told) } else { (false, self) };
        let newer = |a: &Option<Review>, b: &Option<Review>| match (a, b) {
            (Some(a), Some(b)) if a.id == b.id => Some(Review { id: a.id.clone(), open: a.open && b.open }),
            (_, Some(b)) => Some(b.clone()),
            (a, None) => a.clone(),
        };
        let dispute = match (&self.dispute, &told.dispute) {
            (Some(a), Some(b)) if a.id == b.id && a.status != DisputeStatus::Open => Some(a.clone()),
            (_, Some(b)) => Some(b.clone()),
            (a, None) => a.clone(),
        };
        Card {
            intent_id: self.intent_id.clone(),
            stage,
            amount: if paid { source.amount } else { self.amount.max(told.amount) },
            fee: if paid { told.fee } else { self.fee },
            net: if paid { told.net } else { self.net },
            escrow_end: told.escrow_end.or(self.escrow_end),
            available: self.available || told.available,
            method: told.method.clone().or_else(|| self.method.clone()),
            refunded: self.refunded.max(told.refunded),
            review: newer(&self.review, &told.review),
            dispute,
            settled: self.settled || told.settled,
            to_refund: self.to_refund || told.to_refund,
        }
    }
}

/// The status a billing in `current` takes from its `card`: `None` leaves it as it is (the card
/// does not move a billing it did not pay, nor one settled or closed otherwise). A card that
/// `settled` the billing:
///
/// - `returned` once wholly refunded or a dispute lost; `in_dispute` while a
///   dispute is open; else `available` once the funds are, `paid` before;
/// - not paid yet, the billing still collectable: `under_review` while a review is open,
///   `awaiting_capture` while authorized, else back to `opened` (a released authorization).
pub fn status(current: BillingStatus, card: &Card) -> Option<BillingStatus> {
    if card.to_refund {
        return None;
    }
    if card.settled {
        let dispute = card.dispute.as_ref().map(|d| d.status);
        let next =
            if dispute == Some(DisputeStatus::Lost) || (card.amount.is_positive() && card.refunded >= card.amount) {
                BillingStatus::Returned
            } else if dispute == Some(DisputeStatus::Open) {
                BillingStatus::InDispute
            } else if card.available {
                BillingStatus::Available
            } else {
                BillingStatus::Paid
            };
        return Some(next);
    }
    if !current.collectable() || current == BillingStatus::Protested {
        return None;
    }
    let next = if card.review.as_ref().is_some_and(|r| r.open) {
        BillingStatus::UnderReview
    } else if card.stage == Stage::Authorized {
        BillingStatus::AwaitingCapture
    } else {
        BillingStatus::Opened
    };
    Some(next)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(stage: Stage) -> Card {
        Card { intent_id: "pi_1".into(), stage, amount: Money::new(25.into()), ..Card::default() }
    }

    fn paid() -> Card {
        Card { fee: Money::new(1.into()), net: Money::new(24.into()), settled: true, ..card(Stage::Succeeded) }
    }

    #[test]
    fn any_order_of_the_same_facts_makes_the_same_card() {
        let facts = [
            card(Stage::Pending),
            card(Stage::Authorized),
            Card { review: Some(Review { id: "prv_1".into(), open: true }), ..card(Stage::Open) },
            Card { review: Some(Review { id: "prv_1".into(), open: false }), ..card(Stage::Open) },
            paid(),
            Card { dispute: Some(Dispute { id: "dp_1".into(), status: DisputeStatus::Open }), ..card(Stage::Open) },
            Card { dispute: Some(Dispute { id: "dp_1".into(), status: DisputeStatus::Won }), ..card(Stage::Open) },
        ];
        let fold = |order: &[usize]| order.iter().fold(card(Stage::Open), |c, &i| c.merge(&facts[i]));
        let expected = fold(&[0, 1, 2, 3, 4, 5, 6]);
        assert_eq!(expected.stage, Stage::Succeeded);
        assert_eq!(expected.review, Some(Review { id: "prv_1".into(), open: false }));
        assert_eq!(expected.dispute.as_ref().map(|d| d.status), Some(DisputeStatus::Won));
        for order in [[6, 5, 4, 3, 2, 1, 0], [4, 6, 0, 3, 5, 2, 1], [3, 2, 6, 5, 1, 0, 4]] {
            assert_eq!(fold(&order), expected, "{order:?}");
            // Each fact twice changes nothing.
            let twice: Vec<usize> = order.iter().flat_map(|&i| [i, i]).collect();
            assert_eq!(fold(&twice), expected, "{order:?} twice");
        }
    }

    #[test]
    fn the_status_follows_the_card() {
        use BillingStatus::*;
        assert_eq!(status(Opened, &card(Stage::Authorized)), Some(AwaitingCapture));
        let review = Card { review: Some(Review { id: "prv".into(), open: true }), ..card(Stage::Authorized) };
        assert_eq!(status(AwaitingCapture, &review), Some(UnderReview));
        assert_eq!(status(AwaitingCapture, &card(Stage::Canceled)), Some(Opened));
        assert_eq!(status(Paid, &card(Stage::Authorized)), None, "settled otherwise");
        assert_eq!(status(Opened, &paid()), Some(Paid));
        assert_eq!(status(Paid, &Card { available: true, ..paid() }), Some(Available));
        let open = Card { dispute: Some(Dispute { id: "dp".into(), status: DisputeStatus::Open }), ..paid() };
        assert_eq!(status(Available, &open), Some(InDispute));
        let lost = Card { dispute: Some(Dispute { id: "dp".into(), status: DisputeStatus::Lost }), ..paid() };
        assert_eq!(status(InDispute, &lost), Some(Returned));
        let won = Card { dispute: Some(Dispute { id: "dp".into(), status: DisputeStatus::Won }), ..paid() };
        assert_eq!(status(InDispute, &won), Some(Paid));
        assert_eq!(status(Paid, &Card { refunded: Money::new(25.into()), ..paid() }), Some(Returned));
        assert_eq!(status(Paid, &Card { refunded: Money::new(5.into()), ..paid() }), Some(Paid));
        assert_eq!(status(Paid, &Card { to_refund: true, ..paid() }), None);
    }

    #[test]
    fn a_checkout_under_way_is_a_confirmed_or_authorized_or_reviewed_one() {
        assert!(!card(Stage::Open).under_way());
        assert!(card(Stage::Pending).under_way());
        assert!(card(Stage::Authorized).under_way());
        assert!(!paid().under_way());
        assert_eq!(Method::of("visa", "credit", 0, "4242").code, 101);
        assert_eq!(Method::of("mastercard", "debit", 3, "4444").kind, 8);
    }
}
