//! The ops CLI (`infra::ops`): against AWS or the local stack (the standard AWS_* and
//! AWS_ENDPOINT_URL variables choose which; TABLE_NAME names the table, `--stack NAME` reads it
//! and the API from the stack's outputs, `--local` reads the local stack's `.local/stack.env`:
//! `infra::target`). The command line is parsed before anything else, so `--help` and
//! `--version` need no stack. Prints JSON; errors are JSON on stderr with exit code 1, and 2 for a
//! command refused before it started (local-only against AWS, or destructive and not confirmed).
//! A reader that stops reading (`ops … | head`) ends it quietly with exit code 0: the operation
//! itself went through.

use clap::Parser as _;
use infra::ops::{self, output, Cli};

fn main() {
    // The arguments first: help, the version and usage errors need no configuration and no AWS
    // (clap prints them, ignoring a closed pipe, and exits 0 or 2).
    let cli = Cli::try_parse().unwrap_or_else(|error| error.exit());
    if cli.local {
        // Before the runtime's threads start, so the variables are the process's from here on.
        match infra::target::local_env() {
            Ok(variables) => variables.into_iter().for_each(|(name, value)| std::env::set_var(name, value)),
            Err(error) => output::fail(&error),
        }
    }
    let runtime = tokio::runtime::Runtime::new().expect("the async runtime");
    output::finish(runtime.block_on(ops::run(cli)));
}
