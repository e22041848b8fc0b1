//! CSV as Brazilian spreadsheets open it: UTF-8 with a byte-order mark (the first part only), `;`
//! between fields, CRLF between rows, amounts with a decimal comma (`51,10`), dates `dd/mm/aaaa` and
//! instants `dd/mm/aaaa hh:mm:ss` in São Paulo time. A field holding `;`, `"` or a line break is
//! quoted (its quotes doubled); one a spreadsheet would take for a formula (`=`, `+`, `-`, `@`) is
//! led by `'`, so a name can never run as one.

use chrono::NaiveDate;

use crate::values::calendar::sao_paulo;
use crate::values::{Money, Timestamp};

/// What a file begins with: the byte-order mark that tells a spreadsheet it is UTF-8.
pub const BOM: &str = "\u{feff}";

/// One field, as text.
pub fn text(value: &str) -> String {
    let guarded = match value.chars().next() {
        Some('=' | '+' | '-' | '@') => format!("'{value}"),
        _ => value.to_owned(),
    };
    if guarded.contains([';', '"', '\n', '\r']) {
        format!("\"{}\"", guarded.replace('"', "\"\""))
    } else {
        guarded
    }
}

/// An amount with a decimal comma and two places, no thousands separator (`-3,80`).
pub fn money(value: Money) -> String {
    format!("{:.2}", value.get()).replace('.', ",")
}

pub fn date(value: Option<NaiveDate>) -> String {
    value.map(|day| day.format("%d/%m/%Y").to_string()).unwrap_or_default()
}

pub fn instant(value: Timestamp) -> String {
    value.0.with_timezone(&sao_paulo()).format("%d/%m/%Y %H:%M:%S").to_string()
}

pub fn number(value: Option<i64>) -> String {
    value.map(|n| n.to_string()).unwrap_or_default()
}

/// A row of fields, with its line ending.
pub fn row(fields: &[String]) -> String {
    let mut line = fields.join(";");
    line.push_str("\r\n");
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_quoted_guarded_and_in_brazilian_forms() {
        assert_eq!(text("Maria; filha"), "\"Maria; filha\"");
        assert_eq!(text("dito \"assim\""), "\"dito \"\"assim\"\"\"");
        assert_eq!(text("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(text("-5"), "'-5");
        assert_eq!(money(Money::from_cents(-380)), "-3,80");
        assert_eq!(money(Money::from_cents(1_234_567)), "12345,67");
        assert_eq!(date(NaiveDate::from_ymd_opt(2026, 3, 4)), "04/03/2026");
        assert_eq!(row(&["a".into(), "".into(), "c".into()]), "a;;c\r\n");
        let at = Timestamp::parse("2026-11-28T23:30:00Z").unwrap();
        assert_eq!(instant(at), "28/11/2026 20:30:00");
    }
}
