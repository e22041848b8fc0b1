//! `ops contact …`: a contact's financial guardian (health module) and on-account limit (point of
//! sale), and the repairs of contacts written around the service: their counters and a tag's
//! reach counted again, their records moved to today's stored names.

use anyhow::Context as _;
use billing_api::contacts::Contact;
use billing_api::contention::retry_in_turn;
use billing_api::editing::find_or_404;
use billing_api::store::records;
use billing_api::store::Store;
use billing_api::values::{AccountId, ContactId, Money, TagId};
use clap::Subcommand;
use serde_json::{json, Value};

use super::confirm::Destructive;
use super::require_account;

#[derive(Subcommand, Debug)]
pub enum ContactCommand {
    /// Point of sale: the most the contact may owe on account (--clear: no limit; asks first
    /// on AWS).
    Limit {
        /// The account the contact belongs to.
        #[arg(long)]
        account: AccountId,
        /// The contact's id.
        #[arg(long)]
        contact: ContactId,
        /// The limit, e.g. 50.00.
        #[arg(long, required_unless_present = "clear")]
        limit: Option<Money>,
        /// Remove the limit instead.
        #[arg(long, conflicts_with = "limit")]
        clear: bool,
    },
    /// Counts the account's contacts again (each type's total, groups and active ones, which the
    /// lists' X-Total-Count read, and every tag's reach and holders) and moves the counters to
    /// them: the repair for contacts written around the service. Reads every contact.
    Recount {
        /// The account the contacts belong to.
        #[arg(long)]
        account: AccountId,
    },
    /// Moves the account's contacts stored under the names before today's (a tag's postings
    /// `T<tag>`, a code's `K<hash>`, the document `d`, the tag counts `t<tag>` and
    /// `<type>#T<tag>`) to today's (`L<tag>`, `Y<hash>`, `n`, `l<tag>`, `<type>#L<tag>`),
    /// each contact in one transaction, a hundred to a read: see docs/runbook.md, "Contacts stored
    /// under the names before". Safe to run again; answers how many moved, how many were already
    /// moved, and any left.
    RenameStored {
        /// The account the contacts belong to.
        #[arg(long)]
        account: AccountId,
    },
    /// Counts again the active customers holding a tag (the count a bulk billing's 202 answers
    /// from) and sets the tag's reach counter to it: the repair for contacts written around
    /// the service. Reads every holder of the tag.
    RecountReach {
        /// The account the tag belongs to.
        #[arg(long)]
        account: AccountId,
        /// The tag's id.
        #[arg(long)]
        tag: TagId,
    },
    /// Sets (or with --clear removes; asks first on AWS) the financial guardian who pays a
    /// patient's billings.
    Guardian {
        /// The account the contacts belong to.
        #[arg(long)]
        account: AccountId,
        /// The patient's contact id.
        #[arg(long)]
        contact: ContactId,
        /// The guardian's contact id.
        #[arg(long, required_unless_present = "clear")]
        guardian: Option<ContactId>,
        /// Remove the guardian instead (the patient pays).
        #[arg(long, conflicts_with = "guardian")]
        clear: bool,
    },
}

impl ContactCommand {
    /// What a `--clear` takes away.
    pub fn destructive(&self) -> Option<Destructive> {
        match self {
            ContactCommand::Guardian { account, contact, clear: true, .. } => Some(Destructive::on(
                *account,
                format!("remove the financial guardian of contact {contact} of account {account} (the patient pays)"),
            )),
            ContactCommand::Limit { account, contact, clear: true, .. } => Some(Destructive::on(
                *account,
                format!(
                    "remove the on-account limit of contact {contact} of account {account} (it may owe any amount)"
                ),
            )),
            _ => None,
        }
    }
}

/// Runs one `contact` command.
pub async fn run(store: &Store, command: ContactCommand) -> anyhow::Result<Value> {
    match command {
        ContactCommand::Guardian { account, contact, guardian, clear: _ } => {
            set_financial_guardian(store, account, contact, guardian).await
        }
        ContactCommand::Limit { account, contact, limit, clear: _ } => {
            set_on_account_limit(store, account, contact, limit).await
        }
        ContactCommand::Recount { account } => recount_contacts(store, account).await,
        ContactCommand::RenameStored { account } => rename_stored_contacts(store, account).await,
        ContactCommand::RecountReach { account, tag } => recount_reach(store, account, tag).await,
    }
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

/// The tag's reach counter set to the active customers holding it, counted again
/// (`contacts::counts::recount_reach`).
pub async fn recount_reach(store: &Store, account: AccountId, tag: TagId) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    let (was, counted) = billing_api::contacts::counts::recount_reach(store, account, tag).await?;
    Ok(json!({ "tag_id": tag, "reach_was": was, "reach": counted }))
}

/// The account's contacts moved to today's stored names (`contacts::service::rename_stored`).
pub async fn rename_stored_contacts(store: &Store, account: AccountId) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    let done = billing_api::contacts::service::rename_stored(store, account).await?;
    Ok(json!({ "renamed": done.renamed, "already": done.already, "left": done.left }))
}

/// The contact counters counted again (`contacts::counts::recount`): the counts that moved.
pub async fn recount_contacts(store: &Store, account: AccountId) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    let moved = billing_api::contacts::counts::recount(store, account).await?;
    let moved: Vec<Value> = moved
        .iter()
        .map(|(counter, moved)| json!({"counter": counter, "count": moved.count, "was": moved.was, "is": moved.is}))
        .collect();
    Ok(json!({ "moved": moved }))
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
