//! The settlements worker (the settlements queue): a chunk of open sales per message, each settled
//! in one transaction with its customer's balance and a line of the settlement; the next chunk's
//! message recorded on the settlement's count of chunks run; and, once no sale is left, the
//! payer's billing (one item per customer) and completion.

use std::collections::BTreeMap;

use super::model::{Line, Settlement, BILLING_ITEMS, CHUNK, CHUNK_RUN, DUE_IN_DAYS};
use super::service::{find, open_up_to};
use crate::bank_rules::BankRule;
use crate::billings::input::{Draft, Item as DraftItem, ITEM_DESCRIPTION_MAX_CHARS};
use crate::billings::service as billings;
use crate::contacts::Contact;
use crate::contention::{move_cursor, retry_in_turn, retry_on_conflict};
use crate::jobs::{tasks, ReceivableSettlement};
use crate::pos::sales::{self, Sale};
use crate::refusal::{messages, Code, Problem, Refusal};
use crate::store::stored;
use crate::store::{keys, records, Condition, Store, StoreError, StoreResult, Update};
use crate::values::calendar::next_business_day;
use crate::values::{today, BillingId, ContactId, IssueType, Money, SettlementState, Timestamp};

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
            Err(Refusal::Invalid(reasons)) => return fail(store, &settlement, messages(&reasons).join("; ")).await,
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
    retry_in_turn((keys::account(account), keys::pos::sale(id)), || async {
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
    if named.chars().count() <= ITEM_DESCRIPTION_MAX_CHARS {
        return named;
    }
    let counted = format!(" - {} {one} a prazo até {cutoff}", codes.len());
    let room = ITEM_DESCRIPTION_MAX_CHARS.saturating_sub(counted.chars().count());
    format!("{}{counted}", name.chars().take(room).collect::<String>())
}

/// The settlement's lines, all of them (its sales).
async fn lines(store: &Store, settlement: &Settlement) -> StoreResult<Vec<Line>> {
    let partition = keys::pos::settlement_lines(settlement.account_id, &settlement.reference);
    stored::with_prefix(store, partition, keys::pos::SALE_PREFIX.to_owned(), true).await
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
    let item = |description: String, amount: Money| DraftItem {
        id: None,
        description: crate::values::text::collapse_whitespace(&description),
        quantity: 1,
        amount,
    };
    let mut items: Vec<DraftItem> = Vec::new();
    let customers: Vec<(&ContactId, &(Vec<&str>, Money))> = per_contact.iter().collect();
    let (listed, rest) = customers.split_at(customers.len().min(BILLING_ITEMS - 1));
    for (contact, (codes, amount)) in listed {
        let name = names.get(contact).map(String::as_str).unwrap_or("Cliente");
        items.push(item(item_description(name, codes, &cutoff.to_string()), *amount));
    }
    if !rest.is_empty() {
        let amount: Money = rest.iter().map(|(_, (_, amount))| *amount).sum();
        let description = format!("Demais {} clientes - vendas a prazo até {cutoff}", rest.len());
        items.push(item(description, amount));
    }
    let rules = records::entries::<BankRule>(store, account, None).await?;
    let Some(rule) = rules.first().and_then(|e| e.id::<crate::values::BankRuleId>()) else {
        let message = "A conta não tem regra bancária para emitir a cobrança do acerto";
        return Err(Refusal::invalid(Problem::general(Code::NotFound, message)));
    };
    let due = next_business_day(today() + chrono::Days::new(DUE_IN_DAYS));
    // The billing the settlement makes, written as a create's draft (its items within the limits of
    // one, the due date a business day). The total was above the minimum when requested; receipts
    // since may have taken it below, which this billing of the system accepts (as an update keeps
    // a stored amount).
    let draft = Draft {
        issue_type: IssueType::Individual,
        bank_rule_id: rule,
        contact_id: Some(settlement.payer_contact_id),
        patient_id: None,
        tag_id: None,
        excluded_tag_ids: Vec::new(),
        bill_category_id: None,
        evincive: Some(format!("Acerto por transferência das vendas a prazo até {cutoff}")),
        observation: None,
        reference: Some(settlement.reference.clone()),
        your_code: None,
        competence: None,
        due_date: due,
        penalty: None,
        interest: None,
        instruction: None,
        amount: items.iter().map(|i| i.amount).sum(),
        items,
    };
    draft.within_limits().map_err(Refusal::Invalid)?;
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
