//! Authentication and gating (§5): API tokens, their lookup ([`authenticate`]), the 15-minute cache
//! and the account context with its gate. The edges that run it (the Lambda REQUEST authorizer on
//! AWS, the middleware locally) are `http::authorizer` and `http::authentication`.

pub mod api_token;
pub mod cache;
pub mod context;
pub mod token_record;

pub use api_token::ApiToken;
pub use cache::AuthCache;
pub use context::AccountContext;

use crate::refusal::Refusal;
use crate::store::Store;

/// Resolves an `Authorization` header to the context of the account that owns the token.
/// Missing, malformed, unknown or revoked: 401. Gating by account status is not done here (the
/// route does it, so that the answer is a 403 with its reason).
pub async fn authenticate(store: &Store, authorization: Option<&str>) -> Result<AccountContext, Refusal> {
    let token = authorization.and_then(ApiToken::from_authorization_header).ok_or(Refusal::Unauthenticated)?;
    let record = token_record::find(store, &token.digest())
        .await?
        .filter(|t| t.revoked_at.is_none())
        .ok_or(Refusal::Unauthenticated)?;
    let account = crate::accounts::find(store, record.account_id).await?.ok_or(Refusal::Unauthenticated)?;
    Ok(AccountContext::of(&account))
}
