//! The PSP's webhook, on a domain of its own with mutual TLS (the template's `PixWebhookDomain`;
//! locally the dev server's Pix listener): `POST /pix/{account}/{rule}/pix`, the URL registered
//! with `PUT /webhook/{chave}` (`<base>/pix/{account}/{rule}`; the PSP adds `/pix`).
//!
//! Only a caller with a certificate of the PSP's CA reaches it (the domain's truststore refuses the
//! others in the handshake), and even then nothing it says is believed: every Pix it tells is read
//! back from the PSP with the service's credentials before it is applied ([`super::receive`]).
//! Answers: `200` once every Pix told is applied or set aside (a PSP calls again on anything
//! else); `400` for a body that is not the API Pix's; `503` while the PSP cannot be asked (it
//! calls again).
//!
//! Pix Automático's two webhooks (`PUT /webhookrec`, `PUT /webhookcobr` with the same URL) arrive at
//! `…/rec` (`{"recs": [{"idRec": …}]}`) and `…/cobr` (`{"cobsr": [{"txid": …}]}`), answered alike:
//! each recurrence or debit told is read back from the PSP ([`super::automatic`]).

use axum::extract::{Path, State};
use axum::response::Response;
use axum::routing::post;
use axum::Router;
use http::StatusCode;
use serde_json::json;

use super::{automatic, receive, Notices, MAX_NOTICES};
use crate::http::error::{ApiError, ApiResult};
use crate::http::response::json_response;
use crate::state::AppState;
use crate::values::{AccountId, BankRuleId};

/// The webhook's route.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/pix/{account}/{rule}/pix", post(take))
        .route("/pix/{account}/{rule}/rec", post(recurrences))
        .route("/pix/{account}/{rule}/cobr", post(debits))
}

/// The ids a Pix Automático notice names under `list` (`recs` or `cobsr`), each item's `field`.
fn named(body: &[u8], list: &str, field: &str) -> ApiResult<Vec<String>> {
    let notice: serde_json::Value = serde_json::from_slice(body).map_err(|_| ApiError::MalformedBody)?;
    let items = notice.get(list).and_then(serde_json::Value::as_array).ok_or(ApiError::MalformedBody)?;
    if items.len() > MAX_NOTICES {
        return Err(ApiError::BadRequest("more notices in one call than a PSP sends"));
    }
    let ids = items.iter().map(|item| item.get(field).and_then(serde_json::Value::as_str).map(str::to_owned));
    ids.collect::<Option<Vec<_>>>().ok_or(ApiError::MalformedBody)
}

fn ids_of(account: &str, rule: &str) -> ApiResult<(AccountId, BankRuleId)> {
    match (account.parse::<i64>(), rule.parse::<i64>()) {
        (Ok(account), Ok(rule)) => Ok((AccountId::new(account), BankRuleId::new(rule))),
        _ => Err(ApiError::RouteNotFound),
    }
}

fn retry_later(error: anyhow::Error) -> ApiError {
    tracing::warn!(error = ?error, "a Pix Automático notice not taken now: the PSP calls again");
    ApiError::Unavailable(error)
}

async fn recurrences(
    State(state): State<AppState>,
    Path((account, rule)): Path<(String, String)>,
    body: axum::body::Bytes,
) -> ApiResult<Response> {
    let (account, rule) = ids_of(&account, &rule)?;
    let ids = named(&body, "recs", "idRec")?;
    let told = automatic::follow(&state.store, account, rule, &ids).await.map_err(retry_later)?;
    Ok(json_response(StatusCode::OK, &json!({ "recs": told })))
}

async fn debits(
    State(state): State<AppState>,
    Path((account, rule)): Path<(String, String)>,
    body: axum::body::Bytes,
) -> ApiResult<Response> {
    ids_of(&account, &rule)?;
    let txids = named(&body, "cobsr", "txid")?;
    let told = automatic::settle(&state.store, &txids).await.map_err(retry_later)?;
    Ok(json_response(StatusCode::OK, &json!({ "cobsr": told })))
}

/// The path a bank rule's webhook URL ends with (after the domain's base URL).
pub fn path(account: AccountId, rule: BankRuleId) -> String {
    format!("/pix/{account}/{rule}")
}

async fn take(
    State(state): State<AppState>,
    Path((account, rule)): Path<(String, String)>,
    body: axum::body::Bytes,
) -> ApiResult<Response> {
    let (Ok(account), Ok(rule)) = (account.parse::<i64>(), rule.parse::<i64>()) else {
        return Err(ApiError::RouteNotFound);
    };
    let notices: Notices = serde_json::from_slice(&body).map_err(|_| ApiError::MalformedBody)?;
    if notices.pix.len() > MAX_NOTICES {
        return Err(ApiError::BadRequest("more Pix in one call than a PSP sends"));
    }
    let taken =
        receive(&state.store, AccountId::new(account), BankRuleId::new(rule), &notices).await.map_err(|error| {
            tracing::warn!(error = ?error, "a Pix webhook call not taken now: the PSP calls again");
            ApiError::Unavailable(error)
        })?;
    Ok(json_response(StatusCode::OK, &json!({ "pix": taken })))
}
