//! `/v1/billings` (§4.2): the routes, create and show.

use axum::extract::{Path, State};
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use serde_json::Value;

use super::input::{Draft, IssueType};
use super::links;
use super::model::Billing;
use super::view::{represent, Related};
use crate::accounts::AccountId;
use crate::app::AppState;
use crate::auth::Tenant;
use crate::billets::BankBillet;
use crate::contacts::Contact;
use crate::http::routing::parse_id;
use crate::http::{response, ApiError, ApiResult, RequestBody};
use crate::references::{BankRule, BillCategory};
use crate::store::records;
use crate::store::{keys, retry_on_conflict, Store, Write};
use crate::tags::Tag;
use crate::time::{today, Timestamp};

pub const MSG_BANK_RULE_NOT_FOUND: &str = "Regra bancária não encontrada";
pub const MSG_CONTACT_NOT_FOUND: &str = "Contato não encontrado";
pub const MSG_PATIENT_NOT_FOUND: &str = "Paciente não encontrado";
pub const MSG_CATEGORY_INVALID: &str = "Categoria financeira não encontrada ou não é de recebimento";
pub const MSG_TAG_NOT_FOUND: &str = "Etiqueta não encontrada";
pub const MSG_EXCLUDED_TAG_NOT_FOUND: &str = "Etiquetas excluídas (excluded_tag_ids) não encontradas";
pub const MSG_CONTACT_BLANK: &str = "Contato (contact_id) não pode ficar em branco";

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/billings", get(super::list::list).post(create))
        .route("/v1/billings/{id}", get(show).patch(super::update::update).delete(super::actions::destroy))
        .route("/v1/billings/{id}/cancel", post(super::actions::cancel))
        .route("/v1/billings/{id}/pay_off", post(super::actions::pay_off))
}

/// The single representation, with the contact and tag it embeds.
pub async fn single(store: &Store, account: AccountId, billing: &Billing) -> ApiResult<Value> {
    // Legacy records never had a registration: no billets to read.
    let billets = match billing.billet_generation {
        0 => Vec::new(),
        _ => crate::billets::model::of_billing(store, account, billing.id).await?,
    };
    single_with(store, account, billing, &billets).await
}

/// The single representation with these billets (newest first) instead of the stored ones: what
/// a transaction about to be written will show.
pub async fn single_with(
    store: &Store,
    account: AccountId,
    billing: &Billing,
    billets: &[BankBillet],
) -> ApiResult<Value> {
    let contact = records::find_referenced::<Contact>(store, account, billing.contact_id).await?;
    let tag = records::find_referenced::<Tag>(store, account, billing.tag_id).await?;
    let related = Related { contact: contact.as_ref(), tag: tag.as_ref(), billets };
    Ok(represent(billing, &related, today(), true))
}

async fn show(State(state): State<AppState>, tenant: Tenant, Path(id): Path<String>) -> ApiResult<Response> {
    let account = tenant.account_id();
    let billing: Billing = records::find_or_404(&state.store, account, parse_id(&id)?).await?;
    Ok(response::ok(&single(&state.store, account, &billing).await?))
}

/// Rules 1–4 and the health module: every reference must be a record of the account (422 naming
/// each). Returns the payer of an individual billing: the `contact_id` sent, or else the patient's
/// financial guardian, or else the patient.
pub(super) async fn check_references(store: &Store, account: AccountId, draft: &Draft) -> ApiResult<Option<i64>> {
    let mut errors = Vec::new();
    if records::find::<BankRule>(store, account, draft.bank_rule_id).await?.is_none() {
        errors.push(MSG_BANK_RULE_NOT_FOUND.to_owned());
    }
    let patient = match draft.patient_id {
        Some(id) => {
            let found = records::find::<Contact>(store, account, id).await?;
            if found.is_none() {
                errors.push(MSG_PATIENT_NOT_FOUND.to_owned());
            }
            found
        }
        None => None,
    };
    if let Some(id) = draft.contact_id {
        if records::find::<Contact>(store, account, id).await?.is_none() {
            errors.push(MSG_CONTACT_NOT_FOUND.to_owned());
        }
    }
    if let Some(id) = draft.bill_category_id {
        let category = records::find::<BillCategory>(store, account, id).await?;
        if category.is_none_or(|c| c.category_type != "receivable") {
            errors.push(MSG_CATEGORY_INVALID.to_owned());
        }
    }
    if let Some(id) = draft.tag_id {
        if records::find::<Tag>(store, account, id).await?.is_none() {
            errors.push(MSG_TAG_NOT_FOUND.to_owned());
        }
    }
    let missing = crate::tags::missing(store, account, &draft.excluded_tag_ids).await?;
    if !missing.is_empty() {
        let ids: Vec<String> = missing.iter().map(i64::to_string).collect();
        errors.push(format!("{MSG_EXCLUDED_TAG_NOT_FOUND}: {}", ids.join(", ")));
    }
    if !errors.is_empty() {
        return Err(ApiError::Validation(errors));
    }
    if draft.issue_type == IssueType::Bulk {
        return Ok(None);
    }
    if let Some(contact) = draft.contact_id {
        return Ok(Some(contact));
    }
    let Some(patient) = patient else { return Err(ApiError::validation(MSG_CONTACT_BLANK)) };
    // A guardian deleted since it was set leaves the patient paying.
    let guardian = records::find_referenced::<Contact>(store, account, patient.financial_guardian_id).await?;
    Ok(Some(guardian.map_or(patient.id, |g| g.id)))
}

/// Without the health module `patient_id` is ignored and `contact_id` is required (rule 2).
pub(super) fn apply_modules(mut draft: Draft, tenant: &Tenant) -> ApiResult<Draft> {
    if !tenant.0.health_module {
        draft.patient_id = None;
        if draft.issue_type == IssueType::Individual && draft.contact_id.is_none() {
            return Err(ApiError::validation(MSG_CONTACT_BLANK));
        }
    }
    Ok(draft)
}

async fn create(State(state): State<AppState>, tenant: Tenant, body: RequestBody) -> ApiResult<Response> {
    let account = tenant.account_id();
    let draft = Draft::parse(body.envelope("billing")?).map_err(ApiError::Validation)?;
    let draft = apply_modules(draft, &tenant)?;
    let queues = state.queues()?;
    let store = &state.store;
    if draft.issue_type == IssueType::Bulk {
        if !queues.expands_bulk() {
            return Err(anyhow::anyhow!("bulk expansion queue not configured").into());
        }
        let billing = body.0.get("billing").cloned().unwrap_or_default();
        let accepted = super::bulk::accept(store, queues, account, &draft, billing).await?;
        return Ok(response::json_response(http::StatusCode::ACCEPTED, &accepted));
    }
    let billing = retry_on_conflict(|| async {
        let payer = check_references(store, account, &draft).await?;
        insert_new(store, account, &draft, payer, Vec::new()).await
    })
    .await?;
    // Registration of the billet happens in the background (§2.2).
    crate::billets::lifecycle::request_registration(queues, account, &billing).await;
    Ok(response::created(&single(store, account, &billing).await?))
}

/// Writes a new billing of `draft` paid by `payer`, with `also` in its transaction. The references
/// are checked again inside the transaction, and the contacts count the billing (a contact with
/// billings cannot be deleted). A lost race is `Conflict`, for `retry_on_conflict`.
pub(super) async fn insert_new(
    store: &Store,
    account: AccountId,
    draft: &Draft,
    payer: Option<i64>,
    also: Vec<Write>,
) -> ApiResult<Billing> {
    let id = records::next_id::<Billing>(store, account).await?;
    let first_item =
        store.reserve_ids(keys::account(account), keys::sequence("BILLINGITEM"), draft.items.len() as i64).await?;
    let items = Billing::items_from(first_item, &draft.items);
    let billing = Billing::new(id, draft, payer, items, Timestamp::now());
    let mut writes = links::reference_checks(account, &billing);
    writes.extend(links::reference_writes(account, None, Some(&billing)));
    writes.extend(links::added(account, &billing));
    writes.extend(also);
    records::insert(store, account, &billing, "", writes).await?;
    Ok(billing)
}
