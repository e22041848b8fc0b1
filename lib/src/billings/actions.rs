//! Cancel, pay-off and delete (§4.2, §3.1).

use std::collections::HashMap;

use axum::extract::{Path, State};
use axum::response::Response;
use rust_decimal::Decimal;
use serde_json::Value;

use super::compute::{self, Status};
use super::input::MAXIMUM_AMOUNT;
use super::links;
use super::model::Billing;
use super::routes::single;
use crate::app::AppState;
use crate::auth::Tenant;
use crate::billets::{lifecycle, BilletStatus};
use crate::http::routing::parse_id;
use crate::http::{response, ApiError, ApiResult, Fields, RequestBody};
use crate::money;
use crate::references::{BankAccount, SERVICE_ACCOUNT_TYPE};
use crate::store::item::{dec, n, opt_n, opt_s, s};
use crate::store::records::{self, Record};
use crate::store::{keys, retry_in_turn, Write};
use crate::time::{today, Timestamp};

pub const DISCHARGE_REASONS: [&str; 2] = ["bank_deposit", "payment_in_hand"];

fn refused(billing: &Billing, action: &str) -> ApiError {
    ApiError::validation(format!("Cobrança com status {} não pode ser {action}", billing.status.as_str()))
}

/// `POST /v1/billings/{id}/cancel` with `cancellation_reason` (3..1000 characters).
pub async fn cancel(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<String>,
    body: RequestBody,
) -> ApiResult<Response> {
    let account = tenant.account_id();
    let id = parse_id(&id)?;
    let fields = body.envelope("billing")?;
    let mut errors = Vec::new();
    let reason = fields.text("cancellation_reason", "Motivo do cancelamento", &mut errors).flatten();
    let reason = reason.map(|r| r.trim().to_owned()).unwrap_or_default();
    if !(3..=1000).contains(&reason.chars().count()) {
        errors.push("Motivo do cancelamento (cancellation_reason) deve ter de 3 a 1000 caracteres".to_owned());
    }
    let billing = retry_in_turn(records::key_of::<Billing>(account, id), || async {
        let current: Billing = records::find_or_404(&state.store, account, id).await?;
        if !errors.is_empty() {
            return Err(ApiError::Validation(errors.clone()));
        }
        if !current.status.accepts_cancel_or_pay_off() {
            return Err(refused(&current, "cancelada"));
        }
        let next = Billing {
            status: Status::Canceled,
            cancellation_reason: Some(reason.clone()),
            updated_at: Timestamp::now(),
            version: current.version + 1,
            ..current.clone()
        };
        let billet = lifecycle::current(&state.store, account, &current).await?;
        let also = lifecycle::close(account, billet.as_ref(), BilletStatus::Canceled)?;
        records::replace(&state.store, account, &current, &next, "", also).await?;
        Ok(next)
    })
    .await?;
    Ok(response::ok(&single(&state.store, account, &billing).await?))
}

fn pay_off_fields(fields: Fields<'_>) -> Result<(i64, String, Option<Decimal>), Vec<String>> {
    let mut errors = Vec::new();
    let bank_account = match fields.raw("bank_account_id") {
        Some(Value::Number(n)) => n.as_i64(),
        Some(Value::String(s)) => s.trim().parse().ok(),
        _ => None,
    };
    if bank_account.is_none() {
        errors.push("Conta bancária (bank_account_id) não pode ficar em branco".to_owned());
    }
    let reason = fields.text("discharge_reason", "Motivo da baixa", &mut errors).flatten().unwrap_or_default();
    if !DISCHARGE_REASONS.contains(&reason.trim()) {
        errors.push(
            "Motivo da baixa (discharge_reason) não está incluído na lista (bank_deposit, payment_in_hand)".to_owned(),
        );
    }
    let gross = match fields.raw("gw_gross_amount") {
        None | Some(Value::Null) => None,
        Some(value) => {
            let parsed = match value {
                Value::Number(n) => money::parse(&n.to_string()),
                Value::String(s) => money::parse(s),
                _ => None,
            };
            let maximum = MAXIMUM_AMOUNT.parse::<Decimal>().expect("constant");
            if parsed.is_none_or(|g| g <= Decimal::ZERO || g > maximum || g.normalize().scale() > 2) {
                errors.push(format!(
                    "Valor recebido (gw_gross_amount) deve ser um número positivo de até {MAXIMUM_AMOUNT}, com até 2 casas decimais"
                ));
            }
            parsed
        }
    };
    if errors.is_empty() {
        Ok((bank_account.unwrap_or_default(), reason.trim().to_owned(), gross))
    } else {
        Err(errors)
    }
}

/// `POST /v1/billings/{id}/pay_off`: settles manually, recording a cash entry on a bank account
/// of the account (not the service's own) that inherits the billing's category. Without
/// `gw_gross_amount`, the amount payable today is taken as received.
pub async fn pay_off(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<String>,
    body: RequestBody,
) -> ApiResult<Response> {
    let account = tenant.account_id();
    let id = parse_id(&id)?;
    let parsed = pay_off_fields(body.envelope("billing")?);
    let store = &state.store;
    let billing = retry_in_turn(records::key_of::<Billing>(account, id), || async {
        let current: Billing = records::find_or_404(store, account, id).await?;
        let (bank_account_id, reason, gross) = parsed.clone().map_err(ApiError::Validation)?;
        let bank_account = records::find::<BankAccount>(store, account, bank_account_id).await?;
        match bank_account {
            None => return Err(ApiError::validation("Conta bancária não encontrada")),
            Some(a) if a.account_type == SERVICE_ACCOUNT_TYPE => {
                return Err(ApiError::validation("Conta bancária do próprio serviço não pode receber baixa manual"))
            }
            Some(_) => {}
        }
        if !current.status.accepts_cancel_or_pay_off() {
            return Err(refused(&current, "baixada"));
        }
        let today = today();
        let received = gross.unwrap_or_else(|| compute::compute(&current.terms(), today).amount_payable);
        let mut next = Billing {
            status: Status::Discharged,
            discharge_reason: Some(reason.clone()),
            updated_at: Timestamp::now(),
            version: current.version + 1,
            ..current.clone()
        };
        next.gw.gross_amount = received;
        next.gw.payment_date = Some(today);
        next.gw.received_with = Some(reason.clone());
        let entry_id = store.next_id(keys::account(account), keys::sequence("CASHENTRY")).await?;
        let entry = HashMap::from([
            ("pk".to_owned(), s(keys::account(account))),
            ("sk".to_owned(), s(keys::record("CASHENTRY", entry_id))),
            ("kind".to_owned(), s("cash_entry")),
            ("id".to_owned(), n(entry_id)),
            ("bank_account_id".to_owned(), n(bank_account_id)),
            ("billing_id".to_owned(), n(current.id)),
            ("contact_id".to_owned(), opt_n(current.contact_id)),
            ("bill_category_id".to_owned(), opt_n(current.bill_category_id)),
            ("amount".to_owned(), dec(received)),
            ("entry_date".to_owned(), s(today.to_string())),
            ("discharge_reason".to_owned(), opt_s(Some(reason.clone()))),
            ("created_at".to_owned(), s(Timestamp::now().to_string())),
        ]);
        let billet = lifecycle::current(store, account, &current).await?;
        let mut also = vec![
            Write::put_if(entry, crate::store::Condition::absent()),
            Write::check_exists(keys::account(account), keys::record(BankAccount::KIND, bank_account_id)),
        ];
        also.extend(lifecycle::close(account, billet.as_ref(), BilletStatus::Discharged)?);
        records::replace(store, account, &current, &next, "", also).await?;
        Ok(next)
    })
    .await?;
    Ok(response::ok(&single(store, account, &billing).await?))
}

/// `DELETE /v1/billings/{id}`: only legacy `schedule` records; a billing from the API can only be
/// cancelled (422).
pub async fn destroy(State(state): State<AppState>, tenant: Tenant, Path(id): Path<String>) -> ApiResult<Response> {
    let account = tenant.account_id();
    let id = parse_id(&id)?;
    retry_in_turn(records::key_of::<Billing>(account, id), || async {
        let current: Billing = records::find_or_404(&state.store, account, id).await?;
        if current.billing_type != "schedule" {
            return Err(ApiError::validation(
                "Somente cobranças recorrentes (schedule) podem ser excluídas; cancele a cobrança",
            ));
        }
        let mut also = links::reference_writes(account, Some(&current), None);
        also.extend(links::removed(account, &current));
        records::remove(&state.store, account, &current, also).await
    })
    .await?;
    Ok(response::no_content())
}
