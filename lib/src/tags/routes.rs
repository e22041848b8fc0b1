//! `/v1/tags` (§4.5): the routes, and the `Resource` impl through which the shared editing routes
//! parse, show and delete a tag.

use axum::extract::State;
use axum::response::Response;
use axum::routing::get;
use axum::Router;

use super::input::TagChanges;
use super::model::Tag;
use super::view::TagView;
use crate::editing::routes::{self as resource, Resource};
use crate::http::Tenant;
use crate::http::{response, ApiResult, Fields, Params};
use crate::state::AppState;
use crate::store::Store;
use crate::values::{AccountId, TagId};

impl Resource for Tag {
    const ENVELOPE: &'static str = "tag";
    type View = TagView;

    fn parse(fields: Fields<'_>, creating: bool) -> Result<TagChanges, Vec<crate::refusal::Problem>> {
        TagChanges::parse(fields, creating)
    }

    async fn represent(_store: &Store, _account: AccountId, records: Vec<Self>) -> ApiResult<Vec<TagView>> {
        Ok(records.into_iter().map(TagView::from).collect())
    }

    async fn delete(state: &AppState, account: AccountId, id: TagId) -> ApiResult<()> {
        Ok(super::service::delete(&state.store, account, id).await?)
    }
}

pub fn router() -> Router<AppState> {
    Router::new().route("/v1/tags", get(list).post(resource::create::<Tag>)).route(
        "/v1/tags/{id}",
        get(resource::show::<Tag>).patch(resource::update::<Tag>).delete(resource::destroy::<Tag>),
    )
}

async fn list(State(state): State<AppState>, tenant: Tenant, params: Params) -> ApiResult<Response> {
    let pagination = params.pagination();
    let listed = super::service::list(&state.store, tenant.account_id(), params.get("s"), pagination.window()).await?;
    let views: Vec<TagView> = listed.records.into_iter().map(TagView::from).collect();
    Ok(response::partial_search(response::list("tags", &views, pagination, listed.total), listed.partial))
}
