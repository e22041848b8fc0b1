//! The card releases worker (and, for a message with `off_session`, the charge of a cycle to its
//! schedule's card on file: `on_file`): cancels at the gateway the open intent of a billing that stopped being
//! payable by card (`payments::withdrawals` asks for it in the settling transaction), then applies
//! the intent as the gateway answers (the billing's card `canceled`).
//!
//! An intent that meanwhile succeeded is not cancelled: applying it keeps its payment to refund.
//! One the gateway no longer knows, or an account whose gateway is gone, leaves nothing to do. A
//! gateway that cannot be reached fails the message, which SQS delivers again (five times, then
//! its DLQ; Stripe itself cancels an unconfirmed authorization after seven days).

use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};

use super::sync::{apply, Beside};
use super::{Cards, Gateway, GatewayError};
use crate::billings::card::Stage;
use crate::jobs::CardRelease;
use crate::payments::channel::{ChannelRoom, Withdrawal};
use crate::store::Store;

/// Releases each message's intent (see the module's documentation; [`super::Cards`]'s `remove`).
pub async fn handle_batch(store: &Store, event: SqsEvent) -> SqsBatchResponse {
    crate::jobs::handle_batch(event, "card release", |message: CardRelease| async move {
        if message.off_session {
            let collected = super::on_file::collect(store, message.account_id, message.billing_id).await?;
            tracing::info!(billing = message.billing_id.get(), ?collected, "card on file");
            return Ok(());
        }
        let withdrawal = Withdrawal::CardIntents(message.intent_id);
        <Cards as ChannelRoom>::remove(store, message.account_id, message.billing_id, withdrawal).await
    })
    .await
}

/// Cancels the message's intents still open (the billing's card's, and every one its checkout
/// made), and applies each as the gateway then has it.
pub async fn release(store: &Store, gateway: &impl Gateway, message: &CardRelease) -> anyhow::Result<()> {
    let mut intents: Vec<String> = message.intent_id.iter().cloned().collect();
    let made = super::checkout::made(store, message.account_id, message.billing_id).await?;
    intents.extend(made.into_iter().map(|kept| kept.intent_id).filter(|id| Some(id) != message.intent_id.as_ref()));
    for id in intents {
        Box::pin(release_one(store, gateway, message, &id)).await?;
    }
    Ok(())
}

/// Cancels intent `id` of the message's billing when it is still open, and applies it as the
/// gateway then has it.
async fn release_one(store: &Store, gateway: &impl Gateway, message: &CardRelease, id: &str) -> anyhow::Result<()> {
    let Some(intent) = gateway.intent(id).await.map_err(anyhow::Error::new)? else {
        return Ok(());
    };
    if intent.billing != Some(message.billing_id) {
        return Ok(());
    }
    let intent = match intent.stage {
        Stage::Open | Stage::Pending | Stage::Authorized => match gateway.release(&intent.id).await {
            // Read again: the gateway's own word on what the cancel left.
            Ok(()) => gateway.intent(&intent.id).await.map_err(anyhow::Error::new)?.unwrap_or(intent),
            // Confirmed or paid meanwhile (the gateway refuses to cancel): applied as it is.
            Err(GatewayError::Refused { status, detail }) => {
                tracing::warn!(intent = intent.id, status, detail, "the gateway kept an intent of a closed billing");
                gateway.intent(&intent.id).await.map_err(anyhow::Error::new)?.unwrap_or(intent)
            }
            Err(error) => return Err(anyhow::Error::new(error)),
        },
        Stage::Succeeded | Stage::Canceled => intent,
    };
    Box::pin(apply(store, message.account_id, &intent, &Beside::default())).await.map_err(anyhow::Error::new)?;
    Ok(())
}
