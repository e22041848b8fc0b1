//! The signature of a delivery (Standard Webhooks, with this API's header names).
//!
//! The signed content is `<delivery id>.<timestamp>.<body>`; the signature is
//! `v1,<base64 of HMAC-SHA256(key, content)>`, the key being the decoded part of the receiver's
//! secret after `whsec_`. While a rotated secret still signs (24 hours), the header carries one
//! signature per secret, separated by a space, the newest first. The same three values travel as
//! `X-Service-Delivery` / `X-Service-Timestamp` / `X-Service-Signature` and as `webhook-id` /
//! `webhook-timestamp` / `webhook-signature`, so an off-the-shelf Standard Webhooks library
//! verifies a delivery as it comes.

use aws_lc_rs::{constant_time, hmac};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;

use super::secrets::SigningSecret;

const DELIVERY_HEADER: &str = "X-Service-Delivery";
const TIMESTAMP_HEADER: &str = "X-Service-Timestamp";
const SIGNATURE_HEADER: &str = "X-Service-Signature";

/// One signature: `v1,<base64>`.
pub fn sign(secret: &SigningSecret, delivery_id: &str, timestamp: i64, body: &str) -> String {
    let key = hmac::Key::new(hmac::HMAC_SHA256, &secret.key());
    let tag = hmac::sign(&key, format!("{delivery_id}.{timestamp}.{body}").as_bytes());
    format!("v1,{}", STANDARD.encode(tag.as_ref()))
}

/// The signature header's value: one signature per secret, space-separated.
pub fn signature_header(secrets: &[SigningSecret], delivery_id: &str, timestamp: i64, body: &str) -> String {
    secrets.iter().map(|secret| sign(secret, delivery_id, timestamp, body)).collect::<Vec<_>>().join(" ")
}

/// Every header a delivery carries besides `Content-Type`.
pub fn headers(delivery_id: &str, timestamp: i64, signature: &str) -> [(&'static str, String); 6] {
    [
        (DELIVERY_HEADER, delivery_id.to_owned()),
        (TIMESTAMP_HEADER, timestamp.to_string()),
        (SIGNATURE_HEADER, signature.to_owned()),
        ("webhook-id", delivery_id.to_owned()),
        ("webhook-timestamp", timestamp.to_string()),
        ("webhook-signature", signature.to_owned()),
    ]
}

/// Whether one of the header's signatures is `secret`'s over this content (what a receiver
/// checks, besides the timestamp being recent).
pub fn verify(secret: &SigningSecret, delivery_id: &str, timestamp: i64, body: &str, header: &str) -> bool {
    let expected = sign(secret, delivery_id, timestamp, body);
    header.split(' ').any(|given| constant_time::verify_slices_are_equal(given.as_bytes(), expected.as_bytes()).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_standard_webhooks_example_signs_alike() {
        // The example of the Standard Webhooks specification.
        let secret = SigningSecret::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        let (id, timestamp, body) = ("msg_p5jXN8AQM9LWM0D4loKWxJek", 1_614_265_330, r#"{"test": 2432232314}"#);
        assert_eq!(sign(&secret, id, timestamp, body), "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
        assert!(verify(&secret, id, timestamp, body, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="));
        assert!(!verify(&secret, id, timestamp + 1, body, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="));
    }

    #[test]
    fn a_rotation_signs_with_both_secrets() {
        let (new, old) = (SigningSecret::generate(), SigningSecret::generate());
        let header = signature_header(&[new.clone(), old.clone()], "dlv_1", 1_700_000_000, "{}");
        assert_eq!(header.split(' ').count(), 2);
        assert!(verify(&new, "dlv_1", 1_700_000_000, "{}", &header));
        assert!(verify(&old, "dlv_1", 1_700_000_000, "{}", &header));
        assert!(!verify(&SigningSecret::generate(), "dlv_1", 1_700_000_000, "{}", &header));
        let all = headers("dlv_1", 1_700_000_000, &header);
        assert_eq!(all[0], ("X-Service-Delivery", "dlv_1".to_owned()));
        assert_eq!(all[5].1, header);
    }
}
