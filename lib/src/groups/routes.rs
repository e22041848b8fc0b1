//! `/v1/groups` (§4.6). PUT behaves as PATCH: omitted fields keep their values. Delete is refused
//! while billings depend on the group; contacts pointing to it are released when contacts arrive.

use axum::extract::{RawQuery, State};
use axum::response::Response;
use axum::routing::get;
use axum::Router;

use super::{index_prefix, Group, GroupChanges, CONTACT_TYPES};
use serde_json::Value;

use crate::accounts::AccountId;
use crate::app::AppState;
use crate::auth::Tenant;
use crate::http::resource::{self, Resource};
use crate::http::{response, ApiResult, Fields, Params};
use crate::store::{records, Store};
use crate::text::{contains_ignoring_case, sort_key};

impl Resource for Group {
    const ENVELOPE: &'static str = "group";

    fn parse(fields: Fields<'_>, creating: bool) -> Result<GroupChanges, Vec<String>> {
        GroupChanges::parse(fields, creating)
    }

    async fn represent(_store: &Store, _account: AccountId, records: Vec<Self>) -> ApiResult<Vec<Value>> {
        Ok(resource::as_json(&records))
    }
}

pub fn router() -> Router<AppState> {
    Router::new().route("/v1/groups", get(list).post(resource::create::<Group>)).route(
        "/v1/groups/{id}",
        get(resource::show::<Group>)
            .patch(resource::update::<Group>)
            .put(resource::update::<Group>)
            .delete(resource::destroy::<Group>),
    )
}

/// Ordered by contact type, then description (ignoring case and accents), then id. `contact_type`
/// is exact (another value matches nothing); `s` is a case-insensitive substring of the description.
async fn list(State(state): State<AppState>, tenant: Tenant, RawQuery(query): RawQuery) -> ApiResult<Response> {
    let params = Params::parse(query.as_deref());
    let pagination = params.pagination();
    let search = params.get("s");
    // The prefix only narrows the read; a value that is not a contact type matches nothing, even
    // one that carries the index separator.
    let kind = params.get("contact_type");
    let impossible = kind.is_some_and(|k| !CONTACT_TYPES.contains(&k));
    let prefix = kind.map(index_prefix);
    let listed = records::list::<Group, _, _, _>(
        &state.store,
        tenant.account_id(),
        prefix.as_deref(),
        |entry| {
            !impossible
                && search.is_none_or(|s| contains_ignoring_case(entry.text("description").unwrap_or_default(), s))
        },
        |entry| {
            let kind = entry.text("contact_type").unwrap_or_default().to_owned();
            (kind, sort_key(entry.text("description").unwrap_or_default()))
        },
        pagination,
    )
    .await?;
    Ok(response::list("groups", &listed.records, pagination, listed.total))
}
