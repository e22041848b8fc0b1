//! The billet as the API shows it (§2.2): the stored fields, amounts with two decimals, and
//! `days_overdue`, `overdue` and `editable` computed as of today in São Paulo.

use chrono::NaiveDate;
use serde::Serialize;

use super::link;
use super::model::{BankAccountRef, BankBillet, Payer, Recipient, Registered};
use crate::values::calendar::days_overdue;
use crate::values::{BilletId, BilletStatus, Money, Timestamp};

/// What a settlement shows (its amounts with two decimals).
#[derive(Clone, Debug, Serialize)]
pub struct SettlementView {
    pub paid_amount: Money,
    pub paid_at: Option<NaiveDate>,
    pub net_amount: Money,
    pub discount: Money,
    pub interest: Money,
    pub bank_rate: Money,
    pub credit_at: Option<NaiveDate>,
    pub discharged_at: Option<NaiveDate>,
}

#[derive(Clone, Debug, Serialize)]
pub struct BilletView {
    pub id: BilletId,
    pub status: BilletStatus,
    pub bank_symbol: String,
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
    pub settlement: SettlementView,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub days_overdue: i64,
    pub overdue: bool,
    pub editable: bool,
    /// The payer's page: public, no token needed; null on billets issued before links.
    pub url: Option<String>,
}

impl BilletView {
    pub fn new(billet: &BankBillet, today: NaiveDate) -> Self {
        let days_overdue = days_overdue(billet.due_date, today);
        let s = &billet.settlement;
        BilletView {
            id: billet.id,
            status: billet.status,
            bank_symbol: billet.bank_symbol.clone(),
            amount: billet.amount,
            due_date: billet.due_date,
            our_sequential_number: billet.our_sequential_number,
            uuid: billet.uuid.clone(),
            agreement_code: billet.agreement_code.clone(),
            bank_billet_account: billet.bank_billet_account.clone(),
            bank_account: billet.bank_account.clone(),
            recipient: billet.recipient.clone(),
            payer: billet.payer.clone(),
            registered: billet.registered.clone(),
            settlement: SettlementView {
                paid_amount: s.paid_amount,
                paid_at: s.paid_at,
                net_amount: s.net_amount,
                discount: s.discount,
                interest: s.interest,
                bank_rate: s.bank_rate,
                credit_at: s.credit_at,
                discharged_at: s.discharged_at,
            },
            created_at: billet.created_at,
            updated_at: billet.updated_at,
            days_overdue,
            overdue: days_overdue > 0 && billet.status.collectable(),
            editable: billet.status.editable(),
            url: billet.payer_token.as_deref().map(link::url),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn the_billet_shape() {
        let billet = super::super::model::tests::sample();
        let shown = serde_json::to_value(BilletView::new(&billet, "2026-12-12".parse().unwrap())).unwrap();
        assert_eq!(shown["amount"], "135.00");
        assert_eq!(shown["paid_amount"], "0.00");
        assert_eq!(shown["status"], "opened");
        assert_eq!(shown["days_overdue"], 2);
        assert_eq!(shown["overdue"], true);
        assert_eq!(shown["editable"], false);
        assert_eq!(shown["payer_full_name"], "Maria");
        assert_eq!(shown["recipient_full_name"], "Clínica");
        assert_eq!(shown["paid_at"], Value::Null);
        assert!(shown["url"].as_str().unwrap().ends_with("/pay/k3Qh0v1Yw9r6ZpXc2LmN8bTa5sUe4dFg"));
        assert!(shown.get("payer_token").is_none(), "the token is shown only inside the url");
        for internal in ["billing_id", "generation", "version"] {
            assert!(shown.get(internal).is_none(), "{internal} shown");
        }
        let expected = [
            "id",
            "status",
            "bank_symbol",
            "amount",
            "due_date",
            "barcode",
            "digitable_line",
            "pix_qr_code",
            "our_number",
            "our_sequential_number",
            "uuid",
            "agreement_code",
            "bank_billet_account",
            "agency_number",
            "agency_digit",
            "account_number",
            "account_digit",
            "recipient_full_name",
            "recipient_document",
            "recipient_full_address",
            "payer_full_name",
            "payer_document",
            "payer_address_postal_code",
            "payer_address_street",
            "payer_address_district",
            "payer_address_city",
            "payer_address_state",
            "paid_amount",
            "paid_at",
            "net_amount",
            "discount",
            "interest",
            "bank_rate",
            "credit_at",
            "discharged_at",
            "remittanced_at",
            "provider_id",
            "provider_status",
            "bank_rejection",
            "days_overdue",
            "overdue",
            "editable",
            "url",
            "created_at",
            "updated_at",
        ];
        let keys: Vec<&str> = shown.as_object().unwrap().keys().map(String::as_str).collect();
        for key in expected {
            assert!(keys.contains(&key), "{key} missing");
        }
        assert_eq!(keys.len(), expected.len(), "{keys:?}");
    }
}
