//! Everything around the API that is not the API: the local stack (table, queues and secret on
//! the moto server), the dev server that serves every router on 127.0.0.1, and the operations the
//! spec says happen "elsewhere" (accounts, tokens), used by the ops CLI.

pub mod bench_stats;
pub mod cache_flush;
pub mod demo;
pub mod dev_server;
pub mod listener;
pub mod local_stack;
pub mod meter;
pub mod ops;
pub mod pix_listener;
pub mod tampering;
pub mod target;
pub mod testing;
pub mod webhook_receiver;
pub mod workers;

// The ops CLI's helpers by the paths they had before each went to its command group under `ops`,
// which the black-box tests, the functions' tests and the dev server's binary still name.
pub use ops::gateway as gateway_ops;
pub use ops::pix as pix_ops;
pub use ops::reminders as reminder_ops;
pub use ops::sale as sales_ops;

/// The bank files' operations by their former path (`ops::remittance`, `ops::returns`).
pub mod bank_files {
    pub use crate::ops::remittance::{create_remittances, list_remittances};
    pub use crate::ops::returns::{show_returns, upload_return};
}
