//! What a failed DynamoDB call means to its caller (docs/decisions.md, "Contention and
//! failures"). The SDK has already retried throttles and server errors a few times
//! (`config::aws`); what still fails is sorted here into the [`StoreError`] the layers above act
//! on: a failed condition is an answer, a conflict is a lost race to run again, a throttle or an
//! outage is weather to wait out (and, past the caller's budget, a `503`), anything else a bug.

use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::types::CancellationReason;
use aws_smithy_runtime_api::http::Response;

use super::StoreError;

/// Error codes DynamoDB answers when a table, index or partition is over its throughput, or the
/// account over its request rate.
const THROTTLES: [&str; 5] = [
    "ProvisionedThroughputExceededException",
    "ThrottlingException",
    "RequestLimitExceeded",
    "Throttling",
    "TooManyRequestsException",
];

/// Codes of a request that met a transaction holding one of its items.
const CONFLICTS: [&str; 2] = ["TransactionConflictException", "TransactionInProgressException"];

/// Codes of a failure on DynamoDB's side.
const OUTAGES: [&str; 3] = ["InternalServerError", "ServiceUnavailable", "InternalFailure"];

/// The kind of a failed call, before its error is wrapped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    ConditionFailed,
    Conflict,
    Throttled,
    Unavailable,
    Other,
}

fn kind_of<E: ProvideErrorMetadata>(error: &SdkError<E, Response>) -> Kind {
    match error {
        // The request may or may not have reached DynamoDB: a network failure or a timeout.
        SdkError::TimeoutError(_) | SdkError::DispatchFailure(_) | SdkError::ResponseError(_) => Kind::Unavailable,
        SdkError::ConstructionFailure(_) => Kind::Other,
        SdkError::ServiceError(service) => {
            let code = error.code().unwrap_or_default();
            if code == "ConditionalCheckFailedException" {
                Kind::ConditionFailed
            } else if CONFLICTS.contains(&code) {
                Kind::Conflict
            } else if THROTTLES.contains(&code) {
                Kind::Throttled
            } else if OUTAGES.contains(&code) || service.raw().status().is_server_error() {
                Kind::Unavailable
            } else {
                Kind::Other
            }
        }
        _ => Kind::Other,
    }
}

/// The [`StoreError`] of a failed call (`what` names it in the log). A failed condition of a
/// single-item write is its write's, index 0.
pub(crate) fn failed<E>(what: &'static str, error: SdkError<E, Response>) -> StoreError
where
    E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
{
    let kind = kind_of(&error);
    let source = || anyhow::Error::new(error).context(what);
    match kind {
        Kind::ConditionFailed => StoreError::ConditionFailed(vec![0]),
        Kind::Conflict => StoreError::Conflict,
        Kind::Throttled => StoreError::Throttled(source()),
        Kind::Unavailable => StoreError::Unavailable(source()),
        Kind::Other => StoreError::Other(source()),
    }
}

/// What a cancelled transaction's reasons (one per action, in order) say, when they say enough:
/// a failed condition (the indexes of those that failed) is an answer whatever else happened;
/// otherwise a conflict with another transaction, then a throttled item, each a reason to try
/// again. `None` when no reason tells (a validation error: a bug).
pub(crate) fn cancelled(reasons: &[CancellationReason]) -> Option<StoreError> {
    let code = |r: &CancellationReason| r.code().unwrap_or_default().to_owned();
    let failed: Vec<usize> =
        reasons.iter().enumerate().filter(|(_, r)| code(r) == "ConditionalCheckFailed").map(|(i, _)| i).collect();
    if !failed.is_empty() {
        return Some(StoreError::ConditionFailed(failed));
    }
    if reasons.iter().any(|r| code(r) == "TransactionConflict") {
        return Some(StoreError::Conflict);
    }
    let throttled = |r: &CancellationReason| {
        let code = code(r);
        code == "ThrottlingError" || code == "ProvisionedThroughputExceeded" || THROTTLES.contains(&code.as_str())
    };
    if reasons.iter().any(throttled) {
        let codes: Vec<String> = reasons.iter().map(code).collect();
        return Some(StoreError::Throttled(anyhow::anyhow!("transaction throttled: {codes:?}")));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reason(code: &str) -> CancellationReason {
        CancellationReason::builder().code(code).build()
    }

    #[test]
    fn a_cancelled_transaction_says_why() {
        let failed = cancelled(&[reason("None"), reason("ConditionalCheckFailed"), reason("TransactionConflict")]);
        assert!(matches!(failed, Some(StoreError::ConditionFailed(ref at)) if at == &[1]), "{failed:?}");
        assert!(matches!(cancelled(&[reason("None"), reason("TransactionConflict")]), Some(StoreError::Conflict)));
        assert!(matches!(cancelled(&[reason("ThrottlingError"), reason("None")]), Some(StoreError::Throttled(_))));
        let over = cancelled(&[reason("ProvisionedThroughputExceeded"), reason("None")]);
        assert!(matches!(over, Some(StoreError::Throttled(_))));
        assert!(cancelled(&[reason("ValidationError")]).is_none());
        assert!(cancelled(&[]).is_none());
    }
}
