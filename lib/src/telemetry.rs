//! Logging set-up. Log lines are English and carry the request id and account id (see
//! `http::routing`), never a token, secret or full document number.
//!
//! On Lambda the template sets the function's logging config (JSON format, application log level
//! from its `LogLevel` parameter); Lambda passes both on as `AWS_LAMBDA_LOG_FORMAT` and
//! `AWS_LAMBDA_LOG_LEVEL`, and in JSON it drops lines below that level by their `level` key. The
//! subscriber follows the same settings, so lines below the level are not even formatted.

use tracing::Level;

/// How log lines are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// One JSON object a line, with an RFC 3339 `timestamp` and a `level` (what Lambda's
    /// log-level filter reads).
    Json,
    /// Plain lines without colours or time (CloudWatch stamps each line): Lambda's `Text` format.
    Text,
    /// Readable, coloured lines on stderr, with time: a terminal, locally.
    Local,
}

/// The level and format, from environment variables (`var` reads one, so tests need not touch
/// the process's environment):
/// - level: `RUST_LOG` when it is a level (`error`, `warn`, `info`, `debug`, `trace`; any case),
///   so a developer's setting wins; else `AWS_LAMBDA_LOG_LEVEL` (Lambda's `FATAL` is `error`);
///   else `info`;
/// - format: `AWS_LAMBDA_LOG_FORMAT` (`JSON` or `Text`) when set; else JSON on Lambda
///   (`AWS_LAMBDA_FUNCTION_NAME` set), readable lines elsewhere.
pub fn settings(var: impl Fn(&str) -> Option<String>) -> (Level, Format) {
    let level = var("RUST_LOG")
        .and_then(|value| value.parse::<Level>().ok())
        .or_else(|| var("AWS_LAMBDA_LOG_LEVEL").and_then(|value| lambda_level(&value)))
        .unwrap_or(Level::INFO);
    let format = match var("AWS_LAMBDA_LOG_FORMAT") {
        Some(format) if format.eq_ignore_ascii_case("json") => Format::Json,
        Some(format) if format.eq_ignore_ascii_case("text") => Format::Text,
        _ if var("AWS_LAMBDA_FUNCTION_NAME").is_some() => Format::Json,
        _ => Format::Local,
    };
    (level, format)
}

/// A Lambda application log level (`TRACE`, `DEBUG`, `INFO`, `WARN`, `ERROR`, `FATAL`).
fn lambda_level(value: &str) -> Option<Level> {
    if value.eq_ignore_ascii_case("fatal") {
        return Some(Level::ERROR);
    }
    value.parse().ok()
}

/// Installs the subscriber the environment asks for ([`settings`]).
pub fn init() {
    let (level, format) = settings(|name| std::env::var(name).ok().filter(|value| !value.is_empty()));
    let builder = tracing_subscriber::fmt().with_max_level(level).with_target(false);
    let result = match format {
        Format::Json => builder.json().try_init(),
        Format::Text => builder.with_ansi(false).without_time().try_init(),
        Format::Local => builder.with_writer(std::io::stderr).try_init(),
    };
    // A second initialisation (tests) keeps the first subscriber.
    let _ = result;
}

/// One metric as a CloudWatch Embedded Metric Format line (printed to stdout, CloudWatch Logs
/// turns it into the metric `namespace/name`), with the function's name as its one dimension
/// (`FunctionName`: stacks in one AWS account and region keep theirs apart).
pub fn metric(namespace: &str, name: &str, value: i64) -> String {
    let function = std::env::var("AWS_LAMBDA_FUNCTION_NAME").unwrap_or_else(|_| "local".into());
    let mut line = serde_json::json!({
        "_aws": {
            "Timestamp": chrono::Utc::now().timestamp_millis(),
            "CloudWatchMetrics": [{
                "Namespace": namespace,
                "Dimensions": [["FunctionName"]],
                "Metrics": [{ "Name": name, "Unit": "None" }],
            }],
        },
        "FunctionName": function,
    });
    line[name] = serde_json::Value::from(value);
    line.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(vars: &[(&str, &str)]) -> (Level, Format) {
        settings(|name| vars.iter().find(|(n, _)| *n == name).map(|(_, v)| (*v).to_owned()))
    }

    #[test]
    fn lambda_settings_are_followed_unless_rust_log_says_otherwise() {
        assert_eq!(with(&[]), (Level::INFO, Format::Local));
        assert_eq!(with(&[("AWS_LAMBDA_FUNCTION_NAME", "f")]), (Level::INFO, Format::Json));
        let lambda =
            [("AWS_LAMBDA_FUNCTION_NAME", "f"), ("AWS_LAMBDA_LOG_LEVEL", "DEBUG"), ("AWS_LAMBDA_LOG_FORMAT", "JSON")];
        assert_eq!(with(&lambda), (Level::DEBUG, Format::Json));
        assert_eq!(
            with(&[("AWS_LAMBDA_LOG_LEVEL", "FATAL"), ("AWS_LAMBDA_LOG_FORMAT", "Text")]),
            (Level::ERROR, Format::Text)
        );
        assert_eq!(with(&[("AWS_LAMBDA_LOG_LEVEL", "WARN"), ("RUST_LOG", "trace")]), (Level::TRACE, Format::Local));
        // A RUST_LOG that is not a level (a filter directive) does not hide Lambda's level.
        assert_eq!(with(&[("AWS_LAMBDA_LOG_LEVEL", "WARN"), ("RUST_LOG", "billing_api=debug")]).0, Level::WARN);
    }

    #[test]
    fn a_metric_line_is_embedded_metric_format() {
        let line: serde_json::Value = serde_json::from_str(&metric("Ns/Sub", "OldestPendingMinutes", 42)).unwrap();
        assert_eq!(line["OldestPendingMinutes"], 42);
        assert_eq!(line["_aws"]["CloudWatchMetrics"][0]["Namespace"], "Ns/Sub");
        assert_eq!(line["_aws"]["CloudWatchMetrics"][0]["Dimensions"], serde_json::json!([["FunctionName"]]));
        assert!(line["FunctionName"].is_string() && line["_aws"]["Timestamp"].is_i64());
    }
}
