//! A bank billet as stored: one item per billet in its billing's partition
//! (`pk = A#<account>#BILLING#<billing>`, `sk = BILLET#<billet>`, ids zero-padded), so the billets
//! of a billing are one key range read newest first. Its fields are its attributes (serde).

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::store::item::number;
use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, Condition, Store, StoreResult, Write};
use crate::values::{AccountId, BilletId, BillingId, Money, Timestamp};

pub use crate::values::BilletStatus;

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
    #[serde(default, with = "number")]
    pub paid_amount: Money,
    #[serde(default)]
    pub paid_at: Option<NaiveDate>,
    #[serde(default, with = "number")]
    pub net_amount: Money,
    #[serde(default, with = "number")]
    pub discount: Money,
    #[serde(default, with = "number")]
    pub interest: Money,
    #[serde(default, with = "number")]
    pub bank_rate: Money,
    #[serde(default)]
    pub credit_at: Option<NaiveDate>,
    #[serde(default)]
    pub discharged_at: Option<NaiveDate>,
}

/// The payment documents and the bank's references, filled on registration.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Registered {
    #[serde(default)]
    pub barcode: Option<String>,
    #[serde(default)]
    pub digitable_line: Option<String>,
    #[serde(default)]
    pub pix_qr_code: Option<String>,
    #[serde(default)]
    pub our_number: Option<String>,
    #[serde(default)]
    pub provider_id: Option<String>,
    #[serde(default)]
    pub provider_status: Option<String>,
    #[serde(default)]
    pub bank_rejection: Option<String>,
    #[serde(default)]
    pub remittanced_at: Option<NaiveDate>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BankBillet {
    pub id: BilletId,
    pub billing_id: BillingId,
    /// Which registration request of the billing made it (see `Billing::billet_generation`).
    pub generation: i64,
    pub status: BilletStatus,
    pub bank_symbol: String,
    #[serde(with = "number")]
    pub amount: Money,
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
    /// The token of the payer's link ([`super::link`]); none on billets issued before links.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payer_token: Option<String>,
    /// The remittance file that told the bank of it (banks that learn of billets from files:
    /// `payments::boleto::remittance`); none before, and for banks registered at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remittance_id: Option<i64>,
    /// The secret of its rule's Pix institution (copied from the rule when it was issued), whose
    /// charge of the billing (`payments::pix::charge`) carries this billet's terms once it is
    /// registered (`pix_qr_code`); none without one, or when the PSP refused the charge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pix_psp: Option<String>,
    /// The channel of the payment that paid it (`payments::Channel`), once paid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paid_with: Option<String>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub version: i64,
}

/// Where a billet is, by its id alone: its billing (a billet's key is under its billing). Written
/// with the billet by its registration; what `infra/ops pix pay --billet` finds a billet by.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BilletRef {
    pub account_id: AccountId,
    pub billet_id: BilletId,
    pub billing_id: BillingId,
}

impl Stored for BilletRef {
    const KIND: Option<&'static str> = Some("billet_ref");
    type Scope<'a> = ();

    fn key(&self, (): ()) -> Key {
        keys::billet::billet_ref(self.account_id, self.billet_id)
    }
}

/// The billing billet `billet_id` of the account is under, when its registration recorded it.
pub async fn billing_of(store: &Store, account: AccountId, billet_id: BilletId) -> StoreResult<Option<BillingId>> {
    let found = stored::find::<BilletRef>(store, keys::billet::billet_ref(account, billet_id)).await?;
    Ok(found.map(|r| r.billing_id))
}

impl BankBillet {
    /// The same billet in `status`, one version on.
    pub fn moved_to(&self, status: BilletStatus) -> BankBillet {
        BankBillet { status, updated_at: Timestamp::now(), version: self.version + 1, ..self.clone() }
    }

    /// A new billet (the key must be free).
    pub fn insert(&self, account: AccountId) -> StoreResult<Write> {
        stored::insert(self, account)
    }

    /// `next` over this billet, which must not have changed since it was read.
    pub fn replace_with(&self, account: AccountId, next: &BankBillet) -> StoreResult<Write> {
        stored::put_if(next, account, Condition::version(self.version))
    }
}

impl Stored for BankBillet {
    const KIND: Option<&'static str> = Some("bank_billet");
    type Scope<'a> = AccountId;

    fn key(&self, account: AccountId) -> Key {
        keys::billet::billet(account, self.billing_id, self.id)
    }
}

/// One billet of a billing.
pub async fn find(
    store: &Store,
    account: AccountId,
    billing_id: BillingId,
    id: BilletId,
) -> StoreResult<Option<BankBillet>> {
    stored::find(store, keys::billet::billet(account, billing_id, id)).await
}

/// Every billet of a billing, newest (highest id) first. A billing has a handful (one per
/// re-issue), so they are read whole.
pub async fn of_billing(store: &Store, account: AccountId, billing_id: BillingId) -> StoreResult<Vec<BankBillet>> {
    let (pk, prefix) = keys::billet::billets_of(account, billing_id);
    stored::with_prefix(store, pk, prefix, false).await
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn sample() -> BankBillet {
        let now = Timestamp::now();
        BankBillet {
            id: BilletId::new(3),
            billing_id: BillingId::new(12),
            generation: 1,
            status: BilletStatus::Opened,
            bank_symbol: "simulated".into(),
            amount: Money::parse("135.00").unwrap(),
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
            payer_token: Some("k3Qh0v1Yw9r6ZpXc2LmN8bTa5sUe4dFg".into()),
            remittance_id: None,
            pix_psp: None,
            paid_with: None,
            created_at: now,
            updated_at: now,
            version: 2,
        }
    }

    #[test]
    fn a_billet_round_trips_through_its_item() {
        let billet = sample();
        let item = stored::item_of(&billet, AccountId::new(7)).unwrap();
        assert_eq!(item["pk"].as_s().unwrap(), "A#7#BILLING#0000000012");
        assert_eq!(item["sk"].as_s().unwrap(), "BILLET#0000000003");
        assert_eq!(item["status"].as_s().unwrap(), "opened");
        assert_eq!(item["amount"].as_n().unwrap(), "135");
        assert_eq!(item["payer_full_name"].as_s().unwrap(), "Maria");
        assert_eq!(stored::read::<BankBillet>(item).unwrap(), billet);
    }
}
