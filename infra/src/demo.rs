//! The dev server's demo account (with a bank rule, categories and bank accounts) and token. The plain token is kept in a git-ignored file so that a
//! second start reuses the same account and prints the same token, while the store still holds it.

use std::path::Path;

use anyhow::Context as _;
use billing_api::accounts::{self, AccountChanges, AccountId};
use billing_api::auth::{authenticate, token_record};
use billing_api::store::Store;
use billing_api::values::{BankAccountType, CategoryType};
use billing_api::{bank_accounts, bank_rules, bill_categories};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Demo {
    pub account_id: AccountId,
    pub token: String,
}

pub const DEMO_ACCOUNT_NAME: &str = "Conta de demonstração";

/// Reuses the saved demo token while it still authenticates; otherwise creates the account (if it
/// is gone) and a new token, and saves them.
pub async fn ensure(store: &Store, file: &Path) -> anyhow::Result<Demo> {
    if let Ok(text) = std::fs::read_to_string(file) {
        if let Ok(saved) = serde_json::from_str::<Demo>(&text) {
            let header = format!("Bearer {}", saved.token);
            if authenticate(store, Some(&header)).await.is_ok_and(|c| c.account_id == saved.account_id) {
                return Ok(saved);
            }
        }
    }
    // The beneficiary data its bank billets print.
    let profile = AccountChanges {
        document: Some("11.222.333/0001-81".into()),
        address: Some("Avenida Paulista, 1000, Bela Vista".into()),
        city: Some("São Paulo".into()),
        ..AccountChanges::default()
    };
    let account = accounts::create(store, DEMO_ACCOUNT_NAME, profile).await?;
    // What billings need and only operators create: bank rule 1, receivable category 1, payable
    // category 2, checking account 1 and the service's own account 2.
    bank_rules::create(store, account.id, "Banco simulado", "simulated", None).await?;
    bill_categories::create(store, account.id, "Mensalidades", CategoryType::Receivable).await?;
    bill_categories::create(store, account.id, "Fornecedores", CategoryType::Payable).await?;
    bank_accounts::create(store, account.id, "Conta corrente", BankAccountType::Checking).await?;
    bank_accounts::create(store, account.id, "Conta do serviço", BankAccountType::Service).await?;
    let (_, token) = token_record::create(store, account.id, "Token de demonstração (dev server)").await?;
    let demo = Demo { account_id: account.id, token: token.expose().to_owned() };
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("create {}", dir.display()))?;
    }
    std::fs::write(file, serde_json::to_string_pretty(&demo)?).with_context(|| format!("write {}", file.display()))?;
    restrict_permissions(file);
    Ok(demo)
}

#[cfg(unix)]
fn restrict_permissions(file: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o600));
}

#[cfg(not(unix))]
fn restrict_permissions(_file: &Path) {}

/// The demo account's Itaú rule with Pix (rule 2, agreement 0057/12345-7/109), linked to the local
/// PSP and its webhook registered at `webhook_base` (the dev server's Pix listener): its billings
/// carry a dynamic Pix code. Made once; linked again at every start (the listener's address and the
/// local PSP are the run's). Its id.
pub async fn ensure_pix(
    store: &Store,
    secrets: &aws_sdk_secretsmanager::Client,
    account: AccountId,
    webhook_base: &str,
) -> anyhow::Result<billing_api::values::BankRuleId> {
    use billing_api::store::records;
    let rule = billing_api::values::BankRuleId::new(2);
    if records::find::<bank_rules::BankRule>(store, account, rule).await?.is_none() {
        let made = bank_rules::create(store, account, "Itaú com Pix", "itau", Some("0057/12345-7/109".into())).await?;
        anyhow::ensure!(made.id == rule, "the demo account's Itaú rule is {}, not {rule}", made.id);
    }
    let key = format!("00000000-0000-4000-8000-{:012}", account.get());
    let credentials = crate::ops::pix::local_credentials(&key)?;
    crate::ops::pix::link_psp(store, secrets, account, rule, &credentials, Some(webhook_base)).await?;
    Ok(rule)
}
