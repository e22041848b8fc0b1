//! Carnês (`POST /v1/carnes`, beyond the spec): a booklet of `carne` records, one per instalment,
//! each with its billet registered as any; the booklet printed in one PDF whose barcodes and Pix
//! QR codes read back (the printable billet's readers); the instalments go to the bank in its
//! remittance file as any billet; the payer page of an instalment lists the
//! booklet; the booklet and its instalments are never edited; cancelling the booklet cancels its
//! open instalments and leaves the paid ones; bad input is a 422 naming each field, nothing saved.
//! A booklet and its instalments are listed with `billing_type=carne`, as the spec lists them.

use serde_json::{json, Value};

use super::bank_files::{files, remit, AGREEMENT};
use super::billings::{setup, Setup};
use super::printable_billets::{decode, download, Scratch};
use super::support::Api;

/// A carnê of `installments` totalling `total`, the first due on 31 January 2031.
fn carne_body(s: &Setup, installments: i64, total: &str) -> Value {
    json!({"carne": {
        "bank_rule_id": s.bank_rule, "contact_id": s.contact, "bill_category_id": s.receivable,
        "penalty": "2", "penalty_type": "percentage",
        "description": "Sofá retrátil", "installments": installments, "total_amount": total,
        "due_date": "2031-01-31"
    }})
}

/// The booklet's instalments as listed, in order.
async fn instalments_of(api: &Api, booklet: i64) -> Vec<Value> {
    let listed =
        api.get(&format!("/v1/billings?billing_type=carne&billing_id={booklet}&per_page=100")).await.expect(200).body;
    let mut billings = listed["billings"].as_array().unwrap().clone();
    billings.sort_by_key(|b| b["id"].as_i64());
    billings
}

/// Each page of a PDF at 300 dpi, as PNG files in `scratch`, in order.
fn render_pages(scratch: &Scratch, pdf: &[u8]) -> Vec<std::path::PathBuf> {
    let (file, prefix) = (scratch.file("carne.pdf"), scratch.file("page"));
    std::fs::write(&file, pdf).unwrap();
    let status = std::process::Command::new("pdftoppm")
        .args(["-r", "300", "-png", file.to_str().unwrap(), prefix.to_str().unwrap()])
        .status()
        .expect("pdftoppm runs (infra/test installs it)");
    assert!(status.success());
    let mut pages: Vec<_> = std::fs::read_dir(scratch.file(""))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "png"))
        .collect();
    pages.sort();
    pages
}

#[tokio::test]
async fn a_carne_of_twelve_makes_twelve_billets_and_one_booklet_that_reads_back() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let made = api.post("/v1/carnes", &carne_body(&s, 12, "1000.00")).await.expect(201).body;
    let booklet = made["id"].as_i64().unwrap();
    assert_eq!((made["billing_type"].as_str(), made["installment"].as_i64()), (Some("carne"), Some(0)), "{made}");
    assert_eq!((made["installments"].as_i64(), made["installment_type"].as_str()), (Some(12), Some("monthly")));
    assert_eq!(made["amount"], "1000.00");
    assert!(made["bank_billets"].as_array().unwrap().is_empty(), "the booklet has no billet of its own");
    let ids: Vec<i64> =
        made["installment_billing_ids"].as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).collect();
    assert_eq!(ids, (1..=12).map(|k| booklet + k).collect::<Vec<_>>());

    let instalments = instalments_of(&api, booklet).await;
    assert_eq!(instalments.len(), 12, "{instalments:?}");
    let dues: Vec<&str> = instalments.iter().map(|b| b["due_date"].as_str().unwrap()).collect();
    // The 31st, or a month's last day; a weekend moved to Monday.
    assert_eq!(&dues[..4], ["2031-01-31", "2031-02-28", "2031-03-31", "2031-04-30"]);
    assert_eq!(dues[4], "2031-06-02", "31 May 2031 is a Saturday");
    let amounts: Vec<&str> = instalments.iter().map(|b| b["amount"].as_str().unwrap()).collect();
    assert_eq!(amounts[0], "83.37", "the cents left over on the first");
    assert!(amounts[1..].iter().all(|a| *a == "83.33"), "{amounts:?}");
    for (k, instalment) in instalments.iter().enumerate() {
        assert_eq!(instalment["billing_type"], "carne");
        assert_eq!(
            (instalment["installment"].as_i64(), instalment["installments"].as_i64()),
            (Some(k as i64 + 1), Some(12))
        );
    }
    // A copy of the booklet's task finds it done.
    assert_eq!(api.server.expand_bulk().await, 1);
    assert_eq!(instalments_of(&api, booklet).await.len(), 12);

    // Every instalment's billet is registered as any; the booklet prints them all.
    let early = download(&api, &format!("/v1/carnes/{booklet}/pdf")).await;
    assert_eq!(early.status.as_u16(), 409, "not registered yet");
    assert_eq!(api.server.register_billets().await, 12);
    let answer = download(&api, &format!("/v1/carnes/{booklet}/pdf")).await;
    assert_eq!(answer.status.as_u16(), 200);
    let mut expected = Vec::new();
    for instalment in &instalments {
        let shown = api.get(&format!("/v1/billings/{}", instalment["id"])).await.expect(200).body;
        let billet = &shown["bank_billets"][0];
        let mut codes =
            vec![billet["barcode"].as_str().unwrap().to_owned(), billet["pix_qr_code"].as_str().unwrap().to_owned()];
        codes.sort();
        expected.push(codes);
    }
    let scratch = Scratch::new();
    let pages = render_pages(&scratch, &answer.bytes);
    assert_eq!(pages.len(), 12, "one slip a page");
    let read: Vec<Vec<String>> = pages.iter().map(|page| decode(page)).collect();
    assert_eq!(read, expected, "each page's barcode and Pix QR code, in order");

    // Never edited: an update answers 200 and changes nothing (§2.1).
    let first = instalments[0]["id"].as_i64().unwrap();
    let sent = json!({"billing": {"observation": "outra", "due_date": "2031-02-10"}});
    let kept = api.patch(&format!("/v1/billings/{first}"), &sent).await.expect(200).body;
    assert_eq!((kept["due_date"].as_str(), kept["observation"].as_str()), (Some("2031-01-31"), None), "{kept}");
    assert_eq!(api.get("/v1/carnes/999999/pdf").await.status, 404);
}

#[tokio::test]
async fn an_instalments_page_lists_the_booklet() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let made = api.post("/v1/carnes", &carne_body(&s, 3, "300.00")).await.expect(201).body;
    let booklet = made["id"].as_i64().unwrap();
    api.server.register_billets().await;
    let second = api.get(&format!("/v1/billings/{}", booklet + 2)).await.expect(200).body;
    let url = second["bank_billets"][0]["url"].as_str().unwrap();
    let page = api.http.get(api.server.url(&url[url.find("/pay/").unwrap()..])).send().await.unwrap();
    assert_eq!(page.status().as_u16(), 200);
    let html = page.text().await.unwrap();
    assert!(html.contains("Parcelas do carnê"), "{html}");
    for k in 1..=3 {
        assert!(html.contains(&format!("Parcela {k} de 3")), "{k}: {html}");
    }
    assert!(html.contains("<strong>Parcela 2 de 3"), "this one marked");
    assert_eq!(html.matches(">abrir</a>").count(), 2, "the two others linked");
}

#[tokio::test]
async fn cancelling_the_booklet_cancels_its_open_instalments_and_keeps_the_paid() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let made = api.post("/v1/carnes", &carne_body(&s, 3, "150.00")).await.expect(201).body;
    let booklet = made["id"].as_i64().unwrap();
    api.server.register_billets().await;
    let bank = infra::ops::create_bank_account(&api.server.store, api.account_id, "Conta", "checking").await.unwrap();
    let pay_off =
        json!({"billing": {"bank_account_id": bank["bank_account"]["id"], "discharge_reason": "bank_deposit"}});
    api.post(&format!("/v1/billings/{}/pay_off", booklet + 1), &pay_off).await.expect(200);
    // The booklet is paid through its instalments, never by itself.
    let refused = api.post(&format!("/v1/billings/{booklet}/pay_off"), &pay_off).await.expect(422).body;
    assert!(refused.to_string().contains("parcelas"), "{refused}");

    let cancel = json!({"billing": {"cancellation_reason": "Desistência"}});
    let canceled = api.post(&format!("/v1/billings/{booklet}/cancel"), &cancel).await.expect(200).body;
    assert_eq!(canceled["status"], "canceled");
    let states: Vec<String> =
        instalments_of(&api, booklet).await.iter().map(|b| b["status"].as_str().unwrap().to_owned()).collect();
    assert_eq!(states, ["discharged", "canceled", "canceled"], "the one paid off by hand stays");
    // Its task, run again, changes nothing.
    api.server.expand_bulk().await;
    let again: Vec<String> =
        instalments_of(&api, booklet).await.iter().map(|b| b["status"].as_str().unwrap().to_owned()).collect();
    assert_eq!(again, states);
    assert_eq!(api.get(&format!("/v1/carnes/{booklet}/pdf")).await.status, 404, "nothing left to print");
}

#[tokio::test]
async fn a_carne_with_problems_is_refused_whole() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let mut body = carne_body(&s, 30, "10.00");
    body["carne"]["description"] = json!("");
    body["carne"]["penalty_type"] = json!("daily");
    let refused = api.post("/v1/carnes", &body).await.expect(422).body;
    let text = refused.to_string();
    for field in ["installments", "description", "penalty_type"] {
        assert!(text.contains(field), "{field}: {text}");
    }
    // The records it names are checked next (as a billing's).
    let mut body = carne_body(&s, 3, "30.00");
    body["carne"]["contact_id"] = json!(999_999);
    let unknown = api.post("/v1/carnes", &body).await.expect(422).body;
    assert!(unknown.to_string().contains("contact_id"), "{unknown}");
    let small = api.post("/v1/carnes", &carne_body(&s, 3, "14.99")).await.expect(422).body;
    assert!(small.to_string().contains("total_amount"), "{small}");
    assert_eq!(api.post("/v1/carnes", &json!({"billing": {}})).await.status, 422);
    let listed = api.get("/v1/billings?billing_type=carne").await.expect(200).body;
    assert_eq!(listed["billings"].as_array().unwrap().len(), 0, "nothing saved: {listed}");
}

#[tokio::test]
async fn a_booklet_cut_short_is_finished_by_its_task_once() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let made = api.post("/v1/carnes", &carne_body(&s, 4, "200.00")).await.expect(201).body;
    let booklet = made["id"].as_i64().unwrap();
    // As if the process had died after the first instalment: the others taken away (with their
    // postings and counts) before their billets were registered.
    let store = &api.server.store;
    for k in 2..=4 {
        let id = billing_api::values::BillingId::new(booklet + k);
        let written = billing_api::store::records::find::<billing_api::billings::Billing>(store, api.account_id, id)
            .await
            .unwrap()
            .unwrap();
        billing_api::store::records::remove(store, api.account_id, &written, Vec::new()).await.unwrap();
    }
    assert_eq!(instalments_of(&api, booklet).await.len(), 1);
    // The booklet's task writes the missing ones (a copy of it finds them: the first test).
    assert_eq!(api.server.expand_bulk().await, 1);
    let instalments = instalments_of(&api, booklet).await;
    let numbers: Vec<i64> = instalments.iter().map(|b| b["installment"].as_i64().unwrap()).collect();
    assert_eq!(numbers, [1, 2, 3, 4]);
    api.server.register_billets().await;
    for instalment in &instalments {
        let shown = api.get(&format!("/v1/billings/{}", instalment["id"])).await.expect(200).body;
        assert_eq!(shown["bank_billets"].as_array().unwrap().len(), 1, "one billet each: {shown}");
    }
}

#[tokio::test]
async fn a_carnes_instalments_go_to_the_bank_in_its_remittance() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let store = &api.server.store;
    let rule =
        infra::ops::create_bank_rule(store, api.account_id, "Itaú", "itau", Some(AGREEMENT.into())).await.unwrap();
    let mut body = carne_body(&s, 3, "300.00");
    body["carne"]["bank_rule_id"] = rule["bank_rule"]["id"].clone();
    let booklet = api.post("/v1/carnes", &body).await.expect(201).body["id"].as_i64().unwrap();
    assert_eq!(api.server.register_billets().await, 3, "one billet an instalment, none for the booklet");
    // One CNAB 240 file carries the three, as it would three billings.
    let files = files().await;
    remit(&api, &files).await;
    let listed = infra::ops::remittance::list_remittances(store, api.account_id, 10).await.unwrap();
    let titles = listed["remittances"][0]["titles"].as_array().unwrap().clone();
    let mut remitted: Vec<i64> = titles.iter().map(|t| t["billing_id"].as_i64().unwrap()).collect();
    remitted.sort();
    assert_eq!(remitted, [booklet + 1, booklet + 2, booklet + 3], "{listed}");
}
