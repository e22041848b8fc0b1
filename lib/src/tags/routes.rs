//! `/v1/tags` (§4.5). Delete is refused while billings use the tag; contact links go with it (they
//! arrive with contacts).

use axum::extract::{RawQuery, State};
use axum::response::Response;
use axum::routing::get;
use axum::Router;

use super::{Tag, TagChanges};
use serde_json::Value;

use crate::accounts::AccountId;
use crate::app::AppState;
use crate::auth::Tenant;
use crate::http::resource::{self, Resource};
use crate::http::{response, ApiResult, Fields, Params};
use crate::store::{records, Store};
use crate::text::{contains_ignoring_case, sort_key};

impl Resource for Tag {
    const ENVELOPE: &'static str = "tag";

    fn parse(fields: Fields<'_>, creating: bool) -> Result<TagChanges, Vec<String>> {
        TagChanges::parse(fields, creating)
    }

    async fn represent(_store: &Store, _account: AccountId, records: Vec<Self>) -> ApiResult<Vec<Value>> {
        Ok(resource::as_json(&records))
    }
}

pub fn router() -> Router<AppState> {
    Router::new().route("/v1/tags", get(list).post(resource::create::<Tag>)).route(
        "/v1/tags/{id}",
        get(resource::show::<Tag>).patch(resource::update::<Tag>).delete(resource::destroy::<Tag>),
    )
}

/// Ordered by name (ignoring case and accents), then id; `s` is a case-insensitive substring.
async fn list(State(state): State<AppState>, tenant: Tenant, RawQuery(query): RawQuery) -> ApiResult<Response> {
    let params = Params::parse(query.as_deref());
    let pagination = params.pagination();
    let search = params.get("s");
    let listed = records::list::<Tag, _, _, _>(
        &state.store,
        tenant.account_id(),
        None,
        |entry| search.is_none_or(|s| contains_ignoring_case(entry.text("name").unwrap_or_default(), s)),
        |entry| sort_key(entry.text("name").unwrap_or_default()),
        pagination,
    )
    .await?;
    Ok(response::list("tags", &listed.records, pagination, listed.total))
}
