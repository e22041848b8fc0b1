//! Pix Automático for a schedule (DESIGN §12): the payer authorizes the schedule's recurring debits
//! once, in their bank's app, and each later cycle is debited through the API Pix's `cobr`.
//!
//! - **Authorization** (journey 2: a QR code of the recurrence alone, the cycle at hand paid apart):
//!   the payer page of a schedule's billing on a rule with a PSP opens the schedule's recurrence
//!   ([`open`]: `POST /locrec`, `POST /rec` with the location, `GET /rec/{idRec}` for its QR code)
//!   and keeps it beside the schedule (`PIXREC`). Its status comes by `webhookrec`
//!   ([`follow`]), never believed as told: the recurrence is read back from the PSP, and only one
//!   whose contract names this account and schedule, with the id we keep, is taken.
//! - **Debits**: the registration of a cycle's billet writes a Pix charges message
//!   (`automatic: debit`) in its transaction when the schedule's recurrence is `APROVADA`; the
//!   worker ([`debit`]) sends the cycle's `cobr` (`PUT /cobr/{txid}`, the txid the cycle's own: a
//!   redelivery finds it made) while the due date is at least two days ahead — the rules' window is
//!   2 to 10 days before the due date, which a schedule keeps by issuing its cycles 2 to 10 days
//!   ahead ([`LEAD_DAYS`]).
//! - **Results** come by `webhookcobr` ([`settle`]), read back with `GET /cobr/{txid}`: a
//!   `CONCLUIDA` charge's Pix are read from the PSP (`GET /pix/{e2eid}`) and applied as any Pix
//!   ([`super::take`]: the one payment workflow, once per `endToEndId`); a failed attempt is tried
//!   again (`retentativa`) the next day while the recurrence's policy allows (`PERMITE_3R_7D`: up to
//!   three retries within seven days of the due date); a charge that finally fails leaves the
//!   billing open and payable by boleto, Pix and card, and the payer is reminded at once.
//! - **Stopping**: a schedule deleted cancels its recurrence at the PSP (`PATCH /rec`, by the
//!   Pix charges worker); a payer who cancels in their bank is told by `webhookrec`, and no further
//!   cycle is debited. A billing settled otherwise has its pending `cobr` cancelled with its Pix
//!   charge ([`withdraw`]).

mod debits;

use anyhow::Context as _;
use chrono::{Days, NaiveDate};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

pub use debits::{debit, debit_task, settle, withdraw, Debit, Debited};

use super::psp::{self, PspError};
use super::{Link, Taken};
use crate::billets::model::BankBillet;
use crate::billings::model::Billing;
use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, Condition, Store, StoreError, StoreResult};
use crate::values::schedule_calendar::{End, Period};
use crate::values::{today, AccountId, BankRuleId, BillingId, BillingType, Timestamp};

/// The days ahead of its due date a schedule's cycle must be issued to be debited by Pix
/// Automático: the `cobr` goes out with the cycle, 2 to 10 days before the due date.
pub const LEAD_DAYS: std::ops::RangeInclusive<u32> = 2..=10;

/// The retry policy every recurrence asks: up to three retries within seven days of the due date.
pub const RETRY_POLICY: &str = "PERMITE_3R_7D";

/// A schedule's recurrence at its PSP.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Recurrence {
    pub account_id: AccountId,
    pub schedule_id: BillingId,
    /// The secret of the PSP that holds it.
    pub secret_id: String,
    pub id_rec: String,
    /// The QR code's payload the payer scans (journey 2).
    pub copy_paste: Option<String>,
    /// The PSP's: `CRIADA`, `APROVADA`, `REJEITADA`, `EXPIRADA` or `CANCELADA`.
    pub status: String,
    pub updated_at: Timestamp,
}

impl Stored for Recurrence {
    const KIND: Option<&'static str> = Some("pix_recurrence");
    type Scope<'a> = ();

    fn key(&self, (): ()) -> Key {
        keys::payment::pix_recurrence(self.account_id, self.schedule_id)
    }
}

/// The schedule's recurrence, if any.
pub async fn recurrence(store: &Store, account: AccountId, schedule: BillingId) -> StoreResult<Option<Recurrence>> {
    stored::find(store, keys::payment::pix_recurrence(account, schedule)).await
}

/// The txid of a cycle's debit: as its Pix charge's, with `CR` (a `cobr`) for `CB`.
pub fn txid(account: AccountId, billing: BillingId) -> String {
    format!("CR{:010}B{:016}", account.get(), billing.get())
}

/// The API Pix's period of a schedule's calendar, when Pix Automático can follow it and the
/// schedule issues its cycles within the debit's window.
pub fn periodicity(schedule: &Billing) -> Option<&'static str> {
    let recurrence = schedule.recurrence.as_ref().filter(|r| LEAD_DAYS.contains(&r.lead_days))?;
    match recurrence.calendar.period {
        Period::Weekly(1) => Some("SEMANAL"),
        Period::Monthly(1) => Some("MENSAL"),
        Period::Monthly(3) => Some("TRIMESTRAL"),
        Period::Monthly(6) => Some("SEMESTRAL"),
        Period::Monthly(12) | Period::Yearly(1) => Some("ANUAL"),
        _ => None,
    }
}

/// What the payer page offers for Pix Automático.
#[derive(Clone, Debug, PartialEq)]
pub enum Offer {
    /// The recurrence to authorize: its QR code.
    Authorize(Recurrence),
    /// Authorized already.
    Authorized,
    /// Not for this billing (not a schedule's, no PSP, a period or lead Pix Automático cannot
    /// follow, a payer without CPF or CNPJ).
    NotOffered,
}

/// The recurrence of `schedule` to authorize from the page of `billing` (one of its cycles), opened
/// at the PSP of the cycle's billet when there is none waiting (see the module's documentation).
pub async fn open(
    store: &Store,
    account: AccountId,
    schedule: &Billing,
    billing: &Billing,
    billet: &BankBillet,
) -> anyhow::Result<Offer> {
    let Some(secret_id) = billet.pix_psp.as_deref() else { return Ok(Offer::NotOffered) };
    let cycle = billing.billing_type == BillingType::Billing && billing.parent_id == Some(schedule.id);
    if !cycle || schedule.billing_type != BillingType::Schedule {
        return Ok(Offer::NotOffered);
    }
    let (Some(period), Some(devedor)) = (periodicity(schedule), devedor(billet)) else {
        return Ok(Offer::NotOffered);
    };
    let previous = match recurrence(store, account, schedule.id).await? {
        Some(r) if r.status == "APROVADA" => return Ok(Offer::Authorized),
        Some(r) if r.status == "CRIADA" && r.secret_id == secret_id => return Ok(Offer::Authorize(r)),
        other => other.map(|r| r.id_rec),
    };
    let psp = psp::registry().client(secret_id).await?;
    let loc = psp.locrec().await.context("POST /locrec")?;
    let start = (billing.due_date + Days::new(1)).max(today());
    let mut calendario = json!({ "dataInicial": start, "periodicidade": period });
    if let Some(End::On(end)) = schedule.recurrence.as_ref().map(|r| r.calendar.end) {
        calendario["dataFinal"] = json!(end.max(start));
    }
    let described = schedule.items.first().map_or(schedule.code.as_str(), |item| item.description.as_str());
    let objeto: String = described.chars().take(35).collect();
    let body = json!({
        "vinculo": { "contrato": contract(account, schedule.id), "devedor": devedor, "objeto": objeto },
        "calendario": calendario,
        "valor": { "valorRec": format!("{:.2}", schedule.amount.get()) },
        "politicaRetentativa": RETRY_POLICY,
        "loc": loc.id,
    });
    let made = psp.post_rec(&body).await.context("POST /rec")?;
    let read = psp.rec(&made.id).await.context("GET /rec")?;
    let kept = Recurrence {
        account_id: account,
        schedule_id: schedule.id,
        secret_id: secret_id.to_owned(),
        id_rec: made.id,
        copy_paste: read.qr.and_then(|qr| qr.copy_paste),
        status: read.status,
        updated_at: Timestamp::now(),
    };
    if replaced(store, &kept, previous.as_deref()).await? {
        return Ok(Offer::Authorize(kept));
    }
    // Another visit opened one meanwhile: this one is withdrawn, and that one shown.
    if let Err(error) = psp.cancel_rec(&kept.id_rec).await {
        tracing::warn!(id_rec = kept.id_rec, %error, "a recurrence opened twice was not cancelled at the PSP");
    }
    match recurrence(store, account, schedule.id).await? {
        Some(r) if r.status == "APROVADA" => Ok(Offer::Authorized),
        Some(r) => Ok(Offer::Authorize(r)),
        None => Ok(Offer::NotOffered),
    }
}

/// Keeps `next` in place of the schedule's recurrence `previous` (its id; none: there was none)
/// while that is still the one kept; whether it was.
async fn replaced(store: &Store, next: &Recurrence, previous: Option<&str>) -> StoreResult<bool> {
    let condition = match previous {
        Some(id) => Condition::equals("id_rec", id),
        None => Condition::absent(),
    };
    match store.write(vec![stored::put_if(next, (), condition)?]).await {
        Ok(()) => Ok(true),
        Err(StoreError::ConditionFailed(_)) => Ok(false),
        Err(error) => Err(error),
    }
}

/// The recurrence's contract: the account and schedule it debits (`A<account>S<schedule>`).
fn contract(account: AccountId, schedule: BillingId) -> String {
    format!("A{account}S{schedule}")
}

fn parse_contract(text: &str) -> Option<(AccountId, BillingId)> {
    let (account, schedule) = text.strip_prefix('A')?.split_once('S')?;
    Some((AccountId::new(account.parse().ok()?), BillingId::new(schedule.parse().ok()?)))
}

/// The payer as the recurrence names them: CPF or CNPJ and name.
fn devedor(billet: &BankBillet) -> Option<Value> {
    let digits: String = billet.payer.payer_document.chars().filter(char::is_ascii_digit).collect();
    let name: String = billet.payer.payer_full_name.chars().take(140).collect();
    match digits.len() {
        11 => Some(json!({ "cpf": digits, "nome": name })),
        14 => Some(json!({ "cnpj": digits, "nome": name })),
        _ => None,
    }
}

/// A deleted schedule's recurrence cancelled at its PSP; one already ended is left.
pub async fn stop(store: &Store, account: AccountId, schedule: BillingId) -> anyhow::Result<()> {
    let Some(rec) = recurrence(store, account, schedule).await? else { return Ok(()) };
    if !matches!(rec.status.as_str(), "CRIADA" | "APROVADA") {
        return Ok(());
    }
    let psp = psp::registry().client(&rec.secret_id).await?;
    match psp.cancel_rec(&rec.id_rec).await {
        Ok(()) | Err(PspError::Refused { status: 400 | 404, .. }) => {}
        Err(error) => return Err(anyhow::Error::new(error).context("PATCH /rec")),
    }
    let id = rec.id_rec.clone();
    let ended = Recurrence { status: "CANCELADA".into(), updated_at: Timestamp::now(), ..rec };
    replaced(store, &ended, Some(&id)).await?;
    Ok(())
}

/// What a `webhookrec` or `webhookcobr` notice came to.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "result")]
pub enum Told {
    /// The recurrence's status, as the PSP has it now.
    Recurrence { status: String },
    /// The debit's Pix, applied as any.
    Paid { taken: Vec<Taken> },
    /// Another attempt asked for this day.
    Retried { on: NaiveDate },
    /// The debit failed for good: the billing stays open and the payer is reminded.
    Failed,
    /// Still waiting for an attempt.
    Waiting,
    /// Not ours, or not what the PSP holds.
    Unknown,
}

/// Takes `webhookrec`'s notices, called at the URL of bank rule `rule` of `account`: each
/// recurrence read back from that rule's PSP; one whose contract names a schedule of ours with this
/// id is read again with its own credentials when they are another's (a PSP user's webhook serves
/// every rule that shares its credentials) and its status kept.
pub async fn follow(store: &Store, account: AccountId, rule: BankRuleId, ids: &[String]) -> anyhow::Result<Vec<Told>> {
    let Some(link) = stored::find::<Link>(store, keys::payment::pix_psp(account, rule)).await? else {
        return Ok(vec![Told::Unknown; ids.len()]);
    };
    let psp = psp::registry().client(&link.secret_id).await?;
    let mut told = Vec::with_capacity(ids.len());
    for id in ids {
        let read = match psp.rec(id).await {
            Ok(read) => read,
            Err(PspError::Refused { status: 404, .. }) => {
                told.push(Told::Unknown);
                continue;
            }
            Err(error) => return Err(anyhow::Error::new(error).context("GET /rec")),
        };
        let ours = match parse_contract(&read.vinculo.contrato) {
            Some((owner, schedule)) => recurrence(store, owner, schedule).await?.filter(|r| r.id_rec == read.id),
            None => None,
        };
        let Some(ours) = ours else {
            told.push(Told::Unknown);
            continue;
        };
        let read = match ours.secret_id == link.secret_id {
            true => read,
            false => psp::registry().client(&ours.secret_id).await?.rec(id).await.context("GET /rec")?,
        };
        if ours.status != read.status {
            // Unless the payer page replaced it meanwhile (then this one is no longer the schedule's).
            let next = Recurrence { status: read.status.clone(), updated_at: Timestamp::now(), ..ours };
            replaced(store, &next, Some(&read.id)).await?;
        }
        told.push(Told::Recurrence { status: read.status });
    }
    Ok(told)
}
