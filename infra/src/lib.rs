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
