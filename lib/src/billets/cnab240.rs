//! CNAB 240 remittance files, one engine for every bank on 240: 240 characters a
//! line, CR LF between lines, upper-case ASCII text (accents folded), numbers right-aligned with
//! zeros, text left-aligned with spaces.
//!
//! ```text
//! 0  file header       the beneficiary (CNPJ, agreement), file date and time
//! 1  batch header      service R 01 (collection), the beneficiary again
//! 3  P, Q, R per title what to collect (our number, due date, amount, interest), who pays, penalty
//! 5  batch trailer     lines in the batch, titles, their total
//! 9  file trailer      batches and lines in the file
//! ```
//!
//! Every record is data (`billets::layouts`, positions as the bank's manual counts them from 1,
//! every position in one field), written by `billets::layout`; this module gives each record its
//! values by name (`billets::cnab`).

use chrono::NaiveDateTime;

use super::banks::Bank;
use super::cnab::{cents, Beneficiary, Movement, Title, Values};
use super::layouts::Cnab240;
use crate::values::Money;

pub const LINE: usize = 240;

/// The remittance file of `bank` (its layout `layout`): the lines, joined by CR LF, ending in CR LF.
pub fn remittance(
    bank: &Bank,
    layout: &Cnab240,
    beneficiary: &Beneficiary,
    titles: &[Title],
    sequence: u32,
    at: NaiveDateTime,
) -> String {
    let agreement = &beneficiary.agreement;
    let mut lines = Vec::with_capacity(titles.len() * layout.segments.len() + 4);
    let common = Values::common(bank, beneficiary, sequence, at);
    lines.push(common.line(layout.file_header));
    lines.push(common.line(layout.batch_header));

    let mut record = 0;
    let mut total = Money::default();
    for title in titles {
        let mut values = common.with_title(bank, agreement, title);
        for segment in layout.segments {
            record += 1;
            lines.push(values.set("record", record).line(segment));
        }
        if title.movement == Movement::Register {
            total = total.checked_add(title.amount).unwrap_or(total);
        }
    }

    let titles_registered = titles.iter().filter(|t| t.movement == Movement::Register).count();
    let mut end = common.clone();
    end.set("batch_lines", record + 2)
        .set("titles", titles_registered)
        .set("total", cents(total))
        .set("file_lines", record + 4);
    lines.push(end.line(layout.batch_trailer));
    lines.push(end.line(layout.file_trailer));

    let mut file = lines.join("\r\n");
    file.push_str("\r\n");
    file
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::billets::banks::itau::ITAU_240;
    use crate::billets::cnab::Payer;
    use crate::billets::layout;
    use crate::billets::layouts::itau240 as itau;

    fn remittance(beneficiary: &Beneficiary, titles: &[Title], sequence: u32, at: NaiveDateTime) -> String {
        super::remittance(&ITAU_240, &itau::LAYOUT, beneficiary, titles, sequence, at)
    }

    pub(crate) fn sample() -> (Beneficiary, Vec<Title>) {
        let beneficiary = Beneficiary {
            document: "11222333000181".into(),
            name: "Clínica Exemplo Ltda".into(),
            agreement: ITAU_240.agreement("0057/12345-7/109").unwrap(),
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
        for record in itau::LAYOUT.remittance_records() {
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
        assert_eq!(&p[48..49], ITAU_240.rules.check_digit(&beneficiary.agreement, "00000001"));
        assert_eq!(&p[77..85], "04032030");
        assert_eq!(&p[85..100], "000000000015000");
        assert_eq!(&lines[3][33..63], "MARIA DA CONCEICAO SILVA      ");
        assert_eq!(&lines[3][136..151], "SAO PAULO      ");
        assert_eq!(&lines[8][17..23], "000008", "batch: 6 titles' lines and its header and trailer");
        assert_eq!(&lines[8][29..46], "00000000000023010");
        assert_eq!(&lines[9][23..29], "000010");
    }
}
