//! The Itaú CNAB 240 remittance file read back field by field through an
//! independent implementation of the bank's layout (`febraban` from PyPI, in the test venv:
//! tests/validators/cnab240_itau.py), and the return file fixture (tests/fixtures/cnab240) read by
//! both. Files here are built from titles directly; the stored round trip is `bank_files.rs`.

use std::process::Command;

use billing_api::billets::banks::itau::ITAU_240;
use billing_api::billets::cnab::{Beneficiary, Movement, Payer, Title};
use billing_api::billets::layouts::itau240;
use billing_api::values::Money;
use serde_json::json;

fn title(our_number: &str, amount: &str, payer: Payer) -> Title {
    Title {
        movement: Movement::Register,
        our_number: our_number.into(),
        document_number: "0000000012".into(),
        due_date: "2030-03-04".parse().unwrap(),
        amount: Money::parse(amount).unwrap(),
        issued_on: "2030-02-01".parse().unwrap(),
        interest_per_day: Money::parse("0.05").unwrap(),
        penalty: Money::parse("3.00").unwrap(),
        payer,
        reference: "b7c1d1a45f0e4c3a9b1e2d9f1".into(),
    }
}

/// `tests/validators/cnab240_itau.py` with these arguments: its standard output, once it succeeded.
pub(super) fn checker(args: &[&std::path::Path]) -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let python = root.join(".venv/bin/python");
    let output = Command::new(&python)
        .arg(root.join("tests/validators/cnab240_itau.py"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{} did not run ({e}); infra/test installs it", python.display()));
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "{text}{}", String::from_utf8_lossy(&output.stderr));
    text
}

#[test]
fn the_return_fixture_reads_the_same_through_both_parsers() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let path = root.join("tests/fixtures/cnab240/itau-return-paid.ret");
    let ours = billing_api::billets::cnab_return::parse(&std::fs::read_to_string(&path).unwrap()).unwrap().titles;
    let theirs: serde_json::Value = serde_json::from_str(&checker(&[std::path::Path::new("--return"), &path])).unwrap();
    let theirs = theirs.as_array().unwrap();
    assert_eq!(ours.len(), theirs.len());
    let cents = |m: Money| m.to_string().replace('.', "").parse::<i64>().unwrap();
    for (ours, theirs) in ours.iter().zip(theirs) {
        assert_eq!(theirs["movement"], ours.movement.as_str());
        assert_eq!(theirs["amount_cents"], cents(ours.amount));
        assert_eq!(theirs["reference"], ours.reference.as_str());
        assert_eq!(theirs["interest_cents"], cents(ours.interest));
        assert_eq!(theirs["discount_cents"], cents(ours.discount));
    }
    assert_eq!((theirs[0]["status"].as_str(), theirs[1]["status"].as_str()), (Some("registered"), Some("paid")));
}

#[test]
fn an_itau_remittance_reads_back_through_an_independent_implementation() {
    let agreement = ITAU_240.agreement("0057/12345-7/109").unwrap();
    let beneficiary =
        Beneficiary { document: "11222333000181".into(), name: "Clínica Exemplo Ltda".into(), agreement };
    let maria = Payer {
        document: "52998224725".into(),
        name: "Maria da Conceição Silva".into(),
        street: "Avenida Paulista, 1000, apto 12".into(),
        district: "Bela Vista".into(),
        postal_code: "01310100".into(),
        city: "São Paulo".into(),
        state: "SP".into(),
    };
    let company = Payer {
        document: "11444777000161".into(),
        name: "Exemplo Comércio e Representações Ltda".into(),
        street: "Rua da Assembleia, 10".into(),
        district: "Centro".into(),
        postal_code: "20040002".into(),
        city: "Rio de Janeiro".into(),
        state: "RJ".into(),
    };
    let titles = vec![title("00000001", "150.00", maria.clone()), title("12345678", "1234567.89", company.clone())];
    let at = "2030-02-01T10:11:12".parse().unwrap();
    let file = billing_api::billets::cnab240::remittance(&ITAU_240, &itau240::LAYOUT, &beneficiary, &titles, 1, at);
    let described = json!({
        "agency": "0057", "account": "12345", "account_dac": 7, "carteira": "109",
        "titles": titles.iter().map(|t| json!({
            "our_number": t.our_number,
            "due_date": t.due_date.to_string(),
            "amount_cents": t.amount.to_string().replace('.', "").parse::<u64>().unwrap(),
            "payer": {"document": t.payer.document, "name": t.payer.name, "street": t.payer.street,
                      "district": t.payer.district, "postal_code": t.payer.postal_code, "city": t.payer.city,
                      "state": t.payer.state},
        })).collect::<Vec<_>>(),
    });
    let dir = std::env::temp_dir().join(format!("cnab-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (remittance_path, json_path) = (dir.join("remessa.rem"), dir.join("titles.json"));
    std::fs::write(&remittance_path, &file).unwrap();
    std::fs::write(&json_path, described.to_string()).unwrap();
    let text = checker(&[&remittance_path, &json_path]);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(text.contains("2 titles, 0 mismatches"), "{text}");
    println!("{text}");
}
