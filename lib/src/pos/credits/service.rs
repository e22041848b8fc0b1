//! Customer credits (§4.7): `POST /v1/store_credits` adds credit to a contact, idempotently by
//! `reference` (unique per account); `GET /v1/store_credits?contact_id=` lists the contact's
//! movements (added, used in a sale, returned as credit) with the balance after each.
//!
//! The credit item is keyed by its reference (`CREDIT#<sha256>`), so writing it only if absent is
//! the idempotency guard: a repeated reference finds the original and answers `200` when contact
//! and amount match, `409` otherwise. It is written with the contact's new balance (on the
//! contact's version), the movement and the `store_credit.created` event, in one transaction.
//! Movements are numbered per contact (1, 2, …), so a page of them is one key range.

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::movements::Movement;
use super::sales::check_amount;
use crate::contacts::Contact;
use crate::contention::retry_in_turn;
use crate::events;
use crate::http::Pagination;
use crate::refusal::{Made, Refusal};
use crate::store::item::number;
use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, records, KeyRange, Sort, Store, StoreResult};
use crate::values::{AccountId, ContactId, CreditMovementKind, Money, StoreCreditId, Timestamp};

/// The stable code of an unknown contact (§7).
pub const CODE_CONTACT_NOT_FOUND: &str = "contact_not_found";
/// The stable code of a `reference` reused with different data.
pub const CODE_REFERENCE_REUSED: &str = "reference_reused";
pub const REFERENCE_MAX_CHARS: usize = 100;
pub const DESCRIPTION_MAX_CHARS: usize = 255;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoreCredit {
    pub id: StoreCreditId,
    pub reference: String,
    pub contact_id: ContactId,
    #[serde(with = "number")]
    pub amount: Money,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The contact's credit balance once it was added.
    #[serde(with = "number")]
    pub balance: Money,
    pub created_at: Timestamp,
}

impl Stored for StoreCredit {
    const KIND: Option<&'static str> = Some("store_credit");
    type Scope<'a> = AccountId;

    /// Keyed by its reference: writing it only if absent is the reference's guard.
    fn key(&self, account: AccountId) -> Key {
        credit_key(account, &self.reference)
    }
}

fn credit_key(account: AccountId, reference: &str) -> Key {
    (keys::account(account), keys::store_credit(reference))
}

/// A credit as the API shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StoreCreditView {
    pub id: StoreCreditId,
    pub reference: String,
    pub contact_id: ContactId,
    pub amount: Money,
    pub description: Option<String>,
    pub balance: Money,
    pub created_at: Timestamp,
}

impl StoreCreditView {
    pub fn of(credit: &StoreCredit) -> Self {
        StoreCreditView {
            id: credit.id,
            reference: credit.reference.clone(),
            contact_id: credit.contact_id,
            amount: credit.amount,
            description: credit.description.clone(),
            balance: credit.balance,
            created_at: credit.created_at,
        }
    }
}

/// A movement as the API lists it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MovementView {
    pub number: i64,
    pub kind: CreditMovementKind,
    /// Positive when added or returned, negative when used.
    pub amount: Money,
    /// The balance after it.
    pub balance: Money,
    pub reference: Option<String>,
    pub sale_code: Option<String>,
    pub description: Option<String>,
    pub created_at: Timestamp,
}

impl MovementView {
    pub fn of(movement: &Movement) -> Self {
        MovementView {
            number: movement.number,
            kind: movement.movement,
            amount: movement.amount,
            balance: movement.balance,
            reference: movement.reference.clone(),
            sale_code: movement.sale_code.clone(),
            description: movement.description.clone(),
            created_at: movement.created_at,
        }
    }
}

/// What a `POST /v1/store_credits` sends.
#[derive(Clone, Debug, PartialEq)]
pub struct CreditDraft {
    pub reference: String,
    pub contact_id: ContactId,
    pub amount: Money,
    pub description: Option<String>,
}

fn contact_not_found() -> Refusal {
    Refusal::Rule { code: CODE_CONTACT_NOT_FOUND, message: "Contato não encontrado na conta".to_owned() }
}

/// A `reference` already used with other data.
pub fn reference_reused(message: impl Into<String>) -> Refusal {
    Refusal::Clash { code: CODE_REFERENCE_REUSED, message: message.into() }
}

/// Checks a reference: 1 to 100 characters, trimmed.
pub fn check_reference(reference: Option<&str>, errors: &mut Vec<String>) -> String {
    let reference = reference.map(str::trim).unwrap_or_default();
    if let Some(reason) = crate::values::text::unreadable(reference) {
        errors.push(format!("reference {reason}"));
    } else if reference.is_empty() {
        errors.push("reference é obrigatório".to_owned());
    } else if reference.chars().count() > REFERENCE_MAX_CHARS {
        errors.push(format!("reference é muito longo (máximo: {REFERENCE_MAX_CHARS} caracteres)"));
    }
    reference.to_owned()
}

impl CreditDraft {
    /// The draft of a body's `store_credit` object: `reference`, `contact_id`, `amount` and an
    /// optional `description`.
    pub fn parse(fields: crate::http::Fields<'_>) -> Result<CreditDraft, Refusal> {
        use crate::http::fields::Sent;
        let mut errors = Vec::new();
        let reference = match fields.raw("reference") {
            Some(serde_json::Value::String(text)) => check_reference(Some(text), &mut errors),
            Some(serde_json::Value::Number(n)) => check_reference(Some(&n.to_string()), &mut errors),
            _ => check_reference(None, &mut errors),
        };
        let amount = match fields.decimal("amount") {
            Sent::Given(value) => {
                let amount = Money::new(value);
                check_amount("Valor do crédito (amount)", amount, &mut errors);
                amount
            }
            Sent::Invalid => {
                errors.push("Valor do crédito (amount) inválido".to_owned());
                Money::ZERO
            }
            Sent::Omitted | Sent::Empty => {
                errors.push("Valor do crédito (amount) é obrigatório".to_owned());
                Money::ZERO
            }
        };
        let description = fields.text("description", "Descrição (description)", &mut errors).flatten();
        if description.as_ref().is_some_and(|d| d.chars().count() > DESCRIPTION_MAX_CHARS) {
            errors.push(format!("Descrição (description) é muito longa (máximo: {DESCRIPTION_MAX_CHARS} caracteres)"));
        }
        let contact_id = match fields.id::<ContactId>("contact_id") {
            Sent::Given(id) => Some(id),
            Sent::Omitted | Sent::Empty => {
                errors.push("contact_id é obrigatório".to_owned());
                None
            }
            // An id of no contact is the coded 422 below, like a missing one.
            Sent::Invalid => None,
        };
        if !errors.is_empty() {
            return Err(Refusal::Invalid(errors));
        }
        let contact_id = contact_id.ok_or_else(contact_not_found)?;
        Ok(CreditDraft { reference, contact_id, amount, description })
    }
}

async fn find_by_reference(store: &Store, account: AccountId, reference: &str) -> StoreResult<Option<StoreCredit>> {
    stored::find(store, credit_key(account, reference)).await
}

/// Adds the credit, or finds the one its reference already added: `(credit, created)`. Accepted
/// whatever the on-account rule says of the contact (rule 5).
pub async fn add(store: &Store, account: AccountId, draft: &CreditDraft) -> Result<Made<StoreCredit>, Refusal> {
    records::find::<Contact>(store, account, draft.contact_id).await?.ok_or_else(contact_not_found)?;
    let id = once_id(store, account).await?;
    retry_in_turn(records::key_of::<Contact>(account, draft.contact_id), || async {
        if let Some(existing) = find_by_reference(store, account, &draft.reference).await? {
            if existing.contact_id == draft.contact_id && existing.amount == draft.amount {
                return Ok(Made::Existing(existing));
            }
            return Err(reference_reused(format!(
                "reference {} já foi usada com outro contato ou valor (contato {}, valor {})",
                existing.reference, existing.contact_id, existing.amount
            )));
        }
        let contact =
            records::find::<Contact>(store, account, draft.contact_id).await?.ok_or_else(contact_not_found)?;
        let mut next = Contact { version: contact.version + 1, ..contact.clone() };
        next.credit_balance = next.credit_balance + draft.amount;
        next.credit_movements += 1;
        let now = Timestamp::now();
        let credit = StoreCredit {
            id,
            reference: draft.reference.clone(),
            contact_id: contact.id,
            amount: draft.amount,
            description: draft.description.clone(),
            balance: next.credit_balance,
            created_at: now,
        };
        let movement = Movement {
            reference: Some(draft.reference.clone()),
            description: draft.description.clone(),
            ..Movement::next_of(&next, CreditMovementKind::Added, draft.amount)
        };
        let event = events::record(
            account,
            events::STORE_CREDIT_CREATED,
            json!({ "store_credit": StoreCreditView::of(&credit) }),
        )?;
        // The credit first after the contact: a reference taken meanwhile fails it, and the next
        // attempt finds the winner.
        let also = vec![stored::insert(&credit, account)?, movement.insert(account, contact.id)?, event];
        records::replace(store, account, &contact, &next, also).await?;
        Ok(Made::Created(credit))
    })
    .await
}

/// The credit's id, reserved once per request (a lost race does not burn another).
async fn once_id(store: &Store, account: AccountId) -> Result<StoreCreditId, Refusal> {
    Ok(StoreCreditId::new(store.next_id(keys::account(account), keys::sequence("STORECREDIT")).await?))
}

/// A page of the contact's movements, newest first, and how many it has.
pub async fn movements(
    store: &Store,
    account: AccountId,
    contact_id: ContactId,
    page: Pagination,
) -> Result<(Vec<Movement>, usize), Refusal> {
    let contact = records::find::<Contact>(store, account, contact_id).await?.ok_or_else(contact_not_found)?;
    let total = contact.credit_movements;
    let newest = total - i64::try_from(page.offset()).unwrap_or(i64::MAX);
    if newest < 1 {
        return Ok((Vec::new(), usize::try_from(total).unwrap_or_default()));
    }
    let oldest = (newest - i64::try_from(page.per_page).unwrap_or(i64::MAX) + 1).max(1);
    let range = KeyRange {
        index: false,
        partition: keys::credit_movements(account, contact_id),
        sort: Sort::Between(keys::credit_movement(oldest), keys::credit_movement(newest)),
        ascending: false,
        eventual: true,
    };
    let found = store.page(&range, page.per_page, None).await?;
    let listed: Vec<Movement> = stored::read_all(found.items)?;
    Ok((listed, usize::try_from(total).unwrap_or_default()))
}
