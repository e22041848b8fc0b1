//! `PATCH /v1/billings/{id}` (§4.2 Update, §2.1 Editability).
//!
//! An editable billing is judged whole: its stored fields with the sent ones over them go through
//! the create rules, so an update can never store what a create would refuse. `billing_items`,
//! when sent, is the complete new set (implicit destruction): an element with the `id` of one of
//! the billing's items updates that item (fields it omits keep their values), one without `id` is
//! a new item, and items left out are removed; an empty set is a 422 and nothing changes. A bulk
//! billing keeps the tag and excluded tags it was issued with, and the payer its expansion gave it.
//!
//! These are the rules; `service::update` runs them against the stored billing.

use serde_json::{json, Map, Value};

use super::input::{too_many_items, Draft, ITEMS, MAX_ITEMS};
use super::model::{Billing, BillingItem};
use crate::http::fields::integer_in;
use crate::http::{Fields, Sent};
use crate::refusal::{Code, Problem};
use crate::values::{BillingStatus, BillingType, IssueType};

/// What an update may change on a billing (§2.1 Editability).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Editability {
    /// Every create field, plus `cancel_penalty`.
    Full,
    /// Only `due_date` and `cancel_penalty`; other fields are silently ignored.
    DueDateOnly,
    /// Nothing: the update answers 200 with the billing unchanged.
    Frozen,
}

/// A `carne` is never editable; a `schedule` always is; a `billing` is while `opened` (shown as
/// `opened` or `expired`), its latest bank billet (if any) is still editable and it is not on the
/// checkout gateway: no card checkout under way (a payer confirmed a card payment the gateway has
/// not ended: `Card::under_way`; having a payment link is not being on the checkout). An opened
/// billing failing the last two accepts only a new due date and `cancel_penalty`.
pub fn editability(billing: &Billing, billet_editable: bool) -> Editability {
    match billing.billing_type {
        BillingType::Carne => Editability::Frozen,
        BillingType::Schedule => Editability::Full,
        _ if billing.status != BillingStatus::Opened => Editability::Frozen,
        _ if billet_editable && !billing.gw_card.as_ref().is_some_and(|card| card.under_way()) => Editability::Full,
        _ => Editability::DueDateOnly,
    }
}

/// The create fields an update accepts (`billing_issue_type` stays as issued).
const ACCEPTED: [&str; 20] = [
    "bank_rule_id",
    "contact_id",
    "patient_id",
    "tag_id",
    "bill_category_id",
    "evincive",
    "observation",
    "reference",
    "your_code",
    "competence",
    "due_date",
    "penalty",
    "penalty_type",
    "interest",
    "interest_type",
    "interest_period",
    "instruction_type",
    "instruction_days",
    "billing_items",
    "excluded_tag_ids",
];

fn item_fields(item: &BillingItem) -> Value {
    json!({"id": item.id, "description": item.description, "quantity": item.quantity, "amount": item.amount.get().to_string()})
}

/// The billing's stored values as a create body.
fn stored_fields(billing: &Billing) -> Map<String, Value> {
    let terms = billing.terms();
    let value = json!({
        "billing_issue_type": billing.billing_issue_type,
        "bank_rule_id": billing.bank_rule_id,
        "contact_id": billing.contact_id,
        "patient_id": billing.patient_id,
        "tag_id": billing.tag_id,
        "excluded_tag_ids": billing.excluded_tag_ids,
        "bill_category_id": billing.bill_category_id,
        "evincive": billing.evincive,
        "observation": billing.observation,
        "reference": billing.reference,
        "your_code": billing.your_code,
        "competence": billing.competence,
        "due_date": billing.due_date.to_string(),
        "penalty": terms.penalty.map(|p| p.value.to_string()),
        "penalty_type": terms.penalty.map(|p| p.kind.as_str()),
        "interest": terms.interest.map(|i| i.value.to_string()),
        "interest_type": terms.interest.map(|i| i.kind.as_str()),
        "interest_period": terms.interest.map(|i| i.period.as_str()),
        "instruction_type": billing.instruction_type,
        "instruction_days": billing.instruction_days,
        "billing_items": billing.items.iter().map(item_fields).collect::<Vec<_>>(),
    });
    match value {
        Value::Object(map) => map,
        _ => unreachable!("a JSON object literal"),
    }
}

/// The sent `billing_items` as the complete new set: elements naming an item of the billing are
/// laid over it; unknown or repeated ids are errors, and their elements are left out. With it,
/// the place in the sent list of each element kept.
fn merged_items(billing: &Billing, sent: &Value, errors: &mut Vec<Problem>) -> (Value, Vec<usize>) {
    let elements: Vec<&Value> = match sent {
        Value::Array(items) => items.iter().collect(),
        Value::Object(map) => map.values().collect(),
        // Not a list: the create rules report it (no valid item).
        _ => Vec::new(),
    };
    if elements.len() > MAX_ITEMS {
        errors.push(too_many_items());
        return (Value::Array(Vec::new()), Vec::new());
    }
    let mut seen = Vec::new();
    let mut merged = Vec::new();
    let mut places = Vec::new();
    for (index, element) in elements.into_iter().enumerate() {
        let n = index + 1;
        let Value::Object(fields) = element else {
            merged.push(element.clone());
            places.push(index);
            continue;
        };
        // An id that is not a whole number names no item of the billing.
        let id = match integer_in(fields.get("id")) {
            Sent::Omitted | Sent::Empty => None,
            Sent::Given(id) => Some(id),
            Sent::Invalid => Some(-1),
        };
        let Some(id) = id else {
            merged.push(element.clone());
            places.push(index);
            continue;
        };
        let Some(existing) = billing.items.iter().find(|item| item.id.get() == id) else {
            let message = format!("Item {n}: o item {id} não pertence a esta cobrança");
            errors.push(Problem::not_found(format!("{}.id", crate::http::fields::element(ITEMS, index)), message));
            continue;
        };
        if seen.contains(&id) {
            let message = format!("Item {n}: o item {id} aparece mais de uma vez");
            errors.push(Problem::at(
                format!("{}.id", crate::http::fields::element(ITEMS, index)),
                Code::Taken,
                message,
            ));
            continue;
        }
        seen.push(id);
        let mut item = match item_fields(existing) {
            Value::Object(map) => map,
            _ => unreachable!("a JSON object literal"),
        };
        item.extend(fields.iter().map(|(k, v)| (k.clone(), v.clone())));
        merged.push(Value::Object(item));
        places.push(index);
    }
    (Value::Array(merged), places)
}

/// The billing as the update leaves it, parsed by the create rules (422 with every broken rule).
pub fn merged_draft(billing: &Billing, sent: Fields<'_>, health_module: bool) -> Result<Draft, Vec<Problem>> {
    let mut errors = Vec::new();
    let mut fields = stored_fields(billing);
    let mut places = Vec::new();
    for key in ACCEPTED {
        // Without the health module the patient is not the API's to change.
        if key == "patient_id" && !health_module {
            continue;
        }
        // A bulk billing keeps the tag and excluded tags it was issued with.
        if billing.billing_issue_type == IssueType::Bulk && (key == "tag_id" || key == "excluded_tag_ids") {
            continue;
        }
        let Some(value) = sent.raw(key) else { continue };
        let value = match key {
            "billing_items" => {
                let (merged, sent_places) = merged_items(billing, value, &mut errors);
                places = sent_places;
                merged
            }
            _ => value.clone(),
        };
        fields.insert(key.to_owned(), value);
    }
    let draft = Draft::parse_update(Fields::new(&fields), billing.amount, &places);
    match (draft, errors.is_empty()) {
        (Ok(draft), true) => Ok(draft),
        (Ok(_), false) => Err(errors),
        (Err(mut more), _) => {
            errors.append(&mut more);
            Err(errors)
        }
    }
}

/// `cancel_penalty` when sent (null or blank keeps it).
pub fn cancel_penalty(sent: Fields<'_>, current: bool, errors: &mut Vec<Problem>) -> bool {
    sent.boolean("cancel_penalty", "cancel_penalty", errors).flatten().unwrap_or(current)
}

/// A due-date-only update: the new date (moved off a weekend) and `cancel_penalty`.
pub fn date_only(current: &Billing, sent: Fields<'_>) -> Result<Billing, Vec<Problem>> {
    let mut errors = Vec::new();
    let due_date = match sent.text("due_date", "Vencimento (due_date)", &mut errors) {
        None => current.due_date,
        Some(text) => match text.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
            None => {
                errors.push(super::input::due_date_blank());
                current.due_date
            }
            Some(text) => match super::input::due_date(text) {
                Ok(date) => date,
                Err(problem) => {
                    errors.push(problem);
                    current.due_date
                }
            },
        },
    };
    let cancel_penalty = cancel_penalty(sent, current.cancel_penalty, &mut errors);
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(Billing { due_date, cancel_penalty, ..current.clone() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::{BankRuleId, BillingId, BillingItemId, ContactId, Money, Timestamp};

    fn billing() -> Billing {
        let item = |id, description: &str, amount| BillingItem {
            id: BillingItemId::new(id),
            description: description.into(),
            quantity: 1,
            amount: Money::parse(amount).unwrap(),
        };
        Billing {
            amount: Money::parse("4.00").unwrap(),
            bank_rule_id: Some(BankRuleId::new(1)),
            contact_id: Some(ContactId::new(2)),
            items: vec![item(10, "A", "3.00"), item(11, "B", "1.00")],
            ..Billing::blank(BillingId::new(1), BillingType::Billing, "2026-12-01".parse().unwrap(), Timestamp::now())
        }
    }

    fn draft(b: &Billing, sent: Value) -> Result<Draft, Vec<Problem>> {
        merged_draft(b, Fields::new(sent.as_object().unwrap()), false)
    }

    #[test]
    fn editability_follows_type_status_and_gateway() {
        let mut b = billing();
        assert_eq!(editability(&b, true), Editability::Full);
        assert_eq!(editability(&b, false), Editability::DueDateOnly);
        b.gw_payment_link = Some("https://pay.example/x".into());
        assert_eq!(editability(&b, true), Editability::Full, "a link is not a checkout");
        let card = |stage| crate::billings::card::Card { intent_id: "pi_1".into(), stage, ..Default::default() };
        b.gw_card = Some(card(crate::billings::card::Stage::Open));
        assert_eq!(editability(&b, true), Editability::Full, "an intent not confirmed");
        b.gw_card = Some(card(crate::billings::card::Stage::Pending));
        assert_eq!(editability(&b, true), Editability::DueDateOnly, "a checkout under way");
        b.status = BillingStatus::Paid;
        assert_eq!(editability(&b, true), Editability::Frozen);
        b.billing_type = BillingType::Schedule;
        assert_eq!(editability(&b, true), Editability::Full);
        b.billing_type = BillingType::Carne;
        b.status = BillingStatus::Opened;
        assert_eq!(editability(&b, true), Editability::Frozen);
    }

    #[test]
    fn an_unchanged_amount_is_not_checked_against_the_minimum() {
        // A stored amount of 4.00 (below 5.00) survives edits that keep it.
        let b = billing();
        assert!(draft(&b, json!({"observation": "nova"})).is_ok());
        let err = draft(&b, json!({"billing_items": [{"id": 10, "amount": "2.00"}, {"id": 11}]})).unwrap_err();
        assert_eq!(err, [Problem::too_small("amount", "Valor mínimo da cobrança é 5.00")]);
        let d = draft(&b, json!({"billing_items": [{"id": 10, "amount": "4.00"}, {"id": 11}]})).unwrap();
        assert_eq!(d.amount, Money::parse("5.00").unwrap());
    }

    #[test]
    fn items_are_the_complete_new_set() {
        let b = billing();
        let d = draft(&b, json!({"billing_items": [{"id": "11", "quantity": 5}, {"description": "Novo", "quantity": 1, "amount": 2}]}))
            .unwrap();
        let ids: Vec<_> = d.items.iter().map(|i| i.id).collect();
        assert_eq!(ids, [Some(BillingItemId::new(11)), None], "item 10 is removed");
        assert_eq!((d.items[0].description.as_str(), d.items[0].quantity), ("B", 5), "omitted fields kept");
        assert_eq!(
            draft(&b, json!({"billing_items": []})).unwrap_err(),
            [Problem::blank("billing_items", "A cobrança precisa de ao menos um item (billing_items)")]
        );
        // Problems name an item where it was sent, those refused before merging included.
        let sent = json!({"billing_items": [{"id": 99}, {"description": "", "quantity": 1, "amount": 1}]});
        assert_eq!(
            draft(&b, sent).unwrap_err(),
            [
                Problem::not_found("billing_items[0].id", "Item 1: o item 99 não pertence a esta cobrança"),
                Problem::blank("billing_items[1].description", "Item 2: descrição não pode ficar em branco"),
            ]
        );
        let err = draft(&b, json!({"billing_items": [{"id": 99, "amount": 10}, {"id": 10}, {"id": 10}]})).unwrap_err();
        assert_eq!(
            err,
            [
                Problem::not_found("billing_items[0].id", "Item 1: o item 99 não pertence a esta cobrança"),
                Problem::at("billing_items[2].id", Code::Taken, "Item 3: o item 10 aparece mais de uma vez"),
                Problem::too_small("amount", "Valor mínimo da cobrança é 5.00")
            ]
        );
    }

    #[test]
    fn patient_is_kept_without_the_health_module_and_issue_type_is_fixed() {
        let b = billing();
        let d = draft(&b, json!({"patient_id": 5, "billing_issue_type": "bulk", "tag_id": 3})).unwrap();
        assert_eq!((d.patient_id, d.issue_type, d.tag_id), (None, IssueType::Individual, None));
    }

    #[test]
    fn a_bulk_billing_keeps_its_tags_and_its_payer() {
        let b = Billing {
            billing_issue_type: IssueType::Bulk,
            tag_id: Some(crate::values::TagId::new(3)),
            excluded_tag_ids: vec![crate::values::TagId::new(4)],
            ..billing()
        };
        let d = draft(&b, json!({"tag_id": 9, "excluded_tag_ids": [], "observation": "nova"})).unwrap();
        assert_eq!(d.issue_type, IssueType::Bulk);
        assert_eq!((d.tag_id, d.excluded_tag_ids.clone()), (b.tag_id, b.excluded_tag_ids.clone()));
        assert_eq!(d.contact_id, Some(ContactId::new(2)), "the payer its expansion gave it");
    }

    #[test]
    fn date_only_updates_move_weekends_and_ignore_the_rest() {
        let b = billing();
        let sent = json!({"due_date": "2026-12-05", "observation": "ignorada", "cancel_penalty": "true"});
        let next = date_only(&b, Fields::new(sent.as_object().unwrap())).unwrap();
        assert_eq!(next.due_date, "2026-12-07".parse().unwrap());
        assert!(next.cancel_penalty && next.observation.is_none());
        let sent = json!({"due_date": "amanhã", "cancel_penalty": "talvez"});
        assert_eq!(
            date_only(&b, Fields::new(sent.as_object().unwrap())),
            Err(vec![
                Problem::invalid("due_date", "Vencimento (due_date) não é uma data válida (AAAA-MM-DD)"),
                Problem::invalid("cancel_penalty", "cancel_penalty não é válido"),
            ])
        );
    }
}
