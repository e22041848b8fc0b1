//! The one application error type. Its `IntoResponse` decides status and body in the spec's shapes
//! (§7) and never leaks internal text: internal errors are logged and answered with a fixed message.

use axum::response::{IntoResponse, Response};
use http::StatusCode;
use serde_json::json;

use super::response::json_response;

pub type ApiResult<T> = Result<T, ApiError>;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// 400: the body is not valid JSON.
    #[error("malformed body")]
    MalformedBody,
    /// 413: the body exceeds the size limit.
    #[error("body too large")]
    BodyTooLarge,
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
    /// if retries run out does it reach the client, as a 500 (retry with backoff, §7).
    #[error("lost a race to a concurrent writer")]
    Conflict,
    /// 500: anything unexpected. The source is logged, never sent.
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

impl ApiError {
    pub fn validation(message: impl Into<String>) -> Self {
        ApiError::Validation(vec![message.into()])
    }

    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::MalformedBody => StatusCode::BAD_REQUEST,
            ApiError::BodyTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::Unauthorized => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound | ApiError::RouteNotFound => StatusCode::NOT_FOUND,
            ApiError::Validation(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::Coded { status, .. } => *status,
            ApiError::Conflict | ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

pub const MSG_UNAUTHORIZED: &str = "Token de acesso ausente, malformado, desconhecido ou revogado";
pub const MSG_NOT_FOUND: &str = "Não encontrado";
pub const MSG_ROUTE_NOT_FOUND: &str = "Rota não encontrada";
pub const MSG_MALFORMED_JSON: &str = "JSON malformado no corpo da requisição";
pub const MSG_TOO_LARGE: &str = "Corpo da requisição muito grande";
pub const MSG_INTERNAL: &str = "Erro interno do servidor";

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        let code = status.as_u16();
        let body = match &self {
            ApiError::MalformedBody => json!({"status": code, "message": MSG_MALFORMED_JSON}),
            ApiError::BodyTooLarge => json!({"status": code, "message": MSG_TOO_LARGE}),
            ApiError::Unauthorized => json!({"status": code, "message": MSG_UNAUTHORIZED}),
            ApiError::Forbidden(message) => json!({"status": code, "message": message}),
            ApiError::NotFound => json!({"status": code, "message": MSG_NOT_FOUND}),
            ApiError::RouteNotFound => json!({"status": code, "message": MSG_ROUTE_NOT_FOUND}),
            ApiError::Validation(errors) => json!({"status": code, "errors": errors}),
            ApiError::Coded { code: stable, message, .. } => {
                json!({"status": code, "message": message, "code": stable})
            }
            ApiError::Conflict => {
                tracing::error!("gave up after repeated write conflicts");
                json!({"status": code, "message": MSG_INTERNAL})
            }
            ApiError::Internal(source) => {
                tracing::error!(error = ?source, "internal error");
                json!({"status": code, "message": MSG_INTERNAL})
            }
        };
        json_response(status, &body)
    }
}
