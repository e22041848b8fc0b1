//! A fresh account with a token per test, so that tests run in parallel on one table.

use billing_api::accounts::{self, AccountChanges, AccountId, AccountStatus};
use billing_api::auth::token_record;
use billing_api::store::Store;

/// A new account in the given state and a token for it (`Bearer ...` header value).
pub async fn account(
    store: &Store,
    status: AccountStatus,
    kyc_approved: bool,
    pos_enabled: bool,
) -> (AccountId, String) {
    let changes = AccountChanges {
        name: None,
        status: Some(status),
        kyc_approved: Some(kyc_approved),
        pos_enabled: Some(pos_enabled),
        health_module: None,
        document: Some("11222333000181".into()),
        address: Some("Avenida Paulista, 1000, Bela Vista".into()),
        city: Some("São Paulo".into()),
        settlement_contact_id: None,
    };
    let account = accounts::create(store, "Conta de teste", changes).await.expect("create account");
    let (_, token) = token_record::create(store, account.id, "teste").await.expect("create token");
    (account.id, format!("Bearer {}", token.expose()))
}

/// An active, verified account and its authorization header.
pub async fn active_account(store: &Store) -> (AccountId, String) {
    account(store, AccountStatus::Active, true, false).await
}
