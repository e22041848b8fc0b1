//! The billet as the API shows it (§2.2): the stored fields, amounts with two decimals, and
//! `days_overdue`, `overdue` and `editable` computed as of today in São Paulo.

use chrono::NaiveDate;
use serde_json::{json, Value};

use super::model::BankBillet;
use crate::billings::compute;
use crate::money;

const AMOUNTS: [&str; 6] = ["amount", "paid_amount", "net_amount", "discount", "interest", "bank_rate"];
/// Stored for the worker and conditions, never shown.
const INTERNAL: [&str; 3] = ["billing_id", "generation", "version"];

pub fn represent(billet: &BankBillet, today: NaiveDate) -> Value {
    let mut out = serde_json::to_value(billet).expect("a billet serializes");
    let fields = out.as_object_mut().expect("a billet is an object");
    for key in INTERNAL {
        fields.remove(key);
    }
    for key in AMOUNTS {
        if let Some(Value::String(text)) = fields.get(key) {
            let value = text.parse().unwrap_or_default();
            fields.insert(key.to_owned(), json!(money::format(value)));
        }
    }
    let days_overdue = compute::days_overdue(billet.due_date, today);
    fields.insert("days_overdue".into(), json!(days_overdue));
    fields.insert("overdue".into(), json!(days_overdue > 0 && billet.status.collectable()));
    fields.insert("editable".into(), json!(billet.status.editable()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_billet_shape() {
        let billet = super::super::model::tests::sample();
        let shown = represent(&billet, "2026-12-12".parse().unwrap());
        assert_eq!(shown["amount"], "135.00");
        assert_eq!(shown["paid_amount"], "0.00");
        assert_eq!(shown["status"], "opened");
        assert_eq!(shown["days_overdue"], 2);
        assert_eq!(shown["overdue"], true);
        assert_eq!(shown["editable"], false);
        assert_eq!(shown["payer_full_name"], "Maria");
        assert_eq!(shown["recipient_full_name"], "Clínica");
        assert_eq!(shown["paid_at"], Value::Null);
        for internal in INTERNAL {
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
