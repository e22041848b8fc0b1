//! Where a billet stands for its payer today ([`Standing`]), and what it owes when payable
//! ([`Due`]): what the payer page shows and what a reminder asks.

use chrono::NaiveDate;

use super::compute;
use super::Billing;
use crate::billets::model::BankBillet;
use crate::billets::BilletStatus;
use crate::values::{BillingStatus, Money};

/// Where the billet stands for its payer today.
#[derive(Clone, Debug, PartialEq)]
pub enum Standing {
    /// It can be paid: what is due today.
    Payable(Due),
    /// The bank has not answered its registration yet: no code to pay with.
    Registering,
    /// Paid (on that day, when the bank said).
    Paid(Option<NaiveDate>),
    /// Written off: the billing was settled some other way.
    Discharged,
    Canceled,
    /// Cancelled because the billing got a new billet.
    Replaced,
    /// Past its return date (the bank no longer takes it).
    Expired(NaiveDate),
    /// The bank refused to register it.
    Rejected,
    /// A card payment of its billing is authorized or in review: not to be paid again meanwhile.
    CardUnderWay,
}

/// What the payer owes today, as the billing computes it (`billings::compute`).
#[derive(Clone, Debug, PartialEq)]
pub struct Due {
    pub discount: Money,
    /// Interest and penalty.
    pub charges: Money,
    pub total: Money,
    pub days_overdue: i64,
}

impl Standing {
    /// The billet's standing, from it and its billing, as of `today` (São Paulo).
    pub fn of(billet: &BankBillet, billing: &Billing, today: NaiveDate) -> Standing {
        match billet.status {
            BilletStatus::Paid => return Standing::Paid(billet.settlement.paid_at),
            BilletStatus::Discharged => return Standing::Discharged,
            BilletStatus::Rejected => return Standing::Rejected,
            BilletStatus::Canceled
                if billing.status == BillingStatus::Opened && billing.billet_id != Some(billet.id) =>
            {
                return Standing::Replaced
            }
            BilletStatus::Canceled => return Standing::Canceled,
            // Its boleto is not at the bank yet; with a Pix charge it is payable by Pix already.
            status
                if status.awaiting_bank() && (billet.pix_psp.is_none() || billet.registered.pix_qr_code.is_none()) =>
            {
                return Standing::Registering
            }
            _ => {}
        }
        match billing.status {
            BillingStatus::Canceled | BillingStatus::Returned => return Standing::Canceled,
            BillingStatus::Paid | BillingStatus::Available | BillingStatus::InDispute => {
                return Standing::Paid(billing.gw_payment_date)
            }
            BillingStatus::AwaitingCapture | BillingStatus::UnderReview => return Standing::CardUnderWay,
            BillingStatus::Discharged => return Standing::Discharged,
            _ => {}
        }
        let terms = billing.terms();
        if let Some(until) = compute::return_date(terms.due_date, billing.devolution(), billing.instruction_days) {
            if today > until {
                return Standing::Expired(until);
            }
        }
        let computed = compute::compute(&terms, today);
        Standing::Payable(Due {
            discount: Money::new(computed.discount_amount),
            charges: Money::new(computed.extra_amount),
            total: Money::new(computed.amount_payable),
            days_overdue: computed.days_overdue,
        })
    }
}
