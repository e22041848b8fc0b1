//! `/v1/sales` (§4.7): list the account's sales, show one. Both take a [`PointOfSale`]: `403`
//! until the account has enabled the module.

use axum::extract::State;
use axum::response::Response;
use axum::routing::get;
use axum::Router;

use super::list::{self, SaleFilter};
use super::model::code_for;
use super::service;
use super::view::SaleView;
use crate::http::PointOfSale;
use crate::http::{response, ApiError, ApiResult, Params, Path};
use crate::refusal::Problem;
use crate::state::AppState;
use crate::values::calendar::parse_date;
use crate::values::{ContactId, SaleId};

pub fn router() -> Router<AppState> {
    Router::new().route("/v1/sales", get(list_sales)).route("/v1/sales/{code}", get(show_sale))
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
                errors.push(Problem::invalid(name, format!("{name} inválida (use AAAA-MM-DD)")));
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
    let (found, total) = list::list(&state.store, pos.account_id(), &filter, page).await?;
    let views: Vec<SaleView> = found.iter().map(SaleView::of).collect();
    Ok(response::list("sales", &views, page, total))
}

/// `GET /v1/sales/<code>`: the code with or without its leading zeros.
async fn show_sale(State(state): State<AppState>, pos: PointOfSale, Path(id): Path<SaleId>) -> ApiResult<Response> {
    let sale = service::find(&state.store, pos.account_id(), &code_for(id)).await?.ok_or(ApiError::NotFound)?;
    Ok(response::ok(&SaleView::of(&sale)))
}
