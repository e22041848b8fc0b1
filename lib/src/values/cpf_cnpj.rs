//! Brazilian taxpayer ids (the "documents" of §2.3). A `Cpf` or `Cnpj` exists only when valid (parse, don't validate).
//!
//! CPF: 11 digits, two mod-11 check digits, all-equal digits refused.
//! CNPJ: 14 characters, the first 12 `0-9A-Z` (alphanumeric CNPJ: each character's value is its ASCII
//! code − 48, so digits keep their value), the last two numeric mod-11 check digits.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A valid CPF, as its 11 digits.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Cpf(String);

/// A valid CNPJ, as its 14 characters (12 `0-9A-Z`, 2 check digits).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Cnpj(String);

/// Both are their normalized text on the wire and in storage; reading one back checks it again.
macro_rules! document_serde {
    ($name:ident) => {
        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(&self.0)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = String::deserialize(deserializer)?;
                $name::parse(&text).ok_or_else(|| serde::de::Error::custom(concat!("not a valid ", stringify!($name))))
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

document_serde!(Cpf);
document_serde!(Cnpj);

/// `529.982.247-25` → `52998224725` (§2.3: non-digits removed).
pub fn normalize_cpf(raw: &str) -> String {
    raw.chars().filter(char::is_ascii_digit).collect()
}

/// `12.abc.345/01de-35` → `12ABC34501DE35` (§2.3: uppercased, characters outside `A-Z0-9` removed).
pub fn normalize_cnpj(raw: &str) -> String {
    raw.to_uppercase().chars().filter(|c| c.is_ascii_digit() || c.is_ascii_uppercase()).collect()
}

fn all_equal(text: &str) -> bool {
    let first = text.as_bytes()[0];
    text.bytes().all(|b| b == first)
}

/// Check digit over `values` with `weights`: 11 − (sum mod 11), or 0 when the remainder is 0 or 1.
fn mod11(values: &[u32], weights: &[u32]) -> u32 {
    let sum: u32 = values.iter().zip(weights).map(|(v, w)| v * w).sum();
    match sum % 11 {
        0 | 1 => 0,
        r => 11 - r,
    }
}

impl Cpf {
    pub fn parse(raw: &str) -> Option<Cpf> {
        let digits = normalize_cpf(raw);
        if digits.len() != 11 || all_equal(&digits) {
            return None;
        }
        let values: Vec<u32> = digits.chars().map(|c| c.to_digit(10).expect("digit")).collect();
        let first = mod11(&values[..9], &[10, 9, 8, 7, 6, 5, 4, 3, 2]);
        let second = mod11(&values[..10], &[11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
        (values[9] == first && values[10] == second).then_some(Cpf(digits))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Cnpj {
    pub fn parse(raw: &str) -> Option<Cnpj> {
        let text = normalize_cnpj(raw);
        let bytes = text.as_bytes();
        if bytes.len() != 14 || all_equal(&text) || !bytes[12..].iter().all(u8::is_ascii_digit) {
            return None;
        }
        let values: Vec<u32> = bytes.iter().map(|b| u32::from(*b) - 48).collect();
        let first = mod11(&values[..12], &[5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
        let second = mod11(&values[..13], &[6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
        (values[12] == first && values[13] == second).then_some(Cnpj(text))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_cpfs() {
        assert_eq!(Cpf::parse("529.982.247-25").unwrap().as_str(), "52998224725");
        assert!(Cpf::parse("11144477735").is_some());
        assert!(Cpf::parse(" 111 444 777 35 ").is_some());
    }

    #[test]
    fn invalid_cpfs() {
        for bad in ["52998224724", "52998224715", "1114447773", "111444777350", "", "abc"] {
            assert!(Cpf::parse(bad).is_none(), "{bad}");
        }
        for d in 0..=9 {
            assert!(Cpf::parse(&d.to_string().repeat(11)).is_none(), "all {d}");
        }
    }

    #[test]
    fn numeric_cnpjs() {
        assert_eq!(Cnpj::parse("11.222.333/0001-81").unwrap().as_str(), "11222333000181");
        assert!(Cnpj::parse("11222333000182").is_none());
        assert!(Cnpj::parse("00000000000000").is_none());
        assert!(Cnpj::parse("1122233300018").is_none());
    }

    #[test]
    fn the_official_alphanumeric_example_is_valid() {
        assert_eq!(Cnpj::parse("12.ABC.345/01DE-35").unwrap().as_str(), "12ABC34501DE35");
        assert_eq!(Cnpj::parse("12.abc.345/01de-35").unwrap().as_str(), "12ABC34501DE35");
        assert!(Cnpj::parse("12.ABC.345/01DE-36").is_none());
        assert!(Cnpj::parse("12.ABC.345/01DF-35").is_none());
        // Check digits are numeric.
        assert!(Cnpj::parse("12ABC34501DE3A").is_none());
    }

    #[test]
    fn normalization() {
        assert_eq!(normalize_cpf("529.982.247-25"), "52998224725");
        assert_eq!(normalize_cnpj(" 12.abc.345/01de-35 "), "12ABC34501DE35");
    }
}
