//! An account's suppressed e-mail addresses: an address that bounced for good or whose owner
//! complained gets no more reminders from the account (its deliveries are `skipped`, saying why),
//! until the operator lifts it (`infra/ops reminders unsuppress`).

use serde::{Deserialize, Serialize};

use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, Store, StoreResult};
use crate::values::{AccountId, Timestamp};

/// A suppressed address.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Suppressed {
    pub account_id: AccountId,
    pub email: String,
    /// `bounce` or `complaint`.
    pub reason: String,
    /// What the receiving server or SES said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The delivery that caused it.
    pub reference: String,
    pub suppressed_at: Timestamp,
}

impl Stored for Suppressed {
    const KIND: Option<&'static str> = Some("suppressed_address");
    type Scope<'a> = ();

    fn key(&self, (): ()) -> Key {
        keys::reminder::suppressed_address(self.account_id, &self.email)
    }
}

impl Suppressed {
    /// Why a delivery to it is skipped, in words.
    pub fn explained(&self) -> String {
        let why = match self.reason.as_str() {
            "complaint" => "o destinatário marcou um lembrete como spam",
            _ => "um lembrete voltou (endereço inexistente ou recusado)",
        };
        format!("Endereço suprimido: {why}")
    }
}

/// The account's suppression of `email`, when there is one.
pub async fn find(store: &Store, account: AccountId, email: &str) -> StoreResult<Option<Suppressed>> {
    stored::find(store, keys::reminder::suppressed_address(account, email)).await
}

/// Suppresses an address (again: the latest cause is kept).
pub async fn suppress(store: &Store, suppressed: &Suppressed) -> StoreResult<()> {
    store.write(vec![stored::put(suppressed, ())?]).await
}

/// Lifts an address's suppression; whether there was one.
pub async fn lift(store: &Store, account: AccountId, email: &str) -> StoreResult<bool> {
    let found = find(store, account, email).await?;
    if found.is_some() {
        let (pk, sk) = keys::reminder::suppressed_address(account, email);
        store.write(vec![crate::store::Write::delete(pk, sk)]).await?;
    }
    Ok(found.is_some())
}

/// The account's suppressed addresses, the first [`LISTED`] (by the digest of the address).
pub async fn list(store: &Store, account: AccountId) -> StoreResult<Vec<Suppressed>> {
    let range =
        crate::store::KeyRange::listing(keys::reminder::suppressed_addresses(account), crate::store::Sort::All, true);
    stored::read_all(store.page(&range, LISTED, None).await?.items)
}

/// Suppressed addresses a listing shows at most.
pub const LISTED: usize = 1_000;
