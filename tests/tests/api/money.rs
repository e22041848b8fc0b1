//! The money view: the ledger over the API (`GET /v1/payments`, one payment, refunds, the daily
//! statement), over a day of payments by Pix (through the local PSP behind Prism), at the bank (a
//! return file) and by pay-off, a Pix told twice, refunds partial and whole, and ten refunds of one
//! payment at once. Card refunds are in `gateway`.

use billing_api::values::{today, AccountId, BankRuleId, Money};
use serde_json::{json, Value};

use super::bank_files::{billet, files, remit, return_file, returned, upload};
use super::billings::{pay_off_body, setup};
use super::pix::{billing_on, itau_with_pix, pay_today};
use super::support::Api;

fn money(value: &Value) -> Money {
    Money::parse(value.as_str().unwrap_or_else(|| panic!("an amount as a string: {value}"))).unwrap()
}

fn sum(payments: &[Value], field: &str) -> Money {
    payments.iter().map(|p| money(&p[field])).sum()
}

/// Every payment of a list, following its cursor `per_page` at a time.
async fn all_pages(api: &Api, query: &str, per_page: usize) -> Vec<Value> {
    let mut found = Vec::new();
    let mut path = format!("/v1/payments?{query}&per_page={per_page}");
    loop {
        let page = api.get(&path).await.expect(200);
        let payments = page.body["payments"].as_array().unwrap().clone();
        assert!(payments.len() <= per_page);
        found.extend(payments);
        match page.header("x-next-cursor") {
            Some(cursor) => path = format!("/v1/payments?{query}&per_page={per_page}&cursor={cursor}"),
            None => return found,
        }
    }
}

/// The Pix `e2e` as the account's PSP has it (its `devolucoes`).
async fn at_psp(account: AccountId, rule: &Value, e2e: &str) -> billing_api::payments::pix::psp::Received {
    let secret = billing_api::payments::pix::psp::secret_id(account, BankRuleId::new(rule.as_i64().unwrap()));
    let client = billing_api::payments::pix::psp::registry().client(&secret).await.unwrap();
    client.pix(e2e).await.unwrap().expect("the PSP knows the Pix")
}

/// A day's payments: by Pix (its webhook told twice), at the bank with a fee, and by hand.
struct Day {
    rule: Value,
    pix: Value,
    billings: [i64; 3],
    /// As listed: the pay-off, the boleto, the Pix.
    payments: Vec<Value>,
}

async fn a_day_of_payments(api: &Api) -> Day {
    let files = files().await;
    let rule = itau_with_pix(api).await;
    let s = setup(api).await;
    let billings =
        [billing_on(api, &s, &rule).await, billing_on(api, &s, &rule).await, billing_on(api, &s, &rule).await];
    let [by_pix, at_bank, paid_off] = billings;
    let pix = pay_today(api, by_pix, true).await;
    infra::ops::pix::notify_again(pix["endToEndId"].as_str().unwrap()).await.unwrap();
    remit(api, &files).await;
    let first = billet(api, at_bank).await;
    let occurred = today().format("%d%m%Y").to_string();
    let line = [returned(at_bank, &first, "06", json!({"paid": 2500, "fee": 150, "occurred": occurred}))];
    Box::pin(upload(api, &files, &return_file("money.ret", &line))).await.unwrap();
    api.post(&format!("/v1/billings/{paid_off}/pay_off"), &pay_off_body(api).await).await.expect(200);
    let payments = api.get("/v1/payments").await.expect(200).body["payments"].as_array().unwrap().clone();
    Day { rule, pix, billings, payments }
}

#[tokio::test]
async fn a_day_of_payments_is_listed_refunded_once_and_summed_to_the_cent() {
    // On the shared table: Pix charges and PSP secrets are named by account and billing.
    let api = Api::start().await;
    let receiver = infra::webhook_receiver::Receiver::start(&[], 200).await;
    let asked = Some(vec!["payment.applied".to_owned(), "payment.refunded".to_owned()]);
    api.server.webhook_ops().register(api.account_id, &receiver.url, asked).await.unwrap();
    api.server.start_webhooks(billing_api::webhooks::Schedule(vec![std::time::Duration::from_secs(1); 3]));
    let day = a_day_of_payments(&api).await;
    listed_with_their_billings_figures(&api, &day).await;
    refunded_once(&api, &day).await;

    // The receiver that asked for the ledger's events has each payment and each refund once.
    let events = billing_api::events::recorded(&api.server.store, api.account_id).await.unwrap();
    let count = |kind: &str| events.iter().filter(|e| e["type"] == kind).count();
    assert_eq!((count("payment.applied"), count("payment.refunded")), (3, 3));
    let told = receiver.wait_for("a refund", |r| r.json()["type"] == "payment.refunded").await.json();
    assert!(told["data"]["payment"]["id"].is_string(), "{told}");
    refusals(&api, &day).await;
    ops_amounts_are_text(&api, &day).await;
}

/// The ops CLI's payment commands print money as the API does: decimal strings.
async fn ops_amounts_are_text(api: &Api, day: &Day) {
    use infra::ops::payment::{run, PaymentCommand};
    let (account, id) = (api.account_id, day.payments[0]["id"].as_str().unwrap().to_owned());
    let list = PaymentCommand::List {
        account,
        channel: None,
        status: None,
        paid_from: None,
        paid_to: None,
        credited_from: None,
        credited_to: None,
        limit: 10,
        cursor: None,
    };
    let refund = PaymentCommand::Refund {
        account,
        id: id.clone(),
        amount: Some(Money::from_cents(110)),
        reason: "troco".into(),
    };
    let commands = [
        list,
        PaymentCommand::Show { account, id },
        PaymentCommand::Refunds { account, limit: 10 },
        PaymentCommand::Statement { account, date: today() },
        refund,
    ];
    for command in commands {
        let printed = run(&api.server.store, command).await.unwrap();
        super::support::assert_amounts_are_text(&printed);
    }
    let listed = run(&api.server.store, PaymentCommand::Refunds { account, limit: 10 }).await.unwrap();
    assert_eq!(listed["to_refund"], json!([]), "none kept to refund this day");
}

async fn listed_with_their_billings_figures(api: &Api, day: &Day) {
    let payments = &day.payments;
    let channels: Vec<&str> = payments.iter().map(|p| p["channel"].as_str().unwrap()).collect();
    assert_eq!(channels, ["manual", "bank_billet", "pix"], "{payments:?}");
    for payment in payments {
        let billing = api.get(&format!("/v1/billings/{}", payment["billing_id"])).await.expect(200).body;
        assert_eq!(payment["status"], "applied");
        assert_eq!(payment["fee_amount"], billing["gw_fee_amount"], "{payment} {billing}");
        assert_eq!(money(&payment["net_amount"]), money(&payment["amount"]) - money(&payment["fee_amount"]));
        assert_eq!(payment["paid_on"], json!(today()));
        let one = api.get(&format!("/v1/payments/{}", payment["id"].as_str().unwrap())).await.expect(200).body;
        assert_eq!(&one, payment);
    }
    let boleto = &payments[1];
    assert_eq!((boleto["fee_amount"].as_str(), boleto["amount"].as_str()), (Some("1.50"), Some("25.00")));
    let at_bank = day.billings[1];
    let shown_billet = api.get(&format!("/v1/billings/{at_bank}")).await.expect(200).body["bank_billets"][0].clone();
    assert_eq!(boleto["net_amount"], shown_billet["net_amount"], "{shown_billet}");
    // Filters and pages: the same payments, a page at a time.
    assert_eq!(all_pages(api, "channel=pix", 1).await.len(), 1);
    assert_eq!(&all_pages(api, "status=applied", 2).await, payments);
    let credited = all_pages(api, &format!("credited_from={}", today()), 1).await;
    assert_eq!(credited.len(), 3, "every one credits today or later");
    assert!(all_pages(api, "status=refunded", 5).await.is_empty());

    // The day's statement: the sum of its payments, to the cent (the Pix told twice counts once).
    let statement = api.get(&format!("/v1/statements/{}", today())).await.expect(200).body;
    assert_eq!(statement["totals"]["count"], 3, "{statement}");
    for (field, total) in [("amount", "gross_amount"), ("fee_amount", "fee_amount"), ("net_amount", "net_amount")] {
        assert_eq!(sum(payments, field), money(&statement["totals"][total]), "{field}: {statement}");
    }
    assert_eq!(statement["channels"]["bank_billet"]["fee_amount"], "1.50");
}

async fn refunded_once(api: &Api, day: &Day) {
    let (pix, e2e) = (&day.pix, day.pix["endToEndId"].as_str().unwrap());
    // A partial refund of the Pix reaches the PSP as a devolução (Prism checks the call).
    let pix_id = day.payments[2]["id"].as_str().unwrap().to_owned();
    let refund_path = format!("/v1/payments/{pix_id}/refund");
    let partial = api.post(&refund_path, &json!({"refund": {"amount": "5.00", "reason": "desconto"}})).await;
    let partial = partial.expect(201).body;
    assert_eq!((partial["refunded_amount"].as_str(), partial["status"].as_str()), (Some("5.00"), Some("applied")));
    assert_eq!(partial["refunds"][0]["by"], "api");
    let psp = at_psp(api.account_id, &day.rule, e2e).await;
    assert_eq!(psp.devolucoes.len(), 1);
    assert_eq!(psp.devolucoes[0].valor, "5.00");
    // Ten refunds of the rest at once: one is made.
    let empty = json!({});
    let answers = futures::future::join_all((0..10).map(|_| api.post(&refund_path, &empty))).await;
    let statuses: Vec<u16> = answers.iter().map(|a| a.status.as_u16()).collect();
    assert_eq!(statuses.iter().filter(|s| **s == 201).count(), 1, "{statuses:?}");
    assert!(statuses.iter().all(|s| [201, 409, 422].contains(s)), "{statuses:?}");
    assert_eq!(at_psp(api.account_id, &day.rule, e2e).await.devolucoes.len(), 2, "one devolução more");
    let refunded = api.get(&format!("/v1/payments/{pix_id}")).await.expect(200).body;
    assert_eq!((refunded["status"].as_str(), &refunded["refunded_amount"]), (Some("refunded"), &pix["valor"]));
    assert_eq!(api.get(&format!("/v1/billings/{}", day.billings[0])).await.expect(200).body["status"], "returned");
    let again = api.post(&refund_path, &json!({})).await.expect(422).body;
    assert!(again.to_string().contains("estornado"), "{again}");
    // The Pix told again after its refunds changes nothing.
    infra::ops::pix::notify_again(e2e).await.unwrap();
    assert_eq!(api.get(&format!("/v1/payments/{pix_id}")).await.expect(200).body, refunded);

    // A boleto's refund is recorded as made outside, with who and when.
    let boleto_id = day.payments[1]["id"].as_str().unwrap();
    let given = api.post(&format!("/v1/payments/{boleto_id}/refund"), &json!({})).await.expect(201).body;
    assert_eq!(given["refunds"][0]["provider_id"], Value::Null);
    assert!(given["refunds"][0]["made_at"].is_string(), "{given}");
    assert_eq!(api.get(&format!("/v1/billings/{}", day.billings[1])).await.expect(200).body["status"], "returned");
    assert_eq!(all_pages(api, "status=refunded", 5).await.len(), 2);

    // The statement counts the refunds of the day.
    let statement = api.get(&format!("/v1/statements/{}", today())).await.expect(200).body;
    assert_eq!(statement["channels"]["pix"]["refunds_count"], 2, "{statement}");
    assert_eq!(statement["channels"]["pix"]["refunded_amount"], pix["valor"]);
    assert_eq!(money(&statement["totals"]["refunded_amount"]), money(&pix["valor"]) + Money::from_cents(2500));
    assert_eq!(statement["totals"]["count"], 3, "the day's payments still");
}

/// What cannot be read or done is a clear 4xx; another account sees none of it.
async fn refusals(api: &Api, day: &Day) {
    api.get("/v1/payments?channel=boleto").await.expect(422);
    api.get("/v1/payments?cursor=nao-e-um-cursor").await.expect(422);
    api.get("/v1/payments?page=2").await.expect(422);
    let backwards = api.get("/v1/payments?paid_from=2030-01-02&paid_to=2030-01-01").await.expect(200).body;
    assert_eq!(backwards["payments"], json!([]), "days the wrong way round hold nothing");
    api.get("/v1/payments/pay_bm9wZTo").await.expect(404);
    api.get("/v1/payments/42").await.expect(404);
    api.get("/v1/statements/2026-13-01").await.expect(422);
    let path = format!("/v1/payments/{}/refund", day.payments[0]["id"].as_str().unwrap());
    api.post(&path, &json!({"refund": {"amount": "abc"}})).await.expect(422);
    api.post(&path, &json!({"refund": {"amount": "999.00"}})).await.expect(422);
    api.post(&path, &json!({"refund": {"amount": "0.001"}})).await.expect(422);
    let other = api.other_account().await;
    other.get(&format!("/v1/payments/{}", day.payments[2]["id"].as_str().unwrap())).await.expect(404);
    assert_eq!(other.get("/v1/payments").await.expect(200).body["payments"], json!([]));
}

#[tokio::test]
async fn a_refund_left_half_done_by_a_killed_process_is_finished_once_by_the_next() {
    use billing_api::payments::{entry_of, Channel, Entry, Refund};
    let api = Api::start().await;
    let rule = itau_with_pix(&api).await;
    let s = setup(&api).await;
    let id = billing_on(&api, &s, &rule).await;
    let e2e = pay_today(&api, id, true).await["endToEndId"].as_str().unwrap().to_owned();
    let store = &api.server.store;
    let entry = entry_of(store, api.account_id, Channel::Pix, &e2e).await.unwrap().unwrap();
    let refund_path = format!("/v1/payments/{}/refund", entry.id());

    // A request claimed 10.00, asked the PSP, and its process was killed before recording it.
    let claim = |at: billing_api::values::Timestamp| Refund {
        id: "rfkilled000000000001".into(),
        amount: Money::from_cents(1000),
        reason: String::new(),
        by: "api".into(),
        requested_at: at,
        made_at: None,
        provider_id: None,
    };
    let claimed = |at| Entry { claim: Some(claim(at)), version: entry.version + 1, ..entry.clone() };
    let write = |next: Entry| async move {
        store.write(vec![billing_api::store::stored::put(&next, ()).unwrap()]).await.unwrap();
    };
    let secret = billing_api::payments::pix::psp::secret_id(api.account_id, BankRuleId::new(rule.as_i64().unwrap()));
    let psp = billing_api::payments::pix::psp::registry().client(&secret).await.unwrap();
    psp.refund(&e2e, "rfkilled000000000001", Money::from_cents(1000)).await.unwrap();
    // While the claim is young, another refund waits for it.
    write(claimed(billing_api::values::Timestamp::now())).await;
    let busy = api.post(&refund_path, &json!({"refund": {"amount": "5.00"}})).await.expect(409).body;
    assert!(busy.to_string().contains("refund_in_progress"), "{busy}");
    // A minute on, the next refund finishes it first (the PSP answers the same devolução), then its own.
    let minute_ago =
        billing_api::values::Timestamp(billing_api::values::Timestamp::now().0 - chrono::Duration::minutes(1));
    write(claimed(minute_ago)).await;
    let done = api.post(&refund_path, &json!({"refund": {"amount": "5.00"}})).await.expect(201).body;
    assert_eq!(done["refunded_amount"], "15.00", "{done}");
    let ids: Vec<&str> = done["refunds"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids[0], "rfkilled000000000001");
    assert_eq!(ids.len(), 2);
    assert_eq!(at_psp(api.account_id, &rule, &e2e).await.devolucoes.len(), 2, "the killed one made once");
    let statement = api.get(&format!("/v1/statements/{}", today())).await.expect(200).body;
    assert_eq!(statement["channels"]["pix"]["refunded_amount"], "15.00", "{statement}");
}
