//! Changes of a billing (§4.2): cancel, pay-off and delete; and the contact-delete refusal (§4.4).

use serde_json::json;

use super::support::Api;
use super::{body, create_with, setup};

#[tokio::test]
async fn a_contact_with_billings_cannot_be_deleted() {
    let api = Api::start().await;
    let s = setup(&api).await;
    api.post("/v1/billings", &body(&s)).await.expect(201);
    let answer = api.delete(&format!("/v1/contacts/{}", s.contact)).await.expect(422);
    assert_eq!(answer.errors(), ["Contato não pode ser excluído: possui cobranças"]);
    api.get(&format!("/v1/contacts/{}", s.contact)).await.expect(200);
}

#[tokio::test]
async fn cancel_needs_a_reason_and_a_cancellable_status() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let id = create_with(&api, &s, json!({})).await;
    let path = format!("/v1/billings/{id}/cancel");
    for reason in [json!(null), json!("ab"), json!("x".repeat(1001))] {
        let answer = api.post(&path, &json!({"billing": {"cancellation_reason": reason}})).await.expect(422);
        assert_eq!(answer.errors(), ["Motivo do cancelamento (cancellation_reason) deve ter de 3 a 1000 caracteres"]);
    }
    api.post("/v1/billings/999999/cancel", &json!({"billing": {"cancellation_reason": "Cliente desistiu"}}))
        .await
        .expect(404);
    let canceled =
        api.post(&path, &json!({"billing": {"cancellation_reason": "Cliente desistiu"}})).await.expect(200).body;
    assert_eq!(
        (canceled["status"].as_str(), canceled["virtual_status"].as_str()),
        (Some("canceled"), Some("canceled"))
    );
    assert!(canceled["billing_items"].is_array(), "full billing returned");
    let again = api.post(&path, &json!({"billing": {"cancellation_reason": "De novo"}})).await.expect(422);
    assert_eq!(again.errors(), ["Cobrança com status canceled não pode ser cancelada"]);
    let other = api.other_account().await;
    other.post(&path, &json!({"billing": {"cancellation_reason": "Não é minha"}})).await.expect(404);
}

#[tokio::test]
async fn pay_off_settles_on_a_bank_account_of_the_account() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let store = &api.server.store;
    let checking = infra::ops::create_bank_account(store, api.account_id, "Conta corrente", "checking").await.unwrap()
        ["bank_account"]["id"]
        .as_i64()
        .unwrap();
    let own = infra::ops::create_bank_account(store, api.account_id, "Conta do serviço", "service").await.unwrap()
        ["bank_account"]["id"]
        .as_i64()
        .unwrap();
    let id = create_with(&api, &s, json!({})).await;
    let path = format!("/v1/billings/{id}/pay_off");

    let answer = api
        .post(&path, &json!({"billing": {"bank_account_id": own, "discharge_reason": "bank_deposit"}}))
        .await
        .expect(422);
    assert_eq!(answer.errors(), ["Conta bancária do próprio serviço não pode receber baixa manual"]);
    api.post(&path, &json!({"billing": {"bank_account_id": 9999, "discharge_reason": "bank_deposit"}}))
        .await
        .expect(422);
    let answer = api
        .post(&path, &json!({"billing": {"bank_account_id": checking, "discharge_reason": "pix"}}))
        .await
        .expect(422);
    assert_eq!(answer.errors().len(), 1);
    api.post(&path, &json!({"billing": {"discharge_reason": "bank_deposit"}})).await.expect(422);

    let paid = api
        .post(&path, &json!({"billing": {"bank_account_id": checking, "discharge_reason": "payment_in_hand", "gw_gross_amount": "24.00"}}))
        .await
        .expect(200)
        .body;
    assert_eq!((paid["status"].as_str(), paid["paid"].as_bool()), (Some("discharged"), Some(true)));
    assert_eq!(paid["gw_gross_amount"], "24.00");
    assert_eq!(paid["display_amount_payable"], "24.00", "when paid: gross − discount + extra");
    let again = api
        .post(&path, &json!({"billing": {"bank_account_id": checking, "discharge_reason": "bank_deposit"}}))
        .await
        .expect(422);
    assert_eq!(again.errors(), ["Cobrança com status discharged não pode ser baixada"]);
    // The cash entry inherits the billing's category.
    let entry =
        store.get(format!("A#{}", api.account_id), "CASHENTRY#0000000001").await.unwrap().expect("a cash entry");
    assert_eq!(entry["bill_category_id"].as_n().unwrap(), &s.receivable.to_string());
    assert_eq!(entry["amount"].as_n().unwrap(), "24");
    assert_eq!(entry["bank_account_id"].as_n().unwrap(), &checking.to_string());
}

#[tokio::test]
async fn only_schedules_can_be_deleted() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let id = create_with(&api, &s, json!({})).await;
    let answer = api.delete(&format!("/v1/billings/{id}")).await.expect(422);
    assert_eq!(answer.errors(), ["Somente cobranças recorrentes (schedule) podem ser excluídas; cancele a cobrança"]);
    api.get(&format!("/v1/billings/{id}")).await.expect(200);
    api.delete("/v1/billings/999999").await.expect(404);
}
