//! The providers reminders go through: Amazon SES v2 (`SendEmail`, from the account's sender or
//! the service's, in the configuration set whose events come back through SNS) and AWS End User
//! Messaging Social (`SendWhatsAppMessage`); both paced to the service's sending rate.
//!
//! The SDK clients make one attempt per call (no SDK retries): the sender retries a transient
//! failure itself, with backoff, so that each call counts in the delivery's `attempts_count`.

use std::sync::Arc;
use std::time::Duration;

use aws_sdk_sesv2::types::{Body, Content, Destination, EmailContent, Message, MessageHeader, MessageTag};
use tokio::sync::Mutex;

use super::message::Email;

/// The name of the tag each e-mail carries (its delivery's reference), which SES gives back in
/// every event of the configuration set.
pub const REFERENCE_TAG: &str = "reminder";
/// The Graph API version WhatsApp messages are written for.
pub const META_API_VERSION: &str = "v20.0";
/// Reminders sent a second when `REMINDER_SEND_RATE` says nothing: SES's default production quota
/// (14 a second).
pub const DEFAULT_SEND_RATE: f64 = 14.0;

/// The service's sender, for accounts without their own (`REMINDER_EMAIL_SENDER`).
pub fn default_sender() -> String {
    let configured = std::env::var("REMINDER_EMAIL_SENDER").ok().map(|v| v.trim().to_owned());
    configured.filter(|v| !v.is_empty()).unwrap_or_else(|| LOCAL_SENDER.to_owned())
}

/// The sender of the local stack (verified in moto's SES by `infra/run` and `infra/test`).
pub const LOCAL_SENDER: &str = "lembretes@cobrancas.local";

/// The longest a provider call may take (connecting, sending, the answer): a sender's claim
/// (`send::LEASE`) outlives it.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// What a provider's refusal means.
#[derive(Clone, Debug, PartialEq)]
pub enum Failure {
    /// Throttled, a 5xx, a timeout, a dropped connection: the same call may pass later.
    Transient(String),
    /// Refused for good (a rejected message, an unverified sender, an invalid number).
    Permanent(String),
}

/// The clients and settings of the senders.
#[derive(Clone)]
pub struct Providers {
    ses: aws_sdk_sesv2::Client,
    whatsapp: aws_sdk_socialmessaging::Client,
    /// The service's sender (`REMINDER_EMAIL_SENDER`), for accounts without their own.
    pub default_sender: String,
    /// The SES configuration set (`REMINDER_CONFIGURATION_SET`) whose event destination is the
    /// reminder events' SNS topic.
    pub configuration_set: Option<String>,
    pace: Arc<Pace>,
}

impl std::fmt::Debug for Providers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Providers").field("default_sender", &self.default_sender).finish_non_exhaustive()
    }
}

impl Providers {
    /// From the SDK configuration and the environment: `REMINDER_EMAIL_SENDER`,
    /// `REMINDER_CONFIGURATION_SET`, and the pace (`REMINDER_SEND_RATE` a second for the service,
    /// shared by `REMINDER_SENDERS` concurrent senders: the worker's reserved concurrency).
    pub fn from_env(config: &aws_config::SdkConfig) -> Providers {
        let var = |name: &str| std::env::var(name).ok().map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
        let rate = var("REMINDER_SEND_RATE").and_then(|r| r.parse::<f64>().ok()).unwrap_or(DEFAULT_SEND_RATE);
        let senders = var("REMINDER_SENDERS").and_then(|r| r.parse::<f64>().ok()).unwrap_or(1.0).max(1.0);
        Providers::new(config, default_sender(), var("REMINDER_CONFIGURATION_SET"), rate / senders)
    }

    /// The clients from `config`, sending at most `rate` reminders a second from this process.
    pub fn new(
        config: &aws_config::SdkConfig,
        default_sender: String,
        configuration_set: Option<String>,
        rate: f64,
    ) -> Providers {
        let once = aws_config::retry::RetryConfig::standard().with_max_attempts(1);
        let timeouts = aws_config::timeout::TimeoutConfig::builder()
            .connect_timeout(Duration::from_secs(3))
            .operation_timeout(CALL_TIMEOUT)
            .build();
        let ses = aws_sdk_sesv2::config::Builder::from(config)
            .retry_config(once.clone())
            .timeout_config(timeouts.clone())
            .build();
        let whatsapp =
            aws_sdk_socialmessaging::config::Builder::from(config).retry_config(once).timeout_config(timeouts).build();
        Providers {
            ses: aws_sdk_sesv2::Client::from_conf(ses),
            whatsapp: aws_sdk_socialmessaging::Client::from_conf(whatsapp),
            default_sender,
            configuration_set,
            pace: Arc::new(Pace::new(rate)),
        }
    }

    /// The same clients and senders, at most `rate` reminders a second from this process.
    pub fn paced(self, rate: f64) -> Providers {
        Providers { pace: Arc::new(Pace::new(rate)), ..self }
    }

    /// Sends `email` to `to` from `from`, tagged with its delivery's `reference`, with the
    /// one-click unsubscribe headers (RFC 8058); SES's message id.
    pub async fn send_email(
        &self,
        from: &str,
        to: &str,
        email: &Email,
        reference: &str,
        unsubscribe_url: &str,
    ) -> Result<String, Failure> {
        self.pace.wait().await;
        let content = |text: &str| Content::builder().data(text).charset("UTF-8").build();
        let header = |name: &str, value: &str| MessageHeader::builder().name(name).value(value).build();
        let built = (|| -> Result<_, aws_sdk_sesv2::error::BuildError> {
            let message = Message::builder()
                .subject(content(&email.subject)?)
                .body(Body::builder().text(content(&email.text)?).html(content(&email.html)?).build())
                .headers(header("List-Unsubscribe", &format!("<{unsubscribe_url}>"))?)
                .headers(header("List-Unsubscribe-Post", "List-Unsubscribe=One-Click")?)
                .build();
            Ok((message, MessageTag::builder().name(REFERENCE_TAG).value(reference).build()?))
        })();
        let (message, tag) = built.map_err(|e| Failure::Permanent(format!("a message SES cannot take: {e}")))?;
        let sent = self
            .ses
            .send_email()
            .from_email_address(from)
            .destination(Destination::builder().to_addresses(to).build())
            .content(EmailContent::builder().simple(message).build())
            .email_tags(tag)
            .set_configuration_set_name(self.configuration_set.clone())
            .send()
            .await;
        match sent {
            Ok(output) => Ok(output.message_id().unwrap_or_default().to_owned()),
            Err(error) => Err(ses_failure(error)),
        }
    }

    /// Sends a WhatsApp Cloud API `message` from the account's number; its message id.
    pub async fn send_whatsapp(&self, phone_number_id: &str, message: &serde_json::Value) -> Result<String, Failure> {
        self.pace.wait().await;
        let sent = self
            .whatsapp
            .send_whats_app_message()
            .origination_phone_number_id(phone_number_id)
            .message(aws_sdk_socialmessaging::primitives::Blob::new(message.to_string().into_bytes()))
            .meta_api_version(META_API_VERSION)
            .send()
            .await;
        match sent {
            Ok(output) => Ok(output.message_id().unwrap_or_default().to_owned()),
            Err(error) => Err(whatsapp_failure(error)),
        }
    }
}

type SdkError<E> = aws_smithy_runtime_api::client::result::SdkError<E, aws_smithy_runtime_api::http::Response>;

/// Whether an SDK error can pass on a later try: no answer, a throttle, or a 5xx.
fn transient_call<E>(error: &SdkError<E>, throttled: bool) -> bool {
    let status = error.raw_response().map(|r| r.status().as_u16()).unwrap_or_default();
    throttled || error.as_service_error().is_none() || status == 429 || status >= 500
}

fn described<E: aws_sdk_sesv2::error::ProvideErrorMetadata>(error: &SdkError<E>) -> String {
    use aws_sdk_sesv2::error::ProvideErrorMetadata as _;
    let code = error.code().unwrap_or("no answer");
    let status = error.raw_response().map(|r| r.status().as_u16());
    match (error.message(), status) {
        (Some(message), Some(status)) => format!("{code} ({status}): {message}"),
        (Some(message), None) => format!("{code}: {message}"),
        (None, Some(status)) => format!("{code} ({status})"),
        (None, None) => format!("{code}: {error}"),
    }
}

fn ses_failure(error: SdkError<aws_sdk_sesv2::operation::send_email::SendEmailError>) -> Failure {
    let throttled =
        error.as_service_error().is_some_and(|e| e.is_too_many_requests_exception() || e.is_limit_exceeded_exception());
    let text = format!("SES: {}", described(&error));
    match transient_call(&error, throttled) {
        true => Failure::Transient(text),
        false => Failure::Permanent(text),
    }
}

fn whatsapp_failure(
    error: SdkError<aws_sdk_socialmessaging::operation::send_whats_app_message::SendWhatsAppMessageError>,
) -> Failure {
    let throttled = error.as_service_error().is_some_and(|e| {
        e.is_throttled_request_exception() || e.is_internal_service_exception() || e.is_dependency_exception()
    });
    let text = format!("WhatsApp: {}", described(&error));
    match transient_call(&error, throttled) {
        true => Failure::Transient(text),
        false => Failure::Permanent(text),
    }
}

/// A process's pace: at most `rate` calls a second, evenly spaced; callers wait their turn.
#[derive(Debug)]
pub struct Pace {
    every: Duration,
    next: Mutex<tokio::time::Instant>,
}

impl Pace {
    pub fn new(rate: f64) -> Pace {
        let rate = if rate.is_finite() && rate > 0.0 { rate } else { DEFAULT_SEND_RATE };
        Pace { every: Duration::from_secs_f64(1.0 / rate), next: Mutex::new(tokio::time::Instant::now()) }
    }

    /// Waits until this process may make its next call.
    pub async fn wait(&self) {
        let at = {
            let mut next = self.next.lock().await;
            let now = tokio::time::Instant::now();
            let at = (*next).max(now);
            *next = at + self.every;
            at
        };
        tokio::time::sleep_until(at).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn the_pace_spaces_calls_evenly() {
        let pace = Pace::new(10.0);
        let start = tokio::time::Instant::now();
        for _ in 0..21 {
            pace.wait().await;
        }
        assert_eq!(start.elapsed(), Duration::from_secs(2));
    }
}
