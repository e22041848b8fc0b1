//! CNAB 240 return files of Itaú's collection service (issue 26): what the bank says
//! of each title, read from the segments T and U of each batch. A file that is not one (a line of
//! another length, a field that should be digits and is not) is refused whole, naming the line and
//! the field; lines of other kinds (headers, trailers, other segments) are skipped.
//!
//! Positions are the manual's, counted from 1. Segment T: movement 16–17, agency 18–21, account
//! 24–35, its DAC 37, carteira 38–40, our number 41–48 and its DAC 49, document number 59–68, due
//! date 74–81, amount 82–96, the company's reference 106–130, payer document 134–148, the bank's fee
//! 199–213, the reasons 214–221 (four codes of two). Segment U: interest and penalty 18–32, discount
//! 33–47, rebate 48–62, paid amount 78–92, net amount credited 93–107, the day it happened 138–145,
//! the day it is credited 146–153.

use chrono::NaiveDate;

use super::cnab240::LINE;
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

struct Reader<'a> {
    line: usize,
    text: &'a str,
}

impl<'a> Reader<'a> {
    fn raw(&self, from: usize, to: usize) -> &'a str {
        &self.text[from - 1..to]
    }

    fn digits(&self, from: usize, to: usize, field: &'static str) -> Result<&'a str, Malformed> {
        let value = self.raw(from, to);
        match value.bytes().all(|b| b.is_ascii_digit()) {
            true => Ok(value),
            false => Err(Malformed {
                line: self.line,
                field,
                problem: format!("posições {from}–{to} deveriam ser dígitos e são {value:?}"),
            }),
        }
    }

    fn money(&self, from: usize, to: usize, field: &'static str) -> Result<Money, Malformed> {
        let cents: i64 = self.digits(from, to, field)?.parse().unwrap_or_default();
        Ok(Money::new(rust_decimal::Decimal::new(cents, 2)))
    }

    /// A date DDMMAAAA, or none when zeros.
    fn date(&self, from: usize, to: usize, field: &'static str) -> Result<Option<NaiveDate>, Malformed> {
        let text = self.digits(from, to, field)?;
        if text.bytes().all(|b| b == b'0') {
            return Ok(None);
        }
        NaiveDate::parse_from_str(text, "%d%m%Y").map(Some).map_err(|_| Malformed {
            line: self.line,
            field,
            problem: format!("posições {from}–{to}: {text} não é uma data DDMMAAAA"),
        })
    }

    fn text(&self, from: usize, to: usize) -> String {
        self.raw(from, to).trim().to_owned()
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
        let reader = Reader { line, text };
        if reader.raw(8, 8) != "3" {
            continue;
        }
        match reader.raw(14, 14) {
            "T" => {
                if waiting_u {
                    return Err(Malformed {
                        line,
                        field: "segmento",
                        problem: "um segmento T sem o U do título anterior".into(),
                    });
                }
                let movement = reader.digits(16, 17, "código de movimento")?.to_owned();
                let reasons = (0..4)
                    .map(|n| reader.raw(214 + 2 * n, 215 + 2 * n).trim().to_owned())
                    .filter(|code| !code.is_empty() && code != "00")
                    .collect();
                found.push(Returned {
                    line,
                    happened: Happened::of(&movement),
                    movement,
                    carteira: reader.digits(38, 40, "carteira")?.to_owned(),
                    our_number: reader.digits(41, 48, "nosso número")?.to_owned(),
                    our_number_dac: reader.digits(49, 49, "DAC do nosso número")?.to_owned(),
                    document_number: reader.text(59, 68),
                    due_date: reader.date(74, 81, "vencimento")?,
                    amount: reader.money(82, 96, "valor do título")?,
                    reference: reader.text(106, 130),
                    fee: reader.money(199, 213, "tarifa")?,
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
                title.interest = reader.money(18, 32, "juros e multa")?;
                title.discount = reader.money(33, 47, "desconto")?;
                title.paid_amount = reader.money(78, 92, "valor pago")?;
                title.net_amount = reader.money(93, 107, "valor líquido")?;
                title.occurred_on = reader.date(138, 145, "data da ocorrência")?;
                title.credit_on = reader.date(146, 153, "data do crédito")?;
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
