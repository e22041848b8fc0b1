//! Configuration from the environment. The same binaries run on AWS and against the local stack:
//! the SDK honours the standard `AWS_ENDPOINT_URL*` variables.

use aws_config::{BehaviorVersion, SdkConfig};

pub const DEFAULT_TABLE_NAME: &str = "billing-service";

pub async fn aws() -> SdkConfig {
    aws_config::load_defaults(BehaviorVersion::latest()).await
}

pub fn table_name() -> String {
    std::env::var("TABLE_NAME").ok().filter(|t| !t.is_empty()).unwrap_or_else(|| DEFAULT_TABLE_NAME.to_owned())
}
