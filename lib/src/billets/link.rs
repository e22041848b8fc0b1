//! The payer's link to a billet: `{PAYER_BASE_URL}/pay/<token>`, a public page that needs
//! no credentials (`payer_page`).
//!
//! The token is 24 bytes from the system's random source in base64url (32 characters, 192 bits):
//! unguessable, and it names one billet and nothing else. It is made when the billet is issued and
//! kept on the billet (`payer_token`), so every representation of the billet shows the same link;
//! a lookup item keyed by its SHA-256 (`keys::billet::payer_link`), written in the same transaction as the
//! billet, takes a request from the token to the billet's keys in one read. The token holds no id:
//! a link tells nothing of the account or how many billings it has.
//!
//! The base is `PAYER_BASE_URL` (the template gives the payer API's address; a custom domain
//! replaces it), or what the dev server sets at start ([`set_base`]); with neither, the link is
//! the path alone.

use std::sync::OnceLock;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde::{Deserialize, Serialize};

use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, Store, StoreResult, Write};
use crate::values::{AccountId, BilletId, BillingId, Timestamp};

const TOKEN_BYTES: usize = 24;
// At least 128 bits, as unguessable links need.
const _: () = assert!(TOKEN_BYTES * 8 >= 128);
/// Characters of a token: 24 bytes in base64 without padding.
const TOKEN_CHARS: usize = TOKEN_BYTES * 4 / 3;
/// The path of the payer's pages, before the token.
pub const PATH: &str = "/pay/";

/// Where a payer's link leads: the billet, by its keys.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PayerLink {
    pub token: String,
    pub account_id: AccountId,
    pub billing_id: BillingId,
    pub billet_id: BilletId,
    pub created_at: Timestamp,
}

impl Stored for PayerLink {
    const KIND: Option<&'static str> = Some("payer_link");
    type Scope<'a> = ();

    fn key(&self, (): ()) -> Key {
        keys::billet::payer_link(&self.token)
    }
}

impl PayerLink {
    /// A new link to billet `billet_id` of the billing, with a new token.
    pub fn new(account_id: AccountId, billing_id: BillingId, billet_id: BilletId) -> PayerLink {
        PayerLink { token: new_token(), account_id, billing_id, billet_id, created_at: Timestamp::now() }
    }

    /// The write that stores it (the token's key must be free).
    pub fn insert(&self) -> StoreResult<Write> {
        stored::insert(self, ())
    }
}

/// A new token from the operating system's random source.
pub fn new_token() -> String {
    let mut bytes = [0u8; TOKEN_BYTES];
    aws_lc_rs::rand::fill(&mut bytes).expect("the system's random source");
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Whether `text` has the form of a token (checked before anything is read).
fn is_token(text: &str) -> bool {
    text.len() == TOKEN_CHARS && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The link a token names, when it exists.
pub async fn find(store: &Store, token: &str) -> StoreResult<Option<PayerLink>> {
    if !is_token(token) {
        return Ok(None);
    }
    stored::find(store, keys::billet::payer_link(token)).await
}

static BASE: OnceLock<Option<String>> = OnceLock::new();

/// `PAYER_BASE_URL`, when set and not blank, without a closing `/`.
fn configured() -> Option<String> {
    let url = std::env::var("PAYER_BASE_URL").ok()?;
    Some(url.trim().trim_end_matches('/').to_owned()).filter(|url| !url.is_empty())
}

/// Sets this process's base of links to `PAYER_BASE_URL` or else `fallback`, unless a base is set
/// already: the dev server calls it with its own address.
pub fn set_base(fallback: &str) {
    let _ = BASE.set(configured().or_else(|| Some(fallback.trim_end_matches('/').to_owned())));
}

fn base() -> &'static str {
    BASE.get_or_init(configured).as_deref().unwrap_or("")
}

/// The payer's link of a token.
pub fn url(token: &str) -> String {
    format!("{}{PATH}{token}", base())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_long_random_and_url_safe() {
        let (a, b) = (new_token(), new_token());
        assert_ne!(a, b);
        assert_eq!(a.len(), 32);
        assert!(is_token(&a) && is_token(&b), "{a} {b}");
        for bad in ["", "short", &format!("{a}x"), &a.replace(&a[..1], "/"), &format!("{}.", &a[..31])] {
            assert!(!is_token(bad), "{bad}");
        }
    }

    #[test]
    fn the_lookup_item_is_keyed_by_the_digest_of_the_token() {
        let link = PayerLink::new(AccountId::new(7), BillingId::new(3), BilletId::new(9));
        let item = stored::item_of(&link, ()).unwrap();
        let pk = item["pk"].as_s().unwrap();
        assert!(pk.starts_with("PAYLINK#") && !pk.contains(&link.token), "{pk}");
        assert_eq!(item["kind"].as_s().unwrap(), "payer_link");
        assert_eq!(stored::read::<PayerLink>(item).unwrap(), link);
    }
}
