//! Stored API tokens: one item per token keyed by its digest (the authorizer's single read), listed
//! per account through the listing index. The plain token is never stored.

use anyhow::Context as _;
use serde::{Deserialize, Serialize};

use super::api_token::{masked, ApiToken};
use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, Condition, Store, StoreResult};
use crate::values::text::collapse_whitespace;
use crate::values::{AccountId, Timestamp, TokenId};

const KIND: &str = "TOKEN";

/// A token as stored (`pk = TOKEN#<sha256>`, `sk = TOKEN`): name, last 4 characters, times.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct StoredToken {
    id: TokenId,
    account_id: AccountId,
    name: String,
    last4: String,
    created_at: Timestamp,
    revoked_at: Option<Timestamp>,
    /// Its key (`TOKEN#<digest>`), not an attribute.
    #[serde(skip)]
    digest: String,
}

impl Stored for StoredToken {
    const KIND: Option<&'static str> = Some("api_token");
    type Scope<'a> = ();

    fn key(&self, (): ()) -> Key {
        (keys::auth::token(&self.digest), keys::auth::TOKEN_SK.to_owned())
    }

    /// Listed per account.
    fn index(&self, (): ()) -> Option<Key> {
        Some((keys::listing(self.account_id, KIND), keys::record(KIND, self.id)))
    }

    fn found_at(&mut self, (pk, _): &Key) {
        self.digest = keys::auth::token_digest(pk);
    }
}

/// A token as the ops CLI shows it: masked (`sct_…Ab3x`).
#[derive(Clone, Debug, Serialize)]
pub struct TokenRecord {
    pub id: TokenId,
    pub account_id: AccountId,
    pub name: String,
    pub token: String,
    pub last4: String,
    pub created_at: Timestamp,
    pub revoked_at: Option<Timestamp>,
    #[serde(skip)]
    digest: String,
}

impl TokenRecord {
    fn stored(&self) -> StoredToken {
        StoredToken {
            id: self.id,
            account_id: self.account_id,
            name: self.name.clone(),
            last4: self.last4.clone(),
            created_at: self.created_at,
            revoked_at: self.revoked_at,
            digest: self.digest.clone(),
        }
    }

    fn of(stored: StoredToken) -> Self {
        TokenRecord {
            id: stored.id,
            account_id: stored.account_id,
            name: stored.name,
            token: masked(&stored.last4),
            last4: stored.last4,
            created_at: stored.created_at,
            revoked_at: stored.revoked_at,
            digest: stored.digest,
        }
    }
}

/// Creates a token for the account; the plain token is returned once and never stored.
pub async fn create(store: &Store, account_id: AccountId, name: &str) -> anyhow::Result<(TokenRecord, ApiToken)> {
    let name = collapse_whitespace(name);
    anyhow::ensure!(!name.is_empty(), "a token needs a descriptive name");
    let token = ApiToken::generate();
    let id = TokenId::new(store.next_id(keys::account(account_id), keys::sequence(KIND)).await?);
    let record = TokenRecord {
        id,
        account_id,
        name,
        token: masked(token.last4()),
        last4: token.last4().to_owned(),
        created_at: Timestamp::now(),
        revoked_at: None,
        digest: token.digest(),
    };
    store.write(vec![stored::insert(&record.stored(), ())?]).await.context("store token")?;
    Ok((record, token))
}

pub async fn find(store: &Store, digest: &str) -> StoreResult<Option<TokenRecord>> {
    let key = (keys::auth::token(digest), keys::auth::TOKEN_SK.to_owned());
    Ok(stored::find::<StoredToken>(store, key).await?.map(TokenRecord::of))
}

pub async fn list(store: &Store, account_id: AccountId) -> anyhow::Result<Vec<TokenRecord>> {
    let entries = store.index_entries(keys::listing(account_id, KIND), None).await?;
    let keys: Vec<_> = entries.into_iter().map(|e| (e.pk, e.sk)).collect();
    let found = stored::find_many::<StoredToken>(store, &keys).await?;
    let mut records: Vec<TokenRecord> = found.into_iter().map(TokenRecord::of).collect();
    records.sort_by_key(|r| r.id);
    Ok(records)
}

/// Revokes a token of the account, for good. Returns the record, or `None` if the account has no
/// token with that id. Revoking twice keeps the first revocation time.
pub async fn revoke(store: &Store, account_id: AccountId, id: TokenId) -> anyhow::Result<Option<TokenRecord>> {
    let Some(mut record) = list(store, account_id).await?.into_iter().find(|r| r.id == id) else {
        return Ok(None);
    };
    if record.revoked_at.is_none() {
        record.revoked_at = Some(Timestamp::now());
        let revoked = stored::put_if(&record.stored(), (), Condition::present())?;
        store.write(vec![revoked]).await.context("revoke token")?;
    }
    Ok(Some(record))
}
