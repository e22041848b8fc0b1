//! Which reads answer a billing list: [`plan`] maps a query to a [`Plan`], a pure function, so
//! that "which reads serve `status=opened&bank_rule_id=3`?" is answered here and by the table
//! tests below (one per group of query shapes). Each variant says what gives the list's total and
//! what gives its page; `run` carries a plan out. A plan that may turn to another way at run time
//! names that way ([`Plan::RuleStates`], [`Plan::CategoryStates`], [`Plan::Carried`]), and why.
//!
//! The stored things a plan reads: the type's counter (its total `value`, a count per status
//! `S<status>`, per bank rule `r<rule>` and per rule and status, per category `k<category>`, and
//! per due and creation day), a category's own counter, the type's key entries (one per
//! billing, carrying its status, due date, creation date and contact) and the postings of each
//! filter value (`crate::billings::postings`), all sharded four ways.

use chrono::NaiveDate;

use super::query::{BillingQuery, DateRange, Value};
use super::statuses::{self, StatusRange};
use crate::values::{BankRuleId, BillCategoryId};

/// How a billing list is answered.
#[derive(Clone, Debug, PartialEq)]
pub enum Plan {
    /// No billing can match (an unknown type, status or id, a term longer than any searched
    /// text, statuses and due dates that admit no day): total 0, nothing read.
    Nothing,
    /// No filter but the type: the total from the type's counter; the page from a walk of the
    /// type's key entries, newest first, the four shards in step (about the page's end in all).
    Everything,
    /// One bank rule or one category, and nothing else: the total from its count in the type's
    /// counter; the page from a walk of its postings, as [`Plan::Everything`] walks the keys.
    OneValue(Value),
    /// Creation dates and nothing else: the total from the counter's creation days; the page
    /// the cheaper way (`run::cheaper_page`): the range's creation postings, or a walk of the key
    /// entries keeping those created in it.
    Created(DateRange),
    /// Statuses, due dates or both, and nothing else: the total from the counter's counts per
    /// status (and per due day for a bounded range); the page the cheaper way: the ranges'
    /// status postings, or a walk of the key entries keeping those in the ranges.
    States(Vec<StatusRange>),
    /// One bank rule with statuses or due dates: the rule's counts per status (`r<rule>S<status>`,
    /// read beside the type's) give the total, and a walk of the rule's postings (each carrying
    /// its billing's status and due date) the page. When the rule's count is the type's (every
    /// billing has it: an account with one rule), it filters nothing: run as [`Plan::States`].
    RuleStates(BankRuleId, Vec<StatusRange>),
    /// One category with statuses or due dates: the category's own counter gives the total and a
    /// walk of its postings the page. When that counter holds fewer billings than the type's
    /// `k<category>` (billings written before it; `ops billing recount` fills it), run as
    /// `otherwise`.
    CategoryStates { category: BillCategoryId, ranges: Vec<StatusRange>, otherwise: Intersection },
    /// Several values, or one value and creation dates, and no search: the postings of the one
    /// value `driver` names, keeping those whose carried values, creation date and state match
    /// the rest (each value's posting carries its billing's other values and creation date); the
    /// total is what it kept. A posting written before values were carried sends the list to
    /// `otherwise`.
    Carried { driver: Driver, otherwise: Intersection },
    /// Anything else: each filter's postings read whole and intersected, the total their
    /// intersection's.
    Intersect(Intersection),
}

/// The filters of a list read as postings and intersected (`intersect::matching`).
#[derive(Clone, Debug, PartialEq)]
pub struct Intersection {
    /// Each value's postings (which carry the status and due date the ranges keep).
    pub values: Vec<Value>,
    /// Without a value, the status postings of each range; with one, what its postings keep.
    pub ranges: Option<Vec<StatusRange>>,
    /// The creation postings of the range.
    pub created: Option<DateRange>,
    /// Contacts' names and documents, and the billings' `evincive` texts (a bounded scan).
    pub search: Option<String>,
}

/// The value whose postings a [`Plan::Carried`] list reads.
#[derive(Clone, Debug, PartialEq)]
pub enum Driver {
    /// A code's, a booklet's or a contact's: a few billings each.
    Fixed(Value),
    /// Of bank rules and categories, the one with the smallest count in the type's counter (read
    /// at run time).
    SmallestCount(Vec<Value>),
}

/// The plan of `query`, with `today` for the aggregate statuses.
pub fn plan(query: &BillingQuery, today: NaiveDate) -> Plan {
    if query.billing_type.is_none() || query.matches_nothing {
        return Plan::Nothing;
    }
    let ranges = statuses::admitted(query.statuses.as_deref(), query.due, today);
    if ranges.as_ref().is_some_and(Vec::is_empty) {
        return Plan::Nothing;
    }
    let values = query.values.as_slice();
    let intersection = || Intersection {
        values: values.to_vec(),
        ranges: ranges.clone(),
        created: query.created,
        search: query.search.clone(),
    };
    if query.search.is_some() {
        return Plan::Intersect(intersection());
    }
    match (values, &ranges, query.created) {
        ([], None, None) => Plan::Everything,
        ([], None, Some(created)) => Plan::Created(created),
        ([], Some(ranges), None) => Plan::States(ranges.clone()),
        ([value @ (Value::BankRule(_) | Value::Category(_))], None, None) => Plan::OneValue(value.clone()),
        ([Value::BankRule(rule)], Some(ranges), None) => Plan::RuleStates(*rule, ranges.clone()),
        ([Value::Category(category)], Some(ranges), None) => {
            Plan::CategoryStates { category: *category, ranges: ranges.clone(), otherwise: intersection() }
        }
        ([_, _, ..], _, _) | ([_], _, Some(_)) => Plan::Carried { driver: driver(values), otherwise: intersection() },
        _ => Plan::Intersect(intersection()),
    }
}

/// Of a list's values, the one whose postings likely hold the fewest billings: a code's, then a
/// booklet's, then a contact's; else the bank rule's or category's with the smallest count.
fn driver(values: &[Value]) -> Driver {
    let first = |wanted: fn(&Value) -> bool| values.iter().find(|value| wanted(value)).cloned();
    let few = first(|v| matches!(v, Value::Code(_)))
        .or_else(|| first(|v| matches!(v, Value::Parent(_))))
        .or_else(|| first(|v| matches!(v, Value::Contact(_))));
    if let Some(value) = few {
        return Driver::Fixed(value);
    }
    match values {
        [only] => Driver::Fixed(only.clone()),
        counted => Driver::SmallestCount(counted.to_vec()),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::values::{BillingId, BillingStatus, ContactId};

    fn today() -> NaiveDate {
        "2026-11-22".parse().unwrap()
    }

    fn query(text: &str) -> BillingQuery {
        let params: HashMap<String, String> = form_urlencoded::parse(text.as_bytes()).into_owned().collect();
        let param = |name: &str| params.get(name).map(String::as_str).filter(|v| !v.trim().is_empty());
        BillingQuery::read(param, crate::store::records::Window { skip: 0, take: 50 })
    }

    fn planned(text: &str) -> Plan {
        plan(&query(text), today())
    }

    fn statuses(text: &str) -> Vec<StatusRange> {
        let filters: Vec<_> = text.split(' ').filter_map(crate::billings::list::query::StatusFilter::parse).collect();
        statuses::admitted(Some(&filters), None, today()).unwrap()
    }

    fn dates(from: &str, to: &str) -> DateRange {
        DateRange { from: from.parse().unwrap(), to: to.parse().unwrap() }
    }

    fn intersection(values: Vec<Value>, ranges: Option<Vec<StatusRange>>) -> Intersection {
        Intersection { values, ranges, created: None, search: None }
    }

    // The values and dates the query shapes below name.
    fn contact() -> Value {
        Value::Contact(ContactId::new(7))
    }

    fn rule() -> Value {
        Value::BankRule(BankRuleId::new(3))
    }

    fn category() -> Value {
        Value::Category(BillCategoryId::new(2))
    }

    fn booklet() -> Value {
        Value::Parent(BillingId::new(5))
    }

    fn code() -> Value {
        Value::Code("ERP-1".into())
    }

    fn created() -> DateRange {
        dates("2026-11-01", "2026-11-22")
    }

    const DUE: &str = "start_due_date=2026-12-01&end_due_date=2026-12-31";

    /// Each query shape of the table has the plan beside it.
    fn each_has_its_plan(rows: Vec<(&str, Plan)>) {
        for (text, expected) in rows {
            assert_eq!(planned(text), expected, "{text}");
        }
    }

    #[test]
    fn shapes_that_read_everything_or_nothing() {
        let long = format!("s={}", "x".repeat(500));
        each_has_its_plan(vec![
            ("", Plan::Everything),
            ("billing_type=billing", Plan::Everything),
            ("billing_type=nope", Plan::Nothing),
            ("status=nope", Plan::Nothing),
            ("contact_id=abc", Plan::Nothing),
            ("bank_rule_id=-1&status=opened", Plan::Nothing),
            (&long, Plan::Nothing),
            ("status=opened&start_due_date=2019-01-01&end_due_date=2019-12-31", Plan::Nothing),
        ]);
    }

    #[test]
    fn shapes_that_read_one_value_the_creation_days_or_statuses() {
        let due_ranges = statuses::admitted(None, Some(dates("2026-12-01", "2026-12-31")), today()).unwrap();
        let opened_in_due = statuses::admitted(
            Some(&[crate::billings::list::query::StatusFilter::Opened]),
            Some(dates("2026-12-01", "2026-12-31")),
            today(),
        )
        .unwrap();
        let opened_due = format!("status=opened&{DUE}");
        let rule_due = format!("bank_rule_id=3&{DUE}");
        each_has_its_plan(vec![
            ("bank_rule_id=3", Plan::OneValue(rule())),
            ("bill_category_id=2", Plan::OneValue(category())),
            ("start_created_at=2026-11-01&end_created_at=2026-11-22", Plan::Created(created())),
            ("status=opened", Plan::States(statuses("opened"))),
            ("status=expired paid", Plan::States(statuses("expired paid"))),
            (DUE, Plan::States(due_ranges.clone())),
            (&opened_due, Plan::States(opened_in_due.clone())),
            ("status=opened&bank_rule_id=3", Plan::RuleStates(BankRuleId::new(3), statuses("opened"))),
            (&rule_due, Plan::RuleStates(BankRuleId::new(3), due_ranges.clone())),
            (
                "status=paid&bill_category_id=2",
                Plan::CategoryStates {
                    category: BillCategoryId::new(2),
                    ranges: statuses("paid"),
                    otherwise: intersection(vec![category()], Some(statuses("paid"))),
                },
            ),
        ]);
    }

    #[test]
    fn shapes_that_intersect_their_filters() {
        each_has_its_plan(vec![
            ("contact_id=7", Plan::Intersect(intersection(vec![contact()], None))),
            ("billing_id=5", Plan::Intersect(intersection(vec![booklet()], None))),
            ("your_code=ERP-1", Plan::Intersect(intersection(vec![code()], None))),
            ("contact_id=7&status=opened", Plan::Intersect(intersection(vec![contact()], Some(statuses("opened"))))),
            (
                "status=opened&start_created_at=2026-11-01&end_created_at=2026-11-22",
                Plan::Intersect(Intersection {
                    created: Some(created()),
                    ..intersection(vec![], Some(statuses("opened")))
                }),
            ),
            ("s=maria", Plan::Intersect(Intersection { search: Some("maria".into()), ..intersection(vec![], None) })),
            (
                "s=maria&contact_id=7&bank_rule_id=3",
                Plan::Intersect(Intersection {
                    search: Some("maria".into()),
                    ..intersection(vec![contact(), rule()], None)
                }),
            ),
        ]);
    }

    #[test]
    fn shapes_carried_by_one_of_their_values() {
        each_has_its_plan(vec![
            (
                "contact_id=7&bank_rule_id=3",
                Plan::Carried {
                    driver: Driver::Fixed(contact()),
                    otherwise: intersection(vec![contact(), rule()], None),
                },
            ),
            (
                "bank_rule_id=3&bill_category_id=2&status=opened",
                Plan::Carried {
                    driver: Driver::SmallestCount(vec![rule(), category()]),
                    otherwise: intersection(vec![rule(), category()], Some(statuses("opened"))),
                },
            ),
            (
                "contact_id=7&billing_id=5&your_code=ERP-1",
                Plan::Carried {
                    driver: Driver::Fixed(code()),
                    otherwise: intersection(vec![contact(), booklet(), code()], None),
                },
            ),
            (
                "contact_id=7&billing_id=5",
                Plan::Carried {
                    driver: Driver::Fixed(booklet()),
                    otherwise: intersection(vec![contact(), booklet()], None),
                },
            ),
            (
                "bank_rule_id=3&start_created_at=2026-11-01&end_created_at=2026-11-22",
                Plan::Carried {
                    driver: Driver::Fixed(rule()),
                    otherwise: Intersection { created: Some(created()), ..intersection(vec![rule()], None) },
                },
            ),
        ]);
    }

    #[test]
    fn a_status_named_twice_reads_its_range_once() {
        let Plan::States(ranges) = planned("status=opened opened expired") else { panic!() };
        assert_eq!(ranges.len(), 4);
        assert!(ranges.iter().all(|r| !r.bounded()));
        assert!(ranges.iter().all(|r| r.status.collectable()));
        assert!(!ranges.iter().any(|r| r.status == BillingStatus::Paid));
    }
}
