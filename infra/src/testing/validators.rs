//! The third-party checks in `tests/validators` (node scripts over npm packages, installed by
//! `infra/test`), which judge what the service writes by someone else's reading.

/// Runs one of the third-party checks in `tests/validators` (node scripts over npm packages,
/// installed by `infra/test`) on `input` (its stdin, JSON); returns what it prints (JSON).
pub fn independent_check(script: &str, input: &serde_json::Value) -> serde_json::Value {
    use std::io::Write as _;
    let dir = validators_dir();
    assert!(
        dir.join("node_modules").is_dir(),
        "the validators are not installed: run infra/test (npm ci in {})",
        dir.display()
    );
    let mut child = std::process::Command::new("node")
        .arg(dir.join(script))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("node runs");
    child.stdin.take().expect("stdin").write_all(input.to_string().as_bytes()).expect("write the input");
    let output = child.wait_with_output().expect("the check ends");
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{script} prints JSON: {e}"))
}

/// `tests/validators` of the checkout the test runs in: found from the working directory (cargo runs
/// a test in its crate's folder), so that a build made in another copy of the repository (one
/// `target/` shared, as `.ci/standalone` does) still finds this checkout's installed packages.
fn validators_dir() -> std::path::PathBuf {
    let here = std::env::current_dir().unwrap_or_default();
    here.ancestors()
        .map(|dir| dir.join("tests/validators"))
        .find(|dir| dir.join("package.json").is_file())
        .unwrap_or_else(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/validators"))
}
