//! Postings: key-only items that let a billing list read only what matches its filter.
//!
//! Every billing has a posting in the partition of each filter value it carries
//! (`keys::billing_postings`): its contact (`C`), bank rule (`R`), category (`K`), parent booklet
//! (`P`), `your_code` (`Y`, hashed), its status (`S`, in due-date order, so `opened` and `expired`
//! are key ranges, and a due-date range alone is the union of the statuses' ranges), and the
//! creation-date order (`T`); with an `evincive`, a posting carrying that text (`E`). The substring search `s`,
//! which no key can serve, reads every `E` posting and every key entry (which carries the
//! contact). A posting is about 45 bytes (keys
//! only), so reading the postings of a filter costs about one read unit per 180 matching billings,
//! whatever the account holds. They are written in the transaction that writes the billing: a
//! change moves only the postings whose value changed. Each kind of posting is spread over
//! `keys::POSTING_SHARDS` partitions by the billing's id, so that the creates of one account write
//! no partition past DynamoDB's 1,000 write units a second; a list reads every shard of its facets.

use super::model::Billing;
use crate::store::keys::{self, billing_facet};
use crate::store::postings::Posting;
use crate::store::Item;
use crate::values::{AccountId, BankRuleId, BillCategoryId, BillingStatus};

/// What a value's posting carries: `<status>#<due date>` (about 18 bytes).
pub fn state_of(billing: &Billing) -> String {
    format!("{}#{}", billing.status, billing.due_date)
}

/// The status and due date a value's posting carries.
pub fn read_state(text: &str) -> Option<(BillingStatus, chrono::NaiveDate)> {
    let (status, due) = text.split_once('#')?;
    Some((BillingStatus::parse(status)?, crate::values::calendar::parse_date(due)?))
}

/// The postings of a billing as it is: its entry in the type's key partition (by id, for
/// unfiltered lists, carrying its status `s`, due date `d` and creation date `t` for a list by
/// status, due date or creation date that walks them, and its contact `c` for the search) and one
/// per filter value.
pub fn of(account: AccountId, billing: &Billing) -> Vec<Posting> {
    let shard = keys::posting_shard(billing.id);
    let partition = |facet: &str| keys::billing_postings(account, billing.billing_type.as_str(), facet, shard);
    let by_id = keys::posting_by_id(billing.id);
    let by_due = keys::posting_by_date(billing.due_date, billing.id);
    let entry = Posting::new(
        keys::billing_keys(account, billing.billing_type.as_str(), shard),
        keys::record("BILLING", billing.id),
    );
    let mut entry = entry
        .with("s", billing.status.as_str().to_owned())
        .with("d", billing.due_date.to_string())
        .with("t", billing.created_at.date().to_string());
    if let Some(contact) = billing.contact_id {
        entry = entry.with("c", contact.to_string());
    }
    let mut postings = vec![entry];
    let mut add = |facet: String, sk: &str, extra: Vec<(&'static str, String)>| {
        postings.push(Posting { pk: partition(&facet), sk: sk.to_owned(), extra });
    };
    // A value's postings carry the status and due date, so that a list by a value and a status or
    // due date reads only the value's postings.
    let state = || vec![("v", state_of(billing))];
    if let Some(contact) = billing.contact_id {
        add(billing_facet::contact(contact), &by_id, state());
    }
    if let Some(rule) = billing.bank_rule_id {
        add(billing_facet::bank_rule(rule), &by_id, state());
    }
    if let Some(category) = billing.bill_category_id {
        add(billing_facet::category(category), &by_id, state());
    }
    if let Some(parent) = billing.parent_id {
        add(billing_facet::parent(parent), &by_id, state());
    }
    if let Some(code) = billing.your_code.as_deref().filter(|c| !c.is_empty()) {
        add(keys::your_code_facet(code), &by_id, state());
    }
    add(billing_facet::status(billing.status), &by_due, Vec::new());
    add(billing_facet::CREATED.to_owned(), &keys::posting_by_date(billing.created_at.date(), billing.id), Vec::new());
    if let Some(text) = billing.evincive.as_deref().filter(|t| !t.trim().is_empty()) {
        add(billing_facet::EVINCIVE.to_owned(), &by_id, vec![("e", crate::values::text::sort_key(text))]);
    }
    postings
}

/// The count of a bank rule's billings in the billings counter (`r<rule>`).
pub fn rule_tally(rule: BankRuleId) -> String {
    format!("r{rule}")
}

/// The count of a category's billings in the billings counter (`k<category>`).
pub fn category_tally(category: BillCategoryId) -> String {
    format!("k{category}")
}

/// The counts a billing adds to in its type's counter beside the total, in the same item (written
/// where the total is: its create, delete, and a change of its status, rule or category): its
/// status's (named as its postings' facet, `S<status>`), its bank rule's and its category's. A list
/// by one of them takes its total from them.
pub fn tallies(billing: &Billing) -> Vec<String> {
    let status = billing_facet::status(billing.status);
    let rule = billing.bank_rule_id.map(rule_tally);
    let rule_status = rule_status_tally(billing);
    let category = billing.bill_category_id.map(category_tally);
    std::iter::once(status).chain(rule).chain(rule_status).chain(category).collect()
}

/// The count of a bank rule's billings in a status (`r<rule>S<status>`), beside the rule's, in
/// the counter and on the days of the billings' due dates: a list by a rule and statuses or due
/// dates takes its total from them. Kept for bank rules, which an account has a few of; categories,
/// which can be many, count in counters of their own ([`category_counts`]).
pub fn rule_status_tally(billing: &Billing) -> Option<String> {
    billing.bank_rule_id.map(|rule| format!("{}{}", rule_tally(rule), billing_facet::status(billing.status)))
}

/// What a billing counts in its category's own counter (`keys::billing_category_count_shards`),
/// beside its type's: its status (`S<status>`), and its status on its due date. A list by the
/// category and statuses or due dates takes its total from them (as a rule's from
/// [`rule_status_tally`]); kept apart from the type's counter, which every list reads, because an
/// account may have dozens of categories.
pub fn category_counts(account: AccountId, billing: &Billing) -> Option<crate::store::records::Counts> {
    let category = billing.bill_category_id?;
    let status = billing_facet::status(billing.status);
    Some(crate::store::records::Counts {
        counter: keys::billing_category_count_shards(account, billing.billing_type.as_str(), category.get()),
        tallies: vec![status.clone()],
        dated: vec![(billing.due_date, status)],
    })
}

#[cfg(test)]
fn moved(account: AccountId, before: Option<&Billing>, after: Option<&Billing>) -> Vec<crate::store::Write> {
    let postings = |billing: Option<&Billing>| billing.map(|b| of(account, b)).unwrap_or_default();
    crate::store::postings::moved(postings(before), postings(after))
}

/// Every posting of a billing, as plain items (to write outside a transaction).
pub fn items(account: AccountId, billing: &Billing) -> Vec<Item> {
    of(account, billing).iter().map(Posting::item).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::{BankRuleId, BillingId, BillingType, ContactId, Timestamp};

    fn billing() -> Billing {
        let now = Timestamp::parse("2026-11-23T10:00:00-03:00").unwrap();
        Billing {
            contact_id: Some(ContactId::new(7)),
            bank_rule_id: Some(BankRuleId::new(1)),
            your_code: Some("ERP-1".into()),
            evincive: Some("Contrato ABC".into()),
            ..Billing::blank(BillingId::new(42), BillingType::Billing, "2030-03-04".parse().unwrap(), now)
        }
    }

    #[test]
    fn a_billing_is_posted_under_each_of_its_values() {
        let postings = of(AccountId::new(3), &billing());
        let keys: Vec<(&str, &str)> = postings.iter().map(|p| (p.pk.as_str(), p.sk.as_str())).collect();
        // Billing 42 posts in shard 2 of each.
        assert!(keys.contains(&("A#3#BILLINGS#billing#C7#2", "0000000042")));
        assert!(keys.contains(&("A#3#BILLINGS#billing#R1#2", "0000000042")));
        assert!(keys.contains(&("A#3#BILLINGS#billing#Sopened#2", "2030-03-04#0000000042")));
        assert!(!keys.iter().any(|(pk, _)| pk.contains("#D#")), "due-date ranges read the status postings");
        assert!(keys.contains(&("A#3#BILLINGS#billing#T#2", "2026-11-23#0000000042")));
        assert!(keys.contains(&("A#3#BILLINGS#billing#2", "BILLING#0000000042")));
        assert_eq!(postings.len(), 7);
        let contact = postings.iter().find(|p| p.pk.ends_with("#C7#2")).unwrap();
        assert_eq!(contact.extra, [("v", "opened#2030-03-04".to_owned())]);
        assert_eq!(read_state("opened#2030-03-04"), Some((BillingStatus::Opened, "2030-03-04".parse().unwrap())));
        let evincive = postings.iter().find(|p| p.pk.ends_with("#E#2")).unwrap();
        assert_eq!(evincive.extra, [("e", "contrato abc".to_owned())]);
        // The key entry carries the status, due date and creation date, for a list that walks
        // them, and the contact, for the search.
        let entry = postings.iter().find(|p| p.pk == "A#3#BILLINGS#billing#2").unwrap();
        let carried = [
            ("s", "opened".to_owned()),
            ("d", "2030-03-04".to_owned()),
            ("t", "2026-11-23".to_owned()),
            ("c", "7".to_owned()),
        ];
        assert_eq!(entry.extra, carried);
        // About 45 bytes a posting: one read unit (eventually consistent) per ~180.
        let status = postings[5].item();
        assert!(crate::store::meter::item_size(&status) <= 50, "{}", crate::store::meter::item_size(&status));
    }

    #[test]
    fn a_change_moves_only_what_changed() {
        let before = billing();
        let after = Billing { status: BillingStatus::Paid, ..before.clone() };
        let writes = moved(AccountId::new(3), Some(&before), Some(&after));
        // The status posting moves; the key entry and the value postings (contact, rule, code)
        // carry the new status.
        assert_eq!(writes.len(), 6, "{writes:?}");
        assert!(matches!(&writes[0], crate::store::Write::Delete { pk, .. } if pk.ends_with("#Sopened#2")));
        let put = |pk: &str| {
            writes.iter().any(
                |w| matches!(w, crate::store::Write::Put { item, .. } if crate::store::item::text(item, "pk") == Some(pk)),
            )
        };
        assert!(
            put("A#3#BILLINGS#billing#Spaid#2") && put("A#3#BILLINGS#billing#C7#2") && put("A#3#BILLINGS#billing#R1#2")
        );
        assert!(put("A#3#BILLINGS#billing#2"));
        assert!(moved(AccountId::new(3), Some(&before), Some(&before)).is_empty());
        assert_eq!(moved(AccountId::new(3), None, Some(&before)).len(), 7);
        assert_eq!(moved(AccountId::new(3), Some(&before), None).len(), 7);
    }
}
