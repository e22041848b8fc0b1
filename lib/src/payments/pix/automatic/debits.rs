//! Pix Automático's debits (see the module above): the `cobr` of each cycle of an authorized
//! recurrence, sent once; what `webhookcobr` tells, read back and applied; the retries and the
//! debit that fails for good; a pending debit cancelled when its billing is settled otherwise.

use anyhow::Context as _;
use chrono::Days;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{recurrence, txid, Told, RETRY_POLICY};
use crate::billets::model::BankBillet;
use crate::billings::model::Billing;
use crate::jobs::{tasks, Automatic, PixCharge};
use crate::payments::pix::psp::{self, CobR, PspError};
use crate::payments::pix::{take, Taken};
use crate::store::records;
use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, Store, Write};
use crate::values::{today, AccountId, BillingId, BillingStatus, BillingType, Timestamp};

const RETRIES: usize = 3;
const RETRY_DAYS: u64 = 7;

/// The mark of a cycle's debit sent (what [`withdraw`] cancels).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Debit {
    pub account_id: AccountId,
    pub billing_id: BillingId,
    pub secret_id: String,
    pub txid: String,
    pub sent_at: Timestamp,
}

impl Stored for Debit {
    const KIND: Option<&'static str> = Some("pix_debit");
    type Scope<'a> = ();

    fn key(&self, (): ()) -> Key {
        keys::payment::pix_debit(self.account_id, self.billing_id)
    }
}

/// The Pix charges message that debits `billing` (a schedule's cycle, its billet `billet` just
/// registered) when its schedule's recurrence is authorized at the billet's PSP.
pub async fn debit_task(
    store: &Store,
    account: AccountId,
    billing: &Billing,
    billet: &BankBillet,
) -> anyhow::Result<Option<Write>> {
    let (Some(schedule), Some(secret_id)) = (billing.parent_id, billet.pix_psp.as_ref()) else { return Ok(None) };
    if billing.billing_type != BillingType::Billing {
        return Ok(None);
    }
    let authorized = recurrence(store, account, schedule).await?;
    if !authorized.is_some_and(|r| r.status == "APROVADA" && &r.secret_id == secret_id) {
        return Ok(None);
    }
    let message = PixCharge {
        account_id: account,
        billing_id: billing.id,
        secret_id: secret_id.clone(),
        automatic: Some(Automatic::Debit),
    };
    Ok(Some(tasks::one(account, message)?))
}

/// What sending a cycle's debit came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Debited {
    /// The `cobr` is at the PSP (made now, or before).
    Sent(String),
    /// Nothing to debit: the billing no longer open, the recurrence no longer authorized, or the
    /// due date less than two days ahead (the billing is paid the other ways).
    Nothing(&'static str),
    /// The PSP refused it (logged; the billing is paid the other ways).
    Refused(String),
}

/// Sends billing `billing_id`'s debit, once (see the module's documentation).
pub async fn debit(store: &Store, account: AccountId, billing_id: BillingId) -> anyhow::Result<Debited> {
    let Some(billing) = records::find::<Billing>(store, account, billing_id).await? else {
        return Ok(Debited::Nothing("no billing"));
    };
    let (Some(schedule), Some(billet_id)) = (billing.parent_id, billing.billet_id) else {
        return Ok(Debited::Nothing("not a registered cycle"));
    };
    if billing.status != BillingStatus::Opened {
        return Ok(Debited::Nothing("not open"));
    }
    if billing.due_date < today() + Days::new(2) {
        return Ok(Debited::Nothing("due in less than two days"));
    }
    let (found, billet) = tokio::try_join!(
        recurrence(store, account, schedule),
        crate::billets::model::find(store, account, billing_id, billet_id)
    )?;
    let (Some(rec), Some(billet)) = (found.filter(|r| r.status == "APROVADA"), billet) else {
        return Ok(Debited::Nothing("no recurrence authorized"));
    };
    let psp = psp::registry().client(&rec.secret_id).await?;
    let txid = txid(account, billing_id);
    let bank = &billet.bank_account;
    let conta: String = format!("{}{}", bank.account_number, bank.account_digit).chars().take(20).collect();
    let agencia: String = bank.agency_number.chars().take(4).collect();
    let body = json!({
        "idRec": rec.id_rec,
        "calendario": { "dataDeVencimento": billing.due_date },
        "valor": { "original": format!("{:.2}", billet.amount.get()) },
        "ajusteDiaUtil": true,
        "recebedor": { "conta": conta, "tipoConta": "CORRENTE", "agencia": agencia },
        "infoAdicional": format!("Cobrança {}", billing.code).chars().take(140).collect::<String>(),
    });
    let sent = match psp.put_cobr(&txid, &body).await {
        Ok(()) => true,
        // Made before (a redelivery, an answer lost): the PSP holds it.
        Err(PspError::Refused { status, detail }) => match psp.cobr(&txid).await? {
            Some(_) => true,
            None => {
                tracing::warn!(billing = %billing_id, status, detail, "the PSP refused the Pix Automático debit");
                return Ok(Debited::Refused(detail));
            }
        },
        Err(error) => return Err(anyhow::Error::new(error).context("PUT /cobr")),
    };
    if sent {
        let mark = Debit {
            account_id: account,
            billing_id,
            secret_id: rec.secret_id,
            txid: txid.clone(),
            sent_at: Timestamp::now(),
        };
        store.write(vec![Write::put(stored::item_of(&mark, ())?)]).await?;
    }
    Ok(Debited::Sent(txid))
}

/// The billing's pending debit cancelled at its PSP (the billing settled otherwise, or
/// cancelled); one concluded, or never sent, is left as it is.
pub async fn withdraw(store: &Store, account: AccountId, billing: BillingId) -> anyhow::Result<()> {
    let Some(mark) = stored::find::<Debit>(store, keys::payment::pix_debit(account, billing)).await? else {
        return Ok(());
    };
    let psp = psp::registry().client(&mark.secret_id).await?;
    match psp.cancel_cobr(&mark.txid).await {
        Ok(()) | Err(PspError::Refused { .. }) => Ok(()),
        Err(error) => Err(anyhow::Error::new(error).context("PATCH /cobr")),
    }
}

/// Takes `webhookcobr`'s notices: each debit of ours (its txid names the cycle, whose mark names
/// the PSP it was sent to) read back from that PSP; paid, its Pix applied; failed, tried again or
/// given up (see the module's documentation).
pub async fn settle(store: &Store, txids: &[String]) -> anyhow::Result<Vec<Told>> {
    let mut told = Vec::with_capacity(txids.len());
    for txid in txids {
        let ours = crate::payments::pix::charge::parse_txid(txid).filter(|(a, b)| super::txid(*a, *b) == *txid);
        let mark = match ours {
            Some((account, billing)) => {
                stored::find::<Debit>(store, keys::payment::pix_debit(account, billing)).await?
            }
            None => None,
        };
        let Some(mark) = mark else {
            told.push(Told::Unknown);
            continue;
        };
        let psp = psp::registry().client(&mark.secret_id).await?;
        let Some(cobr) = psp.cobr(txid).await.context("GET /cobr")? else {
            told.push(Told::Unknown);
            continue;
        };
        told.push(Box::pin(settle_one(store, &mark, &psp, &cobr)).await?);
    }
    Ok(told)
}

async fn settle_one(store: &Store, mark: &Debit, psp: &psp::Psp, cobr: &CobR) -> anyhow::Result<Told> {
    let (account, billing) = (mark.account_id, mark.billing_id);
    match cobr.status.as_str() {
        "CONCLUIDA" => {
            let mut taken = Vec::new();
            for paid in &cobr.pix {
                let received = psp.pix(&paid.end_to_end_id).await.context("GET /pix")?;
                match received.filter(|r| r.txid.as_deref() == Some(cobr.txid.as_str())) {
                    Some(received) => {
                        taken.push(Box::pin(take(store, account, &received)).await.map_err(|e| anyhow::anyhow!("{e}"))?)
                    }
                    None => taken.push(Taken::Unconfirmed),
                }
            }
            Ok(Told::Paid { taken })
        }
        "ATIVA" | "CRIADA" => {
            let pending = cobr.tentativas.iter().any(|a| matches!(a.status.as_str(), "AGENDADA" | "SOLICITADA"));
            let Some(last) = cobr.tentativas.iter().max_by_key(|a| a.date).filter(|_| !pending) else {
                return Ok(Told::Waiting);
            };
            let next = (last.date + Days::new(1)).max(today() + Days::new(1));
            let allowed = cobr.retry_policy.as_deref() == Some(RETRY_POLICY)
                && cobr.tentativas.len() <= RETRIES
                && next <= cobr.calendario.due + Days::new(RETRY_DAYS);
            if allowed {
                match psp.retry_cobr(&cobr.txid, next).await {
                    Ok(()) => return Ok(Told::Retried { on: next }),
                    Err(PspError::Refused { status, detail }) => {
                        tracing::warn!(
                            txid = cobr.txid,
                            status,
                            detail,
                            "the PSP refused a retry of a Pix Automático debit"
                        );
                    }
                    Err(error) => return Err(anyhow::Error::new(error).context("POST retentativa")),
                }
            }
            failed(store, account, billing).await
        }
        _ => failed(store, account, billing).await,
    }
}

/// A debit failed for good: the payer reminded of the billing while it is open.
async fn failed(store: &Store, account: AccountId, billing: BillingId) -> anyhow::Result<Told> {
    if let Some(open) =
        records::find::<Billing>(store, account, billing).await?.filter(|b| b.status == BillingStatus::Opened)
    {
        crate::reminders::remind_now(store, account, &open, today()).await?;
    }
    Ok(Told::Failed)
}
