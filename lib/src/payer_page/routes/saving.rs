//! The page where the payer of a schedule's billing saves a card for the next ones
//! (`/pay/<token>/cartao/salvar`), and its script's two calls (`payments::card::routes`, `on_file`).

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use http::header::HeaderValue;
use http::StatusCode;

use super::shared::{checkout_gateway, found_in, gateway_origins, html_headers, not_found, unavailable};
use crate::billets::link;
use crate::billings::standing::Standing;
use crate::payer_page::page;
use crate::payments::card::{on_file, routes as card};
use crate::state::AppState;
use crate::values::today;

/// The saving page, while the billet can be paid and its billing is a schedule's cycle on an
/// account whose gateway is on (otherwise a 404).
pub(super) async fn page(State(state): State<AppState>, Path(token): Path<String>) -> Response {
    let (account, billet, billing) = match found_in(&state, &token).await {
        Ok(Some(found)) => found,
        Ok(None) => return not_found(),
        Err(error) => return unavailable(error),
    };
    if !matches!(Standing::of(&billet, &billing, today()), Standing::Payable(_)) || billing.gw_payment_link.is_none() {
        return not_found();
    }
    match on_file::schedule_of(&state.store, account, &billing).await {
        Ok(Some(_)) => {}
        Ok(None) => return not_found(),
        Err(error) => return unavailable(error),
    }
    let gateway = match checkout_gateway(&state, account).await {
        Ok(gateway) => gateway,
        Err(response) => return response,
    };
    let credentials = &gateway.credentials;
    let html = page::save_card(&billet, credentials.js_url(), &format!("{}{token}", link::PATH));
    let mut response = (StatusCode::OK, html_headers(), html).into_response();
    if let Ok(policy) = HeaderValue::from_str(&page::save_card_policy(&gateway_origins(credentials))) {
        response.headers_mut().insert("content-security-policy", policy);
    }
    response
}

/// The SetupIntent for the page's script.
pub(super) async fn open(State(state): State<AppState>, Path(token): Path<String>) -> Response {
    match found_in(&state, &token).await {
        Ok(Some((account, _, billing))) => card::open_setup_for_payer(&state, account, &billing).await,
        Ok(None) => not_found(),
        Err(error) => unavailable(error),
    }
}

/// The script confirmed `setup`: read back and kept.
pub(super) async fn confirmed(State(state): State<AppState>, Path((token, setup)): Path<(String, String)>) -> Response {
    match found_in(&state, &token).await {
        Ok(Some((account, _, billing))) => card::setup_confirmed_by_payer(&state, account, &billing, &setup).await,
        Ok(None) => not_found(),
        Err(error) => unavailable(error),
    }
}
