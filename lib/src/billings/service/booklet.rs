//! A carnê (DESIGN §12): an instalment booklet made through the API. The booklet is a `carne`
//! record of its own (`installment` 0, no billet: one item per instalment, its amount their sum,
//! `billing_id` of each instalment); each instalment is a `carne` record (`installment` 1 to N,
//! `installment_type` monthly) with its billet, registered, charged by Pix and card, reminded and
//! announced as any billing.
//!
//! A booklet of 24 is more writes than one transaction holds, so it is made in two steps that
//! cannot leave half a booklet: the booklet is written with a task (a `bulk_expansion` message
//! naming it) in one transaction, then its instalments are written, each in a transaction of its
//! own that checks the booklet is still open. Their ids follow the booklet's (reserved together),
//! so whoever writes them — the create itself at once, or the task's worker after a crash — writes
//! the same records, and one already there is left alone. Cancelling the booklet writes the same
//! task: the run then cancels every open instalment (paid ones stay), and no instalment can be
//! written after the booklet is cancelled.

use chrono::Months;

use super::cancel_and_pay_off::cancel;
use super::create::insert_once;
use super::references::read_references;
use crate::billings::billets::lifecycle;
use crate::billings::input::Draft;
use crate::billings::links;
use crate::billings::model::{Billing, BillingItem};
use crate::billings::view::Embedded;
use crate::contention::retry_on_conflict;
use crate::jobs::{tasks, BulkExpansion};
use crate::refusal::Refusal;
use crate::store::records;
use crate::store::{keys, Condition, Store, StoreError, StoreResult, Write};
use crate::values::calendar::next_business_day;
use crate::values::{
    AccountId, BillingId, BillingItemId, BillingStatus, BillingType, InstallmentType, Money, Timestamp,
};

/// The most instalments of one booklet (the peers' boleto booklets go to 12–24; 24 fit a worker's
/// message well inside its timeout).
pub const MOST_INSTALLMENTS: usize = 24;

/// Why a booklet's cascade cancels its open instalments.
const CANCEL_REASON: &str = "Carnê cancelado";

/// What a run of a booklet's task did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BookletRun {
    /// Instalments written by this run (those already there are not counted).
    Made(usize),
    /// Open instalments this run cancelled.
    Canceled(usize),
    /// Nothing to do: no such booklet, or it is neither open nor cancelled.
    Nothing,
}

/// The text of instalment `k` of `n`: the booklet's description and its place.
fn instalment_label(description: &str, k: usize, n: usize) -> String {
    format!("{description} ({k}/{n})")
}

/// The ids of a booklet's instalments (they follow its own).
pub fn instalment_ids(booklet: &Billing) -> Vec<BillingId> {
    (1..=booklet.installments.max(0)).map(|k| BillingId::new(booklet.id.get() + k)).collect()
}

/// Makes a booklet: `draft` holds its terms (its due date the first instalment's), `description`
/// names each instalment, `shares` are the instalments' amounts. Returns the booklet and what its
/// view embeds; its instalments are written at once (the task writes any the create could not).
pub async fn create_booklet(
    store: &Store,
    account: AccountId,
    draft: &Draft,
    description: &str,
    shares: &[Money],
) -> Result<(Billing, Embedded), Refusal> {
    let n = shares.len() as i64;
    let (first, first_item) = tokio::try_join!(
        store.ids_from_block(keys::account(account), keys::sequence("BILLING"), n + 1),
        store.ids_from_block(keys::account(account), keys::sequence("BILLINGITEM"), 2 * n),
    )?;
    let id = BillingId::new(first);
    let items: Vec<BillingItem> = shares
        .iter()
        .enumerate()
        .map(|(i, share)| BillingItem {
            id: BillingItemId::new(first_item + i as i64),
            description: instalment_label(description, i + 1, shares.len()),
            quantity: 1,
            amount: *share,
        })
        .collect();
    let total = shares.iter().copied().sum::<Money>();
    let (booklet, references) = retry_on_conflict(|| async {
        let references = read_references(store, account, draft).await?;
        let booklet = Billing {
            billing_type: BillingType::Carne,
            billet_generation: 0,
            installments: n,
            installment: 0,
            installment_type: InstallmentType::Monthly,
            amount: total,
            ..Billing::new(id, draft, references.payer, items.clone(), Timestamp::now())
        };
        let task = tasks::one(account, BulkExpansion::of_booklet(account, id))?;
        Ok((insert_once(store, account, booklet, vec![task]).await?, references))
    })
    .await?;
    // At once; what fails here the task finishes.
    if let Err(error) = run_on(store, account, &booklet).await {
        tracing::warn!(booklet = booklet.id.get(), ?error, "the booklet's instalments are left to its task");
    }
    let embedded =
        Embedded { contact: references.contact, tag: references.tag, billets: Vec::new(), reminders: Vec::new() };
    Ok((booklet, embedded))
}

/// Instalment `k` (1 to N) of `booklet`: its item, due `k - 1` months after the first (a day past
/// a month's end on its last day; a weekend moved to Monday), its terms the booklet's.
fn instalment(booklet: &Billing, k: usize) -> Option<Billing> {
    let n = booklet.items.len();
    let item = booklet.items.get(k - 1)?;
    let item =
        BillingItem { id: BillingItemId::new(booklet.items.first()?.id.get() + (n + k - 1) as i64), ..item.clone() };
    let id = BillingId::new(booklet.id.get() + k as i64);
    let due = next_business_day(booklet.due_date.checked_add_months(Months::new(k as u32 - 1))?);
    let blank = Billing::blank(id, BillingType::Carne, due, Timestamp::now());
    Some(
        Billing {
            id,
            code: blank.code.clone(),
            status: BillingStatus::Opened,
            due_date: due,
            amount: item.amount,
            items: vec![item],
            your_code: None,
            parent_id: Some(booklet.id),
            billet_generation: 1,
            ..booklet.clone().with_blank_state(blank)
        }
        .numbered(k as i64, n as i64),
    )
}

impl Billing {
    fn numbered(self, k: i64, n: i64) -> Billing {
        Billing { installment: k, installments: n, installment_type: InstallmentType::Monthly, ..self }
    }
}

/// The instalments of booklet `booklet` written so far, of the `count` it has, in order (one batch
/// read: their ids follow the booklet's).
pub async fn instalments(
    store: &Store,
    account: AccountId,
    booklet: BillingId,
    count: i64,
) -> StoreResult<Vec<Billing>> {
    let keys: Vec<_> =
        (1..=count.max(0)).map(|k| records::key_of::<Billing>(account, BillingId::new(booklet.get() + k))).collect();
    let mut written: Vec<Billing> =
        store.batch_get(&keys).await?.into_iter().map(records::read::<Billing>).collect::<Result<_, _>>()?;
    written.retain(|b| b.parent_id == Some(booklet));
    written.sort_by_key(|b| b.installment);
    Ok(written)
}

/// Runs booklet `id`'s task: an open booklet gets the instalments not written yet; a cancelled one
/// has its open instalments cancelled. Idempotent: a copy, or a run after a crash, finds done what
/// was done.
pub async fn run_booklet(store: &Store, account: AccountId, id: BillingId) -> Result<BookletRun, Refusal> {
    match records::find::<Billing>(store, account, id).await?.filter(Billing::is_booklet) {
        Some(booklet) => run_on(store, account, &booklet).await,
        None => Ok(BookletRun::Nothing),
    }
}

/// [`run_booklet`] on the booklet as read (or, by the create, as just written).
async fn run_on(store: &Store, account: AccountId, booklet: &Billing) -> Result<BookletRun, Refusal> {
    let written = instalments(store, account, booklet.id, booklet.installments).await?;
    match booklet.status {
        BillingStatus::Opened => {
            let mut made = 0;
            for k in 1..=booklet.items.len() {
                let Some(next) = instalment(booklet, k) else { continue };
                if written.iter().any(|w| w.id == next.id) {
                    continue;
                }
                made += usize::from(write_instalment(store, account, booklet, next).await?);
            }
            Ok(BookletRun::Made(made))
        }
        BillingStatus::Canceled => {
            let mut canceled = 0;
            for open in written.iter().filter(|w| w.status.accepts_cancel_or_pay_off()) {
                match cancel(store, account, open.id, Ok(CANCEL_REASON.to_owned())).await {
                    Ok(_) => canceled += 1,
                    // Paid or closed meanwhile: it stays as it is.
                    Err(Refusal::Invalid(_) | Refusal::NotFound) => {}
                    Err(error) => return Err(error),
                }
            }
            Ok(BookletRun::Canceled(canceled))
        }
        _ => Ok(BookletRun::Nothing),
    }
}

/// Writes one instalment with its registration task, provided it is not there and the booklet is
/// still open; `false` when either is not so.
async fn write_instalment(
    store: &Store,
    account: AccountId,
    booklet: &Billing,
    instalment: Billing,
) -> Result<bool, Refusal> {
    let (mut writes, _) = records::inserted(account, &instalment)?;
    writes.extend(links::reference_writes(account, None, Some(&instalment)));
    writes.push(lifecycle::registration(account, &instalment)?);
    let (pk, sk) = records::key_of::<Billing>(account, booklet.id);
    let open = writes.len();
    writes.push(Write::Check { pk, sk, condition: Condition::equals("status", &BillingStatus::Opened) });
    retry_on_conflict(|| {
        let writes = writes.clone();
        async move {
            match store.write(writes).await {
                Ok(()) => Ok(true),
                Err(error) if error.failed_at(0) || error.failed_at(open) => Ok(false),
                Err(StoreError::ConditionFailed(_)) => Err(Refusal::Conflict),
                Err(error) => Err(error.into()),
            }
        }
    })
    .await
}

/// `POST /v1/billings/{id}/cancel`: [`cancel`], and for a booklet its open instalments cancelled
/// at once (its cancel wrote the task that does it after a crash).
pub async fn cancel_with_instalments(
    store: &Store,
    account: AccountId,
    id: BillingId,
    reason: Result<String, Vec<crate::refusal::Problem>>,
) -> Result<(Billing, Embedded), Refusal> {
    let (billing, embedded) = cancel(store, account, id, reason).await?;
    if billing.is_booklet() {
        if let Err(error) = run_booklet(store, account, billing.id).await {
            tracing::warn!(booklet = billing.id.get(), ?error, "the booklet's cancel is left to its task");
        }
    }
    Ok((billing, embedded))
}
