//! Where the ops CLI works: the local stack or AWS, and with `--stack NAME` the names it needs (the
//! table, the API and its stage, the webhook key and deliveries queue), read from the outputs of
//! that CloudFormation stack instead of being copied into variables by hand.
//!
//! The rule: a run targets AWS when `--stack` is given, or when no local endpoint is configured
//! (neither `AWS_ENDPOINT_URL` nor `AWS_ENDPOINT_URL_DYNAMODB`, which `infra/run` and the tests set
//! for the moto server). Commands that only make sense on the local stack refuse to run against
//! AWS ([`LocalOnly`]).
//!
//! Against AWS, a command that deletes, revokes, disables, locks, refunds or replaces a secret
//! runs only once confirmed ([`consent`]): `--yes`, or "y" typed on the terminal at the question
//! ([`ask`]); with neither (stdin not a terminal, as in a script) it is refused before anything is
//! read or written ([`NotConfirmed`], exit code 2). The local stack needs no confirmation.
//!
//! `--local` reads the local stack's settings from the file `infra/run` writes
//! (`.local/stack.env`, [`local_env_file`], [`parse_local_env`]), so an installed `ops` reaches the
//! same stack the `infra/ops` wrapper does.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

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

/// Whether a command may run ([the module's rule](self)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Consent {
    /// Nothing destructive, or the local stack.
    NotNeeded,
    /// `--yes` was given.
    Given,
    /// Ask on the terminal ([`ask`]) before anything changes.
    Ask,
}

/// What a destructive command needs before it runs: `action` says what it destroys (`None`: the
/// command is not destructive), `yes` whether `--yes` was given, `interactive` whether stdin is a
/// terminal to ask on. Decided before anything is read, so a refusal costs no AWS call.
pub fn consent(target: Target, action: Option<&str>, yes: bool, interactive: bool) -> Result<Consent, NotConfirmed> {
    match (target, action) {
        (Target::Local, _) | (_, None) => Ok(Consent::NotNeeded),
        _ if yes => Ok(Consent::Given),
        _ if interactive => Ok(Consent::Ask),
        (Target::Aws, Some(action)) => Err(NotConfirmed::not_interactive(action)),
    }
}

/// Asks `question` on `prompt` (stderr) and reads the answer from `input` (stdin): "y" or "yes", in
/// any case, is a yes; anything else, an empty line or the end of input, a no.
pub fn ask(question: &str, input: &mut impl BufRead, prompt: &mut impl Write) -> std::io::Result<bool> {
    write!(prompt, "{question} [y/N] ")?;
    prompt.flush()?;
    let mut answer = String::new();
    input.read_line(&mut answer)?;
    Ok(matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes"))
}

/// The answer to [`ask`] as a go-ahead: `Ok` on a yes, the refusal on a no.
pub fn confirmed(action: &str, answer: bool) -> Result<(), NotConfirmed> {
    match answer {
        true => Ok(()),
        false => Err(NotConfirmed::declined(action)),
    }
}

/// A destructive command against AWS that was not confirmed: nothing was done. The CLI exits with
/// [`NotConfirmed::EXIT_CODE`].
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct NotConfirmed {
    pub message: String,
}

impl NotConfirmed {
    /// As [`LocalOnly`]: nothing was attempted.
    pub const EXIT_CODE: i32 = 2;

    fn not_interactive(action: &str) -> Self {
        NotConfirmed {
            message: format!(
                "not confirmed: this would {action} on AWS, and stdin is not a terminal to ask on; \
                 pass --yes to run it without asking. Nothing was done."
            ),
        }
    }

    fn declined(action: &str) -> Self {
        NotConfirmed { message: format!("not confirmed: did not {action}. Nothing was done.") }
    }
}

/// Where `--local` finds the local stack's settings: `OPS_LOCAL_ENV` when given, else
/// `.local/stack.env` in `start` or the nearest of its parents that has one.
pub fn local_env_file(start: &Path, given: Option<PathBuf>) -> Option<PathBuf> {
    if let Some(given) = given.filter(|path| !path.as_os_str().is_empty()) {
        return Some(given);
    }
    start.ancestors().map(|dir| dir.join(".local").join("stack.env")).find(|file| file.is_file())
}

/// The variables of a `stack.env` as `infra/run` writes it: lines of `export NAME=VALUE …`
/// (`export` optional, blank lines and `#` comments skipped, a value in matching quotes unquoted),
/// where a value `${NAME:-default}` keeps the variable's own value (`var`) when it has one, as the
/// shell's `source` does. Values hold no spaces.
pub fn parse_local_env(text: &str, var: impl Fn(&str) -> Option<String>) -> anyhow::Result<Vec<(String, String)>> {
    let mut found = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").unwrap_or(line);
        for assignment in line.split_whitespace() {
            let (name, value) = assignment
                .split_once('=')
                .filter(|(name, _)| !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
                .with_context(|| format!("line {}: {assignment:?} is not NAME=VALUE", number + 1))?;
            let value = unquote(value);
            let value =
                match value.strip_prefix("${").and_then(|v| v.strip_suffix('}')).and_then(|v| v.split_once(":-")) {
                    Some((own, default)) => var(own).filter(|v| !v.is_empty()).unwrap_or_else(|| default.to_owned()),
                    None => value.to_owned(),
                };
            found.push((name.to_owned(), value));
        }
    }
    Ok(found)
}

fn unquote(value: &str) -> &str {
    for quote in ['"', '\''] {
        if let Some(inner) = value.strip_prefix(quote).and_then(|v| v.strip_suffix(quote)) {
            return inner;
        }
    }
    value
}

/// The variables `--local` sets: those of the local stack's file ([`local_env_file`] from the
/// current directory), or an error saying to start the local stack.
pub fn local_env() -> anyhow::Result<Vec<(String, String)>> {
    let start = std::env::current_dir().context("the current directory")?;
    let given = std::env::var_os("OPS_LOCAL_ENV").map(PathBuf::from);
    let file = local_env_file(&start, given).with_context(|| {
        format!(
            "--local: no .local/stack.env in {} or its parents: start the local stack first (infra/run), \
             run from the project's folder, or set OPS_LOCAL_ENV",
            start.display()
        )
    })?;
    let text = std::fs::read_to_string(&file)
        .with_context(|| format!("--local: read {} (start the local stack first: infra/run)", file.display()))?;
    parse_local_env(&text, |name| std::env::var(name).ok()).with_context(|| format!("--local: {}", file.display()))
}

/// The outputs of the stack that the ops CLI reads (template.yaml's `Outputs`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StackOutputs {
    pub table_name: String,
    pub rest_api_id: String,
    pub stage_name: String,
    /// Webhook commands only.
    pub webhook_key_secret_arn: Option<String>,
    /// The base of the payer links in what the CLI shows and records.
    pub payer_base_url: Option<String>,
    /// The bucket of bank files (remittance and return files).
    pub files_bucket: Option<String>,
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
            payer_base_url: value("PayerBaseUrl"),
            files_bucket: value("FilesBucket"),
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

    #[test]
    fn destructive_commands_ask_on_aws_only_and_refuse_without_a_terminal() {
        let revoke = Some("revoke API token 2 of account 1");
        // The local stack and harmless commands never ask.
        for (yes, interactive) in [(false, false), (false, true), (true, false)] {
            assert_eq!(consent(Target::Local, revoke, yes, interactive).unwrap(), Consent::NotNeeded);
            assert_eq!(consent(Target::Aws, None, yes, interactive).unwrap(), Consent::NotNeeded);
        }
        assert_eq!(consent(Target::Aws, revoke, true, false).unwrap(), Consent::Given);
        assert_eq!(consent(Target::Aws, revoke, true, true).unwrap(), Consent::Given);
        assert_eq!(consent(Target::Aws, revoke, false, true).unwrap(), Consent::Ask);
        let refused = consent(Target::Aws, revoke, false, false).unwrap_err().to_string();
        assert!(refused.contains("revoke API token 2 of account 1") && refused.contains("pass --yes"), "{refused}");
        assert_eq!(NotConfirmed::EXIT_CODE, 2);
    }

    #[test]
    fn only_y_or_yes_confirms() {
        let answer = |typed: &str| {
            let mut prompt = Vec::new();
            let yes = ask("Revoke token 2?", &mut typed.as_bytes(), &mut prompt).unwrap();
            assert_eq!(String::from_utf8(prompt).unwrap(), "Revoke token 2? [y/N] ");
            yes
        };
        for typed in ["y\n", "Y\n", "yes\n", " YES \r\n", "y"] {
            assert!(answer(typed), "{typed:?}");
        }
        for typed in ["\n", "", "n\n", "no\n", "sim\n", "yy\n", "ye s\n"] {
            assert!(!answer(typed), "{typed:?}");
        }
        assert!(confirmed("revoke API token 2", true).is_ok());
        let declined = confirmed("revoke API token 2", false).unwrap_err().to_string();
        assert_eq!(declined, "not confirmed: did not revoke API token 2. Nothing was done.");
    }

    #[test]
    fn the_local_stack_file_reads_as_the_shell_sources_it() {
        let text = "export AWS_ENDPOINT_URL=http://127.0.0.1:4566\n\
                    export AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local AWS_REGION=us-east-1\n\
                    # a comment\n\n\
                    export TABLE_NAME='billing-service'\n\
                    LOCAL_API_URL=\"http://127.0.0.1:3000\"\n\
                    export WEBHOOKS_ALLOW_INSECURE_LOCAL=${WEBHOOKS_ALLOW_INSECURE_LOCAL:-0}\n";
        let read = parse_local_env(text, |_| None).unwrap();
        let names: Vec<_> = read.iter().map(|(name, value)| format!("{name}={value}")).collect();
        assert_eq!(
            names,
            [
                "AWS_ENDPOINT_URL=http://127.0.0.1:4566",
                "AWS_ACCESS_KEY_ID=local",
                "AWS_SECRET_ACCESS_KEY=local",
                "AWS_REGION=us-east-1",
                "TABLE_NAME=billing-service",
                "LOCAL_API_URL=http://127.0.0.1:3000",
                "WEBHOOKS_ALLOW_INSECURE_LOCAL=0",
            ]
        );
        let own = parse_local_env(text, |name| (name == "WEBHOOKS_ALLOW_INSECURE_LOCAL").then(|| "1".to_owned()));
        assert_eq!(own.unwrap().last().unwrap().1, "1");
        assert!(parse_local_env("export nonsense\n", |_| None).unwrap_err().to_string().contains("line 1"));
    }

    #[test]
    fn the_local_stack_file_is_found_in_the_nearest_parent() {
        let root = std::env::temp_dir().join(format!("ops-local-env-{}", std::process::id()));
        let deep = root.join("infra").join("src");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::create_dir_all(root.join(".local")).unwrap();
        assert_eq!(local_env_file(&deep, None), None);
        std::fs::write(root.join(".local").join("stack.env"), "export TABLE_NAME=t\n").unwrap();
        assert_eq!(local_env_file(&deep, None), Some(root.join(".local").join("stack.env")));
        assert_eq!(local_env_file(&deep, Some("/elsewhere/stack.env".into())), Some("/elsewhere/stack.env".into()));
        std::fs::remove_dir_all(&root).unwrap();
    }
}
