//! The billing workflow, in one place: what create, update, cancel, pay-off, delete, bulk
//! expansion, billet registration and bank payment do to a billing. Every change of an existing
//! billing goes through [`change`]: read the billing and its current billet, apply a rule, write
//! the billing back on its version with whatever else the rule adds (its billet, cash entries,
//! moved reference counts) and the `billing.updated` event that announces it, in one
//! transaction; a lost race runs the rule again on what the winner wrote.
//!
//! Announced (§6, wider than the spec's "at present"): every change of a billing's status,
//! payment data or billet (registered or rejected by the bank, paid, cancelled, settled, updated).
//! Not announced: its creation (the integrator made it) and a billet being issued on its way to
//! the bank. The event's `data` is `{"billing": <the single representation>}` as the transaction
//! leaves it.

use std::collections::HashMap;
use std::future::Future;

use serde_json::Value;

use super::billets::lifecycle::{self, BilletWrite};
use super::compute;
use super::input::{bank_account_not_found, Draft, PayOff};
use super::links;
use super::model::Billing;
use super::update::{self, Editability};
use super::view::{BillingView, Embedded};
use crate::bank_accounts::BankAccount;
use crate::bank_rules::BankRule;
use crate::bill_categories::BillCategory;
use crate::billets::model::{self as billets, BankBillet, BilletStatus};
use crate::cash_entries::CashEntry;
use crate::contacts::Contact;
use crate::contention::{retry_in_turn, retry_on_conflict};
use crate::editing::find_or_404;
use crate::events;
use crate::http::Fields;
use crate::refusal::{Code, Problem, Refusal};
use crate::reminders::deliveries::Delivery;
use crate::store::records;
use crate::store::{keys, Store, Write};
use crate::tags::Tag;
use crate::values::{
    today, AccountId, BankAccountType, BillingId, BillingStatus, BillingType, CategoryType, ContactId, IssueType,
    Money, TagId, Timestamp,
};

const MSG_BANK_RULE_NOT_FOUND: &str = "Regra bancária não encontrada";
const MSG_CONTACT_NOT_FOUND: &str = "Contato não encontrado";
const MSG_PATIENT_NOT_FOUND: &str = "Paciente não encontrado";
const MSG_CATEGORY_INVALID: &str = "Categoria financeira não encontrada ou não é de recebimento";
const MSG_TAG_NOT_FOUND: &str = "Etiqueta não encontrada";
const MSG_EXCLUDED_TAG_NOT_FOUND: &str = "Etiquetas excluídas (excluded_tag_ids) não encontradas";
const MSG_CONTACT_BLANK: &str = "Contato (contact_id) não pode ficar em branco";

/// An individual billing without a payer.
fn contact_blank() -> Problem {
    Problem::blank("contact_id", MSG_CONTACT_BLANK)
}

/// What a rule made of a billing.
#[allow(clippy::large_enum_variant)] // built once per change and moved straight into `change`
pub enum Ruled<T> {
    /// Nothing to write; `T` is what the caller learns.
    Unchanged(T),
    /// The billing as the rule leaves it (its version is bumped by [`change`]), the billet it
    /// writes, what else goes into its transaction, and whether a `billing.updated` event
    /// announces it.
    Changed { next: Billing, billet: Option<BilletWrite>, also: Vec<Write>, announce: bool, then: T },
}

/// Reads the account's billing `id` (404 when missing) and its current billet, applies `rule`, and
/// writes the billing back on its version with what the rule adds and the reference counts its
/// change moves, in one transaction. Writers of one billing take turns; a lost race runs the rule
/// again on what the winner wrote.
pub async fn change<T, F, Fut>(
    store: &Store,
    account: AccountId,
    id: BillingId,
    rule: F,
) -> Result<(Billing, T), Refusal>
where
    F: Fn(Billing, Option<BankBillet>) -> Fut,
    Fut: Future<Output = Result<Ruled<T>, Refusal>>,
{
    let (billing, then, _) = Box::pin(changed(store, account, id, false, rule)).await?;
    Ok((billing, then))
}

/// [`change`] for a route that answers the billing's single representation: what it embeds is
/// read beside the rule (the contact and tag of the billing as read) and kept from the write (the
/// billets), so that the answer costs no read after the transaction.
async fn change_shown<T, F, Fut>(
    store: &Store,
    account: AccountId,
    id: BillingId,
    rule: F,
) -> Result<(Billing, T, Embedded), Refusal>
where
    F: Fn(Billing, Option<BankBillet>) -> Fut,
    Fut: Future<Output = Result<Ruled<T>, Refusal>>,
{
    let (billing, then, embedded) = Box::pin(changed(store, account, id, true, rule)).await?;
    let embedded = embedded.ok_or_else(|| Refusal::Internal(anyhow::anyhow!("a shown change without its embeds")))?;
    Ok((billing, then, embedded))
}

/// [`change`], with what the billing's representation embeds when `shown` (calls one after
/// another: the billing with its billets, then the rule's reads beside the embeds', then the
/// transaction; a rule that moves the contact or tag reads the new one before the transaction).
async fn changed<T, F, Fut>(
    store: &Store,
    account: AccountId,
    id: BillingId,
    shown: bool,
    rule: F,
) -> Result<(Billing, T, Option<Embedded>), Refusal>
where
    F: Fn(Billing, Option<BankBillet>) -> Fut,
    Fut: Future<Output = Result<Ruled<T>, Refusal>>,
{
    retry_in_turn(records::key_of::<Billing>(account, id), || async {
        // The billing and every billet of it (one query): the rule gets the current one, the
        // event all.
        let (current, billets) = whole_or_404(store, account, id).await?;
        let billet = current.billet_id.and_then(|id| billets.iter().find(|b| b.id == id).cloned());
        // Boxed: rules' futures are large, and a worker's stack is not.
        let ruled = Box::pin(rule(current.clone(), billet));
        let (ruled, related) = match shown {
            true => {
                let (ruled, related) = tokio::try_join!(ruled, related(store, account, &current))?;
                (ruled, Some(related))
            }
            false => (ruled.await?, None),
        };
        match ruled {
            Ruled::Unchanged(then) => {
                let embedded = related.map(|(contact, tag, reminders)| Embedded { contact, tag, billets, reminders });
                Ok((current, then, embedded))
            }
            Ruled::Changed { next, billet, mut also, announce, then } => {
                let next = Billing { version: current.version + 1, ..next };
                if let Some(billet) = &billet {
                    also.push(billet.write(account)?);
                    // A billet the bank knows from a file and that closes: its write-off goes out;
                    // its Pix charge, when the billing does not go on with it, is removed.
                    also.extend(super::billets::remittance::follow(account, billet)?);
                    also.extend(crate::payments::pix::charge::follow(account, &next, billet)?);
                }
                let embedded = match (announce || shown, related) {
                    (false, _) => None,
                    (true, related) => {
                        let same = next.contact_id == current.contact_id && next.tag_id == current.tag_id;
                        let (contact, tag, reminders) = match related {
                            Some(related) if same => related,
                            _ => self::related(store, account, &next).await?,
                        };
                        let billets = with_written(billets, billet.as_ref().map(BilletWrite::after));
                        Some(Embedded { contact, tag, billets, reminders })
                    }
                };
                if let (true, Some(embedded)) = (announce, &embedded) {
                    also.push(announcement_of(account, &next, embedded)?);
                }
                also.extend(links::reference_writes(account, Some(&current), Some(&next)));
                records::replace(store, account, &current, &next, also).await?;
                Ok((next, then, embedded.filter(|_| shown)))
            }
        }
    })
    .await
}

/// The account's billing `id` with its billets, newest first (one query of its partition), or
/// 404.
pub async fn whole_or_404(
    store: &Store,
    account: AccountId,
    id: BillingId,
) -> Result<(Billing, Vec<BankBillet>), Refusal> {
    let (pk, prefix) = keys::billing::billing_whole(account, id);
    // Descending: `BILLING` sorts after every `BILLET#…`, and the billets newest first.
    let mut items = store.items_with_prefix(pk, prefix, false).await?.into_iter();
    let billing = match items.next() {
        Some(item) if crate::store::KeyItem::keys_of(&item).1 == keys::billing::BILLING_SK => {
            records::read::<Billing>(item)?
        }
        _ => return Err(Refusal::NotFound),
    };
    let billets = crate::store::stored::read_all(items.collect())?;
    Ok((billing, billets))
}

/// The contact, tag and reminder deliveries a billing's representation embeds (read together: one
/// round trip).
async fn related(
    store: &Store,
    account: AccountId,
    billing: &Billing,
) -> Result<(Option<Contact>, Option<Tag>, Vec<Delivery>), Refusal> {
    Ok(tokio::try_join!(
        records::find_referenced::<Contact>(store, account, billing.contact_id),
        records::find_referenced::<Tag>(store, account, billing.tag_id),
        // Boxed: a query's future is large, and every change of a billing (workers, whose futures
        // are joined two at a time in tests, included) reads this.
        Box::pin(crate::reminders::deliveries::of_billing(store, account, billing.id)),
    )?)
}

/// The contacts and tags of a page of billings, by id (two batch reads at once: one round trip).
pub async fn related_to_page(
    store: &Store,
    account: AccountId,
    billings: &[Billing],
) -> Result<(HashMap<ContactId, Contact>, HashMap<TagId, Tag>), Refusal> {
    let mut contact_ids: Vec<ContactId> = billings.iter().filter_map(|b| b.contact_id).collect();
    contact_ids.sort_unstable();
    contact_ids.dedup();
    let mut tag_ids: Vec<TagId> = billings.iter().filter_map(|b| b.tag_id).collect();
    tag_ids.sort_unstable();
    tag_ids.dedup();
    let (contacts, tags) = tokio::try_join!(
        records::find_many::<Contact>(store, account, &contact_ids),
        records::find_many::<Tag>(store, account, &tag_ids)
    )?;
    Ok((contacts.into_iter().map(|c| (c.id, c)).collect(), tags.into_iter().map(|t| (t.id, t)).collect()))
}

/// What the billing's single representation embeds: its contact, tag and billets (read together:
/// one round trip).
pub async fn embedded(store: &Store, account: AccountId, billing: &Billing) -> Result<Embedded, Refusal> {
    let (billets, (contact, tag, reminders)) =
        tokio::try_join!(stored_billets(store, account, billing), related(store, account, billing))?;
    Ok(Embedded { contact, tag, billets, reminders })
}

/// The account's billing `id` with what its single representation embeds (two calls one after
/// the other: the billing with its billets, then its contact and tag), or 404.
pub async fn shown(store: &Store, account: AccountId, id: BillingId) -> Result<(Billing, Embedded), Refusal> {
    let (billing, billets) = whole_or_404(store, account, id).await?;
    let (contact, tag, reminders) = related(store, account, &billing).await?;
    Ok((billing, Embedded { contact, tag, billets, reminders }))
}

/// The billing's billets, newest first (none to read when no registration was ever asked for:
/// legacy records).
async fn stored_billets(store: &Store, account: AccountId, billing: &Billing) -> Result<Vec<BankBillet>, Refusal> {
    Ok(match billing.billet_generation {
        0 => Vec::new(),
        _ => billets::of_billing(store, account, billing.id).await?,
    })
}

/// Largest event body the outbox keeps whole (an item holds 400 KB). A billing with many items
/// and many re-issued billets may exceed it: its event then lists only the current billet, and
/// without the items if still too large (`GET` the billing for the rest).
const EVENT_DATA_MAX_BYTES: usize = 256 * 1024;

/// The `billing.updated` event of `billing` as a transaction leaves it, `billet` written as given.
pub async fn announcement(
    store: &Store,
    account: AccountId,
    billing: &Billing,
    billet: Option<&BankBillet>,
) -> Result<Write, Refusal> {
    let mut embedded = embedded(store, account, billing).await?;
    embedded.billets = with_written(std::mem::take(&mut embedded.billets), billet);
    announcement_of(account, billing, &embedded)
}

/// The billets as a transaction leaves them: `written` in place of its stored self, or first.
fn with_written(mut billets: Vec<BankBillet>, written: Option<&BankBillet>) -> Vec<BankBillet> {
    if let Some(written) = written {
        match billets.iter_mut().find(|b| b.id == written.id) {
            Some(stored) => *stored = written.clone(),
            None => billets.insert(0, written.clone()),
        }
    }
    billets
}

/// The `billing.updated` event of `billing` with what its representation embeds.
fn announcement_of(account: AccountId, billing: &Billing, embedded: &Embedded) -> Result<Write, Refusal> {
    // The event's data is the single representation (§6), cut to fit an item.
    let view = BillingView::new(billing, &embedded.related(), today());
    let mut shown = serde_json::to_value(view).map_err(anyhow::Error::new)?;
    for cut in ["bank_billets", "billing_items"] {
        if shown.to_string().len() <= EVENT_DATA_MAX_BYTES {
            break;
        }
        if let Some(list) = shown.get_mut(cut).and_then(Value::as_array_mut) {
            list.truncate(usize::from(cut == "bank_billets"));
        }
    }
    Ok(events::record(account, events::BILLING_UPDATED, serde_json::json!({ "billing": shown }))?)
}

/// Without the health module `patient_id` is ignored and an individual billing needs `contact_id`
/// (rule 2).
pub fn apply_modules(mut draft: Draft, health_module: bool) -> Result<Draft, Refusal> {
    if !health_module {
        draft.patient_id = None;
        if draft.issue_type == IssueType::Individual && draft.contact_id.is_none() {
            return Err(Refusal::invalid(contact_blank()));
        }
    }
    Ok(draft)
}

/// The records a draft names, read in one batch.
#[derive(Clone, Debug, Default)]
struct References {
    /// Who pays (see [`check_references`]).
    pub payer: Option<ContactId>,
    /// The payer's record, when the draft named it (the view embeds it).
    pub contact: Option<Contact>,
    pub tag: Option<Tag>,
}

/// Rules 1–4 and the health module: every reference must be a record of the account (422 naming
/// each). Returns the payer: for an individual billing, the `contact_id` sent, or else the
/// patient's financial guardian, or else the patient; for a bulk billing, its own (a bulk request
/// has none; a billing its expansion made has the contact it billed).
pub async fn check_references(store: &Store, account: AccountId, draft: &Draft) -> Result<Option<ContactId>, Refusal> {
    Ok(read_references(store, account, draft).await?.payer)
}

/// [`check_references`], with the records read: every reference in one batch read (and, with the
/// health module and no `contact_id`, the patient's guardian in a second).
async fn read_references(store: &Store, account: AccountId, draft: &Draft) -> Result<References, Refusal> {
    let mut wanted = vec![records::key_of::<BankRule>(account, draft.bank_rule_id)];
    wanted.extend(draft.patient_id.map(|id| records::key_of::<Contact>(account, id)));
    wanted.extend(draft.contact_id.map(|id| records::key_of::<Contact>(account, id)));
    wanted.extend(draft.bill_category_id.map(|id| records::key_of::<BillCategory>(account, id)));
    wanted.extend(draft.tag_id.iter().chain(&draft.excluded_tag_ids).map(|id| records::key_of::<Tag>(account, *id)));
    wanted.sort();
    wanted.dedup();
    let found: std::collections::HashMap<String, crate::store::Item> = store
        .batch_get(&wanted)
        .await?
        .into_iter()
        .map(|item| (crate::store::KeyItem::keys_of(&item).1, item))
        .collect();
    fn read<R: records::Record>(
        found: &std::collections::HashMap<String, crate::store::Item>,
        id: R::Id,
    ) -> Result<Option<R>, Refusal> {
        let sk = keys::record(R::KIND, id);
        Ok(found.get(&sk).cloned().map(records::read).transpose()?)
    }
    let mut errors = Vec::new();
    match read::<BankRule>(&found, draft.bank_rule_id)? {
        None => errors.push(Problem::not_found("bank_rule_id", MSG_BANK_RULE_NOT_FOUND)),
        // Its billets carry a Pix charge: the terms must be ones the API Pix can say.
        Some(rule) if rule.pix_secret_id.is_some() => errors.extend(pix_terms_refused(draft)),
        Some(_) => {}
    }
    let patient = match draft.patient_id {
        Some(id) => {
            let patient = read::<Contact>(&found, id)?;
            if patient.is_none() {
                errors.push(Problem::not_found("patient_id", MSG_PATIENT_NOT_FOUND));
            }
            patient
        }
        None => None,
    };
    let contact = match draft.contact_id {
        Some(id) => {
            let contact = read::<Contact>(&found, id)?;
            if contact.is_none() {
                errors.push(Problem::not_found("contact_id", MSG_CONTACT_NOT_FOUND));
            }
            contact
        }
        None => None,
    };
    if let Some(id) = draft.bill_category_id {
        match read::<BillCategory>(&found, id)? {
            None => errors.push(Problem::not_found("bill_category_id", MSG_CATEGORY_INVALID)),
            Some(c) if c.category_type != CategoryType::Receivable => {
                errors.push(Problem::invalid("bill_category_id", MSG_CATEGORY_INVALID));
            }
            Some(_) => {}
        }
    }
    let tag = match draft.tag_id {
        Some(id) => {
            let tag = read::<Tag>(&found, id)?;
            if tag.is_none() {
                errors.push(Problem::not_found("tag_id", MSG_TAG_NOT_FOUND));
            }
            tag
        }
        None => None,
    };
    let mut missing = Vec::new();
    for id in &draft.excluded_tag_ids {
        if read::<Tag>(&found, *id)?.is_none() {
            missing.push(id.to_string());
        }
    }
    if !missing.is_empty() {
        let message = format!("{MSG_EXCLUDED_TAG_NOT_FOUND}: {}", missing.join(", "));
        errors.push(Problem::not_found("excluded_tag_ids", message));
    }
    if !errors.is_empty() {
        return Err(Refusal::Invalid(errors));
    }
    let payer = match (draft.issue_type, draft.contact_id, patient) {
        (IssueType::Bulk, contact, _) => contact,
        (_, Some(contact), _) => Some(contact),
        (_, None, None) => return Err(Refusal::invalid(contact_blank())),
        (_, None, Some(patient)) => {
            // A guardian deleted since it was set leaves the patient paying.
            let guardian = records::find_referenced::<Contact>(store, account, patient.financial_guardian_id).await?;
            let payer = guardian.unwrap_or(patient);
            return Ok(References { payer: Some(payer.id), contact: Some(payer), tag });
        }
    };
    Ok(References { payer, contact, tag })
}

/// Why a billing on a rule with a Pix institution cannot have these terms, each naming its field
/// (`payments::pix::cobv`).
fn pix_terms_refused(draft: &Draft) -> Vec<Problem> {
    let terms = crate::billings::compute::Terms {
        status: BillingStatus::Opened,
        amount: draft.amount.get(),
        due_date: draft.due_date,
        discount: None,
        discount2: None,
        penalty: draft.penalty,
        interest: draft.interest,
        cancel_penalty: false,
    };
    crate::payments::pix::charge::refused(&terms).unwrap_or_default()
}

/// The ids a new billing is written with: its own and its items', taken once per request from
/// this process's blocks (refilled together, in parallel, when they run out), so that every
/// attempt of the request writes the same billing.
#[derive(Clone, Copy, Debug)]
pub struct NewIds {
    pub billing: BillingId,
    pub first_item: i64,
}

impl NewIds {
    pub async fn reserve(store: &Store, account: AccountId, draft: &Draft) -> Result<NewIds, Refusal> {
        let (billing, first_item) = tokio::try_join!(new_id(store, account), new_item_ids(store, account, draft))?;
        Ok(NewIds { billing, first_item })
    }
}

/// The first of the ids of a draft's items, from this process's block.
async fn new_item_ids(store: &Store, account: AccountId, draft: &Draft) -> Result<i64, Refusal> {
    let count = draft.items.len() as i64;
    Ok(store.ids_from_block(keys::account(account), keys::sequence("BILLINGITEM"), count).await?)
}

/// A new billing id, from this process's block of the account's sequence (`Store::ids_from_block`).
pub async fn new_id(store: &Store, account: AccountId) -> Result<BillingId, Refusal> {
    Ok(BillingId::new(store.ids_from_block(keys::account(account), keys::sequence("BILLING"), 1).await?))
}

/// Writes a new billing of `draft` with these ids, paid by `payer`, with its registration task and
/// `also` in its transaction; the records it uses count it (they cannot be deleted while it
/// exists), and a record deleted since it was read fails the write (`Conflict`, for the caller's
/// retry, which reads the references again). The bank rule and the category are not checked again
/// in the transaction: no route or command deletes either, and every create checking one item would
/// make concurrent creates of an account conflict on it (docs/decisions.md).
///
/// A write whose answer was lost (DynamoDB failed or timed out after applying it) and that the
/// caller therefore runs again finds its billing already there: the ids are this request's, so
/// that billing is this request's, and it is the answer.
pub async fn insert_new(
    store: &Store,
    account: AccountId,
    ids: NewIds,
    draft: &Draft,
    payer: Option<ContactId>,
    also: Vec<Write>,
) -> Result<Billing, Refusal> {
    let items = Billing::items_from(ids.first_item, &draft.items);
    let billing = Billing::new(ids.billing, draft, payer, items, Timestamp::now());
    let mut writes = links::reference_writes(account, None, Some(&billing));
    writes.push(lifecycle::registration(account, &billing)?);
    writes.extend(also);
    match records::insert(store, account, &billing, writes).await {
        Ok(()) => Ok(billing),
        Err(error) if error.failed_at(0) => match records::find::<Billing>(store, account, ids.billing).await? {
            Some(written) => Ok(written),
            None => Err(error.into()),
        },
        Err(error) => Err(error.into()),
    }
}

/// An individual billing: stored with its billet's registration asked for (§2.2: in the
/// background). Returns it with what its single representation embeds, from what was read and written
/// (at most three sequential round trips: the references' batch read, the id blocks when they
/// run out, the transaction).
pub async fn create(store: &Store, account: AccountId, draft: &Draft) -> Result<(Billing, Embedded), Refusal> {
    let ids = NewIds::reserve(store, account, draft).await?;
    let (billing, references) = retry_on_conflict(|| async {
        let references = read_references(store, account, draft).await?;
        let billing = insert_new(store, account, ids, draft, references.payer, Vec::new()).await?;
        Ok((billing, references))
    })
    .await?;
    let embedded =
        Embedded { contact: references.contact, tag: references.tag, billets: Vec::new(), reminders: Vec::new() };
    Ok((billing, embedded))
}

/// What an update reads or reserves once, however often it runs again after losing a race to a
/// concurrent writer, so that each new attempt costs only the billing's own read and write: the
/// payer its references give (read for a 422 naming each; the transaction checks them again) and
/// the ids of its new items.
#[derive(Default)]
struct Once {
    references: tokio::sync::Mutex<Option<(ReferenceIds, Option<ContactId>)>>,
    first_new_item: tokio::sync::OnceCell<i64>,
}

/// The ids a draft refers to.
type ReferenceIds = (
    crate::values::BankRuleId,
    Option<ContactId>,
    Option<ContactId>,
    Option<crate::values::TagId>,
    Option<crate::values::BillCategoryId>,
    Vec<crate::values::TagId>,
);

impl Once {
    /// The payer of `draft`, its references read unless an earlier attempt read the same ones.
    async fn payer(&self, store: &Store, account: AccountId, draft: &Draft) -> Result<Option<ContactId>, Refusal> {
        let ids = (
            draft.bank_rule_id,
            draft.contact_id,
            draft.patient_id,
            draft.tag_id,
            draft.bill_category_id,
            draft.excluded_tag_ids.clone(),
        );
        let mut checked = self.references.lock().await;
        if let Some((seen, payer)) = checked.as_ref() {
            if *seen == ids {
                return Ok(*payer);
            }
        }
        let payer = check_references(store, account, draft).await?;
        *checked = Some((ids, payer));
        Ok(payer)
    }

    /// The first of `count` new item ids, reserved on the first attempt that needs them.
    async fn first_new_item(&self, store: &Store, account: AccountId, count: i64) -> Result<i64, Refusal> {
        let reserve = || store.ids_from_block(keys::account(account), keys::sequence("BILLINGITEM"), count);
        Ok(*self.first_new_item.get_or_try_init(reserve).await?)
    }
}

/// The billing with an editable update applied; new items get ids from the sequence.
async fn edited(
    store: &Store,
    account: AccountId,
    health_module: bool,
    current: &Billing,
    sent: Fields<'_>,
    once: &Once,
) -> Result<(Billing, Vec<Write>), Refusal> {
    let mut errors = Vec::new();
    let cancel_penalty = update::cancel_penalty(sent, current.cancel_penalty, &mut errors);
    let draft = update::merged_draft(current, sent, health_module).map_err(|mut more| {
        errors.append(&mut more);
        Refusal::Invalid(errors.clone())
    })?;
    if !errors.is_empty() {
        return Err(Refusal::Invalid(errors));
    }
    if draft.issue_type == IssueType::Individual && draft.contact_id.is_none() && !health_module {
        return Err(Refusal::invalid(contact_blank()));
    }
    let payer = once.payer(store, account, &draft).await?;
    // The same count on every attempt: the sent elements without an id.
    let new_items = draft.items.iter().filter(|item| item.id.is_none()).count() as i64;
    let first_new = if new_items > 0 { once.first_new_item(store, account, new_items).await? } else { 0 };
    let next =
        Billing { cancel_penalty, ..current.with_draft(&draft, payer, Billing::items_from(first_new, &draft.items)) };
    Ok((next, Vec::new()))
}

/// `PATCH /v1/billings/{id}` (§4.2 Update, §2.1 Editability): the fields the billing's editability
/// admits; a change of what its billet prints re-issues it (its registration asked for in the same
/// transaction).
pub async fn update(
    store: &Store,
    account: AccountId,
    health_module: bool,
    id: BillingId,
    sent: Fields<'_>,
) -> Result<(Billing, Embedded), Refusal> {
    let once = Once::default();
    let (billing, (), embedded) = change_shown(store, account, id, |current, billet| {
        let once = &once;
        async move {
            let (next, also) = match update::editability(&current, lifecycle::billet_editable(billet.as_ref())) {
                Editability::Frozen => return Ok(Ruled::Unchanged(())),
                Editability::DueDateOnly => (update::date_only(&current, sent).map_err(Refusal::Invalid)?, Vec::new()),
                Editability::Full => edited(store, account, health_module, &current, sent, once).await?,
            };
            let reissue = lifecycle::reissue_needed(&current, &next, billet.as_ref());
            if next == current && !reissue {
                return Ok(Ruled::Unchanged(()));
            }
            let mut next = Billing { updated_at: Timestamp::now(), ..next };
            let mut also = also;
            let billet = if reissue {
                let closed = lifecycle::reissue(&mut next, billet.as_ref());
                also.push(lifecycle::registration(account, &next)?);
                closed
            } else {
                None
            };
            Ok(Ruled::Changed { next, billet, also, announce: true, then: () })
        }
    })
    .await?;
    Ok((billing, embedded))
}

fn refused(billing: &Billing, action: &str) -> Refusal {
    let message = format!("Cobrança com status {} não pode ser {action}", billing.status);
    Refusal::invalid(Problem::general(Code::NotAllowed, message))
}

/// `POST /v1/billings/{id}/cancel` (§3.1): a collectable billing becomes `canceled` with its
/// reason; its open billet is cancelled in the same transaction.
pub async fn cancel(
    store: &Store,
    account: AccountId,
    id: BillingId,
    reason: Result<String, Vec<Problem>>,
) -> Result<(Billing, Embedded), Refusal> {
    let (billing, (), embedded) = change_shown(store, account, id, |current, billet| {
        let reason = reason.clone();
        async move {
            let reason = reason.map_err(Refusal::Invalid)?;
            if !current.status.accepts_cancel_or_pay_off() {
                return Err(refused(&current, "cancelada"));
            }
            let billet = lifecycle::close(billet.as_ref(), BilletStatus::Canceled);
            let next = Billing {
                status: BillingStatus::Canceled,
                cancellation_reason: Some(reason),
                updated_at: Timestamp::now(),
                ..current
            };
            Ok(Ruled::Changed { next, billet, also: Vec::new(), announce: true, then: () })
        }
    })
    .await?;
    Ok((billing, embedded))
}

/// `POST /v1/billings/{id}/pay_off` (§3.1): a collectable billing is settled manually, recording a
/// cash entry on a bank account of the account (not the service's own) that inherits the billing's
/// category. Without `gw_gross_amount`, the amount payable today is taken as received. Its open
/// billet is written off (`discharged`) in the same transaction.
pub async fn pay_off(
    store: &Store,
    account: AccountId,
    id: BillingId,
    request: Result<PayOff, Vec<Problem>>,
) -> Result<(Billing, Embedded), Refusal> {
    let (billing, (), embedded) = change_shown(store, account, id, |current, billet| {
        let request = request.clone();
        async move {
            let request = request.map_err(Refusal::Invalid)?;
            match records::find::<BankAccount>(store, account, request.bank_account_id).await? {
                None => return Err(Refusal::invalid(bank_account_not_found())),
                Some(a) if a.account_type == BankAccountType::Service => {
                    let message = "Conta bancária do próprio serviço não pode receber baixa manual";
                    return Err(Refusal::invalid(Problem::at("bank_account_id", Code::NotAllowed, message)));
                }
                Some(_) => {}
            }
            if !current.status.accepts_cancel_or_pay_off() {
                return Err(refused(&current, "baixada"));
            }
            let today = today();
            let received =
                request.gross.unwrap_or_else(|| Money::new(compute::compute(&current.terms(), today).amount_payable));
            let entry = CashEntry {
                id: CashEntry::next_id(store, account).await?,
                bank_account_id: request.bank_account_id,
                billing_id: current.id,
                contact_id: current.contact_id,
                bill_category_id: current.bill_category_id,
                amount: received,
                entry_date: today,
                discharge_reason: Some(request.discharge_reason),
                created_at: Timestamp::now(),
            };
            let (pk, sk) = records::key_of::<BankAccount>(account, request.bank_account_id);
            // The payment ledger records the pay-off as the manual channel's payment.
            let ledger = crate::payments::ledger::paid_off(
                account,
                current.id,
                billet.as_ref().map(|b| b.id),
                entry.id,
                received,
                today,
            )?;
            let also = vec![entry.insert(account)?, Write::check_exists(pk, sk), ledger];
            let billet = lifecycle::close(billet.as_ref(), BilletStatus::Discharged);
            let next = Billing {
                status: BillingStatus::Discharged,
                discharge_reason: Some(request.discharge_reason),
                gw_gross_amount: received,
                gw_payment_date: Some(today),
                gw_received_with: Some(request.discharge_reason.to_string()),
                updated_at: Timestamp::now(),
                ..current
            };
            Ok(Ruled::Changed { next, billet, also, announce: true, then: () })
        }
    })
    .await?;
    Ok((billing, embedded))
}

/// `DELETE /v1/billings/{id}`: only legacy `schedule` records; a billing from the API can only be
/// cancelled (422). The records it used stop counting it.
pub async fn delete(store: &Store, account: AccountId, id: BillingId) -> Result<(), Refusal> {
    retry_in_turn(records::key_of::<Billing>(account, id), || async {
        let current: Billing = find_or_404(store, account, id).await?;
        if current.billing_type != BillingType::Schedule {
            let message = "Somente cobranças recorrentes (schedule) podem ser excluídas; cancele a cobrança";
            return Err(Refusal::invalid(Problem::general(Code::NotAllowed, message)));
        }
        let also = links::reference_writes(account, Some(&current), None);
        records::remove(store, account, &current, also).await?;
        Ok(())
    })
    .await
}
