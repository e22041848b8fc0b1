//! Stored API tokens: one item per token keyed by its digest (the authorizer's single read), listed
//! per account through the listing index.

use std::collections::HashMap;

use anyhow::Context as _;
use serde::Serialize;

use super::token::{masked, ApiToken};
use crate::accounts::AccountId;
use crate::store::item::{n, opt_s, s};
use crate::store::{keys, Condition, Item, ItemExt, Store, Write};
use crate::time::Timestamp;

const KIND: &str = "TOKEN";

#[derive(Clone, Debug, Serialize)]
pub struct TokenRecord {
    pub id: i64,
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
    fn to_item(&self) -> Item {
        HashMap::from([
            ("pk".to_owned(), s(keys::token(&self.digest))),
            ("sk".to_owned(), s(keys::TOKEN_SK)),
            ("gsi1pk".to_owned(), s(keys::listing(self.account_id, KIND))),
            ("gsi1sk".to_owned(), s(keys::record(KIND, self.id))),
            ("kind".to_owned(), s("api_token")),
            ("id".to_owned(), n(self.id)),
            ("account_id".to_owned(), n(self.account_id)),
            ("name".to_owned(), s(&self.name)),
            ("last4".to_owned(), s(&self.last4)),
            ("created_at".to_owned(), s(self.created_at.to_string())),
            ("revoked_at".to_owned(), opt_s(self.revoked_at.map(|t| t.to_string()))),
        ])
    }

    fn from_item(item: &Item) -> anyhow::Result<Self> {
        let pk = item.string("pk")?;
        let last4 = item.string("last4")?;
        Ok(TokenRecord {
            id: item.int("id")?,
            account_id: item.int("account_id")?,
            name: item.string("name")?,
            token: masked(&last4),
            last4,
            created_at: item.timestamp("created_at")?,
            revoked_at: item.opt_timestamp("revoked_at"),
            digest: pk.trim_start_matches("TOKEN#").to_owned(),
        })
    }
}

/// Creates a token for the account; the plain token is returned once and never stored.
pub async fn create(store: &Store, account_id: AccountId, name: &str) -> anyhow::Result<(TokenRecord, ApiToken)> {
    let name = crate::text::collapse_whitespace(name);
    anyhow::ensure!(!name.is_empty(), "a token needs a descriptive name");
    let token = ApiToken::generate();
    let id = store.next_id(keys::account(account_id), keys::sequence(KIND)).await?;
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
    store.write(vec![Write::put_if(record.to_item(), Condition::absent())]).await.context("store token")?;
    Ok((record, token))
}

pub async fn find(store: &Store, digest: &str) -> anyhow::Result<Option<TokenRecord>> {
    let item = store.get(keys::token(digest), keys::TOKEN_SK).await?;
    item.map(|i| TokenRecord::from_item(&i)).transpose()
}

pub async fn list(store: &Store, account_id: AccountId) -> anyhow::Result<Vec<TokenRecord>> {
    let entries = store.index_entries(keys::listing(account_id, KIND), None).await?;
    let keys: Vec<_> = entries.into_iter().map(|e| (e.pk, e.sk)).collect();
    let mut records =
        store.batch_get(&keys).await?.iter().map(TokenRecord::from_item).collect::<anyhow::Result<Vec<_>>>()?;
    records.sort_by_key(|r| r.id);
    Ok(records)
}

/// Revokes a token of the account, for good. Returns the record, or `None` if the account has no
/// token with that id. Revoking twice keeps the first revocation time.
pub async fn revoke(store: &Store, account_id: AccountId, id: i64) -> anyhow::Result<Option<TokenRecord>> {
    let Some(mut record) = list(store, account_id).await?.into_iter().find(|r| r.id == id) else {
        return Ok(None);
    };
    if record.revoked_at.is_none() {
        record.revoked_at = Some(Timestamp::now());
        store.write(vec![Write::put_if(record.to_item(), Condition::present())]).await.context("revoke token")?;
    }
    Ok(Some(record))
}
