//! The one application error type. Its `IntoResponse` decides status and body in the spec's shapes
//! (§7) and never leaks internal text: internal errors are logged and answered with a fixed message.

use axum::response::{IntoResponse, Response};
use http::StatusCode;
use serde_json::json;

use super::response::json_response;
use crate::refusal::{Code, Problem, Refusal};
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
    /// 422 `{status, errors, details}`: validation failures and logical refusals, each message in
    /// `errors` and, with its field and code, in `details`.
    #[error("validation failed: {0:?}")]
    Validation(Vec<Problem>),
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
    /// One problem.
    pub fn validation(problem: Problem) -> Self {
        ApiError::Validation(vec![problem])
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

const MSG_UNAUTHORIZED: &str = "Token de acesso ausente, malformado, desconhecido ou revogado";
const MSG_NOT_FOUND: &str = "Não encontrado";
const MSG_ROUTE_NOT_FOUND: &str = "Rota não encontrada";
const MSG_MALFORMED_JSON: &str = "JSON malformado no corpo da requisição";
pub const MSG_TOO_LARGE: &str = "Corpo da requisição muito grande";
pub const MSG_TOO_DEEP: &str = "Corpo da requisição aninhado demais (máximo: 32 níveis)";
pub const MSG_UNREADABLE_BODY: &str = "Corpo da requisição ilegível";
const MSG_BODY_TIMEOUT: &str = "O corpo da requisição não chegou a tempo";
const MSG_CONFLICT: &str = "O registro foi alterado por outra requisição ao mesmo tempo; tente novamente em instantes";
/// The stable `code` of a 409 for contention that outlasted the retries.
const CODE_CONFLICT: &str = "conflict";
/// At most this many problems go in a 422's `errors` and `details`; a last one (code
/// `truncated`) says how many were left out.
pub const MAX_ERRORS_SHOWN: usize = 50;
/// Seconds a client waits before retrying a write that met contention.
const CONFLICT_RETRY_AFTER: u32 = 1;
pub const MSG_INTERNAL: &str = "Erro interno do servidor";
pub const MSG_UNAVAILABLE: &str =
    "Serviço temporariamente indisponível (armazenamento sobrecarregado); tente novamente em instantes";
/// The stable `code` of a 503.
pub const CODE_UNAVAILABLE: &str = "temporarily_unavailable";
/// Seconds a client waits before retrying a request the storage could not take.
const UNAVAILABLE_RETRY_AFTER: u32 = 2;

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
            ApiError::Validation(problems) => validation_body(code, &shown(problems)),
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

/// The problems of a 422, at most [`MAX_ERRORS_SHOWN`] of them: a request with thousands of broken
/// elements gets a short answer.
fn shown(problems: &[Problem]) -> Vec<Problem> {
    if problems.len() <= MAX_ERRORS_SHOWN {
        return problems.to_vec();
    }
    let mut shown = problems[..MAX_ERRORS_SHOWN - 1].to_vec();
    let left_out = problems.len() - (MAX_ERRORS_SHOWN - 1);
    shown.push(Problem::general(Code::Truncated, format!("… e mais {left_out} erros")));
    shown
}

/// A 422 in §7's shape, with `details` added (§9 allows new fields): `errors[i]` is the message
/// of `details[i]`, so clients reading only `errors` see what they always saw.
fn validation_body(status: u16, problems: &[Problem]) -> serde_json::Value {
    let errors: Vec<&str> = problems.iter().map(|p| p.message.as_str()).collect();
    let details: Vec<serde_json::Value> =
        problems.iter().map(|p| json!({"field": p.field, "code": p.code.as_str(), "message": p.message})).collect();
    json!({"status": status, "errors": errors, "details": details})
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
        let problems: Vec<Problem> = (0..5000)
            .map(|i| Problem::invalid(format!("billing_items[{i}]"), format!("Item {}: não é válido", i + 1)))
            .collect();
        let (_, body, _) = body_of(ApiError::Validation(problems)).await;
        let shown = body["errors"].as_array().unwrap();
        assert_eq!(shown.len(), MAX_ERRORS_SHOWN);
        assert_eq!(shown[0], "Item 1: não é válido");
        assert_eq!(shown[MAX_ERRORS_SHOWN - 1], "… e mais 4951 erros");
        let details = body["details"].as_array().unwrap();
        assert_eq!(details.len(), MAX_ERRORS_SHOWN);
        assert_eq!(
            details[0],
            json!({"field": "billing_items[0]", "code": "invalid", "message": "Item 1: não é válido"})
        );
        assert_eq!(
            details[MAX_ERRORS_SHOWN - 1],
            json!({"field": null, "code": "truncated", "message": "… e mais 4951 erros"})
        );
    }

    #[tokio::test]
    async fn each_message_of_errors_is_the_message_of_its_detail() {
        let problems = vec![
            Problem::blank("due_date", "Vencimento (due_date) não pode ficar em branco"),
            Problem::too_long(
                "billing_items[1].description",
                "Item 2: descrição é muito longa (máximo: 100 caracteres)",
            ),
            Problem::general(Code::NotAllowed, "Cobrança com status paid não pode ser cancelada"),
        ];
        let (status, body, _) = body_of(Refusal::Invalid(problems).into()).await;
        assert_eq!(status, 422);
        assert_eq!(
            body,
            json!({
                "status": 422,
                "errors": [
                    "Vencimento (due_date) não pode ficar em branco",
                    "Item 2: descrição é muito longa (máximo: 100 caracteres)",
                    "Cobrança com status paid não pode ser cancelada",
                ],
                "details": [
                    {"field": "due_date", "code": "blank", "message": "Vencimento (due_date) não pode ficar em branco"},
                    {"field": "billing_items[1].description", "code": "too_long", "message": "Item 2: descrição é muito longa (máximo: 100 caracteres)"},
                    {"field": null, "code": "not_allowed", "message": "Cobrança com status paid não pode ser cancelada"},
                ],
            })
        );
    }

    /// Every code the API can answer is in the table of docs/openapi.yaml, and the table lists no
    /// other: a code added to [`Code`] without its documentation fails here.
    #[test]
    fn the_codes_are_the_ones_openapi_documents() {
        let openapi = include_str!("../../../docs/openapi.yaml");
        let start = openapi.find("ValidationErrors:\n").expect("the schema of a 422");
        let schema = &openapi[start..];
        let schema = &schema[..schema.find("\n    Message:").expect("the next schema")];
        let documented: Vec<&str> =
            schema.lines().filter_map(|line| line.trim().strip_prefix("| `")?.split('`').next()).collect();
        let ours: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(documented, ours);
    }

    #[tokio::test]
    async fn every_shape_of_section_7() {
        assert_eq!(
            body_of(ApiError::validation(Problem::invalid("a", "x"))).await.1,
            json!({"status": 422, "errors": ["x"], "details": [{"field": "a", "code": "invalid", "message": "x"}]})
        );
        assert_eq!(body_of(ApiError::NotFound).await.1, json!({"status": 404, "message": MSG_NOT_FOUND}));
        assert_eq!(body_of(ApiError::Forbidden("f".into())).await.1, json!({"status": 403, "message": "f"}));
        let coded = ApiError::Coded { status: StatusCode::CONFLICT, code: "reference_reused", message: "m".into() };
        assert_eq!(body_of(coded).await.1, json!({"status": 409, "message": "m", "code": "reference_reused"}));
    }
}
