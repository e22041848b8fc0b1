//! Settlement by transfer of on-account balances (§4.7): the store transfers what its customers
//! owe on account up to a cutoff date to one payer contact (configured by operators:
//! `infra/ops account update --settlement-contact C`), which receives one receivable billing for
//! the whole.
//!
//! - `GET /v1/receivable_settlements/preview?cutoff_at=` reads the open-sales index up to the
//!   cutoff and writes nothing.
//! - `POST /v1/receivable_settlements` stores the settlement (`pending`), keyed by its
//!   `reference`, with the task that sends its first message (`jobs::tasks`), in one transaction;
//!   the same reference again answers its state (`200`), or resumes it when it failed (`202`,
//!   with the task of its next chunk in the same transaction); another cutoff is a `409`. Of
//!   requests of one reference at the same moment, one creates it (`201`) and the others read it
//!   (`200`).
//! - The worker ([`run`]) settles the open sales up to the cutoff, a chunk per message: each
//!   sale in one transaction with its customer's balance, a line of the settlement
//!   (`A#<account>#SETTLEMENT#<sha256(reference)>`, `sk = SALE#<id>`, written only if absent) and
//!   the settlement's running totals. A settled sale leaves the open-sales index, so a redelivered
//!   or resumed message picks up exactly the sales still open, and a sale is never settled twice.
//!   A message names its chunk, and runs only while the settlement's count of chunks run says that
//!   one is next; the count moves on in one transaction with the next chunk's task, on the
//!   condition that it still names this chunk, so of two copies of a message one sends the next.
//!   When no sale is left, it makes the payer's billing from the lines (one item per customer), in
//!   one transaction with the settlement's `billing_id`, written only if absent, and the billing's
//!   registration task: there is never a second billing, and its billet registers as any
//!   billing's does.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::credits::{check_reference, reference_reused};
use super::sales::{self, OpenEntry, Sale};
use crate::accounts;
use crate::bank_rules::BankRule;
use crate::billings::input::Draft;
use crate::billings::service as billings;
use crate::contacts::Contact;
use crate::contention::{move_cursor, retry_in_turn, retry_on_conflict};
use crate::http::Fields;
use crate::jobs::{tasks, ReceivableSettlement};
use crate::refusal::{Made, Refusal};
use crate::store::item::{from_attribute, number};
use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, records, Condition, KeyRange, Sort, Store, StoreError, StoreResult, Update, Write};
use crate::values::calendar::{next_business_day, parse_date};
use crate::values::{today, AccountId, BillingId, ContactId, Money, SaleId, SettlementState, Timestamp};

pub const CODE_SETTLEMENT_CONTACT_MISSING: &str = "settlement_contact_missing";
/// Why a message naming a chunk other than the next does nothing.
pub const CHUNK_RUN: &str = "another message ran this chunk, or it is not due";
/// Sales one message settles before handing the rest to the next message.
pub const CHUNK: usize = 50;
/// Sales a preview lists one by one (its totals count them all).
pub const PREVIEW_SALES_SHOWN: usize = 500;
/// Items of the payer's billing: one per customer, the rest summed in the last one.
const BILLING_ITEMS: usize = 500;
/// Days from the settlement to its billing's due date (then the next business day).
const DUE_IN_DAYS: u64 = 5;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settlement {
    pub reference: String,
    pub account_id: AccountId,
    pub cutoff_at: NaiveDate,
    pub state: SettlementState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_reason: Option<String>,
    pub payer_contact_id: ContactId,
    #[serde(default)]
    pub sales_count: i64,
    #[serde(default)]
    pub contacts_count: i64,
    #[serde(default, with = "number")]
    pub amount: Money,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub billing_id: Option<BillingId>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<Timestamp>,
    /// Chunks of sales run so far: the number of the chunk the next message runs.
    #[serde(default)]
    pub chunk: i64,
}

impl Stored for Settlement {
    const KIND: Option<&'static str> = Some("settlement");
    type Scope<'a> = ();

    fn key(&self, (): ()) -> Key {
        settlement_key(self.account_id, &self.reference)
    }
}

fn settlement_key(account: AccountId, reference: &str) -> Key {
    (keys::account(account), keys::settlement(reference))
}

impl Settlement {
    /// An update of this settlement, under `condition`.
    fn update(&self, change: Update, condition: Condition) -> Write {
        stored::update(self, (), change, condition)
    }
}

/// A sale a settlement took.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Line {
    pub sale_code: String,
    pub contact_id: ContactId,
    #[serde(with = "number")]
    pub amount: Money,
}

impl Stored for Line {
    const KIND: Option<&'static str> = Some("settlement_line");
    /// The account, the settlement's reference and the sale.
    type Scope<'a> = (AccountId, &'a str, SaleId);

    fn key(&self, (account, reference, sale): Self::Scope<'_>) -> Key {
        (keys::settlement_lines(account, reference), keys::sale(sale))
    }
}

/// The settlement as the API shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SettlementView {
    pub reference: String,
    pub cutoff_at: NaiveDate,
    pub state: SettlementState,
    pub failure_reason: Option<String>,
    pub payer_contact_id: ContactId,
    pub sales_count: i64,
    pub contacts_count: i64,
    pub amount: Money,
    pub billing_id: Option<BillingId>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub completed_at: Option<Timestamp>,
}

impl SettlementView {
    pub fn of(s: &Settlement) -> Self {
        SettlementView {
            reference: s.reference.clone(),
            cutoff_at: s.cutoff_at,
            state: s.state,
            failure_reason: s.failure_reason.clone(),
            payer_contact_id: s.payer_contact_id,
            sales_count: s.sales_count,
            contacts_count: s.contacts_count,
            amount: s.amount,
            billing_id: s.billing_id,
            created_at: s.created_at,
            updated_at: s.updated_at,
            completed_at: s.completed_at,
        }
    }
}

/// What a settlement up to a date would take.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Preview {
    pub cutoff_at: NaiveDate,
    pub payer_contact_id: Option<ContactId>,
    pub total: Money,
    pub sales_count: usize,
    pub contacts_count: usize,
    pub contacts: Vec<ContactPreview>,
    /// Whether some sales are counted but not listed (more than 500).
    pub truncated: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ContactPreview {
    pub contact_id: ContactId,
    pub name: Option<String>,
    pub sales_count: usize,
    pub amount: Money,
    pub sales: Vec<SalePreview>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SalePreview {
    pub code: String,
    pub sold_on: NaiveDate,
    pub due_amount: Money,
}

fn missing_contact() -> Refusal {
    Refusal::Rule {
        code: CODE_SETTLEMENT_CONTACT_MISSING,
        message: "A loja não configurou o contato pagador do acerto por transferência".to_owned(),
    }
}

/// The day after the cutoff, as the open-sales index's keys begin (`YYYY-MM-DD#…`).
fn after(cutoff: NaiveDate) -> Sort {
    Sort::Below(cutoff.succ_opt().unwrap_or(cutoff).to_string())
}

/// The open sales of the account sold up to `cutoff` (index entries: keys and what they owe).
pub async fn open_up_to(
    store: &Store,
    account: AccountId,
    cutoff: NaiveDate,
    limit: Option<usize>,
) -> Result<Vec<OpenEntry>, Refusal> {
    let range = KeyRange::index(keys::open_sales(account), after(cutoff), true);
    let (mut found, mut start) = (Vec::new(), None);
    loop {
        let page = store.page(&range, limit.unwrap_or(1000), start).await?;
        for item in page.items {
            if let Some(fields) = item.get("list_fields").cloned() {
                found.push(from_attribute::<OpenEntry>(fields)?);
            }
        }
        match page.next {
            Some(next) if limit.is_none_or(|l| found.len() < l) => start = Some(next),
            _ => return Ok(found),
        }
    }
}

/// The cutoff of a request: a date no later than today.
pub fn parse_cutoff(text: Option<&str>) -> Result<NaiveDate, Refusal> {
    let Some(text) = text.filter(|t| !t.trim().is_empty()) else {
        return Err(Refusal::invalid("cutoff_at é obrigatório (AAAA-MM-DD)"));
    };
    let cutoff = parse_date(text).ok_or_else(|| Refusal::invalid("cutoff_at inválido (use AAAA-MM-DD)"))?;
    if cutoff > today() {
        return Err(Refusal::invalid("cutoff_at não pode ser uma data futura"));
    }
    Ok(cutoff)
}

/// What a settlement up to `cutoff` would take, writing nothing.
pub async fn preview(store: &Store, account: AccountId, cutoff: NaiveDate) -> Result<Preview, Refusal> {
    let owner = accounts::find(store, account).await?.ok_or(Refusal::NotFound)?;
    let open = open_up_to(store, account, cutoff, None).await?;
    let mut by_contact: BTreeMap<ContactId, ContactPreview> = BTreeMap::new();
    for (n, entry) in open.iter().enumerate() {
        let contact = by_contact.entry(entry.contact_id).or_insert_with(|| ContactPreview {
            contact_id: entry.contact_id,
            name: None,
            sales_count: 0,
            amount: Money::ZERO,
            sales: Vec::new(),
        });
        contact.sales_count += 1;
        contact.amount = contact.amount + entry.due_amount;
        if n < PREVIEW_SALES_SHOWN {
            contact.sales.push(SalePreview {
                code: entry.code.clone(),
                sold_on: entry.sold_on,
                due_amount: entry.due_amount,
            });
        }
    }
    let ids: Vec<ContactId> = by_contact.keys().copied().collect();
    for contact in records::find_many::<Contact>(store, account, &ids).await? {
        if let Some(preview) = by_contact.get_mut(&contact.id) {
            preview.name = contact.description().map(str::to_owned);
        }
    }
    Ok(Preview {
        cutoff_at: cutoff,
        payer_contact_id: owner.settlement_contact_id,
        total: open.iter().map(|e| e.due_amount).sum(),
        sales_count: open.len(),
        contacts_count: by_contact.len(),
        contacts: by_contact.into_values().collect(),
        truncated: open.len() > PREVIEW_SALES_SHOWN,
    })
}

pub async fn find(store: &Store, account: AccountId, reference: &str) -> StoreResult<Option<Settlement>> {
    stored::find(store, settlement_key(account, reference)).await
}

/// What a `POST` sends: `reference` and `cutoff_at`.
pub fn parse_request(fields: Fields<'_>) -> Result<(String, NaiveDate), Refusal> {
    let mut errors = Vec::new();
    let reference = match fields.raw("reference") {
        Some(Value::String(text)) => check_reference(Some(text), &mut errors),
        Some(Value::Number(n)) => check_reference(Some(&n.to_string()), &mut errors),
        _ => check_reference(None, &mut errors),
    };
    let cutoff = match fields.raw("cutoff_at") {
        Some(Value::String(text)) => parse_cutoff(Some(text)),
        _ => parse_cutoff(None),
    };
    let cutoff = match cutoff {
        Ok(cutoff) => Some(cutoff),
        Err(Refusal::Invalid(more)) => {
            errors.extend(more);
            None
        }
        Err(other) => return Err(other),
    };
    match cutoff {
        Some(cutoff) if errors.is_empty() => Ok((reference, cutoff)),
        _ => Err(Refusal::Invalid(errors)),
    }
}

/// Requests a settlement: created when new, the existing one when the reference has it already,
/// resumed when that one had failed.
pub async fn request(
    store: &Store,
    account: AccountId,
    reference: &str,
    cutoff: NaiveDate,
) -> Result<Made<Settlement>, Refusal> {
    let owner = accounts::find(store, account).await?.ok_or(Refusal::NotFound)?;
    let payer = owner.settlement_contact_id.ok_or_else(missing_contact)?;
    records::find::<Contact>(store, account, payer).await?.ok_or_else(missing_contact)?;
    // Requests of one reference in one process take turns: the second reads what the first made.
    let turn = crate::store::turns::turn_of((keys::account(account), keys::settlement(reference)));
    let _turn = turn.lock().await;
    if let Some(existing) = find(store, account, reference).await? {
        return retry_on_conflict(|| again(store, existing.clone(), cutoff, payer)).await;
    }
    let open = open_up_to(store, account, cutoff, None).await?;
    let total: Money = open.iter().map(|e| e.due_amount).sum();
    if !total.is_positive() {
        return Err(Refusal::invalid(format!("Nada a acertar: nenhuma venda a prazo em aberto até {cutoff}")));
    }
    if total.get() < crate::billings::input::minimum_amount() {
        return Err(Refusal::invalid(format!(
            "O total a acertar ({total}) é menor que o valor mínimo de uma cobrança (5.00)"
        )));
    }
    let now = Timestamp::now();
    let settlement = Settlement {
        reference: reference.to_owned(),
        account_id: account,
        cutoff_at: cutoff,
        state: SettlementState::Pending,
        failure_reason: None,
        payer_contact_id: payer,
        sales_count: 0,
        contacts_count: 0,
        amount: Money::ZERO,
        billing_id: None,
        created_at: now,
        updated_at: now,
        completed_at: None,
        chunk: 0,
    };
    let writes =
        vec![stored::insert(&settlement, ())?, tasks::one(account, ReceivableSettlement::new(account, reference, 0))?];
    // Only the write runs again on a lost race or a throttle: the sales were read once.
    retry_on_conflict(|| async {
        match store.write(writes.clone()).await {
            Ok(()) => Ok(Made::Created(settlement.clone())),
            // Another request of the same reference created it first: answer as the second.
            Err(error) if error.failed_at(0) => {
                let existing = find(store, account, reference).await?.ok_or(Refusal::Conflict)?;
                again(store, existing, cutoff, payer).await
            }
            Err(error) => Err(error.into()),
        }
    })
    .await
}

/// The answer to a reference seen before: its state, or its resumption when it had failed (with
/// the payer the store has configured now, which may be why it failed), in one transaction with
/// the task of its next chunk.
async fn again(
    store: &Store,
    existing: Settlement,
    cutoff: NaiveDate,
    payer: ContactId,
) -> Result<Made<Settlement>, Refusal> {
    if existing.cutoff_at != cutoff {
        return Err(reference_reused(format!(
            "reference {} já foi usada com outra data de corte ({})",
            existing.reference, existing.cutoff_at
        )));
    }
    if existing.state != SettlementState::Failed {
        return Ok(Made::Existing(existing));
    }
    let resumed = Update::new()
        .set("state", &SettlementState::Pending)
        .set("payer_contact_id", &payer)
        .set("updated_at", &Timestamp::now())
        .remove("failure_reason");
    let failed = Condition::equals("state", &SettlementState::Failed);
    let account = existing.account_id;
    let next = ReceivableSettlement::new(account, &existing.reference, existing.chunk);
    match store.write(vec![existing.update(resumed, failed), tasks::one(account, next)?]).await {
        Ok(()) => {}
        // Resumed by another request at the same moment: that one answers 202.
        Err(error) if error.failed_at(0) => {
            let reread = find(store, account, &existing.reference).await?.unwrap_or(existing);
            return Ok(Made::Existing(reread));
        }
        Err(error) => return Err(error.into()),
    }
    let reread = find(store, account, &existing.reference).await?.unwrap_or(existing);
    Ok(Made::Resumed(reread))
}

/// What one message of the worker came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Settled this many sales; more remain for the next message (already sent).
    Continued(usize),
    Completed {
        billing_id: Option<BillingId>,
    },
    Failed(String),
    /// Nothing to do (the reason).
    Skipped(&'static str),
}

/// One message of the worker: when it names the chunk that is next (or no chunk: a message sent
/// before they were named), up to `chunk_size` sales settled and the next chunk's message
/// recorded; when none is left, the payer's billing and completion.
pub async fn run(store: &Store, message: &ReceivableSettlement, chunk_size: usize) -> anyhow::Result<Outcome> {
    let (account, reference) = (message.account_id, message.reference.as_str());
    let Some(settlement) = find(store, account, reference).await? else { return Ok(Outcome::Skipped("no settlement")) };
    match settlement.state {
        SettlementState::Completed => return Ok(Outcome::Skipped("already completed")),
        SettlementState::Failed => return Ok(Outcome::Skipped("failed; a new request resumes it")),
        SettlementState::Pending => mark(store, &settlement, SettlementState::Processing, None).await?,
        SettlementState::Processing => {}
    }
    if message.chunk.is_some_and(|chunk| chunk != settlement.chunk) {
        return Ok(Outcome::Skipped(CHUNK_RUN));
    }
    if records::find::<Contact>(store, account, settlement.payer_contact_id).await?.is_none() {
        return fail(store, &settlement, "O contato pagador do acerto não existe mais".into()).await;
    }
    let open = open_up_to(store, account, settlement.cutoff_at, Some(chunk_size)).await?;
    let mut settled = 0;
    for entry in open.iter().take(chunk_size) {
        if settle_sale(store, &settlement, &entry.code)
            .await
            .map_err(|e| anyhow::anyhow!("settle sale {}: {e}", entry.code))?
        {
            settled += 1;
        }
    }
    if open.len() >= chunk_size {
        next_chunk(store, &settlement).await?;
        return Ok(Outcome::Continued(settled));
    }
    let settlement = find(store, account, reference).await?.unwrap_or(settlement);
    let billing_id = match settlement.billing_id {
        Some(id) => Some(id),
        None => match bill(store, &settlement).await {
            Ok(id) => id,
            Err(Refusal::Invalid(reasons)) => return fail(store, &settlement, reasons.join("; ")).await,
            Err(other) => return Err(anyhow::anyhow!("settlement billing: {other}")),
        },
    };
    complete(store, &settlement).await?;
    Ok(Outcome::Completed { billing_id })
}

/// Counts this chunk run and records the next one's message, in one transaction, provided the
/// count still says this chunk (a copy of the message running at the same time may have moved it,
/// and sent the next itself).
async fn next_chunk(store: &Store, settlement: &Settlement) -> anyhow::Result<()> {
    let account = settlement.account_id;
    let moved = Update::new().set("chunk", &(settlement.chunk + 1));
    // A settlement requested before chunks were counted has none yet: it is at chunk 0.
    let here = match settlement.chunk {
        0 => Condition::missing("chunk").or(Condition::equals("chunk", &0)),
        _ => Condition::equals("chunk", &settlement.chunk),
    };
    let next = ReceivableSettlement::new(account, &settlement.reference, settlement.chunk + 1);
    let writes = vec![settlement.update(moved, here), tasks::one(account, next)?];
    move_cursor(store, writes).await.map_err(|e| anyhow::anyhow!("the settlement's next chunk: {e}"))?;
    Ok(())
}

async fn mark(store: &Store, settlement: &Settlement, state: SettlementState, reason: Option<&str>) -> StoreResult<()> {
    let change = Update::new().set("state", &state).set("updated_at", &Timestamp::now());
    let change = match reason {
        Some(reason) => change.set("failure_reason", reason),
        None => change,
    };
    let not_done = Condition::not_equals("state", &SettlementState::Completed);
    match store.write(vec![settlement.update(change, not_done)]).await {
        // Completed meanwhile by a copy of the message: nothing to mark.
        Err(StoreError::ConditionFailed(_)) => Ok(()),
        other => other,
    }
}

async fn fail(store: &Store, settlement: &Settlement, reason: String) -> anyhow::Result<Outcome> {
    tracing::warn!(reference = %settlement.reference, %reason, "settlement failed");
    mark(store, settlement, SettlementState::Failed, Some(&reason)).await?;
    Ok(Outcome::Failed(reason))
}

/// Settles one sale by transfer when it is still open (`false` when it was not): its open amount
/// leaves the customer's balance, and the settlement gets its line and totals, in one transaction.
async fn settle_sale(store: &Store, settlement: &Settlement, code: &str) -> Result<bool, Refusal> {
    let account = settlement.account_id;
    let id = sales::id_of_code(code).ok_or(Refusal::NotFound)?;
    retry_in_turn((keys::account(account), keys::sale(id)), || async {
        let Some(sale) = sales::find(store, account, code).await? else { return Ok(false) };
        if !sale.due_amount.is_positive() || sale.sold_at.date() > settlement.cutoff_at {
            return Ok(false);
        }
        let contact = records::find::<Contact>(store, account, sale.contact_id)
            .await?
            .ok_or_else(|| anyhow::anyhow!("sale {code} names a contact that is gone"))?;
        let due = sale.due_amount;
        let next: Sale = sale.changed(|s| {
            s.settled_amount = s.settled_amount + due;
            s.due_amount = Money::ZERO;
            s.settlement_reference = Some(settlement.reference.clone());
        });
        let mut payer = Contact { version: contact.version + 1, ..contact.clone() };
        payer.on_account_balance = payer.on_account_balance - due;
        let line = Line { sale_code: sale.code.clone(), contact_id: sale.contact_id, amount: due };
        let totals = Update::new().add("sales_count", 1).add("amount", due);
        let also = vec![
            next.replacing(&sale)?,
            stored::insert(&line, (account, &settlement.reference, sale.id))?,
            settlement.update(totals, Condition::present()),
            next.announced()?,
        ];
        records::replace(store, account, &contact, &payer, also).await?;
        Ok(true)
    })
    .await
}

/// A customer's item on the payer's billing: its name and sales (`Maria - vendas 000001, 000004 até
/// 23/11/2026`), or their count when the codes do not fit an item's 100 characters.
fn item_description(name: &str, codes: &[&str], cutoff: &str) -> String {
    let (one, many) = match codes.len() {
        1 => ("venda", format!("venda {}", codes[0])),
        _ => ("vendas", format!("vendas {}", codes.join(", "))),
    };
    let named = format!("{name} - {many} até {cutoff}");
    if named.chars().count() <= 100 {
        return named;
    }
    let counted = format!(" - {} {one} a prazo até {cutoff}", codes.len());
    let room = 100usize.saturating_sub(counted.chars().count());
    format!("{}{counted}", name.chars().take(room).collect::<String>())
}

/// The settlement's lines, all of them (its sales).
async fn lines(store: &Store, settlement: &Settlement) -> StoreResult<Vec<Line>> {
    let partition = keys::settlement_lines(settlement.account_id, &settlement.reference);
    stored::with_prefix(store, partition, keys::SALE_PREFIX.to_owned(), true).await
}

/// Makes the payer's billing from the lines (none when nothing was settled), with the
/// settlement's `billing_id` in its transaction.
async fn bill(store: &Store, settlement: &Settlement) -> Result<Option<BillingId>, Refusal> {
    let account = settlement.account_id;
    let lines = lines(store, settlement).await?;
    let total: Money = lines.iter().map(|l| l.amount).sum();
    if !total.is_positive() {
        return Ok(None);
    }
    let mut per_contact: BTreeMap<ContactId, (Vec<&str>, Money)> = BTreeMap::new();
    for line in &lines {
        let entry = per_contact.entry(line.contact_id).or_insert((Vec::new(), Money::ZERO));
        entry.0.push(&line.sale_code);
        entry.1 = entry.1 + line.amount;
    }
    let ids: Vec<ContactId> = per_contact.keys().copied().collect();
    let names: BTreeMap<ContactId, String> = records::find_many::<Contact>(store, account, &ids)
        .await?
        .into_iter()
        .map(|c| (c.id, c.description().unwrap_or_default().to_owned()))
        .collect();
    let cutoff = settlement.cutoff_at.format("%d/%m/%Y");
    let mut items: Vec<Value> = Vec::new();
    let customers: Vec<(&ContactId, &(Vec<&str>, Money))> = per_contact.iter().collect();
    let (listed, rest) = customers.split_at(customers.len().min(BILLING_ITEMS - 1));
    for (contact, (codes, amount)) in listed {
        let name = names.get(contact).map(String::as_str).unwrap_or("Cliente");
        items.push(json!({"description": item_description(name, codes, &cutoff.to_string()), "quantity": 1, "amount": amount.to_string()}));
    }
    if !rest.is_empty() {
        let amount: Money = rest.iter().map(|(_, (_, amount))| *amount).sum();
        let description = format!("Demais {} clientes - vendas a prazo até {cutoff}", rest.len());
        items.push(json!({"description": description, "quantity": 1, "amount": amount.to_string()}));
    }
    let rules = records::entries::<BankRule>(store, account, None).await?;
    let Some(rule) = rules.first().and_then(|e| e.id::<crate::values::BankRuleId>()) else {
        return Err(Refusal::invalid("A conta não tem regra bancária para emitir a cobrança do acerto"));
    };
    let due = next_business_day(today() + chrono::Days::new(DUE_IN_DAYS));
    let body = json!({
        "bank_rule_id": rule,
        "contact_id": settlement.payer_contact_id,
        "due_date": due.to_string(),
        "reference": settlement.reference,
        "evincive": format!("Acerto por transferência das vendas a prazo até {cutoff}"),
        "billing_items": items,
    });
    let fields = body.as_object().cloned().unwrap_or_default();
    // The total was above the minimum when requested; receipts since may have taken it below,
    // which this billing of the system accepts (as an update keeps a stored amount).
    let draft = Draft::parse_update(Fields::new(&fields), total).map_err(Refusal::Invalid)?;
    let ids = billings::NewIds::reserve(store, account, &draft).await?;
    retry_on_conflict(|| async {
        // Made by an earlier or a concurrent run of this settlement.
        if let Some(id) = find(store, account, &settlement.reference).await?.and_then(|s| s.billing_id) {
            return Ok(Some(id));
        }
        let payer = billings::check_references(store, account, &draft).await?;
        let record_billing = Update::new().set("billing_id", &ids.billing).set("updated_at", &Timestamp::now());
        let marked = settlement.update(record_billing, Condition::missing("billing_id"));
        Ok(Some(billings::insert_new(store, account, ids, &draft, payer, vec![marked]).await?.id))
    })
    .await
}

async fn complete(store: &Store, settlement: &Settlement) -> StoreResult<()> {
    let lines = lines(store, settlement).await?;
    let mut contacts: Vec<ContactId> = lines.iter().map(|l| l.contact_id).collect();
    contacts.sort_unstable();
    contacts.dedup();
    let now = Timestamp::now();
    let change = Update::new()
        .set("state", &SettlementState::Completed)
        .set("contacts_count", &contacts.len())
        .set("completed_at", &now)
        .set("updated_at", &now);
    match store.write(vec![settlement.update(change, Condition::present())]).await {
        Ok(()) | Err(StoreError::ConditionFailed(_)) => Ok(()),
        Err(other) => Err(other),
    }
}

/// The settlements worker: the batch's messages at once.
pub async fn handle_batch(
    store: &Store,
    event: aws_lambda_events::event::sqs::SqsEvent,
) -> aws_lambda_events::event::sqs::SqsBatchResponse {
    crate::jobs::handle_batch(event, "receivable settlement", move |message: ReceivableSettlement| async move {
        run(store, &message, CHUNK).await
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_name_the_customer_and_the_sales_within_100_characters() {
        assert_eq!(item_description("Maria", &["000001"], "23/11/2026"), "Maria - venda 000001 até 23/11/2026");
        assert_eq!(
            item_description("Maria", &["000001", "000004"], "23/11/2026"),
            "Maria - vendas 000001, 000004 até 23/11/2026"
        );
        let codes: Vec<String> = (1..=30).map(|n| format!("{n:06}")).collect();
        let codes: Vec<&str> = codes.iter().map(String::as_str).collect();
        let long = item_description(&"N".repeat(120), &codes, "23/11/2026");
        assert_eq!(long.chars().count(), 100);
        assert!(long.ends_with(" - 30 vendas a prazo até 23/11/2026"), "{long}");
    }
}
