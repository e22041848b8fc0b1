//! The confirmation a destructive command asks for against AWS: what it will take away, and the
//! question on the terminal that names the account (`crate::target::consent` decides whether to
//! ask, refuse or go on).

use anyhow::Context as _;
use billing_api::store::Store;
use billing_api::values::AccountId;

use crate::target;

/// A command that deletes, revokes, disables, locks, refunds or replaces a secret: against AWS
/// it runs only once confirmed (`crate::target::consent`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Destructive {
    /// What will happen, as the question and the refusal say it.
    pub what: String,
    /// The account it changes, when one (the question names it).
    pub account: Option<AccountId>,
}

impl Destructive {
    /// What will happen to `account`.
    pub fn on(account: AccountId, what: String) -> Destructive {
        Destructive { what, account: Some(account) }
    }
}

/// Asks on the terminal before a destructive command against AWS (`place`: where the run works;
/// its account named by id and name); `Ok` once the operator typed yes.
pub async fn ask_first(store: &Store, place: &str, action: &Destructive) -> anyhow::Result<()> {
    let account = match action.account {
        Some(id) => match billing_api::accounts::find(store, id).await {
            Ok(Some(found)) => format!(" Account {id}: {}.", found.name),
            Ok(None) => format!(" Account {id} does not exist."),
            Err(_) => String::new(),
        },
        None => String::new(),
    };
    let question = format!("On AWS ({place}), this will {}.{account} Go ahead?", action.what);
    let answer = tokio::task::spawn_blocking(move || {
        target::ask(&question, &mut std::io::stdin().lock(), &mut std::io::stderr().lock())
    })
    .await?
    .context("read the answer")?;
    Ok(target::confirmed(&action.what, answer)?)
}
