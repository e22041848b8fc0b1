//! Stored API tokens: one item per token keyed by its digest (the authorizer's single read), listed
//! per account through the listing index. The plain token is never stored.

use anyhow::Context as _;
use aws_sdk_dynamodb::types::AttributeValue;
use serde::{Deserialize, Serialize};

use super::api_token::{masked, ApiToken};
use crate::store::item::{from_item, to_item};
use crate::store::{keys, Condition, Item, Store, StoreResult, Write};
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
    fn to_item(&self) -> StoreResult<Item> {
        let stored = StoredToken {
            id: self.id,
            account_id: self.account_id,
            name: self.name.clone(),
            last4: self.last4.clone(),
            created_at: self.created_at,
            revoked_at: self.revoked_at,
        };
        let mut item = to_item(&stored)?;
        let text = |value: String| AttributeValue::S(value);
        item.insert("pk".to_owned(), text(keys::token(&self.digest)));
        item.insert("sk".to_owned(), text(keys::TOKEN_SK.to_owned()));
        item.insert("gsi1pk".to_owned(), text(keys::listing(self.account_id, KIND)));
        item.insert("gsi1sk".to_owned(), text(keys::record(KIND, self.id)));
        item.insert("kind".to_owned(), text("api_token".to_owned()));
        Ok(item)
    }

    fn from_item(item: Item) -> StoreResult<Self> {
        let digest = match item.get("pk") {
            Some(AttributeValue::S(pk)) => pk.trim_start_matches("TOKEN#").to_owned(),
            _ => String::new(),
        };
        let stored: StoredToken = from_item(item)?;
        Ok(TokenRecord {
            id: stored.id,
            account_id: stored.account_id,
            name: stored.name,
            token: masked(&stored.last4),
            last4: stored.last4,
            created_at: stored.created_at,
            revoked_at: stored.revoked_at,
            digest,
        })
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
    store.write(vec![Write::put_if(record.to_item()?, Condition::absent())]).await.context("store token")?;
    Ok((record, token))
}

pub async fn find(store: &Store, digest: &str) -> StoreResult<Option<TokenRecord>> {
    store.get(keys::token(digest), keys::TOKEN_SK).await?.map(TokenRecord::from_item).transpose()
}

pub async fn list(store: &Store, account_id: AccountId) -> anyhow::Result<Vec<TokenRecord>> {
    let entries = store.index_entries(keys::listing(account_id, KIND), None).await?;
    let keys: Vec<_> = entries.into_iter().map(|e| (e.pk, e.sk)).collect();
    let mut records =
        store.batch_get(&keys).await?.into_iter().map(TokenRecord::from_item).collect::<StoreResult<Vec<_>>>()?;
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
        store.write(vec![Write::put_if(record.to_item()?, Condition::present())]).await.context("revoke token")?;
    }
    Ok(Some(record))
}
