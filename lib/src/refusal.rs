//! What a workflow did ([`Made`]) or why it did not do what it was asked ([`Refusal`]), in the
//! domain's words. Models, workflows, workers
//! and the ops CLI return a [`Refusal`]; only `http::error` turns one into a status code and the
//! spec's shapes (§7), so a worker or the CLI calls a workflow without pretending to be a request.

use crate::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// The record does not exist, or belongs to another account (the two are not told apart).
    #[error("not found")]
    NotFound,
    /// The request's values break the resource's rules: one Portuguese sentence per failure.
    #[error("invalid: {0:?}")]
    Invalid(Vec<String>),
    /// A business rule refuses, with a stable code integrators tell apart (`credit_not_found`,
    /// `settlement_empty`, …).
    #[error("refused ({code}): {message}")]
    Rule { code: &'static str, message: String },
    /// The request clashes with what already exists under a stable code (a reference reused with
    /// other values, an idempotency key in use).
    #[error("clashes ({code}): {message}")]
    Clash { code: &'static str, message: String },
    /// The account may not do this (its status, a module it lacks), in words.
    #[error("forbidden: {0}")]
    Forbidden(String),
    /// No account owns the credentials given (missing, malformed, unknown or revoked token).
    #[error("unauthenticated")]
    Unauthenticated,
    /// A concurrent writer won a race; `contention::retry_*` runs the operation again, and only a
    /// contention outlasting its budget is the answer.
    #[error("lost a race to a concurrent writer")]
    Conflict,
    /// The storage throttled or failed for longer than the retries lasted; nothing was half-saved.
    #[error("storage unavailable: {0:#}")]
    Unavailable(anyhow::Error),
    /// Anything unexpected. The source is logged, never shown.
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

impl Refusal {
    pub fn invalid(message: impl Into<String>) -> Self {
        Refusal::Invalid(vec![message.into()])
    }

    /// A lost race or storage weather: the same request may succeed a moment later.
    pub fn is_transient(&self) -> bool {
        matches!(self, Refusal::Conflict | Refusal::Unavailable(_))
    }
}

/// What storage refusals mean, in one place: a transaction that lost a race, or a condition on a
/// record read before (its version, a related record still there) that no longer holds, is a lost
/// race that `contention::retry_*` runs again; throttles and outages are storage weather; anything
/// else is unexpected. A taken unique value means something different to each resource, which maps
/// it first.
impl From<StoreError> for Refusal {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Conflict | StoreError::ConditionFailed(_) => Refusal::Conflict,
            StoreError::Throttled(source) | StoreError::Unavailable(source) => Refusal::Unavailable(source),
            other => Refusal::Internal(anyhow::Error::new(other)),
        }
    }
}

/// What a request to make something with a reference of its own did, for the caller to tell its
/// client (the HTTP edge answers 201, 200 and 202).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Made<T> {
    /// Made now.
    Created(T),
    /// Made before by a request with the same reference and values: this is that one.
    Existing(T),
    /// Made before and had failed; taken up again now.
    Resumed(T),
}

impl<T> Made<T> {
    pub fn value(&self) -> &T {
        match self {
            Made::Created(value) | Made::Existing(value) | Made::Resumed(value) => value,
        }
    }

    pub fn into_value(self) -> T {
        match self {
            Made::Created(value) | Made::Existing(value) | Made::Resumed(value) => value,
        }
    }
}
