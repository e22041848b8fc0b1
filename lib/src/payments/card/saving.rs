//! The payer page's card saving (`/pay/<token>/cartao/salvar`, mounted by `payer_page`): a
//! SetupIntent of the billing's schedule opened for the page's script, and the setup the browser
//! confirmed read back from the gateway and kept as the schedule's card on file (`on_file`).

use axum::response::Response;
use http::StatusCode;
use serde_json::json;

use super::on_file::{keep, SavedCard};
use super::routes::{answer, gateway_of, retry_later};
use crate::billings::model::Billing;
use crate::http::response::json_response;
use crate::state::AppState;
use crate::store::records;
use crate::values::{today, AccountId, BillingId, BillingType, Timestamp};

const NOT_RECURRING: &str = "Esta cobrança não é de uma assinatura: não há cartão a salvar";

/// The live schedule a billing is a cycle of, if it is one.
pub async fn schedule_of(
    state: &AppState,
    account: AccountId,
    billing: &Billing,
) -> Result<Option<BillingId>, Response> {
    let Some(parent) = billing.parent_id.filter(|_| billing.billing_type == BillingType::Billing) else {
        return Ok(None);
    };
    match records::find::<Billing>(&state.store, account, parent).await {
        Ok(Some(schedule)) if schedule.billing_type == BillingType::Schedule => Ok(Some(schedule.id)),
        Ok(_) => Ok(None),
        Err(error) => Err(retry_later(error)),
    }
}

/// What the saving page's script gets: the SetupIntent's client secret and the publishable key
/// (one intent per billing and day); or why not (404, in the payer's words), or 503.
pub async fn open_setup_for_payer(state: &AppState, account: AccountId, billing: &Billing) -> Response {
    let schedule = match schedule_of(state, account, billing).await {
        Ok(Some(schedule)) => schedule,
        Ok(None) => return answer(StatusCode::NOT_FOUND, NOT_RECURRING),
        Err(response) => return response,
    };
    let (_, gateway) = match gateway_of(state, account, true, "Cartão indisponível").await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let service = super::service(&state.store);
    let key = format!("{service}-setup-{schedule}-{}-{}", billing.id, today());
    match gateway.save_card(account, schedule, &service, &key).await {
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

/// The payer's browser says it confirmed `setup`: read back from the gateway; a setup of this
/// schedule that succeeded becomes its card on file.
pub async fn setup_confirmed_by_payer(
    state: &AppState,
    account: AccountId,
    billing: &Billing,
    setup: &str,
) -> Response {
    let schedule = match schedule_of(state, account, billing).await {
        Ok(Some(schedule)) => schedule,
        Ok(None) => return answer(StatusCode::NOT_FOUND, NOT_RECURRING),
        Err(response) => return response,
    };
    let (_, gateway) = match gateway_of(state, account, false, "Cartão indisponível").await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let read = match gateway.setup(setup).await {
        Ok(Some(read))
            if read.account == Some(account)
                && read.schedule == Some(schedule)
                && read.service == super::service(&state.store) =>
        {
            read
        }
        Ok(_) => return answer(StatusCode::NOT_FOUND, "Cadastro de cartão desconhecido"),
        Err(error) => return retry_later(error),
    };
    let (Some(customer), Some(payment_method)) = (read.customer.clone(), read.payment_method.clone()) else {
        return saved_answer(false, "O cartão não foi salvo. Confira os dados ou use outro cartão.");
    };
    if read.status != "succeeded" {
        return saved_answer(false, "O cartão não foi confirmado pelo banco emissor. Tente outro cartão.");
    }
    let card = SavedCard {
        account_id: account,
        schedule_id: schedule,
        customer,
        payment_method,
        setup_intent: read.id,
        saved_at: Timestamp::now(),
    };
    let written = match keep(&card) {
        Ok(write) => state.store.write(vec![write]).await,
        Err(error) => Err(error),
    };
    match written {
        Ok(()) => saved_answer(true, "Cartão salvo: as próximas cobranças serão pagas com ele."),
        Err(error) => retry_later(error),
    }
}

fn saved_answer(saved: bool, message: &str) -> Response {
    json_response(StatusCode::OK, &json!({"saved": saved, "message": message}))
}
