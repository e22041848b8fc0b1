//! The boleto's channel: what a bank reports of a billet's payment (a return file's line, or the
//! simulated bank's payment by `infra/ops billing pay`) as one [`Payment`](super::Payment). The
//! payment's provider id is the billet's reference, which the bank knows it by: a boleto is paid
//! once, however many files say so.

use chrono::NaiveDate;

use crate::billings::model::Billing;
use crate::payments::{apply, Applied, Channel, ChannelRoom, Outcome, Payment};
use crate::refusal::Refusal;
use crate::store::Store;
use crate::values::{AccountId, BilletId, BillingId, Money};

/// A payment a bank reported.
#[derive(Clone, Debug)]
pub struct Reported {
    pub amount: Money,
    pub paid_on: NaiveDate,
    /// The bank's fee, deducted from what is credited.
    pub fee: Money,
}

/// The payment the bank reported of billet `billet` of billing `billing`, credited on the next
/// business day, less the fee.
pub fn payment(billing: BillingId, billet: BilletId, reported: &Reported) -> Payment {
    Payment {
        channel: Channel::BankBillet,
        provider_id: format!("{billing}/{billet}"),
        billet_id: Some(billet),
        amount: reported.amount,
        paid_on: reported.paid_on,
        fee: reported.fee,
        credit_on: crate::billets::provider::credit_date(reported.paid_on),
        net_amount: reported.amount - reported.fee,
        paid_off: None,
    }
}

/// The simulated bank pays the billing's opened billet (`infra/ops billing pay`), as a payer
/// at a bank would: applied as any payment ([`apply`]). An error when the billing has no opened
/// billet, when that billet's payment was applied before, or when the payment is kept to refund.
pub async fn pay(store: &Store, account: AccountId, id: BillingId, reported: &Reported) -> anyhow::Result<Billing> {
    let (billing, billets) = match crate::billings::service::whole_or_404(store, account, id).await {
        Ok(found) => found,
        Err(Refusal::NotFound) => anyhow::bail!("no billing {id}"),
        Err(other) => return Err(anyhow::anyhow!("bank payment: {other}")),
    };
    let opened = billets.iter().find(|b| Some(b.id) == billing.billet_id && b.status.collectable());
    let Some(billet) = opened else {
        anyhow::bail!("billing {id} has no registered (opened) bank billet yet (it is {})", billing.status);
    };
    let payment = super::Boleto::payment(reported, id, Some(billet.id)).map_err(anyhow::Error::msg)?;
    match apply(store, account, id, &payment).await {
        Ok(Applied::Settled(billing)) => Ok(*billing),
        Ok(Applied::Already(Outcome::Settled)) => anyhow::bail!("billet {} of billing {id} was paid before", billet.id),
        Ok(Applied::Already(Outcome::ToRefund)) => {
            anyhow::bail!("billet {} of billing {id}: kept to refund before", billet.id)
        }
        Ok(Applied::ToRefund(why)) => anyhow::bail!("billing {id}: the payment is kept to refund ({why})"),
        Err(Refusal::Invalid(problems)) => {
            anyhow::bail!("bank payment: {}", crate::refusal::messages(&problems).join("; "))
        }
        Err(other) => Err(anyhow::anyhow!("bank payment: {other}")),
    }
}
