//! CNAB 240 remittance files of Itaú's collection service ("Cobrança – CNAB 240", layout 040 of
//! the file, 030 of the batch), as the bank's manual lays them out (issue 26): 240 characters a
//! line, CR LF between lines, upper-case ASCII text (accents folded), numbers right-aligned with
//! zeros, text left-aligned with spaces.
//!
//! ```text
//! 0  file header       the beneficiary (CNPJ, agency, account), file date and time
//! 1  batch header      service R 01 (collection), layout 030, the beneficiary again
//! 3  P, Q, R per title what to collect (our number, due date, amount, interest), who pays, penalty
//! 5  batch trailer     lines in the batch, titles, their total
//! 9  file trailer      batches and lines in the file
//! ```
//!
//! Every record is data (`billets::itau240`, positions as the manual counts them from 1, every
//! position in one field), written by `billets::layout`; this module gives each record its values.

use std::collections::HashMap;

use chrono::{NaiveDate, NaiveDateTime};

use super::itau::Agreement;
use super::itau240 as itau;
use super::layout::{self, Record};
use crate::values::Money;

pub use super::layout::ascii;

pub const LINE: usize = 240;

fn date(value: NaiveDate) -> String {
    value.format("%d%m%Y").to_string()
}

fn cents(value: Money) -> String {
    value.to_string().replace('.', "")
}

/// CPF (1) or CNPJ (2), by the number of digits.
fn document_kind(document: &str) -> u8 {
    if document.chars().filter(char::is_ascii_digit).count() == 11 {
        1
    } else {
        2
    }
}

/// What the remittance asks of the bank for a title (position 16–17 of P, Q and R).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Movement {
    /// 01: register it.
    Register,
    /// 02: write it off (baixa): the billing was cancelled or settled elsewhere.
    WriteOff,
    /// 06: change its due date.
    NewDueDate,
}

impl Movement {
    pub fn code(self) -> &'static str {
        match self {
            Movement::Register => "01",
            Movement::WriteOff => "02",
            Movement::NewDueDate => "06",
        }
    }
}

/// Who pays a title, as the billet froze them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Payer {
    pub document: String,
    pub name: String,
    pub street: String,
    pub district: String,
    pub postal_code: String,
    pub city: String,
    pub state: String,
}

/// One title of the remittance.
#[derive(Clone, Debug, PartialEq)]
pub struct Title {
    pub movement: Movement,
    /// 8 digits.
    pub our_number: String,
    /// The billing's code (up to 10 characters printed as "número do documento").
    pub document_number: String,
    pub due_date: NaiveDate,
    pub amount: Money,
    pub issued_on: NaiveDate,
    /// Interest per day late, in reais (0: none).
    pub interest_per_day: Money,
    /// The penalty (multa) in reais (0: none), charged from the day after the due date.
    pub penalty: Money,
    pub payer: Payer,
    /// Ours, returned as is in the bank's return file (positions 196–220 of P, 25 characters): the
    /// service puts the billing's and the billet's ids there (`billings::billets::remittance`).
    pub reference: String,
}

/// The beneficiary of a remittance.
#[derive(Clone, Debug, PartialEq)]
pub struct Beneficiary {
    pub document: String,
    pub name: String,
    pub agreement: Agreement,
}

/// The values one record of the file takes, by the names its layout gives them.
#[derive(Default)]
struct Values(HashMap<&'static str, String>);

impl Values {
    fn set(&mut self, name: &'static str, value: impl ToString) -> &mut Self {
        self.0.insert(name, value.to_string());
        self
    }

    /// The record's line (a value it names and was not given is a bug here: the layout and this
    /// module are one).
    fn line(&self, record: &Record) -> String {
        layout::write(record, |name| self.0.get(name).map(String::as_str)).expect("every value of the record")
    }
}

/// The remittance file: the lines, joined by CR LF, ending in CR LF.
pub fn remittance(beneficiary: &Beneficiary, titles: &[Title], sequence: u32, at: NaiveDateTime) -> String {
    let agreement = &beneficiary.agreement;
    let mut lines = Vec::with_capacity(titles.len() * 3 + 4);
    let mut common = Values::default();
    common
        .set("beneficiary_kind", document_kind(&beneficiary.document))
        .set("beneficiary_document", &beneficiary.document)
        .set("beneficiary_name", &beneficiary.name)
        .set("agency", &agreement.agency)
        .set("account", &agreement.account)
        .set("account_dac", agreement.account_dac)
        .set("carteira", &agreement.carteira)
        .set("file_date", date(at.date()))
        .set("file_time", at.format("%H%M%S"))
        .set("sequence", sequence);
    lines.push(common.line(&itau::FILE_HEADER));
    lines.push(common.line(&itau::BATCH_HEADER));

    let mut record = 0;
    let mut total = Money::default();
    for title in titles {
        let our_dac = agreement.our_number_dac(&title.our_number).unwrap_or(0);
        let interest = title.interest_per_day.is_positive();
        let penalty = title.penalty.is_positive();
        let day_after = date(title.due_date + chrono::Duration::days(1));
        let payer = &title.payer;
        let mut values = Values(common.0.clone());
        values
            .set("movement", title.movement.code())
            .set("our_number", &title.our_number)
            .set("our_number_dac", our_dac)
            .set("document_number", &title.document_number)
            .set("due_date", date(title.due_date))
            .set("amount", cents(title.amount))
            .set("issued_on", date(title.issued_on))
            .set("interest_date", if interest { day_after.clone() } else { "0".into() })
            .set("interest_per_day", cents(title.interest_per_day))
            .set("reference", &title.reference)
            .set("payer_kind", document_kind(&payer.document))
            .set("payer_document", &payer.document)
            .set("payer_name", &payer.name)
            .set("payer_street", &payer.street)
            .set("payer_district", &payer.district)
            .set("payer_postal_code", &payer.postal_code)
            .set("payer_city", &payer.city)
            .set("payer_state", &payer.state)
            .set("penalty_code", u8::from(penalty))
            .set("penalty_date", if penalty { day_after } else { "0".into() })
            .set("penalty", cents(title.penalty));
        for segment in [&itau::SEGMENT_P, &itau::SEGMENT_Q, &itau::SEGMENT_R] {
            record += 1;
            lines.push(values.set("record", record).line(segment));
        }
        if title.movement == Movement::Register {
            total = total.checked_add(title.amount).unwrap_or(total);
        }
    }

    let titles_registered = titles.iter().filter(|t| t.movement == Movement::Register).count();
    let mut end = Values::default();
    end.set("batch_lines", record + 2)
        .set("titles", titles_registered)
        .set("total", cents(total))
        .set("file_lines", record + 4);
    lines.push(end.line(&itau::BATCH_TRAILER));
    lines.push(end.line(&itau::FILE_TRAILER));

    let mut file = lines.join("\r\n");
    file.push_str("\r\n");
    file
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn sample() -> (Beneficiary, Vec<Title>) {
        let beneficiary = Beneficiary {
            document: "11222333000181".into(),
            name: "Clínica Exemplo Ltda".into(),
            agreement: Agreement::parse("0057/12345-7/109").unwrap(),
        };
        let title = Title {
            movement: Movement::Register,
            our_number: "00000001".into(),
            document_number: "0000000012".into(),
            due_date: "2030-03-04".parse().unwrap(),
            amount: Money::parse("150.00").unwrap(),
            issued_on: "2030-02-01".parse().unwrap(),
            interest_per_day: Money::parse("0.05").unwrap(),
            penalty: Money::parse("3.00").unwrap(),
            payer: Payer {
                document: "52998224725".into(),
                name: "Maria da Conceição Silva".into(),
                street: "Avenida Paulista, 1000".into(),
                district: "Bela Vista".into(),
                postal_code: "01310100".into(),
                city: "São Paulo".into(),
                state: "SP".into(),
            },
            reference: "b7c1d1a45f0e4c3a9b1e2d9f1".into(),
        };
        let second = Title {
            our_number: "00000002".into(),
            amount: Money::parse("80.10").unwrap(),
            interest_per_day: Money::default(),
            penalty: Money::default(),
            ..title.clone()
        };
        (beneficiary, vec![title, second])
    }

    /// What the remittance wrote before its records were data, for these titles (with a
    /// write-off after them): the file's bytes must not change but where the layout was fixed.
    const SAMPLE_FILE: &str = include_str!("testdata/itau240-sample.rem");

    fn with_write_off(mut titles: Vec<Title>) -> Vec<Title> {
        let off = Title { movement: Movement::WriteOff, our_number: "00000003".into(), ..titles[0].clone() };
        titles.push(off);
        titles
    }

    #[test]
    fn the_records_cover_every_position_and_write_what_the_remittance_wrote() {
        for record in itau::RECORDS {
            assert_eq!(layout::gaps(record), None);
        }
        let (beneficiary, titles) = sample();
        let file = remittance(&beneficiary, &with_write_off(titles), 7, "2030-02-01T10:11:12".parse().unwrap());
        assert_eq!(file, SAMPLE_FILE);
    }

    #[test]
    fn every_line_holds_every_position_as_itaus_layout_says() {
        let (beneficiary, titles) = sample();
        let file = remittance(&beneficiary, &with_write_off(titles), 7, "2030-02-01T10:11:12".parse().unwrap());
        let lines: Vec<&str> = file.strip_suffix("\r\n").unwrap().split("\r\n").collect();
        let records = [&itau::FILE_HEADER, &itau::BATCH_HEADER]
            .into_iter()
            .chain([&itau::SEGMENT_P, &itau::SEGMENT_Q, &itau::SEGMENT_R].repeat(3))
            .chain([&itau::BATCH_TRAILER, &itau::FILE_TRAILER]);
        let mut wrong = Vec::new();
        for (line, record) in lines.iter().zip(records) {
            wrong.extend(layout::misread(record, line));
        }
        assert_eq!(wrong, Vec::<String>::new());
        assert_eq!(lines.len(), 2 + 3 * 3 + 2);
    }

    #[test]
    fn every_line_is_240_characters_of_ascii_and_counts_add_up() {
        let (beneficiary, titles) = sample();
        let at = "2030-02-01T10:11:12".parse().unwrap();
        let file = remittance(&beneficiary, &titles, 7, at);
        assert!(file.ends_with("\r\n"));
        let lines: Vec<&str> = file.strip_suffix("\r\n").unwrap().split("\r\n").collect();
        assert_eq!(lines.len(), 2 + 3 * 2 + 2);
        assert!(lines.iter().all(|l| l.len() == LINE && l.is_ascii()), "{lines:#?}");
        let kinds: String = lines.iter().map(|l| &l[7..8]).collect();
        assert_eq!(kinds, "0133333359");
        let segments: String = lines[2..8].iter().map(|l| &l[13..14]).collect();
        assert_eq!(segments, "PQRPQR");
        assert_eq!(&lines[0][143..157], "01022030101112");
        let p = lines[2];
        assert_eq!(&p[40..48], "00000001");
        assert_eq!(&p[48..49], beneficiary.agreement.our_number_dac("00000001").unwrap().to_string());
        assert_eq!(&p[77..85], "04032030");
        assert_eq!(&p[85..100], "000000000015000");
        assert_eq!(&lines[3][33..63], "MARIA DA CONCEICAO SILVA      ");
        assert_eq!(&lines[3][136..151], "SAO PAULO      ");
        assert_eq!(&lines[8][17..23], "000008", "batch: 6 titles' lines and its header and trailer");
        assert_eq!(&lines[8][29..46], "00000000000023010");
        assert_eq!(&lines[9][23..29], "000010");
    }
}
