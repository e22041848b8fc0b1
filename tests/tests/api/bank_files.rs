//! A billing on an Itaú bank rule from `issued` to `paid` through the bank's files, on the
//! local stack (DynamoDB and S3 of moto): the remittance file the service writes to the bucket is
//! read back field by field by an independent implementation of Itaú's layout
//! (`tests/validators/cnab240_itau.py`, Stark Bank's `febraban`), and the bank's return files are
//! written at the manual's positions (`tests/fixtures/cnab240/write_returns.py`) for the billets the
//! test made. Also: nothing is remitted twice, a crash between the claim and the file loses nothing,
//! a return file uploaded twice changes nothing, lines that cannot be applied are kept and listed,
//! a malformed file is refused naming the line, and a cancellation after remittance goes out as a
//! write-off, and a protest.

use std::path::{Path, PathBuf};
use std::process::Command;

use billing_api::files::Files;
use billing_api::payments::boleto::remittance;
use billing_api::values::BillingId;
use infra::webhook_receiver::Receiver;
use serde_json::{json, Value};

use super::billings::{body, setup, Setup};
use super::cnab_remittance::checker;
use super::support::Api;

pub(super) const AGREEMENT: &str = "0057/12345-7/109";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

pub(super) async fn files() -> Files {
    infra::testing::local_files(&billing_api::config::aws().await).await
}

/// An Itaú rule, and a billing on it whose billet the registrar has issued; the billing's id and
/// the rule's.
async fn itau_billing(api: &Api) -> (i64, Value, Setup) {
    let rule = infra::ops::create_bank_rule(&api.server.store, api.account_id, "Itaú", "itau", Some(AGREEMENT.into()))
        .await
        .unwrap();
    let rule = rule["bank_rule"]["id"].clone();
    let s = setup(api).await;
    (billing_on(api, &s, &rule).await, rule, s)
}

/// A billing on `rule`, its billet issued by the registrar.
async fn billing_on(api: &Api, s: &Setup, rule: &Value) -> i64 {
    let mut sent = body(s);
    sent["billing"]["bank_rule_id"] = rule.clone();
    let id = api.post("/v1/billings", &sent).await.expect(201).body["id"].as_i64().unwrap();
    api.server.register_billets().await;
    id
}

pub(super) async fn billet(api: &Api, billing: i64) -> Value {
    api.get(&format!("/v1/billings/{billing}/bank_billets")).await.expect(200).body["bank_billets"][0].clone()
}

pub(super) async fn remit(api: &Api, files: &Files) -> Value {
    let made =
        infra::ops::remittance::create_remittances(&api.server.store, files, api.account_id, None).await.unwrap();
    super::support::assert_amounts_are_text(&made);
    made
}

/// A return file for these titles, written by the manual's writer; its path.
pub(super) fn return_file(name: &str, titles: &[Value]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cnab-returns-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let output = Command::new("python3")
        .arg(root().join("tests/fixtures/cnab240/write_returns.py"))
        .args(["--out", path.to_str().unwrap(), "--titles", &Value::from(titles.to_vec()).to_string()])
        .output()
        .expect("python3 runs the return writer");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    path
}

/// What the bank says of one billet (of billing `billing`), as a title of a return file.
pub(super) fn returned(billing: i64, billet: &Value, movement: &str, extra: Value) -> Value {
    let itau = &billing_api::billets::banks::itau::ITAU_240;
    let agreement = itau.agreement(AGREEMENT).unwrap();
    let sequence = billet["our_number"].as_str().unwrap().split(['/', '-']).nth(1).unwrap().to_owned();
    let cents = |text: &str| text.replace('.', "").parse::<i64>().unwrap();
    let due = chrono::NaiveDate::parse_from_str(billet["due_date"].as_str().unwrap(), "%Y-%m-%d").unwrap();
    let mut title = json!({
        "movement": movement,
        "our_number": sequence,
        "dac": itau.rules.check_digit(&agreement, &sequence),
        "amount": cents(billet["amount"].as_str().unwrap()),
        "reference": remittance::reference(
            BillingId::new(billing),
            billing_api::values::BilletId::new(billet["id"].as_i64().unwrap()),
        ),
        "due": due.format("%d%m%Y").to_string(),
    });
    for (key, value) in extra.as_object().unwrap() {
        title[key] = value.clone();
    }
    title
}

/// `return upload`: its output, or its error in words.
pub(super) async fn upload(api: &Api, files: &Files, path: &Path) -> Result<Value, String> {
    let uploaded = infra::ops::returns::upload_return(&api.server.store, files, api.account_id, path).await;
    let uploaded = uploaded.map_err(|e| format!("{e:#}"))?;
    super::support::assert_amounts_are_text(&uploaded);
    Ok(uploaded)
}

#[tokio::test]
async fn an_itau_billing_goes_from_issued_to_paid_through_the_banks_files() {
    // A dev server of its own, so that its outbox sweep sees only its events.
    let api =
        Api::on(infra::testing::DevServer::start_alone(billing_api::http::rate_limit::RateLimits::OFF).await).await;
    let files = files().await;
    let receiver = Receiver::start(&[], 200).await;
    api.server.webhook_ops().add(api.account_id, &receiver.url).await.unwrap();
    api.server.start_webhooks(billing_api::webhooks::Schedule(vec![std::time::Duration::from_secs(1); 3]));
    let (id, _, _) = itau_billing(&api).await;

    // Issued by the registrar: waiting for a remittance, with its documents, no Pix.
    let waiting = billet(&api, id).await;
    assert_eq!(waiting["status"], "pending_remittance", "{waiting}");
    assert_eq!(waiting["bank_symbol"], "itau");
    let barcode = waiting["barcode"].as_str().expect("a barcode from the start");
    assert!(barcode.starts_with("3419") && billing_api::billets::payment_codes::barcode_is_valid(barcode));
    assert_eq!(waiting["pix_qr_code"], Value::Null, "Itaú's CNAB flow has no Pix code");
    assert_eq!(waiting["remittanced_at"], Value::Null);

    // The remittance: one file with this billet, in the bucket, read back by febraban.
    let made = remit(&api, &files).await;
    let listed = infra::ops::remittance::list_remittances(&api.server.store, api.account_id, 10).await.unwrap();
    super::support::assert_amounts_are_text(&listed);
    let record = &listed["remittances"][0];
    assert_eq!(listed["remittances"].as_array().unwrap().len(), 1, "{made} {listed}");
    assert_eq!(record["state"], "closed");
    assert_eq!(record["titles"][0]["billing_id"], id);
    let key = record["key"].as_str().unwrap();
    assert!(key.starts_with(&format!("remittances/{}/0057_12345-7_109/", api.account_id)), "{key}");
    let file = files.get(key).await.unwrap();
    let remitted = billet(&api, id).await;
    assert_eq!(remitted["status"], "remittanced", "{remitted}");
    assert_eq!(remitted["remittanced_at"], billing_api::values::today().to_string());

    let described = json!({
        "agency": "0057", "account": "12345", "account_dac": 7, "carteira": "109",
        "titles": [{
            "our_number": remitted["our_number"].as_str().unwrap().split(['/', '-']).nth(1).unwrap(),
            "due_date": remitted["due_date"],
            "amount_cents": remitted["amount"].as_str().unwrap().replace('.', "").parse::<u64>().unwrap(),
            "payer": {"document": "52998224725", "name": "Maria da Silva", "street": "Avenida Paulista, 1000",
                      "district": "Bela Vista", "postal_code": "01310100", "city": "São Paulo", "state": "SP"},
        }],
    });
    let dir = std::env::temp_dir().join(format!("cnab-roundtrip-{}-{}", std::process::id(), api.account_id));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("remessa.rem"), &file).unwrap();
    std::fs::write(dir.join("titles.json"), described.to_string()).unwrap();
    let read_back = checker(&[&dir.join("remessa.rem"), &dir.join("titles.json")]);
    assert!(read_back.contains("1 titles, 0 mismatches"), "{read_back}");

    // Nothing remitted twice: another run makes no file.
    remit(&api, &files).await;
    let again = infra::ops::remittance::list_remittances(&api.server.store, api.account_id, 10).await.unwrap();
    assert_eq!(again["remittances"].as_array().unwrap().len(), 1, "{again}");

    // The bank confirms the registration: opened.
    let confirmed = return_file("confirmed.ret", &[returned(id, &remitted, "02", json!({"occurred": "04032030"}))]);
    let applied = upload(&api, &files, &confirmed).await.unwrap();
    assert_eq!(applied["applied_now"], 1, "{applied}");
    assert_eq!(billet(&api, id).await["status"], "opened");

    // The payer pays 25.00 + 0.50 interest; the bank keeps 1.80 and credits 23.70 the next day.
    let paid_titles = [returned(
        id,
        &remitted,
        "06",
        json!({"paid": 2550, "interest": 50, "fee": 180, "net": 2370, "occurred": "05032030", "credit": "06032030"}),
    )];
    let paid_file = return_file("paid.ret", &paid_titles);
    upload(&api, &files, &paid_file).await.unwrap();
    let shown = api.get(&format!("/v1/billings/{id}")).await.expect(200).body;
    assert_eq!(shown["status"], "paid", "{shown}");
    let paid = &shown["bank_billets"][0];
    assert_eq!(paid["status"], "paid");
    assert_eq!(
        (paid["paid_amount"].as_str(), paid["paid_at"].as_str(), paid["credit_at"].as_str()),
        (Some("25.50"), Some("2030-03-05"), Some("2030-03-06"))
    );
    assert_eq!((paid["bank_rate"].as_str(), paid["net_amount"].as_str()), (Some("1.80"), Some("23.70")), "{paid}");

    // The payment reaches the webhook receiver.
    let delivered =
        receiver.wait_for("the paid billing", |r| r.json()["data"]["billing"]["status"] == "paid").await.json();
    assert_eq!(delivered["data"]["billing"]["id"], id);

    // The same return file again changes nothing.
    let before = api.get(&format!("/v1/billings/{id}")).await.expect(200).body;
    let twice = upload(&api, &files, &paid_file).await.unwrap();
    assert_eq!((twice["applied_now"].as_i64(), twice["already_applied"].as_i64()), (Some(0), Some(1)), "{twice}");
    assert_eq!(twice["return_file"]["received"], 2);
    assert_eq!(api.get(&format!("/v1/billings/{id}")).await.expect(200).body, before);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn lines_that_cannot_be_applied_are_kept_and_listed_and_a_malformed_file_is_refused() {
    let api = Api::start().await;
    let files = files().await;
    let (id, rule, s) = itau_billing(&api).await;
    remit(&api, &files).await;
    let remitted = billet(&api, id).await;

    // A stranger's title (a reference of no billet here) and a movement this service does not act on.
    let mut stranger = returned(id, &remitted, "02", json!({}));
    stranger["reference"] = json!("00000099990000009999");
    let path = return_file("mixed.ret", &[stranger, returned(id, &remitted, "12", json!({}))]);
    let applied = upload(&api, &files, &path).await.unwrap();
    assert_eq!(applied["return_file"]["not_applied"], 2, "{applied}");
    let sha = applied["return_file"]["sha256"].as_str().unwrap().to_owned();
    let listed = infra::ops::returns::show_returns(&api.server.store, api.account_id, None, false).await.unwrap();
    assert!(listed["return_files"].as_array().unwrap().iter().any(|f| f["sha256"] == sha.as_str()), "{listed}");
    let lines = infra::ops::returns::show_returns(&api.server.store, api.account_id, Some(&sha), false).await.unwrap();
    super::support::assert_amounts_are_text(&listed);
    super::support::assert_amounts_are_text(&lines);
    let lines = lines["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0]["note"].as_str().unwrap().contains("nenhum boleto"), "{}", lines[0]);
    assert!(lines[1]["note"].as_str().unwrap().contains("movimento 12"), "{}", lines[1]);
    assert_eq!(billet(&api, id).await["status"], "remittanced", "nothing applied");

    // A line cut short: refused whole, naming the line.
    let text = std::fs::read_to_string(&path).unwrap();
    let broken = text.replacen(
        &text[text.find("\r\n").unwrap() + 2..][..240],
        &text[text.find("\r\n").unwrap() + 2..][..200],
        1,
    );
    let broken_path = path.with_file_name("broken.ret");
    std::fs::write(&broken_path, broken).unwrap();
    let refused = upload(&api, &files, &broken_path).await.unwrap_err();
    assert!(refused.contains("linha 2"), "{refused}");

    // The bank refuses a title: rejected, the reasons in words.
    let id2 = billing_on(&api, &s, &rule).await;
    remit(&api, &files).await;
    let second = billet(&api, id2).await;
    let refused = return_file("refused.ret", &[returned(id2, &second, "03", json!({"reasons": "4800"}))]);
    upload(&api, &files, &refused).await.unwrap();
    let rejected = billet(&api, id2).await;
    assert_eq!(rejected["status"], "rejected");
    assert!(rejected["bank_rejection"].as_str().unwrap().contains("CEP inválido"), "{rejected}");

    // Sent to the notary for protest: `protested`, still payable.
    let protest = return_file("protest.ret", &[returned(id, &remitted, "23", json!({}))]);
    upload(&api, &files, &protest).await.unwrap();
    assert_eq!(billet(&api, id).await["status"], "protested");
}

#[tokio::test]
async fn a_cancellation_after_remittance_goes_out_as_a_write_off_and_a_crash_loses_nothing() {
    let api = Api::start().await;
    let files = files().await;
    let (id, _, _) = itau_billing(&api).await;

    // The run dies after claiming the billet and before the file is written (here: a bucket that
    // does not exist): the billet stays `remitting` in an open file.
    let nowhere = files.clone().with_bucket("no-such-bucket-for-cnab-tests");
    let failed = infra::ops::remittance::create_remittances(&api.server.store, &nowhere, api.account_id, None).await;
    assert!(failed.is_err());
    assert_eq!(billet(&api, id).await["status"], "remitting");
    // The next run finishes that file first: the billet is in exactly one file.
    remit(&api, &files).await;
    let listed = infra::ops::remittance::list_remittances(&api.server.store, api.account_id, 10).await.unwrap();
    let records = listed["remittances"].as_array().unwrap();
    assert_eq!(records.len(), 1, "{listed}");
    assert_eq!(records[0]["state"], "closed");
    assert_eq!(billet(&api, id).await["status"], "remittanced");

    // Cancelled after remittance: the next file writes it off (movement 02 in P, Q and R).
    api.post(&format!("/v1/billings/{id}/cancel"), &json!({"billing": {"cancellation_reason": "Desistência"}}))
        .await
        .expect(200);
    remit(&api, &files).await;
    let listed = infra::ops::remittance::list_remittances(&api.server.store, api.account_id, 10).await.unwrap();
    let newest = &listed["remittances"][0];
    assert_eq!(listed["remittances"].as_array().unwrap().len(), 2, "{listed}");
    assert_eq!(newest["titles"][0]["instruction"], "write_off", "{newest}");
    let file = String::from_utf8(files.get(newest["key"].as_str().unwrap()).await.unwrap()).unwrap();
    let details: Vec<&str> = file.split("\r\n").filter(|l| l.len() == 240 && &l[7..8] == "3").collect();
    assert_eq!(details.len(), 3, "P, Q and R: {file}");
    assert!(details.iter().all(|l| &l[15..17] == "02"), "{details:?}");
    // Written off once: a third run has nothing to send.
    remit(&api, &files).await;
    let listed = infra::ops::remittance::list_remittances(&api.server.store, api.account_id, 10).await.unwrap();
    assert_eq!(listed["remittances"].as_array().unwrap().len(), 2);

    // The bank confirms the write-off: nothing changes, and it is not a line to look at.
    let cancelled = billet(&api, id).await;
    assert_eq!(cancelled["status"], "canceled");
    let path = return_file("write-off.ret", &[returned(id, &cancelled, "09", json!({}))]);
    let applied = upload(&api, &files, &path).await.unwrap();
    assert_eq!(applied["return_file"]["unchanged"], 1, "{applied}");
}

/// One way a payment is applied (`payments`): the same payment in another return file changes
/// nothing, and a payment of a billing cancelled meanwhile moves nothing and is kept to refund,
/// listed by `infra/ops payment refunds`, once however often it is reported.
#[tokio::test]
async fn a_payment_reported_again_applies_once_and_one_after_a_cancel_is_kept_to_refund() {
    let api = Api::start().await;
    let files = files().await;
    let (id, rule, s) = itau_billing(&api).await;
    let other = billing_on(&api, &s, &rule).await;
    remit(&api, &files).await;
    let (first_billet, other_billet) = (billet(&api, id).await, billet(&api, other).await);
    let paid =
        |billing: i64, b: &Value| returned(billing, b, "06", json!({"paid": 2500, "fee": 150, "occurred": "05032030"}));

    // Paid before the bank's confirmation came: settled.
    let first = upload(&api, &files, &return_file("first.ret", &[paid(id, &first_billet)])).await.unwrap();
    assert_eq!(first["applied_now"], 1, "{first}");
    let settled = api.get(&format!("/v1/billings/{id}")).await.expect(200).body;
    assert_eq!((settled["status"].as_str(), settled["gw_received_with"].as_str()), (Some("paid"), Some("bank_billet")));

    // The same payment in a file of other bytes: unchanged, and nothing to refund.
    let confirmed = returned(other, &other_billet, "02", json!({}));
    let again = upload(&api, &files, &return_file("again.ret", &[paid(id, &first_billet), confirmed])).await.unwrap();
    assert_eq!(
        (again["return_file"]["applied"].as_i64(), again["return_file"]["unchanged"].as_i64()),
        (Some(1), Some(1)),
        "{again}"
    );
    assert_eq!(api.get(&format!("/v1/billings/{id}")).await.expect(200).body, settled);
    let refunds = infra::ops::payments_to_refund(&api.server.store, api.account_id, 10).await.unwrap();
    assert_eq!(refunds["to_refund"], json!([]));

    // The other billing is cancelled, and its payer had paid at the bank meanwhile.
    api.post(&format!("/v1/billings/{other}/cancel"), &json!({"billing": {"cancellation_reason": "Desistência"}}))
        .await
        .expect(200);
    let late = upload(&api, &files, &return_file("late.ret", &[paid(other, &other_billet)])).await.unwrap();
    assert_eq!(late["return_file"]["not_applied"], 1, "{late}");
    let cancelled = api.get(&format!("/v1/billings/{other}")).await.expect(200).body;
    assert_eq!(cancelled["status"], "canceled");
    let refunds = infra::ops::payments_to_refund(&api.server.store, api.account_id, 10).await.unwrap();
    let kept = refunds["to_refund"].as_array().unwrap();
    assert_eq!(kept.len(), 1, "{refunds}");
    assert_eq!((kept[0]["billing_id"].as_i64(), kept[0]["status"].as_str()), (Some(other), Some("to_refund")));
    assert_eq!((kept[0]["channel"].as_str(), kept[0]["paid_on"].as_str()), (Some("bank_billet"), Some("2030-03-05")));
    assert!(kept[0]["reason"].as_str().unwrap().contains("devolver ao pagador"), "{}", kept[0]);
    // Reported again in another file: still one to refund.
    let twice = [paid(other, &other_billet), returned(other, &other_billet, "09", json!({}))];
    upload(&api, &files, &return_file("late-again.ret", &twice)).await.unwrap();
    let refunds = infra::ops::payments_to_refund(&api.server.store, api.account_id, 10).await.unwrap();
    assert_eq!(refunds["to_refund"].as_array().unwrap().len(), 1, "{refunds}");
}

#[tokio::test]
async fn itau_documents_pass_the_independent_validators() {
    let api = Api::start().await;
    let (first, rule, s) = itau_billing(&api).await;
    let mut ids = vec![first];
    for (amount, due) in super::bank_billets::VALIDATED {
        let mut sent = body(&s);
        sent["billing"]["bank_rule_id"] = rule.clone();
        sent["billing"]["due_date"] = json!(due);
        sent["billing"]["billing_items"] = json!([{"description": "Item", "quantity": 1, "amount": amount}]);
        ids.push(api.post("/v1/billings", &sent).await.expect(201).body["id"].as_i64().unwrap());
    }
    api.server.register_billets().await;
    let mut documents = Vec::new();
    for id in ids {
        let b = billet(&api, id).await;
        assert_eq!((b["status"].as_str(), b["pix_qr_code"].as_str()), (Some("pending_remittance"), None), "{b}");
        documents.push(json!({"barcode": b["barcode"], "digitable_line": b["digitable_line"], "pix_qr_code": null,
                              "amount": b["amount"], "due_date": b["due_date"]}));
    }
    let verdict = infra::testing::independent_check("validate.js", &Value::from(documents));
    assert_eq!((verdict["ok"].as_bool(), verdict["checked"].as_i64()), (Some(true), Some(5)), "{verdict}");
}
