//! The records a billing draft names (rules 1–4 and the health module): each must be a record of
//! the account (a 422 names each that is not), read in one batch, and they give the billing's
//! payer.

use std::collections::HashMap;

use crate::bank_rules::BankRule;
use crate::bill_categories::BillCategory;
use crate::billings::input::Draft;
use crate::contacts::Contact;
use crate::refusal::{Problem, Refusal};
use crate::store::records;
use crate::store::{keys, Store};
use crate::tags::Tag;
use crate::values::{AccountId, BillingStatus, CategoryType, ContactId, IssueType};

const MSG_BANK_RULE_NOT_FOUND: &str = "Regra bancária não encontrada";
const MSG_CONTACT_NOT_FOUND: &str = "Contato não encontrado";
const MSG_PATIENT_NOT_FOUND: &str = "Paciente não encontrado";
const MSG_CATEGORY_INVALID: &str = "Categoria financeira não encontrada ou não é de recebimento";
const MSG_TAG_NOT_FOUND: &str = "Etiqueta não encontrada";
const MSG_EXCLUDED_TAG_NOT_FOUND: &str = "Etiquetas excluídas (excluded_tag_ids) não encontradas";
const MSG_CONTACT_BLANK: &str = "Contato (contact_id) não pode ficar em branco";

/// An individual billing without a payer.
pub(super) fn contact_blank() -> Problem {
    Problem::blank("contact_id", MSG_CONTACT_BLANK)
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
pub(super) struct References {
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
pub(super) async fn read_references(store: &Store, account: AccountId, draft: &Draft) -> Result<References, Refusal> {
    let found = read_named(store, account, draft).await?;
    let mut errors = Vec::new();
    match read::<BankRule>(&found, draft.bank_rule_id)? {
        None => errors.push(Problem::not_found("bank_rule_id", MSG_BANK_RULE_NOT_FOUND)),
        // Its billets carry the charges of its channels: the terms must be ones they can say.
        Some(rule) => errors.extend(terms_refused(&rule, draft)?),
    }
    let patient = existing::<Contact>(&found, draft.patient_id, "patient_id", MSG_PATIENT_NOT_FOUND, &mut errors)?;
    let contact = existing::<Contact>(&found, draft.contact_id, "contact_id", MSG_CONTACT_NOT_FOUND, &mut errors)?;
    if let Some(id) = draft.bill_category_id {
        match read::<BillCategory>(&found, id)? {
            None => errors.push(Problem::not_found("bill_category_id", MSG_CATEGORY_INVALID)),
            Some(c) if c.category_type != CategoryType::Receivable => {
                errors.push(Problem::invalid("bill_category_id", MSG_CATEGORY_INVALID));
            }
            Some(_) => {}
        }
    }
    let tag = existing::<Tag>(&found, draft.tag_id, "tag_id", MSG_TAG_NOT_FOUND, &mut errors)?;
    errors.extend(excluded_tags_missing(&found, draft)?);
    if !errors.is_empty() {
        return Err(Refusal::Invalid(errors));
    }
    payer_of(store, account, draft, patient, contact, tag).await
}

/// The items of the records a draft names, by sort key.
type Found = HashMap<String, crate::store::Item>;

/// Every record the draft names, in one batch read.
async fn read_named(store: &Store, account: AccountId, draft: &Draft) -> Result<Found, Refusal> {
    let mut wanted = vec![records::key_of::<BankRule>(account, draft.bank_rule_id)];
    wanted.extend(draft.patient_id.map(|id| records::key_of::<Contact>(account, id)));
    wanted.extend(draft.contact_id.map(|id| records::key_of::<Contact>(account, id)));
    wanted.extend(draft.bill_category_id.map(|id| records::key_of::<BillCategory>(account, id)));
    wanted.extend(draft.tag_id.iter().chain(&draft.excluded_tag_ids).map(|id| records::key_of::<Tag>(account, *id)));
    wanted.sort();
    wanted.dedup();
    Ok(store
        .batch_get(&wanted)
        .await?
        .into_iter()
        .map(|item| (crate::store::KeyItem::keys_of(&item).1, item))
        .collect())
}

/// The record `id` among those read, if it exists.
fn read<R: records::Record>(found: &Found, id: R::Id) -> Result<Option<R>, Refusal> {
    let sk = keys::record(R::KIND, id);
    Ok(found.get(&sk).cloned().map(records::read).transpose()?)
}

/// The record `id` names, when the draft names one; one that does not exist is a problem of
/// `field`.
fn existing<R: records::Record>(
    found: &Found,
    id: Option<R::Id>,
    field: &str,
    message: &str,
    errors: &mut Vec<Problem>,
) -> Result<Option<R>, Refusal> {
    let Some(id) = id else { return Ok(None) };
    let record = read::<R>(found, id)?;
    if record.is_none() {
        errors.push(Problem::not_found(field, message));
    }
    Ok(record)
}

/// The excluded tags that do not exist, as one problem naming them.
fn excluded_tags_missing(found: &Found, draft: &Draft) -> Result<Option<Problem>, Refusal> {
    let mut missing = Vec::new();
    for id in &draft.excluded_tag_ids {
        if read::<Tag>(found, *id)?.is_none() {
            missing.push(id.to_string());
        }
    }
    if missing.is_empty() {
        return Ok(None);
    }
    let message = format!("{MSG_EXCLUDED_TAG_NOT_FOUND}: {}", missing.join(", "));
    Ok(Some(Problem::not_found("excluded_tag_ids", message)))
}

/// The payer of a draft whose references all exist (see [`check_references`]), with the records
/// its representation embeds.
async fn payer_of(
    store: &Store,
    account: AccountId,
    draft: &Draft,
    patient: Option<Contact>,
    contact: Option<Contact>,
    tag: Option<Tag>,
) -> Result<References, Refusal> {
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

/// Why the channels of `rule` cannot charge a billing of these terms (a rule with a Pix
/// institution: terms the API Pix can say), each naming its field.
fn terms_refused(rule: &BankRule, draft: &Draft) -> Result<Vec<Problem>, Refusal> {
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
    Ok(crate::billings::channels::installed()?.terms_refused(rule, &terms))
}
