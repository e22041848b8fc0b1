//! The one application error type. Its `IntoResponse` decides status and body in the spec's shapes
//! (§7) and never leaks internal text: internal errors are logged and answered with a fixed message.

use axum::response::{IntoResponse, Response};
use http::StatusCode;
use serde_json::json;

use super::response::json_response;
use crate::refusal::Refusal;
use crate::store::StoreError;

pub type ApiResult<T> = Result<T, ApiError>;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// 400: the body is not valid JSON.
    #[error("malformed body")]
    MalformedBody,
    /// 400 with a Portuguese reason: a body that cannot be read or is nested too deep.
    #[error("bad request: {0}")]
    BadRequest(&'static str),
    /// 413: the body exceeds the size limit.
    #[error("body too large")]
    BodyTooLarge,
    /// 408: the body did not arrive within `body::BODY_READ_TIMEOUT`.
    #[error("body read timed out")]
    RequestTimeout,
    /// 401: authorization header missing, malformed, or token unknown or revoked.
    #[error("unauthorized")]
    Unauthorized,
    /// 403 with a Portuguese reason.
    #[error("forbidden: {0}")]
    Forbidden(String),
    /// 404: missing, or of another account (the two are not distinguished).
    #[error("not found")]
    NotFound,
    /// 404: no route for this path and method.
    #[error("no route")]
    RouteNotFound,
    /// 422 `{status, errors}`: validation failures and logical refusals.
    #[error("validation failed: {0:?}")]
    Validation(Vec<String>),
    /// `{status, message, code}`: business-rule refusals that integrators must tell apart.
    #[error("refused ({code}): {message}")]
    Coded { status: StatusCode, code: &'static str, message: String },
    /// A concurrent writer won a race; `store::retry_on_conflict` runs the operation again. Only
    /// if the contention outlasts its time budget does it reach the client: 409
    /// `{status, message, code: "conflict"}` with `Retry-After`.
    #[error("lost a race to a concurrent writer")]
    Conflict,
    /// DynamoDB (or SQS) throttled the request or failed on its side for longer than the request's
    /// retries lasted: 503 `{status, message, code: "temporarily_unavailable"}` with
    /// `Retry-After`. Nothing was half-saved (every change is one transaction or one write).
    #[error("storage unavailable: {0:#}")]
    Unavailable(anyhow::Error),
    /// 500: anything unexpected. The source is logged, never sent.
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

/// A domain refusal in the spec's shapes: the one place that knows which status each one is.
impl From<Refusal> for ApiError {
    fn from(refusal: Refusal) -> Self {
        match refusal {
            Refusal::NotFound => ApiError::NotFound,
            Refusal::Invalid(errors) => ApiError::Validation(errors),
            Refusal::Rule { code, message } => {
                ApiError::Coded { status: StatusCode::UNPROCESSABLE_ENTITY, code, message }
            }
            Refusal::Clash { code, message } => ApiError::Coded { status: StatusCode::CONFLICT, code, message },
            Refusal::Forbidden(message) => ApiError::Forbidden(message),
            Refusal::Unauthenticated => ApiError::Unauthorized,
            Refusal::Conflict => ApiError::Conflict,
            Refusal::Unavailable(source) => ApiError::Unavailable(source),
            Refusal::Internal(source) => ApiError::Internal(source),
        }
    }
}

/// Storage refusals reach a client as the domain reads them ([`Refusal`]'s `From<StoreError>`).
impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        Refusal::from(error).into()
    }
}

impl ApiError {
    pub fn validation(message: impl Into<String>) -> Self {
        ApiError::Validation(vec![message.into()])
    }

    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::MalformedBody | ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::BodyTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            ApiError::Unauthorized => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound | ApiError::RouteNotFound => StatusCode::NOT_FOUND,
            ApiError::Validation(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::Coded { status, .. } => *status,
            ApiError::Conflict => StatusCode::CONFLICT,
            ApiError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

pub const MSG_UNAUTHORIZED: &str = "Token de acesso ausente, malformado, desconhecido ou revogado";
pub const MSG_NOT_FOUND: &str = "Não encontrado";
pub const MSG_ROUTE_NOT_FOUND: &str = "Rota não encontrada";
pub const MSG_MALFORMED_JSON: &str = "JSON malformado no corpo da requisição";
pub const MSG_TOO_LARGE: &str = "Corpo da requisição muito grande";
pub const MSG_TOO_DEEP: &str = "Corpo da requisição aninhado demais (máximo: 32 níveis)";
pub const MSG_UNREADABLE_BODY: &str = "Corpo da requisição ilegível";
pub const MSG_BODY_TIMEOUT: &str = "O corpo da requisição não chegou a tempo";
pub const MSG_CONFLICT: &str =
    "O registro foi alterado por outra requisição ao mesmo tempo; tente novamente em instantes";
/// The stable `code` of a 409 for contention that outlasted the retries.
pub const CODE_CONFLICT: &str = "conflict";
/// At most this many messages go in a 422's `errors`; a last one says how many were left out.
pub const MAX_ERRORS_SHOWN: usize = 50;
/// Seconds a client waits before retrying a write that met contention.
pub const CONFLICT_RETRY_AFTER: u32 = 1;
pub const MSG_INTERNAL: &str = "Erro interno do servidor";
pub const MSG_UNAVAILABLE: &str =
    "Serviço temporariamente indisponível (armazenamento sobrecarregado); tente novamente em instantes";
/// The stable `code` of a 503.
pub const CODE_UNAVAILABLE: &str = "temporarily_unavailable";
/// Seconds a client waits before retrying a request the storage could not take.
pub const UNAVAILABLE_RETRY_AFTER: u32 = 2;

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        let code = status.as_u16();
        let body = match &self {
            ApiError::MalformedBody => json!({"status": code, "message": MSG_MALFORMED_JSON}),
            ApiError::BadRequest(message) => json!({"status": code, "message": message}),
            ApiError::BodyTooLarge => json!({"status": code, "message": MSG_TOO_LARGE}),
            ApiError::RequestTimeout => json!({"status": code, "message": MSG_BODY_TIMEOUT}),
            ApiError::Unauthorized => json!({"status": code, "message": MSG_UNAUTHORIZED}),
            ApiError::Forbidden(message) => json!({"status": code, "message": message}),
            ApiError::NotFound => json!({"status": code, "message": MSG_NOT_FOUND}),
            ApiError::RouteNotFound => json!({"status": code, "message": MSG_ROUTE_NOT_FOUND}),
            ApiError::Validation(errors) => json!({"status": code, "errors": shown(errors)}),
            ApiError::Coded { code: stable, message, .. } => {
                json!({"status": code, "message": message, "code": stable})
            }
            ApiError::Conflict => {
                tracing::warn!("gave up after write conflicts outlasted the retries");
                json!({"status": code, "message": MSG_CONFLICT, "code": CODE_CONFLICT})
            }
            ApiError::Unavailable(source) => {
                tracing::warn!(error = ?source, "gave up after throttling or storage failures outlasted the retries");
                json!({"status": code, "message": MSG_UNAVAILABLE, "code": CODE_UNAVAILABLE})
            }
            ApiError::Internal(source) => {
                tracing::error!(error = ?source, "internal error");
                json!({"status": code, "message": MSG_INTERNAL})
            }
        };
        let retry_after = match self {
            ApiError::Conflict => Some(CONFLICT_RETRY_AFTER),
            ApiError::Unavailable(_) => Some(UNAVAILABLE_RETRY_AFTER),
            _ => None,
        };
        let mut response = json_response(status, &body);
        if let Some(seconds) = retry_after {
            response.headers_mut().insert(http::header::RETRY_AFTER, http::HeaderValue::from(seconds));
        }
        response
    }
}

/// The messages of a 422, at most [`MAX_ERRORS_SHOWN`] of them: a request with thousands of broken
/// elements gets a short answer.
fn shown(errors: &[String]) -> Vec<String> {
    if errors.len() <= MAX_ERRORS_SHOWN {
        return errors.to_vec();
    }
    let mut shown = errors[..MAX_ERRORS_SHOWN - 1].to_vec();
    shown.push(format!("… e mais {} erros", errors.len() - (MAX_ERRORS_SHOWN - 1)));
    shown
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    async fn body_of(error: ApiError) -> (u16, serde_json::Value, String) {
        let response = error.into_response();
        let status = response.status().as_u16();
        let content_type = response.headers()[http::header::CONTENT_TYPE].to_str().unwrap().to_owned();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        (status, serde_json::from_slice(&bytes).unwrap(), content_type)
    }

    #[tokio::test]
    async fn internal_errors_never_leak_their_text() {
        let secret = anyhow::anyhow!("connection to dynamodb.internal failed: token sct_abc");
        let (status, body, content_type) = body_of(ApiError::Internal(secret)).await;
        assert_eq!(status, 500);
        assert_eq!(body, json!({"status": 500, "message": MSG_INTERNAL}));
        assert_eq!(content_type, "application/json; charset=utf-8");
    }

    #[tokio::test]
    async fn contention_is_a_409_with_retry_after() {
        let response = ApiError::Conflict.into_response();
        assert_eq!(response.headers()[http::header::RETRY_AFTER], "1");
        let (status, body, _) = body_of(ApiError::Conflict).await;
        assert_eq!((status, body), (409, json!({"status": 409, "message": MSG_CONFLICT, "code": "conflict"})));
    }

    #[tokio::test]
    async fn throttling_that_outlasts_the_retries_is_a_503_with_retry_after() {
        let throttled = StoreError::Throttled(anyhow::anyhow!("ProvisionedThroughputExceededException"));
        let response = ApiError::from(throttled).into_response();
        assert_eq!(response.headers()[http::header::RETRY_AFTER], "2");
        let outage = ApiError::from(StoreError::Unavailable(anyhow::anyhow!("InternalServerError at dynamodb")));
        let (status, body, _) = body_of(outage).await;
        assert_eq!(status, 503);
        assert_eq!(body, json!({"status": 503, "message": MSG_UNAVAILABLE, "code": "temporarily_unavailable"}));
    }

    #[tokio::test]
    async fn a_long_list_of_errors_is_cut_short() {
        let errors: Vec<String> = (1..=5000).map(|n| format!("Item {n}: não é válido")).collect();
        let (_, body, _) = body_of(ApiError::Validation(errors)).await;
        let shown = body["errors"].as_array().unwrap();
        assert_eq!(shown.len(), MAX_ERRORS_SHOWN);
        assert_eq!(shown[0], "Item 1: não é válido");
        assert_eq!(shown[MAX_ERRORS_SHOWN - 1], "… e mais 4951 erros");
    }

    #[tokio::test]
    async fn every_shape_of_section_7() {
        assert_eq!(body_of(ApiError::validation("x")).await.1, json!({"status": 422, "errors": ["x"]}));
        assert_eq!(body_of(ApiError::NotFound).await.1, json!({"status": 404, "message": MSG_NOT_FOUND}));
        assert_eq!(body_of(ApiError::Forbidden("f".into())).await.1, json!({"status": 403, "message": "f"}));
        let coded = ApiError::Coded { status: StatusCode::CONFLICT, code: "reference_reused", message: "m".into() };
        assert_eq!(body_of(coded).await.1, json!({"status": 409, "message": "m", "code": "reference_reused"}));
    }
}
