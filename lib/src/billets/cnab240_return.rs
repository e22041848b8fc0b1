//! CNAB 240 return files of Itaú's collection service (issue 26): what the bank says
//! of each title, read from the segments T and U of each batch. A file that is not one (a line of
//! another length, a field that should be digits and is not) is refused whole, naming the line and
//! the field; lines of other kinds (headers, trailers, other segments) are skipped.
//!
//! The segments are data (`billets::itau240::SEGMENT_T`, `SEGMENT_U`: positions as the manual
//! counts them from 1), read by `billets::layout::read`; this module makes a title of what they say.

use chrono::NaiveDate;

use super::cnab240::LINE;
use super::itau240::{SEGMENT_T, SEGMENT_U};
use super::layout::{self, Read};
use crate::values::Money;

/// What the bank did with a title (the movement codes of the return file).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Happened {
    /// 02: registered (entrada confirmada).
    Registered,
    /// 03: refused (entrada rejeitada), with the reasons.
    Refused,
    /// 06: paid (liquidação).
    Paid,
    /// 09: written off (baixa).
    WrittenOff,
    /// 23: sent to the notary for protest (remessa a cartório): still payable, at the notary.
    Protested,
    /// Any other code (instructions confirmed, protest steps, …): kept, listed, not applied.
    Other,
}

impl Happened {
    fn of(code: &str) -> Happened {
        match code {
            "02" => Happened::Registered,
            "03" => Happened::Refused,
            "06" => Happened::Paid,
            "09" => Happened::WrittenOff,
            "23" => Happened::Protested,
            _ => Happened::Other,
        }
    }
}

/// One title of a return file: its T segment and the U after it.
#[derive(Clone, Debug, PartialEq)]
pub struct Returned {
    /// The line of its T segment (from 1).
    pub line: usize,
    pub movement: String,
    pub happened: Happened,
    pub our_number: String,
    pub our_number_dac: String,
    pub carteira: String,
    pub document_number: String,
    pub due_date: Option<NaiveDate>,
    pub amount: Money,
    /// Ours, as the remittance sent it (positions 196–220 of P).
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

/// Why a file was refused: the line (from 1), the field, and what is wrong, in Portuguese.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("linha {line}, {field}: {problem}")]
pub struct Malformed {
    pub line: usize,
    pub field: &'static str,
    pub problem: String,
}

/// A line's values as its segment names them, with the line's number for what is wrong.
struct Values<'a> {
    line: usize,
    read: Read<'a>,
}

impl<'a> Values<'a> {
    fn of(line: usize, record: &layout::Record, text: &'a str) -> Result<Values<'a>, Malformed> {
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

    /// A date DDMMAAAA, or none when zeros.
    fn date(&self, name: &str) -> Result<Option<NaiveDate>, Malformed> {
        let text = self.read.get(name);
        if text.bytes().all(|b| b == b'0') {
            return Ok(None);
        }
        NaiveDate::parse_from_str(text, "%d%m%Y").map(Some).map_err(|_| {
            let (field, from, to) = self.read.field(name);
            Malformed {
                line: self.line,
                field,
                problem: format!("posições {from}–{to}: {text} não é uma data DDMMAAAA"),
            }
        })
    }
}

/// Every title a return file reports, in order.
pub fn parse(file: &str) -> Result<Vec<Returned>, Malformed> {
    let mut found: Vec<Returned> = Vec::new();
    let mut waiting_u = false;
    for (index, text) in file.split('\n').enumerate() {
        let text = text.strip_suffix('\r').unwrap_or(text);
        let line = index + 1;
        if text.is_empty() {
            continue;
        }
        if text.len() != LINE || !text.is_ascii() {
            return Err(Malformed {
                line,
                field: "linha",
                problem: format!(
                    "tem {} caracteres; o layout CNAB 240 tem {LINE} caracteres ASCII",
                    text.chars().count()
                ),
            });
        }
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
                let values = Values::of(line, &SEGMENT_T, text)?;
                let movement = values.text("movement");
                // Four codes of two positions each.
                let reasons = values.read.raw("reasons");
                let reasons = (0..reasons.len() / 2)
                    .map(|n| reasons[2 * n..2 * n + 2].trim().to_owned())
                    .filter(|code| !code.is_empty() && code != "00")
                    .collect();
                found.push(Returned {
                    line,
                    happened: Happened::of(&movement),
                    movement,
                    carteira: values.text("carteira"),
                    our_number: values.text("our_number"),
                    our_number_dac: values.text("our_number_dac"),
                    document_number: values.text("document_number"),
                    due_date: values.date("due_date")?,
                    amount: values.money("amount"),
                    reference: values.text("reference"),
                    fee: values.money("fee"),
                    reasons,
                    interest: Money::default(),
                    discount: Money::default(),
                    paid_amount: Money::default(),
                    net_amount: Money::default(),
                    occurred_on: None,
                    credit_on: None,
                });
                waiting_u = true;
            }
            "U" => {
                let Some(title) = found.last_mut().filter(|_| waiting_u) else {
                    return Err(Malformed {
                        line,
                        field: "segmento",
                        problem: "um segmento U sem o T antes dele".into(),
                    });
                };
                let values = Values::of(line, &SEGMENT_U, text)?;
                title.interest = values.money("interest");
                title.discount = values.money("discount");
                title.paid_amount = values.money("paid_amount");
                title.net_amount = values.money("net_amount");
                title.occurred_on = values.date("occurred_on")?;
                title.credit_on = values.date("credit_on")?;
                waiting_u = false;
            }
            _ => {}
        }
    }
    if waiting_u {
        let line = found.last().map_or(0, |t| t.line);
        return Err(Malformed {
            line, field: "segmento", problem: "o segmento T do último título não tem o U".into()
        });
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURE: &str = include_str!("../../../tests/fixtures/cnab240/itau-return-paid.ret");

    #[test]
    fn the_segments_cover_every_position_and_read_the_reasons_in_pairs() {
        assert_eq!(layout::gaps(&SEGMENT_T), None);
        assert_eq!(layout::gaps(&SEGMENT_U), None);
        let lines: Vec<&str> = FIXTURE.split("\r\n").collect();
        let t = lines.iter().position(|l| l.len() == LINE && &l[13..14] == "T").unwrap();
        let mut refused = lines[t].to_owned();
        refused.replace_range(15..17, "03");
        refused.replace_range(213..221, "  48 012");
        let mut file: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        file[t] = refused;
        let titles = parse(&file.join("\r\n")).unwrap();
        assert_eq!(titles[0].reasons, ["48", "0", "12"].map(str::to_owned), "pairs as the line has them");
    }

    #[test]
    fn a_return_file_reads_into_its_titles() {
        let titles = parse(FIXTURE).unwrap();
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
