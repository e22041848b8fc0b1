//! The payer's page: every billet's `url`, a public page with no credentials, what it
//! shows while payable and once not, its 404s, headers, cache validation and per-IP limit. The
//! page in a real browser (QR code read from a screenshot, copy buttons, accessibility) is
//! `infra/check-payer-page`.

use billing_api::payments::boleto::bank::Reported as Payment;
use billing_api::values::BillingId;
use reqwest::StatusCode;
use serde_json::{json, Value};

use super::billings::{body, setup, Setup};
use super::support::Api;

/// A page as a browser without credentials gets it.
struct Page {
    status: StatusCode,
    headers: reqwest::header::HeaderMap,
    text: String,
}

async fn open(api: &Api, path: &str, headers: &[(&str, &str)]) -> Page {
    let mut request = api.http.get(api.server.url(path));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.expect("the dev server answers");
    let (status, headers) = (response.status(), response.headers().clone());
    Page { status, headers, text: response.text().await.expect("a body") }
}

/// The path of a billet's `url` (it names the first server of the test process).
fn path_of(billet: &Value) -> String {
    let url = billet["url"].as_str().expect("the billet's url");
    let at = url.find("/pay/").expect("a payer link");
    url[at..].to_owned()
}

/// A billing with its billet registered: the billing as shown.
async fn registered(api: &Api, s: &Setup) -> Value {
    let id = api.post("/v1/billings", &body(s)).await.expect(201).body["id"].as_i64().unwrap();
    api.server.register_billets().await;
    api.get(&format!("/v1/billings/{id}")).await.expect(200).body
}

#[tokio::test]
async fn every_billet_links_to_a_public_page_with_its_codes() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let billing = registered(&api, &s).await;
    let billet = &billing["bank_billets"][0];
    let id = billing["id"].as_i64().unwrap();
    let url = billet["url"].as_str().unwrap();
    let token = url.rsplit('/').next().unwrap();
    assert!(url.starts_with("http://127.0.0.1:") && token.len() == 32, "{url}");
    // The same link wherever the billet is shown.
    let listed = api.get(&format!("/v1/billings/{id}/bank_billets")).await.expect(200).body;
    assert_eq!(listed["bank_billets"][0]["url"], billet["url"]);

    let page = open(&api, &path_of(billet), &[]).await;
    assert_eq!(page.status, 200, "{}", page.text);
    assert_eq!(page.headers["content-type"], "text/html; charset=utf-8");
    assert!(page.text.contains("lang=\"pt-BR\""));
    assert!(page.text.contains(billet["digitable_line"].as_str().unwrap()));
    assert!(page.text.contains(billet["pix_qr_code"].as_str().unwrap()));
    assert!(page.text.contains("R$\u{a0}25,00") && page.text.contains("04/03/2030"));
    // Documents masked: the contact's CPF and the account's CNPJ never whole.
    assert!(!page.text.contains(billet["payer_document"].as_str().unwrap()));
    assert!(!page.text.contains("11222333000181") && page.text.contains("**.222.333/0001-**"));
    // The printable billet from the page.
    let pdf = api.http.get(api.server.url(&format!("{}/boleto.pdf", path_of(billet)))).send().await.unwrap();
    assert_eq!(pdf.status(), 200);
    assert_eq!(pdf.headers()["content-type"], "application/pdf");
    assert!(pdf.headers()["content-disposition"].to_str().unwrap().starts_with("attachment"));
    assert_eq!(&pdf.bytes().await.unwrap()[..5], b"%PDF-");
}

#[tokio::test]
async fn the_page_is_locked_down_and_revalidated() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let billing = registered(&api, &s).await;
    let path = path_of(&billing["bank_billets"][0]);
    let page = open(&api, &path, &[]).await;
    let header = |name: &str| page.headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    let policy = header("content-security-policy");
    assert!(policy.starts_with("default-src 'none'") && policy.contains("frame-ancestors 'none'"), "{policy}");
    assert!(!policy.contains("unsafe"), "{policy}");
    assert_eq!(header("x-frame-options"), "DENY");
    assert_eq!(header("referrer-policy"), "no-referrer");
    assert_eq!(header("x-content-type-options"), "nosniff");
    assert_eq!(header("cache-control"), "private, max-age=60");
    // No third-party request: nothing on the page points at another origin.
    for outside in ["http://", "https://"] {
        let found: Vec<&str> = page.text.match_indices(outside).map(|(at, _)| &page.text[at..at + 40]).collect();
        assert!(found.iter().all(|f| f.starts_with("http://www.w3.org/2000/svg")), "{found:?}");
    }
    let etag = header("etag");
    assert!(etag.starts_with('"'), "{etag}");
    let again = open(&api, &path, &[("if-none-match", &etag)]).await;
    assert_eq!(again.status, 304);
    assert!(again.text.is_empty());
}

#[tokio::test]
async fn unknown_malformed_and_deleted_links_are_404() {
    let api = Api::start().await;
    let s = setup(&api).await;
    for path in ["/pay/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "/pay/short", "/pay/%00", "/pay/a%2Fb", "/pay/x/boleto.pdf"] {
        let page = open(&api, path, &[]).await;
        assert_eq!(page.status, 404, "{path}");
        assert_eq!(page.headers["cache-control"], "no-store", "{path}");
    }
    assert_eq!(open(&api, "/pay/", &[]).await.status, 404);
    let page = open(&api, "/pay/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", &[]).await;
    assert!(page.text.contains("Boleto não encontrado"), "{}", page.text);
    assert!(open(&api, "/pay/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/boleto.pdf", &[]).await.status == 404);
    // Once the billing is gone, so is its page (the billing's item deleted as a deletion does).
    let billing = registered(&api, &s).await;
    let path = path_of(&billing["bank_billets"][0]);
    assert_eq!(open(&api, &path, &[]).await.status, 200);
    let id = BillingId::new(billing["id"].as_i64().unwrap());
    infra::tampering::delete_billing_item(&api.server.store, api.account_id, id).await;
    assert_eq!(open(&api, &path, &[]).await.status, 404);
    assert_eq!(open(&api, &format!("{path}/boleto.pdf"), &[]).await.status, 404);
}

#[tokio::test]
async fn a_cancelled_or_paid_billet_shows_its_state_and_no_code() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let cancelled = registered(&api, &s).await;
    let id = cancelled["id"].as_i64().unwrap();
    let reason = json!({"billing": {"cancellation_reason": "Serviço não prestado"}});
    api.post(&format!("/v1/billings/{id}/cancel"), &reason).await.expect(200);
    let page = open(&api, &path_of(&cancelled["bank_billets"][0]), &[]).await;
    assert_eq!(page.status, 200);
    assert!(page.text.contains("foi cancelado"), "{}", page.text);
    let billet = &cancelled["bank_billets"][0];
    assert!(!page.text.contains(billet["digitable_line"].as_str().unwrap()));
    assert!(!page.text.contains("br.gov.bcb.pix") && !page.text.contains("<svg"));
    assert_eq!(open(&api, &format!("{}/boleto.pdf", path_of(billet)), &[]).await.status, 404);

    let paid = registered(&api, &s).await;
    let payment = Payment {
        amount: "25.00".parse().unwrap(),
        paid_on: "2030-03-01".parse().unwrap(),
        fee: "1.50".parse().unwrap(),
    };
    let id = BillingId::new(paid["id"].as_i64().unwrap());
    infra::ops::pay_billing(&api.server.store, api.account_id, id, &payment).await.unwrap();
    let page = open(&api, &path_of(&paid["bank_billets"][0]), &[]).await;
    assert!(page.text.contains("foi pago em 01/03/2030"), "{}", page.text);
    assert!(!page.text.contains(paid["bank_billets"][0]["digitable_line"].as_str().unwrap()));
}

#[tokio::test]
async fn a_reissued_billet_says_it_was_replaced() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let billing = registered(&api, &s).await;
    let id = billing["id"].as_i64().unwrap();
    api.patch(&format!("/v1/billings/{id}"), &json!({"billing": {"due_date": "2030-04-10"}})).await.expect(200);
    api.server.register_billets().await;
    let page = open(&api, &path_of(&billing["bank_billets"][0]), &[]).await;
    assert!(page.text.contains("substituído por um novo"), "{}", page.text);
    let now = api.get(&format!("/v1/billings/{id}")).await.expect(200).body;
    assert_ne!(now["bank_billets"][0]["url"], billing["bank_billets"][0]["url"]);
    let page = open(&api, &path_of(&now["bank_billets"][0]), &[]).await;
    assert!(page.text.contains("10/04/2030") && page.text.contains("Copiar código Pix"), "{}", page.text);
}

#[tokio::test]
async fn an_ip_over_its_limit_of_pages_gets_429() {
    // The spec's limits, on a table of its own: pages count 60 a minute per IP, apart from /v1.
    let api =
        Api::on(infra::testing::DevServer::start_limited(billing_api::http::rate_limit::RateLimits::SPEC).await).await;
    // At most 60 a window; two windows (the minute may turn) let 120 through, so one of 121
    // requests is refused.
    let mut refused = None;
    for _ in 0..121 {
        let page = open(&api, "/pay/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", &[]).await;
        match page.status.as_u16() {
            404 => continue,
            429 => {
                refused = Some(page);
                break;
            }
            other => panic!("{other}: {}", page.text),
        }
    }
    let page = refused.expect("a 429 within 121 requests");
    assert!(page.headers.contains_key("retry-after"));
    assert!(page.text.contains("Muitos acessos"), "{}", page.text);
    // The API's own window is untouched by the pages.
    api.get("/v1/tags").await.expect(200);
}
