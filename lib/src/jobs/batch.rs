//! Running an SQS batch through its worker, as every worker's Lambda does: each message parsed as
//! its queue's type and tried again in the process a few times; failures reported one by one.

use std::fmt::Debug;

use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};

use super::{parse, Message};

/// Pauses before a message's handling is tried again in the process, and how long after its
/// start no new try begins (well inside the workers' timeouts, 10 s for the shortest): a throttle
/// or a conflict that outlasted the handler's own retries is mostly over a second later, while a
/// message given back waits out its queue's visibility timeout (a minute or more).
const IN_PROCESS_RETRIES: [std::time::Duration; 3] =
    [std::time::Duration::from_millis(250), std::time::Duration::from_secs(1), std::time::Duration::from_secs(2)];
const IN_PROCESS_WINDOW: std::time::Duration = std::time::Duration::from_secs(6);

/// Handles one message, trying again in the process when it fails (every handler is idempotent
/// per item: a try that failed half way changed nothing a later one does again), a few times
/// within [`IN_PROCESS_WINDOW`]; a panic fails it at once (`crate::panics`).
async fn handle_with_retries<M, T, F, Fut>(handle: &F, message: M, what: &str) -> anyhow::Result<T>
where
    M: Message + Clone,
    F: Fn(M) -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<T>>,
{
    let started = tokio::time::Instant::now();
    let mut pauses = IN_PROCESS_RETRIES.iter();
    loop {
        let result = match crate::panics::caught(handle(message.clone())).await {
            Ok(result) => result,
            Err(panicked) => return Err(panicked),
        };
        match (result, pauses.next()) {
            (Err(error), Some(pause)) if started.elapsed() + *pause < IN_PROCESS_WINDOW => {
                tracing::warn!(error = ?error, "{what} failed; trying again in the process");
                tokio::time::sleep(*pause).await;
            }
            (result, _) => return result,
        }
    }
}

/// Runs the messages of an SQS batch through `handle`, all at once (a batch is at most ten); the
/// ids of the messages that failed go back for redelivery (`ReportBatchItemFailures`). A body that
/// is not an `M` fails too, and ends in the DLQ after the queue's receive limit. A message whose
/// handling panics fails alone (`crate::panics`): the others of its batch are done as usual.
pub async fn handle_batch<M, T, F, Fut>(event: SqsEvent, what: &str, handle: F) -> SqsBatchResponse
where
    M: Message + Clone,
    T: Debug,
    F: Fn(M) -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<T>>,
{
    let handle = &handle;
    let running = event.records.into_iter().map(|message| async move {
        let id = message.message_id.clone().unwrap_or_default();
        let result = match parse::<M>(message.body.as_deref().unwrap_or_default()) {
            Ok(parsed) => handle_with_retries(handle, parsed, what).await,
            Err(error) => Err(error),
        };
        (id, result)
    });
    let mut response = SqsBatchResponse::default();
    for (id, result) in futures::future::join_all(running).await {
        match result {
            Ok(outcome) => tracing::info!(message_id = %id, ?outcome, "{what} handled"),
            Err(error) => {
                tracing::error!(message_id = %id, error = ?error, "{what} failed");
                response.add_failure(id);
            }
        }
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::{body, ReceivableSettlement};
    use crate::values::AccountId;

    fn batch_of(bodies: &[&str]) -> SqsEvent {
        let records = bodies.iter().enumerate().map(|(n, body)| {
            let mut message = aws_lambda_events::event::sqs::SqsMessage::default();
            message.message_id = Some(format!("m{n}"));
            message.body = Some((*body).to_owned());
            message
        });
        let mut event = SqsEvent::default();
        event.records = records.collect();
        event
    }

    #[tokio::test]
    async fn a_message_that_panics_fails_alone_in_its_batch() {
        let message = |id: i64| body(&ReceivableSettlement::new(AccountId::new(id), "r", 0)).unwrap();
        let event = batch_of(&[&message(1), &message(2), &message(3)]);
        let response = handle_batch(event, "test", |message: ReceivableSettlement| async move {
            if message.account_id == AccountId::new(2) {
                panic!("a bug on one message");
            }
            Ok(message.account_id)
        })
        .await;
        let failed: Vec<_> = response.batch_item_failures.iter().map(|f| f.item_identifier.as_str()).collect();
        assert_eq!(failed, ["m1"]);
    }
}
