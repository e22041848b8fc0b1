//! Money: `rust_decimal`, never floats; shown as strings with two decimals (§2 conventions).

use rust_decimal::{Decimal, RoundingStrategy};

/// Rounds to cents, half away from zero (the usual commercial rounding of Brazilian banks).
pub fn cents(value: Decimal) -> Decimal {
    value.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero)
}

/// `"135.00"`.
pub fn format(value: Decimal) -> String {
    format!("{:.2}", cents(value))
}

/// Reads an amount sent as a JSON number or string (`"10.5"`, `10.5`, `"1.234,56"` is refused).
pub fn parse(text: &str) -> Option<Decimal> {
    let text = text.trim();
    if text.is_empty() || !text.chars().all(|c| c.is_ascii_digit() || c == '.' || c == '-') {
        return None;
    }
    text.parse::<Decimal>().ok()
}

/// Serde helpers for amounts shown as two-decimal strings.
pub mod as_string {
    use rust_decimal::Decimal;
    use serde::Serializer;

    pub fn serialize<S: Serializer>(value: &Decimal, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&super::format(*value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(text: &str) -> Decimal {
        text.parse().unwrap()
    }

    #[test]
    fn rounding_and_format() {
        assert_eq!(format(d("135")), "135.00");
        assert_eq!(format(d("0.005")), "0.01");
        assert_eq!(format(d("2.345")), "2.35");
        assert_eq!(format(d("2.344")), "2.34");
        assert_eq!(format(d("-1.005")), "-1.01");
    }

    #[test]
    fn parsing() {
        assert_eq!(parse("10.5"), Some(d("10.5")));
        assert_eq!(parse(" 7 "), Some(d("7")));
        assert_eq!(parse("1.234,56"), None);
        assert_eq!(parse("abc"), None);
        assert_eq!(parse(""), None);
    }
}
