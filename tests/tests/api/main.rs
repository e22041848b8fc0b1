//! Black-box tests of the API over HTTP through the dev server, against the local stack (moto).
//! Each test starts its own server on a free port and uses its own account, so tests run in
//! parallel. Run them with `infra/test`.

mod amplification;
mod auth;
mod bank_billets;
mod bank_files;
mod bank_layouts;
mod bill_categories;
mod billing_updates;
mod billings;
mod bulk_billings;
mod card_on_file;
mod carnes;
mod cnab_remittance;
mod contacts;
mod engine;
mod errors;
mod exports;
mod fairness;
mod gateway;
mod groups;
mod hardening;
mod idempotency;
mod money;
mod payer_page;
mod pix;
mod pix_automatico;
mod point_of_sale;
mod printable_billets;
mod rate_limits;
mod reminders;
mod round_trips;
mod schedules;
mod support;
mod tags;
mod validation_details;
mod webhook_routes;
mod webhooks;
