//! `/v1/schedules` (beyond the spec, additive): a schedule made through the API, and its
//! recurrence changed. The record is the spec's `billing_type: schedule` billing: read, listed,
//! edited (its terms) and deleted through `/v1/billings`; its cycles' billings are listed by
//! `GET /v1/billings?billing_id=<schedule>`. Parse → the billing workflow → represent.

use axum::extract::State;
use axum::response::Response;
use axum::routing::{patch, post};
use axum::Router;
use serde_json::Value;

use super::input;
use crate::billings::input::Draft;
use crate::billings::model::Billing;
use crate::billings::service::{self, Ruled};
use crate::billings::view::BillingView;
use crate::http::Tenant;
use crate::http::{response, ApiError, ApiResult, Path, RequestBody};
use crate::refusal::{Code, Problem, Refusal};
use crate::state::AppState;
use crate::values::{today, BillingId, BillingType, IssueType};

pub fn router() -> Router<AppState> {
    Router::new().route("/v1/schedules", post(create)).route("/v1/schedules/{id}", patch(update))
}

/// `201` with the schedule's single representation. The body's `schedule` holds a billing's
/// fields (its terms; `due_date` is left to the calendar) and the recurrence's (`input`); every
/// problem of either is told at once.
async fn create(State(state): State<AppState>, tenant: Tenant, body: RequestBody) -> ApiResult<Response> {
    let account = tenant.account_id();
    let today = today();
    let fields = body.envelope("schedule")?;
    let recurrence = input::new_recurrence(fields, today);
    // The terms as a billing due on the first cycle's date (or today, to tell their problems
    // beside the calendar's).
    let first_due = recurrence.as_ref().ok().and_then(|r| r.next()).map_or(today, |c| c.due);
    let mut terms = body.0.get("schedule").and_then(Value::as_object).cloned().unwrap_or_default();
    terms.insert("due_date".into(), Value::String(first_due.to_string()));
    let draft = Draft::parse(crate::http::Fields::new(&terms));
    let (recurrence, draft) = match (recurrence, draft) {
        (Ok(recurrence), Ok(draft)) => (recurrence, draft),
        (recurrence, draft) => {
            // The due date is the first cycle's: a problem with it is the start's (or, when the
            // calendar is refused too, the stand-in date's, left out).
            let calendar_refused = recurrence.is_err();
            let mut problems = recurrence.err().unwrap_or_default();
            for mut problem in draft.err().unwrap_or_default() {
                if problem.field.as_deref() == Some("due_date") {
                    if calendar_refused {
                        continue;
                    }
                    problem.field = Some("start_date".to_owned());
                }
                problems.push(problem);
            }
            return Err(ApiError::Validation(problems));
        }
    };
    if draft.issue_type == IssueType::Bulk {
        let message = "Uma recorrência cobra um contato (contact_id); recorrências por tag ainda não existem";
        return Err(ApiError::validation(Problem::invalid("tag_id", message)));
    }
    let draft = service::apply_modules(draft, tenant.0.health_module)?;
    let store = &state.store;
    let (schedule, embedded) = service::create_schedule(store, account, &draft, recurrence).await?;
    // A first cycle whose issue day has come is billed at once (the daily run would find it only
    // tomorrow, when a cycle due today is past); if that fails, the runs take it as any other.
    if recurrence.next().is_some_and(|cycle| cycle.issue_day <= today) {
        if let Ok(service::Issued::Billing { .. }) = service::issue_cycle(store, account, schedule.id, today).await {
            let (billed, _) = service::shown(store, account, schedule.id).await?;
            return Ok(response::created(&BillingView::new(&billed, &embedded.related(), today)));
        }
    }
    Ok(response::created(&BillingView::new(&schedule, &embedded.related(), today)))
}

/// `200` with the schedule's single representation, its recurrence changed from the next cycle
/// not yet issued (cycles issued keep their billings). `404` for another account's record, `422`
/// for a record that is no schedule made through the API.
async fn update(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<BillingId>,
    body: RequestBody,
) -> ApiResult<Response> {
    let account = tenant.account_id();
    let fields = body.envelope("schedule")?;
    let today = today();
    let (schedule, (), embedded) = service::change_shown(&state.store, account, id, |current, _| async move {
        let recurrence = match current.recurrence {
            Some(recurrence) if current.billing_type == BillingType::Schedule => recurrence,
            _ => {
                let message = "Somente recorrências criadas por POST /v1/schedules têm calendário";
                return Err(Refusal::invalid(Problem::general(Code::NotAllowed, message)));
            }
        };
        let (calendar, lead) = input::edited(fields, &recurrence).map_err(Refusal::Invalid)?;
        let recurrence = recurrence.with_calendar(calendar, lead, today);
        if Some(recurrence) == current.recurrence {
            return Ok(Ruled::Unchanged(()));
        }
        let due_date = recurrence.next().map_or(current.due_date, |next| next.due);
        let next =
            Billing { recurrence: Some(recurrence), due_date, updated_at: crate::values::Timestamp::now(), ..current };
        Ok(Ruled::Changed { next, billet: None, also: Vec::new(), announce: false, then: () })
    })
    .await?;
    Ok(response::ok(&BillingView::new(&schedule, &embedded.related(), today)))
}
