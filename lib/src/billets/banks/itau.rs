//! Banco Itaú (341), on CNAB 240 (`itau`) and CNAB 400 (`itau_400`): the our number's check digit
//! (DAC), the barcode's free field and the agreement (agency, account and its DAC, carteira), as
//! Itaú's "Cobrança – CNAB 240" and "Cobrança – CNAB 400" manuals define them.
//!
//! - **Our number**: 8 digits, with a DAC: modulo 10 (weights 2, 1, 2, … from the right, the digits
//!   of each product summed) of agency (4) + account (5) + carteira (3) + our number (8); for the
//!   carteiras 126, 131, 146, 150 and 168 of carteira + our number only.
//! - **Free field** (barcode positions 20–44): carteira (3), our number (8), its DAC (1), agency (4),
//!   account (5), the DAC of agency + account (1), `000`.
//! - **Agreement**: `agency/account-DAC/carteira` (`0057/12345-7/109`), the DAC checked.

use super::digits::{exactly, mod10};
use super::{febraban_240, febraban_reason, Agreement, Bank, Files, Happened, Rules, FEBRABAN_MOVEMENTS};
use crate::billets::layouts::{itau240, itau400};

pub const CODE: &str = "341";

/// The carteiras whose our-number DAC leaves out agency and account.
const CARTEIRAS_WITHOUT_ACCOUNT: [&str; 5] = ["126", "131", "146", "150", "168"];

pub struct Itau;

impl Rules for Itau {
    fn parse(&self, text: &str) -> Option<Agreement> {
        let mut parts = text.trim().split('/');
        let (agency, account, carteira) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() {
            return None;
        }
        let (account, dac) = account.split_once('-')?;
        if !exactly(agency, 4) || !exactly(account, 5) || !exactly(carteira, 3) || !exactly(dac, 1) {
            return None;
        }
        let account_dac = mod10(&format!("{agency}{account}"))?;
        (dac.parse::<u32>().ok()? == account_dac).then(|| {
            Agreement::new(vec![
                ("agency", agency.to_owned()),
                ("account", account.to_owned()),
                ("account_dac", account_dac.to_string()),
                ("account_dv", account_dac.to_string()),
                ("carteira", carteira.to_owned()),
            ])
        })
    }

    fn our_number(&self, _agreement: &Agreement, sequence: i64) -> Option<String> {
        (0..100_000_000).contains(&sequence).then(|| format!("{sequence:08}"))
    }

    fn check_digit(&self, a: &Agreement, our_number: &str) -> String {
        let carteira = a.get("carteira");
        let digits = match CARTEIRAS_WITHOUT_ACCOUNT.contains(&carteira) {
            true => format!("{carteira}{our_number}"),
            false => format!("{}{}{carteira}{our_number}", a.get("agency"), a.get("account")),
        };
        mod10(&digits).map(|d| d.to_string()).unwrap_or_default()
    }

    fn printed(&self, a: &Agreement, our_number: &str) -> String {
        format!("{}/{our_number}-{}", a.get("carteira"), self.check_digit(a, our_number))
    }

    fn free_field(&self, a: &Agreement, our_number: &str) -> Option<String> {
        exactly(our_number, 8).then(|| {
            let dac = self.check_digit(a, our_number);
            format!(
                "{}{our_number}{dac}{}{}{}000",
                a.get("carteira"),
                a.get("agency"),
                a.get("account"),
                a.get("account_dac")
            )
        })
    }

    fn title_values(&self, a: &Agreement, our_number: &str) -> Vec<(&'static str, String)> {
        vec![("our_number", our_number.to_owned()), ("our_number_dac", self.check_digit(a, our_number))]
    }
}

pub static ITAU_240: Bank = Bank {
    symbol: "itau",
    code: CODE,
    title: "Itaú",
    manual: "Itaú, \"Cobrança – CNAB 240\", layout de arquivo 040 e de lote 030",
    agreement_format: "agência/conta-DAC/carteira",
    agreement_example: "0057/12345-7/109",
    rules: &Itau,
    files: Files::Cnab240(&itau240::LAYOUT),
    movements: FEBRABAN_MOVEMENTS,
    happened: febraban_240,
    reason: febraban_reason,
};

pub static ITAU_400: Bank = Bank {
    symbol: "itau_400",
    code: CODE,
    title: "Itaú",
    manual: "Itaú, \"Cobrança – CNAB 400\" (remessa e retorno de 400 posições)",
    agreement_format: "agência/conta-DAC/carteira",
    agreement_example: "0057/12345-7/109",
    rules: &Itau,
    files: Files::Cnab400(&itau400::LAYOUT),
    movements: FEBRABAN_MOVEMENTS,
    happened: itau_400,
    reason: itau_400_reason,
};

/// The occurrence codes of Itaú's CNAB 400 return (positions 109–110 of the detail).
fn itau_400(code: &str) -> Happened {
    match code {
        "02" => Happened::Registered,
        "03" => Happened::Refused,
        "06" | "07" | "08" => Happened::Paid,
        "09" | "10" | "32" => Happened::WrittenOff,
        "23" => Happened::Protested,
        _ => Happened::Other,
    }
}

/// Itaú's CNAB 400 refusal reasons (the "erros" of positions 378–385 of an entry refused, 03).
fn itau_400_reason(code: &str) -> Option<&'static str> {
    Some(match code {
        "03" => "CEP inválido ou sem agência cobradora",
        "04" => "sigla do estado inválida",
        "05" => "data de vencimento inválida ou fora do prazo",
        "07" => "valor do título inválido",
        "08" => "nome do pagador não informado ou deslocado",
        "09" => "agência ou conta encerrada",
        "10" => "CNPJ ou CPF do pagador inválido",
        "11" => "CEP não numérico",
        "12" => "nome do pagador não informado",
        "13" => "endereço do pagador não informado",
        "14" => "registro em duplicidade",
        "15" => "nosso número em duplicidade",
        "16" => "data de vencimento inválida",
        "17" => "data de vencimento anterior à data de emissão",
        "19" => "carteira inválida",
        "21" => "espécie do título inválida",
        "24" => "data de emissão inválida",
        "27" => "valor ou taxa de juros de mora inválido",
        "42" => "código de inscrição do pagador inválido",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::billets::payment_codes::{barcode_is_valid, digitable_line};

    fn agreement() -> Agreement {
        Itau.parse("0057/12345-7/109").unwrap()
    }

    #[test]
    fn an_agreement_reads_back_and_checks_its_account_digit() {
        let a = agreement();
        assert_eq!(
            (a.get("agency"), a.get("account"), a.get("account_dac"), a.get("carteira")),
            ("0057", "12345", "7", "109")
        );
        for bad in ["0057/12345-6/109", "57/12345-7/109", "0057/12345/109", "0057/12345-7/10", "0057/12345-7/109/1", ""]
        {
            assert_eq!(Itau.parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_free_field_and_barcode_of_a_billet() {
        let a = agreement();
        let our_number = Itau.our_number(&a, 12_345_678).unwrap();
        let dac = Itau.check_digit(&a, &our_number);
        assert_eq!(dac, mod10("00571234510912345678").unwrap().to_string());
        assert_eq!(Itau.free_field(&a, &our_number).unwrap(), format!("10912345678{dac}0057123457000"));
        assert_eq!(Itau.printed(&a, &our_number), format!("109/12345678-{dac}"));
        let code = ITAU_240.barcode(&a, &our_number, "2030-03-04".parse().unwrap(), "150.00".parse().unwrap()).unwrap();
        assert!(code.starts_with("3419") && barcode_is_valid(&code), "{code}");
        assert_eq!(&code[19..], Itau.free_field(&a, &our_number).unwrap());
        assert_eq!(digitable_line(&code).unwrap().len(), 54);
        // Carteiras that leave the account out of the DAC.
        let special = Itau.parse("0057/12345-7/126").unwrap();
        assert_eq!(Itau.check_digit(&special, &our_number), mod10(&format!("126{our_number}")).unwrap().to_string());
        assert_eq!(Itau.our_number(&a, 100_000_000), None);
    }
}
