//! Banco Bradesco (237), on CNAB 240 (`bradesco`) and CNAB 400 (`bradesco_400`), as Bradesco's
//! "Cobrança Bradesco – Layout de arquivo CNAB 400" and "CNAB 240 – Cobrança" manuals define them.
//!
//! - **Our number**: 11 digits, its check digit modulo 11 of carteira (2) + our number (11), weights
//!   2 to 7 from the right: remainder 0 → `0`, 1 → `P`, otherwise 11 − remainder.
//! - **Free field** (barcode positions 20–44): agency (4), carteira (2), our number (11), account (7),
//!   `0`.
//! - **Agreement**: `agência-dv/conta-dv/carteira/código da empresa`
//!   (`1234-0/0012345-6/09/4567890`): agency 4 digits, account 7, each with its digit (a digit or
//!   `P`, as Bradesco prints them), carteira 2 digits, and the company code Bradesco gives the
//!   beneficiary (up to 20 digits; the 400 header's "código da empresa", the 240 header's
//!   "código do convênio").

use super::digits::{exactly, mod11_sum, up_to};
use super::{febraban_240, febraban_reason, Agreement, Bank, Files, Happened, Rules, FEBRABAN_MOVEMENTS};
use crate::billets::layouts::{bradesco240, bradesco400};

pub const CODE: &str = "237";

pub struct Bradesco;

impl Bradesco {
    /// Segment P's "identificação do título no banco" (38–57), echoed by T: carteira (3), zeros
    /// (5), our number (11) and its digit.
    fn title_id(&self, a: &Agreement, our_number: &str) -> String {
        format!("{:0>3}00000{our_number}{}", a.get("carteira"), self.check_digit(a, our_number))
    }
}

/// A check digit as Bradesco prints them: a digit, or `P`.
fn bradesco_dv(text: &str) -> bool {
    text.len() == 1 && (text.bytes().all(|b| b.is_ascii_digit()) || text == "P")
}

impl Rules for Bradesco {
    fn parse(&self, text: &str) -> Option<Agreement> {
        let parts: Vec<&str> = text.trim().split('/').collect();
        let [agency, account, carteira, company] = parts.as_slice() else { return None };
        let (agency, agency_dv) = agency.split_once('-')?;
        let (account, account_dv) = account.split_once('-')?;
        let ok = exactly(agency, 4)
            && bradesco_dv(agency_dv)
            && exactly(account, 7)
            && bradesco_dv(account_dv)
            && exactly(carteira, 2)
            && up_to(company, 20);
        ok.then(|| {
            Agreement::new(vec![
                ("agency", agency.to_owned()),
                ("agency_dv", agency_dv.to_owned()),
                ("account", account.to_owned()),
                ("account_dv", account_dv.to_owned()),
                ("carteira", (*carteira).to_owned()),
                ("convenio", format!("{company:0>20}")),
                // What FEBRABAN's 240 records take (`layouts::febraban240`).
                ("header_convenio", format!("{company:0>20}")),
                ("batch_convenio", format!("{company:0>20}")),
                ("agency_account_dv", String::new()),
                ("bank_name", "BRADESCO".to_owned()),
                ("file_layout", "084".to_owned()),
                ("batch_layout", "042".to_owned()),
                ("carteira_code", "1".to_owned()),
            ])
        })
    }

    fn our_number(&self, _agreement: &Agreement, sequence: i64) -> Option<String> {
        (0..100_000_000_000).contains(&sequence).then(|| format!("{sequence:011}"))
    }

    fn check_digit(&self, a: &Agreement, our_number: &str) -> String {
        match mod11_sum(&format!("{}{our_number}", a.get("carteira")), 7).map(|sum| sum % 11) {
            Some(0) => "0".into(),
            Some(1) => "P".into(),
            Some(rest) => (11 - rest).to_string(),
            None => String::new(),
        }
    }

    fn printed(&self, a: &Agreement, our_number: &str) -> String {
        format!("{}/{our_number}-{}", a.get("carteira"), self.check_digit(a, our_number))
    }

    fn free_field(&self, a: &Agreement, our_number: &str) -> Option<String> {
        exactly(our_number, 11)
            .then(|| format!("{}{}{our_number}{}0", a.get("agency"), a.get("carteira"), a.get("account")))
    }

    fn echoed(&self, a: &Agreement, our_number: &str) -> String {
        self.title_id(a, our_number)
    }

    fn title_values(&self, a: &Agreement, our_number: &str) -> Vec<(&'static str, String)> {
        vec![
            ("our_number", our_number.to_owned()),
            ("our_number_dv", self.check_digit(a, our_number)),
            ("title_id", self.title_id(a, our_number)),
        ]
    }
}

pub static BRADESCO_240: Bank = Bank {
    symbol: "bradesco",
    code: CODE,
    title: "Bradesco",
    manual: "Bradesco, \"Layout CNAB 240 – Cobrança\" (FEBRABAN 240, arquivo 089, lote 045)",
    agreement_format: "agência-dv/conta-dv/carteira/código da empresa",
    agreement_example: "1234-0/0012345-6/09/4567890",
    rules: &Bradesco,
    files: Files::Cnab240(&bradesco240::LAYOUT),
    movements: FEBRABAN_MOVEMENTS,
    happened: febraban_240,
    reason: febraban_reason,
};

pub static BRADESCO_400: Bank = Bank {
    symbol: "bradesco_400",
    code: CODE,
    title: "Bradesco",
    manual: "Bradesco, \"Cobrança Bradesco – Layout de arquivo CNAB 400\" (remessa e retorno)",
    agreement_format: "agência-dv/conta-dv/carteira/código da empresa",
    agreement_example: "1234-0/0012345-6/09/4567890",
    rules: &Bradesco,
    files: Files::Cnab400(&bradesco400::LAYOUT),
    movements: FEBRABAN_MOVEMENTS,
    happened: bradesco_400,
    reason: bradesco_400_reason,
};

/// The occurrence codes of Bradesco's CNAB 400 return (positions 109–110).
fn bradesco_400(code: &str) -> Happened {
    match code {
        "02" => Happened::Registered,
        "03" => Happened::Refused,
        "06" | "15" | "17" => Happened::Paid,
        "09" | "10" => Happened::WrittenOff,
        "23" => Happened::Protested,
        _ => Happened::Other,
    }
}

/// Bradesco's CNAB 400 refusal reasons of an entry refused (03), positions 319–328.
fn bradesco_400_reason(code: &str) -> Option<&'static str> {
    Some(match code {
        "02" => "código do registro detalhe inválido",
        "03" => "código da ocorrência inválida",
        "04" => "código de ocorrência não permitida para a carteira",
        "05" => "código de ocorrência não numérico",
        "07" => "agência, conta ou dígito inválido",
        "08" => "nosso número inválido",
        "09" => "nosso número duplicado",
        "10" => "carteira inválida",
        "13" => "identificação da emissão do bloqueto inválida",
        "16" => "data de vencimento inválida",
        "18" => "vencimento fora do prazo de operação",
        "20" => "valor do título inválido",
        "21" => "espécie do título inválida",
        "22" => "espécie não permitida para a carteira",
        "24" => "data de emissão inválida",
        "28" => "código do desconto inválido",
        "38" => "prazo para protesto inválido",
        "44" => "agência do beneficiário não prevista",
        "45" => "nome do pagador não informado",
        "46" => "tipo ou número de inscrição do pagador inválido",
        "47" => "endereço do pagador não informado",
        "48" => "CEP inválido",
        "50" => "CEP irregular: banco correspondente",
        "63" => "entrada para título já cadastrado",
        "65" => "limite excedido",
        "66" => "número de autorização inexistente",
        "68" => "débito não agendado: erro nos dados da remessa",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::billets::payment_codes::barcode_is_valid;

    #[test]
    fn the_our_number_digit_free_field_and_barcode() {
        let a = Bradesco.parse("1234-0/0012345-6/09/4567890").unwrap();
        assert_eq!(a.get("convenio"), "00000000000004567890");
        // Carteira 19, our number 00000000002: the manual's example gives the digit 8.
        let c19 = Bradesco.parse("1234-0/0012345-6/19/1").unwrap();
        assert_eq!(Bradesco.check_digit(&c19, "00000000002"), "8");
        let our = Bradesco.our_number(&a, 42).unwrap();
        assert_eq!(our, "00000000042");
        assert_eq!(Bradesco.free_field(&a, &our).unwrap(), "1234090000000004200123450");
        let code = BRADESCO_240.barcode(&a, &our, "2030-03-04".parse().unwrap(), "150.00".parse().unwrap()).unwrap();
        assert!(code.starts_with("2379") && barcode_is_valid(&code), "{code}");
        for bad in ["1234-0/0012345-6/09", "1234/0012345-6/09/1", "1234-0/12345-6/09/1", "1234-X/0012345-6/09/1"] {
            assert_eq!(Bradesco.parse(bad), None, "{bad}");
        }
        assert!(Bradesco.parse("1234-P/0012345-P/09/1").is_some());
    }
}
