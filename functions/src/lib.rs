//! Lambda entry points. Each binary in `src/bin` is a few lines around one of these functions, so
//! the events in `events/` can be run through exactly what Lambda runs. They are grouped by what
//! invokes them: API Gateway (`http`), an SQS queue (`workers`), the table's stream and its sweep
//! (`outbox`), a schedule (`schedules`), S3 or SNS (`notifications`).

mod http;
mod notifications;
mod outbox;
mod schedules;
mod workers;

/// What every function does first: its telemetry, and the wiring of the library's layers
/// (`billing_api::app::wire`).
pub fn init() {
    billing_api::telemetry::init();
    billing_api::app::wire();
}

pub use http::{
    billing_routes, diagnostic, gateway_app, http_app, notification_routes, payer_app, pix_webhook_app, run_authorizer,
    run_gateway, run_http, run_payer_page, run_pix_webhook,
};
pub use notifications::{reminder_events, run_reminder_events, run_return_files};
pub use outbox::{run_outbox_dispatcher, run_outbox_sweeper, SWEEP_LIMIT};
pub use schedules::{
    pix_reconcile_hours, pix_reconcile_run, reminder_day, remittance_run, run_gateway_availability, run_pix_reconciler,
    run_reminder_planner, run_remittance_job, run_schedule_planner, REMITTANCE_BUDGET,
};
pub use workers::{
    run_billet_registrar, run_bulk_expander, run_card_releases_worker, run_cascade_worker, run_export_worker,
    run_pix_charges_worker, run_reminder_worker, run_schedule_issuer, run_settlement_worker, run_webhook_sender,
    AsyncBatch,
};
