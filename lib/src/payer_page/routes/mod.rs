//! The payer page's routes: reads, rate limit, headers and answers (the HTML is `page`); the
//! card-saving and Pix Automático pages in `saving` and `automatic`, their shared answers in `shared`.

use axum::body::Body;
use axum::extract::{Path, Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use http::header::{self, HeaderValue};
use http::{HeaderMap, StatusCode};
use sha2::{Digest, Sha256};

mod automatic;
mod saving;
mod shared;

use super::page::{self, Standing};
use crate::billets::link;
use crate::billets::model::BankBillet;
use crate::billets::printing::Slip;
use crate::http::rate_limit::{client_ip, unix_now, RateLimiter, RateLimits};
use crate::state::AppState;
use crate::values::today;
use shared::{checkout_gateway, found, found_in, gateway_origins, html_headers, message, not_found, unavailable};

/// The page's routes with their rate limit and headers, on `state`.
pub fn app(state: AppState) -> Router {
    let limits = RateLimits { per_ip: state.payer_pages_per_ip, per_token: None };
    let limiter = RateLimiter::new(state.store.clone(), limits);
    Router::new()
        .route("/pay/{token}", get(show))
        .route("/pay/{token}/boleto.pdf", get(pdf))
        .route("/pay/{token}/lembretes", get(reminders).post(stop_reminders))
        .route("/pay/{token}/cartao", get(card).post(card_intent))
        .route("/pay/{token}/cartao/{intent}", post(card_confirmed))
        .route("/pay/{token}/cartao/salvar", get(saving::page).post(saving::open))
        .route("/pay/{token}/cartao/salvar/{setup}", post(saving::confirmed))
        .route("/pay/{token}/pix-automatico", get(automatic::page))
        .route_layer(axum::middleware::from_fn_with_state(limiter, per_ip))
        .layer(axum::middleware::from_fn(protect))
        .with_state(state)
}

/// Counts the request on its IP's window of page requests; over the limit, a 429 page.
async fn per_ip(State(limiter): State<RateLimiter>, request: Request, next: Next) -> Response {
    let ip = client_ip(&request).map(|ip| crate::store::keys::auth::page_rate_client(&ip));
    let usage = limiter.admit(ip.as_deref(), None, unix_now()).await;
    match usage.refusal() {
        None => next.run(request).await,
        Some(refusal) => {
            let mut response = message(
                StatusCode::TOO_MANY_REQUESTS,
                "Muitas requisições",
                &format!("Muitos acessos em pouco tempo. Tente novamente em {} segundos.", refusal.retry_after),
            );
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(refusal.retry_after));
            response
        }
    }
}

/// The headers of every answer: the policy, no framing, no sniffing, no referrer, no indexing.
async fn protect(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    // A page with a policy of its own keeps it (the reminders page's form).
    let own_policy = headers.contains_key("content-security-policy");
    let mut set = |name: &'static str, value: &'static str| {
        headers.insert(name, HeaderValue::from_static(value));
    };
    if !own_policy {
        set("content-security-policy", page::content_security_policy());
    }
    set("x-content-type-options", "nosniff");
    set("x-frame-options", "DENY");
    set("referrer-policy", "no-referrer");
    set("x-robots-tag", "noindex, nofollow");
    set("cross-origin-opener-policy", "same-origin");
    set("permissions-policy", "camera=(), microphone=(), geolocation=(), payment=()");
    response.headers_mut().entry(header::CACHE_CONTROL).or_insert(HeaderValue::from_static("no-store"));
    response
}

async fn show(State(state): State<AppState>, Path(token): Path<String>, headers: HeaderMap) -> Response {
    let (account, billet, billing) = match found_in(&state, &token).await {
        Ok(Some(found)) => found,
        Ok(None) => return not_found(),
        Err(error) => return unavailable(error),
    };
    let today = today();
    let booklet = match super::booklet::instalments_beside(&state.store, account, &billing, today).await {
        Ok(instalments) => instalments,
        Err(error) => return unavailable(error),
    };
    let standing = Standing::of(&billet, &billing, today);
    let card = billing.gw_payment_link.as_ref().map(|_| format!("{token}/cartao"));
    let pdf = format!("{token}/boleto.pdf");
    // A schedule's billing: the payer may save a card for the next ones.
    let cycle = billing.billing_type == crate::values::BillingType::Billing && billing.parent_id.is_some();
    let save = (cycle && card.is_some()).then(|| format!("{token}/cartao/salvar"));
    // And authorize Pix Automático for them, when the billet's rule has a Pix institution.
    let automatic = (cycle && billet.pix_psp.is_some()).then(|| format!("{token}/pix-automatico"));
    let next = page::NextOnes { save_card: save.as_deref(), pix_automatic: automatic.as_deref() };
    let html = page::render_in_booklet(&billet, &standing, &pdf, card.as_deref(), &booklet, next);
    let etag = format!("\"{}\"", &hex::encode(Sha256::digest(html.as_bytes()))[..32]);
    let fresh = headers.get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok()).is_some_and(|v| v == etag);
    let (status, body) =
        if fresh { (StatusCode::NOT_MODIFIED, Body::empty()) } else { (StatusCode::OK, Body::from(html)) };
    let mut response = (status, html_headers(), body).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("private, max-age=60"));
    if let Ok(etag) = HeaderValue::from_str(&etag) {
        headers.insert(header::ETAG, etag);
    }
    response
}

/// The page where the payer stops the reminders (`reminders`), for a billet whose billing has a
/// contact; `done` once it did.
fn reminders_page(billet: &BankBillet, token: &str, done: bool) -> Response {
    let html = page::reminders(&billet.recipient.recipient_full_name, done, &format!("{}{token}", link::PATH));
    let mut response = (StatusCode::OK, html_headers(), html).into_response();
    response.headers_mut().insert("content-security-policy", HeaderValue::from_static(page::reminders_policy()));
    response
}

async fn reminders(State(state): State<AppState>, Path(token): Path<String>) -> Response {
    match found(&state, &token).await {
        Ok(Some((billet, billing))) if billing.contact_id.is_some() => reminders_page(&billet, &token, false),
        Ok(_) => not_found(),
        Err(error) => unavailable(error),
    }
}

/// Opts the billing's contact out of reminders at once: the page's button, or a mail client's
/// one-click unsubscribe (RFC 8058, `List-Unsubscribe-Post`); the body is not read.
async fn stop_reminders(State(state): State<AppState>, Path(token): Path<String>) -> Response {
    let (account, billet, billing) = match found_in(&state, &token).await {
        Ok(Some(found)) => found,
        Ok(None) => return not_found(),
        Err(error) => return unavailable(error),
    };
    let Some(contact) = billing.contact_id else { return not_found() };
    match crate::reminders::opt_out(&state.store, account, contact).await {
        Ok(_) => reminders_page(&billet, &token, true),
        Err(error) => unavailable(error),
    }
}

/// The billet's card checkout, while its billing takes cards (its account's gateway is on: the
/// billing has `gw_payment_link`) and it can be paid; its policy allows the gateway's origins.
async fn card(State(state): State<AppState>, Path(token): Path<String>) -> Response {
    let (account, billet, billing) = match found_in(&state, &token).await {
        Ok(Some(found)) => found,
        Ok(None) => return not_found(),
        Err(error) => return unavailable(error),
    };
    let Standing::Payable(due) = Standing::of(&billet, &billing, today()) else { return not_found() };
    if billing.gw_payment_link.is_none() {
        return not_found();
    }
    let gateway = match checkout_gateway(&state, account).await {
        Ok(gateway) => gateway,
        Err(response) => return response,
    };
    let credentials = &gateway.credentials;
    let origins = gateway_origins(credentials);
    let html = page::card(&billet, &due, credentials.js_url(), &format!("{}{token}", link::PATH));
    let mut response = (StatusCode::OK, html_headers(), html).into_response();
    if let Ok(policy) = HeaderValue::from_str(&page::card_policy(&origins)) {
        response.headers_mut().insert("content-security-policy", policy);
    }
    response
}

/// The day's intent of the billet's billing, for the card checkout's script.
async fn card_intent(State(state): State<AppState>, Path(token): Path<String>) -> Response {
    let (account, billet, billing) = match found_in(&state, &token).await {
        Ok(Some(found)) => found,
        Ok(None) => return not_found(),
        Err(error) => return unavailable(error),
    };
    if billing.gw_payment_link.is_none() || billing.billet_id != Some(billet.id) {
        return not_found();
    }
    crate::payments::card::routes::open_for_payer(&state, account, &billet, &billing).await
}

/// The card checkout's script confirmed `intent`: read back from the gateway and applied.
async fn card_confirmed(State(state): State<AppState>, Path((token, intent)): Path<(String, String)>) -> Response {
    let (account, _, billing) = match found_in(&state, &token).await {
        Ok(Some(found)) => found,
        Ok(None) => return not_found(),
        Err(error) => return unavailable(error),
    };
    crate::payments::card::routes::confirmed_by_payer(&state, account, &billing, &intent).await
}

/// The printable billet, while it can be paid (otherwise the page says why, and this is a 404).
async fn pdf(State(state): State<AppState>, Path(token): Path<String>) -> Response {
    let (billet, billing) = match found(&state, &token).await {
        Ok(Some(found)) => found,
        Ok(None) => return not_found(),
        Err(error) => return unavailable(error),
    };
    if !matches!(Standing::of(&billet, &billing, today()), Standing::Payable(_)) {
        return not_found();
    }
    let Ok(slip) = Slip::new(&billet, crate::billings::billets::printed(&billing)) else { return not_found() };
    let mut response =
        crate::http::response::file("application/pdf", &format!("boleto-{}.pdf", billing.code), slip.pdf());
    let headers = response.headers_mut();
    if let Ok(disposition) = HeaderValue::try_from(format!("attachment; filename=\"boleto-{}.pdf\"", billing.code)) {
        headers.insert(header::CONTENT_DISPOSITION, disposition);
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("private, max-age=60"));
    response
}
