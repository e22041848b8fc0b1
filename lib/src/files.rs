//! The stack's bucket of bank files: remittance files the service writes
//! (`remittances/<account>/<agreement>/<sequence>-<id>.rem`) and return files the bank sends back
//! (`returns/<account>/<name>`), through the real S3 client (moto's S3 locally).
//!
//! The bucket is `FILES_BUCKET` (the template's `FilesBucket`); locally `billing-files`. Against a
//! local endpoint (`AWS_ENDPOINT_URL`) the client addresses the bucket in the path, as emulators
//! need; on AWS it uses the bucket's own host name.

use anyhow::Context as _;
use aws_sdk_s3::primitives::ByteStream;
use std::sync::{Arc, LazyLock};

const DEFAULT_BUCKET: &str = "billing-files";

/// Where remittance files go.
pub const REMITTANCES: &str = "remittances/";
/// Where the bank's return files are put (the template's S3 trigger watches this prefix).
pub const RETURNS: &str = "returns/";
/// Where exports are written (`exports/<account>/<id>.csv`; the template's lifecycle rule removes
/// them after 7 days, and abandoned uploads after 1).
pub const EXPORTS: &str = "exports/";

/// The largest return file read (a CNAB 240 line is 242 bytes: about 40,000 lines).
pub const MAX_RETURN_BYTES: i64 = 10 * 1024 * 1024;

/// An S3 client made when first used (`Files::from_config`).
type S3 = Arc<LazyLock<aws_sdk_s3::Client, Box<dyn FnOnce() -> aws_sdk_s3::Client + Send>>>;

#[derive(Clone, Debug)]
pub struct Files {
    client: S3,
    bucket: String,
}

/// The process's bucket client (`FILES_BUCKET` through the environment's AWS settings), made at
/// its first use: what the API's routes that sign a link to a file use.
pub async fn shared() -> Files {
    static SHARED: tokio::sync::OnceCell<Files> = tokio::sync::OnceCell::const_new();
    SHARED.get_or_init(|| async { Files::from_config(&crate::config::aws().await) }).await.clone()
}

impl Files {
    pub fn new(client: aws_sdk_s3::Client, bucket: impl Into<String>) -> Files {
        Files { client: Arc::new(LazyLock::new(Box::new(move || client))), bucket: bucket.into() }
    }

    /// The bucket of `FILES_BUCKET` through a client of `config`, made at its first call: its
    /// setup (S3's endpoint rules among it) is not part of a function's start (docs/cold-start.md).
    pub fn from_config(config: &aws_config::SdkConfig) -> Files {
        let mut builder = aws_sdk_s3::config::Builder::from(config);
        if std::env::var_os("AWS_ENDPOINT_URL").is_some() || std::env::var_os("AWS_ENDPOINT_URL_S3").is_some() {
            builder = builder.force_path_style(true);
        }
        let client: S3 = Arc::new(LazyLock::new(Box::new(move || aws_sdk_s3::Client::from_conf(builder.build()))));
        Files { client, bucket: bucket_name() }
    }

    /// The same client on another bucket.
    pub fn with_bucket(self, bucket: impl Into<String>) -> Files {
        Files { bucket: bucket.into(), ..self }
    }

    pub fn bucket(&self) -> &str {
        &self.bucket
    }

    pub fn client(&self) -> &aws_sdk_s3::Client {
        &self.client
    }

    /// Writes `body` at `key` (the same key again: the same content, so a retried write is harmless).
    pub async fn put(&self, key: &str, body: &[u8]) -> anyhow::Result<()> {
        self.client
            .put_object()
            .bucket(&self.bucket)
            .key(key)
            .content_type("text/plain; charset=us-ascii")
            .body(ByteStream::from(body.to_vec()))
            .send()
            .await
            .with_context(|| format!("S3 PutObject s3://{}/{key}", self.bucket))?;
        Ok(())
    }

    /// The object at `key`, refused past [`MAX_RETURN_BYTES`].
    pub async fn get(&self, key: &str) -> anyhow::Result<Vec<u8>> {
        let object = self
            .client
            .get_object()
            .bucket(&self.bucket)
            .key(key)
            .send()
            .await
            .with_context(|| format!("S3 GetObject s3://{}/{key}", self.bucket))?;
        if object.content_length().unwrap_or_default() > MAX_RETURN_BYTES {
            anyhow::bail!("s3://{}/{key} is larger than {MAX_RETURN_BYTES} bytes", self.bucket);
        }
        let bytes = object.body.collect().await.with_context(|| format!("reading s3://{}/{key}", self.bucket))?;
        Ok(bytes.into_bytes().to_vec())
    }
}

pub fn bucket_name() -> String {
    std::env::var("FILES_BUCKET").ok().filter(|b| !b.trim().is_empty()).unwrap_or_else(|| DEFAULT_BUCKET.to_owned())
}

/// A key's part that names an agreement (`0057/12345-7/109` → `0057_12345-7_109`).
pub fn slug(text: &str) -> String {
    text.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect()
}

/// The account a return file's key names (`returns/<account>/<name>`).
pub fn account_of_return(key: &str) -> Option<crate::values::AccountId> {
    let rest = key.strip_prefix(RETURNS)?;
    let (account, name) = rest.split_once('/')?;
    if name.is_empty() || !account.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    account.parse::<i64>().ok().filter(|id| *id > 0).map(crate::values::AccountId::new)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_return_key_names_its_account() {
        assert_eq!(account_of_return("returns/42/RET0603.ret").map(|a| a.get()), Some(42));
        for bad in ["returns/42/", "returns/x/a.ret", "remittances/42/a.ret", "returns/0/a", "returns/42"] {
            assert_eq!(account_of_return(bad), None, "{bad}");
        }
        assert_eq!(slug("0057/12345-7/109"), "0057_12345-7_109");
    }
}
