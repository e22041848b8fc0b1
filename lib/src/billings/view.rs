//! The two representations of §2.1: the single one (show, create, update, cancel, pay_off) and the
//! list one, which omits the three arrays, the discount block, the `gw_*` block,
//! `display_amount_payable` and `paid`. Computed fields are as of today in São Paulo.

use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde_json::{json, Map, Value};

use super::compute::{self, Discount};
use super::model::Billing;
use crate::billets::BankBillet;
use crate::contacts::Contact;
use crate::money;
use crate::tags::Tag;

fn amount(value: Decimal) -> Value {
    Value::String(money::format(value))
}

fn discount_block(out: &mut Map<String, Value>, suffix: &str, discount: Option<Discount>) {
    out.insert(format!("discount_type{suffix}"), discount.map(|d| json!(d.kind.as_str())).unwrap_or(Value::Null));
    out.insert(format!("discount{suffix}"), discount.map(|d| amount(d.value)).unwrap_or(Value::Null));
    out.insert(
        format!("discount_antecedence{suffix}"),
        discount.map(|d| json!(d.antecedence_days)).unwrap_or(Value::Null),
    );
}

/// Related records embedded in the representation.
pub struct Related<'a> {
    pub contact: Option<&'a Contact>,
    pub tag: Option<&'a Tag>,
    /// Newest first; shown only in the single representation.
    pub billets: &'a [BankBillet],
}

pub fn represent(billing: &Billing, related: &Related<'_>, today: NaiveDate, single: bool) -> Value {
    let computed = compute::compute(&billing.terms(), today);
    let mut out = Map::new();
    out.insert("id".into(), json!(billing.id));
    out.insert("code".into(), json!(billing.code));
    out.insert("your_code".into(), json!(billing.your_code));
    out.insert("reference".into(), json!(billing.reference));
    out.insert("status".into(), json!(billing.status.as_str()));
    out.insert("virtual_status".into(), json!(computed.virtual_status));
    out.insert("billing_type".into(), json!(billing.billing_type));
    out.insert("billing_issue_type".into(), json!(billing.billing_issue_type));
    out.insert("amount".into(), amount(billing.amount));
    out.insert("due_date".into(), json!(billing.due_date.to_string()));
    out.insert("competence".into(), json!(billing.competence));
    out.insert("evincive".into(), json!(billing.evincive));
    out.insert("observation".into(), json!(billing.observation));
    if single {
        discount_block(&mut out, "", billing.discount);
        discount_block(&mut out, "2", billing.discount2);
    }
    out.insert("penalty_type".into(), json!(billing.penalty.map(|p| p.0.as_str())));
    out.insert("penalty".into(), billing.penalty.map(|p| amount(p.1)).unwrap_or(Value::Null));
    out.insert("cancel_penalty".into(), json!(billing.cancel_penalty));
    out.insert("interest_type".into(), json!(billing.interest.map(|i| i.kind.as_str())));
    out.insert("interest_period".into(), json!(billing.interest.map(|i| i.period.as_str())));
    out.insert("interest".into(), billing.interest.map(|i| amount(i.value)).unwrap_or(Value::Null));
    out.insert("instruction_type".into(), json!(billing.instruction_type));
    out.insert("instruction_days".into(), json!(billing.instruction_days));
    out.insert("bank_rule_id".into(), json!(billing.bank_rule_id));
    out.insert("contact_id".into(), json!(billing.contact_id));
    out.insert("patient_id".into(), json!(billing.patient_id));
    out.insert("tag_id".into(), json!(billing.tag_id));
    out.insert("bill_category_id".into(), json!(billing.bill_category_id));
    // The booklet an instalment belongs to (the `billing_id` list filter); null otherwise.
    out.insert("billing_id".into(), json!(billing.parent_id));
    out.insert("installments".into(), json!(billing.installments));
    out.insert("installment_type".into(), json!(billing.installment_type));
    out.insert("installment".into(), json!(billing.installment));
    if single {
        let gw = &billing.gw;
        out.insert("gw_payment_link".into(), json!(gw.payment_link));
        out.insert("gw_received_with".into(), json!(gw.received_with));
        out.insert("gw_payment_date".into(), json!(gw.payment_date.map(|d| d.to_string())));
        out.insert("gw_gross_amount".into(), amount(gw.gross_amount));
        out.insert("gw_fee_amount".into(), amount(gw.fee_amount));
        out.insert("gw_net_amount".into(), amount(gw.gross_amount - gw.fee_amount));
        out.insert("gw_discount_amount".into(), amount(gw.discount_amount));
        out.insert("gw_extra_amount".into(), amount(gw.extra_amount));
        for key in [
            "gw_escrow_end_date",
            "gw_installment_count",
            "gw_payment_method_type",
            "gw_payment_method_code",
            "gw_type_id",
        ] {
            out.insert(key.into(), Value::Null);
        }
    }
    out.insert("discount_amount".into(), amount(computed.discount_amount));
    out.insert("extra_amount".into(), amount(computed.extra_amount));
    out.insert("amount_payable".into(), amount(computed.amount_payable));
    if single {
        let received = (billing.gw.gross_amount, billing.gw.discount_amount, billing.gw.extra_amount);
        let display = compute::display_amount_payable(&billing.terms(), today, None, Some(received));
        out.insert("display_amount_payable".into(), amount(display));
        out.insert("paid".into(), json!(computed.paid));
    }
    out.insert("days_overdue".into(), json!(computed.days_overdue));
    out.insert("overdue".into(), json!(computed.overdue));
    out.insert(
        "return_date".into(),
        json!(compute::return_date(billing.due_date, billing.devolution(), billing.instruction_days)
            .map(|d| d.to_string())),
    );
    out.insert("redirect_url".into(), Value::Null);
    out.insert("notification_url".into(), Value::Null);
    out.insert("created_at".into(), json!(billing.created_at.to_string()));
    out.insert("updated_at".into(), json!(billing.updated_at.to_string()));
    if let Some(c) = related.contact {
        out.insert(
            "contact".into(),
            json!({"id": c.id, "description": c.description(), "email": c.email, "document": c.document()}),
        );
    }
    if let Some(t) = related.tag {
        out.insert("tag".into(), json!({"id": t.id, "name": t.name, "color": t.color}));
    }
    if single {
        let items: Vec<Value> = billing
            .items
            .iter()
            .map(|i| json!({"id": i.id, "description": i.description, "quantity": i.quantity, "amount": amount(i.amount)}))
            .collect();
        out.insert("billing_items".into(), Value::Array(items));
        out.insert("billing_reminder_deliveries".into(), json!([]));
        let billets: Vec<Value> = related.billets.iter().map(|b| crate::billets::view::represent(b, today)).collect();
        out.insert("bank_billets".into(), Value::Array(billets));
    }
    Value::Object(out)
}
