//! `/v1/store_credits` (§4.7): add a credit, list a contact's movements. Both take a
//! [`PointOfSale`]: `403` until the account has enabled the module.

use axum::extract::State;
use axum::response::Response;
use axum::routing::get;
use axum::Router;

use super::input::CreditDraft;
use super::service;
use super::view::{MovementView, StoreCreditView};
use crate::http::PointOfSale;
use crate::http::{response, ApiResult, Params, RequestBody};
use crate::state::AppState;
use crate::values::ContactId;

pub fn router() -> Router<AppState> {
    Router::new().route("/v1/store_credits", get(list_credits).post(add_credit))
}

/// `POST /v1/store_credits`: `201` new, `200` the same reference again, `409` the reference with
/// other data, `422` (`contact_not_found`) an unknown contact.
async fn add_credit(State(state): State<AppState>, pos: PointOfSale, body: RequestBody) -> ApiResult<Response> {
    let draft = CreditDraft::parse(body.envelope("store_credit")?)?;
    let added = service::add(&state.store, pos.account_id(), &draft).await?;
    Ok(response::outcome(&added, StoreCreditView::of))
}

/// `GET /v1/store_credits?contact_id=`: the contact's movements, newest first, each with the
/// balance after it.
async fn list_credits(State(state): State<AppState>, pos: PointOfSale, params: Params) -> ApiResult<Response> {
    let contact = params.id::<ContactId>("contact_id", true)?.expect("required");
    let page = params.pagination();
    let (found, total) = service::movements(&state.store, pos.account_id(), contact, page).await?;
    let views: Vec<MovementView> = found.iter().map(MovementView::of).collect();
    Ok(response::list("store_credits", &views, page, total))
}
