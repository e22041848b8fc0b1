//! Exports (`POST /v1/exports`): an account's payments and billings written by the exports worker
//! to the bucket (moto's S3) as CSV, downloaded through the signed link, read back with a CSV
//! reader and summed; a step delivered twice or run again after its process was killed writes no
//! row twice.

use billing_api::payments::boleto::bank::Reported;
use billing_api::values::{BillingId, Money};
use serde_json::{json, Value};

use super::bank_files::files;
use super::billings::{body, pay_off_body, setup};
use super::support::Api;

/// Reads a CSV as the service writes it (byte-order mark, `;`, CRLF, `"` quoting): its rows.
fn read_csv(text: &str) -> Vec<Vec<String>> {
    let text = text.strip_prefix('\u{feff}').expect("a byte-order mark first");
    let (mut rows, mut row, mut field, mut quoted) = (Vec::new(), Vec::new(), String::new(), false);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (';', false) => row.push(std::mem::take(&mut field)),
            ('\r', false) => {}
            ('\n', false) => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            (c, _) => field.push(c),
        }
    }
    assert!(field.is_empty() && row.is_empty(), "the file ends with a line break");
    rows
}

/// The file at a signed link, as a client gets it: asked again while the store answers 5xx (the
/// fault proxy's S3 errors).
async fn download(url: &str) -> String {
    for _ in 0..10 {
        let answer = reqwest::get(url).await.unwrap();
        if answer.status().is_server_error() {
            continue;
        }
        assert_eq!(answer.status(), 200);
        return answer.text().await.unwrap();
    }
    panic!("the file's link kept failing")
}

/// A decimal-comma amount.
fn amount(text: &str) -> Money {
    Money::parse(&text.replace(',', ".")).unwrap_or_else(|| panic!("an amount: {text:?}"))
}

/// Asks for an export, runs the worker until the queue is empty, and reads the file back through
/// its signed link: the export as finally shown and the file's rows.
async fn exported(api: &Api, asked: Value) -> (Value, Vec<Vec<String>>) {
    let made = api.post("/v1/exports", &json!({ "export": asked })).await.expect(202).body;
    assert_eq!((made["status"].as_str(), made["url"].as_str()), (Some("queued"), None), "{made}");
    let id = made["id"].as_str().unwrap().to_owned();
    api.server.export(&files().await).await;
    let done = api.get(&format!("/v1/exports/{id}")).await.expect(200).body;
    assert_eq!(done["status"], "done", "{done}");
    let text = download(done["url"].as_str().expect("a link once done")).await;
    (done, read_csv(&text))
}

#[tokio::test]
async fn payments_and_billings_export_to_csv_that_reads_back_to_the_cent() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let mut ids = Vec::new();
    for _ in 0..4 {
        ids.push(api.post("/v1/billings", &body(&s)).await.expect(201).body["id"].as_i64().unwrap());
    }
    api.server.register_billets().await;
    let store = &api.server.store;
    for (id, cents) in [(ids[0], 2500), (ids[1], 2610)] {
        let paid = Reported {
            amount: Money::from_cents(cents),
            paid_on: "2030-03-08".parse().unwrap(),
            fee: "1.50".parse().unwrap(),
        };
        infra::ops::pay_billing(store, api.account_id, BillingId::new(id), &paid).await.unwrap();
    }
    api.post(&format!("/v1/billings/{}/pay_off", ids[2]), &pay_off_body(&api).await).await.expect(200);

    // The payments: a header and a row each, summing as the list does.
    let (done, rows) = exported(&api, json!({"kind": "payments"})).await;
    assert_eq!(
        (done["rows_total"].as_i64(), done["rows_done"].as_i64(), done["parts_done"].as_i64()),
        (Some(3), Some(3), Some(1))
    );
    assert_eq!(rows[0][..4], ["id", "cobranca", "boleto", "canal"]);
    let listed = api.get("/v1/payments").await.expect(200).body["payments"].as_array().unwrap().clone();
    assert_eq!(rows.len(), 1 + listed.len());
    let column = |name: &str| rows[0].iter().position(|c| c == name).unwrap();
    let total: Money = rows[1..].iter().map(|row| amount(&row[column("valor_pago")])).sum();
    let fees: Money = rows[1..].iter().map(|row| amount(&row[column("tarifa")])).sum();
    let listed_total: Money = listed.iter().map(|p| Money::parse(p["amount"].as_str().unwrap()).unwrap()).sum();
    assert_eq!((total, fees), (listed_total, Money::from_cents(300)));
    assert_eq!(rows[1][column("id")], listed[0]["id"].as_str().unwrap(), "newest first, as listed");
    assert!(rows[1..].iter().any(|row| row[column("pago_em")] == "08/03/2030"), "{rows:?}");

    // The billings paid at the bank: by their status's postings.
    let (done, rows) =
        exported(&api, json!({"kind": "billings", "format": "csv", "filters": {"status": "paid"}})).await;
    assert_eq!((done["rows_total"].as_i64(), done["rows_done"].as_i64()), (Some(2), Some(2)), "{done}");
    let ids_exported: Vec<&str> = rows[1..].iter().map(|row| row[0].as_str()).collect();
    assert!(ids_exported.contains(&ids[0].to_string().as_str()) && ids_exported.contains(&ids[1].to_string().as_str()));
    // Every billing: the four.
    let (done, rows) = exported(&api, json!({"kind": "billings"})).await;
    assert_eq!((done["rows_total"].as_i64(), rows.len()), (Some(4), 5), "{done}");
    let asked: Money = rows[1..].iter().map(|row| amount(&row[6])).sum();
    assert_eq!(asked, Money::from_cents(4 * 2500));

    // What cannot be exported is a clear 4xx.
    api.post("/v1/exports", &json!({"export": {"kind": "contacts"}})).await.expect(422);
    api.post("/v1/exports", &json!({"export": {"kind": "payments", "format": "xlsx"}})).await.expect(422);
    api.post("/v1/exports", &json!({"export": {"kind": "payments", "filters": {"page": 2}}})).await.expect(422);
    let two = json!({"export": {"kind": "billings", "filters": {"status": "paid", "contact_id": 1}}});
    api.post("/v1/exports", &two).await.expect(422);
    api.post("/v1/exports", &json!({"kind": "payments"})).await.expect(422);
    api.get("/v1/exports/exp_0000").await.expect(404);
    api.get(&format!("/v1/exports/{}", done["id"].as_str().unwrap())).await.expect(200);
    api.other_account().await.get(&format!("/v1/exports/{}", done["id"].as_str().unwrap())).await.expect(404);
}

#[tokio::test]
async fn a_step_run_again_after_its_process_was_killed_writes_no_row_twice() {
    use billing_api::exports::{step, Export};
    use billing_api::jobs::ExportStep;
    use billing_api::store::stored;
    let api = Api::start().await;
    let s = setup(&api).await;
    let id = api.post("/v1/billings", &body(&s)).await.expect(201).body["id"].as_i64().unwrap();
    api.server.register_billets().await;
    let paid = Reported { amount: Money::from_cents(2500), paid_on: "2030-03-08".parse().unwrap(), fee: Money::ZERO };
    infra::ops::pay_billing(&api.server.store, api.account_id, BillingId::new(id), &paid).await.unwrap();
    let made = api.post("/v1/exports", &json!({"export": {"kind": "payments"}})).await.expect(202).body;
    let export_id = made["id"].as_str().unwrap().to_owned();
    let (store, files) = (&api.server.store, files().await);
    let message = ExportStep { account_id: api.account_id, export_id: export_id.clone(), part: 1 };
    let before = billing_api::exports::find(store, api.account_id, &export_id).await.unwrap().unwrap();
    // The step ran (its upload begun and saved, its part uploaded, the file completed), and its
    // process was killed before the export was saved done: the store still has it running.
    assert_eq!(step::run(store, &files, &message).await.unwrap(), step::Stepped::Done { rows: 1 });
    let now = billing_api::exports::find(store, api.account_id, &export_id).await.unwrap().unwrap();
    assert_ne!(before.upload_id, now.upload_id);
    let killed = Export {
        status: billing_api::exports::Status::Running,
        rows_done: 0,
        parts: Vec::new(),
        cursor: None,
        finished_at: None,
        version: now.version + 1,
        ..now.clone()
    };
    store.write(vec![stored::put(&killed, ()).unwrap()]).await.unwrap();
    // Its message again (SQS gives it back): the file stands, the export is saved done, its row
    // once.
    api.server.export(&files).await;
    let again = step::run(store, &files, &message).await.unwrap();
    let shown = api.get(&format!("/v1/exports/{export_id}")).await.expect(200).body;
    assert_eq!((shown["status"].as_str(), shown["rows_done"].as_i64()), (Some("done"), Some(1)), "{again:?} {shown}");
    let text = download(shown["url"].as_str().unwrap()).await;
    assert_eq!(read_csv(&text).len(), 2, "a header and the one payment: {text}");
    // A copy of a message already handled does nothing.
    assert_eq!(step::run(store, &files, &message).await.unwrap(), step::Stepped::Stale);
}
