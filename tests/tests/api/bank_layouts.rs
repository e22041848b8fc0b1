//! A billing on every bank layout (`billets::banks::ALL`: Itaú 240 and 400, Bradesco 240
//! and 400, Banco do Brasil, Santander, Caixa and Sicoob on 240) goes issued → remittance file →
//! return file → `paid` on the local stack (DynamoDB and S3 of moto). Each remittance is read back
//! field by field, and each return written, by `tests/validators/cnab_others.py`: the layouts of
//! PyPI packages we did not write (python3-cnab's specs for 240, enhanced-cnab's tables for 400),
//! sharing no code with the service. The barcodes and digitable lines pass the npm validators of
//! `validate.js`. Per layout also: a refusal read in words, a protest, and the bank's own write-off.

use std::path::{Path, PathBuf};
use std::process::Command;

use billing_api::billets::banks::{self, Bank, Files};
use billing_api::billets::layout::Source;
use billing_api::payments::boleto::remittance;
use billing_api::values::{BilletId, BillingId};
use serde_json::{json, Value};

use super::bank_files::{billet, files, upload};
use super::billings::{body, setup, Setup};
use super::support::Api;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// `tests/validators/cnab_others.py` with these arguments, in the test venv: its standard output.
fn others(args: &[&str]) -> String {
    let python = root().join(".venv/bin/python");
    let output = Command::new(&python)
        .arg(root().join("tests/validators/cnab_others.py"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{} did not run ({e}); infra/test installs it", python.display()));
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "{args:?}: {text}{}", String::from_utf8_lossy(&output.stderr));
    text
}

/// A billing on `rule`, its billet issued by the registrar.
async fn billing_on(api: &Api, s: &Setup, rule: &Value) -> i64 {
    let mut sent = body(s);
    sent["billing"]["bank_rule_id"] = rule.clone();
    api.post("/v1/billings", &sent).await.expect(201).body["id"].as_i64().unwrap()
}

/// What a return says of a billet of `bank`: its our number as the return's field holds it.
async fn title(api: &Api, bank: &Bank, billing: i64, shown: &Value, movement: &str, extra: Value) -> Value {
    let stored = billing_api::billets::model::find(
        &api.server.store,
        api.account_id,
        BillingId::new(billing),
        BilletId::new(shown["id"].as_i64().unwrap()),
    )
    .await
    .unwrap()
    .unwrap();
    let agreement = bank.agreement(stored.agreement_code.as_deref().unwrap()).unwrap();
    let our = bank.rules.our_number(&agreement, stored.our_sequential_number).unwrap();
    let (field, returned) = match bank.files {
        Files::Cnab240(layout) => (bank.rules.echoed(&agreement, &our), layout.segment_t),
        Files::Cnab400(layout) => (our.clone(), layout.return_detail),
    };
    let due = chrono::NaiveDate::parse_from_str(shown["due_date"].as_str().unwrap(), "%Y-%m-%d").unwrap();
    let mut title = json!({
        "movement": movement,
        "our_number": field,
        "amount": shown["amount"].as_str().unwrap().replace('.', "").parse::<i64>().unwrap(),
        "reference": remittance::reference(stored.billing_id, stored.id),
        "document": "",
        "due": due.format("%d%m%Y").to_string(),
    });
    // Where the return gives the our number's digit a field of its own.
    if returned.fields.iter().any(|f| f.source == Source::Value("our_number_dv")) {
        title["our_number_dv"] = json!(bank.rules.check_digit(&agreement, &our));
    }
    for (key, value) in extra.as_object().unwrap() {
        title[key] = value.clone();
    }
    title
}

/// A return file of `bank` with these titles, written by the others' layouts; its path.
fn return_file(dir: &Path, bank: &Bank, name: &str, titles: &[Value]) -> PathBuf {
    let path = dir.join(format!("{}-{name}.ret", bank.symbol));
    let titles = Value::from(titles.to_vec()).to_string();
    others(&["write-return", "--bank", bank.symbol, "--out", path.to_str().unwrap(), "--titles", &titles]);
    path
}

/// One bank's walk through its files: the test's account, its bucket, the folder the others' files
/// are written to, and the bank.
struct Walk<'a> {
    api: &'a Api,
    files: &'a billing_api::files::Files,
    dir: &'a Path,
    bank: &'static Bank,
}

/// The three billings of a walk: to be paid, refused by the bank, protested.
#[derive(Clone, Copy)]
struct Billings {
    paid: i64,
    refused: i64,
    protested: i64,
}

impl Walk<'_> {
    /// A rule of the bank and three billings on it, their billets issued and waiting for the
    /// remittance; the rule, the billings, and the paid one's codes for `validate.js`.
    async fn issued(&self, s: &Setup) -> (Value, Billings, Value) {
        let (api, bank, who) = (self.api, self.bank, self.bank.symbol);
        let created = infra::ops::create_bank_rule(
            &api.server.store,
            api.account_id,
            bank.title,
            bank.symbol,
            Some(bank.agreement_example.into()),
        )
        .await
        .unwrap();
        let rule = created["bank_rule"]["id"].clone();
        let paid_id = billing_on(api, s, &rule).await;
        let refused_id = billing_on(api, s, &rule).await;
        let protested_id = billing_on(api, s, &rule).await;
        api.server.register_billets().await;
        let waiting = billet(api, paid_id).await;
        assert_eq!(
            (waiting["status"].as_str(), waiting["bank_symbol"].as_str()),
            (Some("pending_remittance"), Some(who))
        );
        let barcode = waiting["barcode"].as_str().unwrap();
        assert!(barcode.starts_with(bank.code), "{who}: {barcode}");
        let document = json!({"barcode": waiting["barcode"], "digitable_line": waiting["digitable_line"],
                              "pix_qr_code": null, "amount": waiting["amount"], "due_date": waiting["due_date"]});
        (rule, Billings { paid: paid_id, refused: refused_id, protested: protested_id }, document)
    }

    /// The remittance of the rule's agreement: one file, three titles, read back by the others.
    async fn remitted(&self, rule: &Value, billings: Billings) {
        let (api, files, bank, who) = (self.api, self.files, self.bank, self.bank.symbol);
        let rule_id = billing_api::values::BankRuleId::new(rule.as_i64().unwrap());
        let made = infra::ops::remittance::create_remittances(&api.server.store, files, api.account_id, Some(rule_id))
            .await
            .unwrap();
        let key = made["remittances"][0]["key"].as_str().unwrap_or_else(|| panic!("{who}: {made}")).to_owned();
        let path = self.dir.join(format!("{who}.rem"));
        std::fs::write(&path, files.get(&key).await.unwrap()).unwrap();
        let read: Value = serde_json::from_str(&others(&["read", "--bank", who, path.to_str().unwrap()])).unwrap();
        let read_titles = read["titles"].as_array().unwrap();
        assert_eq!(read_titles.len(), 3, "{who}: {read}");
        assert_eq!(read["header"]["bank_code"], bank.code, "{who}: {read}");
        let Billings { paid, refused, protested } = billings;
        for (id, theirs) in [paid, refused, protested].into_iter().zip(read_titles) {
            let shown = billet(api, id).await;
            assert_eq!(shown["status"], "remittanced", "{who}: {shown}");
            let ours = title(api, bank, id, &shown, "01", json!({})).await;
            assert_eq!(theirs["movement"], "01", "{who}: {theirs}");
            assert_eq!(theirs["amount_cents"], ours["amount"], "{who}: {theirs}");
            assert_eq!(theirs["due_date"], shown["due_date"], "{who}: {theirs}");
            assert_eq!(theirs["reference"], ours["reference"], "{who}: {theirs}");
            assert_eq!(theirs["payer_document"], "52998224725", "{who}: {theirs}");
            // Their field may be ours whole (with carteira, digit, parcela) or its digits alone.
            let plain = |v: &Value| v.as_str().unwrap().trim().trim_start_matches('0').to_owned();
            let (theirs_on, ours_on) = (plain(&theirs["our_number"]), plain(&ours["our_number"]));
            assert!(
                !theirs_on.is_empty() && (ours_on.contains(&theirs_on) || theirs_on.contains(&ours_on)),
                "{who}: their our number {theirs_on} against {ours_on}"
            );
        }
    }

    /// The bank's return registers the paid and protested billings' billets and refuses the other
    /// one, in words; the billets of the paid and the protested billings as they were shown before.
    async fn registered_or_refused(&self, billings: Billings) -> (Value, Value) {
        let (api, files, bank, who) = (self.api, self.files, self.bank, self.bank.symbol);
        let Billings { paid: paid_id, refused: refused_id, protested: protested_id } = billings;
        let (paid, refused, protested) =
            (billet(api, paid_id).await, billet(api, refused_id).await, billet(api, protested_id).await);
        let confirmed = vec![
            title(api, bank, paid_id, &paid, "02", json!({"occurred": "04032030"})).await,
            title(api, bank, refused_id, &refused, "03", json!({"reasons": "48"})).await,
            title(api, bank, protested_id, &protested, "02", json!({"occurred": "04032030"})).await,
        ];
        let applied = upload(api, files, &return_file(self.dir, bank, "confirmed", &confirmed)).await.unwrap();
        // Applied now, or found applied by a retry of its own write (the fault proxy's 500s).
        let taken = applied["applied_now"].as_i64().unwrap() + applied["already_applied"].as_i64().unwrap();
        assert_eq!(taken, 3, "{who}: {applied}");
        assert_eq!(billet(api, paid_id).await["status"], "opened", "{who}");
        let rejected = billet(api, refused_id).await;
        assert_eq!(rejected["status"], "rejected", "{who}");
        assert!(
            rejected["bank_rejection"].as_str().unwrap().contains("(48)")
                || rejected["bank_rejection"].as_str().unwrap().contains("motivo 48"),
            "{who}: {rejected}"
        );
        (paid, protested)
    }

    /// The next return pays one billing, with fee and credit day, and protests the other.
    async fn paid_and_protested(&self, billings: Billings, paid: &Value, protested: &Value) {
        let (api, files, bank, who) = (self.api, self.files, self.bank, self.bank.symbol);
        let Billings { paid: paid_id, protested: protested_id, .. } = billings;
        let happened = json!({"paid": 2550, "interest": 50, "fee": 180, "net": 2370, "occurred": "05032030", "credit": "06032030"});
        let paid_line = title(api, bank, paid_id, paid, "06", happened).await;
        let protest_line = title(api, bank, protested_id, protested, "23", json!({"occurred": "05032030"})).await;
        upload(api, files, &return_file(self.dir, bank, "paid", &[paid_line, protest_line])).await.unwrap();
        let shown = api.get(&format!("/v1/billings/{paid_id}")).await.expect(200).body;
        assert_eq!(shown["status"], "paid", "{who}: {shown}");
        let paid = &shown["bank_billets"][0];
        assert_eq!(
            (
                paid["paid_amount"].as_str(),
                paid["paid_at"].as_str(),
                paid["credit_at"].as_str(),
                paid["bank_rate"].as_str()
            ),
            (Some("25.50"), Some("2030-03-05"), Some("2030-03-06"), Some("1.80")),
            "{who}: {paid}"
        );
        assert_eq!(billet(api, protested_id).await["status"], "protested", "{who}");
    }

    /// The bank writes the protested title off on its own: cancelled.
    async fn written_off(&self, protested_id: i64, protested: &Value) {
        let (api, bank, who) = (self.api, self.bank, self.bank.symbol);
        let off = title(api, bank, protested_id, protested, "09", json!({"occurred": "06032030"})).await;
        upload(api, self.files, &return_file(self.dir, bank, "off", &[off])).await.unwrap();
        assert_eq!(billet(api, protested_id).await["status"], "canceled", "{who}");
    }
}

#[tokio::test]
async fn a_billing_on_every_bank_layout_goes_from_issued_to_paid_through_its_files() {
    let api = Api::start().await;
    let files = files().await;
    let s = setup(&api).await;
    let dir = std::env::temp_dir().join(format!("cnab-layouts-{}-{}", std::process::id(), api.account_id));
    std::fs::create_dir_all(&dir).unwrap();
    let mut documents = Vec::new();
    for bank in banks::ALL {
        let walk = Walk { api: &api, files: &files, dir: &dir, bank };
        let (rule, billings, document) = walk.issued(&s).await;
        documents.push(document);
        walk.remitted(&rule, billings).await;
        let (paid, protested) = walk.registered_or_refused(billings).await;
        walk.paid_and_protested(billings, &paid, &protested).await;
        walk.written_off(billings.protested, &protested).await;
    }
    let verdict = infra::testing::independent_check("validate.js", &Value::from(documents));
    assert_eq!(verdict["ok"], true, "{verdict}");
    let _ = std::fs::remove_dir_all(&dir);
}
