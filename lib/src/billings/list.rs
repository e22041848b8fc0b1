//! `GET /v1/billings` (§4.2): which billings a list shows, in order `id` descending. Filters apply
//! to the listing index entries; `s` needs the contacts' descriptions and documents: their index is
//! read once.

use std::cmp::Reverse;
use std::collections::HashMap;

use chrono::NaiveDate;

use super::links;
use super::model::{Billing, BillingListFields};
use crate::contacts::Contact;
use crate::http::{ApiResult, Pagination, Params};
use crate::store::records::{self, Entry, Listed};
use crate::store::{keys, Store};
use crate::values::calendar::parse_date;
use crate::values::ids::parse_positive;
use crate::values::text::contains_ignoring_case;
use crate::values::{AccountId, BillingStatus, BillingType, ContactId};

/// One accepted value of `status`: a persisted status or an aggregate of §3.1.
#[derive(Clone, Copy, Debug, PartialEq)]
enum StatusFilter {
    Exactly(BillingStatus),
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
            other => BillingStatus::parse(other).map(StatusFilter::Exactly),
        }
    }

    fn matches(self, status: BillingStatus, due: NaiveDate, today: NaiveDate) -> bool {
        match self {
            StatusFilter::Exactly(s) => s == status,
            StatusFilter::Opened => status.collectable() && due >= today,
            StatusFilter::Expired => status.collectable() && due < today,
            StatusFilter::Paid => matches!(status, BillingStatus::Paid | BillingStatus::Available),
        }
    }
}

/// An id filter: which field of the entry it tests.
#[derive(Clone, Copy, Debug)]
enum IdField {
    Contact,
    Parent,
    BankRule,
    Category,
}

#[derive(Debug, Default)]
struct Filters {
    statuses: Option<Vec<StatusFilter>>,
    numbers: Vec<(IdField, i64)>,
    your_code: Option<String>,
    created: Option<(NaiveDate, NaiveDate)>,
    due: Option<(NaiveDate, NaiveDate)>,
    search: Option<String>,
    impossible: bool,
}

fn range(params: &Params, start: &str, end: &str) -> Option<(NaiveDate, NaiveDate)> {
    Some((parse_date(params.get(start)?)?, parse_date(params.get(end)?)?))
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
            ("contact_id", IdField::Contact),
            ("billing_id", IdField::Parent),
            ("bank_rule_id", IdField::BankRule),
            ("bill_category_id", IdField::Category),
        ] {
            if let Some(value) = params.get(param) {
                match parse_positive(value) {
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

    fn keep(
        &self,
        e: &Entry<BillingListFields>,
        today: NaiveDate,
        contacts: &HashMap<ContactId, (String, String)>,
    ) -> bool {
        if self.impossible {
            return false;
        }
        let f = &e.fields;
        if let Some(statuses) = &self.statuses {
            if !statuses.iter().any(|s| s.matches(f.status, f.due_date, today)) {
                return false;
            }
        }
        let number = |field: IdField| match field {
            IdField::Contact => f.contact_id.map(i64::from),
            IdField::Parent => f.parent_id.map(i64::from),
            IdField::BankRule => f.bank_rule_id.map(i64::from),
            IdField::Category => f.bill_category_id.map(i64::from),
        };
        if self.numbers.iter().any(|(field, id)| number(*field) != Some(*id)) {
            return false;
        }
        if self.your_code.as_deref().is_some_and(|code| f.your_code.as_deref() != Some(code)) {
            return false;
        }
        for (date, range) in [(f.created_on, self.created), (f.due_date, self.due)] {
            if let Some((start, end)) = range {
                if !(date >= start && date <= end) {
                    return false;
                }
            }
        }
        match &self.search {
            None => true,
            Some(term) => {
                let digits: String = term.chars().filter(char::is_ascii_digit).collect();
                let contact = f.contact_id.and_then(|id| contacts.get(&id));
                contains_ignoring_case(f.evincive.as_deref().unwrap_or_default(), term)
                    || contact.is_some_and(|(description, document)| {
                        contains_ignoring_case(description, term) || (!digits.is_empty() && *document == digits)
                    })
            }
        }
    }
}

/// Descriptions and documents of the account's contacts, from their index (only when `s` is sent).
async fn contact_texts(store: &Store, account: AccountId) -> ApiResult<HashMap<ContactId, (String, String)>> {
    let entries = records::entries::<Contact>(store, account, None).await?;
    Ok(entries
        .into_iter()
        .filter_map(|e| {
            let id = e.id::<ContactId>()?;
            Some((id, (e.fields.description.unwrap_or_default(), e.fields.document.unwrap_or_default())))
        })
        .collect())
}

/// An unfiltered page: the total from the type's counter, the page's keys from the key partition
/// (reading only the keys before it), then the page's billings. Cost grows with the page number by
/// about one read unit per 90 billings skipped, not with the size of the billings.
async fn unfiltered(
    store: &Store,
    account: AccountId,
    billing_type: BillingType,
    pagination: Pagination,
) -> ApiResult<Listed<Billing>> {
    let (pk, sk) = links::counter_key(account, billing_type);
    let total = store.counter(pk, sk).await?.max(0) as usize;
    if pagination.offset() >= total {
        return Ok(Listed { records: Vec::new(), total });
    }
    let page = store
        .keys_descending(keys::billing_keys(account, billing_type.as_str()), pagination.offset(), pagination.per_page)
        .await?;
    let page: Vec<_> = page.into_iter().map(|sk| (keys::account(account), sk)).collect();
    let records = store.batch_get(&page).await?.into_iter().map(records::read).collect::<Result<Vec<_>, _>>()?;
    Ok(Listed { records, total })
}

/// The page of billings a query asks for, and the total after its filters.
pub async fn list(store: &Store, account: AccountId, params: &Params, today: NaiveDate) -> ApiResult<Listed<Billing>> {
    let pagination = params.pagination();
    let filters = Filters::from(params);
    let billing_type = BillingType::parse(params.get("billing_type").unwrap_or("billing").trim());
    let Some(billing_type) = billing_type else {
        // Anything but a billing type matches nothing.
        return Ok(Listed { records: Vec::new(), total: 0 });
    };
    if filters.is_empty() {
        return unfiltered(store, account, billing_type, pagination).await;
    }
    let contacts = if filters.search.is_some() { contact_texts(store, account).await? } else { HashMap::new() };
    let prefix = format!("{billing_type}#");
    Ok(records::list::<Billing, _, _, _>(
        store,
        account,
        Some(&prefix),
        |e| filters.keep(e, today, &contacts),
        |e| Reverse(keys::id_of(&e.sk)),
        pagination.window(),
    )
    .await?)
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
        assert!(opened.matches(BillingStatus::Opened, today, today));
        assert!(opened.matches(BillingStatus::Protested, today, today));
        assert!(!opened.matches(BillingStatus::Opened, past, today));
        assert!(expired.matches(BillingStatus::UnderReview, past, today));
        assert!(!expired.matches(BillingStatus::InDispute, past, today));
        assert!(
            paid.matches(BillingStatus::Available, past, today)
                && !paid.matches(BillingStatus::Discharged, past, today)
        );
        assert!(StatusFilter::parse("discharged").unwrap().matches(BillingStatus::Discharged, past, today));
        assert_eq!(StatusFilter::parse("nope"), None);
    }
}
