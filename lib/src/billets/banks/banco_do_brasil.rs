//! Banco do Brasil (001) on CNAB 240 (`banco_do_brasil`), for agreements (convênios) of 7 digits,
//! as BB's "Especificações técnicas do boleto" and its CNAB 240 collection layout define them.
//!
//! - **Our number**: convênio (7) + sequence (10), 17 digits, no check digit.
//! - **Free field** (barcode positions 20–44): `000000`, the our number (17), carteira (2).
//! - **Agreement**: `agência-dv/conta-dv/convênio/carteira-variação` (`1234-3/00012345-6/1234567/17-019`):
//!   agency 4 digits, account 8, each with its digit (a digit or `X`), convênio 7 digits (BB's older
//!   convênios of 4 and 6 digits number billets otherwise and are refused), carteira 2, variação 3.

use super::digits::exactly;
use super::{febraban_240, febraban_reason, Agreement, Bank, Files, Rules, FEBRABAN_MOVEMENTS};
use crate::billets::layouts::banco_do_brasil240;

pub const CODE: &str = "001";

pub struct BancoDoBrasil;

fn bb_dv(text: &str) -> bool {
    text.len() == 1 && (text.bytes().all(|b| b.is_ascii_digit()) || text == "X")
}

impl Rules for BancoDoBrasil {
    fn parse(&self, text: &str) -> Option<Agreement> {
        let parts: Vec<&str> = text.trim().split('/').collect();
        let [agency, account, convenio, carteira] = parts.as_slice() else { return None };
        let (agency, agency_dv) = agency.split_once('-')?;
        let (account, account_dv) = account.split_once('-')?;
        let (carteira, variation) = carteira.split_once('-')?;
        let ok = exactly(agency, 4)
            && bb_dv(agency_dv)
            && exactly(account, 8)
            && bb_dv(account_dv)
            && exactly(convenio, 7)
            && exactly(carteira, 2)
            && exactly(variation, 3);
        let field = format!("{convenio:0>9}0014{carteira}{variation}");
        ok.then(|| {
            Agreement::new(vec![
                ("agency", agency.to_owned()),
                ("agency_dv", agency_dv.to_owned()),
                ("account", account.to_owned()),
                ("account_dv", account_dv.to_owned()),
                ("convenio", (*convenio).to_owned()),
                ("carteira", carteira.to_owned()),
                ("variation", variation.to_owned()),
                ("header_convenio", field.clone()),
                ("batch_convenio", field),
                ("agency_account_dv", String::new()),
                ("bank_name", "BANCO DO BRASIL".to_owned()),
                ("file_layout", "030".to_owned()),
                ("batch_layout", "020".to_owned()),
                ("carteira_code", "1".to_owned()),
            ])
        })
    }

    fn our_number(&self, a: &Agreement, sequence: i64) -> Option<String> {
        (0..10_000_000_000).contains(&sequence).then(|| format!("{}{sequence:010}", a.get("convenio")))
    }

    fn check_digit(&self, _a: &Agreement, _our_number: &str) -> String {
        String::new()
    }

    fn printed(&self, _a: &Agreement, our_number: &str) -> String {
        our_number.to_owned()
    }

    fn free_field(&self, a: &Agreement, our_number: &str) -> Option<String> {
        exactly(our_number, 17).then(|| format!("000000{our_number}{}", a.get("carteira")))
    }

    fn title_values(&self, _a: &Agreement, our_number: &str) -> Vec<(&'static str, String)> {
        vec![("our_number", our_number.to_owned()), ("title_id", our_number.to_owned())]
    }
}

pub static BANCO_DO_BRASIL_240: Bank = Bank {
    symbol: "banco_do_brasil",
    code: CODE,
    title: "Banco do Brasil",
    manual: "Banco do Brasil, \"Layout de Arquivo Retorno/Remessa – CNAB 240\" (cobrança, FEBRABAN 240; versões de layout como as tem o cnab_yaml: arquivo 030, lote 020)",
    agreement_format: "agência-dv/conta-dv/convênio/carteira-variação",
    agreement_example: "1234-3/00012345-6/1234567/17-019",
    rules: &BancoDoBrasil,
    files: Files::Cnab240(&banco_do_brasil240::LAYOUT),
    movements: FEBRABAN_MOVEMENTS,
    happened: febraban_240,
    reason: febraban_reason,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_free_field_as_pycobranca_and_python3_boleto_compute_it() {
        // Vectors computed by PyPI pycobranca 1.1.2 and python3-boleto 1.0.7 (convênio 3128557,
        // carteira 17, sequence 9876543210).
        let a = BancoDoBrasil.parse("3064-1/00098765-X/3128557/17-019").unwrap();
        let our = BancoDoBrasil.our_number(&a, 9_876_543_210).unwrap();
        assert_eq!(our, "31285579876543210");
        assert_eq!(BancoDoBrasil.free_field(&a, &our).unwrap(), "0000003128557987654321017");
        assert_eq!(a.get("header_convenio"), "003128557001417019");
        for bad in ["3064-1/00098765-X/312855/17-019", "3064-1/00098765-X/3128557/17", "3064/00098765-X/3128557/17-019"]
        {
            assert_eq!(BancoDoBrasil.parse(bad), None, "{bad}");
        }
    }
}
