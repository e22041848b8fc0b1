//! Support for the integration and black-box tests: the local stack (from the `AWS_ENDPOINT_URL`
//! that `infra/test` exports), a fresh account with a token per test so tests run in parallel,
//! the dev server on a free port of 127.0.0.1 with its workers, the dev-server binary in a child
//! process, customers in bulk, the payer's side, and the third-party validators.

mod accounts;
mod customers;
mod payer;
mod process;
mod server;
mod stack;
mod validators;
mod workers;

pub use accounts::{account, active_account};
pub use customers::{cpf, listed_customers, tagged_customers};
pub use payer::{pay_by_card, sent_emails, try_card};
pub use process::DevServerProcess;
pub use server::DevServer;
pub use stack::{billet_queue, local_files, local_stack};
pub use validators::independent_check;
