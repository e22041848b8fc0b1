//! The banks whose collection agreements take remittance and return files: each one a
//! [`Bank`], its layout's records as data (`billets::layouts`) beside the bank's own rules (the
//! agreement as the bank writes it, the our number and its check digit, the barcode's free field,
//! movement and occurrence codes, refusal reasons in words). One engine writes every CNAB 240
//! remittance (`billets::cnab240`), one every CNAB 400 one (`billets::cnab400`), one reads every
//! return (`billets::cnab_return`).
//!
//! | `bank_symbol`     | bank                | files | agreement (the rule's `agreement_code`)                       |
//! |-------------------|---------------------|-------|---------------------------------------------------------------|
//! | `itau`            | Itaú 341            | 240   | `0057/12345-7/109` agência/conta-DAC/carteira                  |
//! | `itau_400`        | Itaú 341            | 400   | the same                                                      |
//! | `bradesco`        | Bradesco 237        | 240   | `1234-0/0012345-6/09/4567890` agência-dv/conta-dv/carteira/código da empresa |
//! | `bradesco_400`    | Bradesco 237        | 400   | the same                                                      |
//! | `banco_do_brasil` | Banco do Brasil 001 | 240   | `1234-3/00012345-6/1234567/17-019` agência-dv/conta-dv/convênio/carteira-variação |
//! | `santander`       | Santander 033       | 240   | `4042-8/013000456-7/0282033/404200000282033/101` agência-dv/conta-dv/código do beneficiário/código de transmissão/carteira |
//! | `caixa`           | Caixa 104           | 240   | `2004/654321-9` agência/código do beneficiário-dv              |
//! | `sicoob`          | Sicoob 756          | 240   | `4327-0/000012345-6/229385` cooperativa-dv/conta-dv/código do cliente |
//!
//! Each bank's file says its rules in full; `docs/decisions.md` ("Which manual each layout
//! follows") which manual each layout follows.

use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::layouts::{Cnab240, Cnab400};
use super::payment_codes::{self, DocumentError};

pub mod banco_do_brasil;
pub mod bradesco;
pub mod caixa;
pub mod digits;
pub mod itau;
pub mod santander;
pub mod sicoob;

/// An agreement as a bank rule names it, read into its parts (agency, account, carteira,
/// convênio, … by the names the layouts' records give them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Agreement {
    parts: Vec<(&'static str, String)>,
}

impl Agreement {
    pub fn new(parts: Vec<(&'static str, String)>) -> Agreement {
        Agreement { parts }
    }

    /// The part named `name` (empty when this bank's agreement has none such).
    pub fn get(&self, name: &str) -> &str {
        self.parts.iter().find(|(n, _)| *n == name).map_or("", |(_, v)| v.as_str())
    }

    /// Every part, by name.
    pub fn parts(&self) -> &[(&'static str, String)] {
        &self.parts
    }
}

/// What a bank's rules compute; one implementation per bank (the same for its 240 and 400
/// layouts).
pub trait Rules: Sync {
    /// The agreement as the bank writes it, read; `None` when it is not one (a check digit that
    /// does not match included).
    fn parse(&self, text: &str) -> Option<Agreement>;

    /// The our number of a sequence number under `agreement`, without its check digit (`None`
    /// past the bank's range).
    fn our_number(&self, agreement: &Agreement, sequence: i64) -> Option<String>;

    /// The our number's check digit (a letter at some banks).
    fn check_digit(&self, agreement: &Agreement, our_number: &str) -> String;

    /// The our number as the slip prints it.
    fn printed(&self, agreement: &Agreement, our_number: &str) -> String;

    /// The barcode's free field (25 digits).
    fn free_field(&self, agreement: &Agreement, our_number: &str) -> Option<String>;

    /// The values a title's records name beyond the agreement's parts (the our number as this
    /// bank's layout writes it).
    fn title_values(&self, agreement: &Agreement, our_number: &str) -> Vec<(&'static str, String)> {
        vec![("our_number", our_number.to_owned()), ("our_number_dv", self.check_digit(agreement, our_number))]
    }

    /// What a CNAB 240 return's `our_number` field (segment T) holds for this our number (leading
    /// zeros aside); on 400 it is the our number itself.
    fn echoed(&self, _agreement: &Agreement, our_number: &str) -> String {
        our_number.to_owned()
    }
}

/// What the bank did with a title (the occurrence codes of the return file, per bank).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Happened {
    /// Registered (entrada confirmada).
    Registered,
    /// Refused (entrada rejeitada), with the reasons.
    Refused,
    /// Paid (liquidação).
    Paid,
    /// Written off (baixa).
    WrittenOff,
    /// Sent to the notary for protest: still payable, at the notary.
    Protested,
    /// Any other code (instructions confirmed, protest steps, …): kept, listed, not applied.
    Other,
}

/// The layout of a bank's files.
#[derive(Clone, Copy)]
pub enum Files {
    Cnab240(&'static Cnab240),
    Cnab400(&'static Cnab400),
}

/// The codes a remittance asks the bank with.
#[derive(Clone, Copy, Debug)]
pub struct Movements {
    pub register: &'static str,
    pub write_off: &'static str,
    pub new_due_date: &'static str,
}

/// FEBRABAN's remittance codes (register 01, write off 02, new due date 06), which every bank here
/// uses, on 240 and on 400.
pub const FEBRABAN_MOVEMENTS: Movements = Movements { register: "01", write_off: "02", new_due_date: "06" };

/// One bank layout: everything the service needs to issue billets there and exchange its files.
pub struct Bank {
    /// The bank rule's `bank_symbol`.
    pub symbol: &'static str,
    /// The COMPE code.
    pub code: &'static str,
    /// As people call it.
    pub title: &'static str,
    /// The manual (and its version) the layout follows.
    pub manual: &'static str,
    /// How the agreement is written, and an example.
    pub agreement_format: &'static str,
    pub agreement_example: &'static str,
    pub rules: &'static dyn Rules,
    pub files: Files,
    pub movements: Movements,
    /// What an occurrence code of the return says.
    pub happened: fn(&str) -> Happened,
    /// A refusal reason code in words.
    pub reason: fn(&str) -> Option<&'static str>,
}

impl Bank {
    /// 240 or 400.
    pub fn width(&self) -> usize {
        match self.files {
            Files::Cnab240(_) => 240,
            Files::Cnab400(_) => 400,
        }
    }

    /// Whether a return's our number (its field, blanks and leading zeros aside) is `our_number`'s.
    pub fn echoes(&self, agreement: &Agreement, our_number: &str, returned: &str) -> bool {
        let expected = match self.files {
            Files::Cnab240(_) => self.rules.echoed(agreement, our_number),
            Files::Cnab400(_) => our_number.to_owned(),
        };
        let plain = |text: &str| text.trim().trim_start_matches('0').to_owned();
        plain(&expected) == plain(returned)
    }

    /// The rule's agreement read as this bank writes it.
    pub fn agreement(&self, text: &str) -> Option<Agreement> {
        self.rules.parse(text)
    }

    /// Why `text` is not an agreement of this bank, in words; `None` when it is one.
    pub fn agreement_problem(&self, text: Option<&str>) -> Option<String> {
        match text.map(str::trim).filter(|t| !t.is_empty()) {
            Some(text) if self.rules.parse(text).is_some() => None,
            _ => Some(format!(
                "Convênio {} inválido: use {}, como {}",
                self.title, self.agreement_format, self.agreement_example
            )),
        }
    }

    /// The 44-digit barcode of a billet of `amount` due on `due`.
    pub fn barcode(
        &self,
        agreement: &Agreement,
        our_number: &str,
        due: NaiveDate,
        amount: Decimal,
    ) -> Result<String, DocumentError> {
        let free = self.rules.free_field(agreement, our_number).ok_or(DocumentError::FreeField)?;
        payment_codes::barcode(self.code, due, amount, &free)
    }

    /// The refusal reasons of a return line in words (unknown codes quoted).
    pub fn rejection(&self, codes: &[String]) -> String {
        let words: Vec<String> = codes
            .iter()
            .filter(|code| !code.trim().is_empty() && code.trim().bytes().any(|b| b != b'0'))
            .map(|code| match (self.reason)(code) {
                Some(text) => format!("{text} ({code})"),
                None => format!("motivo {code} do banco"),
            })
            .collect();
        match words.is_empty() {
            true => "Entrada rejeitada pelo banco (sem motivo informado)".into(),
            false => format!("Entrada rejeitada pelo banco: {}", words.join("; ")),
        }
    }
}

/// Every bank layout.
pub static ALL: [&Bank; 8] = [
    &itau::ITAU_240,
    &itau::ITAU_400,
    &bradesco::BRADESCO_240,
    &bradesco::BRADESCO_400,
    &banco_do_brasil::BANCO_DO_BRASIL_240,
    &santander::SANTANDER_240,
    &caixa::CAIXA_240,
    &sicoob::SICOOB_240,
];

/// The bank layout of a rule's `bank_symbol`.
pub fn by_symbol(symbol: &str) -> Option<&'static Bank> {
    ALL.iter().copied().find(|b| b.symbol == symbol)
}

/// The bank layout a return file is written in: its line width and the bank code of its header.
pub fn by_code(code: &str, width: usize) -> Option<&'static Bank> {
    ALL.iter().copied().find(|b| b.code == code && b.width() == width)
}

/// FEBRABAN's CNAB 240 occurrence codes, as most banks use them in segment T.
pub fn febraban_240(code: &str) -> Happened {
    match code {
        "02" => Happened::Registered,
        "03" => Happened::Refused,
        "06" | "17" => Happened::Paid,
        "09" => Happened::WrittenOff,
        "23" => Happened::Protested,
        _ => Happened::Other,
    }
}

/// FEBRABAN's CNAB 240 refusal reasons (table C047 of "Layout Padrão FEBRABAN 240", v10.x), as the
/// banks on 240 use them for entries refused (03).
pub fn febraban_reason(code: &str) -> Option<&'static str> {
    Some(match code {
        "01" => "código do banco inválido",
        "02" => "código do registro detalhe inválido",
        "03" => "código do segmento inválido",
        "04" => "código de movimento não permitido para a carteira",
        "05" => "código de movimento inválido",
        "06" => "tipo ou número de inscrição do beneficiário inválido",
        "07" => "agência, conta ou dígito inválido",
        "08" => "nosso número inválido",
        "09" => "nosso número duplicado",
        "10" => "carteira inválida",
        "11" => "forma de cadastramento do título inválida",
        "12" => "tipo de documento inválido",
        "13" => "identificação da emissão do bloqueto inválida",
        "14" => "identificação da distribuição do bloqueto inválida",
        "15" => "características da cobrança incompatíveis",
        "16" => "data de vencimento inválida",
        "17" => "data de vencimento anterior à data de emissão",
        "18" => "vencimento fora do prazo de operação",
        "20" => "valor do título inválido",
        "21" => "espécie do título inválida",
        "23" => "aceite inválido",
        "24" => "data da emissão inválida",
        "26" => "código de juros de mora inválido",
        "27" => "valor ou taxa de juros de mora inválido",
        "28" => "código do desconto inválido",
        "29" => "valor do desconto maior ou igual ao valor do título",
        "33" => "valor do abatimento inválido",
        "37" => "código para protesto inválido",
        "38" => "prazo para protesto inválido",
        "44" => "código da moeda inválido",
        "45" => "nome do pagador não informado",
        "46" => "tipo ou número de inscrição do pagador inválido",
        "47" => "endereço do pagador não informado",
        "48" => "CEP inválido",
        "49" => "CEP sem praça de cobrança",
        "52" => "unidade da federação inválida",
        "57" => "código da multa inválido",
        "58" => "data da multa inválida",
        "59" => "valor ou percentual da multa inválido",
        "86" => "seu número inválido",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_symbol_and_code_names_one_layout() {
        for bank in ALL {
            assert_eq!(by_symbol(bank.symbol).map(|b| b.symbol), Some(bank.symbol));
            assert_eq!(by_code(bank.code, bank.width()).map(|b| b.symbol), Some(bank.symbol));
            let agreement = bank.agreement(bank.agreement_example);
            assert!(agreement.is_some(), "{}: its own example {}", bank.symbol, bank.agreement_example);
            assert_eq!(bank.agreement_problem(Some(bank.agreement_example)), None);
            assert!(bank.agreement_problem(Some("x")).unwrap().contains(bank.agreement_example));
            assert!(bank.agreement_problem(None).is_some());
        }
        assert!(by_symbol("simulated").is_none());
    }

    #[test]
    fn reasons_read_in_words() {
        let codes = |list: &[&str]| list.iter().map(|c| c.to_string()).collect::<Vec<_>>();
        assert_eq!(
            itau::ITAU_240.rejection(&codes(&["48", "00", "99"])),
            "Entrada rejeitada pelo banco: CEP inválido (48); motivo 99 do banco"
        );
        assert!(itau::ITAU_240.rejection(&codes(&["00", "  "])).contains("sem motivo"));
    }
}
