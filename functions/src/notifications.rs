//! The functions other services notify: S3 of an uploaded return file, SNS of the providers'
//! events about reminders.

use billing_api::store::Store;
use lambda_runtime::{service_fn, LambdaEvent};

/// Runs the return-file trigger (S3 `ObjectCreated` under `returns/`).
pub async fn run_return_files() -> Result<(), lambda_runtime::Error> {
    crate::init();
    let config = billing_api::config::aws().await;
    let (store, files) = (Store::from_config(&config), billing_api::files::Files::from_config(&config));
    let (store, files) = (&store, &files);
    lambda_runtime::run(service_fn(move |event: LambdaEvent<aws_lambda_events::s3::S3Event>| async move {
        let received = billing_api::payments::boleto::returns::on_uploads(store, files, event.payload).await?;
        Ok::<_, lambda_runtime::Error>(serde_json::to_value(&received)?)
    }))
    .await
}

/// The providers' events about reminders (SNS: SES's configuration set, End User Messaging
/// Social's WhatsApp statuses): each moves its delivery's status. A notification that fails
/// (storage) fails the invocation, and SNS delivers it again.
pub async fn run_reminder_events() -> Result<(), lambda_runtime::Error> {
    crate::init();
    let store = Store::from_env().await;
    let store = &store;
    lambda_runtime::run(service_fn(move |event: LambdaEvent<aws_lambda_events::sns::SnsEvent>| async move {
        // Boxed: its future is deep enough to overflow the compiler's layout limit inline.
        Box::pin(reminder_events(store, event.payload)).await
    }))
    .await
}

/// One SNS invocation of the reminder events: what its notifications came to.
pub async fn reminder_events(
    store: &Store,
    event: aws_lambda_events::sns::SnsEvent,
) -> Result<serde_json::Value, lambda_runtime::Error> {
    let (mut recorded, mut ignored) = (0, 0);
    for record in event.records {
        let applied = Box::pin(billing_api::reminders::events::apply(store, &record.sns.message)).await?;
        recorded += applied.recorded;
        ignored += applied.ignored;
    }
    Ok(serde_json::json!({ "recorded": recorded, "ignored": ignored }))
}
