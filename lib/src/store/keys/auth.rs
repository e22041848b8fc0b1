//! Keys of API tokens, rate-limit windows and idempotency claims.

use crate::values::AccountId;

/// Lookup item of an API token: its SHA-256 digest, never the token.
pub fn token(digest: &str) -> String {
    format!("TOKEN#{digest}")
}

pub const TOKEN_SK: &str = "TOKEN";

/// The digest a token's lookup item is keyed by (its `pk`, [`token`]).
pub fn token_digest(pk: &str) -> String {
    pk.strip_prefix("TOKEN#").unwrap_or(pk).to_owned()
}

/// Request counter of one origin IP in one whole minute (minutes since the Unix epoch); removed by
/// the table's TTL.
pub fn ip_rate_window(ip: &str, minute: i64) -> String {
    format!("RL#IP#{ip}#{minute}")
}

/// Request counter of one API token (its digest) in one whole minute.
pub fn token_rate_window(digest: &str, minute: i64) -> String {
    format!("RL#TOKEN#{digest}#{minute}")
}

pub const RATE_WINDOW_SK: &str = "RL";

/// One of the items a high limit's window is counted in (`rate_limit`).
pub fn rate_window_shard(window: &str, shard: i64) -> String {
    format!("{window}#{shard}")
}

/// Partition of the claim of one idempotency key of an account (an item of its own, so that keys
/// spread over partitions and no prefix query of the account meets them); the key is hashed so
/// that any 255 characters make a short, safe key.
pub fn idempotency(account: AccountId, key: &str) -> String {
    format!("A#{account}#IDEM#{}", super::digest(key))
}

const IDEMPOTENCY_SK: &str = "IDEM";

/// The keys of the claim of one idempotency key of an account.
pub fn idempotency_claim(account: AccountId, key: &str) -> (String, String) {
    (idempotency(account, key), IDEMPOTENCY_SK.to_owned())
}

/// The request counter of one origin IP on the payer's pages in one whole minute (a window apart
/// from the API's: a page opened by many payers behind one address does not spend the API's).
pub fn page_rate_client(ip: &str) -> String {
    format!("PAGE#{ip}")
}
