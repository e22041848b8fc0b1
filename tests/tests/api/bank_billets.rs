//! §2.2, §3.2, §4.3: billets registered in the background by the simulated bank, their endpoints,
//! re-issue, what cancel and pay-off do to them, and the bank payment of the ops CLI.

use billing_api::billets::payment_codes::{barcode_is_valid, crc16_ccitt_false, digitable_line};
use billing_api::payments::boleto::bank::Reported as Payment;
use billing_api::values::{BilletId, BillingId};
use serde_json::{json, Value};

use super::billings::{body, setup, Setup};
use super::support::Api;

async fn create(api: &Api, s: &Setup) -> i64 {
    api.post("/v1/billings", &body(s)).await.expect(201).body["id"].as_i64().unwrap()
}

/// A billing whose billet the simulated bank rejected (R$ 6,66 is its rejection trigger), so it
/// has no barcode and no Pix code; its id, once registration has run.
pub(super) async fn rejected_billing(api: &Api, s: &Setup) -> i64 {
    let mut sent = body(s);
    sent["billing"]["billing_items"] = json!([{"description": "Teste", "quantity": 1, "amount": "6.66"}]);
    let id = api.post("/v1/billings", &sent).await.expect(201).body["id"].as_i64().unwrap();
    api.server.register_billets().await;
    id
}

async fn billets(api: &Api, billing: i64) -> Vec<Value> {
    let answer = api.get(&format!("/v1/billings/{billing}/bank_billets")).await.expect(200);
    answer.body["bank_billets"].as_array().unwrap().clone()
}

/// Checks the documents as a bank would: barcode check digit, the line written from it, and the
/// Pix payload's CRC.
fn assert_documents(billet: &Value) {
    let barcode = billet["barcode"].as_str().expect("a barcode");
    assert!(barcode_is_valid(barcode), "{barcode}");
    assert_eq!(billet["digitable_line"].as_str().unwrap(), digitable_line(barcode).unwrap());
    let pix = billet["pix_qr_code"].as_str().expect("a Pix code");
    let crc = crc16_ccitt_false(&pix.as_bytes()[..pix.len() - 4]);
    assert_eq!(&pix[pix.len() - 4..], format!("{crc:04X}"), "{pix}");
    assert!(pix.starts_with("000201") && pix.contains("br.gov.bcb.pix"), "{pix}");
}

#[tokio::test]
async fn a_new_billing_shows_an_opened_billet_seconds_later() {
    let api = Api::start().await;
    let s = setup(&api).await;
    api.server.start_worker();
    let id = create(&api, &s).await;
    let mut shown = Value::Null;
    for _ in 0..100 {
        shown = api.get(&format!("/v1/billings/{id}")).await.expect(200).body;
        if shown["bank_billets"][0]["status"] == "opened" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let billet = &shown["bank_billets"][0];
    assert_eq!(billet["status"], "opened", "{shown}");
    assert_eq!(shown["bank_billets"].as_array().unwrap().len(), 1);
    assert_documents(billet);
    assert_eq!((billet["amount"].as_str(), billet["due_date"].as_str()), (Some("25.00"), Some("2030-03-04")));
    let barcode = billet["barcode"].as_str().unwrap();
    assert_eq!(&barcode[0..4], "9999", "simulated bank 999, currency 9");
    assert_eq!(&barcode[9..19], "0000002500", "amount in cents");
    assert_eq!(billet["pix_qr_code"].as_str().unwrap().matches("540525.00").count(), 1);
    // Agreement = the account id (the rule has none), numbered per account and agreement.
    let agreement = format!("{:07}", api.account_id.get() % 10_000_000);
    assert_eq!(billet["agreement_code"], json!(agreement));
    assert_eq!(billet["our_sequential_number"], 1);
    assert_eq!(billet["our_number"], json!(format!("{agreement}0000000001")));
    assert_eq!(&barcode[19..], format!("000000{agreement}000000000117"));
    assert_eq!((billet["editable"].as_bool(), billet["overdue"].as_bool()), (Some(false), Some(false)));
    assert!(billet["days_overdue"].as_i64().unwrap() < 0);
    assert_eq!(billet["remittanced_at"].as_str().map(str::len), Some(10));
    assert_eq!(billet["provider_status"], "REGISTRADO");
    assert_eq!(billet["bank_rejection"], Value::Null);
    // Snapshots: the account as beneficiary, the contact as payer.
    assert_eq!(billet["recipient_full_name"], "Conta de teste");
    assert_eq!(billet["recipient_document"], "11222333000181");
    assert_eq!(billet["recipient_full_address"], "Avenida Paulista, 1000, Bela Vista, São Paulo");
    assert_eq!(billet["payer_full_name"], "Maria da Silva");
    assert_eq!(billet["payer_document"], "52998224725");
    assert_eq!(billet["payer_address_postal_code"], "01310-100");
    assert_eq!(billet["payer_address_city"], "São Paulo");
    assert_eq!(
        (billet["agency_number"].as_str(), billet["account_number"].as_str().map(str::len)),
        (Some("0001"), Some(8))
    );
    // The list and the show answer the same shape.
    let listed = billets(&api, id).await;
    assert_eq!(&listed[0], billet);
    let one = api.get(&format!("/v1/billings/{id}/bank_billets/{}", billet["id"])).await.expect(200).body;
    assert_eq!(&one, billet);
}

#[tokio::test]
async fn snapshots_stay_as_issued() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let id = create(&api, &s).await;
    assert_eq!(api.server.register_billets().await, 1);
    let patch = json!({"contact": {"full_name": "Maria Souza", "address_city": "Campinas"}});
    api.patch(&format!("/v1/contacts/{}", s.contact), &patch).await.expect(200);
    let billet = &billets(&api, id).await[0];
    assert_eq!(
        (billet["payer_full_name"].as_str(), billet["payer_address_city"].as_str()),
        (Some("Maria da Silva"), Some("São Paulo"))
    );
}

#[tokio::test]
async fn a_copy_delivered_after_its_message_was_handled_changes_nothing() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let id = create(&api, &s).await;
    assert_eq!(api.server.register_billets().await, 1);
    let before = billets(&api, id).await;
    // SQS's late copy (the fault proxy sends one 0.2-3 s after the receive): the same body again,
    // after the drain that handled it. Handled again, it is no new message and makes no billet.
    assert_eq!(api.server.deliver_again(&api.server.billet_queue_url).await, 1);
    assert_eq!(api.server.register_billets().await, 0, "a copy is the message handled before");
    assert_eq!(api.server.failed_messages(), 0);
    assert_eq!(billets(&api, id).await, before);
}

#[tokio::test]
async fn duplicate_deliveries_create_one_billet() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let id = create(&api, &s).await;
    let store = &api.server.store;
    let (account, register) = (api.account_id, billing_api::payments::registrar::register);
    // The same message three times, two of them at the same moment, then the queue's own copy.
    let (a, b) =
        tokio::join!(register(store, account, BillingId::new(id), 1), register(store, account, BillingId::new(id), 1));
    let (a, b) = (a.unwrap(), b.unwrap());
    let again = register(store, account, BillingId::new(id), 1).await.unwrap();
    assert_eq!(api.server.register_billets().await, 1);
    let listed = billets(&api, id).await;
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["status"], "opened");
    let opened = billing_api::payments::registrar::Outcome::Answered {
        billet_id: BilletId::new(listed[0]["id"].as_i64().unwrap()),
        status: billing_api::billets::BilletStatus::Opened,
    };
    assert_eq!(again, opened);
    assert!(a == opened || b == opened, "{a:?} {b:?}");
    // A message of an older generation, or for a missing billing, does nothing.
    use billing_api::payments::registrar::Outcome::Skipped;
    assert!(matches!(register(store, account, BillingId::new(id), 0).await.unwrap(), Skipped(_)));
    assert!(matches!(register(store, account, BillingId::new(99_999), 1).await.unwrap(), Skipped(_)));
    assert_eq!(billets(&api, id).await.len(), 1);
}

#[tokio::test]
async fn a_batch_reports_only_its_failed_messages() {
    use aws_lambda_events::sqs::{SqsEvent, SqsMessage};
    let api = Api::start().await;
    let s = setup(&api).await;
    let id = create(&api, &s).await;
    let mut event = SqsEvent::default();
    let bodies = [
        "not a job".to_owned(),
        json!({"kind": "billet_registration", "account_id": api.account_id, "billing_id": id}).to_string(),
        json!({"kind": "something_else"}).to_string(),
    ];
    for (n, text) in bodies.iter().enumerate() {
        let mut message = SqsMessage::default();
        message.message_id = Some(format!("m{n}"));
        message.body = Some(text.clone());
        event.records.push(message);
    }
    let response = billing_api::payments::registrar::handle_batch(&api.server.store, event).await;
    let failed: Vec<&str> = response.batch_item_failures.iter().map(|f| f.item_identifier.as_str()).collect();
    assert_eq!(failed, ["m0", "m2"]);
    assert_eq!(billets(&api, id).await[0]["status"], "opened");
}

#[tokio::test]
async fn not_found_rules() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let id = create(&api, &s).await;
    let other = create(&api, &s).await;
    api.server.register_billets().await;
    let billet = billets(&api, id).await[0]["id"].as_i64().unwrap();
    api.get(&format!("/v1/billings/{id}/bank_billets/{billet}")).await.expect(200);
    api.get("/v1/billings/99999/bank_billets").await.expect(404);
    api.get("/v1/billings/abc/bank_billets").await.expect(404);
    api.get(&format!("/v1/billings/{id}/bank_billets/99999")).await.expect(404);
    api.get(&format!("/v1/billings/{other}/bank_billets/{billet}")).await.expect(404);
    let foreign = api.other_account().await;
    foreign.get(&format!("/v1/billings/{id}/bank_billets")).await.expect(404);
    let answer = foreign.get(&format!("/v1/billings/{id}/bank_billets/{billet}")).await.expect(404);
    assert_eq!(answer.body["status"], 404);
}

#[tokio::test]
async fn a_due_date_change_reissues_the_billet() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let id = create(&api, &s).await;
    api.server.register_billets().await;
    // Registered: only the due date may change now (§2.1); the amount is ignored.
    let patch = json!({"billing": {"due_date": "2030-04-10", "billing_items": [{"description": "X", "quantity": 1, "amount": "99.00"}]}});
    let updated = api.patch(&format!("/v1/billings/{id}"), &patch).await.expect(200).body;
    assert_eq!((updated["due_date"].as_str(), updated["amount"].as_str()), (Some("2030-04-10"), Some("25.00")));
    let shown = updated["bank_billets"].as_array().unwrap();
    assert_eq!(shown.len(), 1, "the new billet is not registered yet");
    assert_eq!(shown[0]["status"], "canceled");
    assert_eq!(api.server.register_billets().await, 1);
    let listed = billets(&api, id).await;
    assert_eq!(listed.len(), 2);
    assert!(listed[0]["id"].as_i64() > listed[1]["id"].as_i64(), "newest first");
    assert_eq!((listed[0]["status"].as_str(), listed[0]["due_date"].as_str()), (Some("opened"), Some("2030-04-10")));
    assert_eq!(listed[0]["our_sequential_number"], 2);
    assert_eq!(listed[1]["status"], "canceled");
    assert_documents(&listed[0]);
    assert_ne!(listed[0]["barcode"], listed[1]["barcode"]);
    // Pagination of the list.
    let page = api.get(&format!("/v1/billings/{id}/bank_billets?per_page=1&page=2")).await.expect(200);
    assert_eq!(page.header("X-Total-Count"), Some("2"));
    assert_eq!(page.body["bank_billets"][0]["id"], listed[1]["id"]);
    // A PATCH that changes nothing leaves billets alone.
    api.patch(&format!("/v1/billings/{id}"), &json!({"billing": {"due_date": "2030-04-10"}})).await.expect(200);
    assert_eq!(api.server.register_billets().await, 0);
}

#[tokio::test]
async fn an_amount_change_before_registration_reissues_too() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let id = create(&api, &s).await;
    // Not registered yet: fully editable; the pending request is superseded.
    let patch =
        json!({"billing": {"billing_items": [{"description": "Mensalidade", "quantity": 1, "amount": "40.00"}]}});
    api.patch(&format!("/v1/billings/{id}"), &patch).await.expect(200);
    assert_eq!(api.server.register_billets().await, 2, "the old request and the new one");
    let listed = billets(&api, id).await;
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!((listed[0]["amount"].as_str(), listed[0]["status"].as_str()), (Some("40.00"), Some("opened")));
}

#[tokio::test]
async fn a_rejected_billet_keeps_the_billing_editable() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let id = rejected_billing(&api, &s).await;
    let rejected = &billets(&api, id).await[0];
    assert_eq!((rejected["status"].as_str(), rejected["editable"].as_bool()), (Some("rejected"), Some(true)));
    assert!(rejected["bank_rejection"].as_str().unwrap().starts_with("Boleto recusado"), "{rejected}");
    assert_eq!((rejected["barcode"].as_str(), rejected["pix_qr_code"].as_str()), (None, None));
    // An update without changes asks the bank again (refused again: same amount).
    api.patch(&format!("/v1/billings/{id}"), &json!({"billing": {}})).await.expect(200);
    assert_eq!(api.server.register_billets().await, 1);
    let listed = billets(&api, id).await;
    assert_eq!((listed[0]["status"].as_str(), listed[1]["status"].as_str()), (Some("rejected"), Some("canceled")));
    // Still editable: a new amount is registered.
    let patch = json!({"billing": {"billing_items": [{"description": "Teste", "quantity": 1, "amount": "7.00"}]}});
    let updated = api.patch(&format!("/v1/billings/{id}"), &patch).await.expect(200).body;
    assert_eq!(updated["amount"], "7.00");
    api.server.register_billets().await;
    let listed = billets(&api, id).await;
    assert_eq!(listed.len(), 3);
    assert_eq!((listed[0]["status"].as_str(), listed[0]["amount"].as_str()), (Some("opened"), Some("7.00")));
    assert_eq!(listed[1]["status"], "canceled");
}

#[tokio::test]
async fn a_bad_agreement_is_rejected_until_the_billing_moves_to_another_rule() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let store = &api.server.store;
    let bad =
        infra::ops::create_bank_rule(store, api.account_id, "Convênio errado", "simulated", Some("12345678".into()))
            .await
            .unwrap();
    let mut sent = body(&s);
    sent["billing"]["bank_rule_id"] = bad["bank_rule"]["id"].clone();
    let id = api.post("/v1/billings", &sent).await.expect(201).body["id"].as_i64().unwrap();
    api.server.register_billets().await;
    let rejected = &billets(&api, id).await[0];
    assert!(rejected["bank_rejection"].as_str().unwrap().starts_with("Convênio inválido"), "{rejected}");
    assert_eq!(rejected["agreement_code"], "12345678");
    api.patch(&format!("/v1/billings/{id}"), &json!({"billing": {"bank_rule_id": s.bank_rule}})).await.expect(200);
    api.server.register_billets().await;
    assert_eq!(billets(&api, id).await[0]["status"], "opened");
}

#[tokio::test]
async fn a_bank_rule_without_a_provider_rejects() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let rule = infra::ops::create_bank_rule(&api.server.store, api.account_id, "HSBC", "hsbc", None).await.unwrap();
    let mut sent = body(&s);
    sent["billing"]["bank_rule_id"] = rule["bank_rule"]["id"].clone();
    let id = api.post("/v1/billings", &sent).await.expect(201).body["id"].as_i64().unwrap();
    api.server.register_billets().await;
    let billet = &billets(&api, id).await[0];
    assert_eq!((billet["status"].as_str(), billet["bank_symbol"].as_str()), (Some("rejected"), Some("hsbc")));
    assert!(billet["bank_rejection"].as_str().unwrap().contains("hsbc"), "{billet}");
}

#[tokio::test]
async fn cancel_and_pay_off_close_the_billet() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let cancelled = create(&api, &s).await;
    let settled = create(&api, &s).await;
    api.server.register_billets().await;
    let reason = json!({"billing": {"cancellation_reason": "Serviço não prestado"}});
    let b = api.post(&format!("/v1/billings/{cancelled}/cancel"), &reason).await.expect(200).body;
    assert_eq!(b["bank_billets"][0]["status"], "canceled");
    let store = &api.server.store;
    let account = infra::ops::create_bank_account(store, api.account_id, "Conta", "checking").await.unwrap();
    let pay_off =
        json!({"billing": {"bank_account_id": account["bank_account"]["id"], "discharge_reason": "bank_deposit"}});
    let b = api.post(&format!("/v1/billings/{settled}/pay_off"), &pay_off).await.expect(200).body;
    let billet = &b["bank_billets"][0];
    assert_eq!(billet["status"], "discharged");
    assert_eq!(billet["discharged_at"].as_str().map(str::len), Some(10));
    // A closed billet is not re-registered by a late message.
    assert_eq!(api.server.register_billets().await, 0);
}

#[tokio::test]
async fn a_bank_payment_settles_billet_and_billing_and_records_an_event() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let id = create(&api, &s).await;
    let store = &api.server.store;
    let early = Payment {
        amount: "25.00".parse().unwrap(),
        paid_on: "2030-03-01".parse().unwrap(),
        fee: "1.50".parse().unwrap(),
    };
    let refused = infra::ops::pay_billing(store, api.account_id, BillingId::new(id), &early).await.unwrap_err();
    assert!(format!("{refused:#}").contains("no registered"), "{refused:#}");
    api.server.register_billets().await;
    // Paid late, with interest.
    let late = Payment {
        amount: "26.10".parse().unwrap(),
        paid_on: "2030-03-08".parse().unwrap(),
        fee: "1.50".parse().unwrap(),
    };
    let paid = infra::ops::pay_billing(store, api.account_id, BillingId::new(id), &late).await.unwrap();
    super::support::assert_amounts_are_text(&paid);
    assert_eq!((paid["status"].as_str(), paid["paid"].as_bool()), (Some("paid"), Some(true)));
    assert_eq!(paid["gw_received_with"], "bank_billet");
    assert_eq!(paid["gw_payment_date"], "2030-03-08");
    assert_eq!(
        (paid["gw_gross_amount"].as_str(), paid["gw_extra_amount"].as_str(), paid["gw_discount_amount"].as_str()),
        (Some("25.00"), Some("1.10"), Some("0.00"))
    );
    assert_eq!((paid["gw_fee_amount"].as_str(), paid["gw_net_amount"].as_str()), (Some("1.50"), Some("23.50")));
    assert_eq!(paid["display_amount_payable"], "26.10", "frozen at what was paid");
    let billet = &paid["bank_billets"][0];
    assert_eq!(billet["status"], "paid");
    assert_eq!((billet["paid_amount"].as_str(), billet["paid_at"].as_str()), (Some("26.10"), Some("2030-03-08")));
    assert_eq!(
        (billet["interest"].as_str(), billet["bank_rate"].as_str(), billet["net_amount"].as_str()),
        (Some("1.10"), Some("1.50"), Some("24.60"))
    );
    assert_eq!(billet["credit_at"], "2030-03-11", "Friday's payment is credited on Monday");
    // The API shows the same, and a second payment is refused.
    let shown = api.get(&format!("/v1/billings/{id}")).await.expect(200).body;
    assert_eq!(shown, paid);
    assert!(infra::ops::pay_billing(store, api.account_id, BillingId::new(id), &late).await.is_err());
    // Two billing.updated events: the billet registered, then paid, each carrying the billing
    // as the API showed it then.
    // (Beside them the ledger's `payment.applied`, which goes only to receivers that ask for it.)
    let events = billing_api::events::recorded(store, api.account_id).await.unwrap();
    let events: Vec<_> = events.into_iter().filter(|e| e["type"] != "payment.applied").collect();
    assert_eq!(events.len(), 2, "{events:#?}");
    assert!(events.iter().all(|e| e["type"] == "billing.updated" && e["id"].as_str().unwrap().starts_with("evt_")));
    assert_eq!(events[0]["data"]["billing"]["bank_billets"][0]["status"], "opened");
    assert_eq!(events[0]["data"]["billing"]["status"], "opened");
    assert_eq!(events[1]["data"]["billing"], paid);
}

/// Runs `tests/validators/validate.js` (third-party validators from npm, installed by
/// `infra/test`) over the billets' documents.
fn independent_validation(billets: &[Value]) -> Value {
    let input: Vec<Value> = billets
        .iter()
        .map(|b| {
            json!({"barcode": b["barcode"], "digitable_line": b["digitable_line"], "pix_qr_code": b["pix_qr_code"],
                   "amount": b["amount"], "due_date": b["due_date"]})
        })
        .collect();
    infra::testing::independent_check("validate.js", &json!(input))
}

/// Amounts and due dates whose documents the independent validators check, for the simulated bank
/// and for Itaú: amounts of several sizes, due dates decades apart.
pub(super) const VALIDATED: [(&str, &str); 4] =
    [("5.00", "2026-12-01"), ("1234.56", "2030-03-04"), ("99999.99", "2040-07-16"), ("47.10", "2049-01-05")];

#[tokio::test]
async fn documents_pass_independent_validators() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let mut ids = Vec::new();
    for (amount, due) in VALIDATED {
        let mut sent = body(&s);
        sent["billing"]["due_date"] = json!(due);
        sent["billing"]["billing_items"] = json!([{"description": "Item", "quantity": 1, "amount": amount}]);
        ids.push(api.post("/v1/billings", &sent).await.expect(201).body["id"].as_i64().unwrap());
    }
    api.server.register_billets().await;
    let mut documents = Vec::new();
    for id in ids {
        let billet = billets(&api, id).await.remove(0);
        assert_eq!(billet["status"], "opened", "{billet}");
        documents.push(billet);
    }
    let verdict = independent_validation(&documents);
    assert_eq!(verdict["ok"], true, "{verdict}");
    assert_eq!(verdict["checked"], 4);
    // The validators do refuse a wrong digit.
    let mut broken = documents[0].clone();
    let code = broken["barcode"].as_str().unwrap().to_owned();
    let last = if code.ends_with('0') { "1" } else { "0" };
    broken["barcode"] = json!(format!("{}{last}", &code[..43]));
    assert_eq!(independent_validation(&[broken])["ok"], false);
}
