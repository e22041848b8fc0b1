//! `/v1/carnes` (beyond the spec, additive): a carnê made, and its booklet printed. The booklet
//! and its instalments are the spec's `carne` records: read and listed through `/v1/billings`
//! (`GET /v1/billings?billing_id=<booklet>` lists the instalments), never editable, and cancelled
//! with `POST /v1/billings/{booklet}/cancel` (its open instalments with it; paid ones stay).

use axum::extract::State;
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use serde_json::Value;

use super::input;
use crate::billets::model::{self as billets, BankBillet};
use crate::billets::printing::Slip;
use crate::billings::billets::printed;
use crate::billings::model::Billing;
use crate::billings::service;
use crate::billings::view::BillingView;
use crate::http::Tenant;
use crate::http::{response, ApiError, ApiResult, Path, RequestBody};
use crate::refusal::{Code, Problem};
use crate::state::AppState;
use crate::store::records;
use crate::values::{today, AccountId, BillingId};

pub fn router() -> Router<AppState> {
    Router::new().route("/v1/carnes", post(create)).route("/v1/carnes/{id}/pdf", get(pdf))
}

/// `201` with the booklet's single representation and `installment_billing_ids`, its instalments'
/// ids in order (each a `carne` billing whose billet is registered in the background, as any).
async fn create(State(state): State<AppState>, tenant: Tenant, body: RequestBody) -> ApiResult<Response> {
    let account = tenant.account_id();
    body.envelope("carne")?;
    let object = body.0.get("carne").and_then(Value::as_object).cloned().unwrap_or_default();
    let carne = input::parse(&object).map_err(ApiError::Validation)?;
    if carne.draft.issue_type == crate::values::IssueType::Bulk {
        let message = "Um carnê cobra um contato (contact_id); carnês por tag não existem";
        return Err(ApiError::validation(Problem::invalid("tag_id", message)));
    }
    let draft = service::apply_modules(carne.draft, tenant.0.health_module)?;
    let (booklet, embedded) =
        service::create_booklet(&state.store, account, &draft, &carne.description, &carne.shares).await?;
    let mut shown = serde_json::to_value(BillingView::new(&booklet, &embedded.related(), today()))
        .map_err(|e| ApiError::from(anyhow::Error::from(e)))?;
    let ids: Vec<i64> = service::instalment_ids(&booklet).iter().map(|id| id.get()).collect();
    if let Some(fields) = shown.as_object_mut() {
        fields.insert("installment_billing_ids".into(), ids.into());
    }
    Ok(response::created(&shown))
}

/// A booklet's open instalments whose billets are registered, in order, with those billets.
async fn printable(
    state: &AppState,
    account: AccountId,
    booklet: &Billing,
) -> ApiResult<(Vec<(Billing, BankBillet)>, usize)> {
    let instalments = service::instalments(&state.store, account, booklet.id, booklet.installments).await?;
    let open: Vec<Billing> = instalments.into_iter().filter(|b| b.status.accepts_cancel_or_pay_off()).collect();
    let reads = open.iter().map(|b| async move {
        match b.billet_id {
            Some(id) => billets::find(&state.store, account, b.id, id).await,
            None => Ok(None),
        }
    });
    let found = futures::future::try_join_all(reads).await?;
    let open_count = open.len();
    let with_billets = open.into_iter().zip(found).filter_map(|(b, billet)| billet.map(|billet| (b, billet))).collect();
    Ok((with_billets, open_count))
}

/// The booklet as booklets are printed: one FEBRABAN slip per page, each with its barcode and Pix
/// QR code, for every instalment still to pay. `404` for no booklet of the account (or none left
/// to pay); `409` while an open instalment's billet is not registered yet.
async fn pdf(State(state): State<AppState>, tenant: Tenant, Path(id): Path<BillingId>) -> ApiResult<Response> {
    let account = tenant.account_id();
    let booklet = records::find::<Billing>(&state.store, account, id).await?;
    let booklet = booklet.filter(Billing::is_booklet).ok_or(ApiError::NotFound)?;
    let (instalments, open) = printable(&state, account, &booklet).await?;
    let slips: Vec<Slip<'_>> =
        instalments.iter().filter_map(|(billing, billet)| Slip::new(billet, printed(billing)).ok()).collect();
    if slips.len() < open {
        let message = "Os boletos do carnê ainda estão sendo registrados: tente em instantes";
        return Err(ApiError::Coded {
            status: http::StatusCode::CONFLICT,
            code: "carne_not_ready",
            message: message.into(),
        });
    }
    if slips.is_empty() {
        let message = "O carnê não tem parcelas a pagar: não há o que imprimir";
        return Err(ApiError::Coded {
            status: http::StatusCode::NOT_FOUND,
            code: Code::NotAllowed.as_str(),
            message: message.into(),
        });
    }
    let title = format!("Carnê {}", booklet.code);
    Ok(response::file("application/pdf", &format!("carne-{}.pdf", id.get()), Slip::booklet(&slips, &title)))
}
