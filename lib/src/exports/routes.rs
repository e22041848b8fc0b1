//! `POST /v1/exports` and `GET /v1/exports/{id}` (beyond the spec).

use std::collections::BTreeMap;

use axum::extract::State;
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use serde::Serialize;

use super::{Export, Kind, Status};
use crate::http::{response, ApiError, ApiResult, Path, RequestBody, Tenant};
use crate::refusal::Problem;
use crate::state::AppState;
use crate::values::Timestamp;

pub fn router() -> Router<AppState> {
    Router::new().route("/v1/exports", post(create)).route("/v1/exports/{id}", get(show))
}

/// An export as the API shows it: its progress, and once done a link to the file.
#[derive(Clone, Debug, Serialize)]
pub struct ExportView {
    pub id: String,
    pub kind: Kind,
    pub format: &'static str,
    pub status: Status,
    pub filters: BTreeMap<String, String>,
    pub rows_total: Option<i64>,
    pub rows_done: i64,
    pub parts_done: usize,
    /// A signed link to the file, for [`super::LINK_SECONDS`] from this answer (none before done).
    pub url: Option<String>,
    pub url_expires_at: Option<Timestamp>,
    pub error: Option<String>,
    pub created_at: Timestamp,
    pub finished_at: Option<Timestamp>,
}

impl ExportView {
    pub fn new(export: &Export, url: Option<(String, Timestamp)>) -> Self {
        let (url, url_expires_at) = url.map_or((None, None), |(url, at)| (Some(url), Some(at)));
        ExportView {
            id: export.id.clone(),
            kind: export.kind,
            format: "csv",
            status: export.status,
            filters: export.filters.clone(),
            rows_total: export.rows_total,
            rows_done: export.rows_done,
            parts_done: export.parts.len(),
            url,
            url_expires_at,
            error: export.error.clone(),
            created_at: export.created_at,
            finished_at: export.finished_at,
        }
    }
}

/// What the body asks: `{"export": {"kind": "payments", "format"?: "csv", "filters"?: {…}}}`.
fn asked(body: &RequestBody) -> ApiResult<(Kind, BTreeMap<String, String>)> {
    let fields = body.envelope("export")?;
    let mut errors = Vec::new();
    let kind = match fields.raw("kind").and_then(|v| v.as_str()).map(str::trim) {
        Some("payments") => Some(Kind::Payments),
        Some("billings") => Some(Kind::Billings),
        _ => {
            errors.push(Problem::invalid("export.kind", "kind deve ser billings ou payments"));
            None
        }
    };
    match fields.raw("format").map(|v| v.as_str().map(str::trim)) {
        None | Some(Some("csv")) => {}
        _ => errors.push(Problem::invalid("export.format", "format: csv é o único formato oferecido")),
    }
    let mut filters = BTreeMap::new();
    match fields.raw("filters") {
        None | Some(serde_json::Value::Null) => {}
        Some(serde_json::Value::Object(map)) if map.len() <= 10 => {
            for (name, value) in map {
                let text = match value {
                    serde_json::Value::String(text) => Some(text.trim().to_owned()),
                    serde_json::Value::Number(n) => Some(n.to_string()),
                    _ => None,
                };
                match text.filter(|t| !t.is_empty() && t.len() <= 100) {
                    Some(text) => drop(filters.insert(name.clone(), text)),
                    None => errors.push(Problem::invalid(
                        format!("export.filters.{name}"),
                        format!("{name}: um texto ou número"),
                    )),
                }
            }
        }
        Some(_) => {
            errors.push(Problem::invalid("export.filters", "filters deve ser um objeto com os filtros da lista"))
        }
    }
    match (kind, errors.is_empty()) {
        (Some(kind), true) => Ok((kind, filters)),
        _ => Err(ApiError::Validation(errors)),
    }
}

/// `202` with the export queued; its progress at `GET /v1/exports/{id}`.
async fn create(State(state): State<AppState>, tenant: Tenant, body: RequestBody) -> ApiResult<Response> {
    let (kind, filters) = asked(&body)?;
    let export = super::create(&state.store, tenant.account_id(), kind, filters).await?;
    let mut answer = response::json_response(http::StatusCode::ACCEPTED, &ExportView::new(&export, None));
    if let Ok(location) = http::HeaderValue::try_from(format!("/v1/exports/{}", export.id)) {
        answer.headers_mut().insert(http::header::LOCATION, location);
    }
    Ok(answer)
}

async fn show(State(state): State<AppState>, tenant: Tenant, Path(id): Path<String>) -> ApiResult<Response> {
    let export = super::find(&state.store, tenant.account_id(), &id).await?.ok_or(ApiError::NotFound)?;
    let url = match export.status {
        Status::Done => Some(super::link(&crate::files::shared().await, &export).await?),
        _ => None,
    };
    Ok(response::ok(&ExportView::new(&export, url)))
}
