//! The ledger over the API (beyond the spec): `GET /v1/payments` (newest first, a cursor list:
//! `per_page`, `cursor`, `X-Next-Cursor`, filters `paid_from`/`paid_to` or
//! `credited_from`/`credited_to`, `channel`, `status`), `GET /v1/payments/{id}`,
//! `POST /v1/payments/{id}/refund` (`refunds`) and `GET /v1/statements/{date}` (`statement`).

use axum::extract::State;
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use base64::Engine as _;
use chrono::NaiveDate;

use super::ledger::{entry_of, read_payment_id};
use super::refunds::{self, Asked};
use super::rows::{self, Order, Query};
use super::view::PaymentView;
use crate::http::fields::Sent;
use crate::http::{response, ApiError, ApiResult, Params, Path, RequestBody, Tenant};
use crate::refusal::Problem;
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/payments", get(list))
        .route("/v1/payments/{id}", get(show))
        .route("/v1/payments/{id}/refund", post(refund))
        .route("/v1/statements/{date}", get(statement))
}

const MSG_BAD_CURSOR: &str = "cursor inválido (use o X-Next-Cursor da página anterior, com os mesmos filtros)";

fn cursor_of(sk: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sk)
}

/// The sort key a cursor names, when it is one of a list in `order`.
fn read_cursor(cursor: &str, order: Order) -> Option<String> {
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(cursor.trim()).ok()?;
    let sk = String::from_utf8(bytes).ok()?;
    let shaped = crate::store::keys::payment::is_payment_row(&sk, order == Order::Credited);
    shaped.then_some(sk)
}

/// What the list's query string asks, or every problem with it.
fn query_of(params: &Params) -> Result<Query, Vec<Problem>> {
    let asked = rows::asked(|name| params.get(name), str::to_owned);
    let mut errors = asked.as_ref().err().cloned().unwrap_or_default();
    let pagination = params.pagination();
    if pagination.page > 1 {
        errors.push(Problem::invalid("page", "Esta lista é paginada por cursor: use cursor (X-Next-Cursor)"));
    }
    let credited = asked.as_ref().is_ok_and(|a| a.partition.order == Order::Credited)
        || params.get("credited_from").is_some()
        || params.get("credited_to").is_some();
    let order = if credited { Order::Credited } else { Order::Paid };
    let after = params.get("cursor").and_then(|cursor| {
        let sk = read_cursor(cursor, order);
        if sk.is_none() {
            errors.push(Problem::invalid("cursor", MSG_BAD_CURSOR));
        }
        sk
    });
    match asked {
        Ok(rows::Asked { partition, from, to }) if errors.is_empty() => {
            Ok(Query { partition, from, to, after, limit: pagination.per_page })
        }
        _ => Err(errors),
    }
}

async fn list(State(state): State<AppState>, tenant: Tenant, params: Params) -> ApiResult<Response> {
    let query = query_of(&params).map_err(ApiError::Validation)?;
    let listed = rows::list(&state.store, tenant.account_id(), &query).await?;
    let views: Vec<PaymentView> = listed.payments.iter().map(PaymentView::new).collect();
    let next = listed.next.map(|sk| params.next_page(&cursor_of(&sk)));
    Ok(response::cursor_list("payments", &views, params.pagination(), next))
}

async fn show(State(state): State<AppState>, tenant: Tenant, Path(id): Path<String>) -> ApiResult<Response> {
    let (channel, provider_id) = read_payment_id(&id).ok_or(ApiError::NotFound)?;
    let entry = entry_of(&state.store, tenant.account_id(), channel, &provider_id).await?;
    Ok(response::ok(&PaymentView::new(&entry.ok_or(ApiError::NotFound)?)))
}

/// `201` with the payment as the refund leaves it. The body is optional: `{"refund": {"amount":
/// "10.00", "reason": "…"}}`; without an amount, all that is left.
async fn refund(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<String>,
    body: RequestBody,
) -> ApiResult<Response> {
    let mut asked = Asked { amount: None, reason: String::new(), by: "api" };
    if body.0.get("refund").is_some() {
        let fields = body.envelope("refund")?;
        let mut errors = Vec::new();
        match fields.decimal("amount") {
            Sent::Given(amount) => asked.amount = Some(amount.into()),
            Sent::Omitted | Sent::Empty => {}
            _ => errors.push(Problem::invalid("refund.amount", "amount deve ser um valor decimal, como \"10.50\"")),
        }
        if let Some(Some(reason)) = fields.text("reason", "reason", &mut errors) {
            asked.reason = reason;
        }
        if !errors.is_empty() {
            return Err(ApiError::Validation(errors));
        }
    }
    let entry = refunds::refund(&state.store, tenant.account_id(), &id, asked).await?;
    Ok(response::created(&PaymentView::new(&entry)))
}

async fn statement(State(state): State<AppState>, tenant: Tenant, Path(date): Path<String>) -> ApiResult<Response> {
    let Ok(day) = date.trim().parse::<NaiveDate>() else {
        return Err(ApiError::validation(Problem::invalid("date", "date inválida (use AAAA-MM-DD)")));
    };
    Ok(response::ok(&super::statement::of_day(&state.store, tenant.account_id(), day).await?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payments::{Channel, Status};

    fn params(query: &str) -> Params {
        Params::parse(Some(query)).unwrap()
    }

    #[test]
    fn a_query_names_one_partition_and_its_days() {
        let query = query_of(&params("channel=pix&status=refunded&paid_from=2026-11-01&per_page=10")).unwrap();
        assert_eq!(query.partition.order, Order::Paid);
        assert_eq!((query.partition.channel, query.partition.status), (Some(Channel::Pix), Some(Status::Refunded)));
        assert_eq!((query.from.map(|d| d.to_string()), query.to, query.limit), (Some("2026-11-01".into()), None, 10));
        let credited = query_of(&params("credited_to=2026-11-30")).unwrap();
        assert_eq!(credited.partition.order, Order::Credited);
    }

    #[test]
    fn bad_filters_are_each_named() {
        let errors =
            query_of(&params("channel=boleto&status=x&paid_from=ontem&credited_to=2026-01-01&cursor=zz&page=2"))
                .unwrap_err();
        let fields: Vec<&str> = errors.iter().map(|p| p.field.as_deref().unwrap_or_default()).collect();
        assert_eq!(fields, ["paid_from", "channel", "status", "page", "cursor"]);
    }

    #[test]
    fn a_cursor_is_a_sort_key_of_its_order() {
        let sk = "2026-11-02#1764000000000#0123456789abcdef";
        assert_eq!(read_cursor(&cursor_of(sk), Order::Paid).as_deref(), Some(sk));
        assert_eq!(read_cursor(&cursor_of(sk), Order::Credited), None);
        let credited = format!("2026-12-02#{sk}");
        assert_eq!(read_cursor(&cursor_of(&credited), Order::Credited), Some(credited));
    }
}
