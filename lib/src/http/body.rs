//! Request bodies: JSON, or form-encoded with Rails-style nested keys (`tag[name]=x`,
//! `contact[tag_ids][]=1`, `billing[billing_items][][description]=x`), both read into one
//! `serde_json::Value` so that every resource parses its fields once.
//!
//! Nesting is bounded: a body deeper than [`MAX_DEPTH`] levels (JSON arrays and objects, or the
//! brackets of a form key) is a 400, so no request can exhaust the stack of the parser, of the
//! value's destructor or of anything that walks it. Real bodies are four levels deep at most
//! (`billing` → `billing_items` → `[]` → `description`).

use axum::body::{Body, Bytes};
use axum::extract::{FromRequest, Request};
use http::header::{CONTENT_LENGTH, CONTENT_TYPE};
use http::HeaderMap;
use http_body_util::LengthLimitError;
use serde_json::{Map, Value};

use super::error::ApiError;
use super::fields::Fields;
use crate::refusal::{Code, Problem};

/// Levels of nesting a body may have: JSON containers, or segments of a form key (`a[b][]` is 3).
const MAX_DEPTH: usize = 32;

/// The largest body read (axum's default limit): a `Content-Length` above it is a 413 before any
/// byte is read ([`read_whole`]).
pub const MAX_BODY_BYTES: usize = 2 * 1024 * 1024;

/// How long a body may take to arrive once its head did: a client that declares a length and
/// sends less (or trickles it) gets a 408 instead of holding the request open. (On Lambda the
/// body arrives whole with the event.)
pub const BODY_READ_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// A parsed request body. Malformed JSON and bodies nested deeper than [`MAX_DEPTH`] are a 400;
/// an empty body is an empty object.
#[derive(Debug, Clone)]
pub struct RequestBody(pub Value);

impl RequestBody {
    /// The resource envelope (`{"tag": {...}}`, §4.1). Its absence is a missing required
    /// parameter: 422.
    pub fn envelope(&self, name: &str) -> Result<Fields<'_>, ApiError> {
        match self.0.get(name) {
            Some(Value::Object(fields)) => Ok(Fields::new(fields)),
            _ => Err(ApiError::validation(Problem::at(
                name,
                Code::Required,
                format!("Parâmetro obrigatório ausente: {name}"),
            ))),
        }
    }
}

impl<S: Send + Sync> FromRequest<S> for RequestBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, _: &S) -> Result<Self, Self::Rejection> {
        let is_form = req
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.trim_start().to_ascii_lowercase().starts_with("application/x-www-form-urlencoded"))
            .unwrap_or(false);
        let (parts, body) = req.into_parts();
        let bytes = read_whole(&parts.headers, body).await?;
        parse(&bytes, is_form).map(RequestBody)
    }
}

/// A request's whole body, as every reader of one takes it (the body extractor, the idempotency
/// fingerprint): a declared `Content-Length` over [`MAX_BODY_BYTES`] is a 413 before anything is
/// read, and so is a body that grows past it; one that does not arrive within
/// [`BODY_READ_TIMEOUT`] is a 408; a connection that fails mid-body (a broken chunked encoding, a
/// client gone) is a 400.
pub async fn read_whole(headers: &HeaderMap, body: Body) -> Result<Bytes, ApiError> {
    let declared = headers.get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.trim().parse::<u64>().ok());
    if declared.is_some_and(|length| length > MAX_BODY_BYTES as u64) {
        return Err(ApiError::BodyTooLarge);
    }
    match tokio::time::timeout(BODY_READ_TIMEOUT, axum::body::to_bytes(body, MAX_BODY_BYTES)).await {
        Err(_) => Err(ApiError::RequestTimeout),
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(error)) if std::error::Error::source(&error).is_some_and(|e| e.is::<LengthLimitError>()) => {
            Err(ApiError::BodyTooLarge)
        }
        Ok(Err(_)) => Err(ApiError::BadRequest(super::error::MSG_UNREADABLE_BODY)),
    }
}

pub fn parse(bytes: &[u8], is_form: bool) -> Result<Value, ApiError> {
    if is_form {
        return parse_form(bytes);
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Object(Map::new()));
    }
    // serde_json stops at 128 levels on its own (a "recursion limit" error); ours is tighter.
    let value: Value = serde_json::from_slice(bytes).map_err(|error| match error.classify() {
        serde_json::error::Category::Syntax if error.to_string().starts_with("recursion limit") => {
            ApiError::BadRequest(super::error::MSG_TOO_DEEP)
        }
        _ => ApiError::MalformedBody,
    })?;
    if depth(&value) > MAX_DEPTH {
        return Err(ApiError::BadRequest(super::error::MSG_TOO_DEEP));
    }
    Ok(value)
}

/// Levels of containers of a JSON value (a scalar is 0), counted without recursion.
fn depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut pending = vec![(value, 0)];
    while let Some((value, level)) = pending.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(map) => Box::new(map.values()),
            _ => continue,
        };
        deepest = deepest.max(level + 1);
        pending.extend(children.map(|child| (child, level + 1)));
    }
    deepest
}

#[derive(Debug, Clone, PartialEq)]
enum Segment {
    Key(String),
    Push,
}

/// Parses `application/x-www-form-urlencoded` with Rack's nesting rules; a key of more than
/// [`MAX_DEPTH`] segments is a 400.
fn parse_form(bytes: &[u8]) -> Result<Value, ApiError> {
    let mut root = Value::Object(Map::new());
    for (key, value) in super::urlencoded::decode(bytes)? {
        if let Some(segments) = segments(&key) {
            if segments.len() > MAX_DEPTH {
                return Err(ApiError::BadRequest(super::error::MSG_TOO_DEEP));
            }
            assign(&mut root, &segments, value);
        }
    }
    Ok(root)
}

/// `a[b][]` → `[Key(a), Key(b), Push]`; a key that does not follow the bracket grammar is taken
/// literally as one flat key.
fn segments(key: &str) -> Option<Vec<Segment>> {
    if key.is_empty() {
        return None;
    }
    let Some(open) = key.find('[') else {
        return Some(vec![Segment::Key(key.to_owned())]);
    };
    if open == 0 {
        return Some(vec![Segment::Key(key.to_owned())]);
    }
    let mut out = vec![Segment::Key(key[..open].to_owned())];
    let mut rest = &key[open..];
    // One segment past the limit is enough to refuse the key; the rest is not read.
    while !rest.is_empty() && out.len() <= MAX_DEPTH {
        let Some(inner) = rest.strip_prefix('[') else {
            return Some(vec![Segment::Key(key.to_owned())]);
        };
        let Some(close) = inner.find(']') else {
            return Some(vec![Segment::Key(key.to_owned())]);
        };
        let name = &inner[..close];
        out.push(if name.is_empty() { Segment::Push } else { Segment::Key(name.to_owned()) });
        rest = &inner[close + 1..];
    }
    Some(out)
}

fn assign(slot: &mut Value, path: &[Segment], value: String) {
    match path.first() {
        None => *slot = Value::String(value),
        Some(Segment::Key(key)) => {
            if !slot.is_object() {
                *slot = Value::Object(Map::new());
            }
            let child = slot.as_object_mut().expect("just made an object").entry(key.clone()).or_insert(Value::Null);
            assign(child, &path[1..], value);
        }
        Some(Segment::Push) => {
            if !slot.is_array() {
                *slot = Value::Array(Vec::new());
            }
            let array = slot.as_array_mut().expect("just made an array");
            let rest = &path[1..];
            if rest.is_empty() {
                array.push(Value::String(value));
                return;
            }
            // An array of objects: fill the last one until a key repeats, then start another.
            let reuse_last = matches!(array.last(), Some(last @ Value::Object(_)) if !has_path(last, rest));
            if !reuse_last {
                array.push(Value::Object(Map::new()));
            }
            assign(array.last_mut().expect("not empty"), rest, value);
        }
    }
}

fn has_path(value: &Value, path: &[Segment]) -> bool {
    match path.first() {
        None => true,
        Some(Segment::Key(key)) => match value.get(key) {
            Some(child) => path.len() == 1 || has_path(child, &path[1..]),
            None => false,
        },
        Some(Segment::Push) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nested_form_keys_follow_rails() {
        let v = parse_form(b"tag%5Bname%5D=VIP&tag[color]=success&account_id=9").unwrap();
        assert_eq!(v, json!({"tag": {"name": "VIP", "color": "success"}, "account_id": "9"}));
    }

    #[test]
    fn form_arrays_and_the_empty_marker() {
        let v = parse_form(b"contact[tag_ids][]=1&contact[tag_ids][]=2").unwrap();
        assert_eq!(v, json!({"contact": {"tag_ids": ["1", "2"]}}));
        let v = parse_form(b"contact[tag_ids][]=").unwrap();
        assert_eq!(v, json!({"contact": {"tag_ids": [""]}}));
    }

    #[test]
    fn form_arrays_of_objects_start_a_new_object_when_a_key_repeats() {
        let v = parse_form(
            b"b[items][][description]=A&b[items][][quantity]=1&b[items][][description]=B&b[items][][quantity]=2",
        )
        .unwrap();
        assert_eq!(
            v,
            json!({"b": {"items": [{"description": "A", "quantity": "1"}, {"description": "B", "quantity": "2"}]}})
        );
    }

    #[test]
    fn plus_and_percent_decoding_and_odd_keys() {
        let v = parse_form(b"tag[name]=Caf%C3%A9+da+manh%C3%A3&[x]=1&a[b=2&=3").unwrap();
        assert_eq!(v["tag"]["name"], "Café da manhã");
        assert_eq!(v["[x]"], "1");
        assert_eq!(v["a[b"], "2");
    }

    #[test]
    fn json_bodies() {
        assert_eq!(parse(b"  ", false).unwrap(), json!({}));
        assert_eq!(parse(br#"{"tag":{"name":"x"}}"#, false).unwrap(), json!({"tag": {"name": "x"}}));
        assert!(matches!(parse(b"{\"tag\":", false), Err(ApiError::MalformedBody)));
        assert!(matches!(parse(b"tag[name]=x", false), Err(ApiError::MalformedBody)));
    }

    fn too_deep(result: Result<Value, ApiError>) -> bool {
        matches!(result, Err(ApiError::BadRequest(message)) if message == super::super::error::MSG_TOO_DEEP)
    }

    #[test]
    fn nesting_is_bounded_in_both_formats() {
        // Exactly the limit is fine; one more level is a 400, and so are 100,000 levels.
        let json = |levels: usize| format!("{}1{}", "[".repeat(levels), "]".repeat(levels));
        assert!(parse(json(MAX_DEPTH).as_bytes(), false).is_ok());
        assert!(too_deep(parse(json(MAX_DEPTH + 1).as_bytes(), false)));
        assert!(too_deep(parse(json(100_000).as_bytes(), false)));
        let objects = format!("{}1{}", r#"{"a":"#.repeat(100_000), "}".repeat(100_000));
        assert!(too_deep(parse(objects.as_bytes(), false)));

        let form = |segment: &str, levels: usize| format!("tag{}=1", segment.repeat(levels));
        assert!(parse(form("[a]", MAX_DEPTH - 1).as_bytes(), true).is_ok());
        assert!(too_deep(parse(form("[a]", MAX_DEPTH).as_bytes(), true)));
        assert!(too_deep(parse(form("[a]", 100_000).as_bytes(), true)));
        assert!(too_deep(parse(form("[]", 100_000).as_bytes(), true)));
        assert!(too_deep(parse(form("[][a]", 50_000).as_bytes(), true)));
    }

    #[test]
    fn envelope_missing_or_not_an_object_is_422() {
        let body = RequestBody(json!({"name": "x"}));
        assert!(matches!(body.envelope("tag"), Err(ApiError::Validation(_))));
        let body = RequestBody(json!({"tag": "x"}));
        assert!(matches!(body.envelope("tag"), Err(ApiError::Validation(_))));
        let body = RequestBody(json!([1]));
        match body.envelope("tag") {
            Err(ApiError::Validation(problems)) => {
                assert_eq!(problems, [Problem::at("tag", Code::Required, "Parâmetro obrigatório ausente: tag")])
            }
            other => panic!("expected a 422, got {other:?}"),
        }
    }
}
