//! What a workflow did ([`Made`]) or why it did not do what it was asked ([`Refusal`]), in the
//! domain's words. Models, workflows, workers
//! and the ops CLI return a [`Refusal`]; only `http::error` turns one into a status code and the
//! spec's shapes (§7), so a worker or the CLI calls a workflow without pretending to be a request.

use crate::store::StoreError;

/// What is wrong with one value of a request, in words a program can branch on (`code`, one of a
/// closed set) and words a person reads (`message`, Portuguese, may be reworded).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The path of the field as the client sent it inside the envelope (`due_date`,
    /// `billing_items[0].amount`), or `None` when the refusal is not about one field (a status
    /// that does not allow the action, a record still in use).
    pub field: Option<String>,
    pub code: Code,
    pub message: String,
}

/// The kinds of [`Problem`]: stable words, listed with their meaning in docs/openapi.yaml
/// (`ValidationErrors`) and docs/decisions.md. The message says the specifics (the bounds, the
/// list of accepted values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Code {
    /// A required parameter is absent: the body's envelope, or a required query parameter.
    Required,
    /// A field that needs a value has none: omitted on create, null, empty or only spaces, or an
    /// empty list.
    Blank,
    /// Not a value of the expected kind or format, or not one of the accepted values.
    Invalid,
    /// Text shorter than its minimum.
    TooShort,
    /// Text longer than its maximum, or a list with more elements than allowed.
    TooLong,
    /// A number below its minimum.
    TooSmall,
    /// A number above its maximum.
    TooLarge,
    /// A number or date outside its bounds.
    OutOfRange,
    /// A value that must be unique is used already (by another record of the account, or by an
    /// earlier element of the same list).
    Taken,
    /// An id that names no record of the account.
    NotFound,
    /// The record's status or kind does not allow the action.
    NotAllowed,
    /// A delete refused because other records depend on the record.
    InUse,
    /// Stands for the problems left out of a long answer (`http::error::MAX_ERRORS_SHOWN`).
    Truncated,
}

impl Code {
    pub const ALL: [Code; 13] = [
        Code::Required,
        Code::Blank,
        Code::Invalid,
        Code::TooShort,
        Code::TooLong,
        Code::TooSmall,
        Code::TooLarge,
        Code::OutOfRange,
        Code::Taken,
        Code::NotFound,
        Code::NotAllowed,
        Code::InUse,
        Code::Truncated,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Code::Required => "required",
            Code::Blank => "blank",
            Code::Invalid => "invalid",
            Code::TooShort => "too_short",
            Code::TooLong => "too_long",
            Code::TooSmall => "too_small",
            Code::TooLarge => "too_large",
            Code::OutOfRange => "out_of_range",
            Code::Taken => "taken",
            Code::NotFound => "not_found",
            Code::NotAllowed => "not_allowed",
            Code::InUse => "in_use",
            Code::Truncated => "truncated",
        }
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Problem {
    /// A problem with the field at `field` (a path: `tag_ids`, `billing_items[2].quantity`).
    pub fn at(field: impl Into<String>, code: Code, message: impl Into<String>) -> Self {
        Problem { field: Some(field.into()), code, message: message.into() }
    }

    /// A problem with the request or the record as a whole, not with one field.
    pub fn general(code: Code, message: impl Into<String>) -> Self {
        Problem { field: None, code, message: message.into() }
    }

    pub fn blank(field: impl Into<String>, message: impl Into<String>) -> Self {
        Problem::at(field, Code::Blank, message)
    }

    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        Problem::at(field, Code::Invalid, message)
    }

    pub fn too_short(field: impl Into<String>, message: impl Into<String>) -> Self {
        Problem::at(field, Code::TooShort, message)
    }

    pub fn too_long(field: impl Into<String>, message: impl Into<String>) -> Self {
        Problem::at(field, Code::TooLong, message)
    }

    pub fn too_small(field: impl Into<String>, message: impl Into<String>) -> Self {
        Problem::at(field, Code::TooSmall, message)
    }

    pub fn too_large(field: impl Into<String>, message: impl Into<String>) -> Self {
        Problem::at(field, Code::TooLarge, message)
    }

    pub fn out_of_range(field: impl Into<String>, message: impl Into<String>) -> Self {
        Problem::at(field, Code::OutOfRange, message)
    }

    pub fn not_found(field: impl Into<String>, message: impl Into<String>) -> Self {
        Problem::at(field, Code::NotFound, message)
    }

    pub fn taken(field: impl Into<String>, message: impl Into<String>) -> Self {
        Problem::at(field, Code::Taken, message)
    }
}

/// The messages of `problems`, in order (what a person reads; the ops CLI and a failed
/// settlement show them joined).
pub fn messages(problems: &[Problem]) -> Vec<&str> {
    problems.iter().map(|p| p.message.as_str()).collect()
}

#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// The record does not exist, or belongs to another account (the two are not told apart).
    #[error("not found")]
    NotFound,
    /// The request's values break the resource's rules: one [`Problem`] per failure.
    #[error("invalid: {0:?}")]
    Invalid(Vec<Problem>),
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
    /// One problem.
    pub fn invalid(problem: Problem) -> Self {
        Refusal::Invalid(vec![problem])
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
}
