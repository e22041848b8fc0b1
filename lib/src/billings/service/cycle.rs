//! A schedule's cycle (DESIGN §12): one ordinary billing made from the schedule's terms, written in
//! the transaction that moves the schedule on to its next cycle (its issuing index entry with it)
//! and marks the cycle issued. The schedule's version and the cycle's mark make it once: a run
//! again, a message delivered twice or a process killed after the write finds the schedule moved
//! on and does nothing; an edit or a delete that commits first is what the cycle sees.

use serde::{Deserialize, Serialize};

use super::announcement::announcement_of;
use super::change::{change, Ruled};
use crate::billings::billets::lifecycle;
use crate::billings::links;
use crate::billings::model::{Billing, BillingItem};
use crate::billings::view::Embedded;
use crate::contacts::Contact;
use crate::refusal::Refusal;
use crate::store::records;
use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, Store};
use crate::tags::Tag;
use crate::values::recurrence::{Cycle, Turn};
use crate::values::{AccountId, BillingId, BillingItemId, BillingStatus, BillingType, Timestamp};

/// What a run did with a schedule on a day.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Issued {
    /// The cycle's billing was written.
    Billing { cycle: u32, billing: BillingId },
    /// Its next cycle is not due yet (issued before, or a stale message).
    NotYet,
    /// Cycles past their due date were skipped; none is due yet.
    Skipped,
    /// No cycle is left, or the record is no schedule that issues (deleted, legacy).
    Nothing,
}

/// A cycle's mark: the billing it made.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct CycleMark {
    account_id: AccountId,
    schedule_id: BillingId,
    cycle: u32,
    billing_id: BillingId,
}

impl Stored for CycleMark {
    const KIND: Option<&'static str> = Some("schedule_cycle");
    type Scope<'a> = ();

    fn key(&self, (): ()) -> Key {
        keys::schedule::cycle_mark(self.account_id, self.schedule_id, self.cycle)
    }
}

/// The billing of `cycle`, from the schedule's terms as they are now: its own id and item ids,
/// `opened`, due on the cycle's date, its billet to be registered, linked to the schedule by
/// `parent_id`.
fn cycle_billing(schedule: &Billing, cycle: &Cycle, id: BillingId, first_item: i64, now: Timestamp) -> Billing {
    let items = schedule
        .items
        .iter()
        .enumerate()
        .map(|(n, item)| BillingItem { id: BillingItemId::new(first_item + n as i64), ..item.clone() })
        .collect();
    let blank = Billing::blank(id, BillingType::Billing, cycle.due, now);
    Billing {
        id,
        code: blank.code.clone(),
        status: BillingStatus::Opened,
        billing_type: BillingType::Billing,
        due_date: cycle.due,
        parent_id: Some(schedule.id),
        items,
        billet_generation: 1,
        recurrence: None,
        ..schedule.clone().with_blank_state(blank)
    }
}

impl Billing {
    /// This billing's terms with `blank`'s state: no payment, billet, cancellation or version yet.
    pub(super) fn with_blank_state(self, blank: Billing) -> Billing {
        Billing {
            gw_payment_link: None,
            gw_received_with: None,
            gw_payment_date: None,
            gw_gross_amount: blank.gw_gross_amount,
            gw_fee_amount: blank.gw_fee_amount,
            gw_discount_amount: blank.gw_discount_amount,
            gw_extra_amount: blank.gw_extra_amount,
            gw_card: None,
            billet_id: None,
            cancellation_reason: None,
            discharge_reason: None,
            installments: 1,
            installment: 1,
            installment_type: blank.installment_type,
            created_at: blank.created_at,
            updated_at: blank.updated_at,
            version: blank.version,
            ..self
        }
    }
}

/// Runs schedule `id` of `account` on `day`: issues its next cycle when due (moving on past cycles
/// whose due date passed first), once. The cycle's billing is written with its registration task
/// and a `billing.updated` event, as one made through `POST /v1/billings` and announced.
pub async fn issue_cycle(
    store: &Store,
    account: AccountId,
    id: BillingId,
    day: chrono::NaiveDate,
) -> Result<Issued, Refusal> {
    // The new billing's id, taken once: every attempt writes the same billing.
    let billing_id = super::new_id(store, account).await?;
    let ruled = change(store, account, id, |schedule, _| async move {
        let Some(recurrence) = schedule.recurrence.filter(|_| schedule.billing_type == BillingType::Schedule) else {
            return Ok(Ruled::Unchanged(Issued::Nothing));
        };
        let cycle = match recurrence.turn(day) {
            Turn::Ended => return Ok(Ruled::Unchanged(Issued::Nothing)),
            Turn::Wait(_) => return Ok(Ruled::Unchanged(Issued::NotYet)),
            Turn::Skip(later) => {
                let recurrence = recurrence.skipped_to(later.map(|c| c.number));
                let due_date = later.map_or(schedule.due_date, |c| c.due);
                let next = Billing { recurrence: Some(recurrence), due_date, ..schedule.clone() };
                return Ok(Ruled::Changed {
                    next,
                    billet: None,
                    also: Vec::new(),
                    announce: false,
                    then: Issued::Skipped,
                });
            }
            Turn::Issue(cycle) => cycle,
        };
        let count = schedule.items.len() as i64;
        let first_item = store.ids_from_block(keys::account(account), keys::sequence("BILLINGITEM"), count).await?;
        let now = Timestamp::now();
        let billing = cycle_billing(&schedule, &cycle, billing_id, first_item, now);
        let recurrence = recurrence.issued(cycle.number, billing_id);
        let due_date = recurrence.next().map_or(schedule.due_date, |next| next.due);
        let next = Billing { recurrence: Some(recurrence), due_date, updated_at: now, ..schedule.clone() };
        // What its event embeds: its payer and tag (a new billing has no billet nor reminder yet).
        let (contact, tag) = tokio::try_join!(
            records::find_referenced::<Contact>(store, account, billing.contact_id),
            records::find_referenced::<Tag>(store, account, billing.tag_id),
        )?;
        let embedded = Embedded { contact, tag, billets: Vec::new(), reminders: Vec::new() };
        let mark = CycleMark { account_id: account, schedule_id: schedule.id, cycle: cycle.number, billing_id };
        let (mut also, _) = records::inserted(account, &billing)?;
        also.extend(links::reference_writes(account, None, Some(&billing)));
        also.push(lifecycle::registration(account, &billing)?);
        also.push(announcement_of(account, &billing, &embedded)?);
        also.push(stored::insert(&mark, ())?);
        let then = Issued::Billing { cycle: cycle.number, billing: billing_id };
        Ok(Ruled::Changed { next, billet: None, also, announce: false, then })
    })
    .await;
    match ruled {
        Ok((_, issued)) => Ok(issued),
        Err(Refusal::NotFound) => Ok(Issued::Nothing),
        Err(error) => Err(error),
    }
}

/// The billing cycle `cycle` of a schedule made, when it was issued.
pub async fn cycle_billing_of(
    store: &Store,
    account: AccountId,
    schedule: BillingId,
    cycle: u32,
) -> Result<Option<BillingId>, Refusal> {
    let mark: Option<CycleMark> = stored::find(store, keys::schedule::cycle_mark(account, schedule, cycle)).await?;
    Ok(mark.map(|m| m.billing_id))
}
