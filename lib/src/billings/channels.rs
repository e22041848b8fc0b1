//! What a billing asks of the channels that collect it (DESIGN §10), without knowing them: the
//! payment channels (`payments`) implement [`Channels`], and the edge (`app::wire`, called by every
//! function, the dev server and the test harness before the first request) installs them. A
//! billing that changes asks them what its change withdraws; a billing made on a rule asks them
//! whether they can charge its terms.

use std::sync::OnceLock;

use crate::bank_rules::BankRule;
use crate::billings::billets::lifecycle::BilletWrite;
use crate::billings::compute::Terms;
use crate::billings::model::Billing;
use crate::refusal::{Problem, Refusal};
use crate::store::{StoreResult, Write};
use crate::values::AccountId;

/// The payment channels, as a billing sees them.
pub trait Channels: Send + Sync {
    /// What the change of a billing from `current` to `next` (writing `billet`, if it writes its
    /// billet) withdraws at the channels, written in the change's transaction: the charges of a
    /// billing that stopped being payable through them.
    fn withdrawals(
        &self,
        account: AccountId,
        current: &Billing,
        next: &Billing,
        billet: Option<&BilletWrite>,
    ) -> StoreResult<Vec<Write>>;

    /// Why the channels of `rule` cannot charge `terms` (each problem naming its field).
    fn terms_refused(&self, rule: &BankRule, terms: &Terms) -> Vec<Problem>;
}

static INSTALLED: OnceLock<&'static dyn Channels> = OnceLock::new();

/// Installs the channels (once: a second call keeps the first).
pub fn install(channels: &'static dyn Channels) {
    let _ = INSTALLED.set(channels);
}

/// The installed channels; an internal error when the edge installed none (a wiring bug, never a
/// request's).
pub fn installed() -> Result<&'static dyn Channels, Refusal> {
    INSTALLED.get().copied().ok_or_else(|| Refusal::Internal(anyhow::anyhow!("no payment channels installed")))
}
