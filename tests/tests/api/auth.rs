//! §5: tokens, 401 and 403, revocation and the authorizer cache.

use billing_api::accounts::{self, AccountChanges, AccountStatus};
use billing_api::auth::token_record as tokens;
use infra::testing::account;
use serde_json::json;

use super::support::Api;

const UNAUTHORIZED: &str = "Token de acesso ausente, malformado, desconhecido ou revogado";

#[tokio::test]
async fn missing_malformed_and_unknown_tokens_get_401() {
    let api = Api::start().await;
    let token = api.auth.clone().unwrap().trim_start_matches("Bearer ").to_owned();
    let unknown = format!("sct_{}", "a".repeat(48));
    let cases = [
        None,
        Some(String::new()),
        Some(token.clone()),
        Some(format!("Bearer  {token}")),
        Some(format!("bearer {token}")),
        Some(format!("Token {token}")),
        Some(format!("Bearer {}", &token[..51])),
        Some(format!("Bearer {token}x")),
        Some(format!("Bearer {}0", &token[..51])),
        Some(format!("Bearer {}O", &token[..51])),
        Some(format!("Bearer {}I", &token[..51])),
        Some(format!("Bearer {}l", &token[..51])),
        Some(format!("Bearer {unknown}")),
    ];
    for auth in cases {
        let answer = api.with_auth(auth.as_deref()).get("/v1/tags").await.expect(401);
        assert_eq!(answer.body, json!({"status": 401, "message": UNAUTHORIZED}), "{auth:?}");
        let answer = api.with_auth(auth.as_deref()).post("/v1/groups", &json!({})).await.expect(401);
        assert_eq!(answer.body["status"], 401);
    }
    api.get("/v1/tags").await.expect(200);
}

#[tokio::test]
async fn accounts_not_active_or_not_verified_get_403_on_every_route() {
    let api = Api::start().await;
    for (status, kyc) in [
        (AccountStatus::Overdue, true),
        (AccountStatus::Locked, true),
        (AccountStatus::Canceled, true),
        (AccountStatus::Active, false),
    ] {
        let (_, auth) = account(&api.server.store, status, kyc, true).await;
        let client = api.with_auth(Some(&auth));
        for path in ["/v1/tags", "/v1/tags/1", "/v1/groups", "/v1/groups/1"] {
            let answer = client.get(path).await.expect(403);
            assert_eq!(answer.body["status"], 403);
            assert!(answer.body["message"].as_str().unwrap().contains("Conta sem acesso"), "{}", answer.text);
        }
        client.post("/v1/tags", &json!({"tag": {"name": "x"}})).await.expect(403);
        client.patch("/v1/groups/1", &json!({"group": {}})).await.expect(403);
        client.delete("/v1/tags/1").await.expect(403);
    }
}

#[tokio::test]
async fn revocation_is_immediate_and_leaves_other_tokens_working() {
    let api = Api::start().await;
    let store = &api.server.store;
    let (second, plain) = tokens::create(store, api.account_id, "ERP").await.unwrap();
    let erp = api.with_auth(Some(&format!("Bearer {}", plain.expose())));
    // Both tokens work and the lookups are now cached.
    api.get("/v1/tags").await.expect(200);
    erp.get("/v1/tags").await.expect(200);

    let revoked = infra::ops::revoke_token(store, &api.server.flusher(), api.account_id, second.id).await.unwrap();
    assert_eq!(revoked["authorizer_cache"], "flushed");
    erp.get("/v1/tags").await.expect(401);
    api.get("/v1/tags").await.expect(200);

    // Tokens are listed masked; only the digest and last 4 characters are stored.
    let listed = tokens::list(store, api.account_id).await.unwrap();
    assert_eq!(listed.len(), 2);
    let shown = listed.iter().find(|t| t.id == second.id).unwrap();
    assert!(shown.revoked_at.is_some());
    assert_eq!(shown.token, format!("sct_…{}", plain.last4()));
    let item = store.get(format!("TOKEN#{}", plain.digest()), "TOKEN").await.unwrap().unwrap();
    assert!(!format!("{item:?}").contains(plain.expose()));
}

#[tokio::test]
async fn cached_lookups_survive_until_flushed_and_account_changes_flush() {
    let api = Api::start().await;
    api.get("/v1/tags").await.expect(200);
    // A change that skips the flush is not seen while the 15-minute entry lives...
    accounts::update(
        &api.server.store,
        api.account_id,
        AccountChanges { status: Some(AccountStatus::Locked), ..Default::default() },
    )
    .await
    .unwrap();
    api.get("/v1/tags").await.expect(200);
    // ...and the ops path flushes, so the change applies at once.
    infra::ops::update_account(
        &api.server.store,
        &api.server.flusher(),
        api.account_id,
        AccountChanges { status: Some(AccountStatus::Overdue), ..Default::default() },
    )
    .await
    .unwrap();
    api.get("/v1/tags").await.expect(403);
    infra::ops::update_account(
        &api.server.store,
        &api.server.flusher(),
        api.account_id,
        AccountChanges { status: Some(AccountStatus::Active), ..Default::default() },
    )
    .await
    .unwrap();
    api.get("/v1/tags").await.expect(200);
}

/// Rounds of the revocation race (`REVOCATION_ROUNDS`, 50 by default).
fn revocation_rounds() -> usize {
    std::env::var("REVOCATION_ROUNDS").ok().and_then(|n| n.parse().ok()).unwrap_or(50)
}

/// A lookup that read the token before its revocation and finished after the flush must not
/// write "valid" back into the cache: four clients hammer the token while it is revoked and the
/// cache is flushed (and flushed again and again by changes to other accounts); no request sent
/// after the revocation returned is answered 200.
#[tokio::test]
async fn no_request_after_a_revocation_is_answered_200_whatever_runs_beside_it() {
    let api = Api::start().await;
    let store = api.server.store.clone();
    let other = api.other_account().await;
    let flusher = api.server.flusher();
    for round in 0..revocation_rounds() {
        let (record, plain) = tokens::create(&store, api.account_id, "corrida").await.unwrap();
        let client = api.with_auth(Some(&format!("Bearer {}", plain.expose())));
        client.get("/v1/tags").await.expect(200);
        let revoked_at: std::sync::Arc<std::sync::OnceLock<std::time::Instant>> = Default::default();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let hammers: Vec<_> = (0..4)
            .map(|_| {
                let (client, revoked_at, stop) =
                    (client.with_auth(client.auth.as_deref()), revoked_at.clone(), stop.clone());
                tokio::spawn(async move {
                    let mut late_200s = 0;
                    while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                        let sent = std::time::Instant::now();
                        let after_revocation = revoked_at.get().is_some_and(|at| sent > *at);
                        let status = client.get("/v1/tags").await.status.as_u16();
                        if after_revocation && status == 200 {
                            late_200s += 1;
                        }
                    }
                    late_200s
                })
            })
            .collect();
        // Changes to another account flush the cache while the lookups run.
        let churn = {
            let (store, flusher, other, stop) = (store.clone(), flusher.clone(), other.account_id, stop.clone());
            tokio::spawn(async move {
                while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                    let changes = AccountChanges { name: Some("Outra".into()), ..Default::default() };
                    infra::ops::update_account(&store, &flusher, other, changes).await.unwrap();
                }
            })
        };
        tokio::time::sleep(std::time::Duration::from_millis(30)).await;
        infra::ops::revoke_token(&store, &flusher, api.account_id, record.id).await.unwrap();
        revoked_at.set(std::time::Instant::now()).unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(150)).await;
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        churn.await.unwrap();
        let late: usize = futures::future::join_all(hammers).await.into_iter().map(Result::unwrap).sum();
        assert_eq!(late, 0, "round {round}: {late} answers of 200 after the revocation returned");
        client.get("/v1/tags").await.expect(401);
    }
}
