//! The point of sale (§4.7, the on-account rule of §2.4, the gating of §5 item 6): sales made at
//! the store's counter, customer credits, and the settlement by transfer of on-account balances.
//!
//! Sales happen "elsewhere" (the ops CLI records them: `infra/ops sale …`); the API reads them,
//! adds credits, and previews and requests settlements, which run in the background on the
//! settlements queue. Every point-of-sale route answers `403` while the account has not enabled
//! the module ([`PointOfSale`]).
//!
//! A contact's point-of-sale state lives on the contact: what it owes on account
//! (`on_account_balance`, the sum of its sales' open `due_amount`), its credit balance, its
//! on-account limit, and counts of its sales and credit movements. Every change of a sale or a
//! credit writes the contact on its version in the same transaction, so balances and limits hold
//! under any concurrency.

pub mod credits;
pub mod movements;
pub mod routes;
pub mod rule;
pub mod sales;
pub mod settlements;

use axum::extract::FromRequestParts;
use http::request::Parts;

use crate::auth::Tenant;
use crate::http::ApiError;
use crate::values::AccountId;

pub use routes::router;

/// The admitted account of a point-of-sale request: a [`Tenant`] whose account has enabled the
/// module (`403` otherwise, after the `401`/`403` every route gives).
#[derive(Clone, Debug)]
pub struct PointOfSale(pub Tenant);

impl PointOfSale {
    pub fn account_id(&self) -> AccountId {
        self.0.account_id()
    }
}

impl<S: Send + Sync> FromRequestParts<S> for PointOfSale {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let tenant = Tenant::from_request_parts(parts, state).await?;
        tenant.0.admit_point_of_sale()?;
        Ok(PointOfSale(tenant))
    }
}
