//! Sales (§4.7): made at the store's counter and recorded by operators (`infra/ops sale …`); the
//! API reads them. A sale has items, payments (cash, card, Pix, the customer's credit, or on
//! account), and later receipts against its open amount, returns, and perhaps a settlement by
//! transfer. `on_account_amount` is the part that went on account; `due_amount` is what is still
//! open of it.
//!
//! Item: `pk = A#<account>`, `sk = SALE#<id>`; `code` is the id, zero-padded to six digits (the
//! number on the receipt), so a code is its key. Lists read key items (`A#<account>#SALES`, and
//! `A#<account>#SALES#C<contact>` per contact, `sk = <sold at ms>#<id>`), newest first, a page at
//! a time. While its `due_amount` is open a sale is also listed in `gsi1` under
//! `A#<account>#SALES#OPEN` by the day it was sold, which settlements read.
//!
//! Every change of a sale writes the sale on its version, the contact's balances on its version
//! and a `sale.updated` event, in one transaction.

mod input;
mod list;
mod model;
mod record;
mod routes;
mod service;
mod view;

pub use input::{check_amount, max_amount, SaleDraft, MAX_ITEMS, MSG_CUSTOMER_NOT_FOUND};
pub use list::{list, SaleFilter};
pub use model::{code_for, id_of_code, OpenEntry, Payment, Receipt, Sale, SaleItem, SaleReturn};
pub use routes::router;
pub use service::{create, find, give_back, receive, MSG_SALE_NOT_FOUND};
pub use view::SaleView;
