//! The extractors every handler takes: the admitted account of a request ([`Tenant`]) and of a
//! point-of-sale request ([`PointOfSale`]). Without a context the request was not authenticated
//! (401); with one that fails the gate (§5 items 6 and 8), 403.

use axum::extract::FromRequestParts;
use http::request::Parts;

use super::ApiError;
use crate::auth::context::AccountContext;
use crate::values::AccountId;

/// The admitted account of a request: the extractor every handler takes. Without a context the
/// request was not authenticated (401); with one that fails the gate, 403.
#[derive(Clone, Debug)]
pub struct Tenant(pub AccountContext);

impl Tenant {
    pub fn account_id(&self) -> AccountId {
        self.0.account_id
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Tenant {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let context = parts.extensions.get::<AccountContext>().cloned().ok_or(ApiError::Unauthorized)?;
        context.admit()?;
        Ok(Tenant(context))
    }
}

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
