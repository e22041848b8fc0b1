//! Recurring collection (DESIGN §12): a schedule (the spec's `billing_type: schedule` record, made
//! through `POST /v1/schedules`) issues one ordinary billing per cycle, a set number of days before
//! its due date. Its calendar and recurrence are values (`values::schedule_calendar`,
//! `values::recurrence`); a cycle is issued by the billing workflow (`billings::service::issue_cycle`).
//! Here: the routes and their input (`routes`, `input`) and the daily issuing run (`run`).

pub mod input;
pub mod routes;
pub mod run;
