//! A billing list's query (§4.2), typed: what the route read from the query string, with no HTTP
//! type in it. Values that cannot match anything (an unknown `billing_type` or `status`, an id
//! that is not a positive number, a search term longer than any searched text) make the query
//! [`BillingQuery::matches_nothing`]; they are not refused (§4.1: filters never fail a list).

use chrono::NaiveDate;

use crate::store::keys::{self, billing::billing_facet, billing::BillingTally};
use crate::store::window::Window;
use crate::values::calendar::parse_date;
use crate::values::ids::parse_positive;
use crate::values::{BankRuleId, BillCategoryId, BillingId, BillingStatus, BillingType, ContactId};

/// One accepted value of `status`: a persisted status or an aggregate of §3.1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StatusFilter {
    Exactly(BillingStatus),
    /// Collectable and due today or later.
    Opened,
    /// Collectable and due before today.
    Expired,
    /// `paid` plus `available`.
    Paid,
}

impl StatusFilter {
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "opened" => Some(StatusFilter::Opened),
            "expired" => Some(StatusFilter::Expired),
            "paid" => Some(StatusFilter::Paid),
            other => BillingStatus::parse(other).map(StatusFilter::Exactly),
        }
    }
}

/// Two dates, both included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DateRange {
    pub from: NaiveDate,
    pub to: NaiveDate,
}

impl DateRange {
    pub fn contains(&self, day: NaiveDate) -> bool {
        self.from <= day && day <= self.to
    }
}

/// A value a billing carries and a list may filter by, each with postings of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Contact(ContactId),
    /// The booklet a billing belongs to (`billing_id`).
    Parent(BillingId),
    BankRule(BankRuleId),
    Category(BillCategoryId),
    /// `your_code`.
    Code(String),
}

impl Value {
    /// The facet of the postings of the billings that carry it.
    pub fn facet(&self) -> String {
        match self {
            Value::Contact(id) => billing_facet::contact(*id),
            Value::Parent(id) => billing_facet::parent(*id),
            Value::BankRule(id) => billing_facet::bank_rule(*id),
            Value::Category(id) => billing_facet::category(*id),
            Value::Code(code) => keys::billing::your_code_facet(code),
        }
    }

    /// Its count in the type's counter, where one is kept (a bank rule's, a category's).
    pub fn tally(&self) -> Option<BillingTally> {
        match self {
            Value::BankRule(id) => Some(BillingTally::Rule(*id)),
            Value::Category(id) => Some(BillingTally::Category(*id)),
            Value::Contact(_) | Value::Parent(_) | Value::Code(_) => None,
        }
    }
}

/// An id parameter and the value it names.
type IdParameter = (&'static str, fn(i64) -> Value);

/// `GET /v1/billings`'s query.
#[derive(Clone, Debug)]
pub struct BillingQuery {
    /// `billing_type` (`billing` when absent); none when it names no type.
    pub billing_type: Option<BillingType>,
    /// `status`: its words that name a status or an aggregate.
    pub statuses: Option<Vec<StatusFilter>>,
    /// `contact_id`, `billing_id`, `bank_rule_id`, `bill_category_id` and `your_code`, in that order.
    pub values: Vec<Value>,
    /// `start_created_at` and `end_created_at`, when both are dates.
    pub created: Option<DateRange>,
    /// `start_due_date` and `end_due_date`, when both are dates.
    pub due: Option<DateRange>,
    /// `s`, trimmed.
    pub search: Option<String>,
    /// A filter names what no billing can carry.
    pub matches_nothing: bool,
    pub window: Window,
}

impl BillingQuery {
    /// The query whose parameters `param` answers (a parameter's value, when present and not blank).
    pub fn read<'a>(param: impl Fn(&str) -> Option<&'a str>, window: Window) -> Self {
        let mut matches_nothing = false;
        let statuses = param("status").map(|text| {
            let parsed: Vec<StatusFilter> = text.split_whitespace().filter_map(StatusFilter::parse).collect();
            matches_nothing |= parsed.is_empty();
            parsed
        });
        let mut values = Vec::new();
        let ids: [IdParameter; 4] = [
            ("contact_id", |id| Value::Contact(ContactId::new(id))),
            ("billing_id", |id| Value::Parent(BillingId::new(id))),
            ("bank_rule_id", |id| Value::BankRule(BankRuleId::new(id))),
            ("bill_category_id", |id| Value::Category(BillCategoryId::new(id))),
        ];
        for (name, value) in ids {
            match param(name).map(parse_positive) {
                Some(Ok(id)) => values.push(value(id)),
                Some(Err(_)) => matches_nothing = true,
                None => {}
            }
        }
        values.extend(param("your_code").map(|code| Value::Code(code.to_owned())));
        let range =
            |start: &str, end: &str| Some(DateRange { from: parse_date(param(start)?)?, to: parse_date(param(end)?)? });
        let search = param("s").map(|s| s.trim().to_owned());
        // A term longer than any text a billing's search reads cannot match: no read at all.
        matches_nothing |= search.as_deref().is_some_and(crate::values::text::beyond_search);
        BillingQuery {
            billing_type: BillingType::parse(param("billing_type").unwrap_or("billing").trim()),
            statuses,
            values,
            created: range("start_created_at", "end_created_at"),
            due: range("start_due_date", "end_due_date"),
            search,
            matches_nothing,
            window,
        }
    }
}
