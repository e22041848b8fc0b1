//! The point-of-sale routes (§4.7): `/v1/sales`, `/v1/store_credits` and
//! `/v1/receivable_settlements`. Every one takes a [`PointOfSale`]: `403` until the account has
//! enabled the module.

use axum::extract::State;
use axum::response::Response;
use axum::routing::get;
use axum::Router;

use super::sales::{self, SaleFilter, SaleView};
use super::settlements::{self, SettlementView};
use crate::http::PointOfSale;
use crate::http::{response, ApiError, ApiResult, Params, Path, RequestBody};
use crate::state::AppState;
use crate::values::calendar::parse_date;
use crate::values::{ContactId, SaleId};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/sales", get(list_sales))
        .route("/v1/sales/{code}", get(show_sale))
        .route("/v1/receivable_settlements", axum::routing::post(request_settlement))
        .route("/v1/receivable_settlements/preview", get(preview_settlement))
        .route("/v1/receivable_settlements/{reference}", get(show_settlement))
}

/// `GET /v1/sales`: newest first; filters `contact_id`, `start_date`, `end_date` (the day sold,
/// São Paulo time, both included).
async fn list_sales(State(state): State<AppState>, pos: PointOfSale, params: Params) -> ApiResult<Response> {
    let mut errors = Vec::new();
    let mut date = |name: &str| match params.get(name).map(str::trim).filter(|t| !t.is_empty()) {
        None => None,
        Some(text) => {
            let parsed = parse_date(text);
            if parsed.is_none() {
                errors.push(format!("{name} inválida (use AAAA-MM-DD)"));
            }
            parsed
        }
    };
    let (start_date, end_date) = (date("start_date"), date("end_date"));
    let contact_id = match params.id::<ContactId>("contact_id", false) {
        Ok(id) => id,
        Err(ApiError::Validation(more)) => {
            errors.extend(more);
            None
        }
        Err(other) => return Err(other),
    };
    if !errors.is_empty() {
        return Err(ApiError::Validation(errors));
    }
    let page = params.pagination();
    let filter = SaleFilter { contact_id, start_date, end_date };
    let (found, total) = sales::list(&state.store, pos.account_id(), &filter, page).await?;
    let views: Vec<SaleView> = found.iter().map(SaleView::of).collect();
    Ok(response::list("sales", &views, page, total))
}

/// `GET /v1/sales/<code>`: the code with or without its leading zeros.
async fn show_sale(State(state): State<AppState>, pos: PointOfSale, Path(id): Path<SaleId>) -> ApiResult<Response> {
    let sale = sales::find(&state.store, pos.account_id(), &sales::code_for(id)).await?.ok_or(ApiError::NotFound)?;
    Ok(response::ok(&SaleView::of(&sale)))
}

async fn preview_settlement(State(state): State<AppState>, pos: PointOfSale, params: Params) -> ApiResult<Response> {
    let cutoff = settlements::parse_cutoff(params.get("cutoff_at"))?;
    Ok(response::ok(&settlements::preview(&state.store, pos.account_id(), cutoff).await?))
}

/// `POST /v1/receivable_settlements`: `201` new (`pending`), `200` the same reference and cutoff
/// again, `202` resuming a failed one, `409` another cutoff, `422` (`settlement_contact_missing`)
/// without a payer contact.
async fn request_settlement(State(state): State<AppState>, pos: PointOfSale, body: RequestBody) -> ApiResult<Response> {
    let (reference, cutoff) = settlements::parse_request(body.envelope("receivable_settlement")?)?;
    let requested = settlements::request(&state.store, pos.account_id(), &reference, cutoff).await?;
    Ok(response::outcome(&requested, SettlementView::of))
}

async fn show_settlement(
    State(state): State<AppState>,
    pos: PointOfSale,
    Path(reference): Path<String>,
) -> ApiResult<Response> {
    let found = settlements::find(&state.store, pos.account_id(), &reference).await?.ok_or(ApiError::NotFound)?;
    Ok(response::ok(&SettlementView::of(&found)))
}
