//! A bank billet as stored: one item per billet under its billing
//! (`pk = A#<account>`, `sk = BILLET#<billing>#<billet>`, both ids zero-padded), so the billets of
//! a billing are one key range read newest first. Its fields are its attributes (serde).

use aws_sdk_dynamodb::types::AttributeValue;
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::store::item::{from_item, number, to_item};
use crate::store::{keys, Condition, Item, Store, StoreResult, Write};
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
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub version: i64,
}

impl BankBillet {
    /// The same billet in `status`, one version on.
    pub fn moved_to(&self, status: BilletStatus) -> BankBillet {
        BankBillet { status, updated_at: Timestamp::now(), version: self.version + 1, ..self.clone() }
    }

    pub fn to_item(&self, account: AccountId) -> StoreResult<Item> {
        let mut item = to_item(self)?;
        item.insert("pk".to_owned(), AttributeValue::S(keys::account(account)));
        item.insert("sk".to_owned(), AttributeValue::S(keys::billet(self.billing_id, self.id)));
        item.insert("kind".to_owned(), AttributeValue::S("bank_billet".to_owned()));
        Ok(item)
    }

    pub fn from_item(mut item: Item) -> StoreResult<BankBillet> {
        upgrade(&mut item);
        from_item(item)
    }

    /// A new billet (the key must be free).
    pub fn insert(&self, account: AccountId) -> StoreResult<Write> {
        Ok(Write::put_if(self.to_item(account)?, Condition::absent()))
    }

    /// `next` over this billet, which must not have changed since it was read.
    pub fn replace_with(&self, account: AccountId, next: &BankBillet) -> StoreResult<Write> {
        Ok(Write::put_if(next.to_item(account)?, Condition::version(self.version)))
    }
}

/// Billets stored before their fields were attributes of their own kept them in one JSON
/// attribute, `document` (amounts as text); those fields are read from it.
fn upgrade(item: &mut Item) {
    if item.contains_key("bank_symbol") {
        return;
    }
    let Some(AttributeValue::S(document)) = item.get("document") else { return };
    let Ok(fields) = serde_json::from_str::<serde_json::Value>(document) else { return };
    if let Ok(attributes) = to_item(&fields) {
        for (name, value) in attributes {
            item.entry(name).or_insert(value);
        }
    }
}

/// One billet of a billing.
pub async fn find(
    store: &Store,
    account: AccountId,
    billing_id: BillingId,
    id: BilletId,
) -> StoreResult<Option<BankBillet>> {
    let item = store.get(keys::account(account), keys::billet(billing_id, id)).await?;
    item.map(BankBillet::from_item).transpose()
}

/// Every billet of a billing, newest (highest id) first. A billing has a handful (one per
/// re-issue), so they are read whole.
pub async fn of_billing(store: &Store, account: AccountId, billing_id: BillingId) -> StoreResult<Vec<BankBillet>> {
    let items = store.items_with_prefix(keys::account(account), keys::billets_of(billing_id), false).await?;
    items.into_iter().map(BankBillet::from_item).collect()
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
            created_at: now,
            updated_at: now,
            version: 2,
        }
    }

    #[test]
    fn a_billet_round_trips_through_its_item() {
        let billet = sample();
        let item = billet.to_item(AccountId::new(7)).unwrap();
        assert_eq!(item["sk"].as_s().unwrap(), "BILLET#0000000012#0000000003");
        assert_eq!(item["status"].as_s().unwrap(), "opened");
        assert_eq!(item["amount"].as_n().unwrap(), "135");
        assert_eq!(item["payer_full_name"].as_s().unwrap(), "Maria");
        assert_eq!(BankBillet::from_item(item).unwrap(), billet);
    }

    #[test]
    fn a_billet_stored_as_one_json_document_reads_back() {
        let billet = sample();
        // As the previous version stored it: the billet as JSON (amounts as text) beside the
        // attributes conditions test.
        let mut document: serde_json::Value = serde_json::from_str(
            r#"{
            "id": 3, "billing_id": 12, "generation": 1, "status": "opened", "bank_symbol": "simulated",
            "amount": "135.00", "due_date": "2026-12-10", "our_sequential_number": 1,
            "agreement_code": "1234567", "bank_billet_account": null,
            "agency_number": "", "agency_digit": "", "account_number": "", "account_digit": "",
            "recipient_full_name": "Clínica", "recipient_document": "", "recipient_full_address": "",
            "payer_full_name": "Maria", "payer_document": "", "payer_address_postal_code": "",
            "payer_address_street": "", "payer_address_district": "", "payer_address_city": "",
            "payer_address_state": "", "barcode": null, "digitable_line": null, "pix_qr_code": null,
            "our_number": "12345670000000001", "provider_id": null, "provider_status": null,
            "bank_rejection": null, "remittanced_at": null, "paid_amount": "0", "paid_at": null,
            "net_amount": "0", "discount": "0", "interest": "0", "bank_rate": "0", "credit_at": null,
            "discharged_at": null, "version": 2
        }"#,
        )
        .unwrap();
        document["uuid"] = serde_json::json!(billet.uuid);
        document["created_at"] = serde_json::json!(billet.created_at);
        document["updated_at"] = serde_json::json!(billet.updated_at);
        let item: Item = [
            ("pk", AttributeValue::S("A#7".into())),
            ("sk", AttributeValue::S("BILLET#0000000012#0000000003".into())),
            ("id", AttributeValue::N("3".into())),
            ("billing_id", AttributeValue::N("12".into())),
            ("status", AttributeValue::S("opened".into())),
            ("version", AttributeValue::N("2".into())),
            ("document", AttributeValue::S(document.to_string())),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        assert_eq!(BankBillet::from_item(item).unwrap(), billet);
    }
}
