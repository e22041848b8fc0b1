//! How a sale is stored: `pk = A#<account>`, `sk = SALE#<id>`, and in the open-sales index
//! (`A#<account>#SALES#OPEN`, by the day it was sold) while something is open; and the write of a
//! sale over the version it was read at.

use super::model::Sale;
use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, Condition, StoreResult, Write};

impl Stored for Sale {
    const KIND: Option<&'static str> = Some("sale");
    type Scope<'a> = ();

    fn key(&self, (): ()) -> Key {
        (keys::account(self.account_id), keys::pos::sale(self.id))
    }

    /// In the open-sales index while something is open, by the day it was sold.
    fn index(&self, (): ()) -> Option<Key> {
        let open = self.due_amount.is_positive();
        open.then(|| (keys::pos::open_sales(self.account_id), keys::pos::open_sale(self.sold_at.date(), self.id)))
    }
}

impl Sale {
    /// The write of `self` over `before`, which must not have changed since it was read.
    pub fn replacing(&self, before: &Sale) -> StoreResult<Write> {
        stored::put_if(self, (), Condition::version(before.version))
    }
}
