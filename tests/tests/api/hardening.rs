//! What a hostile or busy client can send: deeply nested bodies, requests the HTTP layer refuses,
//! parallel writes to one record, and input that would outgrow a stored item. Every answer is a
//! 2xx or a 4xx in the spec's shapes, never a 500, a hang or a dead process.

use futures::future::join_all;
use reqwest::Method;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::billings::{body, create_with, setup};
use super::support::Api;

/// Sends raw bytes to the server and reads the whole answer (the server closes the connection).
async fn raw_exchange(api: &Api, request: &[u8]) -> (u16, Value) {
    let address = api.server.base_url.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    // The server may answer (and close) before reading everything sent.
    let _ = stream.write_all(request).await;
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer).await;
    let text = String::from_utf8_lossy(&answer);
    let status = text.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    assert!(head.to_ascii_lowercase().contains("content-type: application/json; charset=utf-8"), "{head}");
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

#[tokio::test]
async fn bodies_nested_beyond_the_limit_are_400_and_the_server_lives_on() {
    let api = Api::start().await;
    let nested_form = format!("tag{}=1", "[a]".repeat(100_000));
    let pushed_form = format!("tag{}=1", "[]".repeat(100_000));
    let nested_json = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
    let nested_objects = format!("{{\"tag\":{}1{}}}", "{\"a\":".repeat(100_000), "}".repeat(100_000));
    let form = "application/x-www-form-urlencoded";
    for (content_type, body) in [
        (form, &nested_form),
        (form, &pushed_form),
        ("application/json", &nested_json),
        ("application/json", &nested_objects),
    ] {
        let answer = api.raw(Method::POST, "/v1/tags", content_type, body).await.expect(400);
        assert_eq!(answer.body["message"], "Corpo da requisição aninhado demais (máximo: 32 níveis)");
    }
    // The process is still serving.
    api.post("/v1/tags", &json!({"tag": {"name": "Viva"}})).await.expect(201);
}

#[tokio::test]
async fn the_http_layers_own_refusals_are_json() {
    let api = Api::start().await;
    let long_uri = format!("GET /v1/tags?s={} HTTP/1.1\r\nHost: x\r\n\r\n", "a".repeat(70_000));
    assert_eq!(
        raw_exchange(&api, long_uri.as_bytes()).await,
        (414, json!({"status": 414, "message": "URI da requisição longa demais"}))
    );
    let many_headers: String = (0..200).map(|i| format!("X-Header-{i}: 1\r\n")).collect();
    let request = format!("GET /v1/tags HTTP/1.1\r\nHost: x\r\n{many_headers}\r\n");
    let (status, body) = raw_exchange(&api, request.as_bytes()).await;
    assert_eq!((status, body["status"].as_i64()), (431, Some(431)));
    let (status, body) = raw_exchange(&api, b"NOT AN HTTP REQUEST\r\n\r\n").await;
    assert_eq!((status, body), (400, json!({"status": 400, "message": "Requisição malformada"})));
    // A long query that HTTP accepts is the application's, answered as usual.
    let answer = api.get(&format!("/v1/tags?s={}", "a".repeat(20_000))).await.expect(200);
    assert_eq!(answer.body, json!({"tags": []}));
}

#[tokio::test]
async fn pagination_and_dates_are_read_strictly() {
    let api = Api::start().await;
    let answer = api.get("/v1/tags?per_page=99999999999999999999").await.expect(200);
    assert_eq!(answer.header("x-per-page"), Some("100"));
    let answer = api.get("/v1/tags?page=99999999999999999999").await.expect(200);
    assert_eq!(answer.body, json!({"tags": []}));
    let s = setup(&api).await;
    let mut sent = body(&s);
    sent["billing"]["due_date"] = json!("2030-3-4");
    let answer = api.post("/v1/billings", &sent).await.expect(422);
    assert_eq!(answer.errors(), ["Vencimento (due_date) não é uma data válida (AAAA-MM-DD)"]);
}

/// Thirty PATCHes of one record at once: each is applied in some order and answers 200.
async fn thirty_at_once(api: &Api, path: &str, body_of: impl Fn(usize) -> Value) -> Vec<Value> {
    let answers = join_all((0..30).map(|i| {
        let sent = body_of(i);
        async move { api.patch(path, &sent).await }
    }))
    .await;
    answers.into_iter().map(|a| a.expect(200).body).collect()
}

#[tokio::test]
async fn thirty_parallel_patches_of_one_record_all_succeed() {
    // A table of its own: moto answers a query in time proportional to the whole table, which the
    // other tests keep filling, and thirty writers in turn wait for each other's queries.
    let server = infra::testing::DevServer::start_alone(billing_api::http::rate_limit::RateLimits::OFF).await;
    let api = Api::on(server).await;
    let s = setup(&api).await;

    let tag = api.post("/v1/tags", &json!({"tag": {"name": "Disputada"}})).await.expect(201).body["id"].clone();
    let path = format!("/v1/tags/{tag}");
    let answers = thirty_at_once(&api, &path, |i| json!({"tag": {"name": format!("Disputada {i}")}})).await;
    let last = api.get(&path).await.expect(200).body;
    assert!(answers.iter().any(|a| a["name"] == last["name"]), "the stored name is one that was sent");

    let path = format!("/v1/contacts/{}", s.contact);
    let answers = thirty_at_once(&api, &path, |i| json!({"contact": {"observation": format!("Nota {i}")}})).await;
    let last = api.get(&path).await.expect(200).body;
    assert!(answers.iter().any(|a| a["observation"] == last["observation"]));

    let billing = create_with(&api, &s, json!({})).await;
    let path = format!("/v1/billings/{billing}");
    let answers = thirty_at_once(&api, &path, |i| {
        json!({"billing": {"observation": format!("Nota {i}"), "billing_items": [
            {"description": format!("Item {i}"), "quantity": 1, "amount": format!("{}.00", 10 + i)}]}})
    })
    .await;
    let last = api.get(&path).await.expect(200).body;
    assert!(answers.iter().any(|a| a["observation"] == last["observation"] && a["amount"] == last["amount"]));
    assert_eq!(last["billing_items"].as_array().unwrap().len(), 1, "one complete item set won, never a mix");
}

#[tokio::test]
async fn input_that_would_outgrow_an_item_is_422_naming_the_field() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let path = format!("/v1/contacts/{}", s.contact);
    let answer = api.patch(&path, &json!({"contact": {"observation": "x".repeat(500_000)}})).await.expect(422);
    assert_eq!(answer.errors(), ["Observação é muito longo (máximo: 10000 caracteres)"]);
    api.patch(&path, &json!({"contact": {"observation": "x".repeat(10_000)}})).await.expect(200);

    let mut sent = body(&s);
    sent["billing"]["reference"] = json!("r".repeat(500_000));
    let answer = api.post("/v1/billings", &sent).await.expect(422);
    assert_eq!(answer.errors(), ["reference é muito longo (máximo: 255 caracteres)"]);

    for (count, description) in [(3_500, "d".repeat(100)), (9_000, "d".to_owned())] {
        let items: Vec<Value> =
            (0..count).map(|_| json!({"description": description, "quantity": 1, "amount": "1.00"})).collect();
        let mut sent = body(&s);
        sent["billing"]["billing_items"] = json!(items);
        let answer = api.post("/v1/billings", &sent).await.expect(422);
        assert_eq!(answer.errors(), ["A cobrança pode ter no máximo 500 itens (billing_items)"]);
    }
    // The largest billing allowed is stored and read back whole.
    let items: Vec<Value> =
        (0..500).map(|_| json!({"description": "ç".repeat(100), "quantity": 1, "amount": "1.00"})).collect();
    let mut sent = body(&s);
    sent["billing"]["billing_items"] = json!(items);
    let created = api.post("/v1/billings", &sent).await.expect(201).body;
    assert_eq!(created["billing_items"].as_array().unwrap().len(), 500);
    assert_eq!(created["amount"], "500.00");

    // A bank billet cannot carry more than 99,999,999.99: refused at create, not in the background.
    let mut sent = body(&s);
    sent["billing"]["billing_items"] = json!([{"description": "Imóvel", "quantity": 2, "amount": "60000000.00"}]);
    let answer = api.post("/v1/billings", &sent).await.expect(422);
    assert_eq!(answer.errors(), ["Valor máximo da cobrança é 99999999.99"]);
    sent["billing"]["billing_items"] =
        json!([{"description": "Imóvel", "quantity": 9_999_999, "amount": "79228162514264337593543950335"}]);
    api.post("/v1/billings", &sent).await.expect(422);
}

#[tokio::test]
async fn a_huge_invalid_request_gets_a_short_answer() {
    let api = Api::start().await;
    let s = setup(&api).await;
    // About 760 KB of broken items: the answer names the limit, not each element.
    let items: Vec<Value> = (0..40_000).map(|_| json!({"description": "", "quantity": 0})).collect();
    let mut sent = body(&s);
    sent["billing"]["billing_items"] = json!(items);
    let answer = api.post("/v1/billings", &sent).await.expect(422);
    assert!(answer.text.len() < 2_000, "{} bytes", answer.text.len());
    // Thousands of tag ids are read no further than the limit.
    let ids: Vec<u64> = (1..=200_000).collect();
    let answer = api.patch(&format!("/v1/contacts/{}", s.contact), &json!({"contact": {"tag_ids": ids}})).await;
    let answer = answer.expect(422);
    assert!(answer.text.len() < 2_000, "{} bytes", answer.text.len());
}

#[tokio::test]
async fn fifty_parallel_creates_of_one_account_and_contact_all_succeed() {
    // Nothing every create writes is shared (ids come from blocks, counters and reference counts
    // are sharded), so on DynamoDB they do not contend; here they must all be answered and counted.
    let server = infra::testing::DevServer::start_alone(billing_api::http::rate_limit::RateLimits::OFF).await;
    let api = Api::on(server).await;
    let s = setup(&api).await;
    let sent = body(&s);
    let answers = join_all((0..50).map(|_| api.post("/v1/billings", &sent))).await;
    let mut ids: Vec<i64> = answers.into_iter().map(|a| a.expect(201).body["id"].as_i64().unwrap()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 50, "fifty distinct billings");
    let listed = api.get("/v1/billings?per_page=1").await.expect(200);
    assert_eq!(listed.header("x-total-count"), Some("50"));
    let of_contact = api.get(&format!("/v1/billings?contact_id={}&per_page=100", s.contact)).await.expect(200);
    assert_eq!(of_contact.body["billings"].as_array().unwrap().len(), 50);
    // The contact is in use by all of them.
    api.delete(&format!("/v1/contacts/{}", s.contact)).await.expect(422);
}

/// Text the validators used to let through: a control character or nothing visible in a text
/// field is a 422 naming the field; in a form or a query string, a malformed percent-escape or
/// bytes that are not UTF-8 are a 400 (as in JSON), never stored as something else.
#[tokio::test]
async fn unreadable_text_is_refused_not_stored() {
    let api = Api::start().await;
    for name in ["a\u{0}b", "sino\u{7}", "\u{1b}[31mvermelho", "\u{200B}\u{200B}", " \u{FEFF}\u{2060} "] {
        let answer = api.post("/v1/tags", &json!({"tag": {"name": name}})).await.expect(422);
        let errors = answer.errors();
        assert_eq!(errors.len(), 1, "{name:?}: {errors:?}");
        assert!(errors[0].contains("caracteres"), "{name:?}: {errors:?}");
    }
    let s = setup(&api).await;
    let mut sent = body(&s);
    sent["billing"]["observation"] = json!("linha 1\nlinha 2\u{0}");
    let answer = api.post("/v1/billings", &sent).await.expect(422);
    assert!(answer.errors().iter().any(|e| e.contains("caracteres de controle")), "{:?}", answer.errors());
    // A tab and line breaks are text; an emoji joined by a zero-width joiner is visible.
    sent["billing"]["observation"] = json!("linha 1\r\n\tlinha 2 👩\u{200D}💻");
    api.post("/v1/billings", &sent).await.expect(201);

    let form = "application/x-www-form-urlencoded";
    for body in ["tag%5Bname%5D=%G1%", "tag[name]=100%", "tag[name]=a%E7b"] {
        let answer = api.raw(Method::POST, "/v1/tags", form, body).await.expect(400);
        assert_eq!(answer.body["status"], 400, "{body}");
    }
    let answer = api.get("/v1/tags?s=%G1%").await.expect(400);
    assert_eq!(answer.body["status"], 400);
    api.get("/v1/tags?s=%C3%A7").await.expect(200);
    // Nothing of it was stored.
    assert_eq!(api.get("/v1/tags").await.expect(200).body, json!({"tags": []}));
}

/// Reads the answer to `request` on a raw connection, or `None` when the server closed it without
/// one; waits at most `wait`.
async fn answer_within(api: &Api, request: &[u8], wait: std::time::Duration) -> Option<String> {
    let address = api.server.base_url.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let _ = stream.write_all(request).await;
    let mut answer = Vec::new();
    match tokio::time::timeout(wait, stream.read_to_end(&mut answer)).await {
        Ok(_) if answer.is_empty() => None,
        Ok(_) => Some(String::from_utf8_lossy(&answer).into_owned()),
        Err(_) => panic!("no answer and no close within {wait:?}"),
    }
}

/// A slow or lying client cannot hold the server: a head that does not arrive in 10 s closes the
/// connection, a body that does not arrive in 10 s is a 408, a declared body over the limit is a
/// 413 at once.
#[tokio::test]
async fn slow_and_lying_clients_are_cut_off() {
    let api = Api::start().await;
    let auth = api.auth.clone().unwrap();
    let wait = std::time::Duration::from_secs(15);
    let head = format!("GET /v1/tags HTTP/1.1\r\nHost: x\r\nAuthorization: {auth}\r\nX-Slow: ");
    assert_eq!(answer_within(&api, head.as_bytes(), wait).await, None);

    let huge = format!(
        "POST /v1/tags HTTP/1.1\r\nHost: x\r\nAuthorization: {auth}\r\nContent-Type: application/json\r\nContent-Length: 10737418240\r\n\r\n{{\"tag\":"
    );
    let started = std::time::Instant::now();
    let answer = answer_within(&api, huge.as_bytes(), wait).await.expect("an answer");
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(started.elapsed() < std::time::Duration::from_secs(5));

    let short = format!(
        "POST /v1/tags HTTP/1.1\r\nHost: x\r\nAuthorization: {auth}\r\nContent-Type: application/json\r\nContent-Length: 100\r\nConnection: close\r\n\r\n{{\"tag\":"
    );
    let answer = answer_within(&api, short.as_bytes(), wait).await.expect("an answer");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains(r#"{"status":408,"message":"O corpo da requisição não chegou a tempo"}"#), "{answer}");
}

/// Connections beyond the server's bound get a JSON 503 with `Retry-After`, and the server goes on
/// serving once they are gone.
#[tokio::test]
async fn connections_beyond_the_bound_get_a_json_503() {
    let (_, store) = infra::testing::local_stack().await;
    let state = billing_api::app::AppState::new(store);
    let router = infra::dev_server::router(state, billing_api::auth::AuthCache::default());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(infra::dev_server::serve_bounded(listener, router, std::future::pending(), 3));
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(tokio::net::TcpStream::connect(address).await.unwrap());
    }
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    let mut extra = tokio::net::TcpStream::connect(address).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(std::time::Duration::from_secs(5), extra.read_to_end(&mut answer)).await.unwrap().unwrap();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.contains("retry-after: 2"), "{answer}");
    assert!(answer.contains(r#""code":"temporarily_unavailable""#), "{answer}");
    drop(held);
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    let answer = reqwest::get(format!("http://{address}/v1/tags")).await.unwrap();
    assert_eq!(answer.status().as_u16(), 401);
}
