//! Bank files' records as data: a record is its fields in the order of the bank's
//! manual, each with its positions (counted from 1, as the manuals count them), its kind and where
//! its value comes from, every position of the line in exactly one field, fillers included. A
//! reviewer holds a record against the manual line by line; one writer ([`write`]) makes a line of
//! any record, and one checker ([`misread`]) holds a written line against its record.
//!
//! - **Numeric** fields (`N`): digits, right-aligned, zeros to the left (a longer value is cut on
//!   the left: the caller checks the lengths that matter).
//! - **Alphanumeric** fields (`A`): upper-case ASCII letters, digits, spaces and hyphens (accents
//!   folded, anything else a space, runs of spaces one: [`ascii`]), left-aligned, blanks to the
//!   right, cut on the right.

use std::fmt;

/// How a field is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Digits, right-aligned with zeros.
    N,
    /// Text, left-aligned with blanks.
    A,
}

/// Where a field's value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Always this (a record type, a segment letter, a layout version, a code).
    Fixed(&'static str),
    /// A filler the manual wants as zeros.
    Zeros,
    /// A filler the manual wants blank.
    Blanks,
    /// The value the writer is given under this name (in a file the bank writes: the value the
    /// reader gives under it).
    Value(&'static str),
    /// In a file the bank writes, what the service does not read.
    Unread,
}

/// One field of a record.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    pub from: usize,
    pub to: usize,
    pub kind: Kind,
    pub source: Source,
    /// Its name in the manual.
    pub name: &'static str,
}

/// A field of `from..=to` (a shorthand for the layouts' tables).
pub const fn field(from: usize, to: usize, kind: Kind, source: Source, name: &'static str) -> Field {
    Field { from, to, kind, source, name }
}

/// One record (a line) of a layout.
#[derive(Clone, Copy, Debug)]
pub struct Record {
    pub name: &'static str,
    /// 240 or 400.
    pub width: usize,
    pub fields: &'static [Field],
}

/// A value a record names that the writer was not given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Missing {
    pub record: &'static str,
    pub value: &'static str,
}

impl fmt::Display for Missing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: no value for {}", self.record, self.value)
    }
}

impl std::error::Error for Missing {}

/// Text as the banks' alphanumeric fields take it: upper-case letters, digits, spaces and hyphens.
/// Portuguese accents are folded to their letters, any other character becomes a space, and runs
/// of spaces are one (`Avenida Paulista, 1000` → `AVENIDA PAULISTA 1000`).
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

/// `value` written as a field of `width` positions of `kind`.
fn formatted(kind: Kind, width: usize, value: &str) -> String {
    match kind {
        Kind::N => {
            let digits: String = value.chars().filter(char::is_ascii_digit).collect();
            let digits = if digits.len() > width { digits[digits.len() - width..].to_owned() } else { digits };
            format!("{digits:0>width$}")
        }
        Kind::A => {
            let folded: String = ascii(value).chars().take(width).collect();
            format!("{folded:<width$}")
        }
    }
}

/// A line of `record`, each field from its source (`values` gives those it names by name).
pub fn write<'a>(record: &Record, values: impl Fn(&str) -> Option<&'a str>) -> Result<String, Missing> {
    let mut line = String::with_capacity(record.width);
    for field in record.fields {
        let width = field.to + 1 - field.from;
        let text = match field.source {
            Source::Fixed(text) => formatted(field.kind, width, text),
            Source::Zeros => "0".repeat(width),
            Source::Blanks | Source::Unread => " ".repeat(width),
            Source::Value(name) => {
                let value = values(name).ok_or(Missing { record: record.name, value: name })?;
                formatted(field.kind, width, value)
            }
        };
        line.push_str(&text);
    }
    Ok(line)
}

/// Why `record`'s fields do not cover positions 1 to its width once each, in order; `None` when
/// they do.
pub fn gaps(record: &Record) -> Option<String> {
    let mut next = 1;
    for field in record.fields {
        if field.from != next || field.to < field.from {
            return Some(format!(
                "{}: {} at {}-{} where {next} was next",
                record.name, field.name, field.from, field.to
            ));
        }
        next = field.to + 1;
    }
    (next != record.width + 1).then(|| format!("{}: ends at {} of {}", record.name, next - 1, record.width))
}

/// The fields of `record` that `line` does not hold as they should (its length, digits in a
/// numeric field, text as the banks take it in an alphanumeric one, a filler as the manual wants
/// it, a fixed value), each by its positions and name.
pub fn misread(record: &Record, line: &str) -> Vec<String> {
    if line.len() != record.width || !line.is_ascii() {
        return vec![format!("{}: {} characters, not {} of ASCII", record.name, line.len(), record.width)];
    }
    let mut wrong = Vec::new();
    for field in record.fields {
        let value = &line[field.from - 1..field.to];
        let fits = match (field.source, field.kind) {
            (Source::Unread, _) => true,
            (Source::Zeros, _) => value.bytes().all(|b| b == b'0'),
            (Source::Blanks, _) => value.bytes().all(|b| b == b' '),
            (Source::Fixed(text), kind) => value == formatted(kind, value.len(), text),
            (Source::Value(_), Kind::N) => value.bytes().all(|b| b.is_ascii_digit()),
            (Source::Value(_), Kind::A) => {
                value.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b' ' || b == b'-')
            }
        };
        if !fits {
            wrong.push(format!(
                "{}-{} {} ({:?} {:?}): {value:?}",
                field.from, field.to, field.name, field.kind, field.source
            ));
        }
    }
    wrong
}

/// A named field of a line that is not what its record says (digits where there are none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unreadable {
    /// The field's name in the manual.
    pub field: &'static str,
    pub problem: String,
}

/// The named values of a line of `record`, read: a numeric field's digits (refused when it holds
/// anything else), an alphanumeric field's text. Fillers and what the service does not read are
/// not looked at.
pub fn read<'a>(record: &Record, line: &'a str) -> Result<Read<'a>, Unreadable> {
    let mut values = Vec::new();
    for field in record.fields {
        let Source::Value(name) = field.source else { continue };
        let value = line.get(field.from - 1..field.to).unwrap_or_default();
        let value = match field.kind {
            Kind::N if value.len() == field.to + 1 - field.from && value.bytes().all(|b| b.is_ascii_digit()) => value,
            Kind::N => {
                let problem = format!("posições {}–{} deveriam ser dígitos e são {value:?}", field.from, field.to);
                return Err(Unreadable { field: field.name, problem });
            }
            Kind::A => value,
        };
        values.push((name, field.name, field.from, field.to, value));
    }
    Ok(Read(values))
}

/// What [`read`] found in a line: each named value with its field's name and positions.
pub struct Read<'a>(Vec<(&'static str, &'static str, usize, usize, &'a str)>);

impl<'a> Read<'a> {
    /// The value named `name`, without blanks at either end (empty when the record names none
    /// such).
    pub fn get(&self, name: &str) -> &'a str {
        self.raw(name).trim()
    }

    /// The value named `name` as the line has it, every position of its field.
    pub fn raw(&self, name: &str) -> &'a str {
        self.0.iter().find(|(n, ..)| *n == name).map_or("", |found| found.4)
    }

    /// The field of the value named `name`: its name in the manual and its positions.
    pub fn field(&self, name: &str) -> (&'static str, usize, usize) {
        self.0.iter().find(|(n, ..)| *n == name).map_or(("", 0, 0), |found| (found.1, found.2, found.3))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Kind::{A, N};
    use Source::{Blanks, Fixed, Value, Zeros};

    const RECORD: Record = Record {
        name: "test",
        width: 20,
        fields: &[
            field(1, 3, N, Fixed("341"), "banco"),
            field(4, 8, N, Value("number"), "número"),
            field(9, 10, N, Zeros, "zeros"),
            field(11, 18, A, Value("name"), "nome"),
            field(19, 20, A, Blanks, "brancos"),
        ],
    };

    #[test]
    fn a_record_is_written_field_by_field_and_read_back_against_itself() {
        let values = |name: &str| match name {
            "number" => Some("12"),
            "name" => Some("João da Silva, 10"),
            _ => None,
        };
        let line = write(&RECORD, values).unwrap();
        assert_eq!(line, "3410001200JOAO DA   ");
        assert_eq!(gaps(&RECORD), None);
        assert_eq!(misread(&RECORD, &line), Vec::<String>::new());
        let wrong = misread(&RECORD, "3410001200JOAO DA 00");
        assert_eq!(wrong, ["19-20 brancos (A Blanks): \"00\""]);
        let blank_zeros = misread(&RECORD, "34100012  JOAO DA   ");
        assert_eq!(blank_zeros, ["9-10 zeros (N Zeros): \"  \""]);
        assert_eq!(write(&RECORD, |_| None), Err(Missing { record: "test", value: "number" }));
        assert_eq!(misread(&RECORD, "short").len(), 1);
        let read = read(&RECORD, &line).unwrap();
        assert_eq!((read.get("number"), read.get("name")), ("00012", "JOAO DA"));
        let refused = super::read(&RECORD, "3410001X00JOAO DA   ").err().unwrap();
        assert_eq!(refused.field, "número");
    }

    const HOLED: Record =
        Record { name: "holed", width: 20, fields: &[field(1, 3, N, Zeros, "a"), field(5, 20, A, Blanks, "b")] };
    const SHORT: Record = Record { name: "short", width: 20, fields: &[field(1, 19, N, Zeros, "a")] };

    #[test]
    fn a_record_that_leaves_a_position_out_is_told() {
        assert!(gaps(&HOLED).unwrap().contains("where 4 was next"));
        assert!(gaps(&SHORT).unwrap().contains("ends at 19 of 20"));
    }
}
