//! Money (BRL): exact decimals, never floats. On the wire an amount is a string with two decimals
//! (`"135.00"`); computations round each component to cents, half away from zero.

use std::fmt;
use std::iter::Sum;
use std::ops::{Add, Mul, Neg, Sub};

use rust_decimal::{Decimal, RoundingStrategy};
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An amount of money. Shown and serialized with two decimals; compared and summed exactly.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Money(Decimal);

impl Money {
    pub const ZERO: Money = Money(Decimal::ZERO);

    pub const fn new(value: Decimal) -> Self {
        Money(value)
    }

    pub const fn get(self) -> Decimal {
        self.0
    }

    /// Whole cents, half away from zero.
    pub fn cents(self) -> Money {
        Money(cents(self.0))
    }

    /// `"150"`, `"150.5"`, `"150.50"`: plain decimal text (no thousands separators, no exponent).
    pub fn parse(text: &str) -> Option<Money> {
        parse(text).map(Money)
    }

    pub fn is_positive(self) -> bool {
        self.0 > Decimal::ZERO
    }

    /// `self × quantity`, or `None` when it would overflow.
    pub fn checked_times(self, quantity: i64) -> Option<Money> {
        self.0.checked_mul(Decimal::from(quantity)).map(Money)
    }

    pub fn checked_add(self, other: Money) -> Option<Money> {
        self.0.checked_add(other.0).map(Money)
    }

    pub fn min(self, other: Money) -> Money {
        Money(self.0.min(other.0))
    }

    /// The amount in whole cents (a counter's unit), half away from zero; 0 beyond `i64`.
    pub fn in_cents(self) -> i64 {
        use rust_decimal::prelude::ToPrimitive as _;
        (cents(self.0) * Decimal::ONE_HUNDRED).to_i64().unwrap_or_default()
    }

    /// An amount of whole cents.
    pub fn from_cents(cents: i64) -> Money {
        Money(Decimal::new(cents, 2))
    }
}

impl From<Decimal> for Money {
    fn from(value: Decimal) -> Self {
        Money(value)
    }
}

impl From<Money> for Decimal {
    fn from(value: Money) -> Self {
        value.0
    }
}

impl Add for Money {
    type Output = Money;
    fn add(self, other: Money) -> Money {
        Money(self.0 + other.0)
    }
}

impl Sub for Money {
    type Output = Money;
    fn sub(self, other: Money) -> Money {
        Money(self.0 - other.0)
    }
}

impl Neg for Money {
    type Output = Money;
    fn neg(self) -> Money {
        Money(-self.0)
    }
}

impl Mul<Decimal> for Money {
    type Output = Money;
    fn mul(self, factor: Decimal) -> Money {
        Money(self.0 * factor)
    }
}

impl Sum for Money {
    fn sum<I: Iterator<Item = Money>>(iter: I) -> Money {
        Money(iter.map(|m| m.0).sum())
    }
}

/// `135.00`: two decimals, rounded to cents.
impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format(self.0))
    }
}

impl std::str::FromStr for Money {
    type Err = rust_decimal::Error;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Money::parse(text).ok_or(rust_decimal::Error::ConversionTo("Money".into()))
    }
}

/// The wire form: a string with two decimals.
impl Serialize for Money {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// From a decimal string or a number (integers exactly; floats through their shortest text, exact
/// for every amount the service admits).
impl<'de> Deserialize<'de> for Money {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(DecimalVisitor).map(Money)
    }
}

/// Reads a decimal from the number or string a format has: exact for integers and decimal text,
/// and for floats through their shortest round-trip text (exact up to 15 significant digits).
pub struct DecimalVisitor;

impl Visitor<'_> for DecimalVisitor {
    type Value = Decimal;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a decimal number or decimal text")
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Decimal, E> {
        Ok(Decimal::from(value))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Decimal, E> {
        Ok(Decimal::from(value))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Decimal, E> {
        value.to_string().parse().map_err(E::custom)
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Decimal, E> {
        parse(value).ok_or_else(|| E::custom(format!("not a decimal: {value:?}")))
    }
}

/// Rounds to whole cents, half away from zero (R$ 0,005 → R$ 0,01).
pub fn cents(value: Decimal) -> Decimal {
    value.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero)
}

/// `135` → `"135.00"`.
pub fn format(value: Decimal) -> String {
    format!("{:.2}", cents(value))
}

/// A decimal written plainly: digits, one optional point, an optional leading minus.
pub fn parse(text: &str) -> Option<Decimal> {
    let text = text.trim();
    if text.is_empty() || !text.chars().all(|c| c.is_ascii_digit() || c == '.' || c == '-') {
        return None;
    }
    text.parse::<Decimal>().ok()
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
        assert_eq!(parse("1e5"), None);
    }

    #[test]
    fn money_is_two_decimals_on_the_wire_and_reads_numbers_exactly() {
        let m = Money::parse("25.5").unwrap();
        assert_eq!(serde_json::to_string(&m).unwrap(), "\"25.50\"");
        assert_eq!(serde_json::from_str::<Money>("\"25.50\"").unwrap(), m);
        assert_eq!(serde_json::from_str::<Money>("25.5").unwrap(), m);
        assert_eq!(serde_json::from_str::<Money>("150").unwrap(), Money::new(d("150")));
        // Every amount the service admits survives the trip through a float's shortest text.
        for text in ["0.01", "0.1", "0.3", "99999999.99", "12345678.91", "0.033", "1.1"] {
            let float: f64 = text.parse().unwrap();
            assert_eq!(DecimalVisitor.visit_f64::<serde::de::value::Error>(float).unwrap(), d(text), "{text}");
        }
    }

    #[test]
    fn arithmetic() {
        let a = Money::parse("10.25").unwrap();
        assert_eq!(a.checked_times(2), Some(Money::parse("20.5").unwrap()));
        assert_eq!(Money::new(Decimal::MAX).checked_times(2), None);
        assert_eq!([a, a].into_iter().sum::<Money>().to_string(), "20.50");
        assert_eq!((a - Money::parse("0.25").unwrap()).to_string(), "10.00");
    }
}
