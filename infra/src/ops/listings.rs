//! The ops CLI's lists: accounts, and an account's bank rules, bank accounts and financial
//! categories. Each page is read by key, never by a table scan, in id order: `--after ID` starts
//! past an id, `--limit N` bounds the page, and `next_after` (when more may follow) is the
//! `--after` of the next page.

use anyhow::Context as _;
use billing_api::accounts::{self, Account};
use billing_api::bank_accounts::BankAccount;
use billing_api::bank_rules::BankRule;
use billing_api::bill_categories::BillCategory;
use billing_api::store::item::from_item;
use billing_api::store::records::{self, Record};
use billing_api::store::{keys, KeyRange, Sort, Store};
use billing_api::values::AccountId;
use serde_json::{json, Value};

/// Records a page holds at most.
pub const MAX_LIMIT: u16 = 1000;
/// Records a page holds unless told.
pub const DEFAULT_LIMIT: u16 = 50;
/// The highest id a record key holds (ten digits, `keys::record`).
const LAST_ID: i64 = 9_999_999_999;

/// Where a list page starts and how long it is.
#[derive(clap::Args, Debug)]
pub struct PageArgs {
    /// Start after this id (the previous page's `next_after`).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(i64).range(0..))]
    pub after: i64,
    /// At most this many (1 to 1000).
    #[arg(long, default_value_t = DEFAULT_LIMIT,
        value_parser = clap::value_parser!(u16).range(1..=i64::from(MAX_LIMIT)))]
    pub limit: u16,
}

/// A page of accounts by id. Account ids come from one global sequence with no listing of their
/// own, so the page asks for the ids after `after` up to the sequence's value, in one batch read;
/// an id whose account was never written (a failed create) is skipped.
pub async fn accounts(store: &Store, after: i64, limit: u16) -> anyhow::Result<Value> {
    let last = store.counter(keys::GLOBAL_PK.to_owned(), keys::sequence("ACCOUNT")).await?;
    let first = after.max(0) + 1;
    let until = last.min(after.max(0).saturating_add(i64::from(limit)));
    let wanted: Vec<_> =
        (first..=until).map(|id| (keys::account(AccountId::new(id)), keys::ACCOUNT_SK.to_owned())).collect();
    let mut found: Vec<Account> =
        store.batch_get(&wanted).await?.into_iter().map(from_item).collect::<Result<_, _>>()?;
    found.sort_by_key(|account| i64::from(account.id));
    let next_after = (until < last).then_some(until);
    Ok(json!({ "accounts": found, "next_after": next_after }))
}

pub async fn bank_rules(store: &Store, account: AccountId, after: i64, limit: u16) -> anyhow::Result<Value> {
    let (rules, next_after) = page::<BankRule>(store, account, after, limit).await?;
    Ok(json!({ "bank_rules": rules, "next_after": next_after }))
}

pub async fn bank_accounts(store: &Store, account: AccountId, after: i64, limit: u16) -> anyhow::Result<Value> {
    let (bank_accounts, next_after) = page::<BankAccount>(store, account, after, limit).await?;
    Ok(json!({ "bank_accounts": bank_accounts, "next_after": next_after }))
}

pub async fn categories(store: &Store, account: AccountId, after: i64, limit: u16) -> anyhow::Result<Value> {
    let (categories, next_after) = page::<BillCategory>(store, account, after, limit).await?;
    Ok(json!({ "bill_categories": categories, "next_after": next_after }))
}

/// The account's records of kind `R` with ids above `after`, at most `limit` of them, from one
/// query of the account's partition (`<KIND>#<id>` keys in id order); and the `--after` of the
/// next page when one more record was there. An unknown account is an error, not an empty list.
pub(crate) async fn page<R: Record>(
    store: &Store,
    account: AccountId,
    after: i64,
    limit: u16,
) -> anyhow::Result<(Vec<R>, Option<i64>)> {
    accounts::find(store, account).await?.with_context(|| format!("no account {account}"))?;
    let from = keys::record(R::KIND, after.max(0) + 1);
    let range = KeyRange::listing(keys::account(account), Sort::Between(from, keys::record(R::KIND, LAST_ID)), true);
    let take = usize::from(limit);
    let read = store.page(&range, take + 1, None).await?;
    let mut found: Vec<R> = read.items.into_iter().map(records::read).collect::<Result<_, _>>()?;
    let more = found.len() > take;
    found.truncate(take);
    let next_after = match more {
        true => found.last().map(|record| record.id().into()),
        false => None,
    };
    Ok((found, next_after))
}
