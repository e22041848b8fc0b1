//! Every stored name of the table is written here and nowhere else (docs/data-model.md): the keys
//! of each resource in a module of its own (`keys::billing::…`, `keys::contact::…`), built by
//! functions; the shared shapes (an account's
//! partition, a record's key by kind and id, sequences, guards) below. `lib/tests/stored_names.rs`
//! fails when a key fragment is spelled outside this module.

use sha2::{Digest, Sha256};

use crate::values::AccountId;

/// Declares what an item carries beside its keys: each attribute's stored name, written here once,
/// beside its full name. Each is text, absent from items written before it was carried. Not serde:
/// a posting's attributes are compared in their declared order to write only the postings that
/// changed, and a walk reads them from the items it holds without copying them.
macro_rules! stored_attributes {
    ($(#[$meta:meta])* pub struct $name:ident { $($(#[$field_meta:meta])* $field:ident = $stored:literal,)* }) => {
        $(#[$meta])*
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct $name<'a> {
            $($(#[$field_meta])* pub $field: Option<&'a str>,)*
        }

        impl<'a> $name<'a> {
            /// The attributes `item` holds.
            pub fn read(item: &'a crate::store::Item) -> Self {
                $name { $($field: crate::store::item::text(item, $stored),)* }
            }

            /// The attributes to write, by stored name, in the order they are declared.
            pub fn attributes(&self) -> Vec<(&'static str, String)> {
                let mut written = Vec::new();
                $(if let Some(value) = self.$field {
                    written.push(($stored, value.to_owned()));
                })*
                written
            }
        }
    };
}

pub mod auth;
pub mod bank_file;
pub mod billet;
pub mod billing;
pub mod contact;
pub mod counter;
pub mod event;
pub mod export;
pub mod payment;
pub mod pos;
pub mod reminder;
pub mod schedule;
pub mod webhook;

/// Partition of everything an account owns.
pub fn account(account: AccountId) -> String {
    format!("A#{account}")
}

pub const ACCOUNT_SK: &str = "ACCOUNT";

/// A key no item has: what the cold-start bench's baseline function reads (a round trip that
/// finds nothing).
pub const NOTHING_PK: &str = "HELLO#TABLE";

/// Items not owned by an account (the account-id sequence).
pub const GLOBAL_PK: &str = "GLOBAL";

/// Sequence item of a kind of record (`UpdateItem ADD`): per account, or global for accounts.
pub fn sequence(kind: &str) -> String {
    format!("SEQ#{kind}")
}

/// Records of one kind, by id, zero-padded so that key order is id order.
pub fn record(kind: &str, id: impl Into<i64>) -> String {
    format!("{kind}#{:010}", id.into())
}

/// `gsi1` partition listing the records of one kind of one account.
pub fn listing(account: AccountId, kind: &str) -> String {
    format!("A#{account}#{kind}")
}

/// Guard item that makes a value unique in an account. The value is hashed so that the key stays
/// short whatever its length (a 255-character description may be 1 KB of UTF-8).
pub fn unique(kind: &str, value: &str) -> String {
    format!("UNIQUE#{kind}#{}", digest(value))
}

/// A text in a key whatever its length or characters: the 64 hex digits of its SHA-256.
fn digest(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// A short, fixed-length form of a text in a key (any length fits): 16 hex digits of its SHA-256.
pub fn hashed(text: &str) -> String {
    digest(text)[..16].to_owned()
}

/// A number from 0 to `shards - 1` that a text (an event's or a task's id) always gets: what
/// spreads the items an account writes fast over partitions.
pub fn shard_of(text: &str, shards: i64) -> i64 {
    let digest = Sha256::digest(text.as_bytes());
    i64::from(u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]])).rem_euclid(shards)
}

/// Id part of a zero-padded record key.
pub fn id_of(sk: &str) -> Option<i64> {
    sk.rsplit('#').next()?.parse().ok()
}

/// The state of the cascade of a deleted tag or group (`A#<acct>`): which round of its holders
/// runs next. `kind` is the record's (`TAG`, `GROUP`).
pub fn cascade(kind: &str, id: i64) -> String {
    format!("CASCADE#{}", record(kind, id))
}

/// A value prefixed by the type of its record (a contact's or group's `customers`, a category's
/// `receivable`): a listing index's sort key, narrowed by type as a key prefix, or a value unique
/// per type.
pub fn typed(record_type: impl std::fmt::Display, value: &str) -> String {
    format!("{record_type}#{value}")
}

/// The prefix of the [`typed`] values of one type.
pub fn typed_prefix(record_type: impl std::fmt::Display) -> String {
    format!("{record_type}#")
}

/// The sort key of a posting in a list's `order` (a folded name), then the record's id.
pub fn ordered(order: &str, id: i64) -> String {
    format!("{order}#{id:010}")
}

/// The name an [`ordered`] sort key (or a [`ListedElsewhere`]'s order) begins with.
pub fn order_name(order: &str) -> Option<&str> {
    order.rsplit_once('#').map(|(name, _)| name)
}

stored_attributes! {
    /// What a posting whose sort key is not its list's order carries (a contact's by e-mail): its
    /// [`ordered`] position in the list.
    pub struct ListedElsewhere {
        order = "o",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::{BilletId, BillingId, TagId};

    #[test]
    fn keys_have_fixed_shapes() {
        let account_42 = AccountId::new(42);
        assert_eq!(account(account_42), "A#42");
        assert_eq!(record("TAG", TagId::new(7)), "TAG#0000000007");
        assert_eq!(listing(account_42, "TAG"), "A#42#TAG");
        assert_eq!(id_of("TAG#0000000007"), Some(7));
        assert_eq!(id_of("customers#0000000012"), Some(12));
        let (b12, third) = (BillingId::new(12), BilletId::new(3));
        assert_eq!(billing::billing(account_42, b12), ("A#42#BILLING#0000000012".to_owned(), "BILLING".to_owned()));
        assert_eq!(
            billet::billet(account_42, b12, third),
            ("A#42#BILLING#0000000012".to_owned(), "BILLET#0000000003".to_owned())
        );
        assert_eq!(billet::billets_of(account_42, b12).0, billing::billing(account_42, b12).0);
        assert_eq!(billing::billing_postings(account_42, "billing", "Sopened", 3), "A#42#BILLINGS#billing#Sopened#3");
        assert_eq!(event::event(1_795_352_400_000, "evt_1"), "EVENT#1795352400000#evt_1");
        let long = "x".repeat(1000);
        assert_eq!(unique("GROUP", &long).len(), "UNIQUE#GROUP#".len() + 64);
    }

    /// Every letter a stored name is built from, in force, each with what it means, taken from the
    /// functions and declarations that build them: a facet of a partition's name (`S<status>`), a
    /// count in a counter::counter (`r<rule>`), an attribute beside the keys (`s`). A letter, in either
    /// case, means one thing wherever it is stored. The names before the contacts' were renamed
    /// (`contact::ContactNames::Before`) are read, never written, and left out; so are words (`ALL`, `value`)
    /// and the `A#<account>` every account's key begins with.
    #[test]
    fn each_stored_letter_has_one_meaning() {
        use crate::values::{BankRuleId, BillCategoryId, BillingStatus, ContactId, ContactType, GroupId};
        let (tag, rule, status) = (TagId::new(7), BankRuleId::new(7), BillingStatus::Opened);
        let mut named: Vec<(String, &str)> = vec![
            (billing::billing_facet::contact(ContactId::new(7)), "contact"),
            (billing::billing_facet::bank_rule(rule), "bank rule"),
            (billing::billing_facet::category(BillCategoryId::new(7)), "category"),
            (billing::billing_facet::parent(BillingId::new(7)), "parent booklet"),
            (billing::your_code_facet("ERP-7"), "code"),
            (billing::billing_facet::status(status), "status"),
            (billing::billing_facet::CREATED.to_owned(), "creation date"),
            (billing::billing_facet::EVINCIVE.to_owned(), "evincive text"),
            (billing::BillingTally::Status(status).name(), "status"),
            (billing::BillingTally::Rule(rule).name(), "bank rule"),
            (billing::BillingTally::Category(BillCategoryId::new(7)).name(), "category"),
            (billing::BillingTally::Created.name(), "creation date"),
            (contact::contact_facet::group(Some(GroupId::new(7))), "group"),
            (contact::contact_facet::group(None), "group"),
            (contact::contact_facet::tag(tag), "tag"),
            (contact::contact_facet::active(true).to_owned(), "active"),
            (contact::contact_facet::active(false).to_owned(), "active"),
            (contact::contact_facet::code("ERP-7"), "code"),
            (contact::contact_facet::EMAIL.to_owned(), "e-mail"),
            (contact::tag_reach_tally(tag), "tag"),
            (
                contact::ContactNames::Today.holding_tally(ContactType::Customer, tag).replacen("customer#", "", 1),
                "tag",
            ),
        ];
        let attributes = |written: Vec<(&'static str, String)>, meanings: &[&'static str]| {
            assert_eq!(written.len(), meanings.len(), "every attribute named");
            written
                .into_iter()
                .zip(meanings.iter().copied())
                .map(|((stored, _), meaning)| (stored.to_owned(), meaning))
                .collect::<Vec<_>>()
        };
        let x = Some("x");
        // Not its index keys (`gsi1pk`, `gsi1sk`): the index's own names, not letters.
        let entry = billing::BillingEntry {
            status: x,
            due_date: x,
            created_on: x,
            contact: x,
            ..billing::BillingEntry::default()
        };
        named.extend(attributes(entry.attributes(), &["status", "due date", "creation date", "contact"]));
        named.extend(attributes(
            billing::ValuePosting { state: x, carried: x }.attributes(),
            &["state", "carried facets"],
        ));
        named.extend(attributes(billing::TextPosting { text: x }.attributes(), &["evincive text"]));
        named.extend(attributes(contact::ContactNames::Today.document(x).attributes(), &["document"]));
        named.extend(attributes(ListedElsewhere { order: x }.attributes(), &["order"]));
        let mut meanings: std::collections::BTreeMap<char, &str> = std::collections::BTreeMap::new();
        for (name, meaning) in named {
            let letter = name.chars().next().expect("a stored name").to_ascii_lowercase();
            let first = *meanings.entry(letter).or_insert(meaning);
            assert_eq!(first, meaning, "`{letter}` means {first} and {meaning} (in `{name}`)");
        }
        assert_eq!(meanings.len(), 17, "{meanings:?}");
    }
}
