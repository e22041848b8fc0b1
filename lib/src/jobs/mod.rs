//! Queue messages and their producer. Every new billing, and every re-issue, asks for its bank
//! billet to be registered through the billet-registration queue (DESIGN §6); the worker is
//! `billets::registrar`.
//!
//! Message (JSON body of one SQS message):
//! `{"kind": "billet_registration", "account_id": 7, "billing_id": 42, "generation": 1, "requested_at": "<ISO 8601>"}`
//! `generation` is the billing's registration request it answers (1 on create, one more on each
//! re-issue; 1 when absent). It is idempotent by (account_id, billing_id, generation): the worker
//! issues a billet only while the billing has none for that generation, so a message delivered
//! twice produces one billet, and a message overtaken by a re-issue produces none.
//!
//! A bulk billing (§2.1) goes through the bulk-expansion queue, worker `billings::bulk`:
//! `{"kind": "bulk_expansion", "account_id": 7, "expansion_id": "<uuid>", "billing": {<the create
//! body's billing object>}, "after_contact_id": null, "requested_at": "<ISO 8601>"}`. One message
//! expands up to a chunk of contacts (ascending id, those above `after_contact_id`) and sends the
//! next chunk's message; it is idempotent by (expansion_id, contact id).

use anyhow::Context as _;
use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use serde::{Deserialize, Serialize};

use crate::accounts::AccountId;
use crate::time::Timestamp;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Job {
    BilletRegistration {
        account_id: AccountId,
        billing_id: i64,
        #[serde(default = "first_generation")]
        generation: i64,
        #[serde(default)]
        requested_at: String,
    },
    BulkExpansion {
        account_id: AccountId,
        expansion_id: String,
        /// The `billing` object of the create body, parsed again by the worker.
        billing: serde_json::Value,
        /// The chunk starts after this contact id (none: from the first contact).
        #[serde(default)]
        after_contact_id: Option<i64>,
        #[serde(default)]
        requested_at: String,
    },
}

fn first_generation() -> i64 {
    1
}

impl Job {
    pub fn billet_registration(account_id: AccountId, billing_id: i64, generation: i64) -> Self {
        Job::BilletRegistration { account_id, billing_id, generation, requested_at: Timestamp::now().to_string() }
    }
}

/// The SQS client and queue URLs (`BILLET_REGISTRATION_QUEUE_URL`, `BULK_EXPANSION_QUEUE_URL`).
#[derive(Clone, Debug)]
pub struct Queues {
    sqs: aws_sdk_sqs::Client,
    billet_registration: String,
    bulk_expansion: Option<String>,
}

impl Queues {
    pub fn new(sqs: aws_sdk_sqs::Client, billet_registration: String) -> Self {
        Queues { sqs, billet_registration, bulk_expansion: None }
    }

    pub fn with_bulk_expansion(self, url: String) -> Self {
        Queues { bulk_expansion: Some(url), ..self }
    }

    pub fn from_env(config: &aws_config::SdkConfig) -> Option<Self> {
        let var = |name: &str| std::env::var(name).ok().filter(|u| !u.is_empty());
        let queues = Queues::new(aws_sdk_sqs::Client::new(config), var("BILLET_REGISTRATION_QUEUE_URL")?);
        Some(match var("BULK_EXPANSION_QUEUE_URL") {
            Some(url) => queues.with_bulk_expansion(url),
            None => queues,
        })
    }

    pub fn url(&self) -> &str {
        &self.billet_registration
    }

    /// Whether bulk billings can be accepted (their queue is configured).
    pub fn expands_bulk(&self) -> bool {
        self.bulk_expansion.is_some()
    }

    pub async fn send(&self, job: &Job) -> anyhow::Result<()> {
        let url = match job {
            Job::BilletRegistration { .. } => &self.billet_registration,
            Job::BulkExpansion { .. } => self.bulk_expansion.as_ref().context("no bulk-expansion queue")?,
        };
        self.sqs
            .send_message()
            .queue_url(url)
            .message_body(serde_json::to_string(job)?)
            .send()
            .await
            .context("SendMessage")?;
        Ok(())
    }
}

/// Runs each message of an SQS batch through `handle`; the ids of the messages that failed go
/// back for redelivery (`ReportBatchItemFailures`). A body that is not a job fails too, and ends in
/// the DLQ after the queue's receive limit.
pub async fn handle_batch<T, F, Fut>(event: SqsEvent, what: &str, handle: F) -> SqsBatchResponse
where
    T: std::fmt::Debug,
    F: Fn(Job) -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<T>>,
{
    let mut response = SqsBatchResponse::default();
    for message in event.records {
        let id = message.message_id.clone().unwrap_or_default();
        let result = match serde_json::from_str::<Job>(message.body.as_deref().unwrap_or_default()) {
            Ok(job) => handle(job).await,
            Err(error) => Err(anyhow::Error::new(error).context("message body is not a job")),
        };
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

    #[test]
    fn the_message_format() {
        let job = Job::BilletRegistration { account_id: 7, billing_id: 42, generation: 2, requested_at: "t".into() };
        assert_eq!(
            serde_json::to_value(&job).unwrap(),
            serde_json::json!({"kind": "billet_registration", "account_id": 7, "billing_id": 42, "generation": 2, "requested_at": "t"})
        );
        let old: Job =
            serde_json::from_str(r#"{"kind":"billet_registration","account_id":7,"billing_id":42,"requested_at":"t"}"#)
                .unwrap();
        assert!(matches!(old, Job::BilletRegistration { generation: 1, .. }));
    }
}
