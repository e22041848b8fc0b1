//! `/v1/groups` (§4.6): the routes, and the `Resource` impl through which the shared editing
//! routes parse, show and delete a group. PUT behaves as PATCH: omitted fields keep their values.

use axum::extract::State;
use axum::response::Response;
use axum::routing::get;
use axum::Router;

use super::input::GroupChanges;
use super::model::Group;
use super::service::GroupFilter;
use super::view::GroupView;
use crate::editing::routes::{self as resource, Resource};
use crate::http::Tenant;
use crate::http::{response, ApiResult, Fields, Params};
use crate::state::AppState;
use crate::store::Store;
use crate::values::{AccountId, GroupContactType, GroupId};

impl Resource for Group {
    const ENVELOPE: &'static str = "group";
    type View = GroupView;

    fn parse(fields: Fields<'_>, creating: bool) -> Result<GroupChanges, Vec<crate::refusal::Problem>> {
        GroupChanges::parse(fields, creating)
    }

    async fn represent(_store: &Store, _account: AccountId, records: Vec<Self>) -> ApiResult<Vec<GroupView>> {
        Ok(records.into_iter().map(GroupView::from).collect())
    }

    async fn delete(state: &AppState, account: AccountId, id: GroupId) -> ApiResult<()> {
        Ok(super::service::delete(&state.store, account, id).await?)
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

/// `contact_type` is exact (another value matches nothing); `s` is a case-insensitive substring of
/// the description.
async fn list(State(state): State<AppState>, tenant: Tenant, params: Params) -> ApiResult<Response> {
    let pagination = params.pagination();
    let kind = params.get("contact_type");
    let filter = GroupFilter {
        contact_type: kind.and_then(GroupContactType::parse),
        impossible: kind.is_some_and(|k| GroupContactType::parse(k).is_none())
            || params.get("s").is_some_and(crate::values::text::beyond_search),
        search: params.get("s"),
    };
    let listed = super::service::list(&state.store, tenant.account_id(), &filter, pagination.window()).await?;
    let views: Vec<GroupView> = listed.records.into_iter().map(GroupView::from).collect();
    Ok(response::partial_search(response::list("groups", &views, pagination, listed.total), listed.partial))
}
