//! `/v1/billings/{billing_id}/bank_billets` (§4.3): the billets of one billing, newest first; and,
//! beyond the spec, a billet printed: `…/{id}/pdf`, and its Pix QR code alone,
//! `…/{id}/pix.png` and `…/{id}/pix.svg`. All of one billet answer 404 by the show's rules.

use axum::extract::State;
use axum::response::Response;
use axum::routing::get;
use axum::Router;

use crate::billets::model::{self, BankBillet};
use crate::billets::printing::{pix_qr, Document, NotPrintable, Slip};
use crate::billets::view::BilletView;
use crate::billings::Billing;
use crate::http::Tenant;
use crate::http::{response, ApiError, ApiResult, Params, Path};
use crate::state::AppState;
use crate::store::records;
use crate::values::{today, BilletId, BillingId};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/billings/{billing_id}/bank_billets", get(list))
        .route("/v1/billings/{billing_id}/bank_billets/{id}", get(show))
        .route("/v1/billings/{billing_id}/bank_billets/{id}/pdf", get(pdf))
        .route("/v1/billings/{billing_id}/bank_billets/{id}/pix.png", get(pix_png))
        .route("/v1/billings/{billing_id}/bank_billets/{id}/pix.svg", get(pix_svg))
}

/// 404 when the billing is missing or another account's (its key starts with the account).
async fn list(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(billing_id): Path<BillingId>,
    params: Params,
) -> ApiResult<Response> {
    let account = tenant.account_id();
    // The billing and its billets in one query (`begins_with(sk, "BILL")`).
    let (_, billets) = crate::billings::service::whole_or_404(&state.store, account, billing_id).await?;
    let pagination = params.pagination();
    let today = today();
    let page: Vec<BilletView> = pagination.slice(&billets).iter().map(|b| BilletView::new(b, today)).collect();
    Ok(response::list("bank_billets", &page, pagination, billets.len()))
}

/// The billet, or 404 when it does not exist, is another billing's, or either is another
/// account's (the billet's key starts with the account and names the billing).
async fn billet_or_404(
    state: &AppState,
    tenant: &Tenant,
    billing_id: BillingId,
    id: BilletId,
) -> ApiResult<BankBillet> {
    model::find(&state.store, tenant.account_id(), billing_id, id).await?.ok_or(ApiError::NotFound)
}

async fn show(
    State(state): State<AppState>,
    tenant: Tenant,
    Path((billing_id, id)): Path<(BillingId, BilletId)>,
) -> ApiResult<Response> {
    let billet = billet_or_404(&state, &tenant, billing_id, id).await?;
    Ok(response::ok(&BilletView::new(&billet, today())))
}

const MSG_NOT_PRINTABLE: &str =
    "Boleto sem código de barras (ainda não registrado pelo banco, ou recusado): não há o que imprimir";
const CODE_NOT_PRINTABLE: &str = "billet_not_printable";
const MSG_WITHOUT_PIX: &str = "Boleto sem código Pix (ainda não registrado, ou o banco não oferece Pix)";
const CODE_WITHOUT_PIX: &str = "billet_without_pix";

/// 404 `{status, message, code}`: the billet exists, but not what was asked of it.
fn missing_part(code: &'static str, message: &str) -> ApiError {
    ApiError::Coded { status: http::StatusCode::NOT_FOUND, code, message: message.to_owned() }
}

/// The FEBRABAN slip as a PDF; its billing, read at the same time, gives the document number and
/// the instructions (the 404s are the billet's, decided first).
async fn pdf(
    State(state): State<AppState>,
    tenant: Tenant,
    Path((billing_id, id)): Path<(BillingId, BilletId)>,
) -> ApiResult<Response> {
    let (billet, billing) = tokio::join!(
        billet_or_404(&state, &tenant, billing_id, id),
        records::find::<Billing>(&state.store, tenant.account_id(), billing_id)
    );
    let (billet, billing) = (billet?, billing?);
    let document = match &billing {
        Some(b) => super::printed(b),
        None => Document::bare(&billet),
    };
    let slip = Slip::new(&billet, document)
        .map_err(|NotPrintable::NoBarcode| missing_part(CODE_NOT_PRINTABLE, MSG_NOT_PRINTABLE))?;
    Ok(response::file("application/pdf", &format!("boleto-{}.pdf", id.get()), slip.pdf()))
}

/// The billet's Pix copy-and-paste payload, or the 404 of a billet without one.
fn pix_payload(billet: &BankBillet) -> ApiResult<&str> {
    let payload = billet.registered.pix_qr_code.as_deref().filter(|p| !p.is_empty());
    payload.ok_or_else(|| missing_part(CODE_WITHOUT_PIX, MSG_WITHOUT_PIX))
}

/// A payload no QR code can hold (our payloads are far below the limit) is our fault.
fn unencodable() -> ApiError {
    ApiError::Internal(anyhow::anyhow!("the Pix payload does not fit a QR code"))
}

async fn pix_png(
    State(state): State<AppState>,
    tenant: Tenant,
    Path((billing_id, id)): Path<(BillingId, BilletId)>,
) -> ApiResult<Response> {
    let billet = billet_or_404(&state, &tenant, billing_id, id).await?;
    let png = pix_qr::png(pix_payload(&billet)?).ok_or_else(unencodable)?;
    Ok(response::file("image/png", &format!("pix-{}.png", id.get()), png))
}

async fn pix_svg(
    State(state): State<AppState>,
    tenant: Tenant,
    Path((billing_id, id)): Path<(BillingId, BilletId)>,
) -> ApiResult<Response> {
    let billet = billet_or_404(&state, &tenant, billing_id, id).await?;
    let svg = pix_qr::svg(pix_payload(&billet)?).ok_or_else(unencodable)?;
    Ok(response::file("image/svg+xml", &format!("pix-{}.svg", id.get()), svg.into_bytes()))
}
