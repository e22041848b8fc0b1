//! The Pix channel (DESIGN §10): a billing's charge with a due date (`cobv`) at its bank rule's
//! Pix institution (PSP), through the Banco Central's API Pix, and what the PSP says of its
//! payment as one [`Payment`](super::Payment).
//!
//! - **The charge** ([`charge`]): made with the billet at its registration
//!   (`payments::registrar`, [`charge_billet`]), revised by a re-issue's billet, removed
//!   when the billing stops being payable here ([`charge::removed`]; `payments::withdrawals` asks for it in the change's
//!   transaction; the Pix charges worker, [`handle_batch`], calls the PSP).
//! - **A payment** comes by the PSP's webhook ([`receive`]: `POST <webhookUrl>/pix`, over mutual
//!   TLS) or by the reconciliation of `GET /pix` ([`reconcile`]). Neither is believed as told: a
//!   webhook's payment is read back from the PSP (`GET /pix/{e2eid}`) with the service's own
//!   credentials, and the list is the PSP's own answer. Each becomes a [`Payment`] whose provider
//!   id is the `endToEndId`, applied once (its ledger entry read first, then
//!   [`super::apply_new`]); what the PSP reports given back of it (`devolucoes`) is recorded by
//!   [`super::record_refund`].
//! - **Pix Automático** ([`automatic`]): a schedule's recurrence the payer authorizes once, and a
//!   `cobr` per cycle whose Pix is applied as any.

pub mod automatic;
pub mod charge;
pub mod cobv;
pub mod psp;
pub mod routes;

use anyhow::Context as _;
use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};

use self::psp::{PspError, Received};
use super::channel::Withdrawal;
use super::{apply_new, Applied, Channel, Outcome, Payment};
use crate::accounts::Account;
use crate::billets::model::{BankBillet, BilletStatus};
use crate::billings::billets::lifecycle::BilletWrite;
use crate::billings::model::Billing;
use crate::jobs::{Automatic, PixCharge};
use crate::refusal::Refusal;
use crate::store::stored;
use crate::store::{keys, Item, KeyRange, Sort, Store, StoreResult};
use crate::values::{calendar::sao_paulo, AccountId, BankRuleId, BilletId, BillingId, Money};

pub use crate::bank_rules::PixLink as Link;

/// The Pix channel's room.
pub struct Pix;

impl super::ChannelRoom for Pix {
    const NAME: Channel = Channel::Pix;
    type Report = Received;

    fn payment(received: &Received, billing: BillingId, billet: Option<BilletId>) -> Result<Payment, String> {
        payment(received, billet.ok_or_else(|| super::channel::no_billet(billing))?)
    }

    /// On a rule with a Pix institution, the billing's charge with this billet's terms (made, or
    /// revised for a re-issue), and the billet carries its code; a billet the bank refused, or
    /// terms the API Pix cannot say, has none. A PSP that cannot be reached fails.
    async fn charge(owner: &Account, billing: &Billing, billet: &mut BankBillet) -> anyhow::Result<()> {
        let payable = matches!(billet.status, BilletStatus::Opened | BilletStatus::PendingRemittance);
        match payable {
            true => match charge_billet(owner.id, billing, billet).await? {
                Some(code) => billet.registered.pix_qr_code = Some(code),
                None => billet.pix_psp = None,
            },
            false => billet.pix_psp = None,
        }
        Ok(())
    }

    /// The billing's charge removed at the PSP that holds it (`REMOVIDA_PELO_USUARIO_RECEBEDOR`);
    /// one the PSP holds paid or removed is left as it is.
    async fn remove(
        store: &Store,
        account: AccountId,
        billing: BillingId,
        withdrawal: Withdrawal,
    ) -> anyhow::Result<()> {
        let Withdrawal::PixCharge(secret_id) = withdrawal else { return Ok(()) };
        let psp = psp::registry().client(&secret_id).await?;
        charge::remove(&psp, &charge::txid(account, billing)).await.context("removing the Pix charge")?;
        // A cycle's Pix Automático debit not made yet goes with it.
        automatic::withdraw(store, account, billing).await
    }

    /// The billing's charge, when its billet closes and the billing does not go on with the same
    /// PSP's charge ([`charge::removed`]).
    fn withdrawn(account: AccountId, _: &Billing, next: &Billing, billet: Option<&BilletWrite>) -> Option<Withdrawal> {
        billet.and_then(|b| charge::removed(account, next, b)).map(Withdrawal::PixCharge)
    }
}

/// Up to `limit` links from `start` (where the page before ended), and where the next page starts.
pub async fn links(store: &Store, start: Option<Item>, limit: usize) -> StoreResult<(Vec<Link>, Option<Item>)> {
    let range = KeyRange::listing(keys::payment::PIX_PSPS.to_owned(), Sort::All, true);
    let page = store.page(&range, limit, start).await?;
    Ok((stored::read_all::<Link>(page.items)?, page.next))
}

/// The billing's Pix charge with this billet's terms, made or revised at the PSP of the billet's
/// rule (`pix_psp`, copied from the rule when the billet was issued): its `pixCopiaECola`, to store
/// on the billet; none when the billet's rule has no PSP, or when the PSP refuses the charge
/// (logged: the billet is still a boleto). `Err`: try again later (the PSP could not be reached).
pub async fn charge_billet(
    account: AccountId,
    billing: &Billing,
    billet: &BankBillet,
) -> anyhow::Result<Option<String>> {
    let Some(secret_id) = billet.pix_psp.as_deref() else { return Ok(None) };
    let psp = psp::registry().client(secret_id).await?;
    let body = match charge::body(billing, billet, psp.pix_key()) {
        Ok(body) => body,
        Err(problems) => {
            let why = crate::refusal::messages(&problems).join("; ");
            tracing::warn!(billing = %billing.id, why, "the billing's terms have no Pix charge: boleto only");
            return Ok(None);
        }
    };
    let txid = charge::txid(account, billing.id);
    match charge::make(&psp, &txid, &body, billet.generation > 1).await {
        Ok(cobv) => Ok(cobv.copy_paste),
        Err(PspError::Refused { status, detail }) => {
            tracing::warn!(billing = %billing.id, status, detail, "the PSP refused the Pix charge: boleto only");
            Ok(None)
        }
        Err(error) => Err(anyhow::Error::new(error).context("Pix charge")),
    }
}

/// The Pix charges worker: removes each message's charge at its PSP ([`Pix`]'s `remove`), or
/// sends a cycle's Pix Automático debit, or cancels a deleted schedule's recurrence.
pub async fn handle_batch(store: &Store, event: SqsEvent) -> SqsBatchResponse {
    crate::jobs::handle_batch(event, "pix charge", |message: PixCharge| async move {
        let (account, billing) = (message.account_id, message.billing_id);
        match message.automatic {
            Some(Automatic::Debit) => automatic::debit(store, account, billing).await.map(|_| ()),
            Some(Automatic::Stop) => automatic::stop(store, account, billing).await,
            None => {
                let withdrawal = Withdrawal::PixCharge(message.secret_id);
                <Pix as super::ChannelRoom>::remove(store, account, billing, withdrawal).await
            }
        }
    })
    .await
}

/// A Pix received as a [`Payment`] of the billet `billet_id`: paid on its date in Brasília, no
/// fee known (the PSP's tariff comes in its statement, not in the API Pix), credited at once.
pub fn payment(received: &Received, billet_id: crate::values::BilletId) -> Result<Payment, String> {
    let amount: Money = received.valor.parse().map_err(|_| format!("valor {:?} não é um valor", received.valor))?;
    let paid_on = received.horario.with_timezone(&sao_paulo()).date_naive();
    Ok(Payment {
        channel: Channel::Pix,
        provider_id: received.end_to_end_id.clone(),
        billet_id: Some(billet_id),
        amount,
        paid_on,
        fee: Money::ZERO,
        credit_on: paid_on,
        net_amount: amount,
        paid_off: None,
    })
}

/// What the PSP reports given back of a Pix: the sum of its refunds done (`DEVOLVIDO`).
fn refunded(received: &Received) -> Money {
    received
        .devolucoes
        .iter()
        .filter(|d| d.status == "DEVOLVIDO")
        .filter_map(|d| d.valor.parse::<Money>().ok())
        .fold(Money::ZERO, |sum, value| sum + value)
}

/// What became of one Pix.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "result")]
pub enum Taken {
    /// It settled its billing.
    Settled,
    /// Kept to refund (the billing was settled otherwise).
    ToRefund { why: String },
    /// Applied before.
    Already,
    /// Not a payment of ours: a txid we did not make, of another account, or none.
    NotOurs,
    /// The PSP does not know it (a forged call), or knows it otherwise than told.
    Unconfirmed,
}

/// Applies one Pix a PSP of account `owner` confirmed.
pub async fn take(store: &Store, owner: AccountId, received: &Received) -> Result<Taken, Refusal> {
    let Some((account, billing_id)) = received.txid.as_deref().and_then(charge::parse_txid) else {
        return Ok(Taken::NotOurs);
    };
    if account != owner {
        return Ok(Taken::NotOurs);
    }
    // Applied before (the webhook and then the reconciliation, a webhook twice): one read, and
    // only what the PSP gave back of it since is news.
    if let Some(entry) = super::entry_of(store, account, Channel::Pix, &received.end_to_end_id).await? {
        let refunded = refunded(received);
        if refunded.is_positive() && refunded != entry.refunded {
            if let Some(billet_id) = entry.billet_id {
                let payment = payment(received, billet_id).map_err(|why| Refusal::Internal(anyhow::anyhow!(why)))?;
                Box::pin(super::record_refund(store, account, &payment, refunded)).await?;
            }
        }
        return Ok(Taken::Already);
    }
    // The billet it pays is the billing's current one: the charge carries its terms.
    let (billing, _) = match crate::billings::service::whole_or_404(store, account, billing_id).await {
        Ok(found) => found,
        Err(Refusal::NotFound) => return Ok(Taken::NotOurs),
        Err(other) => return Err(other),
    };
    let Some(billet_id) = billing.billet_id else { return Ok(Taken::NotOurs) };
    let payment = match <Pix as super::ChannelRoom>::payment(received, billing_id, Some(billet_id)) {
        Ok(payment) => payment,
        Err(why) => {
            tracing::warn!(why, e2e = received.end_to_end_id, "a Pix that is not a payment");
            return Ok(Taken::Unconfirmed);
        }
    };
    let taken = match Box::pin(apply_new(store, account, billing_id, &payment)).await? {
        Applied::Settled(_) => Taken::Settled,
        Applied::ToRefund(why) => Taken::ToRefund { why },
        Applied::Already(Outcome::Settled | Outcome::ToRefund) => Taken::Already,
    };
    // What the PSP gave back of it (a `devolucao` the account asked for), recorded once.
    let refunded = refunded(received);
    if refunded.is_positive() {
        Box::pin(super::record_refund(store, account, &payment, refunded)).await?;
    }
    Ok(taken)
}

/// A Pix as the webhook tells it (`POST <webhookUrl>/pix`, body `{"pix": [...]}`).
#[derive(Clone, Debug, Deserialize)]
pub struct Notice {
    #[serde(rename = "endToEndId")]
    pub end_to_end_id: String,
    #[serde(default)]
    pub txid: Option<String>,
    pub valor: String,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Notices {
    pub pix: Vec<Notice>,
}

/// The most Pix one webhook call may tell (the PSPs send a few; more is not a PSP's call).
pub const MAX_NOTICES: usize = 100;

/// Takes a webhook call of bank rule `rule`'s PSP: each Pix it tells is read back from the PSP
/// and, when the PSP confirms it as told, applied. `Err`: the PSP could not be asked (the call
/// fails, and the PSP calls again).
pub async fn receive(
    store: &Store,
    account: AccountId,
    rule: BankRuleId,
    notices: &Notices,
) -> anyhow::Result<Vec<Taken>> {
    let found = stored::find::<Link>(store, keys::payment::pix_psp(account, rule)).await?;
    let Some(link) = found else { return Ok(vec![Taken::NotOurs; notices.pix.len()]) };
    let psp = psp::registry().client(&link.secret_id).await?;
    let mut taken = Vec::with_capacity(notices.pix.len());
    for notice in &notices.pix {
        let confirmed = psp.pix(&notice.end_to_end_id).await.context("reading the Pix back from the PSP")?;
        let told =
            |r: &Received| r.txid == notice.txid && r.valor.parse::<Money>().ok() == notice.valor.parse::<Money>().ok();
        let outcome = match confirmed {
            Some(received) if told(&received) => {
                Box::pin(take(store, link.account_id, &received)).await.map_err(|e| anyhow::anyhow!("{e}"))?
            }
            _ => {
                tracing::warn!(e2e = notice.end_to_end_id, "a Pix the PSP does not confirm: ignored");
                Taken::Unconfirmed
            }
        };
        taken.push(outcome);
    }
    Ok(taken)
}

/// What a reconciliation of one PSP did.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Reconciled {
    pub pages: u32,
    pub received: usize,
    /// Applied now: no webhook brought them.
    pub settled: usize,
    pub to_refund: usize,
    pub already: usize,
    pub not_ours: usize,
}

/// Reads the Pix `link`'s PSP received between `from` and `to`, page by page, and applies what was
/// not applied yet.
pub async fn reconcile(
    store: &Store,
    link: &Link,
    from: DateTime<FixedOffset>,
    to: DateTime<FixedOffset>,
) -> anyhow::Result<Reconciled> {
    let psp = psp::registry().client(&link.secret_id).await?;
    let mut done = Reconciled::default();
    let mut page = 0;
    loop {
        let answer = psp.received(from, to, page).await.context("GET /pix")?;
        done.pages += 1;
        for received in &answer.pix {
            done.received += 1;
            match Box::pin(take(store, link.account_id, received)).await.map_err(|e| anyhow::anyhow!("{e}"))? {
                Taken::Settled => done.settled += 1,
                Taken::ToRefund { .. } => done.to_refund += 1,
                Taken::Already => done.already += 1,
                Taken::NotOurs | Taken::Unconfirmed => done.not_ours += 1,
            }
        }
        page += 1;
        if page >= answer.parameters.paging.pages {
            return Ok(done);
        }
    }
}

/// Reconciles every PSP link for the `hours` before now; returns what each did (the failures are
/// logged, and the others go on).
pub async fn reconcile_all(store: &Store, hours: i64) -> anyhow::Result<Vec<(Link, Reconciled)>> {
    let to = chrono::Utc::now().with_timezone(&sao_paulo());
    let from = to - chrono::Duration::hours(hours);
    let mut done = Vec::new();
    let mut after = None;
    loop {
        let (links, next) = links(store, after, 100).await?;
        for link in links {
            match Box::pin(reconcile(store, &link, from, to)).await {
                Ok(reconciled) => done.push((link, reconciled)),
                Err(error) => {
                    tracing::error!(error = ?error, account = %link.account_id, rule = %link.bank_rule_id, "Pix reconciliation failed")
                }
            }
        }
        match next {
            Some(next) => after = Some(next),
            None => return Ok(done),
        }
    }
}
