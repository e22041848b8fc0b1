//! How a run of the ops CLI ends: its JSON on stdout (a reader that went away ends it quietly, as
//! the operation went through), or its error as JSON on stderr with the exit code: 2 for a command
//! refused before it started (local-only against AWS, or destructive and not confirmed), else 1.

use std::io::Write;

use crate::target::{LocalOnly, NotConfirmed};

/// Prints the run's output, or fails with its error (and exits with its code).
pub fn finish(result: anyhow::Result<serde_json::Value>) {
    match result {
        Ok(output) => match write_json(&mut std::io::stdout().lock(), &output) {
            Ok(()) => {}
            // The reader has what it wanted (`| head`): quietly, as the operation went through.
            Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
            Err(error) => fail(&anyhow::Error::new(error).context("write the output")),
        },
        Err(error) => fail(&error),
    }
}

/// The error as JSON on stderr (ignoring a closed stderr), and its exit code.
pub fn fail(error: &anyhow::Error) -> ! {
    let _ = writeln!(std::io::stderr().lock(), "{}", serde_json::json!({ "error": format!("{error:#}") }));
    let code = match () {
        _ if error.downcast_ref::<LocalOnly>().is_some() => LocalOnly::EXIT_CODE,
        _ if error.downcast_ref::<NotConfirmed>().is_some() => NotConfirmed::EXIT_CODE,
        _ => 1,
    };
    std::process::exit(code)
}

/// Writes the output as pretty JSON and a newline, and flushes. A reader that went away (`ops
/// … | head -c 10`) shows as an error of kind `BrokenPipe`, which the binary ends on quietly.
pub fn write_json(out: &mut impl Write, value: &serde_json::Value) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(value).map_err(std::io::Error::other)?;
    writeln!(out, "{text}")?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer whose reader went away.
    struct ClosedPipe;

    impl Write for ClosedPipe {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::ErrorKind::BrokenPipe.into())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn output_is_pretty_json_and_a_closed_pipe_is_an_error_not_a_panic() {
        let mut out = Vec::new();
        write_json(&mut out, &serde_json::json!({ "a": 1 })).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "{\n  \"a\": 1\n}\n");
        let error = write_json(&mut ClosedPipe, &serde_json::json!({ "a": 1 })).unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::BrokenPipe);
    }
}
