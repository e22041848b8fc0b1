//! The `dev-server` binary in a child process, as `infra/run` starts it ([`DevServerProcess`]).

/// The `dev-server` binary in a child process, as `infra/run` starts it, once it printed its
/// banner (killed when dropped).
pub struct DevServerProcess {
    pub child: tokio::process::Child,
    /// `http://127.0.0.1:<port>/v1`.
    pub base_url: String,
    pub token: String,
    pub account: i64,
}

impl DevServerProcess {
    /// Starts `binary` (the test's `CARGO_BIN_EXE_dev-server`) on a free port with these variables,
    /// keeping its demo account in `demo_file`, and reads its banner.
    pub async fn start(binary: &std::path::Path, demo_file: &std::path::Path, env: &[(&str, &str)]) -> Self {
        use tokio::io::AsyncBufReadExt;
        let mut child = tokio::process::Command::new(binary)
            .args(["--port", "0", "--pix-port", "0"])
            .env("DEMO_FILE", demo_file)
            .envs(env.iter().copied())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("start dev-server");
        let mut lines = tokio::io::BufReader::new(child.stdout.take().expect("stdout")).lines();
        let (mut base_url, mut token, mut account) = (None, None, None);
        let banner = async {
            while let Some(line) = lines.next_line().await.expect("the banner") {
                let value = line.split_once(':').map(|(_, v)| v.trim().to_owned());
                if line.contains("Base URL:") {
                    base_url = value;
                } else if line.contains("Demo token:") {
                    token = value;
                } else if line.contains("Demo account:") {
                    account = value.and_then(|v| v.parse().ok());
                } else if line.contains("Ctrl-C") {
                    break;
                }
            }
        };
        tokio::time::timeout(std::time::Duration::from_secs(60), banner)
            .await
            .expect("the dev server printed its banner");
        DevServerProcess {
            child,
            base_url: base_url.expect("base URL printed"),
            token: token.expect("token printed"),
            account: account.expect("account printed"),
        }
    }
}
