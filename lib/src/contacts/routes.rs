//! `/v1/contacts` (§4.4).

use axum::extract::State;
use axum::response::Response;
use axum::routing::get;
use axum::Router;

use super::input::ContactChanges;
use super::list::{ContactFilter, Search};
use super::model::Contact;
use super::view::{represent, ContactView};
use crate::editing::routes::{self as resource, Resource};
use crate::http::Tenant;
use crate::http::{response, ApiResult, Fields, Params};
use crate::state::AppState;
use crate::store::Store;
use crate::values::ids::parse_positive;
use crate::values::{AccountId, ContactId, ContactType, GroupId, TagId};

impl Resource for Contact {
    const ENVELOPE: &'static str = "contact";
    type View = ContactView;

    fn parse(fields: Fields<'_>, _creating: bool) -> Result<ContactChanges, Vec<crate::refusal::Problem>> {
        Ok(ContactChanges::new(fields))
    }

    async fn represent(store: &Store, account: AccountId, records: Vec<Self>) -> ApiResult<Vec<ContactView>> {
        Ok(represent(store, account, &records).await?)
    }

    async fn delete(state: &AppState, account: AccountId, id: ContactId) -> ApiResult<()> {
        Ok(crate::editing::delete::<Contact>(&state.store, account, id, Vec::new()).await?)
    }
}

pub fn router() -> Router<AppState> {
    Router::new().route("/v1/contacts", get(list).post(resource::create::<Contact>)).route(
        "/v1/contacts/{id}",
        get(resource::show::<Contact>).patch(resource::update::<Contact>).delete(resource::destroy::<Contact>),
    )
}

/// The list filters of §4.4 from the query: `contact_type` other than `customer`/`supplier`,
/// non-numeric `group_id`/`tag_id` and `active` other than `true/false/1/0` match nothing;
/// `group_id=0` is "no group"; `filter` picks what `s` searches.
fn filter_of(params: &Params) -> ContactFilter {
    let mut f = ContactFilter::default();
    if let Some(kind) = params.get("contact_type") {
        f.contact_type = ContactType::parse(kind.trim());
        f.impossible |= f.contact_type.is_none();
    }
    if let Some(group) = params.get("group_id") {
        match group.trim().parse::<i64>() {
            Ok(0) => f.group_id = Some(None),
            _ => match group.parse::<GroupId>() {
                Ok(id) => f.group_id = Some(Some(id)),
                Err(_) => f.impossible = true,
            },
        }
    }
    if let Some(tag) = params.get("tag_id") {
        match parse_positive(tag) {
            Ok(id) => f.tag_id = Some(TagId::new(id)),
            Err(_) => f.impossible = true,
        }
    }
    if let Some(active) = params.get("active") {
        match active.trim().to_ascii_lowercase().as_str() {
            "true" | "1" => f.active = Some(true),
            "false" | "0" => f.active = Some(false),
            _ => f.impossible = true,
        }
    }
    if let Some(term) = params.get("s") {
        let term = term.trim().to_owned();
        f.impossible |= crate::values::text::beyond_search(&term);
        f.search = Some(match params.get("filter").unwrap_or("contact") {
            "document" => Search::Document(term.chars().filter(char::is_ascii_digit).collect()),
            "email" => Search::EmailPrefix(term.to_lowercase()),
            "code" => Search::Code(term),
            _ => Search::Description(term),
        });
    }
    f
}

async fn list(State(state): State<AppState>, tenant: Tenant, params: Params) -> ApiResult<Response> {
    let pagination = params.pagination();
    let account = tenant.account_id();
    let listed = super::list::list(&state.store, account, &filter_of(&params), pagination.window()).await?;
    let views = represent(&state.store, account, &listed.records).await?;
    Ok(response::partial_search(response::list("contacts", &views, pagination, listed.total), listed.partial))
}
