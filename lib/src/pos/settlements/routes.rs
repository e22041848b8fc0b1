//! `/v1/receivable_settlements` (§4.7): request a settlement, preview one, show one. Each takes a
//! [`PointOfSale`]: `403` until the account has enabled the module.

use axum::extract::State;
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;

use super::input::{parse_cutoff, parse_request};
use super::service;
use super::view::SettlementView;
use crate::http::PointOfSale;
use crate::http::{response, ApiError, ApiResult, Params, Path, RequestBody};
use crate::refusal::Code;
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/receivable_settlements", post(request_settlement))
        .route("/v1/receivable_settlements/preview", get(preview_settlement))
        .route("/v1/receivable_settlements/{reference}", get(show_settlement))
}

async fn preview_settlement(State(state): State<AppState>, pos: PointOfSale, params: Params) -> ApiResult<Response> {
    let cutoff = parse_cutoff(params.get("cutoff_at"), Code::Required)?;
    Ok(response::ok(&service::preview(&state.store, pos.account_id(), cutoff).await?))
}

/// `POST /v1/receivable_settlements`: `201` new (`pending`), `200` the same reference and cutoff
/// again, `202` resuming a failed one, `409` another cutoff, `422` (`settlement_contact_missing`)
/// without a payer contact.
async fn request_settlement(State(state): State<AppState>, pos: PointOfSale, body: RequestBody) -> ApiResult<Response> {
    let (reference, cutoff) = parse_request(body.envelope("receivable_settlement")?)?;
    let requested = service::request(&state.store, pos.account_id(), &reference, cutoff).await?;
    Ok(response::outcome(&requested, SettlementView::of))
}

async fn show_settlement(
    State(state): State<AppState>,
    pos: PointOfSale,
    Path(reference): Path<String>,
) -> ApiResult<Response> {
    let found = service::find(&state.store, pos.account_id(), &reference).await?.ok_or(ApiError::NotFound)?;
    Ok(response::ok(&SettlementView::of(&found)))
}
