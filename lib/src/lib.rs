//! Shared crate of the billing collection service.
//!
//! Every Lambda function and the local dev server are thin adapters over this crate: each endpoint
//! group is an axum `Router` here, rules are pure functions, storage goes through [`store::Store`].
//!
//! Layers point one way ("types down, workflows up"): [`values`] (ids, money, taxpayer ids,
//! calendar, the spec's words) → [`store`] (keys, items, transactions; its own errors) → each
//! resource's model (its record and pure rules) → workflows (`editing`, each resource's `service`
//! and worker, `contention`; they answer in the domain's words, [`refusal`]) → routes and the HTTP
//! edge ([`http`]: the only place that knows status codes) → [`app`]. The test `module_cycles`
//! keeps it so.

pub mod accounts;
pub mod app;
pub mod auth;
pub mod bank_accounts;
pub mod bank_rules;
pub mod bill_categories;
pub mod billets;
pub mod billings;
pub mod carnes;
pub mod cash_entries;
pub mod config;
pub mod contacts;
pub mod contention;
pub mod editing;
pub mod events;
pub mod exports;
pub mod files;
pub mod groups;
pub mod http;
pub mod jobs;
pub mod outbox;
pub mod panics;
pub mod payer_page;
pub mod payments;
pub mod pos;
pub mod refusal;
pub mod reminders;
pub mod schedules;
pub mod state;
pub mod store;
pub mod tags;
pub mod telemetry;
pub mod values;
pub mod webhooks;
