//! Record ids: one type per kind of record, so that a tag id can never be passed where a contact
//! id is meant. Ids are positive integers from per-account sequences (accounts: one global
//! sequence). On the wire and in storage an id is its bare number.
//!
//! Untrusted text (a path segment, a query parameter, a body field) becomes an id only through
//! `FromStr`, which takes positive integers only; values read back from storage or handed out by a
//! sequence are trusted and wrapped with `new`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Text that is not a positive integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a positive integer id")]
pub struct NotAnId;

/// A positive integer id written in text (leading `+` and zeros allowed, as integers are).
pub fn parse_positive(text: &str) -> Result<i64, NotAnId> {
    text.trim().parse::<i64>().ok().filter(|id| *id > 0).ok_or(NotAnId)
}

/// What every id type is: an integer key, made by a sequence or read back from storage.
pub trait RecordId:
    Copy
    + Eq
    + Ord
    + std::hash::Hash
    + fmt::Display
    + fmt::Debug
    + Into<i64>
    + FromStr
    + Serialize
    + serde::de::DeserializeOwned
    + Send
    + Sync
    + 'static
{
    fn new(id: i64) -> Self;
}

macro_rules! record_ids {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(i64);

        impl $name {
            /// An id handed out by a sequence or read back from storage.
            pub const fn new(id: i64) -> Self {
                $name(id)
            }

            pub const fn get(self) -> i64 {
                self.0
            }
        }

        impl RecordId for $name {
            fn new(id: i64) -> Self {
                $name(id)
            }
        }

        /// Convenient in tests and literals: an id equals its number.
        impl PartialEq<i64> for $name {
            fn eq(&self, other: &i64) -> bool {
                self.0 == *other
            }
        }

        impl From<$name> for i64 {
            fn from(id: $name) -> i64 {
                id.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.0)
            }
        }

        impl FromStr for $name {
            type Err = NotAnId;

            fn from_str(text: &str) -> Result<Self, NotAnId> {
                parse_positive(text).map($name)
            }
        }
    )*};
}

record_ids! {
    /// A tenant.
    AccountId;
    TagId;
    GroupId;
    ContactId;
    BillingId;
    /// A line item of a billing (one sequence per account).
    BillingItemId;
    BilletId;
    BankRuleId;
    BankAccountId;
    BillCategoryId;
    /// An API token of an account.
    TokenId;
    CashEntryId;
    /// A webhook receiver (URL) of an account.
    WebhookId;
    /// A point-of-sale sale (its `code` is the id, zero-padded).
    SaleId;
    /// A customer credit added through the API.
    StoreCreditId;
}

impl BillingId {
    /// The server-assigned `code` of the billing: the id, zero-padded to eight digits.
    pub fn code(self) -> String {
        format!("{:08}", self.get())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_parse_from_positive_integers_only() {
        assert_eq!("7".parse::<TagId>(), Ok(TagId::new(7)));
        assert_eq!(" 007 ".parse::<TagId>(), Ok(TagId::new(7)));
        for bad in ["0", "-1", "1.5", "abc", "", "99999999999999999999"] {
            assert_eq!(bad.parse::<BillingId>(), Err(NotAnId), "{bad}");
        }
    }

    #[test]
    fn ids_are_bare_numbers_on_the_wire() {
        assert_eq!(serde_json::to_string(&ContactId::new(42)).unwrap(), "42");
        assert_eq!(serde_json::from_str::<ContactId>("42").unwrap(), ContactId::new(42));
        assert_eq!(ContactId::new(42).to_string(), "42");
    }
}
