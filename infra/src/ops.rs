//! What the ops CLI does: accounts and API tokens (created "elsewhere" in the spec's words). Each
//! operation returns the JSON the CLI prints; token operations that change access flush the
//! authorizer cache.

use anyhow::Context as _;
use billing_api::accounts::{self, AccountChanges};
use billing_api::auth::token_record;
use billing_api::billets::lifecycle;
use billing_api::billings::legacy::{self, LegacyBilling};
use billing_api::billings::service::{self as billings, Payment};
use billing_api::billings::Billing;
use billing_api::contacts::Contact;
use billing_api::contention::retry_in_turn;
use billing_api::editing::find_or_404;
use billing_api::store::records;
use billing_api::store::Store;
use billing_api::values::{AccountId, BankAccountType, BillingId, CategoryType, ContactId, Money, TokenId};
use billing_api::{bank_accounts, bank_rules, bill_categories};
use serde_json::{json, Value};

use crate::cache_flush::CacheFlusher;

pub async fn create_account(store: &Store, name: &str, changes: AccountChanges) -> anyhow::Result<Value> {
    let account = accounts::create(store, name, changes).await?;
    Ok(json!({ "account": account }))
}

pub async fn show_account(store: &Store, id: AccountId) -> anyhow::Result<Value> {
    let account = accounts::find(store, id).await?.with_context(|| format!("no account {id}"))?;
    Ok(json!({ "account": account }))
}

/// A status, KYC or module change takes effect at once: the authorizer cache is flushed.
pub async fn update_account(
    store: &Store,
    flusher: &CacheFlusher,
    id: AccountId,
    changes: AccountChanges,
) -> anyhow::Result<Value> {
    if let Some(Some(contact)) = changes.settlement_contact_id {
        records::find::<Contact>(store, id, contact)
            .await?
            .with_context(|| format!("account {id} has no contact {contact} to pay its settlements"))?;
    }
    let account = accounts::update(store, id, changes).await?.with_context(|| format!("no account {id}"))?;
    let flushed = flusher.flush().await?;
    Ok(json!({ "account": account, "authorizer_cache": flushed }))
}

/// The plain token is printed here once; only its digest and last 4 characters are stored.
pub async fn create_token(store: &Store, account: AccountId, name: &str) -> anyhow::Result<Value> {
    accounts::find(store, account).await?.with_context(|| format!("no account {account}"))?;
    let (record, token) = token_record::create(store, account, name).await?;
    Ok(json!({
        "token": record,
        "plain_token": token.expose(),
        "notice": "Store this token now: it is shown only once and cannot be recovered."
    }))
}

pub async fn list_tokens(store: &Store, account: AccountId) -> anyhow::Result<Value> {
    Ok(json!({ "tokens": token_record::list(store, account).await? }))
}

pub async fn revoke_token(
    store: &Store,
    flusher: &CacheFlusher,
    account: AccountId,
    id: TokenId,
) -> anyhow::Result<Value> {
    let record = token_record::revoke(store, account, id)
        .await?
        .with_context(|| format!("account {account} has no token {id}"))?;
    let flushed = flusher.flush().await?;
    Ok(json!({ "token": record, "authorizer_cache": flushed }))
}

/// A bank rule (which bank or agreement issues the billets). `bank_symbol` names the provider.
pub async fn create_bank_rule(
    store: &Store,
    account: AccountId,
    name: &str,
    bank_symbol: &str,
    agreement_code: Option<String>,
) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    let rule = bank_rules::create(store, account, name, bank_symbol, agreement_code).await?;
    Ok(json!({ "bank_rule": rule }))
}

/// A bank account; type `service` is the service's own account (refused as pay-off target).
pub async fn create_bank_account(
    store: &Store,
    account: AccountId,
    name: &str,
    account_type: &str,
) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    let account_type: BankAccountType =
        account_type.parse().map_err(|_| anyhow::anyhow!("account type must be one of {}", BankAccountType::list()))?;
    let bank_account = bank_accounts::create(store, account, name, account_type).await?;
    Ok(json!({ "bank_account": bank_account }))
}

/// A financial category, `receivable` or `payable`.
pub async fn create_category(
    store: &Store,
    account: AccountId,
    description: &str,
    category_type: &str,
) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    let category_type: CategoryType =
        category_type.parse().map_err(|_| anyhow::anyhow!("category type must be one of {}", CategoryType::list()))?;
    let category = bill_categories::create(store, account, description, category_type).await?;
    Ok(json!({ "bill_category": category }))
}

pub async fn require_account(store: &Store, account: AccountId) -> anyhow::Result<()> {
    accounts::find(store, account).await?.with_context(|| format!("no account {account}"))?;
    Ok(())
}

/// A legacy `schedule` or `carne` record (a booklet prints the booklet and its instalments).
pub async fn create_legacy_billing(store: &Store, account: AccountId, spec: &LegacyBilling) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    let stored = legacy::create(store, account, spec).await?;
    let ids: Vec<BillingId> = stored.iter().map(|b| b.id).collect();
    Ok(json!({ "billing_type": spec.billing_type, "billing_ids": ids }))
}

/// The simulated bank settles a billing's opened billet (see
/// `billings::service::record_bank_payment`): prints the billing as the API now shows it.
pub async fn pay_billing(
    store: &Store,
    account: AccountId,
    billing: BillingId,
    payment: &Payment,
) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    let paid = billings::record_bank_payment(store, account, billing, payment).await?;
    Ok(billings::single(store, account, &paid).await?)
}

/// The amount of the billing's current billet (what a payment defaults to).
pub async fn billet_amount(store: &Store, account: AccountId, billing: BillingId) -> anyhow::Result<Money> {
    let found =
        records::find::<Billing>(store, account, billing).await?.with_context(|| format!("no billing {billing}"))?;
    let billet = lifecycle::current(store, account, &found).await?;
    Ok(billet.with_context(|| format!("billing {billing} has no bank billet yet"))?.amount)
}

/// Health module: who pays for a patient (`None` clears it, so the patient pays).
pub async fn set_financial_guardian(
    store: &Store,
    account: AccountId,
    patient: ContactId,
    guardian: Option<ContactId>,
) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    anyhow::ensure!(guardian != Some(patient), "a patient cannot be its own guardian");
    if let Some(id) = guardian {
        records::find::<Contact>(store, account, id).await?.with_context(|| format!("no contact {id}"))?;
    }
    records::find::<Contact>(store, account, patient).await?.with_context(|| format!("no contact {patient}"))?;
    retry_in_turn(records::key_of::<Contact>(account, patient), || async {
        let current: Contact = find_or_404(store, account, patient).await?;
        let next = Contact { financial_guardian_id: guardian, version: current.version + 1, ..current.clone() };
        records::replace(store, account, &current, &next, Vec::new()).await?;
        Ok(())
    })
    .await?;
    Ok(json!({ "contact_id": patient, "financial_guardian_id": guardian }))
}

/// Point of sale: the most a contact may owe on account (`None`: no limit).
pub async fn set_on_account_limit(
    store: &Store,
    account: AccountId,
    contact: ContactId,
    limit: Option<Money>,
) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    if let Some(limit) = limit {
        anyhow::ensure!(limit >= Money::ZERO && limit.cents() == limit, "the limit must be an amount of 0.00 or more");
    }
    let updated = retry_in_turn(records::key_of::<Contact>(account, contact), || async {
        let current: Contact = find_or_404(store, account, contact).await?;
        let next = Contact { on_account_limit: limit, version: current.version + 1, ..current.clone() };
        records::replace(store, account, &current, &next, Vec::new()).await?;
        Ok(next)
    })
    .await
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(
        json!({ "contact_id": contact, "on_account_limit": updated.on_account_limit, "on_account_balance": updated.on_account_balance }),
    )
}
