//! The card channel's routes:
//!
//! - `POST /gateway/stripe/{account_id}`: the account's Stripe webhook endpoint (public, its own
//!   function on AWS). The body is taken only when `Stripe-Signature` proves it the account's
//!   gateway's, within five minutes; anything else is a 400 and changes nothing. A 2xx is answered
//!   once the event's effect is stored, a 503 otherwise (Stripe sends it again).
//! - `POST /v1/billings/{id}/capture`, `/release`, `/refund` (beyond the spec): the account's
//!   operations on a card payment ([`super::sync::act`]), answering the billing's single
//!   representation.
//! - The payer page's card checkout (`payer_page` mounts them): [`open_for_payer`] and
//!   [`confirmed_by_payer`]; and its card saving for a schedule ([`open_setup_for_payer`],
//!   [`setup_confirmed_by_payer`]: `on_file`).

use axum::body::Bytes;
use axum::extract::State;
use axum::response::Response;
use axum::routing::post;
use axum::Router;
use http::{HeaderMap, StatusCode};
use serde_json::json;

use super::on_file::{self, Kept};
use super::sync::{self, Act, Beside, Synced};
use super::{checkout, Gateway as _, Told};
use crate::billets::model::BankBillet;
use crate::billings::card::Stage;
use crate::billings::model::Billing;
use crate::billings::service;
use crate::billings::view::BillingView;
use crate::http::response::json_response;
use crate::http::{response, ApiResult, Path, Tenant};
use crate::refusal::Refusal;
use crate::state::AppState;
use crate::values::{today, AccountId, BillingId};

/// The account's operations on a card payment.
pub fn api() -> Router<AppState> {
    Router::new()
        .route("/v1/billings/{id}/capture", post(capture))
        .route("/v1/billings/{id}/release", post(release))
        .route("/v1/billings/{id}/refund", post(refund))
}

/// The gateways' webhook endpoints.
pub fn webhooks(state: AppState) -> Router {
    Router::new().route("/gateway/stripe/{account}", post(webhook)).with_state(state)
}

async fn operate(state: &AppState, tenant: &Tenant, id: BillingId, act: Act) -> ApiResult<Response> {
    let account = tenant.account_id();
    let billing = sync::act(&state.store, account, id, act).await?;
    let embedded = service::embedded(&state.store, account, &billing).await?;
    Ok(response::ok(&BillingView::new(&billing, &embedded.related(), today())))
}

async fn capture(State(state): State<AppState>, tenant: Tenant, Path(id): Path<BillingId>) -> ApiResult<Response> {
    operate(&state, &tenant, id, Act::Capture).await
}

async fn release(State(state): State<AppState>, tenant: Tenant, Path(id): Path<BillingId>) -> ApiResult<Response> {
    operate(&state, &tenant, id, Act::Release).await
}

async fn refund(State(state): State<AppState>, tenant: Tenant, Path(id): Path<BillingId>) -> ApiResult<Response> {
    operate(&state, &tenant, id, Act::Refund).await
}

fn answer(status: StatusCode, message: &str) -> Response {
    json_response(status, &json!({"status": status.as_u16(), "message": message}))
}

/// Storage or the gateway failed: Stripe sends the event again.
fn retry_later(error: impl std::fmt::Display) -> Response {
    tracing::warn!(error = %error, "gateway webhook: not applied, the gateway sends it again");
    let mut response = answer(StatusCode::SERVICE_UNAVAILABLE, "Tente novamente mais tarde");
    response.headers_mut().insert(http::header::RETRY_AFTER, http::HeaderValue::from_static("5"));
    response
}

/// The account's gateway link and its client, for a route: a 404 (`unknown`) when the account has
/// no gateway (or, `enabled_only`, has it off), a 503 when storage or its secret cannot be read.
async fn gateway_of(
    state: &AppState,
    account: AccountId,
    enabled_only: bool,
    unknown: &str,
) -> Result<(super::Link, std::sync::Arc<super::stripe::Stripe>), Response> {
    let link = match super::link(&state.store, account).await {
        Ok(Some(link)) if link.enabled || !enabled_only => link,
        Ok(_) => return Err(answer(StatusCode::NOT_FOUND, unknown)),
        Err(error) => return Err(retry_later(error)),
    };
    match super::registry().client(&link.secret_id).await {
        Ok(gateway) => Ok((link, gateway)),
        Err(error) => Err(retry_later(format!("{error:#}"))),
    }
}

async fn webhook(
    State(state): State<AppState>,
    axum::extract::Path(account): axum::extract::Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let Some(account) = account.parse::<i64>().ok().filter(|id| *id > 0).map(AccountId::new) else {
        return answer(StatusCode::NOT_FOUND, "Endpoint desconhecido");
    };
    let (_, gateway) = match gateway_of(&state, account, false, "Endpoint desconhecido").await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let signature = headers.get("stripe-signature").and_then(|v| v.to_str().ok());
    let now = chrono::Utc::now().timestamp();
    let told = match gateway.told(signature, &body, now) {
        Ok(told) => told,
        Err(rejected) => {
            tracing::warn!(account = %account, why = %rejected, "gateway webhook refused");
            return answer(StatusCode::BAD_REQUEST, &format!("Evento recusado: {rejected}"));
        }
    };
    let (event, intent, beside) = match told {
        Told::Intent { event, intent } => (event, intent, Beside::default()),
        Told::Review { event, intent, review } => (event, intent, Beside { review: Some(review), ..Beside::default() }),
        Told::Dispute { event, intent, dispute } => {
            (event, intent, Beside { dispute: Some(dispute), ..Beside::default() })
        }
        Told::Other { event, kind } => {
            tracing::info!(event, kind, "gateway webhook: an event the service does not follow");
            return answer(StatusCode::OK, "Ignorado");
        }
    };
    match Box::pin(sync::read_and_apply(&state.store, gateway.as_ref(), account, &intent, &beside)).await {
        Ok(outcome) => {
            let result = match outcome {
                Synced::Billing(billing) => format!("billing {} {}", billing.id, billing.status),
                Synced::ToRefund(why) => format!("kept to refund: {why}"),
                Synced::NotOurs => "not a payment of this account's".to_owned(),
            };
            tracing::info!(account = %account, event, intent, result, "gateway webhook applied");
            answer(StatusCode::OK, "Recebido")
        }
        Err(error @ (Refusal::Unavailable(_) | Refusal::Conflict | Refusal::Internal(_))) => retry_later(error),
        Err(other) => {
            tracing::warn!(account = %account, event, error = %other, "gateway webhook: not applicable");
            answer(StatusCode::OK, "Recebido")
        }
    }
}

/// What the payer page's script gets to confirm a card payment: the day's intent's client secret
/// and the publishable key; or why not (422, in the payer's words), or 503.
pub async fn open_for_payer(state: &AppState, account: AccountId, billet: &BankBillet, billing: &Billing) -> Response {
    let (link, gateway) = match gateway_of(state, account, true, "Pagamento com cartão indisponível").await {
        Ok(found) => found,
        Err(response) => return response,
    };
    match checkout::intent_of_the_day(&state.store, gateway.as_ref(), &link, billing, billet, today()).await {
        Ok(intent) => json_response(
            StatusCode::OK,
            &json!({
                "client_secret": intent.client_secret,
                "publishable_key": gateway.credentials.publishable_key,
                "amount": format!("{:.2}", intent.amount.get()),
                "intent": intent.id,
            }),
        ),
        Err(Refusal::Rule { message, .. }) => answer(StatusCode::UNPROCESSABLE_ENTITY, &message),
        Err(error) => retry_later(error),
    }
}

/// The payer's browser says it confirmed `intent`: read back from the gateway and applied (the
/// webhook does the same; whichever comes first). What the payer sees: paid, authorized, or not.
pub async fn confirmed_by_payer(state: &AppState, account: AccountId, billing: &Billing, intent: &str) -> Response {
    let (_, gateway) = match gateway_of(state, account, false, "Pagamento com cartão indisponível").await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let read = match gateway.intent(intent).await {
        Ok(Some(read))
            if read.billing == Some(billing.id)
                && read.account == Some(account)
                && read.service == super::service(&state.store) =>
        {
            read
        }
        Ok(_) => return answer(StatusCode::NOT_FOUND, "Pagamento desconhecido"),
        Err(error) => return retry_later(error),
    };
    if let Err(error) = Box::pin(sync::apply(&state.store, account, &read, &Beside::default())).await {
        return retry_later(error);
    }
    let (stage, message) = match read.stage {
        Stage::Succeeded => ("succeeded", "Pagamento aprovado. Obrigado!"),
        Stage::Authorized => ("authorized", "Pagamento autorizado. Ele será confirmado pelo recebedor."),
        Stage::Pending => ("pending", "Pagamento em processamento. Esta página mostrará quando for confirmado."),
        Stage::Canceled => ("canceled", "Pagamento cancelado."),
        Stage::Open => ("open", "O pagamento não foi concluído. Confira os dados do cartão e tente novamente."),
    };
    json_response(StatusCode::OK, &json!({"stage": stage, "message": message}))
}

const NOT_RECURRING: &str = "Esta cobrança não é de uma assinatura: não há cartão a salvar";

/// The schedule `billing` is a cycle of and the account's gateway (`enabled_only`: while it is on),
/// for the card-saving routes; or the answer why not (404 in the payer's words, 503).
async fn schedule_and_gateway(
    state: &AppState,
    account: AccountId,
    billing: &Billing,
    enabled_only: bool,
) -> Result<(BillingId, std::sync::Arc<super::stripe::Stripe>), Response> {
    let schedule = match on_file::schedule_of(&state.store, account, billing).await {
        Ok(Some(schedule)) => schedule,
        Ok(None) => return Err(answer(StatusCode::NOT_FOUND, NOT_RECURRING)),
        Err(error) => return Err(retry_later(error)),
    };
    let (_, gateway) = gateway_of(state, account, enabled_only, "Cartão indisponível").await?;
    Ok((schedule, gateway))
}

/// What the card-saving page's script gets: the schedule's SetupIntent's client secret and the
/// publishable key; or why not (404, in the payer's words), or 503.
pub async fn open_setup_for_payer(state: &AppState, account: AccountId, billing: &Billing) -> Response {
    let (schedule, gateway) = match schedule_and_gateway(state, account, billing, true).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    match on_file::open_setup(&state.store, &gateway, account, billing, schedule).await {
        Ok(setup) => json_response(
            StatusCode::OK,
            &json!({
                "client_secret": setup.client_secret,
                "publishable_key": gateway.credentials.publishable_key,
                "setup": setup.id,
            }),
        ),
        Err(error) => retry_later(error),
    }
}

/// The payer's browser says it confirmed `setup`: read back and, when it is the schedule's and
/// succeeded, kept as its card on file. What the payer sees: saved or not.
pub async fn setup_confirmed_by_payer(
    state: &AppState,
    account: AccountId,
    billing: &Billing,
    setup: &str,
) -> Response {
    let (schedule, gateway) = match schedule_and_gateway(state, account, billing, false).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let (saved, message) = match on_file::keep_confirmed(&state.store, &gateway, account, schedule, setup).await {
        Ok(Kept::Saved) => (true, "Cartão salvo: as próximas cobranças serão pagas com ele."),
        Ok(Kept::NotConfirmed) => (false, "O cartão não foi salvo. Confira os dados ou use outro cartão."),
        Ok(Kept::Unknown) => return answer(StatusCode::NOT_FOUND, "Cadastro de cartão desconhecido"),
        Err(error) => return retry_later(format!("{error:#}")),
    };
    json_response(StatusCode::OK, &json!({"saved": saved, "message": message}))
}
