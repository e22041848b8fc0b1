//! The point of sale (§4.7, the on-account rule of §2.4, the gating of §5 item 6): sales made at
//! the store's counter, customer credits, and the settlement by transfer of on-account balances.
//!
//! Sales happen "elsewhere" (the ops CLI records them: `infra/ops sale …`); the API reads them,
//! adds credits, and previews and requests settlements, which run in the background on the
//! settlements queue. Every point-of-sale route answers `403` while the account has not enabled
//! the module (`http::tenant::PointOfSale`).
//!
//! A contact's point-of-sale state lives on the contact: what it owes on account
//! (`on_account_balance`, the sum of its sales' open `due_amount`), its credit balance, its
//! on-account limit, and counts of its sales and credit movements. Every change of a sale or a
//! credit writes the contact on its version in the same transaction, so balances and limits hold
//! under any concurrency.

pub mod credits;
pub mod routes;
pub mod rule;
pub mod sales;
pub mod settlements;

pub fn router() -> axum::Router<crate::state::AppState> {
    routes::router().merge(credits::router()).merge(settlements::router())
}
