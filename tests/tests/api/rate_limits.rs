//! §8 request-rate limits, on servers of their own (own table, so only their own requests count)
//! with small limits. A burst that straddles two minutes proves nothing, so each check runs within
//! one window: when the minute turned during a run, the run is made again once the next minute
//! (untouched by it) has begun.

use std::future::Future;
use std::time::Duration;

use billing_api::auth::token_record as tokens;
use billing_api::http::rate_limit::{unix_now, window, RateLimiter, RateLimits, Refusal};
use infra::testing::DevServer;

use crate::support::{Answer, Api};

/// The current window: (minute, seconds to the next one).
fn window_now() -> (i64, u64) {
    window(unix_now())
}

/// Runs `check` until one run starts and ends in the same minute.
async fn within_one_minute<F, Fut>(mut check: F) -> Vec<Answer>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Vec<Answer>>,
{
    for _ in 0..3 {
        let (started, _) = window_now();
        let answers = check().await;
        let (ended, left) = window_now();
        if ended == started {
            return answers;
        }
        tokio::time::sleep(Duration::from_secs(left)).await;
    }
    panic!("three runs in a row straddled a minute");
}

/// A new token of the API's account, as an authorized client.
async fn new_token(api: &Api, name: &str) -> Api {
    let (_, token) = tokens::create(&api.server.store, api.account_id, name).await.expect("create a token");
    api.with_auth(Some(&format!("Bearer {}", token.expose())))
}

#[track_caller]
fn assert_limited(answer: &Answer, message: &str) {
    assert_eq!(answer.status.as_u16(), 429, "expected a refusal; body: {}", answer.text);
    assert_eq!(answer.header("content-type"), Some("application/json; charset=utf-8"));
    let retry_after: u64 = answer.header("retry-after").expect("Retry-After").parse().expect("seconds");
    assert!((1..=60).contains(&retry_after), "Retry-After {retry_after}");
    let expected = format!("{message}; tente novamente em {retry_after} s");
    assert_eq!(answer.body, serde_json::json!({ "error": expected }));
}

#[tokio::test]
async fn the_token_limit_refuses_its_token_only() {
    let server = DevServer::start_limited(RateLimits { per_ip: None, per_token: Some(3) }).await;
    let api = Api::on(server).await;
    let answers = within_one_minute(|| async {
        // Two new tokens of the same account in each run, so their counters start at zero.
        let (first, second) = (new_token(&api, "site").await, new_token(&api, "ERP").await);
        let mut answers = Vec::new();
        for _ in 0..4 {
            answers.push(first.get("/v1/tags").await);
        }
        answers.push(second.get("/v1/tags").await);
        answers
    })
    .await;
    for answer in &answers[..3] {
        assert_eq!(answer.status.as_u16(), 200, "{}", answer.text);
    }
    assert_limited(&answers[3], "Limite de requisições excedido: 3 por minuto por token");
    assert_eq!(answers[4].status.as_u16(), 200, "another token has its own counter: {}", answers[4].text);
}

#[tokio::test]
async fn the_ip_limit_counts_every_token_from_the_address() {
    let server = DevServer::start_limited(RateLimits { per_ip: Some(4), per_token: Some(100) }).await;
    let first = Api::on(server).await;
    let second = first.other_account().await;
    let answers = within_one_minute(|| async {
        let mut answers = Vec::new();
        for api in [&first, &second, &first, &second, &first] {
            answers.push(api.get("/v1/tags").await);
        }
        answers
    })
    .await;
    for answer in &answers[..4] {
        assert_eq!(answer.status.as_u16(), 200, "{}", answer.text);
    }
    assert_limited(&answers[4], "Limite de requisições excedido: 4 por minuto por IP de origem");
    // Refused requests count too: the window stays closed for everyone from the address.
    assert_limited(&second.get("/v1/contacts").await, "Limite de requisições excedido: 4 por minuto por IP de origem");
}

/// §8: "300 requests per minute across all `/v1/*`" per IP, authenticated or not. A request the
/// authorizer refuses counts on its IP's window: 401 until the IP is over its limit, 429 after,
/// for a bad token and a good one alike; and a refusal costs its lookup and its counter, nothing
/// more.
#[tokio::test]
async fn requests_without_a_valid_token_count_on_their_ip_and_are_refused_cheaply() {
    let meter = std::sync::Arc::new(crate::support::ReadMeter::default());
    let server =
        DevServer::start_limited_metered(RateLimits { per_ip: Some(3), per_token: Some(100) }, meter.clone()).await;
    let api = Api::on(server).await;
    // Well formed, unknown: 48 base58 characters.
    let random_token = || {
        let alphabet: Vec<char> = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz".chars().collect();
        let token: String = (0..48).map(|_| alphabet[rand::random::<u32>() as usize % alphabet.len()]).collect();
        format!("Bearer sct_{token}")
    };
    let costs = std::sync::Mutex::new(Vec::new());
    let answers = within_one_minute(|| async {
        costs.lock().unwrap().clear();
        let mut answers = Vec::new();
        for auth in [None, Some(random_token()), None, Some(random_token()), None] {
            meter.take();
            answers.push(api.with_auth(auth.as_deref()).get("/v1/tags").await);
            costs.lock().unwrap().push(meter.take().calls());
        }
        answers.push(api.get("/v1/tags").await);
        answers
    })
    .await;
    for answer in &answers[..3] {
        assert_eq!(answer.status.as_u16(), 401, "{}", answer.text);
    }
    for answer in &answers[3..] {
        assert_limited(answer, "Limite de requisições excedido: 3 por minuto por IP de origem");
    }
    // A missing token costs the counter; an unknown one its lookup and the counter.
    assert_eq!(*costs.lock().unwrap(), [1, 2, 1, 2, 1]);
}

/// A refused read runs nothing but its counter.
#[tokio::test]
async fn a_refused_read_runs_nothing_but_its_counter() {
    let meter = std::sync::Arc::new(crate::support::ReadMeter::default());
    let server =
        DevServer::start_limited_metered(RateLimits { per_ip: Some(100), per_token: Some(2) }, meter.clone()).await;
    let api = Api::on(server).await;
    let costs = std::sync::Mutex::new(Vec::new());
    let answers = within_one_minute(|| async {
        costs.lock().unwrap().clear();
        let mut answers = Vec::new();
        for _ in 0..6 {
            meter.take();
            answers.push(api.get("/v1/billings?status=opened").await);
            costs.lock().unwrap().push(meter.take().calls());
        }
        answers
    })
    .await;
    for answer in &answers[2..] {
        assert_limited(answer, "Limite de requisições excedido: 2 por minuto por token");
    }
    // Near its limit (here from the start: a tenth of 2 is less than 10) a read is counted before
    // it runs, so no refusal runs its route: the first costs its two counters (IP and token, as
    // every request), the later ones the token's alone, the window that refuses them.
    let costs = costs.into_inner().unwrap();
    assert_eq!(costs[2..], [2, 1, 1, 1], "{costs:?}");
}

#[tokio::test]
async fn counters_start_again_with_the_next_minute() {
    let server = DevServer::start_limited(RateLimits::OFF).await;
    let limiter = RateLimiter::new(server.store.clone(), RateLimits { per_ip: Some(2), per_token: Some(2) });
    // Any fixed minute: nothing else counts on this server's table.
    let minute = 29_923_000;
    let at = |second: i64| minute * 60 + second;
    let admit = |ip: &'static str, digest: &'static str, second: i64| {
        let limiter = limiter.clone();
        async move { limiter.admit(Some(ip), Some(digest), at(second)).await.refusal() }
    };
    assert_eq!(admit("203.0.113.7", "d1", 0).await, None);
    assert_eq!(admit("203.0.113.7", "d2", 30).await, None);
    // Third request of the address in the minute: refused until the minute ends, 50 s later.
    assert_eq!(admit("203.0.113.7", "d1", 10).await, Some(Refusal { limit: 2, per: "IP de origem", retry_after: 50 }));
    // Another address is its own count; token d1 is now at 3 (refused requests count).
    assert_eq!(admit("203.0.113.8", "d1", 59).await, Some(Refusal { limit: 2, per: "token", retry_after: 1 }));
    // The next whole minute starts both counts again.
    assert_eq!(admit("203.0.113.7", "d1", 60).await, None);
    assert_eq!(admit("203.0.113.7", "d1", 61).await, None);
}

#[tokio::test]
async fn every_answer_tells_the_quota_and_what_is_left_of_the_tighter_window() {
    let server = DevServer::start_limited(RateLimits { per_ip: Some(50), per_token: Some(3) }).await;
    let api = Api::on(server).await;
    let answers = within_one_minute(|| async {
        let token = new_token(&api, "cabeçalhos").await;
        let mut answers = vec![token.get("/v1/tags").await];
        answers.push(token.post("/v1/tags", &serde_json::json!({"tag": {"name": "rl"}})).await);
        answers.push(token.get("/v1/tags/999999").await);
        answers.push(token.get("/v1/tags").await);
        answers
    })
    .await;
    let policy = r#""ip";q=50;w=60, "token";q=3;w=60"#;
    let statuses: Vec<u16> = answers.iter().map(|a| a.status.as_u16()).collect();
    assert_eq!(statuses, [200, 201, 404, 429]);
    for (answer, left) in answers.iter().zip([2, 1, 0, 0]) {
        assert_eq!(answer.header("ratelimit-policy"), Some(policy), "{}", answer.text);
        let field = answer.header("ratelimit").expect("RateLimit on every answer");
        let reset: u64 = field.rsplit_once(";t=").expect("t=").1.parse().expect("seconds");
        assert!((1..=60).contains(&reset), "{field}");
        assert_eq!(field, format!(r#""token";r={left};t={reset}"#));
    }
    assert_eq!(
        answers[3].header("retry-after"),
        answers[3].header("ratelimit").and_then(|f| f.rsplit_once(";t=")).map(|(_, t)| t)
    );
}

/// A write of a client this process saw far from its limit is counted beside its route (no round
/// trip of its own): when the count refuses it, its writes stopped at the gate, and nothing of it
/// is written.
#[tokio::test]
async fn a_write_counted_beside_its_route_writes_nothing_when_refused() {
    let meter = std::sync::Arc::new(crate::support::ReadMeter::default());
    let limits = RateLimits { per_ip: None, per_token: Some(100) };
    let api = Api::on(DevServer::start_limited_metered(limits, meter.clone()).await).await;
    let s = super::billings::setup(&api).await;
    let writes = std::sync::Mutex::new(0);
    let runs = std::sync::atomic::AtomicUsize::new(0);
    let answers = within_one_minute(|| async {
        // Each run's billing has a code of its own: a run that straddled a minute may have been
        // admitted, and written its billing.
        let run = format!("RUN-{}", runs.fetch_add(1, std::sync::atomic::Ordering::SeqCst));
        let mut body = super::billings::body(&s);
        body["billing"]["your_code"] = serde_json::json!(run);
        let client = new_token(&api, "ERP").await;
        let header = client.auth.clone().expect("a token");
        let digest =
            billing_api::auth::api_token::ApiToken::from_authorization_header(&header).expect("token").digest();
        // Another process counted the token up to its limit: this server never saw it near.
        let other = RateLimiter::new(api.server.store.clone(), limits);
        for _ in 0..100 {
            other.admit(None, Some(&digest), unix_now()).await;
        }
        meter.take();
        let refused = client.post("/v1/billings", &body).await;
        *writes.lock().unwrap() = meter.take().writes;
        let listed = new_token(&api, "leitura").await.get(&format!("/v1/billings?your_code={run}")).await;
        vec![refused, listed]
    })
    .await;
    assert_limited(&answers[0], "Limite de requisições excedido: 100 por minuto por token");
    assert_eq!(*writes.lock().unwrap(), 1, "the token's counter, and nothing of the billing");
    assert_eq!(answers[1].status.as_u16(), 200, "{}", answers[1].text);
    assert_eq!(answers[1].body["billings"], serde_json::json!([]), "no billing was written");
}
