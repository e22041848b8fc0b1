//! Where the ops CLI works: the local stack or AWS, and with `--stack NAME` the names it needs (the
//! table, the API and its stage, the webhook key and deliveries queue), read from the outputs of
//! that CloudFormation stack instead of being copied into variables by hand.
//!
//! The rule: a run targets AWS when `--stack` is given, or when no local endpoint is configured
//! (neither `AWS_ENDPOINT_URL` nor `AWS_ENDPOINT_URL_DYNAMODB`, which `infra/run` and the tests set
//! for the moto server). Commands that only make sense on the local stack refuse to run against
//! AWS ([`LocalOnly`]).

use anyhow::Context as _;
use aws_sdk_cloudformation::types::Output;
use serde::Serialize;

/// What a run works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    Local,
    Aws,
}

impl Target {
    /// The target of a run ([the module's rule](self)); `var` reads an environment variable.
    pub fn of(stack_given: bool, var: impl Fn(&str) -> Option<String>) -> Target {
        let endpoint = ["AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB"]
            .iter()
            .any(|name| var(name).is_some_and(|value| !value.trim().is_empty()));
        match stack_given || !endpoint {
            true => Target::Aws,
            false => Target::Local,
        }
    }
}

/// A command refused against AWS: it only makes sense on the local stack. The CLI exits with
/// [`LocalOnly::EXIT_CODE`].
#[derive(Debug, thiserror::Error)]
#[error(
    "`{command}` {why}; it runs only against the local stack, and this run targets AWS ({reason}). \
     Start the local stack (infra/run) and run it without --stack."
)]
pub struct LocalOnly {
    pub command: &'static str,
    pub why: &'static str,
    pub reason: &'static str,
}

impl LocalOnly {
    /// Not 1 (a failed operation): nothing was attempted.
    pub const EXIT_CODE: i32 = 2;

    pub fn new(command: &'static str, why: &'static str, stack_given: bool) -> Self {
        let reason = match stack_given {
            true => "--stack was given",
            false => "no AWS_ENDPOINT_URL is set",
        };
        LocalOnly { command, why, reason }
    }
}

/// The outputs of the stack that the ops CLI reads (template.yaml's `Outputs`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StackOutputs {
    pub table_name: String,
    pub rest_api_id: String,
    pub stage_name: String,
    /// Webhook commands only.
    pub webhook_key_secret_arn: Option<String>,
}

impl StackOutputs {
    /// Reads the outputs by key; the table, API id and stage are required (a stack of another
    /// template lacks them, and the CLI must not guess).
    pub fn from_outputs(stack: &str, outputs: &[Output]) -> anyhow::Result<Self> {
        let value = |key: &str| {
            outputs
                .iter()
                .find(|output| output.output_key() == Some(key))
                .and_then(|output| output.output_value())
                .filter(|value| !value.is_empty())
                .map(str::to_owned)
        };
        let required = |key: &str| value(key).with_context(|| format!("stack {stack} has no output {key}"));
        Ok(StackOutputs {
            table_name: required("TableName")?,
            rest_api_id: required("RestApiId")?,
            stage_name: required("StageName")?,
            webhook_key_secret_arn: value("WebhookKeySecretArn"),
        })
    }

    /// `DescribeStacks` of one stack, by name or id.
    pub async fn describe(config: &aws_config::SdkConfig, stack: &str) -> anyhow::Result<Self> {
        let client = aws_sdk_cloudformation::Client::new(config);
        let described = client
            .describe_stacks()
            .stack_name(stack)
            .send()
            .await
            .with_context(|| format!("DescribeStacks of stack {stack} (does it exist in this region?)"))?;
        let found = described.stacks().first().with_context(|| format!("no stack {stack}"))?;
        StackOutputs::from_outputs(stack, found.outputs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn output(key: &str, value: &str) -> Output {
        Output::builder().output_key(key).output_value(value).build()
    }

    #[test]
    fn the_target_is_aws_with_a_stack_or_without_a_local_endpoint() {
        let local = |name: &str| (name == "AWS_ENDPOINT_URL").then(|| "http://127.0.0.1:4566".to_owned());
        assert_eq!(Target::of(false, local), Target::Local);
        assert_eq!(Target::of(true, local), Target::Aws);
        assert_eq!(Target::of(false, |_| None), Target::Aws);
        assert_eq!(Target::of(false, |_| Some(" ".to_owned())), Target::Aws);
        let dynamodb_only = |name: &str| (name == "AWS_ENDPOINT_URL_DYNAMODB").then(|| "http://x".to_owned());
        assert_eq!(Target::of(false, dynamodb_only), Target::Local);
    }

    #[test]
    fn outputs_are_read_by_key_and_the_table_api_and_stage_are_required() {
        let outputs = [
            output("ApiBaseUrl", "https://x"),
            output("TableName", "prod-BillingTable-1"),
            output("RestApiId", "abc123"),
            output("StageName", "live"),
            output("WebhookKeySecretArn", "arn:aws:secretsmanager:us-east-1:1:secret:k"),
        ];
        let read = StackOutputs::from_outputs("prod", &outputs).unwrap();
        assert_eq!(read.table_name, "prod-BillingTable-1");
        assert_eq!((read.rest_api_id.as_str(), read.stage_name.as_str()), ("abc123", "live"));
        assert_eq!(read.webhook_key_secret_arn.as_deref(), Some("arn:aws:secretsmanager:us-east-1:1:secret:k"));
        let missing = StackOutputs::from_outputs("other", &outputs[..2]).unwrap_err();
        assert_eq!(missing.to_string(), "stack other has no output RestApiId");
    }

    #[test]
    fn the_refusal_says_what_and_why() {
        let refusal = LocalOnly::new("billing pay", "simulates the bank's payment", true);
        let text = refusal.to_string();
        assert!(text.starts_with("`billing pay` simulates the bank's payment; it runs only against the local stack"));
        assert!(text.contains("(--stack was given)"), "{text}");
    }
}
