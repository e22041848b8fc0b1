//! Responses: JSON with `application/json; charset=utf-8`, lists with the pagination headers.

use axum::body::Body;
use axum::response::Response;
use http::{header, HeaderValue, StatusCode};
use serde::Serialize;

use super::pagination::Pagination;
use crate::refusal::Made;

pub const JSON_CONTENT_TYPE: &str = "application/json; charset=utf-8";

pub fn json_response<T: Serialize + ?Sized>(status: StatusCode, body: &T) -> Response {
    let bytes = serde_json::to_vec(body).expect("response bodies serialize");
    let mut response = Response::new(Body::from(bytes));
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(JSON_CONTENT_TYPE));
    response
}

pub fn ok<T: Serialize + ?Sized>(body: &T) -> Response {
    json_response(StatusCode::OK, body)
}

pub fn created<T: Serialize + ?Sized>(body: &T) -> Response {
    json_response(StatusCode::CREATED, body)
}

/// A document to show in place (`Content-Disposition: inline`), named `filename` when saved.
/// On Lambda a body of a non-text type goes out base64-encoded and API Gateway, which treats every
/// type as binary (template.yaml), sends the bytes.
pub fn file(content_type: &'static str, filename: &str, bytes: Vec<u8>) -> Response {
    let mut response = Response::new(Body::from(bytes));
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    if let Ok(disposition) = HeaderValue::try_from(format!("inline; filename=\"{filename}\"")) {
        headers.insert(header::CONTENT_DISPOSITION, disposition);
    }
    response
}

pub fn no_content() -> Response {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = StatusCode::NO_CONTENT;
    response
}

/// `{<key>: [...]}` with `X-Total-Count`, `X-Page`, `X-Per-Page` and `X-Total-Pages` (§4.1).
pub fn list<T: Serialize>(key: &str, items: &[T], pagination: Pagination, total: usize) -> Response {
    let mut body = serde_json::Map::new();
    body.insert(key.to_owned(), serde_json::to_value(items).expect("list items serialize"));
    let mut response = ok(&body);
    let headers = response.headers_mut();
    let mut set = |name: &'static str, value: usize| {
        headers.insert(name, HeaderValue::from(value as u64));
    };
    set("x-total-count", total);
    set("x-page", pagination.page);
    set("x-per-page", pagination.per_page);
    set("x-total-pages", pagination.total_pages(total));
    response
}

/// What a workflow [`Made`], as §4.7 answers it: `201` made now, `200` made before with the same
/// reference, `202` taken up again.
pub fn outcome<T, V: Serialize>(outcome: &Made<T>, view: impl FnOnce(&T) -> V) -> Response {
    let status = match outcome {
        Made::Created(_) => StatusCode::CREATED,
        Made::Existing(_) => StatusCode::OK,
        Made::Resumed(_) => StatusCode::ACCEPTED,
    };
    json_response(status, &view(outcome.value()))
}
