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

use anyhow::Context as _;
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
}

fn first_generation() -> i64 {
    1
}

impl Job {
    pub fn billet_registration(account_id: AccountId, billing_id: i64, generation: i64) -> Self {
        Job::BilletRegistration { account_id, billing_id, generation, requested_at: Timestamp::now().to_string() }
    }
}

/// The SQS client and queue URLs (`BILLET_REGISTRATION_QUEUE_URL`).
#[derive(Clone, Debug)]
pub struct Queues {
    sqs: aws_sdk_sqs::Client,
    billet_registration: String,
}

impl Queues {
    pub fn new(sqs: aws_sdk_sqs::Client, billet_registration: String) -> Self {
        Queues { sqs, billet_registration }
    }

    pub fn from_env(config: &aws_config::SdkConfig) -> Option<Self> {
        let url = std::env::var("BILLET_REGISTRATION_QUEUE_URL").ok().filter(|u| !u.is_empty())?;
        Some(Queues::new(aws_sdk_sqs::Client::new(config), url))
    }

    pub fn url(&self) -> &str {
        &self.billet_registration
    }

    pub async fn send(&self, job: &Job) -> anyhow::Result<()> {
        let url = match job {
            Job::BilletRegistration { .. } => &self.billet_registration,
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
