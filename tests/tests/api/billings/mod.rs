//! §2.1 and §4.2 (so far: individual create and show) and the contact-delete refusal (§4.4).
//! The tests by subject: `create` (the single representation, references, validation),
//! `changes` (cancel, pay-off, delete, and a contact's deletion), `lists` (filters, order,
//! representation, search), and what a list reads (`list_costs_by_date_and_status`,
//! `list_costs_by_value`). The helpers here are shared with the other tests' modules.

mod changes;
mod create;
mod list_costs_by_date_and_status;
mod list_costs_by_value;
mod lists;

use serde_json::{json, Value};

use super::support::{self, Api};

pub(super) struct Setup {
    pub bank_rule: i64,
    pub contact: i64,
    pub receivable: i64,
    pub payable: i64,
}

pub(super) async fn setup(api: &Api) -> Setup {
    let store = &api.server.store;
    let rule = infra::ops::create_bank_rule(store, api.account_id, "Banco simulado", "simulated", None).await.unwrap();
    let receivable = infra::ops::create_category(store, api.account_id, "Mensalidades", "receivable").await.unwrap();
    let payable = infra::ops::create_category(store, api.account_id, "Aluguel", "payable").await.unwrap();
    let contact = json!({"contact": {
        "full_name": "Maria da Silva", "cpf": "529.982.247-25", "email": "maria@example.com",
        "address_postal_code": "01310-100", "address_street": "Avenida Paulista", "address_number": "1000",
        "address_district": "Bela Vista", "address_city": "São Paulo", "address_state": "SP"}});
    let contact = api.post("/v1/contacts", &contact).await.expect(201).body["id"].as_i64().unwrap();
    Setup {
        bank_rule: rule["bank_rule"]["id"].as_i64().unwrap(),
        contact,
        receivable: receivable["bill_category"]["id"].as_i64().unwrap(),
        payable: payable["bill_category"]["id"].as_i64().unwrap(),
    }
}

pub(super) fn body(s: &Setup) -> Value {
    json!({"billing": {
        "bank_rule_id": s.bank_rule, "contact_id": s.contact, "bill_category_id": s.receivable,
        "due_date": "2030-03-02", "your_code": "ERP-77", "competence": "03/2030",
        "penalty": "2", "penalty_type": "percentage", "interest": "1", "interest_type": "percentage",
        "billing_items": [{"description": "Mensalidade", "quantity": 2, "amount": "10.25"}, {"description": "Taxa", "quantity": 1, "amount": "4.50"}],
        "amount": "1.00", "status": "paid", "billing_type": "schedule", "account_id": 999, "discount": "50", "tag_id": 1
    }})
}

pub(super) async fn create_with(api: &Api, s: &Setup, changes: Value) -> i64 {
    let mut b = body(s);
    for (key, value) in changes.as_object().unwrap() {
        b["billing"][key] = value.clone();
    }
    api.post("/v1/billings", &b).await.expect(201).body["id"].as_i64().unwrap()
}

/// A pay-off's body on a new checking account of the account.
pub(super) async fn pay_off_body(api: &Api) -> Value {
    let account = infra::ops::create_bank_account(&api.server.store, api.account_id, "Conta corrente", "checking");
    let checking = account.await.unwrap()["bank_account"]["id"].as_i64().unwrap();
    json!({"billing": {"bank_account_id": checking, "discharge_reason": "bank_deposit"}})
}

pub(super) fn ids(answer: &super::support::Answer) -> Vec<i64> {
    answer.body["billings"].as_array().unwrap().iter().map(|b| b["id"].as_i64().unwrap()).collect()
}
