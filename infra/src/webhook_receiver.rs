//! A webhook receiver on 127.0.0.1 for tests and the benchmark: it records every request and
//! answers scripted statuses; and the check of deliveries with the published Standard Webhooks
//! implementation (`tests/validators/verify-webhooks.js`, npm).

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use axum::Router;
use serde_json::{json, Value};

/// One request a receiver got.
#[derive(Clone, Debug)]
pub struct Received {
    pub headers: BTreeMap<String, String>,
    pub body: String,
    /// When it arrived.
    pub at: Instant,
}

impl Received {
    pub fn header(&self, name: &str) -> &str {
        self.headers.get(name).map(String::as_str).unwrap_or_default()
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).expect("a JSON body")
    }
}

/// A webhook receiver on 127.0.0.1: it records every request and answers the next scripted
/// status, or `otherwise` once the script is used up.
#[derive(Clone)]
pub struct Receiver {
    pub url: String,
    got: Arc<Mutex<Vec<Received>>>,
    script: Arc<Mutex<VecDeque<u16>>>,
    otherwise: Arc<Mutex<u16>>,
}

impl Receiver {
    pub async fn start(script: &[u16], otherwise: u16) -> Receiver {
        let receiver = Receiver {
            url: String::new(),
            got: Arc::default(),
            script: Arc::new(Mutex::new(script.iter().copied().collect())),
            otherwise: Arc::new(Mutex::new(otherwise)),
        };
        let state = receiver.clone();
        let app = Router::new().route(
            "/hooks/billing",
            post(move |headers: HeaderMap, body: String| {
                let state = state.clone();
                async move {
                    let headers = headers
                        .iter()
                        .map(|(k, v)| (k.as_str().to_owned(), v.to_str().unwrap_or_default().to_owned()))
                        .collect();
                    state.got.lock().unwrap().push(Received { headers, body, at: Instant::now() });
                    let next = state.script.lock().unwrap().pop_front();
                    StatusCode::from_u16(next.unwrap_or(*state.otherwise.lock().unwrap())).unwrap()
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hooks/billing", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Receiver { url, ..receiver }
    }

    pub fn answer_from_now_on(&self, status: u16) {
        *self.otherwise.lock().unwrap() = status;
    }

    pub fn received(&self) -> Vec<Received> {
        self.got.lock().unwrap().clone()
    }

    /// Waits (up to 30 s) until a request satisfies `wanted`; returns it.
    pub async fn wait_for(&self, what: &str, wanted: impl Fn(&Received) -> bool) -> Received {
        for _ in 0..300 {
            if let Some(found) = self.received().into_iter().find(|r| wanted(r)) {
                return found;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("{what}: not received; got {:#?}", self.received());
    }

    /// Waits (up to 60 s) until it has received `count` requests. A delivery whose sender failed
    /// (the fault proxy's throttles and 500s past the retries) comes back after the test queue's
    /// 30 s visibility timeout, so one such failure must fit in the wait.
    pub async fn wait_for_count(&self, count: usize) -> Vec<Received> {
        for _ in 0..600 {
            let got = self.received();
            if got.len() >= count {
                return got;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("expected {count} requests; got {:#?}", self.received());
    }
}

/// Checks deliveries with the Standard Webhooks package from npm: (secret, request) pairs.
pub fn standard_webhooks_verify(deliveries: &[(&str, &Received)]) -> Value {
    let input: Vec<Value> =
        deliveries.iter().map(|(secret, r)| json!({"secret": secret, "headers": r.headers, "body": r.body})).collect();
    crate::testing::independent_check("verify-webhooks.js", &json!(input))
}
