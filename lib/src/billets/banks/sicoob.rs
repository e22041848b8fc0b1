//! Sicoob (756) on CNAB 240 (`sicoob`), as Sicoob's "Layout CNAB 240 – Cobrança" and its barcode
//! specification define them.
//!
//! - **Our number**: a sequence of 7 digits and a check digit: the digits of cooperative (4),
//!   client code (10, zeros on the left) and sequence (7) weighted 3, 1, 9, 7, 3, 1, 9, 7, … from the
//!   left, summed; remainder of 11 0 or 1 → `0`, otherwise 11 − remainder.
//! - **Free field** (barcode positions 20–44): carteira `1`, cooperative (4), modalidade `01`, client
//!   code (7), our number (7) and its digit, parcela `001`.
//! - **Agreement**: `cooperativa-dv/conta-dv/código do cliente` (`4327-0/000012345-6/229385`):
//!   cooperative 4 digits, account up to 12, each with its digit, the client (beneficiary) code up
//!   to 7 digits.

use super::digits::{exactly, up_to};
use super::{febraban_240, febraban_reason, Agreement, Bank, Files, Rules, FEBRABAN_MOVEMENTS};
use crate::billets::layouts::sicoob240;

pub const CODE: &str = "756";

pub struct Sicoob;

impl Rules for Sicoob {
    fn parse(&self, text: &str) -> Option<Agreement> {
        let parts: Vec<&str> = text.trim().split('/').collect();
        let [agency, account, client] = parts.as_slice() else { return None };
        let (agency, agency_dv) = agency.split_once('-')?;
        let (account, account_dv) = account.split_once('-')?;
        let ok = exactly(agency, 4)
            && exactly(agency_dv, 1)
            && up_to(account, 12)
            && exactly(account_dv, 1)
            && up_to(client, 7);
        ok.then(|| {
            Agreement::new(vec![
                ("agency", agency.to_owned()),
                ("agency_dv", agency_dv.to_owned()),
                ("account", account.to_owned()),
                ("account_dv", account_dv.to_owned()),
                ("convenio", format!("{client:0>7}")),
                ("header_convenio", String::new()),
                ("batch_convenio", String::new()),
                ("agency_account_dv", String::new()),
                ("bank_name", "SICOOB".to_owned()),
                ("file_layout", "081".to_owned()),
                ("batch_layout", "040".to_owned()),
                ("carteira_code", "1".to_owned()),
            ])
        })
    }

    fn our_number(&self, _a: &Agreement, sequence: i64) -> Option<String> {
        (0..10_000_000).contains(&sequence).then(|| format!("{sequence:07}"))
    }

    fn check_digit(&self, a: &Agreement, our_number: &str) -> String {
        let digits = format!("{}{:0>10}{our_number}", a.get("agency"), a.get("convenio"));
        let weights = [3, 1, 9, 7];
        let sum: Option<u32> =
            digits.chars().enumerate().map(|(n, c)| c.to_digit(10).map(|d| d * weights[n % 4])).sum();
        match sum.map(|s| s % 11) {
            Some(0 | 1) => "0".into(),
            Some(rest) => (11 - rest).to_string(),
            None => String::new(),
        }
    }

    fn printed(&self, a: &Agreement, our_number: &str) -> String {
        format!("{our_number}-{}", self.check_digit(a, our_number))
    }

    fn free_field(&self, a: &Agreement, our_number: &str) -> Option<String> {
        exactly(our_number, 7).then(|| {
            format!("1{}01{}{our_number}{}001", a.get("agency"), a.get("convenio"), self.check_digit(a, our_number))
        })
    }

    fn title_values(&self, a: &Agreement, our_number: &str) -> Vec<(&'static str, String)> {
        vec![("our_number", our_number.to_owned()), ("title_id", self.echoed(a, our_number))]
    }

    /// Segment P's 38–57: our number and digit (10), parcela `01`, modalidade `01`, form `4`, blanks.
    fn echoed(&self, a: &Agreement, our_number: &str) -> String {
        format!("{our_number:0>9}{}01014", self.check_digit(a, our_number))
    }
}

pub static SICOOB_240: Bank = Bank {
    symbol: "sicoob",
    code: CODE,
    title: "Sicoob",
    manual: "Sicoob, \"Layout CNAB 240 – Cobrança Bancária\" (FEBRABAN 240; arquivo 081, lote 040)",
    agreement_format: "cooperativa-dv/conta-dv/código do cliente",
    agreement_example: "4327-0/000012345-6/229385",
    rules: &Sicoob,
    files: Files::Cnab240(&sicoob240::LAYOUT),
    movements: FEBRABAN_MOVEMENTS,
    happened: febraban_240,
    reason: febraban_reason,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_digits_and_free_fields_as_pycobranca_and_python3_boleto_compute_them() {
        // Vectors of PyPI pycobranca 1.1.2 and python3-boleto 1.0.7.
        let a = Sicoob.parse("4327-0/000012345-6/229385").unwrap();
        assert_eq!(Sicoob.check_digit(&a, "0000002"), "4");
        assert_eq!(Sicoob.free_field(&a, "0000002").unwrap(), "1432701022938500000024001");
        assert_eq!(Sicoob.check_digit(&a, "0000007"), "0");
        let b = Sicoob.parse("3069-1/000012345-6/153850").unwrap();
        assert_eq!(Sicoob.free_field(&b, "0203210").unwrap(), "1306901015385002032101001");
    }
}
