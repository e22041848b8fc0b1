//! Shared crate of the billing collection service.
//!
//! Every Lambda function and the local dev server are thin adapters over this crate: each endpoint
//! group is an axum `Router` here, rules are pure functions, storage goes through [`store::Store`].

pub mod accounts;
pub mod app;
pub mod auth;
pub mod bill_categories;
pub mod billets;
pub mod billings;
pub mod config;
pub mod contacts;
pub mod dates;
pub mod documents;
pub mod events;
pub mod groups;
pub mod http;
pub mod jobs;
pub mod money;
pub mod rate_limit;
pub mod references;
pub mod store;
pub mod tags;
pub mod telemetry;
pub mod text;
pub mod time;
