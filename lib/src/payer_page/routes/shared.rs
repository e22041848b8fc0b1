//! What the payer page's routes share: the small pages of a refusal, the read from a token to its
//! billet and billing, and the gateway's origins a card page admits.

use axum::response::{IntoResponse, Response};
use http::header::{self, HeaderValue};
use http::StatusCode;

use crate::billets::link;
use crate::billets::model::{self as billets, BankBillet};
use crate::billings::Billing;
use crate::payer_page::page;
use crate::state::AppState;
use crate::store::{records, StoreError};
use crate::values::AccountId;

/// A small page with a title and one sentence (404, 429, 503), never cached.
pub(super) fn message(status: StatusCode, title: &str, text: &str) -> Response {
    let html = format!(
        "<!doctype html><html lang=\"pt-BR\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><link rel=\"icon\" href=\"data:,\">\
         <title>{title}</title></head><body><main><h1>{title}</h1><p>{}</p></main></body></html>",
        page::escape(text)
    );
    let mut response = (status, html_headers(), html).into_response();
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

pub(super) fn html_headers() -> [(header::HeaderName, HeaderValue); 1] {
    [(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"))]
}

pub(super) fn not_found() -> Response {
    message(
        StatusCode::NOT_FOUND,
        "Boleto não encontrado",
        "Este link de boleto não existe ou não está mais disponível. Confira o link ou fale com quem o enviou.",
    )
}

/// Storage weather or a fault: a page that says to try again (503, with `Retry-After`); the cause
/// is logged.
pub(super) fn unavailable(error: StoreError) -> Response {
    tracing::error!(error = ?error, "payer page: storage failed");
    try_again("Não foi possível mostrar o boleto agora. Tente novamente em instantes.")
}

/// The 503 page saying `words`, with `Retry-After`.
fn try_again(words: &str) -> Response {
    let mut response = message(StatusCode::SERVICE_UNAVAILABLE, "Página indisponível", words);
    response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
    response
}

/// A Pix institution that could not be asked: the same page as [`unavailable`] (the cause logged).
pub(super) fn psp_unavailable(error: &anyhow::Error) -> Response {
    tracing::warn!(error = ?error, "payer page: the Pix institution could not be asked");
    try_again("Não foi possível falar com a instituição do Pix agora. Tente novamente em instantes.")
}

/// The billet a token leads to and its billing; `None` when either is gone.
pub(super) async fn found(state: &AppState, token: &str) -> Result<Option<(BankBillet, Billing)>, StoreError> {
    Ok(found_in(state, token).await?.map(|(_, billet, billing)| (billet, billing)))
}

/// [`found`], with the account that owns them.
pub(super) async fn found_in(
    state: &AppState,
    token: &str,
) -> Result<Option<(AccountId, BankBillet, Billing)>, StoreError> {
    let Some(link) = link::find(&state.store, token).await? else { return Ok(None) };
    let account = link.account_id;
    let (billet, billing) = tokio::try_join!(
        billets::find(&state.store, account, link.billing_id, link.billet_id),
        records::find::<Billing>(&state.store, account, link.billing_id),
    )?;
    let found = billet.zip(billing).filter(|(billet, _)| billet.payer_token.as_deref() == Some(token));
    Ok(found.map(|(billet, billing)| (account, billet, billing)))
}

/// The origins a page of the gateway's card field talks to: its script's, its API's, and where it
/// frames 3-D Secure.
pub(super) fn gateway_origins(credentials: &crate::payments::card::stripe::Credentials) -> Vec<String> {
    [credentials.js_url(), credentials.api_url()]
        .into_iter()
        .filter_map(crate::payments::card::stripe::origin)
        .chain(
            (credentials.js_url() == crate::payments::card::stripe::JS_URL)
                .then(|| crate::payments::card::stripe::HOOKS_ORIGIN.to_owned()),
        )
        .fold(Vec::new(), |mut all, origin| {
            if !all.contains(&origin) {
                all.push(origin);
            }
            all
        })
}

/// The account's checkout gateway for a card page: a 404 page when it has none or has it off, a
/// 503 page when storage or its keys cannot be read.
pub(super) async fn checkout_gateway(
    state: &AppState,
    account: AccountId,
) -> Result<std::sync::Arc<crate::payments::card::stripe::Stripe>, Response> {
    let gateway = match crate::payments::card::link(&state.store, account).await {
        Ok(Some(link)) if link.enabled => crate::payments::card::registry().client(&link.secret_id).await,
        Ok(_) => return Err(not_found()),
        Err(error) => return Err(unavailable(error)),
    };
    gateway.map_err(|_| {
        tracing::error!("payer page: the account's gateway keys cannot be read");
        message(StatusCode::SERVICE_UNAVAILABLE, "Página indisponível", "Tente novamente em instantes.")
    })
}
