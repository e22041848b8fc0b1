//! Idempotency keys on `POST` (beyond the spec; `lib/src/idempotency.rs`): a retried request with
//! its key creates nothing twice, whatever the timing.

use serde_json::json;

use super::billings::{body, setup};
use super::support::Api;

const KEY: &str = "Idempotency-Key";

#[tokio::test]
async fn a_retry_with_the_key_replays_the_first_answer_and_creates_nothing() {
    let api = Api::start().await;
    let keyed = api.with_header(KEY, "pedido-2030-0001");
    let first = keyed.post("/v1/tags", &json!({"tag": {"name": "Retentativa"}})).await.expect(201);
    assert_eq!(first.header("idempotent-replayed"), None);
    let again = keyed.post("/v1/tags", &json!({"tag": {"name": "Retentativa"}})).await.expect(201);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(again.body, first.body, "the same answer, not a second tag");
    let tags = api.get("/v1/tags").await.expect(200);
    assert_eq!(tags.body["tags"].as_array().map(Vec::len), Some(1), "{}", tags.text);
    // Without the key the same body is a new request, refused as usual (the name is taken).
    assert_eq!(api.post("/v1/tags", &json!({"tag": {"name": "Retentativa"}})).await.status.as_u16(), 422);
}

#[tokio::test]
async fn the_key_with_another_request_is_refused_as_reused() {
    let api = Api::start().await;
    let keyed = api.with_header(KEY, "chave-reusada");
    keyed.post("/v1/tags", &json!({"tag": {"name": "Primeira"}})).await.expect(201);
    for (path, body) in
        [("/v1/tags", json!({"tag": {"name": "Segunda"}})), ("/v1/groups", json!({"group": {"name": "Primeira"}}))]
    {
        let refused = keyed.post(path, &body).await.expect(409);
        assert_eq!(refused.body["code"], "idempotency_key_reused", "{}", refused.text);
        assert_eq!(refused.body["status"], 409);
        assert!(refused.body["message"].as_str().is_some_and(|m| m.contains("Idempotency-Key")));
    }
    assert_eq!(api.get("/v1/groups").await.expect(200).body, json!({"groups": []}), "the refused request ran nothing");
}

#[tokio::test]
async fn keys_belong_to_their_account() {
    let api = Api::start().await;
    let other = api.other_account().await;
    let tag = json!({"tag": {"name": "Mesma chave"}});
    let mine = api.with_header(KEY, "k-1").post("/v1/tags", &tag).await.expect(201);
    let theirs = other.with_header(KEY, "k-1").post("/v1/tags", &tag).await.expect(201);
    assert_eq!(theirs.header("idempotent-replayed"), None, "another account's key is not this one's");
    assert_eq!(
        (mine.body["name"].clone(), theirs.body["name"].clone()),
        (tag["tag"]["name"].clone(), tag["tag"]["name"].clone())
    );
    assert_eq!(other.get("/v1/tags").await.expect(200).body["tags"].as_array().map(Vec::len), Some(1));
}

#[tokio::test]
async fn refusals_of_the_request_itself_are_kept_and_malformed_keys_are_400() {
    let api = Api::start().await;
    let keyed = api.with_header(KEY, "sem-nome");
    let first = keyed.post("/v1/tags", &json!({"tag": {}})).await.expect(422);
    let again = keyed.post("/v1/tags", &json!({"tag": {}})).await.expect(422);
    assert_eq!((again.body.clone(), again.header("idempotent-replayed")), (first.body, Some("true")));
    for key in ["", &"k".repeat(256)] {
        let refused = api.with_header(KEY, key).post("/v1/tags", &json!({"tag": {"name": "x"}})).await.expect(400);
        assert!(refused.body["message"].as_str().is_some_and(|m| m.contains("Idempotency-Key")), "{}", refused.text);
    }
    let longest = api.with_header(KEY, &"k".repeat(255)).post("/v1/tags", &json!({"tag": {"name": "x"}})).await;
    longest.expect(201);
    // Other methods ignore the header.
    let tags = api.with_header(KEY, "").get("/v1/tags").await.expect(200);
    assert_eq!(tags.header("idempotent-replayed"), None);
}

#[tokio::test]
async fn twenty_parallel_posts_with_one_key_create_one_billing() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let keyed = api.with_header(KEY, "cobranca-paralela");
    let request = body(&s);
    let answers = futures::future::join_all((0..20).map(|_| keyed.post("/v1/billings", &request))).await;
    let mut created = Vec::new();
    for answer in &answers {
        match answer.status.as_u16() {
            201 => created.push(answer.body["id"].clone()),
            409 => assert_eq!(answer.body["code"], "idempotency_key_in_use", "{}", answer.text),
            other => panic!("unexpected {other}: {}", answer.text),
        }
    }
    assert!(!created.is_empty(), "one of them ran");
    assert!(created.iter().all(|id| *id == created[0]), "every 201 is the one billing: {created:?}");
    // Once the first is done, every retry replays it.
    let replay = keyed.post("/v1/billings", &request).await.expect(201);
    assert_eq!((replay.body["id"].clone(), replay.header("idempotent-replayed")), (created[0].clone(), Some("true")));
    let list = api.get(&format!("/v1/billings?contact_id={}", s.contact)).await.expect(200);
    assert_eq!(list.body["billings"].as_array().map(Vec::len), Some(1), "{}", list.text);
}
