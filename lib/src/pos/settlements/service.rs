//! What happens to settlements on request: the open sales up to a cutoff, the preview of what a
//! settlement would take, and the request that stores one (or answers, or resumes, the one its
//! reference names) with the task of its first message.

use std::collections::BTreeMap;

use chrono::NaiveDate;

use super::model::{missing_contact, Settlement, PREVIEW_CONTACTS_SHOWN, PREVIEW_SALES_SHOWN};
use super::model::{ContactPreview, Preview, SalePreview};
use super::record::{after, settlement_key};
use crate::accounts;
use crate::contacts::Contact;
use crate::contention::retry_on_conflict;
use crate::jobs::{tasks, ReceivableSettlement};
use crate::pos::credits::reference_reused;
use crate::pos::sales::OpenEntry;
use crate::refusal::{Code, Made, Problem, Refusal};
use crate::store::item::from_attribute;
use crate::store::stored;
use crate::store::{keys, records, Condition, KeyRange, Store, StoreResult, Update};
use crate::values::{AccountId, ContactId, Money, SettlementState, Timestamp};

/// The open sales of the account sold up to `cutoff` (index entries: keys and what they owe).
pub async fn open_up_to(
    store: &Store,
    account: AccountId,
    cutoff: NaiveDate,
    limit: Option<usize>,
) -> Result<Vec<OpenEntry>, Refusal> {
    let range = KeyRange::index(keys::pos::open_sales(account), after(cutoff), true);
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
    let contacts_count = by_contact.len();
    // The first customers by id are listed, with their names (one bounded batch read).
    let mut shown: Vec<ContactPreview> = by_contact.into_values().take(PREVIEW_CONTACTS_SHOWN).collect();
    let ids: Vec<ContactId> = shown.iter().map(|c| c.contact_id).collect();
    let names: BTreeMap<ContactId, Option<String>> = records::find_many::<Contact>(store, account, &ids)
        .await?
        .into_iter()
        .map(|c| (c.id, c.description().map(str::to_owned)))
        .collect();
    for preview in &mut shown {
        preview.name = names.get(&preview.contact_id).cloned().flatten();
    }
    Ok(Preview {
        cutoff_at: cutoff,
        payer_contact_id: owner.settlement_contact_id,
        total: open.iter().map(|e| e.due_amount).sum(),
        sales_count: open.len(),
        contacts_count,
        contacts: shown,
        truncated: open.len() > PREVIEW_SALES_SHOWN || contacts_count > PREVIEW_CONTACTS_SHOWN,
    })
}

pub async fn find(store: &Store, account: AccountId, reference: &str) -> StoreResult<Option<Settlement>> {
    stored::find(store, settlement_key(account, reference)).await
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
    let turn = crate::store::turns::turn_of((keys::account(account), keys::pos::settlement(reference)));
    let _turn = turn.lock().await;
    if let Some(existing) = find(store, account, reference).await? {
        return retry_on_conflict(|| again(store, existing.clone(), cutoff, payer)).await;
    }
    let open = open_up_to(store, account, cutoff, None).await?;
    let total: Money = open.iter().map(|e| e.due_amount).sum();
    if !total.is_positive() {
        let message = format!("Nada a acertar: nenhuma venda a prazo em aberto até {cutoff}");
        return Err(Refusal::invalid(Problem::general(Code::TooSmall, message)));
    }
    if total.get() < crate::billings::input::minimum_amount() {
        let message = format!("O total a acertar ({total}) é menor que o valor mínimo de uma cobrança (5.00)");
        return Err(Refusal::invalid(Problem::general(Code::TooSmall, message)));
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
