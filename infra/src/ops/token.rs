//! `ops token …`: an account's API tokens: created (the plain token printed once), listed masked,
//! revoked for good (asks first on AWS). A revocation flushes the authorizer cache so that it
//! applies at once.

use anyhow::Context as _;
use billing_api::accounts;
use billing_api::auth::token_record;
use billing_api::store::Store;
use billing_api::values::{AccountId, TokenId};
use clap::Subcommand;
use serde_json::{json, Value};

use super::confirm::Destructive;
use crate::cache_flush::CacheFlusher;

#[derive(Subcommand, Debug)]
pub enum TokenCommand {
    /// Creates a token with a descriptive name and prints it once.
    Create {
        /// The account the token opens.
        #[arg(long)]
        account: AccountId,
        /// What the token is for (e.g. the integration's name).
        #[arg(long)]
        name: String,
    },
    /// Lists the account's tokens, masked.
    List {
        /// The account whose tokens to list.
        #[arg(long)]
        account: AccountId,
    },
    /// Revokes a token for good; the others keep working. The authorizer cache is flushed (on
    /// AWS twice, the authorizer's timeout apart, about 11 s). Asks first on AWS.
    Revoke {
        /// The account the token belongs to.
        #[arg(long)]
        account: AccountId,
        /// The token's id (from `token list`).
        #[arg(long)]
        id: TokenId,
    },
}

impl TokenCommand {
    /// What a revocation takes away.
    pub fn destructive(&self) -> Option<Destructive> {
        let TokenCommand::Revoke { account, id } = self else { return None };
        let what = format!("revoke API token {id} of account {account} for good (it answers 401 from now on)");
        Some(Destructive::on(*account, what))
    }
}

/// Runs one `token` command.
pub async fn run(store: &Store, flusher: &CacheFlusher, command: TokenCommand) -> anyhow::Result<Value> {
    match command {
        TokenCommand::Create { account, name } => create_token(store, account, &name).await,
        TokenCommand::List { account } => list_tokens(store, account).await,
        TokenCommand::Revoke { account, id } => revoke_token(store, flusher, account, id).await,
    }
}

/// The plain token is printed here once; only its digest and last 4 characters are stored.
pub async fn create_token(store: &Store, account: AccountId, name: &str) -> anyhow::Result<Value> {
    accounts::find(store, account).await?.with_context(|| format!("no account {account}"))?;
    let (record, token) = token_record::create(store, account, name).await?;
    Ok(json!({
        "token": record,
        "plain_token": token.expose(),
        "notice": "Store this token now: it is shown only once and cannot be recovered."
    }))
}

pub async fn list_tokens(store: &Store, account: AccountId) -> anyhow::Result<Value> {
    Ok(json!({ "tokens": token_record::list(store, account).await? }))
}

/// Revokes the token and flushes the authorizer cache so that no lookup in flight keeps it valid
/// (`CacheFlusher::flush_settled`: twice on AWS, with the authorizer's timeout between).
pub async fn revoke_token(
    store: &Store,
    flusher: &CacheFlusher,
    account: AccountId,
    id: TokenId,
) -> anyhow::Result<Value> {
    let record = token_record::revoke(store, account, id)
        .await?
        .with_context(|| format!("account {account} has no token {id}"))?;
    let mut output = json!({ "token": record });
    flusher.flush_settled().await?.add_to(&mut output);
    Ok(output)
}
