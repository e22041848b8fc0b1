//! `ops billing …`: legacy billings (recurring `schedule`, instalment booklet `carne`) migrated
//! from elsewhere, a type's counters counted again, and (local stack only) the simulated bank's
//! payment of a billing.

use anyhow::Context as _;
use billing_api::billings::billets::lifecycle;
use billing_api::billings::legacy::{self, LegacyBilling};
use billing_api::billings::service as billings;
use billing_api::billings::view::BillingView;
use billing_api::billings::Billing;
use billing_api::payments::boleto::bank::Reported;
use billing_api::store::records;
use billing_api::store::Store;
use billing_api::values::{today, AccountId, BankRuleId, BillingId, BillingType, ContactId, GroupId, Money, TagId};
use clap::Subcommand;
use serde_json::{json, Value};

use super::require_account;

#[derive(Subcommand, Debug)]
pub enum BillingCommand {
    /// Creates a `schedule` or a `carne` (the booklet and its monthly instalments). Individual with
    /// --contact; bulk with --tag (and --excluded-tag) or, as old records did, --group.
    Legacy {
        /// The account it belongs to.
        #[arg(long)]
        account: AccountId,
        /// schedule or carne.
        #[arg(long = "type")]
        billing_type: BillingType,
        /// The bank rule that issues its billets.
        #[arg(long)]
        bank_rule: BankRuleId,
        /// The contact billed (an individual record).
        #[arg(long)]
        contact: Option<ContactId>,
        /// Bill every customer with this tag (a bulk record).
        #[arg(long)]
        tag: Option<TagId>,
        /// Leave out customers with this tag (repeat for several).
        #[arg(long = "excluded-tag")]
        excluded_tags: Vec<TagId>,
        /// Bill every customer of this group (a bulk record, as old records did).
        #[arg(long)]
        group: Option<GroupId>,
        /// The item's description.
        #[arg(long, default_value = "Mensalidade")]
        description: String,
        /// Per record (per instalment of a booklet), e.g. 99.90, as it was made (a record older
        /// than the 5.00 minimum keeps its amount).
        #[arg(long)]
        amount: Money,
        /// YYYY-MM-DD (of the first instalment of a booklet).
        #[arg(long)]
        due_date: chrono::NaiveDate,
        /// How many instalments (booklets only).
        #[arg(long, default_value_t = 3)]
        installments: i64,
    },
    /// Counts the account's billings of a type again (the total and each status, bank rule and
    /// category, which the lists' X-Total-Count read) and moves the counter to them: the repair
    /// for billings written around the service. Reads every billing of the type.
    Recount {
        /// The account the billings belong to.
        #[arg(long)]
        account: AccountId,
        /// billing, schedule or carne.
        #[arg(long = "type", default_value = "billing")]
        billing_type: BillingType,
    },
    /// Simulates the bank's payment of a billing's opened billet: billet and billing `paid`, and a
    /// `billing.updated` event recorded for the webhook sender (local stack only).
    Pay {
        /// The account the billing belongs to.
        #[arg(long)]
        account: AccountId,
        /// The billing's id.
        #[arg(long)]
        billing: BillingId,
        /// What the payer paid, e.g. 135.00 (more than the billet's amount is interest, less is a
        /// discount). Default: the billet's amount.
        #[arg(long)]
        amount: Option<Money>,
        /// YYYY-MM-DD. Default: today.
        #[arg(long)]
        date: Option<chrono::NaiveDate>,
        /// The bank's fee, deducted from what is credited.
        #[arg(long, default_value = "0")]
        fee: Money,
    },
}

impl BillingCommand {
    /// Why the command makes sense only on the local stack, for those that do.
    pub fn local_only(&self) -> Option<(&'static str, &'static str)> {
        match self {
            BillingCommand::Pay { .. } => {
                Some(("billing pay", "simulates the bank's payment (on AWS the bank reports payments)"))
            }
            _ => None,
        }
    }
}

/// Runs one `billing` command.
pub async fn run(store: &Store, command: BillingCommand) -> anyhow::Result<Value> {
    match command {
        BillingCommand::Legacy {
            account,
            billing_type,
            bank_rule,
            contact,
            tag,
            excluded_tags,
            group,
            description,
            amount,
            due_date,
            installments,
        } => {
            let spec = LegacyBilling {
                billing_type,
                bank_rule_id: bank_rule,
                contact_id: contact,
                tag_id: tag,
                excluded_tag_ids: excluded_tags,
                group_id: group,
                description,
                amount,
                due_date,
                installments,
            };
            create_legacy_billing(store, account, &spec).await
        }
        BillingCommand::Recount { account, billing_type } => recount_billings(store, account, billing_type).await,
        BillingCommand::Pay { account, billing, amount, date, fee } => {
            let amount = match amount {
                Some(amount) => amount,
                None => billet_amount(store, account, billing).await?,
            };
            let payment = Reported { amount, paid_on: date.unwrap_or_else(today), fee };
            pay_billing(store, account, billing, &payment).await
        }
    }
}

/// A legacy `schedule` or `carne` record (a booklet prints the booklet and its instalments).
pub async fn create_legacy_billing(store: &Store, account: AccountId, spec: &LegacyBilling) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    let stored = legacy::create(store, account, spec).await?;
    let ids: Vec<BillingId> = stored.iter().map(|b| b.id).collect();
    Ok(json!({ "billing_type": spec.billing_type, "billing_ids": ids }))
}

/// The simulated bank settles a billing's opened billet (see
/// `payments::boleto::bank::pay`, applied as every payment is): prints the billing as the API now shows
/// it.
pub async fn pay_billing(
    store: &Store,
    account: AccountId,
    billing: BillingId,
    payment: &Reported,
) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    let paid = billing_api::payments::boleto::bank::pay(store, account, billing, payment).await?;
    let embedded = billings::embedded(store, account, &paid).await?;
    Ok(serde_json::to_value(BillingView::new(&paid, &embedded.related(), today()))?)
}

/// The amount of the billing's current billet (what a payment defaults to).
pub async fn billet_amount(store: &Store, account: AccountId, billing: BillingId) -> anyhow::Result<Money> {
    let found =
        records::find::<Billing>(store, account, billing).await?.with_context(|| format!("no billing {billing}"))?;
    let billet = lifecycle::current(store, account, &found).await?;
    Ok(billet.with_context(|| format!("billing {billing} has no bank billet yet"))?.amount)
}

/// The billings counter of a type counted again (`billings::counts::recount`): the counts that
/// moved, each with what the counter said and what the billings say.
pub async fn recount_billings(
    store: &Store,
    account: AccountId,
    billing_type: billing_api::values::BillingType,
) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    let moved = billing_api::billings::counts::recount(store, account, billing_type).await?;
    let moved: Vec<Value> =
        moved.iter().map(|moved| json!({"count": moved.count, "was": moved.was, "is": moved.is})).collect();
    Ok(json!({ "billing_type": billing_type, "moved": moved }))
}
