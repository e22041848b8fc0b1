//! Text on the slip: what Helvetica (one of the PDF's standard fonts, never embedded) can show and
//! how wide it is, and the Brazilian ways of writing amounts, dates and documents.
//!
//! The standard fonts are addressed in WinAnsiEncoding, a single byte per character: Latin-1
//! letters (every Portuguese accent) keep their code, a few typographic marks have their own, and
//! anything else is shown as `?`. Widths are Helvetica's published metrics (thousandths of the
//! font size) for ASCII; an accented letter is as wide as its base letter, as in the font.

use chrono::NaiveDate;

use crate::values::Money;

/// Helvetica's advance widths of ASCII 32..=126, thousandths of an em.
#[rustfmt::skip]
const HELVETICA: [u16; 95] = [
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, // space../
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, // 0..?
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, // @..O
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, // P.._
    333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, // `..o
    556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,      // p..~
];

/// Bold glyphs are at most this much wider than regular ones (digits and punctuation are equal).
const BOLD_FACTOR: f32 = 1.1;

/// The WinAnsiEncoding byte of a character (`?` when the encoding has none).
fn win_ansi(c: char) -> u8 {
    match c {
        ' '..='~' => c as u8,
        '\u{a0}'..='\u{ff}' => c as u32 as u8,
        '€' => 0x80,
        '…' => 0x85,
        '•' => 0x95,
        '–' => 0x96,
        '—' => 0x97,
        '‘' => 0x91,
        '’' => 0x92,
        '“' => 0x93,
        '”' => 0x94,
        c if c.is_whitespace() => b' ',
        _ => b'?',
    }
}

/// The bytes to show `text` with a WinAnsi-encoded standard font.
pub fn encode(text: &str) -> Vec<u8> {
    text.chars().map(win_ansi).collect()
}

/// The letter an accented Latin-1 letter is drawn on (its width is that letter's).
fn base_letter(byte: u8) -> u8 {
    match byte {
        0xc0..=0xc5 => b'A',
        0xc7 => b'C',
        0xc8..=0xcb => b'E',
        0xcc..=0xcf => b'I',
        0xd1 => b'N',
        0xd2..=0xd6 | 0xd8 => b'O',
        0xd9..=0xdc => b'U',
        0xdd => b'Y',
        0xe0..=0xe5 => b'a',
        0xe7 => b'c',
        0xe8..=0xeb => b'e',
        0xf1 => b'n',
        0xf2..=0xf6 | 0xf8 => b'o',
        0xf9..=0xfc => b'u',
        0xfd | 0xff => b'y',
        other => other,
    }
}

fn glyph_width(byte: u8) -> u16 {
    match base_letter(byte) {
        // Accented i's are drawn on the dotless i, wider than i.
        0xec..=0xef => 278,
        b @ 32..=126 => HELVETICA[usize::from(b - 32)],
        0x85 | 0x97 => 1000,
        _ => 556,
    }
}

/// How wide `text` is in Helvetica (bold: an upper bound) at `size` points.
pub fn width(text: &str, size: f32, bold: bool) -> f32 {
    let units: u32 = encode(text).into_iter().map(|b| u32::from(glyph_width(b))).sum();
    let regular = units as f32 * size / 1000.0;
    if bold {
        regular * BOLD_FACTOR
    } else {
        regular
    }
}

/// `text` cut (ending in `...`) so it fits `room` points.
pub fn fit(text: &str, size: f32, bold: bool, room: f32) -> String {
    if width(text, size, bold) <= room {
        return text.to_owned();
    }
    let mut kept: String = text.to_owned();
    while !kept.is_empty() && width(&format!("{kept}..."), size, bold) > room {
        kept.pop();
    }
    format!("{}...", kept.trim_end())
}

/// `1234.5` → `"1.234,50"`.
pub fn amount(value: Money) -> String {
    let plain = value.to_string();
    let (units, cents) = plain.split_once('.').unwrap_or((&plain, "00"));
    let (sign, digits) = units.strip_prefix('-').map_or(("", units), |d| ("-", d));
    let mut grouped = String::new();
    for (n, digit) in digits.chars().enumerate() {
        if n > 0 && (digits.len() - n) % 3 == 0 {
            grouped.push('.');
        }
        grouped.push(digit);
    }
    format!("{sign}{grouped},{cents}")
}

/// `2030-03-04` → `"04/03/2030"`.
pub fn date(value: NaiveDate) -> String {
    value.format("%d/%m/%Y").to_string()
}

/// A CPF or CNPJ with its punctuation (`000.000.000-00`, `00.000.000/0000-00`); other text as is.
pub fn document(value: &str) -> String {
    let chars: Vec<char> = value.chars().collect();
    let part = |from: usize, to: usize| chars[from..to].iter().collect::<String>();
    let plain = chars.iter().all(|c| c.is_ascii_alphanumeric());
    match chars.len() {
        11 if plain => format!("{}.{}.{}-{}", part(0, 3), part(3, 6), part(6, 9), part(9, 11)),
        14 if plain => format!("{}.{}.{}/{}-{}", part(0, 2), part(2, 5), part(5, 8), part(8, 12), part(12, 14)),
        _ => value.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn portuguese_text_is_win_ansi() {
        assert_eq!(encode("São João, 1º – R$ 5"), b"S\xe3o Jo\xe3o, 1\xba \x96 R$ 5");
        assert_eq!(encode("Ω\tok"), b"? ok");
    }

    #[test]
    fn widths_follow_helvetica() {
        assert_eq!(width("0123456789", 10.0, false), 55.6);
        assert!((width("1.234,50", 10.0, false) - (6.0 * 5.56 + 2.0 * 2.78)).abs() < 1e-3);
        assert_eq!(width("ã", 10.0, false), width("a", 10.0, false));
        assert!(width("W", 10.0, false) > width("i", 10.0, false));
    }

    #[test]
    fn long_text_is_cut_to_fit() {
        let name = "Clínica Odontológica São José dos Campos Ltda.";
        let cut = fit(name, 8.0, false, 80.0);
        assert!(cut.ends_with("...") && width(&cut, 8.0, false) <= 80.0, "{cut}");
        assert_eq!(fit("Maria", 8.0, false, 80.0), "Maria");
    }

    #[test]
    fn brazilian_formats() {
        assert_eq!(amount(Money::parse("1234567.5").unwrap()), "1.234.567,50");
        assert_eq!(amount(Money::parse("25").unwrap()), "25,00");
        assert_eq!(amount(Money::parse("999.99").unwrap()), "999,99");
        assert_eq!(date("2030-03-04".parse().unwrap()), "04/03/2030");
        assert_eq!(document("52998224725"), "529.982.247-25");
        assert_eq!(document("11222333000181"), "11.222.333/0001-81");
        assert_eq!(document("abc"), "abc");
    }
}
