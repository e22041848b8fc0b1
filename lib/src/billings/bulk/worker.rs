//! The bulk-expansion worker: each message runs the chunk its expansion's cursor names, following
//! the chunk's plan, then moves the cursor on with the next chunk's task (or ends the expansion).
//! A message naming a carnê's booklet runs the booklet instead (`service::run_booklet`).

use anyhow::Context as _;
use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use serde_json::Value;

use super::expansion::{chunk_message, expansion_key, tag_refs, Expansion};
use super::plan::{links_after, plan_chunk, plan_key, Plan};
use super::write::write_billings;
use crate::billings::input::Draft;
use crate::billings::model::Billing;
use crate::billings::service::{check_references, run_booklet};
use crate::contention::move_cursor;
use crate::http::Fields;
use crate::jobs::{tasks, BulkExpansion};
use crate::store::stored;
use crate::store::{keys, Condition, Store, Update, Write};
use crate::values::{AccountId, ContactId, IssueType};

/// Handles one SQS batch of the bulk-expansion queue; failed messages go back for redelivery.
pub async fn handle_batch(store: &Store, event: SqsEvent) -> SqsBatchResponse {
    crate::jobs::handle_batch(event, "bulk expansion", move |message: BulkExpansion| async move {
        expand(store, &message).await
    })
    .await
}

/// What one expansion message came to.
#[derive(Clone, Debug, PartialEq)]
pub struct Expanded {
    /// Billings created by this message (those made by an earlier delivery are not counted).
    pub created: Vec<Billing>,
    /// The contact after which the next chunk starts, when there is one.
    pub next_after: Option<ContactId>,
    /// Why nothing was done, when nothing was.
    pub skipped: Option<&'static str>,
}

impl Expanded {
    fn skipped(reason: &'static str) -> Self {
        Expanded { created: Vec::new(), next_after: None, skipped: Some(reason) }
    }
}

/// Runs one expansion message: the chunk its expansion's cursor names, if the message names it.
pub async fn expand(store: &Store, message: &BulkExpansion) -> anyhow::Result<Expanded> {
    let account = message.account_id;
    if let Some(booklet) = message.booklet_id {
        let run = run_booklet(store, account, booklet).await.map_err(|e| anyhow::anyhow!("booklet {booklet}: {e}"))?;
        tracing::info!(booklet = booklet.get(), ?run, "booklet run");
        return Ok(Expanded::skipped("a booklet's run, not a bulk expansion"));
    }
    let found = stored::find::<Expansion>(store, expansion_key(account, &message.expansion_id)).await?;
    let Some(expansion) = found else {
        return Ok(Expanded::skipped("the expansion is over (or unknown)"));
    };
    let after = message.after_contact_id.map_or(0, |c| c.get());
    if expansion.cursor != after {
        return Ok(Expanded::skipped("the expansion's cursor is elsewhere: this chunk was run, or is not due"));
    }
    let body: Value = match (&expansion.body, &message.billing) {
        (Some(text), _) => serde_json::from_str(text).context("the expansion's body")?,
        (None, Some(body)) => body.clone(),
        (None, None) => anyhow::bail!("the expansion keeps no body and the message carries none"),
    };
    let parsed = body.as_object().map(|map| Draft::parse(Fields::new(map)));
    let draft = match parsed {
        Some(Ok(draft)) if draft.issue_type == IssueType::Bulk => draft,
        // Accepted once, so only a hand-made expansion gets here: nothing to expand.
        other => anyhow::bail!("the expansion's billing is not a valid bulk billing: {other:?}"),
    };
    let tag = draft.tag_id.ok_or_else(|| anyhow::anyhow!("a bulk draft always has a tag"))?;
    let plan_at = (account, message.expansion_id.as_str(), after);
    // One round trip: the references (a bank rule or category deleted since fails the message,
    // which ends in the DLQ), an earlier delivery's plan, the chunk's links.
    let (_, planned, links) = tokio::try_join!(
        async { check_references(store, account, &draft).await.map_err(|e| anyhow::anyhow!("references: {e:?}")) },
        async { Ok(stored::find::<Plan>(store, plan_key(account, &message.expansion_id, after)).await?) },
        async { Ok(links_after(store, account, tag, after).await?) },
    )?;
    let plan = match planned {
        Some(plan) => plan,
        None => plan_chunk(store, plan_at, &draft, links).await?,
    };
    let created = write_billings(store, account, &plan, &draft).await?;
    advance(store, account, &expansion, after, plan.next_after).await?;
    Ok(Expanded { created, next_after: plan.next_after, skipped: None })
}

/// Moves the cursor past this chunk with the next chunk's task, or ends the expansion and its hold
/// on the tags, provided the cursor still names the chunk (a copy running at the same time may
/// have moved it: then it sent the next chunk, and this one sends nothing).
async fn advance(
    store: &Store,
    account: AccountId,
    expansion: &Expansion,
    after: i64,
    next: Option<ContactId>,
) -> anyhow::Result<()> {
    let (pk, sk) = (keys::account(account), keys::billing::bulk_expansion(&expansion.expansion_id));
    let here = Condition::equals("cursor", &after);
    let writes = match next {
        Some(next) => {
            let moved = Update::new().set("cursor", &next.get());
            let message = chunk_message(account, &expansion.expansion_id, next.get());
            vec![Write::update(pk, sk, moved, Some(here)), tasks::one(account, message)?]
        }
        None => {
            let mut writes = vec![Write::delete_if(pk, sk, here)];
            writes.extend(tag_refs(account, &expansion.expansion_id, &expansion.tag_ids, -1));
            writes
        }
    };
    move_cursor(store, writes).await.map_err(|e| anyhow::anyhow!("moving the expansion's cursor: {e}"))?;
    Ok(())
}
