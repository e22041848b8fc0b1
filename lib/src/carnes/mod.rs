//! Carnês (DESIGN §12): an instalment booklet made through `POST /v1/carnes` — the spec's `carne`
//! records, the booklet and one per instalment, each instalment with its billet — and printed
//! whole (`GET /v1/carnes/{id}/pdf`). The booklet is made and cancelled by the billing workflow
//! (`billings::service::create_booklet`, `run_booklet`); read, listed and cancelled through
//! `/v1/billings` like every record. Here: the routes and their input.

pub mod input;
pub mod routes;
