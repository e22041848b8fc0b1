//! §4.1 and §7: body formats, envelopes, unknown routes, error shapes.

use reqwest::Method;
use serde_json::json;

use super::support::Api;

#[tokio::test]
async fn malformed_json_is_400_in_the_message_shape() {
    let api = Api::start().await;
    for body in ["{\"tag\":", "tag[name]=x", "{\"tag\": {\"name\": \"x\",}}"] {
        let answer = api.raw(Method::POST, "/v1/tags", "application/json", body).await.expect(400);
        assert_eq!(answer.body["status"], 400);
        assert!(answer.body["message"].is_string());
    }
    api.raw(Method::PATCH, "/v1/groups/1", "application/json", "nope").await.expect(400);
}

#[tokio::test]
async fn a_missing_envelope_is_422() {
    let api = Api::start().await;
    let answer = api.post("/v1/tags", &json!({"name": "VIP"})).await.expect(422);
    assert_eq!(
        answer.body,
        json!({
            "status": 422,
            "errors": ["Parâmetro obrigatório ausente: tag"],
            "details": [{"field": "tag", "code": "required", "message": "Parâmetro obrigatório ausente: tag"}]
        })
    );
    api.post("/v1/groups", &json!({"group": "x"})).await.expect(422);
    api.raw(Method::POST, "/v1/tags", "application/json", "").await.expect(422);
    api.form(Method::POST, "/v1/tags", "name=VIP").await.expect(422);
}

#[tokio::test]
async fn unknown_routes_and_methods_are_json_404() {
    let api = Api::start().await;
    for (method, path) in [
        (Method::GET, "/v1/nothing"),
        (Method::GET, "/v2/tags"),
        (Method::GET, "/"),
        (Method::PUT, "/v1/tags/1"),
        (Method::DELETE, "/v1/tags"),
        (Method::POST, "/v1/groups/1"),
    ] {
        let answer = api.send(method.clone(), path, None).await.expect(404);
        assert_eq!(answer.body, json!({"status": 404, "message": "Rota não encontrada"}), "{method} {path}");
    }
    // Records that do not exist, or ids that are not ids, are not found.
    for path in ["/v1/tags/999999", "/v1/tags/abc", "/v1/tags/0", "/v1/tags/-1", "/v1/groups/1.5"] {
        let answer = api.get(path).await.expect(404);
        assert_eq!(answer.body, json!({"status": 404, "message": "Não encontrado"}));
    }
}

#[tokio::test]
async fn status_comes_first_and_request_ids_are_returned() {
    let api = Api::start().await;
    let answer = api.post("/v1/tags", &json!({"tag": {}})).await.expect(422);
    assert!(answer.text.starts_with("{\"status\":422"), "{}", answer.text);
    assert_eq!(answer.header("x-request-id").map(str::len), Some(32));
}
