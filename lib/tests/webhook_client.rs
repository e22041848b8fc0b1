//! The delivery client against real sockets on 127.0.0.1: every SSRF case is refused before a
//! connection is made, a self-signed certificate is refused, redirects are not followed, an
//! attempt stops at 10 seconds, and only `2xx` counts as delivered.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::post;
use axum::Router;
use billing_api::webhooks::client::{Client, Policy, ATTEMPT_TIMEOUT};

/// A TCP listener on 127.0.0.1 that counts the connections it accepts (and drops them).
async fn counting_listener() -> (u16, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepted = Arc::new(AtomicUsize::new(0));
    let counter = accepted.clone();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            counter.fetch_add(1, Ordering::SeqCst);
            drop(socket);
        }
    });
    (port, accepted)
}

/// An HTTP server on 127.0.0.1 with these routes; returns its origin.
async fn serve(router: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    origin
}

#[tokio::test]
async fn every_ssrf_case_is_refused_before_connecting() {
    let client = Client::new(Policy::STRICT).unwrap();
    let (port, accepted) = counting_listener().await;
    let cases = [
        (format!("https://127.0.0.1:{port}/hook"), "loopback"),
        (format!("https://localhost:{port}/hook"), "resolves to"),
        (format!("https://[::1]:{port}/hook"), "loopback"),
        (format!("https://[::ffff:127.0.0.1]:{port}/hook"), "loopback"),
        (format!("https://0.0.0.0:{port}/hook"), "unspecified"),
        ("https://10.0.0.1/hook".into(), "private"),
        ("https://172.16.5.4/hook".into(), "private"),
        ("https://192.168.1.1/hook".into(), "private"),
        ("https://169.254.169.254/latest/meta-data/".into(), "link-local"),
        ("https://100.64.0.1/hook".into(), "CGNAT"),
        ("https://224.0.0.1/hook".into(), "multicast"),
        ("https://[fd00::1]/hook".into(), "unique local"),
        ("https://[fe80::1]/hook".into(), "link-local"),
        ("https://[::]/hook".into(), "unspecified"),
        ("https://[ff02::1]/hook".into(), "multicast"),
        (format!("http://127.0.0.1:{port}/hook"), "https://"),
        ("http://hooks.example.com/hook".into(), "https://"),
    ];
    for (url, why) in cases {
        let answer = client.post(&url, &[], "{}".into()).await;
        assert_eq!(answer.status, None, "{url}");
        let error = answer.error.unwrap_or_default();
        assert!(error.contains("refused") && error.contains(why), "{url}: {error}");
    }
    assert_eq!(accepted.load(Ordering::SeqCst), 0, "no connection was made");
}

#[tokio::test]
async fn the_local_switch_allows_loopback_http_and_nothing_more() {
    let client = Client::new(Policy::LOCAL).unwrap();
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = hits.clone();
    let origin = serve(Router::new().route(
        "/hook",
        post(move || {
            counter.fetch_add(1, Ordering::SeqCst);
            async { StatusCode::NO_CONTENT }
        }),
    ))
    .await;
    let answer = client.post(&format!("{origin}/hook"), &[("webhook-id", "dlv_1".into())], "{}".into()).await;
    assert_eq!((answer.status, answer.error.as_deref()), (Some(204), None));
    assert!(answer.delivered());
    assert_eq!(hits.load(Ordering::SeqCst), 1);
    // Other private ranges stay refused.
    let answer = client.post("http://10.0.0.1/hook", &[], "{}".into()).await;
    assert!(answer.error.unwrap().contains("private"));
    let answer = client.post("http://169.254.169.254/latest", &[], "{}".into()).await;
    assert!(answer.error.unwrap().contains("link-local"));
}

#[tokio::test]
async fn redirects_are_not_followed_and_only_2xx_delivers() {
    let client = Client::new(Policy::LOCAL).unwrap();
    let followed = Arc::new(AtomicUsize::new(0));
    let counter = followed.clone();
    let router = Router::new()
        .route("/moved", post(|| async { (StatusCode::FOUND, [("location", "/target")]).into_response() }))
        .route(
            "/target",
            post(move || {
                counter.fetch_add(1, Ordering::SeqCst);
                async { StatusCode::OK }
            }),
        )
        .route("/broken", post(|| async { StatusCode::INTERNAL_SERVER_ERROR }));
    let origin = serve(router).await;
    let answer = client.post(&format!("{origin}/moved"), &[], "{}".into()).await;
    assert_eq!(answer.status, Some(302));
    assert!(answer.error.unwrap().contains("redirects are not followed"));
    assert_eq!(followed.load(Ordering::SeqCst), 0);
    let answer = client.post(&format!("{origin}/broken"), &[], "{}".into()).await;
    assert_eq!((answer.status, answer.error.as_deref()), (Some(500), Some("answered 500 Internal Server Error")));
}

#[tokio::test]
async fn a_self_signed_certificate_is_refused() {
    use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".into(), "127.0.0.1".into()]).unwrap();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(certified.key_pair.serialize_der()));
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![certified.cert.der().clone()], key)
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let handshakes = Arc::new(AtomicUsize::new(0));
    let completed = handshakes.clone();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            if acceptor.accept(socket).await.is_ok() {
                completed.fetch_add(1, Ordering::SeqCst);
            }
        }
    });
    // Loopback is let through by the local switch, so the certificate is what refuses it.
    let client = Client::new(Policy::LOCAL).unwrap();
    let answer = client.post(&format!("https://127.0.0.1:{port}/hook"), &[], "{}".into()).await;
    assert_eq!(answer.status, None);
    let error = answer.error.unwrap();
    assert!(error.to_lowercase().contains("certificate"), "{error}");
    assert_eq!(handshakes.load(Ordering::SeqCst), 0, "the TLS handshake never completed");
}

#[tokio::test]
async fn an_attempt_stops_after_ten_seconds() {
    let client = Client::new(Policy::LOCAL).unwrap();
    let router = Router::new().route(
        "/slow",
        post(|| async {
            tokio::time::sleep(Duration::from_secs(30)).await;
            StatusCode::OK
        }),
    );
    let origin = serve(router).await;
    let answer = client.post(&format!("{origin}/slow"), &[], "{}".into()).await;
    assert_eq!(answer.status, None);
    assert_eq!(answer.error.as_deref(), Some("timed out after 10 s"));
    assert!(answer.latency >= ATTEMPT_TIMEOUT && answer.latency < ATTEMPT_TIMEOUT + Duration::from_secs(5));
}
