//! Request bodies: JSON, or form-encoded with Rails-style nested keys (`tag[name]=x`,
//! `contact[tag_ids][]=1`, `billing[billing_items][][description]=x`), both read into one
//! `serde_json::Value` so that every resource parses its fields once.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use http::header::CONTENT_TYPE;
use serde_json::{Map, Value};

use super::error::ApiError;
use super::fields::Fields;

/// A parsed request body. Malformed JSON is a 400; an empty body is an empty object.
#[derive(Debug, Clone)]
pub struct RequestBody(pub Value);

impl RequestBody {
    /// The resource envelope (`{"tag": {...}}`, §4.1). Its absence is a missing required
    /// parameter: 422.
    pub fn envelope(&self, name: &str) -> Result<Fields<'_>, ApiError> {
        match self.0.get(name) {
            Some(Value::Object(fields)) => Ok(Fields::new(fields)),
            _ => Err(ApiError::validation(format!("Parâmetro obrigatório ausente: {name}"))),
        }
    }
}

impl<S: Send + Sync> FromRequest<S> for RequestBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let is_form = req
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.trim_start().to_ascii_lowercase().starts_with("application/x-www-form-urlencoded"))
            .unwrap_or(false);
        let bytes = Bytes::from_request(req, state).await.map_err(|_| ApiError::BodyTooLarge)?;
        parse(&bytes, is_form).map(RequestBody)
    }
}

pub fn parse(bytes: &[u8], is_form: bool) -> Result<Value, ApiError> {
    if is_form {
        return Ok(parse_form(bytes));
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Object(Map::new()));
    }
    serde_json::from_slice(bytes).map_err(|_| ApiError::MalformedBody)
}

#[derive(Debug, Clone, PartialEq)]
enum Segment {
    Key(String),
    Push,
}

/// Parses `application/x-www-form-urlencoded` with Rack's nesting rules.
pub fn parse_form(bytes: &[u8]) -> Value {
    let mut root = Value::Object(Map::new());
    for (key, value) in form_urlencoded::parse(bytes) {
        if let Some(segments) = segments(&key) {
            assign(&mut root, &segments, value.into_owned());
        }
    }
    root
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
    while !rest.is_empty() {
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
        let v = parse_form(b"tag%5Bname%5D=VIP&tag[color]=success&account_id=9");
        assert_eq!(v, json!({"tag": {"name": "VIP", "color": "success"}, "account_id": "9"}));
    }

    #[test]
    fn form_arrays_and_the_empty_marker() {
        let v = parse_form(b"contact[tag_ids][]=1&contact[tag_ids][]=2");
        assert_eq!(v, json!({"contact": {"tag_ids": ["1", "2"]}}));
        let v = parse_form(b"contact[tag_ids][]=");
        assert_eq!(v, json!({"contact": {"tag_ids": [""]}}));
    }

    #[test]
    fn form_arrays_of_objects_start_a_new_object_when_a_key_repeats() {
        let v = parse_form(
            b"b[items][][description]=A&b[items][][quantity]=1&b[items][][description]=B&b[items][][quantity]=2",
        );
        assert_eq!(
            v,
            json!({"b": {"items": [{"description": "A", "quantity": "1"}, {"description": "B", "quantity": "2"}]}})
        );
    }

    #[test]
    fn plus_and_percent_decoding_and_odd_keys() {
        let v = parse_form(b"tag[name]=Caf%C3%A9+da+manh%C3%A3&[x]=1&a[b=2&=3");
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

    #[test]
    fn envelope_missing_or_not_an_object_is_422() {
        let body = RequestBody(json!({"name": "x"}));
        assert!(matches!(body.envelope("tag"), Err(ApiError::Validation(_))));
        let body = RequestBody(json!({"tag": "x"}));
        assert!(matches!(body.envelope("tag"), Err(ApiError::Validation(_))));
        let body = RequestBody(json!([1]));
        assert!(matches!(body.envelope("tag"), Err(ApiError::Validation(_))));
    }
}
