//! Return files of every bank layout: what the bank says of each title. The file
//! names its bank and layout: its lines' width (240 or 400) and the bank code of its header
//! (positions 1–3 on 240, 77–79 on 400; `billets::banks::by_code`). On 240 a title is a segment T and
//! the U after it; on 400 a detail line (type 1). A file that is not one (a line of another length,
//! a field that should be digits and is not, a bank this service has no layout of) is refused
//! whole, naming the line and the field; lines of other kinds (headers, trailers, other segments)
//! are skipped.
//!
//! The records are data (`billets::layouts`: the bank's `segment_t`, `segment_u`,
//! `return_detail`), read by `billets::layout::read`; this module makes a title of what they say.

use chrono::NaiveDate;

use super::banks::{self, Bank, Files, Happened};
use super::layout::{self, Read, Record};
use crate::values::Money;

/// One title of a return file.
#[derive(Clone, Debug, PartialEq)]
pub struct Returned {
    /// The line of its T segment or detail (from 1).
    pub line: usize,
    pub movement: String,
    pub happened: Happened,
    /// The our number as the return writes it (its field without blanks), and its check digit when
    /// the layout gives it apart.
    pub our_number: String,
    pub our_number_dv: String,
    pub document_number: String,
    pub due_date: Option<NaiveDate>,
    pub amount: Money,
    /// Ours, as the remittance sent it.
    pub reference: String,
    pub fee: Money,
    /// The bank's reason codes (refusals, write-offs).
    pub reasons: Vec<String>,
    pub interest: Money,
    pub discount: Money,
    pub paid_amount: Money,
    pub net_amount: Money,
    pub occurred_on: Option<NaiveDate>,
    pub credit_on: Option<NaiveDate>,
}

/// A return file read: its bank layout and its titles, in order.
#[derive(Clone)]
pub struct Parsed {
    pub bank: &'static Bank,
    pub titles: Vec<Returned>,
}

impl std::fmt::Debug for Parsed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Parsed").field("bank", &self.bank.symbol).field("titles", &self.titles).finish()
    }
}

/// Why a file was refused: the line (from 1), the field, and what is wrong, in Portuguese.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("linha {line}, {field}: {problem}")]
pub struct Malformed {
    pub line: usize,
    pub field: &'static str,
    pub problem: String,
}

/// A line's values as its record names them, with the line's number for what is wrong.
struct Values<'a> {
    line: usize,
    read: Read<'a>,
}

impl<'a> Values<'a> {
    fn of(line: usize, record: &Record, text: &'a str) -> Result<Values<'a>, Malformed> {
        let read = layout::read(record, text).map_err(|e| Malformed { line, field: e.field, problem: e.problem })?;
        Ok(Values { line, read })
    }

    fn text(&self, name: &str) -> String {
        self.read.get(name).to_owned()
    }

    fn money(&self, name: &str) -> Money {
        let cents: i64 = self.read.get(name).parse().unwrap_or_default();
        Money::new(rust_decimal::Decimal::new(cents, 2))
    }

    /// A date DDMMAAAA (or DDMMAA, of this century), or none when zeros or blank.
    fn date(&self, name: &str) -> Result<Option<NaiveDate>, Malformed> {
        let text = self.read.get(name);
        if text.bytes().all(|b| b == b'0') {
            return Ok(None);
        }
        let format = if text.len() == 6 { "%d%m%y" } else { "%d%m%Y" };
        NaiveDate::parse_from_str(text, format).map(Some).map_err(|_| {
            let (field, from, to) = self.read.field(name);
            let shape = if text.len() == 6 { "DDMMAA" } else { "DDMMAAAA" };
            Malformed {
                line: self.line,
                field,
                problem: format!("posições {from}–{to}: {text} não é uma data {shape}"),
            }
        })
    }

    /// The reason codes: pairs of positions.
    fn reasons(&self) -> Vec<String> {
        let reasons = self.read.raw("reasons");
        (0..reasons.len() / 2)
            .map(|n| reasons[2 * n..2 * n + 2].trim().to_owned())
            .filter(|code| !code.is_empty() && code != "00")
            .collect()
    }

    /// A title of what a T segment or a 400 detail says.
    fn title(&self, bank: &Bank) -> Result<Returned, Malformed> {
        let movement = self.text("movement");
        Ok(Returned {
            line: self.line,
            happened: (bank.happened)(&movement),
            movement,
            our_number: self.text("our_number"),
            our_number_dv: self.text("our_number_dv"),
            document_number: self.text("document_number"),
            due_date: self.date("due_date")?,
            amount: self.money("amount"),
            reference: self.text("reference"),
            fee: self.money("fee"),
            reasons: self.reasons(),
            interest: self.money("interest"),
            discount: self.money("discount"),
            paid_amount: self.money("paid_amount"),
            net_amount: self.money("net_amount"),
            occurred_on: self.date("occurred_on")?,
            credit_on: self.date("credit_on")?,
        })
    }

    /// A title with what a U segment adds.
    fn add_to(&self, title: &mut Returned) -> Result<(), Malformed> {
        title.interest = self.money("interest");
        title.discount = self.money("discount");
        title.paid_amount = self.money("paid_amount");
        title.net_amount = self.money("net_amount");
        title.occurred_on = self.date("occurred_on")?;
        title.credit_on = self.date("credit_on")?;
        Ok(())
    }
}

/// The file's lines (from 1), without their CR, blank lines left out.
fn lines(file: &str) -> impl Iterator<Item = (usize, &str)> {
    file.split('\n')
        .enumerate()
        .map(|(index, text)| (index + 1, text.strip_suffix('\r').unwrap_or(text)))
        .filter(|(_, text)| !text.is_empty())
}

/// The bank layout a file is written in, from its first line.
fn bank_of(file: &str) -> Result<&'static Bank, Malformed> {
    let Some((line, first)) = lines(file).next() else {
        return Err(Malformed { line: 1, field: "arquivo", problem: "o arquivo está vazio".into() });
    };
    let width = first.len();
    let code = match width {
        240 if first.is_ascii() => &first[0..3],
        400 if first.is_ascii() => &first[76..79],
        _ => {
            let problem =
                format!("tem {} caracteres; os layouts CNAB têm 240 ou 400 caracteres ASCII", first.chars().count());
            return Err(Malformed { line, field: "linha", problem });
        }
    };
    banks::by_code(code, width).ok_or_else(|| Malformed {
        line,
        field: "código do banco",
        problem: format!("banco {code:?} em CNAB {width}: este serviço não tem esse layout"),
    })
}

/// Every title a return file reports, in order, and its bank layout.
pub fn parse(file: &str) -> Result<Parsed, Malformed> {
    let bank = bank_of(file)?;
    let width = bank.width();
    let mut titles: Vec<Returned> = Vec::new();
    let mut waiting_u = false;
    for (line, text) in lines(file) {
        if text.len() != width || !text.is_ascii() {
            return Err(Malformed {
                line,
                field: "linha",
                problem: format!(
                    "tem {} caracteres; o layout CNAB {width} tem {width} caracteres ASCII",
                    text.chars().count()
                ),
            });
        }
        match bank.files {
            Files::Cnab400(layout) => {
                if text.starts_with('1') {
                    titles.push(Values::of(line, layout.return_detail, text)?.title(bank)?);
                }
            }
            Files::Cnab240(layout) => {
                if &text[7..8] != "3" {
                    continue;
                }
                match &text[13..14] {
                    "T" => {
                        if waiting_u {
                            return Err(Malformed {
                                line,
                                field: "segmento",
                                problem: "um segmento T sem o U do título anterior".into(),
                            });
                        }
                        titles.push(Values::of(line, layout.segment_t, text)?.title(bank)?);
                        waiting_u = true;
                    }
                    "U" => {
                        let Some(title) = titles.last_mut().filter(|_| waiting_u) else {
                            return Err(Malformed {
                                line,
                                field: "segmento",
                                problem: "um segmento U sem o T antes dele".into(),
                            });
                        };
                        Values::of(line, layout.segment_u, text)?.add_to(title)?;
                        waiting_u = false;
                    }
                    _ => {}
                }
            }
        }
    }
    if waiting_u {
        let line = titles.last().map_or(0, |t| t.line);
        return Err(Malformed {
            line, field: "segmento", problem: "o segmento T do último título não tem o U".into()
        });
    }
    Ok(Parsed { bank, titles })
}

#[cfg(test)]
mod tests {
    use super::*;
    const LINE: usize = 240;

    const FIXTURE: &str = include_str!("../../../tests/fixtures/cnab240/itau-return-paid.ret");

    #[test]
    fn the_segments_cover_every_position_and_read_the_reasons_in_pairs() {
        use crate::billets::layouts::itau240::{SEGMENT_T, SEGMENT_U};
        assert_eq!(layout::gaps(&SEGMENT_T), None);
        assert_eq!(layout::gaps(&SEGMENT_U), None);
        let lines: Vec<&str> = FIXTURE.split("\r\n").collect();
        let t = lines.iter().position(|l| l.len() == LINE && &l[13..14] == "T").unwrap();
        let mut refused = lines[t].to_owned();
        refused.replace_range(15..17, "03");
        refused.replace_range(213..221, "  48 012");
        let mut file: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        file[t] = refused;
        let titles = parse(&file.join("\r\n")).unwrap().titles;
        assert_eq!(titles[0].reasons, ["48", "0", "12"].map(str::to_owned), "pairs as the line has them");
    }

    #[test]
    fn a_return_file_reads_into_its_titles() {
        let parsed = parse(FIXTURE).unwrap();
        assert_eq!(parsed.bank.symbol, "itau");
        let titles = parsed.titles;
        assert_eq!(titles.len(), 2);
        let registered = &titles[0];
        assert_eq!((registered.happened, registered.our_number.as_str()), (Happened::Registered, "00000001"));
        let paid = &titles[1];
        assert_eq!(paid.happened, Happened::Paid);
        assert_eq!(paid.amount, Money::parse("150.00").unwrap());
        assert_eq!(paid.paid_amount, Money::parse("153.25").unwrap());
        assert_eq!(paid.interest, Money::parse("3.25").unwrap());
        assert_eq!(paid.fee, Money::parse("1.80").unwrap());
        assert_eq!(paid.net_amount, Money::parse("151.45").unwrap());
        assert_eq!(paid.occurred_on, Some("2030-03-06".parse().unwrap()));
        assert_eq!(paid.credit_on, Some("2030-03-07".parse().unwrap()));
        assert_eq!(paid.reference, "b7c1d1a45f0e4c3a9b1e2d9f1");
    }

    #[test]
    fn a_malformed_file_names_its_line_and_field() {
        let short = parse("3410001300001T 06").unwrap_err();
        assert_eq!((short.line, short.field), (1, "linha"));
        let lines: Vec<&str> = FIXTURE.split("\r\n").collect();
        let mut broken: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        let t = broken.iter().position(|l| l.len() == LINE && &l[13..14] == "T").unwrap();
        broken[t].replace_range(81..96, "00000000001500X");
        let error = parse(&broken.join("\r\n")).unwrap_err();
        assert_eq!((error.line, error.field), (t + 1, "valor do título"), "{error}");
        assert!(error.to_string().starts_with(&format!("linha {}, valor do título: posições 82–96", t + 1)));
        // A T without its U.
        let without_u: Vec<&str> = lines.iter().copied().filter(|l| !(l.len() == LINE && &l[13..14] == "U")).collect();
        assert_eq!(parse(&without_u.join("\r\n")).unwrap_err().field, "segmento");
    }
}
