//! Caixa Econômica Federal (104) on CNAB 240 (`caixa`), SIGCB, as Caixa's "Especificações do
//! Código de Barras" and its CNAB 240 collection layout define them.
//!
//! - **Our number**: 17 digits, `14` (registered, issued by the beneficiary) + a sequence of 15; its
//!   check digit modulo 11 with weights 2 to 9 from the right, 10 and 11 → `0`.
//! - **Free field** (barcode positions 20–44): the beneficiary's code (6) and its digit, sequence
//!   digits 1–3, `1` (registered), digits 4–6, `4` (issued by the beneficiary), digits 7–15, and the
//!   free field's own digit (modulo 11 as above).
//! - **Agreement**: `agência/código do beneficiário-dv` (`1234/123456-0`): agency 4 digits, the
//!   beneficiary's code 6 digits with its digit (modulo 11, checked).

use super::digits::{exactly, mod11};
use super::{febraban_240, febraban_reason, Agreement, Bank, Files, Rules, FEBRABAN_MOVEMENTS};
use crate::billets::layouts::caixa240;

pub const CODE: &str = "104";

pub struct Caixa;

impl Rules for Caixa {
    fn parse(&self, text: &str) -> Option<Agreement> {
        let (agency, code) = text.trim().split_once('/')?;
        let (code, dv) = code.split_once('-')?;
        if !exactly(agency, 4) || !exactly(code, 6) || !exactly(dv, 1) {
            return None;
        }
        let code_dv = mod11(code, 9, 0)?.to_string();
        (code_dv == dv).then(|| {
            Agreement::new(vec![
                ("agency", agency.to_owned()),
                ("agency_dv", "0".to_owned()),
                ("convenio", code.to_owned()),
                ("convenio_dv", code_dv.clone()),
                // The beneficiary's account at Caixa, as the slip shows it, is this code.
                ("account", code.to_owned()),
                ("account_dv", code_dv),
            ])
        })
    }

    /// The sequence of 15 digits (the slip prints `14` before it).
    fn our_number(&self, _a: &Agreement, sequence: i64) -> Option<String> {
        (0..1_000_000_000_000_000).contains(&sequence).then(|| format!("{sequence:015}"))
    }

    fn check_digit(&self, _a: &Agreement, our_number: &str) -> String {
        mod11(&format!("14{our_number}"), 9, 0).map(|d| d.to_string()).unwrap_or_default()
    }

    fn printed(&self, a: &Agreement, our_number: &str) -> String {
        format!("14{our_number}-{}", self.check_digit(a, our_number))
    }

    fn free_field(&self, a: &Agreement, our_number: &str) -> Option<String> {
        if !exactly(our_number, 15) {
            return None;
        }
        let (first, second, third) = (&our_number[..3], &our_number[3..6], &our_number[6..]);
        let field = format!("{}{}{first}1{second}4{third}", a.get("convenio"), a.get("convenio_dv"));
        Some(format!("{field}{}", mod11(&field, 9, 0)?))
    }
}

pub static CAIXA_240: Bank = Bank {
    symbol: "caixa",
    code: CODE,
    title: "Caixa",
    manual: "Caixa, \"Leiaute de Arquivo Eletrônico Padrão CNAB 240 – Cobrança Bancária CAIXA\" (SIGCB; versões de layout como as tem o cnab_yaml: arquivo 050, lote 030)",
    agreement_format: "agência/código do beneficiário-dv",
    agreement_example: "2004/654321-9",
    rules: &Caixa,
    files: Files::Cnab240(&caixa240::LAYOUT),
    movements: FEBRABAN_MOVEMENTS,
    happened: febraban_240,
    reason: febraban_reason,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_digits_and_free_fields_as_pycobranca_and_python3_boleto_compute_them() {
        // Vectors of PyPI pycobranca 1.1.2 and python3-boleto 1.0.7: beneficiary 654321 (digit 9).
        let a = Caixa.parse("2004/654321-9").unwrap();
        assert_eq!(Caixa.check_digit(&a, "000000000000005"), "7");
        assert_eq!(Caixa.free_field(&a, "000000000000005").unwrap(), "6543219000100040000000050");
        assert_eq!(Caixa.free_field(&a, "123456789012345").unwrap(), "6543219123145647890123453");
        let b = Caixa.parse("1234/123456-0").unwrap();
        assert_eq!(Caixa.check_digit(&b, "000000000000001"), "4");
        assert_eq!(Caixa.free_field(&b, "000000000000001").unwrap(), "1234560000100040000000013");
        assert_eq!(Caixa.parse("2004/654321-8"), None, "a wrong digit");
    }
}
