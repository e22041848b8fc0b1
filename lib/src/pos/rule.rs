//! The on-account rule (§2.4, rules 1–7) as the point of sale applies it.
//!
//! 1. While no tag of the account allows on-account sales, every customer may buy on account.
//! 2. Once one does, only holders of such a tag may leave an amount open (and marking the first tag
//!    applies to everyone at once, rule 6: the count of marked tags is one counter).
//! 3. The contact's `on_account_limit` still caps what it owes.
//! 4. Only new on-account amounts are refused: receipts, returns and settlements go on.
//! 5. Paying with credit, and taking a return as credit, follow the same rule; adding credit
//!    through the API does not.
//!
//! The tag check reads the tags at the time of the sale; the limit is checked against the contact
//! read on its version, which the sale's transaction writes, so two sales at once cannot both pass.

use crate::contacts::{on_account_tags_marked, Contact};
use crate::refusal::{Problem, Refusal};
use crate::store::{records, Store};
use crate::tags::Tag;
use crate::values::{AccountId, Money};

pub const MSG_ON_ACCOUNT_REFUSED: &str =
    "Venda a prazo não permitida: o cliente não tem etiqueta que permita venda a prazo";
pub const MSG_CREDIT_REFUSED: &str =
    "Crédito do cliente não pode ser usado: o cliente não tem etiqueta que permita venda a prazo";

/// Whether the contact may leave amounts open and use credits now (rules 1, 2 and 5–7).
pub async fn allowed(store: &Store, account: AccountId, contact: &Contact) -> Result<bool, Refusal> {
    let marked = on_account_tags_marked(store, account).await?;
    if marked <= 0 {
        return Ok(true);
    }
    let tags = records::find_many::<Tag>(store, account, &contact.tag_ids).await?;
    Ok(crate::contacts::view::on_account_allowed(marked, tags.iter().any(|t| t.allows_on_account)))
}

/// Rule 3: leaving `more` open must keep the contact within its limit.
pub fn within_limit(contact: &Contact, more: Money) -> Result<(), Refusal> {
    let Some(limit) = contact.on_account_limit else { return Ok(()) };
    let owed = contact.on_account_balance + more;
    if owed > limit {
        let message = format!(
            "Limite de venda a prazo excedido: limite {limit}, em aberto {}, nesta venda {more}",
            contact.on_account_balance
        );
        return Err(Refusal::invalid(Problem::too_large("payments", message)));
    }
    Ok(())
}

/// Paying `amount` with credit needs that much balance.
pub fn enough_credit(contact: &Contact, amount: Money) -> Result<(), Refusal> {
    if amount > contact.credit_balance {
        let message = format!("Saldo de crédito insuficiente: saldo {}, nesta venda {amount}", contact.credit_balance);
        return Err(Refusal::invalid(Problem::too_large("payments", message)));
    }
    Ok(())
}
