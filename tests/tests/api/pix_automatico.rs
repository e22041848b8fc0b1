//! Pix Automático (beyond the spec) against the local PSP behind Prism's contract proxy (infra/test
//! starts both): the payer of a schedule's billing opens the recurrence's QR code on the payer page
//! (journey 2), authorizes it in their bank (the local PSP's `/_local/rec/approve`, which calls
//! `webhookrec`), and each later cycle is debited by a `cobr` sent when its billet is registered;
//! the PSP's `webhookcobr` is read back and its Pix applied once as any Pix. A debit that fails is
//! tried again while the policy allows, then the cycle stays open, payable and reminded; a payer who
//! cancels in their bank stops the debits; a cycle paid otherwise cancels its debit, and a deleted
//! schedule cancels its recurrence.
//!
//! One test on the shared table (PSP secrets are named by account, which a server on a table of its
//! own would share with another test's), on a calendar of its own: a second schedules run on the
//! same table would move this schedule past its cycles.

use billing_api::payments::pix::automatic;
use billing_api::reminders::providers::Providers;
use billing_api::values::{BankRuleId, BillingId};
use serde_json::{json, Value};

use super::billings::{setup, Setup};
use super::support::Api;

fn day(text: &str) -> chrono::NaiveDate {
    text.parse().unwrap()
}

/// The setup's simulated rule linked to the local PSP (through Prism), its webhooks registered at
/// this server's Pix listener.
async fn with_pix(api: &Api, s: &Setup) -> BankRuleId {
    let rule = BankRuleId::new(s.bank_rule);
    let key = format!("00000000-0000-4000-8000-{:012}", api.account_id.get());
    let credentials = infra::ops::pix::local_credentials(&key).expect("the local PSP (infra/test starts it)");
    let secrets = aws_sdk_secretsmanager::Client::new(&api.server.config);
    let base = api.server.pix_webhook_url.clone().expect("the Pix webhook listener (LOCAL_PIX_CERTS)");
    infra::ops::pix::link_psp(&api.server.store, &secrets, api.account_id, rule, &credentials, Some(&base))
        .await
        .unwrap();
    rule
}

/// A monthly schedule on the setup's rule, due on the 10th, issued five days ahead, from `start`.
async fn schedule(api: &Api, s: &Setup, start: &str, cycles: u32) -> i64 {
    let body = json!({"schedule": {
        "bank_rule_id": s.bank_rule, "contact_id": s.contact,
        "billing_items": [{"description": "Mensalidade escolar", "quantity": 1, "amount": "89.90"}],
        "period": "monthly", "due_day": 10, "start_date": start, "cycles": cycles, "lead_days": 5
    }});
    api.post("/v1/schedules", &body).await.expect(201).body["id"].as_i64().unwrap()
}

/// Cycle `k` (1, 2, …) of the schedule, issued on `on` with its billet registered (and any debit
/// it asks sent): its id and token.
async fn issued(api: &Api, schedule: i64, k: usize, on: &str) -> (i64, String) {
    api.server.issue_schedules(day(on)).await;
    api.server.register_billets().await;
    api.server.remove_pix_charges().await;
    let listed = api.get(&format!("/v1/billings?billing_id={schedule}&per_page=100")).await.expect(200).body;
    let mut ids: Vec<i64> = listed["billings"].as_array().unwrap().iter().map(|b| b["id"].as_i64().unwrap()).collect();
    ids.sort();
    assert_eq!(ids.len(), k, "{listed}");
    let id = ids[k - 1];
    issued_token(api, id).await
}

async fn page(api: &Api, path: &str) -> (u16, String) {
    let answer = api.http.get(api.server.url(path)).send().await.unwrap();
    (answer.status().as_u16(), answer.text().await.unwrap())
}

async fn recurrence(api: &Api, schedule: i64) -> automatic::Recurrence {
    let found = automatic::recurrence(&api.server.store, api.account_id, BillingId::new(schedule)).await.unwrap();
    found.expect("the schedule's recurrence")
}

async fn status(api: &Api, id: i64) -> Value {
    api.get(&format!("/v1/billings/{id}")).await.expect(200).body
}

/// The payer opens the authorization page of billet `token` and authorizes the recurrence in
/// their bank; the recurrence kept `APROVADA` (told by `webhookrec`, read back).
async fn authorize(api: &Api, schedule: i64, token: &str) -> automatic::Recurrence {
    let (code, billet) = page(api, &format!("/pay/{token}")).await;
    assert_eq!(code, 200);
    assert!(billet.contains(&format!("{token}/pix-automatico")), "the billet's page offers it: {billet}");
    let (code, html) = page(api, &format!("/pay/{token}/pix-automatico")).await;
    assert_eq!(code, 200, "{html}");
    assert!(html.contains("Pix Automático copia e cola") && html.contains("<svg"), "{html}");
    let opened = recurrence(api, schedule).await;
    assert_eq!(opened.status, "CRIADA");
    let payload = opened.copy_paste.clone().expect("the recurrence's QR code");
    assert!(html.contains(&billing_api::payer_page::page::escape(&payload)), "the PSP's QR code shown");
    let (_, again) = page(api, &format!("/pay/{token}/pix-automatico")).await;
    assert!(again.contains("copia e cola"));
    assert_eq!(recurrence(api, schedule).await.id_rec, opened.id_rec, "one recurrence per schedule");
    let approved = infra::ops::pix::local_act("rec/approve", json!({"idRec": opened.id_rec})).await.unwrap();
    assert_eq!(approved["webhook"], 200, "{approved}");
    let kept = recurrence(api, schedule).await;
    assert_eq!(kept.status, "APROVADA");
    let (_, done) = page(api, &format!("/pay/{token}/pix-automatico")).await;
    assert!(done.contains("já está autorizado"), "{done}");
    kept
}

#[tokio::test]
async fn an_authorized_recurrence_pays_three_cycles_and_a_failed_debit_leaves_the_cycle_open_and_told() {
    let api = Api::start().await;
    let s = setup(&api).await;
    with_pix(&api, &s).await;
    let schedule = schedule(&api, &s, "2033-01-01", 8).await;
    let (first, token) = issued(&api, schedule, 1, "2033-01-05").await;
    authorize(&api, schedule, &token).await;
    assert_eq!(status(&api, first).await["status"], "opened", "the cycle it was authorized on is paid apart");

    // Three cycles debited: each `cobr` sent with its cycle, settled by the payer's bank.
    for (k, on) in [(2, "2033-02-05"), (3, "2033-03-05"), (4, "2033-04-05")] {
        let (id, _) = issued(&api, schedule, k, on).await;
        let txid = automatic::txid(api.account_id, BillingId::new(id));
        let settled = infra::ops::pix::local_act("cobr/settle", json!({"txid": txid})).await.unwrap();
        assert_eq!(settled["webhook"], 200, "{settled}");
        let paid = status(&api, id).await;
        assert_eq!(paid["status"], "paid", "cycle {k}: {paid}");
        // The notice again: applied once.
        let again = automatic::settle(&api.server.store, std::slice::from_ref(&txid)).await;
        assert_eq!(
            serde_json::to_value(again.unwrap()).unwrap(),
            json!([{"result": "paid", "taken": [{"result": "already"}]}])
        );
    }
    let kept = billing_api::payments::to_refund(&api.server.store, api.account_id, 10).await.unwrap();
    assert!(kept.is_empty(), "nothing paid twice: {kept:?}");

    // A debit that fails: tried again three times (the policy's), then the cycle stays open.
    let (fifth, fifth_token) = issued(&api, schedule, 5, "2033-05-05").await;
    let txid = automatic::txid(api.account_id, BillingId::new(fifth));
    for attempt in 1..=4 {
        let failed = infra::ops::pix::local_act("cobr/fail", json!({"txid": txid})).await.unwrap();
        assert_eq!(failed["webhook"], 200, "attempt {attempt}: {failed}");
    }
    let open = status(&api, fifth).await;
    assert_eq!(open["status"], "opened", "{open}");
    let (code, _) = page(&api, &format!("/pay/{fifth_token}")).await;
    assert_eq!(code, 200, "still payable on its page");
    let providers =
        Providers::new(&api.server.config, billing_api::reminders::providers::default_sender(), None, 1000.0);
    api.server.send_reminders(day("2000-01-03"), &providers).await;
    let told = status(&api, fifth).await;
    assert_eq!(told["billing_reminder_deliveries"].as_array().unwrap().len(), 1, "the payer reminded: {told}");

    // The payer cancels in their bank: the next cycle is not debited.
    let recurrence_id = recurrence(&api, schedule).await.id_rec;
    let cancelled = infra::ops::pix::local_act("rec/cancel", json!({"idRec": recurrence_id})).await.unwrap();
    assert_eq!(cancelled["webhook"], 200, "{cancelled}");
    assert_eq!(recurrence(&api, schedule).await.status, "CANCELADA");
    let (sixth, _) = issued(&api, schedule, 6, "2033-06-05").await;
    let none = infra::ops::pix::local_act(
        "cobr/settle",
        json!({"txid": automatic::txid(api.account_id, BillingId::new(sixth))}),
    )
    .await;
    assert!(none.is_err(), "no debit sent for it: {none:?}");
    assert_eq!(status(&api, sixth).await["status"], "opened");

    // Authorized again (a new recurrence), the next cycle paid off by hand: its pending debit is
    // cancelled at the PSP with the billing's Pix charge.
    let (_, sixth_token) = issued_token(&api, sixth).await;
    // Two visits at once: one recurrence kept, both pages show it.
    let path = format!("/pay/{sixth_token}/pix-automatico");
    let (one, other) = tokio::join!(page(&api, &path), page(&api, &path));
    let kept = recurrence(&api, schedule).await;
    let payload = billing_api::payer_page::page::escape(kept.copy_paste.as_deref().unwrap());
    assert!(one.1.contains(&payload) && other.1.contains(&payload), "both pages show the one kept");
    let again = authorize(&api, schedule, &sixth_token).await;
    assert_ne!(again.id_rec, recurrence_id, "a new recurrence");
    let (seventh, _) = issued(&api, schedule, 7, "2033-07-05").await;
    let body = super::billings::pay_off_body(&api).await;
    api.post(&format!("/v1/billings/{seventh}/pay_off"), &body).await.expect(200);
    api.server.remove_pix_charges().await;
    let txid = automatic::txid(api.account_id, BillingId::new(seventh));
    let settle = infra::ops::pix::local_act("cobr/settle", json!({"txid": txid})).await;
    assert!(settle.is_err(), "the debit is cancelled: {settle:?}");

    // The schedule deleted: its recurrence is cancelled at the PSP.
    api.delete(&format!("/v1/billings/{schedule}")).await.expect(204);
    api.server.remove_pix_charges().await;
    assert_eq!(recurrence(&api, schedule).await.status, "CANCELADA");
    let approve = infra::ops::pix::local_act("rec/approve", json!({"idRec": again.id_rec})).await;
    assert!(approve.is_err(), "cancelled at the PSP: {approve:?}");
}

/// Billing `id`'s id and payer page token.
async fn issued_token(api: &Api, id: i64) -> (i64, String) {
    let shown = api.get(&format!("/v1/billings/{id}")).await.expect(200).body;
    let url = shown["bank_billets"][0]["url"].as_str().unwrap_or_else(|| panic!("{shown}"));
    (id, url.rsplit('/').next().unwrap().to_owned())
}
