//! `ops category …`: an account's financial categories (receivable or payable), created and
//! listed.

use billing_api::bill_categories;
use billing_api::store::Store;
use billing_api::values::{AccountId, CategoryType};
use clap::Subcommand;
use serde_json::{json, Value};

use super::listings::{self, PageArgs};
use super::require_account;

#[derive(Subcommand, Debug)]
pub enum CategoryCommand {
    /// Creates a financial category.
    Create {
        /// The account it belongs to.
        #[arg(long)]
        account: AccountId,
        /// The category's description.
        #[arg(long)]
        description: String,
        /// receivable or payable.
        #[arg(long = "type", default_value = "receivable")]
        category_type: String,
    },
    /// Lists the account's, by id, a page at a time.
    List {
        /// The account whose categories to list.
        #[arg(long)]
        account: AccountId,
        #[command(flatten)]
        page: PageArgs,
    },
}

/// Runs one `category` command.
pub async fn run(store: &Store, command: CategoryCommand) -> anyhow::Result<Value> {
    match command {
        CategoryCommand::Create { account, description, category_type } => {
            create_category(store, account, &description, &category_type).await
        }
        CategoryCommand::List { account, page } => listings::categories(store, account, page.after, page.limit).await,
    }
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
