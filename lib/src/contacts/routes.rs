//! `/v1/contacts` (§4.4).

use axum::extract::{RawQuery, State};
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use serde_json::Value;

use super::{index_prefix, represent, Contact, ContactChanges};
use crate::accounts::AccountId;
use crate::app::AppState;
use crate::auth::Tenant;
use crate::http::resource::{self, Resource};
use crate::http::{response, ApiResult, Fields, Params};
use crate::store::records;
use crate::store::{IndexEntry, Store};
use crate::text::{contains_ignoring_case, sort_key};

impl Resource for Contact {
    const ENVELOPE: &'static str = "contact";

    fn parse(fields: Fields<'_>, _creating: bool) -> Result<ContactChanges, Vec<String>> {
        Ok(ContactChanges::new(fields))
    }

    async fn represent(store: &Store, account: AccountId, records: Vec<Self>) -> ApiResult<Vec<Value>> {
        let views = represent(store, account, &records).await?;
        Ok(views.iter().map(|v| serde_json::to_value(v).expect("contact views serialize")).collect())
    }
}

pub fn router() -> Router<AppState> {
    Router::new().route("/v1/contacts", get(list).post(resource::create::<Contact>)).route(
        "/v1/contacts/{id}",
        get(resource::show::<Contact>).patch(resource::update::<Contact>).delete(resource::destroy::<Contact>),
    )
}

/// The list filters of §4.4, applied to the listing index entries.
#[derive(Debug, Default)]
struct Filters {
    contact_type: Option<String>,
    /// `Some(None)`: contacts without a group (`group_id=0`).
    group_id: Option<Option<i64>>,
    tag_id: Option<i64>,
    active: Option<bool>,
    search: Option<Search>,
    /// A filter value that cannot match anything (`group_id=abc`, `active=maybe`).
    impossible: bool,
}

#[derive(Debug)]
enum Search {
    Description(String),
    /// Digits of the term; a term without digits matches nothing.
    Document(String),
    EmailPrefix(String),
    Code(String),
}

impl Filters {
    fn from(params: &Params) -> Self {
        let mut f =
            Filters { contact_type: params.get("contact_type").map(|t| t.trim().to_owned()), ..Filters::default() };
        // The prefix only narrows the read; anything but a contact type matches nothing.
        f.impossible |= f.contact_type.as_deref().is_some_and(|t| !super::CONTACT_TYPES.contains(&t));
        if let Some(group) = params.get("group_id") {
            match group.trim().parse::<i64>() {
                Ok(0) => f.group_id = Some(None),
                Ok(id) => f.group_id = Some(Some(id)),
                Err(_) => f.impossible = true,
            }
        }
        if let Some(tag) = params.get("tag_id") {
            match tag.trim().parse::<i64>() {
                Ok(id) => f.tag_id = Some(id),
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
            f.search = Some(match params.get("filter").unwrap_or("contact") {
                "document" => Search::Document(term.chars().filter(char::is_ascii_digit).collect()),
                "email" => Search::EmailPrefix(term.to_lowercase()),
                "code" => Search::Code(term),
                _ => Search::Description(term),
            });
        }
        f
    }

    fn keep(&self, entry: &IndexEntry) -> bool {
        if self.impossible {
            return false;
        }
        let number = |key: &str| match entry.fields.get(key) {
            Some(aws_sdk_dynamodb::types::AttributeValue::N(n)) => n.parse::<i64>().ok(),
            _ => None,
        };
        if let Some(group) = self.group_id {
            if number("group_id") != group {
                return false;
            }
        }
        if let Some(tag) = self.tag_id {
            let holds = match entry.fields.get("tag_ids") {
                Some(aws_sdk_dynamodb::types::AttributeValue::L(ids)) => {
                    ids.iter().any(|v| v.as_n().ok().and_then(|n| n.parse::<i64>().ok()) == Some(tag))
                }
                _ => false,
            };
            if !holds {
                return false;
            }
        }
        if let Some(active) = self.active {
            if entry.fields.get("active").and_then(|v| v.as_bool().ok()).copied() != Some(active) {
                return false;
            }
        }
        let text = |key: &str| entry.text(key).unwrap_or_default();
        match &self.search {
            None => true,
            Some(Search::Description(term)) => contains_ignoring_case(text("description"), term),
            Some(Search::Document(digits)) => !digits.is_empty() && text("document").contains(digits.as_str()),
            Some(Search::EmailPrefix(prefix)) => text("email").starts_with(prefix.as_str()),
            Some(Search::Code(code)) => text("code") == code,
        }
    }
}

/// Ordered by description (ignoring case and accents), then id.
async fn list(State(state): State<AppState>, tenant: Tenant, RawQuery(query): RawQuery) -> ApiResult<Response> {
    let params = Params::parse(query.as_deref());
    let pagination = params.pagination();
    let filters = Filters::from(&params);
    let prefix = filters.contact_type.as_deref().map(index_prefix);
    let account = tenant.account_id();
    let listed = records::list::<Contact, _, _, _>(
        &state.store,
        account,
        prefix.as_deref(),
        |entry| filters.keep(entry),
        |entry| sort_key(entry.text("description").unwrap_or_default()),
        pagination,
    )
    .await?;
    let views = Contact::represent(&state.store, account, listed.records).await?;
    Ok(response::list("contacts", &views, pagination, listed.total))
}
