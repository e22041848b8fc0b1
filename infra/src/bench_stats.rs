//! What the benchmark binaries share: their settings from the environment, the quantiles of what
//! they time, and the records they make through the API.

use std::time::Duration;

/// The variable `name` read as a `T`, when it is set and reads.
pub fn setting<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

/// The `p` quantile (0 to 1) of durations sorted in ascending order (the nearest rank).
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

/// Milliseconds with one decimal.
pub fn millis(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1000.0)
}

/// `POST`s `body` to `path` of `server` as the token `auth`; the id of what it made (a `201`).
pub async fn create(
    http: &reqwest::Client,
    server: &crate::testing::DevServer,
    auth: &str,
    path: &str,
    body: serde_json::Value,
) -> anyhow::Result<serde_json::Value> {
    let answer = http.post(server.url(path)).header("Authorization", auth).json(&body).send().await?;
    anyhow::ensure!(answer.status().as_u16() == 201, "POST {path} answered {}", answer.status());
    Ok(answer.json::<serde_json::Value>().await?["id"].clone())
}

/// A payer with what a bank needs of one (a CPF and an address), as `POST /v1/contacts` takes it.
pub fn payer() -> serde_json::Value {
    serde_json::json!({"contact": {"full_name": "Maria da Silva", "cpf": "529.982.247-25",
        "address_postal_code": "01310-100", "address_street": "Avenida Paulista", "address_number": "1000",
        "address_district": "Bela Vista", "address_city": "São Paulo", "address_state": "SP"}})
}

/// Milliseconds with one decimal and their unit.
pub fn ms(d: Duration) -> String {
    format!("{} ms", millis(d))
}
