//! Postings: key-only items that let a billing list read only what matches its filter.
//!
//! Every billing has a posting in the partition of each filter value it carries
//! (`keys::billing::billing_postings`): its contact (`C`), bank rule (`R`), category (`K`), parent booklet
//! (`P`), `your_code` (`Y`, hashed), its status (`S`, in due-date order, so `opened` and `expired`
//! are key ranges, and a due-date range alone is the union of the statuses' ranges), and the
//! creation-date order (`T`); with an `evincive`, a posting carrying that text (`E`). The substring
//! search `s`, which no key can serve, reads every `E` posting and every key entry (which carries
//! the contact). A status or creation posting is about 45 bytes (keys only), so reading the
//! postings of a filter costs about one read unit per 180 matching billings, whatever the account
//! holds; a value's posting (`C`, `R`, `K`, `P`, `Y`) carries its billing's status and due date
//! (`v`) and its other values and creation date (`f`), about 85 bytes, so that a list by a value
//! and anything but a search reads that value's postings alone. They are written in the
//! transaction that writes the billing: a change moves only the postings whose keys or carried
//! attributes changed. Each kind of posting is spread over
//! `keys::billing::POSTING_SHARDS` partitions by the billing's id, so that the creates of one account write
//! no partition past DynamoDB's 1,000 write units a second; a list reads every shard of its facets.

use super::model::Billing;
use crate::store::keys::{
    self, billing::billing_facet, billing::BillingEntry, billing::BillingTally, billing::TextPosting,
    billing::ValuePosting,
};
use crate::store::postings::Posting;
use crate::store::Item;
use crate::values::AccountId;

/// What a value's posting carries as its billing's state (`keys::billing::posting_state`).
pub fn state_of(billing: &Billing) -> String {
    keys::billing::posting_state(billing.status, billing.due_date)
}

/// The filter values a billing carries, as the facets of its postings: its contact (`C`), bank
/// rule (`R`), category (`K`), parent booklet (`P`) and `your_code` (`Y`, hashed).
fn value_facets(billing: &Billing) -> Vec<String> {
    let contact = billing.contact_id.map(billing_facet::contact);
    let rule = billing.bank_rule_id.map(billing_facet::bank_rule);
    let category = billing.bill_category_id.map(billing_facet::category);
    let parent = billing.parent_id.map(billing_facet::parent);
    let code = billing.your_code.as_deref().filter(|c| !c.is_empty()).map(keys::billing::your_code_facet);
    [contact, rule, category, parent, code].into_iter().flatten().collect()
}

/// What the posting of a billing's value `own` carries besides its state
/// (`keys::billing::carried_facets`): the billing's other value facets and its creation date. Not its
/// code's: a list that names a code reads the code's postings (`billings::list`'s plan), so no
/// other posting is asked for it.
fn facets_of(billing: &Billing, own: &str) -> String {
    let others = value_facets(billing).into_iter().filter(|facet| facet != own && !keys::billing::is_code_facet(facet));
    keys::billing::carried_facets(others, billing.created_at.date())
}

/// The postings of a billing as it is: its entry in the type's key partition (by id, for
/// unfiltered lists, carrying its status, due date and creation date for a list by status, due
/// date or creation date that walks them, and its contact for the search: `keys::billing::BillingEntry`)
/// and one per filter value.
pub fn of(account: AccountId, billing: &Billing) -> Vec<Posting> {
    let shard = keys::billing::posting_shard(billing.id);
    let partition = |facet: &str| keys::billing::billing_postings(account, billing.billing_type.as_str(), facet, shard);
    let by_id = keys::billing::posting_by_id(billing.id);
    let by_due = keys::billing::posting_by_date(billing.due_date, billing.id);
    let (status, due_date, created_on) =
        (billing.status.as_str(), billing.due_date.to_string(), billing.created_at.date().to_string());
    let contact = billing.contact_id.map(|contact| contact.to_string());
    let reminded = reminded(account, billing);
    let entry = BillingEntry {
        status: Some(status),
        due_date: Some(&due_date),
        created_on: Some(&created_on),
        contact: contact.as_deref(),
        due_index: reminded.as_ref().map(|(pk, _)| pk.as_str()),
        due_index_key: reminded.as_ref().map(|(_, sk)| sk.as_str()),
    };
    let mut postings = vec![Posting {
        pk: keys::billing::billing_keys(account, billing.billing_type.as_str(), shard),
        sk: keys::record("BILLING", billing.id),
        extra: entry.attributes(),
    }];
    let mut add = |facet: String, sk: &str, extra: Vec<(&'static str, String)>| {
        postings.push(Posting { pk: partition(&facet), sk: sk.to_owned(), extra });
    };
    // A value's postings carry the status and due date, so that a list by a value and a status or
    // due date reads only the value's postings; and the billing's other values and creation date,
    // so that a list by several values (or a value and creation dates) reads one value's postings.
    let state = state_of(billing);
    for facet in value_facets(billing) {
        let carried = facets_of(billing, &facet);
        add(facet, &by_id, ValuePosting { state: Some(&state), carried: Some(&carried) }.attributes());
    }
    add(billing_facet::status(billing.status), &by_due, Vec::new());
    add(
        billing_facet::CREATED.to_owned(),
        &keys::billing::posting_by_date(billing.created_at.date(), billing.id),
        Vec::new(),
    );
    if let Some(text) = billing.evincive.as_deref().filter(|t| !t.trim().is_empty()) {
        let text = crate::values::text::sort_key(text);
        add(billing_facet::EVINCIVE.to_owned(), &by_id, TextPosting { text: Some(&text) }.attributes());
    }
    postings
}

/// A billing's entry in a day index (`gsi1`), read by a daily step by day, never an account's
/// billings: while it can be paid (`opened`, overdue or not), the reminders' due-day index
/// (`keys::reminder::reminder_index`); while it is paid by card and its funds are not available yet, the
/// availability index under its escrow end's day (`keys::payment::availability_index`). The key entry
/// carries it, so that no write adds an item: a change of status rewrites the entry anyway, and
/// DynamoDB moves the index.
///
/// A schedule is never paid: it has the issuing index's entry under its next cycle's issue day
/// while it has one (`keys::schedule::issue_index`), and a legacy one none.
fn reminded(account: AccountId, billing: &Billing) -> Option<(String, String)> {
    // A booklet has no billet: its instalments are reminded.
    if billing.is_booklet() {
        return None;
    }
    if billing.billing_type == crate::values::BillingType::Schedule {
        let next = billing.recurrence.as_ref()?.next()?;
        return Some(keys::schedule::issue_index(account, billing.id, next.issue_day));
    }
    match billing.status {
        crate::values::BillingStatus::Opened => {
            Some(keys::reminder::reminder_index(account, billing.id, billing.due_date))
        }
        crate::values::BillingStatus::Paid => {
            let card = billing.gw_card.as_ref().filter(|card| card.settled && !card.available)?;
            Some(keys::payment::availability_index(account, billing.id, card.escrow_end?.date()))
        }
        _ => None,
    }
}

/// The counts a billing adds to in its type's counter beside the total, in the same item (written
/// where the total is: its create, delete, and a change of its status, rule or category): its
/// status's, its bank rule's (and the rule's in its status) and its category's. A list by one of
/// them takes its total from them.
pub fn tallies(billing: &Billing) -> Vec<String> {
    let status = BillingTally::Status(billing.status);
    let rule = billing.bank_rule_id.map(BillingTally::Rule);
    let category = billing.bill_category_id.map(BillingTally::Category);
    let tallies = std::iter::once(status).chain(rule).chain(rule_status_tally(billing)).chain(category);
    tallies.map(BillingTally::name).collect()
}

/// The count of a billing's bank rule in its status, beside the rule's, in the counter and on the
/// days of the billings' due dates: a list by a rule and statuses or due dates takes its total from
/// them. Kept for bank rules, which an account has a few of; categories, which can be many, count
/// in counters of their own ([`category_counts`]).
pub fn rule_status_tally(billing: &Billing) -> Option<BillingTally> {
    billing.bank_rule_id.map(|rule| BillingTally::RuleStatus(rule, billing.status))
}

/// What a billing counts in its category's own counter (`keys::billing::billing_category_count_shards`),
/// beside its type's: its status, and its status on its due date. A list by the category and
/// statuses or due dates takes its total from them (as a rule's from [`rule_status_tally`]); kept
/// apart from the type's counter, which every list reads, because an account may have dozens of
/// categories.
pub fn category_counts(account: AccountId, billing: &Billing) -> Option<crate::store::counting::Counts> {
    let category = billing.bill_category_id?;
    let status = BillingTally::Status(billing.status).name();
    Some(crate::store::counting::Counts {
        counter: keys::billing::billing_category_count_shards(account, billing.billing_type.as_str(), category.get()),
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
    use std::collections::BTreeSet;

    use super::*;
    use crate::values::{BankRuleId, BillingId, BillingStatus, BillingType, ContactId, Timestamp};

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
        // Its state, and the billing's other values (not its code) and creation date.
        assert_eq!(contact.extra, [("v", "opened#2030-03-04".to_owned()), ("f", "R1 T2026-11-23".to_owned())]);
        assert_eq!(
            keys::billing::read_posting_state("opened#2030-03-04"),
            Some((BillingStatus::Opened, "2030-03-04".parse().unwrap()))
        );
        let (facets, created) = keys::billing::read_carried_facets("R1 T2026-11-23");
        assert_eq!((facets, created), (vec!["R1"], Some("2026-11-23".parse().unwrap())));
        let code = postings.iter().find(|p| p.pk.contains("#Y")).unwrap();
        assert_eq!(code.extra[1], ("f", "C7 R1 T2026-11-23".to_owned()));
        let evincive = postings.iter().find(|p| p.pk.ends_with("#E#2")).unwrap();
        assert_eq!(evincive.extra, [("e", "contrato abc".to_owned())]);
        // The key entry carries the status, due date and creation date, for a list that walks
        // them, and the contact, for the search.
        let entry = postings.iter().find(|p| p.pk == "A#3#BILLINGS#billing#2").unwrap();
        // And, while it can be paid, its place in the reminders' due-day index.
        let carried = [
            ("s", "opened".to_owned()),
            ("d", "2030-03-04".to_owned()),
            ("t", "2026-11-23".to_owned()),
            ("c", "7".to_owned()),
            ("gsi1pk", "REMIND#2030-03-04#13".to_owned()),
            ("gsi1sk", "0000000003#0000000042".to_owned()),
        ];
        assert_eq!(entry.extra, carried);
        let paid = Billing { status: crate::values::BillingStatus::Paid, ..billing() };
        let postings = of(AccountId::new(3), &paid);
        let entry = postings.iter().find(|p| p.pk == "A#3#BILLINGS#billing#2").unwrap();
        assert!(entry.extra.iter().all(|(name, _)| !name.starts_with("gsi1")), "{:?}", entry.extra);
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
        // A change of rule moves the rule's posting, and the other values' postings carry it.
        let ruled = Billing { bank_rule_id: Some(BankRuleId::new(2)), ..before.clone() };
        let writes = moved(AccountId::new(3), Some(&before), Some(&ruled));
        let written: Vec<String> = writes
            .iter()
            .map(|w| match w {
                crate::store::Write::Put { item, .. } => {
                    format!("put {}", crate::store::item::text(item, "pk").unwrap())
                }
                crate::store::Write::Delete { pk, .. } => format!("delete {pk}"),
                other => format!("{other:?}"),
            })
            .collect();
        let code = keys::billing::your_code_facet("ERP-1");
        let expected = [
            "delete A#3#BILLINGS#billing#R1#2".to_owned(),
            "put A#3#BILLINGS#billing#C7#2".to_owned(),
            "put A#3#BILLINGS#billing#R2#2".to_owned(),
            format!("put A#3#BILLINGS#billing#{code}#2"),
        ];
        assert_eq!(written.iter().collect::<BTreeSet<_>>(), expected.iter().collect::<BTreeSet<_>>());
        assert_eq!(moved(AccountId::new(3), None, Some(&before)).len(), 7);
        assert_eq!(moved(AccountId::new(3), Some(&before), None).len(), 7);
    }
}
