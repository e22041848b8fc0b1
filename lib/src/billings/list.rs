//! `GET /v1/billings` (§4.2): filters on the listing index entries, order `id` descending, the list
//! representation. `s` needs the contacts' descriptions and documents: their index is read once.

use std::cmp::Reverse;
use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use axum::extract::{RawQuery, State};
use axum::response::Response;
use chrono::NaiveDate;

use super::compute::Status;
use super::links;
use super::model::Billing;
use super::view::{represent, Related};
use crate::app::AppState;
use crate::auth::Tenant;
use crate::contacts::Contact;
use crate::http::{response, ApiResult, Pagination, Params};
use crate::store::records::{self, Listed, Record};
use crate::store::{keys, IndexEntry, ItemExt, Store};
use crate::tags::Tag;
use crate::text::contains_ignoring_case;
use crate::time::today;

/// One accepted value of `status`: a persisted status or an aggregate of §3.1.
#[derive(Clone, Copy, Debug, PartialEq)]
enum StatusFilter {
    Exactly(Status),
    /// Collectable and due today or later.
    Opened,
    /// Collectable and due before today.
    Expired,
    /// `paid` plus `available`.
    Paid,
}

impl StatusFilter {
    fn parse(text: &str) -> Option<Self> {
        match text {
            "opened" => Some(StatusFilter::Opened),
            "expired" => Some(StatusFilter::Expired),
            "paid" => Some(StatusFilter::Paid),
            other => Status::parse(other).map(StatusFilter::Exactly),
        }
    }

    fn matches(self, status: Status, due: NaiveDate, today: NaiveDate) -> bool {
        match self {
            StatusFilter::Exactly(s) => s == status,
            StatusFilter::Opened => status.collectable() && due >= today,
            StatusFilter::Expired => status.collectable() && due < today,
            StatusFilter::Paid => matches!(status, Status::Paid | Status::Available),
        }
    }
}

#[derive(Debug, Default)]
struct Filters {
    statuses: Option<Vec<StatusFilter>>,
    numbers: Vec<(&'static str, i64)>,
    your_code: Option<String>,
    created: Option<(NaiveDate, NaiveDate)>,
    due: Option<(NaiveDate, NaiveDate)>,
    search: Option<String>,
    impossible: bool,
}

fn range(params: &Params, start: &str, end: &str) -> Option<(NaiveDate, NaiveDate)> {
    Some((crate::dates::parse(params.get(start)?)?, crate::dates::parse(params.get(end)?)?))
}

impl Filters {
    fn from(params: &Params) -> Self {
        let mut f = Filters::default();
        if let Some(text) = params.get("status") {
            let parsed: Vec<StatusFilter> = text.split_whitespace().filter_map(StatusFilter::parse).collect();
            f.impossible |= parsed.is_empty();
            f.statuses = Some(parsed);
        }
        for (param, field) in [
            ("contact_id", "contact_id"),
            ("billing_id", "parent_id"),
            ("bank_rule_id", "bank_rule_id"),
            ("bill_category_id", "bill_category_id"),
        ] {
            if let Some(value) = params.get(param) {
                match value.trim().parse::<i64>() {
                    Ok(id) => f.numbers.push((field, id)),
                    Err(_) => f.impossible = true,
                }
            }
        }
        f.your_code = params.get("your_code").map(str::to_owned);
        f.created = range(params, "start_created_at", "end_created_at");
        f.due = range(params, "start_due_date", "end_due_date");
        f.search = params.get("s").map(|s| s.trim().to_owned());
        f
    }

    /// No filter but the billing type: the list can skip to its page by the key partition.
    fn is_empty(&self) -> bool {
        self.statuses.is_none()
            && self.numbers.is_empty()
            && self.your_code.is_none()
            && self.created.is_none()
            && self.due.is_none()
            && self.search.is_none()
            && !self.impossible
    }

    fn keep(&self, e: &IndexEntry, today: NaiveDate, contacts: &HashMap<i64, (String, String)>) -> bool {
        if self.impossible {
            return false;
        }
        let text = |key: &str| e.text(key).unwrap_or_default();
        let number = |key: &str| match e.fields.get(key) {
            Some(AttributeValue::N(n)) => n.parse::<i64>().ok(),
            _ => None,
        };
        let date = |key: &str| text(key).parse::<NaiveDate>().ok();
        if let Some(statuses) = &self.statuses {
            let (Some(status), Some(due)) = (Status::parse(text("status")), date("due_date")) else { return false };
            if !statuses.iter().any(|f| f.matches(status, due, today)) {
                return false;
            }
        }
        if self.numbers.iter().any(|(field, id)| number(field) != Some(*id)) {
            return false;
        }
        if self.your_code.as_deref().is_some_and(|code| text("your_code") != code) {
            return false;
        }
        for (field, range) in [("created_on", self.created), ("due_date", self.due)] {
            if let Some((start, end)) = range {
                if !date(field).is_some_and(|d| d >= start && d <= end) {
                    return false;
                }
            }
        }
        match &self.search {
            None => true,
            Some(term) => {
                let digits: String = term.chars().filter(char::is_ascii_digit).collect();
                let contact = number("contact_id").and_then(|id| contacts.get(&id));
                contains_ignoring_case(text("evincive"), term)
                    || contact.is_some_and(|(description, document)| {
                        contains_ignoring_case(description, term) || (!digits.is_empty() && *document == digits)
                    })
            }
        }
    }
}

/// Descriptions and documents of the account's contacts, from their index (only when `s` is sent).
async fn contact_texts(state: &AppState, account: i64) -> ApiResult<HashMap<i64, (String, String)>> {
    let entries = state.store.index_entries(keys::listing(account, Contact::KIND), None).await?;
    Ok(entries
        .iter()
        .filter_map(|e| {
            let id = keys::id_of(&e.sk)?;
            Some((
                id,
                (
                    e.text("description").unwrap_or_default().to_owned(),
                    e.text("document").unwrap_or_default().to_owned(),
                ),
            ))
        })
        .collect())
}

/// An unfiltered page: the total from the type's counter, the page's keys from the key partition
/// (reading only the keys before it), then the page's billings. Cost grows with the page number by
/// about one read unit per 90 billings skipped, not with the size of the billings.
async fn unfiltered(
    store: &Store,
    account: i64,
    billing_type: &str,
    pagination: Pagination,
) -> ApiResult<Listed<Billing>> {
    let (pk, sk) = links::counter_key(account, billing_type);
    let total = store.get(pk, sk).await?.and_then(|i| i.opt_int("value")).unwrap_or(0).max(0) as usize;
    if pagination.offset() >= total {
        return Ok(Listed { records: Vec::new(), total });
    }
    let page = store
        .keys_descending(keys::billing_keys(account, billing_type), pagination.offset(), pagination.per_page)
        .await?;
    let page: Vec<_> = page.into_iter().map(|sk| (keys::account(account), sk)).collect();
    let records = store.batch_get(&page).await?.iter().map(Billing::from_item).collect::<anyhow::Result<Vec<_>>>()?;
    Ok(Listed { records, total })
}

pub async fn list(State(state): State<AppState>, tenant: Tenant, RawQuery(query): RawQuery) -> ApiResult<Response> {
    let account = tenant.account_id();
    let params = Params::parse(query.as_deref());
    let pagination = params.pagination();
    let filters = Filters::from(&params);
    let billing_type = params.get("billing_type").unwrap_or("billing").trim().to_owned();
    // The prefix only narrows the read; anything but a billing type matches nothing.
    let impossible = !["billing", "schedule", "carne"].contains(&billing_type.as_str());
    let prefix = format!("{billing_type}#");
    let contacts = if filters.search.is_some() { contact_texts(&state, account).await? } else { HashMap::new() };
    let today = today();
    let listed = if filters.is_empty() && !impossible {
        unfiltered(&state.store, account, &billing_type, pagination).await?
    } else {
        records::list::<Billing, _, _, _>(
            &state.store,
            account,
            Some(&prefix),
            |e| !impossible && filters.keep(e, today, &contacts),
            |e| Reverse(keys::id_of(&e.sk)),
            pagination,
        )
        .await?
    };

    let mut contact_ids: Vec<i64> = listed.records.iter().filter_map(|b| b.contact_id).collect();
    contact_ids.sort_unstable();
    contact_ids.dedup();
    let keys: Vec<_> =
        contact_ids.iter().map(|id| (keys::account(account), keys::record(Contact::KIND, *id))).collect();
    let embedded: HashMap<i64, Contact> = state
        .store
        .batch_get(&keys)
        .await?
        .iter()
        .filter_map(|i| Contact::from_item(i).ok())
        .map(|c| (c.id, c))
        .collect();
    let mut tag_ids: Vec<i64> = listed.records.iter().filter_map(|b| b.tag_id).collect();
    tag_ids.sort_unstable();
    tag_ids.dedup();
    let tags: HashMap<i64, Tag> =
        crate::tags::find_many(&state.store, account, &tag_ids).await?.into_iter().map(|t| (t.id, t)).collect();

    let views: Vec<_> = listed
        .records
        .iter()
        .map(|b| {
            let related = Related {
                contact: b.contact_id.and_then(|id| embedded.get(&id)),
                tag: b.tag_id.and_then(|id| tags.get(&id)),
                billets: &[],
            };
            represent(b, &related, today, false)
        })
        .collect();
    Ok(response::list("billings", &views, pagination, listed.total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_aggregates() {
        let today: NaiveDate = "2026-11-22".parse().unwrap();
        let past: NaiveDate = "2026-11-01".parse().unwrap();
        let opened = StatusFilter::parse("opened").unwrap();
        let expired = StatusFilter::parse("expired").unwrap();
        let paid = StatusFilter::parse("paid").unwrap();
        assert!(opened.matches(Status::Opened, today, today));
        assert!(opened.matches(Status::Protested, today, today));
        assert!(!opened.matches(Status::Opened, past, today));
        assert!(expired.matches(Status::UnderReview, past, today));
        assert!(!expired.matches(Status::InDispute, past, today));
        assert!(paid.matches(Status::Available, past, today) && !paid.matches(Status::Discharged, past, today));
        assert!(StatusFilter::parse("discharged").unwrap().matches(Status::Discharged, past, today));
        assert_eq!(StatusFilter::parse("nope"), None);
    }
}
