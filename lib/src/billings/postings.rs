//! Postings: key-only items that let a billing list read only what matches its filter.
//!
//! Every billing has a posting in the partition of each filter value it carries
//! (`keys::billing_postings`): its contact (`C`), bank rule (`R`), category (`K`), parent booklet
//! (`P`), `your_code` (`Y`, hashed), its status (`S`, in due-date order, so `opened` and `expired`
//! are key ranges), and the due-date (`D`) and creation-date (`T`) orders; with an `evincive`, a
//! posting carrying that text (`E`) for the substring search. A posting is about 45 bytes (keys
//! only), so reading the postings of a filter costs about one read unit per 180 matching billings,
//! whatever the account holds. They are written in the transaction that writes the billing: a
//! change moves only the postings whose value changed.

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::AttributeValue;

use super::model::Billing;
use crate::store::{keys, Item, Write};
use crate::values::{AccountId, BillingStatus};

/// One posting: its keys, and for an evincive posting the text searched.
#[derive(Clone, Debug, PartialEq)]
struct Posting {
    pk: String,
    sk: String,
    text: Option<String>,
}

/// The facet of a status's postings.
pub fn status_facet(status: BillingStatus) -> String {
    format!("S{status}")
}

/// The postings of a billing as it is.
fn of(account: AccountId, billing: &Billing) -> Vec<Posting> {
    let partition = |facet: &str| keys::billing_postings(account, billing.billing_type.as_str(), facet);
    let by_id = keys::posting_by_id(billing.id);
    let by_due = keys::posting_by_date(billing.due_date, billing.id);
    let mut postings = Vec::new();
    let mut add = |facet: String, sk: &str, text: Option<String>| {
        postings.push(Posting { pk: partition(&facet), sk: sk.to_owned(), text });
    };
    if let Some(contact) = billing.contact_id {
        add(format!("C{contact}"), &by_id, None);
    }
    if let Some(rule) = billing.bank_rule_id {
        add(format!("R{rule}"), &by_id, None);
    }
    if let Some(category) = billing.bill_category_id {
        add(format!("K{category}"), &by_id, None);
    }
    if let Some(parent) = billing.parent_id {
        add(format!("P{parent}"), &by_id, None);
    }
    if let Some(code) = billing.your_code.as_deref().filter(|c| !c.is_empty()) {
        add(keys::your_code_facet(code), &by_id, None);
    }
    add(status_facet(billing.status), &by_due, None);
    add("D".to_owned(), &by_due, None);
    add("T".to_owned(), &keys::posting_by_date(billing.created_at.date(), billing.id), None);
    if let Some(text) = billing.evincive.as_deref().filter(|t| !t.trim().is_empty()) {
        add("E".to_owned(), &by_id, Some(text.to_lowercase()));
    }
    postings
}

fn item(posting: &Posting) -> Item {
    let mut item = Item::from([
        ("pk".to_owned(), AttributeValue::S(posting.pk.clone())),
        ("sk".to_owned(), AttributeValue::S(posting.sk.clone())),
    ]);
    if let Some(text) = &posting.text {
        item.insert("e".to_owned(), AttributeValue::S(text.clone()));
    }
    item
}

/// The writes that take the postings of `before` to those of `after` (create: no `before`;
/// delete: no `after`): only those that differ.
pub fn moved(account: AccountId, before: Option<&Billing>, after: Option<&Billing>) -> Vec<Write> {
    let old: BTreeMap<(String, String), Posting> = before
        .map(|b| of(account, b))
        .unwrap_or_default()
        .into_iter()
        .map(|p| ((p.pk.clone(), p.sk.clone()), p))
        .collect();
    let new: BTreeMap<(String, String), Posting> = after
        .map(|b| of(account, b))
        .unwrap_or_default()
        .into_iter()
        .map(|p| ((p.pk.clone(), p.sk.clone()), p))
        .collect();
    let mut writes: Vec<Write> =
        old.keys().filter(|k| !new.contains_key(*k)).map(|(pk, sk)| Write::delete(pk.clone(), sk.clone())).collect();
    writes.extend(new.iter().filter(|(k, p)| old.get(*k) != Some(*p)).map(|(_, p)| Write::put(item(p))));
    writes
}

/// Every posting of a billing, as plain items (to write outside a transaction).
pub fn items(account: AccountId, billing: &Billing) -> Vec<Item> {
    of(account, billing).iter().map(item).collect()
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
        assert!(keys.contains(&("A#3#BILLINGS#billing#C7", "0000000042")));
        assert!(keys.contains(&("A#3#BILLINGS#billing#R1", "0000000042")));
        assert!(keys.contains(&("A#3#BILLINGS#billing#Sopened", "2030-03-04#0000000042")));
        assert!(keys.contains(&("A#3#BILLINGS#billing#D", "2030-03-04#0000000042")));
        assert!(keys.contains(&("A#3#BILLINGS#billing#T", "2026-11-23#0000000042")));
        assert_eq!(postings.len(), 7);
        assert_eq!(postings.iter().find(|p| p.pk.ends_with("#E")).unwrap().text.as_deref(), Some("contrato abc"));
        // About 45 bytes a posting: one read unit (eventually consistent) per ~180.
        let status = item(&postings[4]);
        assert!(crate::store::meter::item_size(&status) <= 50, "{}", crate::store::meter::item_size(&status));
    }

    #[test]
    fn a_change_moves_only_what_changed() {
        let before = billing();
        let after = Billing { status: BillingStatus::Paid, ..before.clone() };
        let writes = moved(AccountId::new(3), Some(&before), Some(&after));
        assert_eq!(writes.len(), 2, "{writes:?}");
        assert!(matches!(&writes[0], Write::Delete { pk, .. } if pk.ends_with("#Sopened")));
        assert!(matches!(&writes[1], Write::Put { item, .. } if item["pk"] == AttributeValue::S("A#3#BILLINGS#billing#Spaid".into())));
        assert!(moved(AccountId::new(3), Some(&before), Some(&before)).is_empty());
        assert_eq!(moved(AccountId::new(3), None, Some(&before)).len(), 7);
        assert_eq!(moved(AccountId::new(3), Some(&before), None).len(), 7);
    }
}
