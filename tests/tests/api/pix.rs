//! Pix on an Itaú billet, against the local PSP (infra/local/psp.py) behind Prism's
//! contract proxy, both started by infra/test: the billing's charge with a due date made with its
//! billet, paid by Pix late (what the PSP asks by the standard's modalities is the billing's
//! `amount_payable` that day), the webhook over mutual TLS confirmed against the PSP and applied
//! once, the boleto written off in the next remittance, a payment by both channels kept to
//! refund, the charge removed on a cancel, and the reconciliation finding what no webhook brought.

use billing_api::billings::compute::compute;
use billing_api::billings::model::Billing;
use billing_api::payments::pix::charge;
use billing_api::store::records;
use billing_api::values::{AccountId, BankRuleId, BilletId, BillingId};
use chrono::NaiveDate;
use serde_json::{json, Value};

use super::bank_files::{billet, files, remit, return_file, returned, upload, AGREEMENT};
use super::billings::{body, pay_off_body, setup, Setup};
use super::printable_billets::{decode, download, Scratch};
use super::support::Api;

/// An Itaú rule linked to the local PSP (through Prism), its webhook registered at this test
/// server's Pix listener; the rule's id.
pub(super) async fn itau_with_pix(api: &Api) -> Value {
    let store = &api.server.store;
    let rule = infra::ops::create_bank_rule(store, api.account_id, "Itaú com Pix", "itau", Some(AGREEMENT.into()));
    let rule = rule.await.unwrap()["bank_rule"]["id"].clone();
    let credentials =
        infra::ops::pix::local_credentials(&pix_key(api.account_id)).expect("the local PSP (infra/test starts it)");
    let secrets = aws_sdk_secretsmanager::Client::new(&api.server.config);
    let base = api.server.pix_webhook_url.clone().expect("the Pix webhook listener (LOCAL_PIX_CERTS)");
    let rule_id = BankRuleId::new(rule.as_i64().unwrap());
    let url =
        infra::ops::pix::link_psp(store, &secrets, api.account_id, rule_id, &credentials, Some(&base)).await.unwrap();
    assert_eq!(url, Some(format!("{base}/pix/{}/{}", api.account_id, rule_id)));
    rule
}

/// The account's Pix key at the local PSP: a random key (UUID) of its own.
fn pix_key(account: AccountId) -> String {
    format!("00000000-0000-4000-8000-{:012}", account.get())
}

/// A billing on `rule` (the setup's: 25.00, 2 % fine, 1 % interest a month), its billet issued.
pub(super) async fn billing_on(api: &Api, s: &Setup, rule: &Value) -> i64 {
    let mut sent = body(s);
    sent["billing"]["bank_rule_id"] = rule.clone();
    let id = api.post("/v1/billings", &sent).await.expect(201).body["id"].as_i64().unwrap();
    api.server.register_billets().await;
    id
}

async fn stored(api: &Api, id: i64) -> Billing {
    records::find::<Billing>(&api.server.store, api.account_id, BillingId::new(id)).await.unwrap().unwrap()
}

/// The reconciliation of this account's PSP link over every Pix the local PSP could hold (payments
/// dated on billings' due dates, years ahead).
async fn reconcile(api: &Api, rule: &Value) -> billing_api::payments::pix::Reconciled {
    let rule = BankRuleId::new(rule.as_i64().unwrap());
    let link = billing_api::payments::pix::Link {
        account_id: api.account_id,
        bank_rule_id: rule,
        secret_id: billing_api::payments::pix::psp::secret_id(api.account_id, rule),
    };
    let at = |text: &str| chrono::DateTime::parse_from_rfc3339(text).unwrap();
    let (from, to) = (at("2020-01-01T00:00:00-03:00"), at("2035-12-31T23:59:59-03:00"));
    billing_api::payments::pix::reconcile(&api.server.store, &link, from, to).await.unwrap()
}

/// Billing `billing`'s Pix paid today at the local PSP (`notify: false`: its webhook is lost).
pub(super) async fn pay_today(api: &Api, billing: i64, notify: bool) -> Value {
    let pay = infra::ops::pix::pay(
        &api.server.store,
        api.account_id,
        Some(BillingId::new(billing)),
        None,
        None,
        None,
        notify,
    );
    Box::pin(pay).await.unwrap()
}

fn day(text: &str) -> NaiveDate {
    text.parse().unwrap()
}

#[tokio::test]
async fn an_itau_billet_carries_a_pix_charge_paid_late_by_pix_applied_once_and_written_off() {
    // On the shared table: Pix charges and PSP secrets are named by account and billing, unique
    // in one table (a server on a table of its own would name another test's).
    let api = Api::start().await;
    let files = files().await;
    let receiver = infra::webhook_receiver::Receiver::start(&[], 200).await;
    api.server.webhook_ops().add(api.account_id, &receiver.url).await.unwrap();
    api.server.start_webhooks(billing_api::webhooks::Schedule(vec![std::time::Duration::from_secs(1); 3]));
    let rule = itau_with_pix(&api).await;
    let s = setup(&api).await;
    let id = billing_on(&api, &s, &rule).await;

    // The billet carries the PSP's dynamic code, and the charge the billing's terms.
    let issued = billet(&api, id).await;
    assert_eq!(issued["status"], "pending_remittance", "{issued}");
    let code = issued["pix_qr_code"].as_str().expect("a Pix code on an Itaú billet").to_owned();
    let charged = infra::ops::pix::local_charge(api.account_id, BillingId::new(id)).await.unwrap().expect("the charge");
    assert_eq!(charged["pixCopiaECola"], code);
    assert_eq!(charged["status"], "ATIVA");
    assert_eq!(charged["calendario"]["dataDeVencimento"], issued["due_date"]);
    assert_eq!(charged["valor"]["original"], issued["amount"]);
    assert_eq!(charged["valor"]["multa"], json!({"modalidade": 2, "valorPerc": "2.00"}));
    assert_eq!(charged["valor"]["juros"], json!({"modalidade": 3, "valorPerc": "1.00"}));
    assert_eq!(charged["devedor"]["cpf"], "52998224725");
    // Its QR code, as the payer scans it from the printed billet.
    let png = download(&api, &format!("/v1/billings/{id}/bank_billets/{}/pix.png", issued["id"])).await;
    let scratch = Scratch::new();
    std::fs::write(scratch.file("pix.png"), &png.bytes).unwrap();
    assert_eq!(decode(&scratch.file("pix.png")), vec![code.clone()]);

    // The boleto goes to the bank in a file.
    remit(&api, &files).await;
    assert_eq!(billet(&api, id).await["status"], "remittanced");

    // Paid by Pix ten days late: the PSP asks what the billing's amount_payable is that day.
    let due = day(issued["due_date"].as_str().unwrap());
    let paid_on = due + chrono::Duration::days(10);
    let payable = compute(&stored(&api, id).await.terms(), paid_on).amount_payable;
    let paid =
        // By the billet the payer's code came from, as `infra/ops pix pay --billet` does.
        infra::ops::pix::pay(&api.server.store, api.account_id, None, Some(BilletId::new(issued["id"].as_i64().unwrap())), Some(paid_on), None, true)
            .await
            .unwrap();
    assert_eq!(paid["valor"].as_str().unwrap().parse::<rust_decimal::Decimal>().unwrap(), payable, "{paid}");
    assert_eq!(paid["webhook"], 200, "the webhook took it: {paid}");
    let shown = api.get(&format!("/v1/billings/{id}")).await.expect(200).body;
    assert_eq!((shown["status"].as_str(), shown["gw_received_with"].as_str()), (Some("paid"), Some("pix")), "{shown}");
    let settled = &shown["bank_billets"][0];
    assert_eq!(settled["status"], "paid");
    assert_eq!(settled["paid_amount"], paid["valor"]);
    assert_eq!(settled["paid_at"], paid_on.to_string());
    assert!(payable > rust_decimal::Decimal::from(25) && settled["interest"] != "0.00", "{settled}");
    let delivered =
        receiver.wait_for("the Pix payment", |r| r.json()["data"]["billing"]["status"] == "paid").await.json();
    assert_eq!(
        (delivered["type"].as_str(), delivered["data"]["billing"]["id"].as_i64()),
        (Some("billing.updated"), Some(id))
    );

    // The boleto is written off in the next remittance.
    remit(&api, &files).await;
    let listed = infra::ops::remittance::list_remittances(&api.server.store, api.account_id, 10).await.unwrap();
    let newest = &listed["remittances"][0];
    assert_eq!(newest["titles"][0]["instruction"], "write_off", "{listed}");
    assert_eq!(newest["titles"][0]["billing_id"], id);

    // The same webhook again, and the reconciliation after it: applied once.
    let e2e = paid["endToEndId"].as_str().unwrap();
    let again = infra::ops::pix::notify_again(e2e).await.unwrap();
    assert_eq!(again["webhook"], 200, "{again}");
    let reconciled = reconcile(&api, &rule).await;
    assert_eq!((reconciled.settled, reconciled.already), (0, 1), "{reconciled:?}");
    assert_eq!(api.get(&format!("/v1/billings/{id}")).await.expect(200).body, shown);
    let refunds = infra::ops::payments_to_refund(&api.server.store, api.account_id, 10).await.unwrap();
    assert_eq!(refunds["to_refund"], json!([]));
}

#[tokio::test]
async fn both_channels_paid_keep_one_to_refund_and_what_the_psp_does_not_confirm_changes_nothing() {
    let api = Api::start().await;
    let files = files().await;
    let rule = itau_with_pix(&api).await;
    let s = setup(&api).await;
    let both = billing_on(&api, &s, &rule).await;
    remit(&api, &files).await;
    // Its boleto still waits for the next remittance, and its Pix charge is live already.
    let lost = billing_on(&api, &s, &rule).await;
    assert_eq!(billet(&api, lost).await["status"], "pending_remittance");
    let base = api.server.pix_webhook_url.clone().unwrap();
    let hook = format!("{base}/pix/{}/{}/pix", api.account_id, rule);

    // Terms the API Pix cannot say are refused at create, naming the field.
    let mut odd = body(&s);
    odd["billing"]["bank_rule_id"] = rule.clone();
    odd["billing"]["interest"] = json!("1.00");
    odd["billing"]["interest_type"] = json!("fixed_amount");
    let refused = api.post("/v1/billings", &odd).await.expect(422).body;
    assert!(refused.to_string().contains("interest"), "{refused}");

    // A call without the PSP's client certificate does not get past the handshake.
    let bare = infra::ops::pix::psp_side_client(false).unwrap();
    assert!(bare.post(&hook).json(&json!({"pix": []})).send().await.is_err(), "no certificate, no call");

    // A forged call (the PSP knows no such Pix) changes nothing.
    let psp = infra::ops::pix::psp_side_client(true).unwrap();
    let before = api.get(&format!("/v1/billings/{lost}")).await.expect(200).body;
    let forged = json!({"pix": [{"endToEndId": "E00000000203011111111111111111AB", "valor": "25.00",
        "txid": charge::txid(api.account_id, BillingId::new(lost)), "horario": "2030-03-04T10:00:00Z"}]});
    let answer = psp.post(&hook).json(&forged).send().await.unwrap();
    assert_eq!(answer.status(), 200);
    assert_eq!(answer.json::<Value>().await.unwrap()["pix"][0]["result"], "unconfirmed");
    assert_eq!(api.get(&format!("/v1/billings/{lost}")).await.expect(200).body, before);
    // Not the API Pix's shape: 400.
    assert_eq!(psp.post(&hook).body("{\"pix\": 1}").send().await.unwrap().status(), 400);

    // Paid by Pix (its webhook still on its way) and at the bank: the return file settles it, the
    // Pix that arrives next is kept to refund, listed once.
    let first = billet(&api, both).await;
    let pay = |billing: i64, notify: bool| pay_today(&api, billing, notify);
    let by_pix = pay(both, false).await;
    let paid_at_bank = [returned(both, &first, "06", json!({"paid": 2500, "fee": 150, "occurred": "05032030"}))];
    Box::pin(upload(&api, &files, &return_file("both.ret", &paid_at_bank))).await.unwrap();
    let settled = api.get(&format!("/v1/billings/{both}")).await.expect(200).body;
    assert_eq!(settled["gw_received_with"], "bank_billet");
    let late = infra::ops::pix::notify_again(by_pix["endToEndId"].as_str().unwrap()).await.unwrap();
    assert_eq!(late["webhook"], 200);
    infra::ops::pix::notify_again(by_pix["endToEndId"].as_str().unwrap()).await.unwrap();
    let refunds = infra::ops::payments_to_refund(&api.server.store, api.account_id, 10).await.unwrap();
    let kept = refunds["to_refund"].as_array().unwrap();
    assert_eq!(kept.len(), 1, "{refunds}");
    assert_eq!((kept[0]["channel"].as_str(), kept[0]["billing_id"].as_i64()), (Some("pix"), Some(both)));
    assert_eq!(api.get(&format!("/v1/billings/{both}")).await.expect(200).body, settled);
    // The receivers are told once: payment.to_refund.
    let events = billing_api::events::recorded(&api.server.store, api.account_id).await.unwrap();
    let told: Vec<_> = events.iter().filter(|e| e["type"] == "payment.to_refund").collect();
    assert_eq!(told.len(), 1, "{told:?}");
    assert_eq!(told[0]["data"]["payment"]["channel"], "pix");
    assert_eq!(told[0]["data"]["payment"]["amount"], by_pix["valor"]);
    // The account gives it back through the PSP: the devolucao is recorded and the list empties.
    let e2e = by_pix["endToEndId"].as_str().unwrap();
    let given = Box::pin(infra::ops::pix::refund(&api.server.store, api.account_id, e2e, None)).await.unwrap();
    assert_eq!(given["payment"]["refunded_amount"], by_pix["valor"], "{given}");
    let refunds = infra::ops::payments_to_refund(&api.server.store, api.account_id, 10).await.unwrap();
    assert_eq!(refunds["to_refund"], json!([]));
    assert!(
        Box::pin(infra::ops::pix::refund(&api.server.store, api.account_id, e2e, None)).await.is_err(),
        "nothing left"
    );

    // Paid while the service was down (its webhook lost): the reconciliation applies it, once.
    pay(lost, false).await;
    assert_eq!(api.get(&format!("/v1/billings/{lost}")).await.expect(200).body["status"], "opened");
    let once = Box::pin(reconcile(&api, &rule)).await;
    assert_eq!((once.settled, once.already), (1, 1), "the lost one applied, the double one kept before: {once:?}");
    let twice = Box::pin(reconcile(&api, &rule)).await;
    assert_eq!((twice.settled, twice.already), (0, 2), "{twice:?}");
    let settled_lost = api.get(&format!("/v1/billings/{lost}")).await.expect(200).body;
    assert_eq!(
        (settled_lost["status"].as_str(), settled_lost["gw_received_with"].as_str()),
        (Some("paid"), Some("pix"))
    );
    assert_eq!(settled_lost["bank_billets"][0]["status"], "paid");
    // Its boleto never goes to the bank: the next remittance drops its registration.
    remit(&api, &files).await;
    let listed = infra::ops::remittance::list_remittances(&api.server.store, api.account_id, 10).await.unwrap();
    let titles = listed["remittances"].as_array().unwrap().iter().flat_map(|r| r["titles"].as_array().unwrap().clone());
    assert_eq!(titles.filter(|t| t["billing_id"] == lost).count(), 0, "{listed}");

    // The boleto payment asked the charge's removal; the PSP keeps it as it is (paid by Pix).
    assert_eq!(api.server.remove_pix_charges().await, 1);
    let paid_twice = infra::ops::pix::local_charge(api.account_id, BillingId::new(both)).await.unwrap().unwrap();
    assert_eq!(paid_twice["status"], "CONCLUIDA", "paid by Pix: its charge is done, not removed");
}

#[tokio::test]
async fn a_new_due_date_revises_the_charge_and_a_pay_off_or_cancel_removes_it() {
    let api = Api::start().await;
    let rule = itau_with_pix(&api).await;
    let s = setup(&api).await;
    let cancelled = billing_on(&api, &s, &rule).await;
    let pay = |billing: i64, notify: bool| pay_today(&api, billing, notify);

    // Paid off by the account first: the pay-off is the manual channel's payment, and a Pix paid
    // meanwhile is kept to refund.
    let discharged = billing_on(&api, &s, &rule).await;
    let meanwhile = pay(discharged, false).await;
    api.post(&format!("/v1/billings/{discharged}/pay_off"), &pay_off_body(&api).await).await.expect(200);
    let after_pay_off = Box::pin(reconcile(&api, &rule)).await;
    assert_eq!((after_pay_off.settled, after_pay_off.to_refund), (0, 1), "{after_pay_off:?}");
    let refunds = infra::ops::payments_to_refund(&api.server.store, api.account_id, 10).await.unwrap();
    assert_eq!(refunds["to_refund"][0]["provider_id"], meanwhile["endToEndId"], "{refunds}");
    assert_eq!(api.get(&format!("/v1/billings/{discharged}")).await.expect(200).body["status"], "discharged");

    // A new due date re-issues the billet, and revises the same charge (PATCH): one txid, a
    // revision more, the new date, and the new billet carries its code.
    let before = infra::ops::pix::local_charge(api.account_id, BillingId::new(cancelled)).await.unwrap().unwrap();
    let changed = json!({"billing": {"due_date": "2030-04-01"}});
    api.patch(&format!("/v1/billings/{cancelled}"), &changed).await.expect(200);
    api.server.register_billets().await;
    let revised = infra::ops::pix::local_charge(api.account_id, BillingId::new(cancelled)).await.unwrap().unwrap();
    assert_eq!(revised["revisao"].as_i64(), before["revisao"].as_i64().map(|r| r + 1), "{revised}");
    assert_eq!(revised["calendario"]["dataDeVencimento"], "2030-04-01");
    let reissued = billet(&api, cancelled).await;
    // The registration tried again (its answer's write lost, its message delivered again): the
    // charge carries these terms already, so it gets no revision more.
    let account = api.account_id;
    let (billing_id, billet_id) = (BillingId::new(cancelled), BilletId::new(reissued["id"].as_i64().unwrap()));
    let stored = records::find::<Billing>(&api.server.store, account, billing_id).await.unwrap().unwrap();
    let stored_billet = billing_api::billets::model::find(&api.server.store, account, billing_id, billet_id);
    let stored_billet = stored_billet.await.unwrap().unwrap();
    let again = billing_api::payments::pix::charge_billet(account, &stored, &stored_billet).await.unwrap();
    assert_eq!(again.as_deref(), revised["pixCopiaECola"].as_str());
    let after_again = infra::ops::pix::local_charge(api.account_id, billing_id).await.unwrap().unwrap();
    assert_eq!(after_again["revisao"], revised["revisao"], "{after_again}");
    assert_eq!(
        (reissued["due_date"].as_str(), reissued["pix_qr_code"].as_str()),
        (Some("2030-04-01"), revised["pixCopiaECola"].as_str())
    );

    // A cancel and a boleto payment remove their charges at the PSP.
    api.post(&format!("/v1/billings/{cancelled}/cancel"), &json!({"billing": {"cancellation_reason": "Desistência"}}))
        .await
        .expect(200);
    // Two removals asked: the pay-off's (the PSP keeps that charge as it is: paid by Pix) and the
    // cancel's.
    assert_eq!(api.server.remove_pix_charges().await, 2);
    let removed = infra::ops::pix::local_charge(api.account_id, BillingId::new(cancelled)).await.unwrap().unwrap();
    assert_eq!(removed["status"], charge::REMOVED);
}

/// The PSP's API over mutual TLS, as a real PSP's (the local PSP's TLS port, not through Prism):
/// the client certificate the PSP issued gets a token and registers a webhook; a certificate the
/// PSP did not issue does not get past the handshake.
#[tokio::test]
async fn the_psp_is_reached_over_mutual_tls_with_its_certificate_only() {
    let tls = std::env::var("LOCAL_PSP_TLS_URL").expect("the local PSP (infra/test starts it)");
    let certs = std::path::PathBuf::from(std::env::var("LOCAL_PIX_CERTS").unwrap());
    let read = |name: &str| std::fs::read_to_string(certs.join(name)).unwrap();
    let mut credentials = infra::ops::pix::local_credentials("00000000-0000-4000-8000-999999999999").unwrap();
    credentials.base_url = tls.clone();
    credentials.token_url = Some(format!("{tls}/oauth/token"));
    let psp = billing_api::payments::pix::psp::Psp::new(credentials.clone()).unwrap();
    psp.register_webhook("https://127.0.0.1:9/pix/1/1").await.expect("over mutual TLS");
    assert_eq!(psp.calls(), 2, "a token, then the call");
    psp.register_webhook("https://127.0.0.1:9/pix/1/1").await.unwrap();
    assert_eq!(psp.calls(), 3, "the token is kept");

    let stranger = billing_api::payments::pix::psp::Credentials {
        certificate: read("stranger.pem"),
        private_key: read("stranger.key"),
        ..credentials
    };
    let refused =
        billing_api::payments::pix::psp::Psp::new(stranger).unwrap().register_webhook("https://127.0.0.1:9/x").await;
    assert!(
        matches!(refused, Err(billing_api::payments::pix::psp::PspError::Unavailable(_))),
        "a certificate the PSP did not issue: {refused:?}"
    );
}

/// A card payment of an Itaú billet with a Pix charge, once the boleto is at the bank:
/// the billing is paid by card, the boleto written off in the next remittance, the Pix charge
/// removed at the PSP.
#[tokio::test]
async fn a_card_payment_writes_the_boleto_off_and_removes_the_pix_charge() {
    let api = Api::start().await;
    let gateway = infra::ops::gateway::local_setup(&api.server.store, api.account_id, &api.server.base_url, false);
    assert!(gateway.await.unwrap().is_some(), "localstripe (infra/test starts it)");
    let files = files().await;
    let rule = itau_with_pix(&api).await;
    let s = setup(&api).await;
    let id = billing_on(&api, &s, &rule).await;
    remit(&api, &files).await;
    let issued = billet(&api, id).await;
    assert_eq!(issued["status"], "remittanced", "{issued}");
    let token = issued["url"].as_str().unwrap().rsplit('/').next().unwrap().to_owned();

    let root = api.server.url("");
    let done = infra::testing::pay_by_card(&reqwest::Client::new(), &root, &token, "4242424242424242").await;
    assert_eq!(done.as_ref().map(|d| d["stage"].clone()), Some(json!("succeeded")), "{done:?}");
    let shown = api.get(&format!("/v1/billings/{id}")).await.expect(200).body;
    assert_eq!((shown["status"].as_str(), shown["gw_received_with"].as_str()), (Some("paid"), Some("credit_card")));

    remit(&api, &files).await;
    let listed = infra::ops::remittance::list_remittances(&api.server.store, api.account_id, 10).await.unwrap();
    assert_eq!(listed["remittances"][0]["titles"][0]["instruction"], "write_off", "{listed}");
    assert_eq!(listed["remittances"][0]["titles"][0]["billing_id"], id);
    assert!(api.server.remove_pix_charges().await >= 1);
    let removed = infra::ops::pix::local_charge(api.account_id, BillingId::new(id)).await.unwrap().unwrap();
    assert_eq!(removed["status"], charge::REMOVED);
}
