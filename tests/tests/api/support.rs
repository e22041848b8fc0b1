//! An HTTP client for the tests: every answer is read as status, headers and JSON body.

// The read meter the server's store is built with: what the cost tests count.
pub use billing_api::store::meter::{ReadMeter, Reading};
use infra::testing::{active_account, DevServer};
use reqwest::header::HeaderMap;
use reqwest::{Method, StatusCode};
use serde_json::Value;

pub struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
    pub text: String,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The `errors` of a 422 body (whose `details` are checked to say the same, [`Answer::details`]).
    pub fn errors(&self) -> Vec<String> {
        let errors: Vec<String> = self.body["errors"]
            .as_array()
            .map(|a| a.iter().map(|e| e.as_str().unwrap_or_default().to_owned()).collect())
            .unwrap_or_default();
        if !errors.is_empty() {
            self.details();
        }
        errors
    }

    /// The `details` of a 422 body as `(field, code)` pairs, in order, once checked against
    /// `errors`: one detail per message, `details[i].message == errors[i]`, a field that is a path
    /// or null, and a code of the documented set.
    #[track_caller]
    pub fn details(&self) -> Vec<(Option<String>, String)> {
        let errors = self.body["errors"].as_array().expect("a 422 has errors");
        let details = self.body["details"].as_array().expect("a 422 has details");
        assert_eq!(details.len(), errors.len(), "one detail per message: {}", self.text);
        let codes: Vec<&str> = billing_api::refusal::Code::ALL.iter().map(|c| c.as_str()).collect();
        details
            .iter()
            .zip(errors)
            .map(|(detail, message)| {
                assert_eq!(&detail["message"], message, "details[i].message is errors[i]: {}", self.text);
                let code = detail["code"].as_str().expect("a code");
                assert!(codes.contains(&code), "undocumented code {code}: {}", self.text);
                let field = match &detail["field"] {
                    Value::Null => None,
                    Value::String(path) if !path.is_empty() => Some(path.clone()),
                    other => panic!("a field is a path or null, not {other}: {}", self.text),
                };
                (field, code.to_owned())
            })
            .collect()
    }

    /// The body of a 422 as §7 first showed it (`status` and `errors`), its `details` checked and
    /// left out: for tests about the messages.
    pub fn without_details(&self) -> Value {
        self.details();
        let mut body = self.body.clone();
        body.as_object_mut().expect("a JSON object").remove("details");
        body
    }

    /// Asserts the status, and for every non-empty answer the JSON content type.
    #[track_caller]
    pub fn expect(self, status: u16) -> Self {
        assert_eq!(self.status.as_u16(), status, "unexpected status; body: {}", self.text);
        if !self.text.is_empty() {
            assert_eq!(self.header("content-type"), Some("application/json; charset=utf-8"));
        }
        self
    }
}

/// A dev server and an authenticated client of one fresh account.
pub struct Api {
    pub server: DevServer,
    pub http: reqwest::Client,
    pub account_id: billing_api::values::AccountId,
    pub auth: Option<String>,
    /// Headers sent with every request besides `Accept` and `Authorization`.
    pub headers: Vec<(String, String)>,
}

impl Api {
    pub async fn start() -> Self {
        Api::on(DevServer::start().await).await
    }

    /// A fresh account on `server`.
    pub async fn on(server: DevServer) -> Self {
        let (account_id, auth) = active_account(&server.store).await;
        Api { server, http: billing_api::config::http_client(), account_id, auth: Some(auth), headers: Vec::new() }
    }

    /// Another account on the same server.
    pub async fn other_account(&self) -> Api {
        let (account_id, auth) = active_account(&self.server.store).await;
        Api { server: self.server.clone(), http: self.http.clone(), account_id, auth: Some(auth), headers: Vec::new() }
    }

    pub fn with_auth(&self, auth: Option<&str>) -> Api {
        Api {
            server: self.server.clone(),
            http: self.http.clone(),
            account_id: self.account_id,
            auth: auth.map(str::to_owned),
            headers: self.headers.clone(),
        }
    }

    /// This client, sending `name: value` with every request too.
    pub fn with_header(&self, name: &str, value: &str) -> Api {
        let mut api = self.with_auth(self.auth.as_deref());
        api.headers.push((name.to_owned(), value.to_owned()));
        api
    }

    pub async fn send(&self, method: Method, path: &str, body: Option<(&str, Vec<u8>)>) -> Answer {
        let mut request = self.http.request(method, self.server.url(path)).header("Accept", "application/json");
        if let Some(auth) = &self.auth {
            request = request.header("Authorization", auth);
        }
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        if let Some((content_type, bytes)) = body {
            request = request.header("Content-Type", content_type).body(bytes);
        }
        let response = request.send().await.expect("request reaches the dev server");
        let status = response.status();
        let headers = response.headers().clone();
        let text = response.text().await.expect("response body");
        let body = if text.is_empty() { Value::Null } else { serde_json::from_str(&text).expect("the body is JSON") };
        Answer { status, headers, body, text }
    }

    pub async fn get(&self, path: &str) -> Answer {
        self.send(Method::GET, path, None).await
    }

    pub async fn delete(&self, path: &str) -> Answer {
        self.send(Method::DELETE, path, None).await
    }

    pub async fn json(&self, method: Method, path: &str, body: &Value) -> Answer {
        self.send(method, path, Some(("application/json", serde_json::to_vec(body).unwrap()))).await
    }

    pub async fn post(&self, path: &str, body: &Value) -> Answer {
        self.json(Method::POST, path, body).await
    }

    pub async fn patch(&self, path: &str, body: &Value) -> Answer {
        self.json(Method::PATCH, path, body).await
    }

    pub async fn form(&self, method: Method, path: &str, form: &str) -> Answer {
        self.send(method, path, Some(("application/x-www-form-urlencoded", form.as_bytes().to_vec()))).await
    }

    pub async fn raw(&self, method: Method, path: &str, content_type: &str, body: &str) -> Answer {
        self.send(method, path, Some((content_type, body.as_bytes().to_vec()))).await
    }
}

/// What `GET path` reads from the server's store (`Api::on(DevServer::start_metered(meter))`),
/// the fewest of three tries: the server's outbox hands on earlier writes' tasks on the same store
/// meanwhile.
pub async fn fewest_reads(api: &Api, meter: &ReadMeter, path: &str) -> Reading {
    let mut fewest: Option<Reading> = None;
    for _ in 0..3 {
        meter.take();
        api.get(path).await.expect(200);
        let reading = meter.take();
        if fewest.is_none_or(|f| (reading.round_trips, reading.bytes) < (f.round_trips, f.bytes)) {
            fewest = Some(reading);
        }
    }
    fewest.expect("three tries")
}

/// Fails when `value` holds an amount as a JSON number: money leaves the service as decimal
/// strings (`"51.10"`), the ops CLI's output included. An amount is a number under a key that names
/// money (`amount`, `fee`, `net`, `refunded`, `balance`, `limit`, `total`, …, or one ending so).
pub fn assert_amounts_are_text(value: &Value) {
    const MONEY: [&str; 12] = [
        "amount", "fee", "net", "refunded", "balance", "limit", "total", "gross", "discount", "interest", "price",
        "valor",
    ];
    fn walk(value: &Value, path: &str, found: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                for (key, inner) in map {
                    let here = format!("{path}.{key}");
                    if inner.is_number() && MONEY.iter().any(|m| key == m || key.ends_with(&format!("_{m}"))) {
                        found.push(format!("{here} = {inner}"));
                    }
                    walk(inner, &here, found);
                }
            }
            Value::Array(items) => items.iter().enumerate().for_each(|(i, v)| walk(v, &format!("{path}[{i}]"), found)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    walk(value, "", &mut found);
    assert!(found.is_empty(), "amounts as numbers: {found:?}");
}
