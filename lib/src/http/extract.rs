//! Extractors with the spec's rejections.

use axum::extract::FromRequestParts;
use http::request::Parts;
use serde::de::DeserializeOwned;

use super::ApiError;

/// Path parameters as typed ids (`Path<TagId>`, `Path<(BillingId, BilletId)>`): a segment that is
/// not an id of the right shape names no record, so it is a `404` like a missing one (§7).
#[derive(Clone, Copy, Debug)]
pub struct Path<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for Path<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match axum::extract::Path::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Path(value)) => Ok(Path(value)),
            Err(_) => Err(ApiError::NotFound),
        }
    }
}
