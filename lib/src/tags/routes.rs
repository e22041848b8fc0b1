//! `/v1/tags` (§4.5).

use axum::extract::State;
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use serde::Serialize;

use super::model::{Tag, TagChanges};
use crate::editing::routes::{self as resource, Resource};
use crate::http::Tenant;
use crate::http::{response, ApiResult, Fields, Params};
use crate::state::AppState;
use crate::store::Store;
use crate::values::{AccountId, TagColor, TagId, Timestamp};

/// A tag as the API shows it.
#[derive(Serialize)]
pub struct TagView {
    pub id: TagId,
    pub name: String,
    pub color: TagColor,
    pub allows_on_account: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl From<Tag> for TagView {
    fn from(tag: Tag) -> Self {
        TagView {
            id: tag.id,
            name: tag.name,
            color: tag.color,
            allows_on_account: tag.allows_on_account,
            created_at: tag.created_at,
            updated_at: tag.updated_at,
        }
    }
}

impl Resource for Tag {
    const ENVELOPE: &'static str = "tag";
    type View = TagView;

    fn parse(fields: Fields<'_>, creating: bool) -> Result<TagChanges, Vec<String>> {
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
    Ok(response::list("tags", &views, pagination, listed.total))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::editing::Editable;

    #[test]
    fn representation_has_the_spec_fields() {
        let changes = TagChanges { name: Some("VIP".into()), ..TagChanges::default() };
        let tag = Tag::create(TagId::new(3), &changes, Timestamp::now()).unwrap();
        let v = serde_json::to_value(TagView::from(tag)).unwrap();
        let mut keys: Vec<_> = v.as_object().unwrap().keys().cloned().collect();
        keys.sort();
        assert_eq!(keys, ["allows_on_account", "color", "created_at", "id", "name", "updated_at"]);
    }
}
