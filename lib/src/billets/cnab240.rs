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
//! Positions below are the manual's, counted from 1.

use chrono::{NaiveDate, NaiveDateTime};

use super::itau::{Agreement, BANK_CODE, BANK_NAME};
use crate::values::Money;

pub const LINE: usize = 240;

/// One line being written: 240 positions, blank.
struct Line(Vec<u8>);

impl Line {
    fn new() -> Line {
        Line(vec![b' '; LINE])
    }

    /// Digits right-aligned in positions `from..=to`, zeros to the left (cut on the left when too
    /// long: the caller checks lengths that matter).
    fn number(&mut self, from: usize, to: usize, value: impl ToString) -> &mut Self {
        let width = to - from + 1;
        let text: String = value.to_string().chars().filter(char::is_ascii_digit).collect();
        let text = if text.len() > width { text[text.len() - width..].to_owned() } else { text };
        let padded = format!("{text:0>width$}");
        self.0[from - 1..to].copy_from_slice(padded.as_bytes());
        self
    }

    /// Text left-aligned in positions `from..=to`, in upper-case ASCII, cut to fit.
    fn text(&mut self, from: usize, to: usize, value: &str) -> &mut Self {
        let width = to - from + 1;
        let folded: String = ascii(value).chars().take(width).collect();
        let padded = format!("{folded:<width$}");
        self.0[from - 1..to].copy_from_slice(padded.as_bytes());
        self
    }

    /// The bank, batch and record type every line starts with (positions 1–8).
    fn head(&mut self, batch: u32, kind: u8) -> &mut Self {
        self.number(1, 3, BANK_CODE).number(4, 7, batch).number(8, 8, kind)
    }

    fn into_string(self) -> String {
        String::from_utf8(self.0).expect("ASCII")
    }
}

/// Text as the bank's alphanumeric fields take it: upper-case letters, digits, spaces and hyphens.
/// Portuguese accents are folded to their letters, any other character becomes a space, and runs of
/// spaces are one (`Avenida Paulista, 1000` → `AVENIDA PAULISTA 1000`).
pub fn ascii(text: &str) -> String {
    let mapped: String = text
        .chars()
        .map(|c| match c {
            'á' | 'à' | 'â' | 'ã' | 'ä' | 'Á' | 'À' | 'Â' | 'Ã' | 'Ä' => 'A',
            'é' | 'ê' | 'è' | 'ë' | 'É' | 'Ê' | 'È' | 'Ë' => 'E',
            'í' | 'î' | 'ì' | 'ï' | 'Í' | 'Î' | 'Ì' | 'Ï' => 'I',
            'ó' | 'ô' | 'õ' | 'ò' | 'ö' | 'Ó' | 'Ô' | 'Õ' | 'Ò' | 'Ö' => 'O',
            'ú' | 'û' | 'ù' | 'ü' | 'Ú' | 'Û' | 'Ù' | 'Ü' => 'U',
            'ç' | 'Ç' => 'C',
            'ñ' | 'Ñ' => 'N',
            c if c.is_ascii_alphanumeric() || c == '-' => c.to_ascii_uppercase(),
            _ => ' ',
        })
        .collect();
    mapped.split_whitespace().collect::<Vec<_>>().join(" ")
}

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

/// The remittance file: the lines, joined by CR LF, ending in CR LF.
pub fn remittance(beneficiary: &Beneficiary, titles: &[Title], sequence: u32, at: NaiveDateTime) -> String {
    let agreement = &beneficiary.agreement;
    let mut lines = Vec::with_capacity(titles.len() * 3 + 4);

    let mut header = Line::new();
    header
        .head(0, 0)
        .number(18, 18, document_kind(&beneficiary.document))
        .number(19, 32, &beneficiary.document)
        .number(53, 53, 0)
        .number(54, 57, &agreement.agency)
        .number(59, 70, &agreement.account)
        .number(72, 72, agreement.account_dac)
        .text(73, 102, &beneficiary.name)
        .text(103, 132, BANK_NAME)
        .number(143, 143, 1)
        .number(144, 151, date(at.date()))
        .number(152, 157, at.format("%H%M%S").to_string())
        .number(158, 163, sequence)
        .number(164, 166, "040")
        // Fillers Itaú's layout wants as zeros (the recording density's place, and the end's).
        .number(167, 171, 0)
        .number(226, 228, 0);
    lines.push(header.into_string());

    let mut batch = Line::new();
    batch
        .head(1, 1)
        .text(9, 9, "R")
        .number(10, 11, "01")
        .number(12, 13, 0)
        .number(14, 16, "030")
        .number(18, 18, document_kind(&beneficiary.document))
        .number(19, 33, &beneficiary.document)
        .number(54, 54, 0)
        .number(55, 58, &agreement.agency)
        .number(60, 71, &agreement.account)
        .number(73, 73, agreement.account_dac)
        .text(74, 103, &beneficiary.name)
        .number(184, 191, sequence)
        .number(192, 199, date(at.date()))
        .number(200, 207, 0);
    lines.push(batch.into_string());

    let mut record = 0;
    let mut total = Money::default();
    for title in titles {
        let our_dac = agreement.our_number_dac(&title.our_number).unwrap_or(0);
        let interest = title.interest_per_day.is_positive();
        record += 1;
        let mut p = Line::new();
        p.head(1, 3)
            .number(9, 13, record)
            .text(14, 14, "P")
            .number(16, 17, title.movement.code())
            .number(18, 18, 0)
            .number(19, 22, &agreement.agency)
            .number(24, 35, &agreement.account)
            .number(37, 37, agreement.account_dac)
            .number(38, 40, &agreement.carteira)
            .number(41, 48, &title.our_number)
            .number(49, 49, our_dac)
            .number(58, 62, 0)
            .text(63, 72, &title.document_number)
            .number(78, 85, date(title.due_date))
            .number(86, 100, cents(title.amount))
            .number(101, 105, 0)
            .number(106, 106, 0)
            .number(107, 108, "01")
            .text(109, 109, "N")
            .number(110, 117, date(title.issued_on))
            // Itaú's layout has zeros here, where FEBRABAN's has the interest code: Itaú reads the
            // interest from its date (119–126) and amount a day (127–141) alone.
            .number(118, 118, 0)
            .number(119, 126, if interest { date(title.due_date + chrono::Duration::days(1)) } else { "0".into() })
            .number(127, 141, cents(title.interest_per_day))
            .number(142, 142, 0)
            .number(143, 195, 0)
            .text(196, 220, &title.reference)
            .number(221, 221, 3)
            .number(222, 223, 0)
            .number(224, 224, 0)
            .number(225, 226, 0)
            .number(227, 239, 0);
        lines.push(p.into_string());

        record += 1;
        let payer = &title.payer;
        let mut q = Line::new();
        q.head(1, 3)
            .number(9, 13, record)
            .text(14, 14, "Q")
            .number(16, 17, title.movement.code())
            .number(18, 18, document_kind(&payer.document))
            .number(19, 33, &payer.document)
            .text(34, 63, &payer.name)
            .text(74, 113, &payer.street)
            .text(114, 128, &payer.district)
            .number(129, 136, &payer.postal_code)
            .text(137, 151, &payer.city)
            .text(152, 153, &payer.state)
            .number(154, 154, 0)
            .number(155, 169, 0)
            .number(210, 212, 0);
        lines.push(q.into_string());

        record += 1;
        let penalty = title.penalty.is_positive();
        let mut r = Line::new();
        r.head(1, 3)
            .number(9, 13, record)
            .text(14, 14, "R")
            .number(16, 17, title.movement.code())
            .number(18, 65, 0)
            .number(66, 66, if penalty { 1 } else { 0 })
            .number(67, 74, if penalty { date(title.due_date + chrono::Duration::days(1)) } else { "0".into() })
            .number(75, 89, cents(title.penalty));
        lines.push(r.into_string());
        if title.movement == Movement::Register {
            total = total.checked_add(title.amount).unwrap_or(total);
        }
    }

    let titles_registered = titles.iter().filter(|t| t.movement == Movement::Register).count();
    let mut batch_trailer = Line::new();
    batch_trailer
        .head(1, 5)
        .number(18, 23, record + 2)
        .number(24, 29, titles_registered)
        .number(30, 46, cents(total))
        .number(47, 115, 0);
    lines.push(batch_trailer.into_string());

    let mut trailer = Line::new();
    trailer.head(9999, 9).number(18, 23, 1).number(24, 29, record + 4);
    lines.push(trailer.into_string());

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

    /// What a field's positions must hold.
    #[derive(Clone, Copy, Debug)]
    enum Fill {
        /// Digits only.
        Digits,
        /// Upper-case ASCII letters, digits, spaces and hyphens.
        Text,
        /// A filler the layout wants as zeros.
        Zeros,
        /// A filler the layout wants blank.
        Blanks,
        /// Exactly this.
        Is(&'static str),
    }

    /// Itaú's CNAB 240 file header (record 0) as its manual lays it out, every position from 1 to
    /// 240 in one field: (from, to, what it holds, its name in the manual). The `febraban` package
    /// (PyPI; tests/validators) lays Itaú's header out the same: its blank template has zeros at 53,
    /// 167–171 and 226–228 and blanks at 9–17, 33–52, 58, 71, 133–142, 172–225 and 229–240.
    const ITAU_FILE_HEADER: &[(usize, usize, Fill, &str)] = &[
        (1, 3, Fill::Is("341"), "código do banco"),
        (4, 7, Fill::Is("0000"), "lote de serviço"),
        (8, 8, Fill::Is("0"), "tipo de registro"),
        (9, 17, Fill::Blanks, "brancos"),
        (18, 18, Fill::Digits, "tipo de inscrição da empresa"),
        (19, 32, Fill::Digits, "número de inscrição da empresa"),
        (33, 52, Fill::Blanks, "brancos"),
        (53, 53, Fill::Zeros, "zeros"),
        (54, 57, Fill::Digits, "agência"),
        (58, 58, Fill::Blanks, "branco"),
        (59, 70, Fill::Digits, "conta"),
        (71, 71, Fill::Blanks, "branco"),
        (72, 72, Fill::Digits, "DAC da agência/conta"),
        (73, 102, Fill::Text, "nome da empresa"),
        (103, 132, Fill::Text, "nome do banco"),
        (133, 142, Fill::Blanks, "brancos"),
        (143, 143, Fill::Is("1"), "código remessa"),
        (144, 151, Fill::Digits, "data de geração"),
        (152, 157, Fill::Digits, "hora de geração"),
        (158, 163, Fill::Digits, "número sequencial do arquivo"),
        (164, 166, Fill::Is("040"), "número da versão do layout"),
        (167, 171, Fill::Zeros, "zeros"),
        (172, 225, Fill::Blanks, "brancos"),
        (226, 228, Fill::Zeros, "zeros"),
        (229, 240, Fill::Blanks, "brancos"),
    ];

    /// The fields of `layout` that `line` does not hold as they should, by name and position.
    fn misread(line: &str, layout: &[(usize, usize, Fill, &str)]) -> Vec<String> {
        let mut next = 1;
        let mut wrong = Vec::new();
        for &(from, to, fill, name) in layout {
            assert_eq!(from, next, "the layout leaves out or repeats position {next}");
            next = to + 1;
            let value = &line[from - 1..to];
            let fits = match fill {
                Fill::Digits => value.bytes().all(|b| b.is_ascii_digit()),
                Fill::Text => {
                    value.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b' ' || b == b'-')
                }
                Fill::Zeros => value.bytes().all(|b| b == b'0'),
                Fill::Blanks => value.bytes().all(|b| b == b' '),
                Fill::Is(expected) => value == expected,
            };
            if !fits {
                wrong.push(format!("{from}-{to} {name} ({fill:?}): {value:?}"));
            }
        }
        assert_eq!(next, LINE + 1, "the layout covers every position");
        wrong
    }

    #[test]
    fn the_file_header_holds_every_position_as_itaus_layout_says() {
        let (beneficiary, titles) = sample();
        let file = remittance(&beneficiary, &titles, 7, "2030-02-01T10:11:12".parse().unwrap());
        let header = file.split("\r\n").next().unwrap();
        assert_eq!(misread(header, ITAU_FILE_HEADER), Vec::<String>::new());
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
