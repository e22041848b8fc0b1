//! Keys of contacts, tags and groups: their postings, counters and a tag's links to its holders.

use super::counter::count_shards;
use super::*;
use crate::values::{AccountId, ContactType, TagId};

/// The facets of a contact's posting partitions (`contact_postings`): one per filter value.
pub mod contact_facet {
    use crate::values::{GroupId, TagId};

    /// Every contact of the type.
    pub const ALL: &str = "ALL";
    /// Contacts by e-mail (`<email>#<order>`).
    pub const EMAIL: &str = "M";

    /// The contacts of a group; `None` (no group) is a facet of its own.
    pub fn group(id: Option<GroupId>) -> String {
        id.map_or("G0".to_owned(), |g| format!("G{g}"))
    }

    /// The contacts holding a tag (`L`, a label).
    pub fn tag(id: TagId) -> String {
        format!("L{id}")
    }

    pub fn active(active: bool) -> &'static str {
        if active {
            "A1"
        } else {
            "A0"
        }
    }

    /// A contact's code: a hash (any length fits), `Y` as a billing's `your_code`.
    pub fn code(code: &str) -> String {
        format!("Y{}", super::hashed(code))
    }
}

/// Partition of the postings of one filter value of an account's contacts of a type:
/// `A#<account>#CONTACTS#<customer|supplier>#<facet>`, the facet being `ALL` (every contact, with
/// its document digits for the document search), `G<group>` (`G0`: none), `L<tag>`, `A1`/`A0`
/// (active or not), `Y<code hash>` or `M` (by e-mail, for the prefix search). Sort keys are the
/// description's sort key and the id (`M`: the e-mail first). See `contacts::postings`.
pub fn contact_postings(account: AccountId, contact_type: &str, facet: &str) -> String {
    format!("A#{account}#CONTACTS#{contact_type}#{facet}")
}

/// Partition of the shards of the counter of an account's contacts of a type (`store::shards`):
/// `value`, and the tallies of `Contact::tallies`.
pub fn contact_count_shards(account: AccountId, contact_type: ContactType) -> String {
    count_shards(account, &format!("CONTACT#{contact_type}"))
}

/// Partition of an account's tag postings (by name), which tag lists read.
pub fn tag_postings(account: AccountId) -> String {
    format!("A#{account}#TAGS")
}

/// Partition of the links from one tag to its contacts (`sk` = the contact's record key), which the
/// bulk expansion of billings and tag deletion query.
pub fn tag_links(account: AccountId, tag: TagId) -> String {
    format!("A#{account}#TAG#{tag}")
}

/// Partition of an account's group postings of a contact type (by description).
pub fn group_postings(account: AccountId, contact_type: &str) -> String {
    format!("A#{account}#GROUPS#{contact_type}")
}

stored_attributes! {
    /// What a contact's `ALL` posting carries: its document's digits, which the document search
    /// (of contacts and of billings by payer) reads.
    pub struct ContactPosting {
        document = "n",
        /// Where a contact not yet renamed keeps it ([`ContactNames::Before`]): read, never written.
        legacy_document = "d",
    }
}

impl<'a> ContactPosting<'a> {
    /// The document's digits, under today's name or the one before ([`ContactNames`]).
    pub fn document_digits(&self) -> Option<&'a str> {
        self.document.or(self.legacy_document)
    }
}

/// The sort key of a contact's posting by e-mail (`M`): the e-mail, then its [`ordered`] position.
pub fn by_email(email: &str, order: &str) -> String {
    format!("{email}#{order}")
}

/// Partition of the shards of the counter of an account's groups of a contact type.
pub fn group_count_shards(account: AccountId, contact_type: impl std::fmt::Display) -> String {
    count_shards(account, &format!("GROUP#{contact_type}"))
}

/// Partition of the shards of the counter of the reach of a bucket of tags (the tags whose ids
/// divided by the bucket's size give `bucket`): `A#<acct>#COUNT#REACH#<bucket>`.
pub fn tag_reach_count_shards(account: AccountId, bucket: i64) -> String {
    count_shards(account, &format!("REACH#{bucket}"))
}

/// A tag's reach in its bucket's counter (`l<tag>`): the active customers a bulk billing on it
/// reaches.
pub fn tag_reach_tally(tag: TagId) -> String {
    format!("l{}", tag.get())
}

/// Which names a contact's postings and tag counts are stored under (`Contact::names`, stored as a
/// number): today's, or the names before they were renamed so that no letter has two meanings (a
/// tag was `T`, the creation date's letter; a code `K`, the category's; the document `d`, the due
/// date's). A contact stored before (no such attribute: [`ContactNames::Before`]) moves to today's
/// on its next write, or when `ops contact rename-stored` moves it; until every contact of an
/// account is moved, readers read both ([`ContactNames::BOTH`]). No write moves a contact to them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(from = "u8", into = "u8")]
pub enum ContactNames {
    Today,
    #[default]
    Before,
}

impl ContactNames {
    /// Both, today's first: what a reader reads while contacts stored under the names before remain.
    pub const BOTH: [ContactNames; 2] = [ContactNames::Today, ContactNames::Before];

    /// The postings of the contacts holding a tag (`L<tag>`; before, `T<tag>`).
    pub fn tag(self, id: TagId) -> String {
        match self {
            ContactNames::Today => contact_facet::tag(id),
            ContactNames::Before => format!("T{id}"),
        }
    }

    /// The postings of a contact's code (`Y<hash>`; before, `K<hash>`).
    pub fn code(self, code: &str) -> String {
        match self {
            ContactNames::Today => contact_facet::code(code),
            ContactNames::Before => format!("K{}", hashed(code)),
        }
    }

    /// A tag's reach in its bucket's counter (`l<tag>`; before, `t<tag>`).
    pub fn reach_tally(self, tag: TagId) -> String {
        match self {
            ContactNames::Today => tag_reach_tally(tag),
            ContactNames::Before => format!("t{}", tag.get()),
        }
    }

    /// A tag's holders of a contact type in its bucket's counter (`<type>#` and the tag's facet).
    pub fn holding_tally(self, contact_type: ContactType, tag: TagId) -> String {
        typed(contact_type, &self.tag(tag))
    }

    /// What a contact's `ALL` posting carries: its document's digits, under `n` (before, `d`).
    pub fn document(self, digits: Option<&str>) -> ContactPosting<'_> {
        match self {
            ContactNames::Today => ContactPosting { document: digits, legacy_document: None },
            ContactNames::Before => ContactPosting { document: None, legacy_document: digits },
        }
    }
}

impl From<u8> for ContactNames {
    fn from(stored: u8) -> Self {
        match stored {
            0 => ContactNames::Before,
            _ => ContactNames::Today,
        }
    }
}

impl From<ContactNames> for u8 {
    fn from(names: ContactNames) -> u8 {
        match names {
            ContactNames::Before => 0,
            ContactNames::Today => 1,
        }
    }
}
