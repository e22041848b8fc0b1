//! Santander (033) on CNAB 240 (`santander`), as Santander's "Layout de Arquivos – Padrão FEBRABAN
//! 240 posições" and its barcode specification define them.
//!
//! - **Our number**: 12 digits and a check digit, modulo 11 with weights 2 to 9 from the right:
//!   remainder 0 or 1 → `0`, otherwise 11 − remainder.
//! - **Free field** (barcode positions 20–44): `9`, the beneficiary's code (7), our number (12) and its
//!   digit, IOF `0`, carteira (3).
//! - **Agreement**: `agência-dv/conta-dv/código do beneficiário/código de transmissão/carteira`
//!   (`4042-8/013000456-7/0282033/404200000282033/101`): agency 4 digits, account 9, each with its
//!   digit, the beneficiary's code 7, the transmission code Santander gives the beneficiary for its
//!   files (15), carteira 3 (101 rápida com registro, 102 sem registro, 201 penhor).

use super::digits::{exactly, mod11};
use super::{febraban_240, febraban_reason, Agreement, Bank, Files, Rules, FEBRABAN_MOVEMENTS};
use crate::billets::layouts::santander240;

pub const CODE: &str = "033";

pub struct Santander;

impl Rules for Santander {
    fn parse(&self, text: &str) -> Option<Agreement> {
        let parts: Vec<&str> = text.trim().split('/').collect();
        let [agency, account, code, transmission, carteira] = parts.as_slice() else { return None };
        let (agency, agency_dv) = agency.split_once('-')?;
        let (account, account_dv) = account.split_once('-')?;
        let ok = exactly(agency, 4)
            && exactly(agency_dv, 1)
            && exactly(account, 9)
            && exactly(account_dv, 1)
            && exactly(code, 7)
            && exactly(transmission, 15)
            && exactly(carteira, 3);
        // Tipo de cobrança of segment P: 5 for the carteira rápida com registro (101), 1 otherwise.
        let carteira_code = if *carteira == "101" { "5" } else { "1" };
        ok.then(|| {
            Agreement::new(vec![
                ("agency", agency.to_owned()),
                ("agency_dv", agency_dv.to_owned()),
                ("account", account.to_owned()),
                ("account_dv", account_dv.to_owned()),
                ("convenio", (*code).to_owned()),
                ("transmission", (*transmission).to_owned()),
                ("carteira", (*carteira).to_owned()),
                ("carteira_code", carteira_code.to_owned()),
            ])
        })
    }

    fn our_number(&self, _a: &Agreement, sequence: i64) -> Option<String> {
        (0..1_000_000_000_000).contains(&sequence).then(|| format!("{sequence:012}"))
    }

    fn check_digit(&self, _a: &Agreement, our_number: &str) -> String {
        mod11(our_number, 9, 0).map(|d| d.to_string()).unwrap_or_default()
    }

    fn printed(&self, a: &Agreement, our_number: &str) -> String {
        format!("{our_number}-{}", self.check_digit(a, our_number))
    }

    fn free_field(&self, a: &Agreement, our_number: &str) -> Option<String> {
        exactly(our_number, 12).then(|| {
            format!("9{}{our_number}{}0{}", a.get("convenio"), self.check_digit(a, our_number), a.get("carteira"))
        })
    }

    fn title_values(&self, a: &Agreement, our_number: &str) -> Vec<(&'static str, String)> {
        let with_dv = format!("{our_number}{}", self.check_digit(a, our_number));
        vec![("our_number", our_number.to_owned()), ("title_id", with_dv)]
    }

    fn echoed(&self, a: &Agreement, our_number: &str) -> String {
        format!("{our_number}{}", self.check_digit(a, our_number))
    }
}

pub static SANTANDER_240: Bank = Bank {
    symbol: "santander",
    code: CODE,
    title: "Santander",
    manual: "Santander, \"Layout de Arquivos – Padrão FEBRABAN 240 posições\" (cobrança; arquivo 040, lote 030)",
    agreement_format: "agência-dv/conta-dv/código do beneficiário/código de transmissão/carteira",
    agreement_example: "4042-8/013000456-7/0282033/404200000282033/101",
    rules: &Santander,
    files: Files::Cnab240(&santander240::LAYOUT),
    movements: FEBRABAN_MOVEMENTS,
    happened: febraban_240,
    reason: febraban_reason,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_digits_and_free_fields_as_pycobranca_and_python3_boleto_compute_them() {
        let a = Santander.parse("4042-8/013000456-7/0282033/404200000282033/101").unwrap();
        // Vectors of PyPI pycobranca 1.1.2 and python3-boleto 1.0.7.
        assert_eq!(Santander.check_digit(&a, "000000000005"), "1");
        assert_eq!(Santander.check_digit(&a, "000000000006"), "0");
        assert_eq!(Santander.free_field(&a, "000000000005").unwrap(), "9028203300000000000510101");
        let b = Santander.parse("4042-8/013000456-7/9189977/404200000282033/101").unwrap();
        assert_eq!(Santander.free_field(&b, "566612457800").unwrap(), "9918997756661245780020101");
        assert_eq!(Santander.parse("4042-8/013000456-7/0282033/101"), None);
    }
}
