//! What a remittance says of its beneficiary and its titles, whatever the bank and the layout
//!, and the values each record of a layout names, by name (`billets::layouts`).
//!
//! | name | value |
//! |------|-------|
//! | `bank_code` | the bank's COMPE code |
//! | `beneficiary_kind`, `beneficiary_document`, `beneficiary_name` | 1 CPF / 2 CNPJ, its digits, the account's name |
//! | the agreement's parts | `agency`, `account`, `carteira`, `convenio`, … (`billets::banks`) |
//! | `file_date`, `file_date_short`, `file_time`, `sequence` | DDMMAAAA, DDMMAA, HHMMSS, the file's number for its agreement |
//! | `movement` | the bank's code for register, write off, new due date |
//! | `our_number`, … | as the bank's rules write it (`Rules::title_values`) |
//! | `document_number`, `reference` | the billing's code; ours, echoed by the return |
//! | `due_date`, `issued_on`, `interest_date`, `penalty_date` (and `*_short`) | DDMMAAAA (DDMMAA), zeros when none |
//! | `amount`, `interest_per_day`, `penalty` | in cents |
//! | `interest_code` | FEBRABAN's: 1 an amount a day, 3 exempt |
//! | `penalty_code`, `penalty_percent` | 1 a fixed amount (0 none), 2 a percentage; the percentage × 100 |
//! | `payer_kind`, `payer_document`, `payer_name`, `payer_street`, `payer_district`, `payer_postal_code`, `payer_city`, `payer_state` | who pays |
//! | `record`, `line` | the title's number in the batch (240); the line's number in the file (400) |
//! | `batch_lines`, `titles`, `total`, `file_lines` | the trailers' counts (total in cents) |

use std::collections::HashMap;

use chrono::{NaiveDate, NaiveDateTime};
use rust_decimal::Decimal;

use super::banks::{Agreement, Bank};
use super::layout::{self, Record};
use crate::values::Money;

pub use super::layout::ascii;

/// DDMMAAAA.
pub fn date(value: NaiveDate) -> String {
    value.format("%d%m%Y").to_string()
}

/// DDMMAA.
pub fn short_date(value: NaiveDate) -> String {
    value.format("%d%m%y").to_string()
}

/// An amount in cents, as digits.
pub fn cents(value: Money) -> String {
    value.to_string().replace('.', "")
}

/// CPF (1) or CNPJ (2), by the number of digits.
pub fn document_kind(document: &str) -> u8 {
    if document.chars().filter(char::is_ascii_digit).count() == 11 {
        1
    } else {
        2
    }
}

/// What the remittance asks of the bank for a title.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Movement {
    /// Register it.
    Register,
    /// Write it off (baixa): the billing was cancelled or settled elsewhere.
    WriteOff,
    /// Change its due date.
    NewDueDate,
}

impl Movement {
    /// The bank's code for it.
    pub fn code(self, bank: &Bank) -> &'static str {
        match self {
            Movement::Register => bank.movements.register,
            Movement::WriteOff => bank.movements.write_off,
            Movement::NewDueDate => bank.movements.new_due_date,
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
    /// As the bank's rules number it (`Rules::our_number`), without check digit.
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
    /// Ours, returned as is in the bank's return file (25 characters at most): the service puts
    /// the billing's and the billet's ids there (`payments::boleto::remittance`).
    pub reference: String,
}

/// The beneficiary of a remittance.
#[derive(Clone, Debug, PartialEq)]
pub struct Beneficiary {
    pub document: String,
    pub name: String,
    pub agreement: Agreement,
}

/// The values one record of a file takes, by the names its layout gives them.
#[derive(Clone, Default)]
pub struct Values(HashMap<&'static str, String>);

impl Values {
    pub fn set(&mut self, name: &'static str, value: impl ToString) -> &mut Self {
        self.0.insert(name, value.to_string());
        self
    }

    /// The record's line (a value it names and was not given is a bug: the layouts and the
    /// engines are one).
    pub fn line(&self, record: &Record) -> String {
        layout::write(record, |name| self.0.get(name).map(String::as_str)).expect("every value of the record")
    }

    /// The values every record of a file may name: the bank's, the beneficiary's, the agreement's
    /// parts, the file's.
    pub fn common(bank: &Bank, beneficiary: &Beneficiary, sequence: u32, at: NaiveDateTime) -> Values {
        let mut values = Values::default();
        for (name, value) in beneficiary.agreement.parts() {
            values.set(name, value);
        }
        values
            .set("bank_code", bank.code)
            .set("beneficiary_kind", document_kind(&beneficiary.document))
            .set("beneficiary_document", &beneficiary.document)
            .set("beneficiary_name", &beneficiary.name)
            .set("file_date", date(at.date()))
            .set("file_date_short", short_date(at.date()))
            .set("file_time", at.format("%H%M%S"))
            .set("sequence", sequence);
        values
    }

    /// These values and a title's.
    pub fn with_title(&self, bank: &Bank, agreement: &Agreement, title: &Title) -> Values {
        let interest = title.interest_per_day.is_positive();
        let penalty = title.penalty.is_positive();
        let day_after = title.due_date + chrono::Duration::days(1);
        let payer = &title.payer;
        let percent = match title.amount.is_positive() {
            true => (title.penalty.get() * Decimal::from(10_000) / title.amount.get()).round(),
            false => Decimal::ZERO,
        };
        let mut values = self.clone();
        for (name, value) in bank.rules.title_values(agreement, &title.our_number) {
            values.set(name, value);
        }
        let or_zeros = |on: bool, text: String| if on { text } else { "0".into() };
        values
            .set("movement", title.movement.code(bank))
            .set("document_number", &title.document_number)
            .set("due_date", date(title.due_date))
            .set("due_date_short", short_date(title.due_date))
            .set("amount", cents(title.amount))
            .set("issued_on", date(title.issued_on))
            .set("issued_on_short", short_date(title.issued_on))
            .set("interest_date", or_zeros(interest, date(day_after)))
            .set("interest_date_short", or_zeros(interest, short_date(day_after)))
            .set("interest_per_day", cents(title.interest_per_day))
            .set("interest_code", if interest { "1" } else { "3" })
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
            .set("penalty_code_percent", if penalty { "2" } else { "0" })
            .set("penalty_date", or_zeros(penalty, date(day_after)))
            .set("penalty_date_short", or_zeros(penalty, short_date(day_after)))
            .set("penalty", cents(title.penalty))
            .set("penalty_percent", percent);
        values
    }
}
