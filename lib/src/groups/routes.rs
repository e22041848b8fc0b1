//! `/v1/groups` (§4.6). PUT behaves as PATCH: omitted fields keep their values.

use axum::extract::State;
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use serde::Serialize;

use super::model::{Group, GroupChanges};
use super::service::GroupFilter;
use crate::editing::routes::{self as resource, Resource};
use crate::http::Tenant;
use crate::http::{response, ApiResult, Fields, Params};
use crate::state::AppState;
use crate::store::Store;
use crate::values::{AccountId, GroupContactType, GroupId, Timestamp};

/// A group as the API shows it.
#[derive(Serialize)]
pub struct GroupView {
    pub id: GroupId,
    pub contact_type: GroupContactType,
    pub description: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl From<Group> for GroupView {
    fn from(group: Group) -> Self {
        GroupView {
            id: group.id,
            contact_type: group.contact_type,
            description: group.description,
            created_at: group.created_at,
            updated_at: group.updated_at,
        }
    }
}

impl Resource for Group {
    const ENVELOPE: &'static str = "group";
    type View = GroupView;

    fn parse(fields: Fields<'_>, creating: bool) -> Result<GroupChanges, Vec<String>> {
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
    Ok(response::list("groups", &views, pagination, listed.total))
}
