//! `PATCH /v1/billings/{id}` (§4.2 Update, §2.1 Editability).
//!
//! An editable billing is judged whole: its stored fields with the sent ones over them go through
//! the create rules, so an update can never store what a create would refuse. `billing_items`,
//! when sent, is the complete new set (implicit destruction): an element with the `id` of one of
//! the billing's items updates that item (fields it omits keep their values), one without `id` is
//! a new item, and items left out are removed; an empty set is a 422 and nothing changes.

use axum::extract::{Path, State};
use axum::response::Response;
use serde_json::{json, Map, Value};

use super::compute::Status;
use super::input::{msg_too_many_items, Draft, IssueType, MAX_ITEMS};
use super::links;
use super::model::{Billing, BillingItem};
use super::routes::{check_references, single, MSG_CONTACT_BLANK};
use crate::accounts::AccountId;
use crate::app::AppState;
use crate::auth::Tenant;
use crate::billets::lifecycle;
use crate::http::routing::parse_id;
use crate::http::{response, ApiError, ApiResult, Fields, RequestBody};
use crate::store::records;
use crate::store::{keys, retry_in_turn, Write};
use crate::time::Timestamp;

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
/// checkout gateway (it has a gateway payment link). An opened billing failing the last two
/// accepts only a new due date and `cancel_penalty`.
pub fn editability(billing: &Billing, billet_editable: bool) -> Editability {
    match billing.billing_type.as_str() {
        "carne" => Editability::Frozen,
        "schedule" => Editability::Full,
        _ if billing.status != Status::Opened => Editability::Frozen,
        _ if billet_editable && billing.gw.payment_link.is_none() => Editability::Full,
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
    json!({"id": item.id, "description": item.description, "quantity": item.quantity, "amount": item.amount.to_string()})
}

/// The billing's stored values as a create body.
fn stored_fields(billing: &Billing) -> Map<String, Value> {
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
        "penalty": billing.penalty.map(|(_, value)| value.to_string()),
        "penalty_type": billing.penalty.map(|(kind, _)| kind.as_str()),
        "interest": billing.interest.map(|i| i.value.to_string()),
        "interest_type": billing.interest.map(|i| i.kind.as_str()),
        "interest_period": billing.interest.map(|i| i.period.as_str()),
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
/// laid over it; unknown or repeated ids are errors.
fn merged_items(billing: &Billing, sent: &Value, errors: &mut Vec<String>) -> Value {
    let elements: Vec<&Value> = match sent {
        Value::Array(items) => items.iter().collect(),
        Value::Object(map) => map.values().collect(),
        // Not a list: the create rules report it (no valid item).
        _ => Vec::new(),
    };
    if elements.len() > MAX_ITEMS {
        errors.push(msg_too_many_items());
        return Value::Array(Vec::new());
    }
    let mut seen = Vec::new();
    let mut merged = Vec::new();
    for (index, element) in elements.into_iter().enumerate() {
        let n = index + 1;
        let Value::Object(fields) = element else {
            merged.push(element.clone());
            continue;
        };
        let id = match fields.get("id") {
            Some(Value::Number(id)) => id.as_i64(),
            Some(Value::String(id)) if !id.trim().is_empty() => Some(id.trim().parse().unwrap_or(-1)),
            _ => None,
        };
        let Some(id) = id else {
            merged.push(element.clone());
            continue;
        };
        let Some(existing) = billing.items.iter().find(|item| item.id == id) else {
            errors.push(format!("Item {n}: o item {id} não pertence a esta cobrança"));
            continue;
        };
        if seen.contains(&id) {
            errors.push(format!("Item {n}: o item {id} aparece mais de uma vez"));
            continue;
        }
        seen.push(id);
        let mut item = match item_fields(existing) {
            Value::Object(map) => map,
            _ => unreachable!("a JSON object literal"),
        };
        item.extend(fields.iter().map(|(k, v)| (k.clone(), v.clone())));
        merged.push(Value::Object(item));
    }
    Value::Array(merged)
}

/// The billing as the update leaves it, parsed by the create rules (422 with every broken rule).
fn merged_draft(billing: &Billing, sent: Fields<'_>, health_module: bool) -> Result<Draft, Vec<String>> {
    let mut errors = Vec::new();
    let mut fields = stored_fields(billing);
    for key in ACCEPTED {
        // Without the health module the patient is not the API's to change.
        if key == "patient_id" && !health_module {
            continue;
        }
        let Some(value) = sent.raw(key) else { continue };
        let value = match key {
            "billing_items" => merged_items(billing, value, &mut errors),
            _ => value.clone(),
        };
        fields.insert(key.to_owned(), value);
    }
    let draft = Draft::parse_update(Fields::new(&fields), billing.amount);
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
fn cancel_penalty(sent: Fields<'_>, current: bool, errors: &mut Vec<String>) -> bool {
    sent.boolean("cancel_penalty", "cancel_penalty", errors).flatten().unwrap_or(current)
}

/// A due-date-only update: the new date (moved off a weekend) and `cancel_penalty`.
fn date_only(current: &Billing, sent: Fields<'_>) -> Result<Billing, Vec<String>> {
    let mut errors = Vec::new();
    let due_date = match sent.text("due_date", "Vencimento (due_date)", &mut errors) {
        None => current.due_date,
        Some(text) => match text.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
            None => {
                errors.push("Vencimento (due_date) não pode ficar em branco".to_owned());
                current.due_date
            }
            Some(text) => match crate::dates::parse_due_date(text) {
                Ok(date) => date,
                Err(message) => {
                    errors.push(message.to_owned());
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

/// What an update reads or reserves once, however often it runs again after losing a race to a
/// concurrent writer, so that each new attempt costs only the billing's own read and write: the
/// payer its references give (read for a 422 naming each; the transaction checks them again) and
/// the ids of its new items.
#[derive(Default)]
struct Once {
    references: tokio::sync::Mutex<Option<(ReferenceIds, Option<i64>)>>,
    first_new_item: tokio::sync::OnceCell<i64>,
}

/// The ids a draft refers to.
type ReferenceIds = (i64, Option<i64>, Option<i64>, Option<i64>, Option<i64>, Vec<i64>);

impl Once {
    /// The payer of `draft`, its references read unless an earlier attempt read the same ones.
    async fn payer(&self, state: &AppState, account: AccountId, draft: &Draft) -> ApiResult<Option<i64>> {
        let ids = (
            draft.bank_rule_id,
            draft.contact_id,
            draft.patient_id,
            draft.tag_id,
            draft.bill_category_id,
            draft.excluded_tag_ids.clone(),
        );
        let mut checked = self.references.lock().await;
        if let Some((seen, payer)) = checked.as_ref() {
            if *seen == ids {
                return Ok(*payer);
            }
        }
        let payer = check_references(&state.store, account, draft).await?;
        *checked = Some((ids, payer));
        Ok(payer)
    }

    /// The first of `count` new item ids, reserved on the first attempt that needs them.
    async fn first_new_item(&self, state: &AppState, account: AccountId, count: i64) -> ApiResult<i64> {
        let reserve = || state.store.reserve_ids(keys::account(account), keys::sequence("BILLINGITEM"), count);
        Ok(*self.first_new_item.get_or_try_init(reserve).await?)
    }
}

/// The billing with an editable update applied; new items get ids from the sequence.
async fn edited(
    state: &AppState,
    tenant: &Tenant,
    current: &Billing,
    sent: Fields<'_>,
    once: &Once,
) -> ApiResult<(Billing, Vec<Write>)> {
    let account = tenant.account_id();
    let health = tenant.0.health_module;
    let mut errors = Vec::new();
    let cancel_penalty = cancel_penalty(sent, current.cancel_penalty, &mut errors);
    let draft = merged_draft(current, sent, health).map_err(|mut more| {
        errors.append(&mut more);
        ApiError::Validation(errors.clone())
    })?;
    if !errors.is_empty() {
        return Err(ApiError::Validation(errors));
    }
    if draft.issue_type == IssueType::Individual && draft.contact_id.is_none() && !health {
        return Err(ApiError::validation(MSG_CONTACT_BLANK));
    }
    let payer = once.payer(state, account, &draft).await?;
    // The same count on every attempt: the sent elements without an id.
    let new_items = draft.items.iter().filter(|item| item.id.is_none()).count() as i64;
    let first_new = if new_items > 0 { once.first_new_item(state, account, new_items).await? } else { 0 };
    let next =
        Billing { cancel_penalty, ..current.with_draft(&draft, payer, Billing::items_from(first_new, &draft.items)) };
    let also = links::reference_checks(account, &next);
    Ok((next, also))
}

pub async fn update(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<String>,
    body: RequestBody,
) -> ApiResult<Response> {
    let account = tenant.account_id();
    let id = parse_id(&id)?;
    let sent = body.envelope("billing")?;
    let once = Once::default();
    let (billing, reissued) = retry_in_turn(records::key_of::<Billing>(account, id), || async {
        let current: Billing = records::find_or_404(&state.store, account, id).await?;
        let billet = lifecycle::current(&state.store, account, &current).await?;
        let (next, mut also) = match editability(&current, lifecycle::billet_editable(billet.as_ref())) {
            Editability::Frozen => return Ok((current, false)),
            Editability::DueDateOnly => (date_only(&current, sent).map_err(ApiError::Validation)?, Vec::new()),
            Editability::Full => edited(&state, &tenant, &current, sent, &once).await?,
        };
        let reissue = lifecycle::reissue_needed(&current, &next, billet.as_ref());
        if next == current && !reissue {
            return Ok((current, false));
        }
        let mut next = Billing { updated_at: Timestamp::now(), version: current.version + 1, ..next };
        if reissue {
            also.extend(lifecycle::reissue(account, &mut next, billet.as_ref())?);
        }
        also.extend(links::reference_writes(account, Some(&current), Some(&next)));
        records::replace(&state.store, account, &current, &next, "", also).await?;
        Ok((next, reissue))
    })
    .await?;
    if reissued {
        lifecycle::request_registration(state.queues()?, account, &billing).await;
    }
    Ok(response::ok(&single(&state.store, account, &billing).await?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::billings::model::Gateway;

    fn billing() -> Billing {
        let now = Timestamp::now();
        Billing {
            id: 1,
            code: Billing::code_for(1),
            your_code: None,
            reference: None,
            status: Status::Opened,
            billing_type: "billing".into(),
            billing_issue_type: "individual".into(),
            amount: "4.00".parse().unwrap(),
            due_date: "2026-12-01".parse().unwrap(),
            competence: None,
            evincive: None,
            observation: None,
            discount: None,
            discount2: None,
            penalty: None,
            cancel_penalty: false,
            interest: None,
            instruction_type: None,
            instruction_days: 0,
            bank_rule_id: Some(1),
            contact_id: Some(2),
            patient_id: None,
            tag_id: None,
            excluded_tag_ids: vec![],
            group_id: None,
            bill_category_id: None,
            parent_id: None,
            installments: 1,
            installment_type: "none".into(),
            installment: 1,
            gw: Gateway::default(),
            billet_generation: 0,
            billet_id: None,
            items: vec![
                BillingItem { id: 10, description: "A".into(), quantity: 1, amount: "3.00".parse().unwrap() },
                BillingItem { id: 11, description: "B".into(), quantity: 1, amount: "1.00".parse().unwrap() },
            ],
            cancellation_reason: None,
            discharge_reason: None,
            created_at: now,
            updated_at: now,
            version: 1,
        }
    }

    fn draft(b: &Billing, sent: Value) -> Result<Draft, Vec<String>> {
        merged_draft(b, Fields::new(sent.as_object().unwrap()), false)
    }

    #[test]
    fn editability_follows_type_status_and_gateway() {
        let mut b = billing();
        assert_eq!(editability(&b, true), Editability::Full);
        assert_eq!(editability(&b, false), Editability::DueDateOnly);
        b.gw.payment_link = Some("https://pay.example/x".into());
        assert_eq!(editability(&b, true), Editability::DueDateOnly);
        b.status = Status::Paid;
        assert_eq!(editability(&b, true), Editability::Frozen);
        b.billing_type = "schedule".into();
        assert_eq!(editability(&b, true), Editability::Full);
        b.billing_type = "carne".into();
        b.status = Status::Opened;
        assert_eq!(editability(&b, true), Editability::Frozen);
    }

    #[test]
    fn an_unchanged_amount_is_not_checked_against_the_minimum() {
        // A stored amount of 4.00 (below 5.00) survives edits that keep it.
        let b = billing();
        assert!(draft(&b, json!({"observation": "nova"})).is_ok());
        let err = draft(&b, json!({"billing_items": [{"id": 10, "amount": "2.00"}, {"id": 11}]})).unwrap_err();
        assert_eq!(err, ["Valor mínimo da cobrança é 5.00"]);
        let d = draft(&b, json!({"billing_items": [{"id": 10, "amount": "4.00"}, {"id": 11}]})).unwrap();
        assert_eq!(d.amount, "5.00".parse().unwrap());
    }

    #[test]
    fn items_are_the_complete_new_set() {
        let b = billing();
        let d = draft(&b, json!({"billing_items": [{"id": "11", "quantity": 5}, {"description": "Novo", "quantity": 1, "amount": 2}]}))
            .unwrap();
        let ids: Vec<_> = d.items.iter().map(|i| i.id).collect();
        assert_eq!(ids, [Some(11), None], "item 10 is removed");
        assert_eq!((d.items[0].description.as_str(), d.items[0].quantity), ("B", 5), "omitted fields kept");
        assert_eq!(
            draft(&b, json!({"billing_items": []})).unwrap_err(),
            ["A cobrança precisa de ao menos um item (billing_items)"]
        );
        let err = draft(&b, json!({"billing_items": [{"id": 99, "amount": 10}, {"id": 10}, {"id": 10}]})).unwrap_err();
        assert_eq!(
            err,
            [
                "Item 1: o item 99 não pertence a esta cobrança",
                "Item 3: o item 10 aparece mais de uma vez",
                "Valor mínimo da cobrança é 5.00"
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
    fn date_only_updates_move_weekends_and_ignore_the_rest() {
        let b = billing();
        let sent = json!({"due_date": "2026-12-05", "observation": "ignorada", "cancel_penalty": "true"});
        let next = date_only(&b, Fields::new(sent.as_object().unwrap())).unwrap();
        assert_eq!(next.due_date, "2026-12-07".parse().unwrap());
        assert!(next.cancel_penalty && next.observation.is_none());
        let sent = json!({"due_date": "amanhã"});
        assert!(date_only(&b, Fields::new(sent.as_object().unwrap())).is_err());
    }
}
