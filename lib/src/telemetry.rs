//! Logging set-up. Log lines are English and carry the request id and account id (see
//! `http::routing`), never a token, secret or full document number.

use tracing::Level;

/// JSON lines on Lambda (CloudWatch), readable lines locally. The level comes from `RUST_LOG`
/// (`error`, `warn`, `info`, `debug`, `trace`; default `info`).
pub fn init() {
    let level = std::env::var("RUST_LOG").ok().and_then(|l| l.parse::<Level>().ok()).unwrap_or(Level::INFO);
    let builder = tracing_subscriber::fmt().with_max_level(level).with_target(false);
    let result = if std::env::var_os("AWS_LAMBDA_FUNCTION_NAME").is_some() {
        builder.json().without_time().try_init()
    } else {
        builder.with_writer(std::io::stderr).try_init()
    };
    // A second initialisation (tests) keeps the first subscriber.
    let _ = result;
}
