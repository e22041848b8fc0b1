//! A bank billet as stored: one item per billet under its billing
//! (`pk = A#<account>`, `sk = BILLET#<billing>#<billet>`, both ids zero-padded), so the billets of
//! a billing are one key range read newest first. The billet is written whole (attribute
//! `document`, JSON) beside the few attributes conditions test (`status`, `version`).

use std::collections::HashMap;

use anyhow::Context as _;
use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::accounts::AccountId;
use crate::store::item::{n, s};
use crate::store::{keys, Condition, Item, ItemExt, Store, StoreResult, Write};
use crate::time::Timestamp;

/// §3.2. Transitions used here: `issued` (written locally, waiting for the bank) → `remitting`
/// (sent to the provider) → `opened` (registered) or `rejected`; `opened` → `paid` (bank payment),
/// `discharged` (billing paid off) or `canceled` (billing cancelled or billet re-issued); an
/// `issued`, `remitting` or `rejected` billet can be `canceled` too.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BilletStatus {
    Issued,
    PendingRemittance,
    Remitting,
    Remittanced,
    Opened,
    Rejected,
    Paid,
    Discharged,
    Canceled,
    Protested,
}

impl BilletStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            BilletStatus::Issued => "issued",
            BilletStatus::PendingRemittance => "pending_remittance",
            BilletStatus::Remitting => "remitting",
            BilletStatus::Remittanced => "remittanced",
            BilletStatus::Opened => "opened",
            BilletStatus::Rejected => "rejected",
            BilletStatus::Paid => "paid",
            BilletStatus::Discharged => "discharged",
            BilletStatus::Canceled => "canceled",
            BilletStatus::Protested => "protested",
        }
    }

    /// §2.2 `editable`: the billing around it may still change freely.
    pub fn editable(self) -> bool {
        matches!(self, BilletStatus::Issued | BilletStatus::PendingRemittance | BilletStatus::Rejected)
    }

    /// Not yet answered by the bank: the registration worker carries it on.
    pub fn awaiting_bank(self) -> bool {
        matches!(
            self,
            BilletStatus::Issued
                | BilletStatus::PendingRemittance
                | BilletStatus::Remitting
                | BilletStatus::Remittanced
        )
    }

    /// The payer can still pay it (`overdue` counts only these).
    pub fn collectable(self) -> bool {
        matches!(self, BilletStatus::Opened | BilletStatus::Protested)
    }

    /// Still alive: cancelling or paying off the billing closes it.
    pub fn open(self) -> bool {
        self.awaiting_bank() || matches!(self, BilletStatus::Opened | BilletStatus::Protested | BilletStatus::Rejected)
    }
}

/// The beneficiary's account at the bank.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BankAccountRef {
    pub agency_number: String,
    pub agency_digit: String,
    pub account_number: String,
    pub account_digit: String,
}

/// Who receives (the account), frozen at issuance.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Recipient {
    pub recipient_full_name: String,
    pub recipient_document: String,
    pub recipient_full_address: String,
}

/// Who pays (the billing's contact), frozen at issuance.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Payer {
    pub payer_full_name: String,
    pub payer_document: String,
    pub payer_address_postal_code: String,
    pub payer_address_street: String,
    pub payer_address_district: String,
    pub payer_address_city: String,
    pub payer_address_state: String,
}

/// What the bank reported on payment or write-off.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Settlement {
    pub paid_amount: Decimal,
    pub paid_at: Option<NaiveDate>,
    pub net_amount: Decimal,
    pub discount: Decimal,
    pub interest: Decimal,
    pub bank_rate: Decimal,
    pub credit_at: Option<NaiveDate>,
    pub discharged_at: Option<NaiveDate>,
}

/// The payment documents and the bank's references, filled on registration.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Registered {
    pub barcode: Option<String>,
    pub digitable_line: Option<String>,
    pub pix_qr_code: Option<String>,
    pub our_number: Option<String>,
    pub provider_id: Option<String>,
    pub provider_status: Option<String>,
    pub bank_rejection: Option<String>,
    pub remittanced_at: Option<NaiveDate>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BankBillet {
    pub id: i64,
    pub billing_id: i64,
    /// Which registration request of the billing made it (see `Billing::billet_generation`).
    pub generation: i64,
    pub status: BilletStatus,
    pub bank_symbol: String,
    pub amount: Decimal,
    pub due_date: NaiveDate,
    pub our_sequential_number: i64,
    pub uuid: String,
    pub agreement_code: Option<String>,
    pub bank_billet_account: Option<String>,
    #[serde(flatten)]
    pub bank_account: BankAccountRef,
    #[serde(flatten)]
    pub recipient: Recipient,
    #[serde(flatten)]
    pub payer: Payer,
    #[serde(flatten)]
    pub registered: Registered,
    #[serde(flatten)]
    pub settlement: Settlement,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub version: i64,
}

impl BankBillet {
    /// The same billet in `status`, one version on.
    pub fn moved_to(&self, status: BilletStatus) -> BankBillet {
        BankBillet { status, updated_at: Timestamp::now(), version: self.version + 1, ..self.clone() }
    }

    pub fn to_item(&self, account: AccountId) -> anyhow::Result<Item> {
        Ok(HashMap::from([
            ("pk".to_owned(), s(keys::account(account))),
            ("sk".to_owned(), s(keys::billet(self.billing_id, self.id))),
            ("kind".to_owned(), s("bank_billet")),
            ("id".to_owned(), n(self.id)),
            ("billing_id".to_owned(), n(self.billing_id)),
            ("status".to_owned(), s(self.status.as_str())),
            ("version".to_owned(), n(self.version)),
            ("document".to_owned(), s(serde_json::to_string(self)?)),
        ]))
    }

    pub fn from_item(item: &Item) -> anyhow::Result<BankBillet> {
        serde_json::from_str(&item.string("document")?).context("a stored bank billet")
    }

    /// A new billet (the key must be free).
    pub fn insert(&self, account: AccountId) -> anyhow::Result<Write> {
        Ok(Write::put_if(self.to_item(account)?, Condition::absent()))
    }

    /// `next` over this billet, which must not have changed since it was read.
    pub fn replace_with(&self, account: AccountId, next: &BankBillet) -> anyhow::Result<Write> {
        Ok(Write::put_if(next.to_item(account)?, Condition::version(self.version)))
    }
}

/// One billet of a billing.
pub async fn find(store: &Store, account: AccountId, billing_id: i64, id: i64) -> StoreResult<Option<BankBillet>> {
    let item = store.get(keys::account(account), keys::billet(billing_id, id)).await?;
    Ok(item.map(|i| BankBillet::from_item(&i)).transpose()?)
}

/// Every billet of a billing, newest (highest id) first. A billing has a handful (one per
/// re-issue), so they are read whole.
pub async fn of_billing(store: &Store, account: AccountId, billing_id: i64) -> StoreResult<Vec<BankBillet>> {
    let items = store.items_with_prefix(keys::account(account), keys::billets_of(billing_id), false).await?;
    Ok(items.iter().map(BankBillet::from_item).collect::<anyhow::Result<_>>()?)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn sample() -> BankBillet {
        let now = Timestamp::now();
        BankBillet {
            id: 3,
            billing_id: 12,
            generation: 1,
            status: BilletStatus::Opened,
            bank_symbol: "simulated".into(),
            amount: "135.00".parse().unwrap(),
            due_date: "2026-12-10".parse().unwrap(),
            our_sequential_number: 1,
            uuid: "b7c1d1a4-5f0e-4c3a-9b1e-2d9f1e6a7c10".into(),
            agreement_code: Some("1234567".into()),
            bank_billet_account: None,
            bank_account: BankAccountRef::default(),
            recipient: Recipient { recipient_full_name: "Clínica".into(), ..Default::default() },
            payer: Payer { payer_full_name: "Maria".into(), ..Default::default() },
            registered: Registered { our_number: Some("12345670000000001".into()), ..Default::default() },
            settlement: Settlement::default(),
            created_at: now,
            updated_at: now,
            version: 2,
        }
    }

    #[test]
    fn a_billet_round_trips_through_its_item() {
        let billet = sample();
        let item = billet.to_item(7).unwrap();
        assert_eq!(item["sk"].as_s().unwrap(), "BILLET#0000000012#0000000003");
        assert_eq!(item["status"].as_s().unwrap(), "opened");
        assert_eq!(BankBillet::from_item(&item).unwrap(), billet);
    }

    #[test]
    fn status_groups() {
        assert!(BilletStatus::Rejected.editable() && !BilletStatus::Opened.editable());
        assert!(BilletStatus::Remitting.awaiting_bank() && !BilletStatus::Opened.awaiting_bank());
        assert!(BilletStatus::Opened.open() && !BilletStatus::Paid.open() && !BilletStatus::Canceled.open());
    }
}
