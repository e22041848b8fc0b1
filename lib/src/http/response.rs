//! Responses: JSON with `application/json; charset=utf-8`, lists with the pagination headers.

use axum::body::Body;
use axum::response::Response;
use http::{header, HeaderValue, StatusCode};
use serde::Serialize;

use super::pagination::Pagination;
use crate::refusal::Made;

const JSON_CONTENT_TYPE: &str = "application/json; charset=utf-8";

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

/// A list whose search stopped at its bound carries `X-Search-Partial: true` (docs/openapi.yaml):
/// matches beyond what it read are neither counted nor listed; a narrower search finds them.
pub fn partial_search(mut response: Response, partial: bool) -> Response {
    if partial {
        response.headers_mut().insert("x-search-partial", HeaderValue::from_static("true"));
    }
    response
}

/// The next page of a list read from a cursor ([`cursor_list`]): the cursor, and the request's
/// path and query with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NextPage {
    pub cursor: String,
    pub url: String,
}

/// `{<key>: [...]}` of a list read from a cursor (the events, the deliveries): `X-Page` and
/// `X-Per-Page` as every list, and while more may follow `X-Next-Cursor` and
/// `Link: <…>; rel="next"`. Such a list has no `X-Total-Count` nor `X-Total-Pages`: counting it
/// would read what the page does not show.
pub fn cursor_list<T: Serialize>(key: &str, items: &[T], pagination: Pagination, next: Option<NextPage>) -> Response {
    let mut body = serde_json::Map::new();
    body.insert(key.to_owned(), serde_json::to_value(items).expect("list items serialize"));
    let mut response = ok(&body);
    let headers = response.headers_mut();
    headers.insert("x-page", HeaderValue::from(pagination.page as u64));
    headers.insert("x-per-page", HeaderValue::from(pagination.per_page as u64));
    if let Some(next) = next {
        if let Ok(cursor) = HeaderValue::try_from(next.cursor) {
            headers.insert("x-next-cursor", cursor);
        }
        if let Ok(link) = HeaderValue::try_from(format!("<{}>; rel=\"next\"", next.url)) {
            headers.insert(header::LINK, link);
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_list_says_where_the_next_page_starts_and_no_total() {
        let next =
            NextPage { cursor: "evt_01".to_owned(), url: "?per_page=2&type=sale.updated&cursor=evt_01".to_owned() };
        let pagination = Pagination { page: 3, per_page: 2 };
        let answer = cursor_list("events", &[1, 2], pagination, Some(next));
        let headers = answer.headers();
        assert_eq!(headers["x-next-cursor"], "evt_01");
        assert_eq!(headers["link"], "<?per_page=2&type=sale.updated&cursor=evt_01>; rel=\"next\"");
        assert_eq!((headers["x-page"].to_str().unwrap(), headers["x-per-page"].to_str().unwrap()), ("3", "2"));
        assert!(headers.get("x-total-count").is_none());
        let last = cursor_list::<u8>("events", &[], pagination, None);
        assert!(last.headers().get("x-next-cursor").is_none() && last.headers().get("link").is_none());
    }

    #[test]
    fn a_partial_search_says_so_and_a_whole_one_does_not() {
        let whole = partial_search(ok(&serde_json::json!({})), false);
        assert!(whole.headers().get("x-search-partial").is_none());
        let partial = partial_search(ok(&serde_json::json!({})), true);
        assert_eq!(partial.headers()["x-search-partial"], "true");
    }
}
