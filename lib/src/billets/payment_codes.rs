//! The payment documents of a bank billet, as pure functions: the 44-digit FEBRABAN barcode, the
//! 47-digit digitable line written from it, and the Pix copy-and-paste payload (EMV BR Code).
//!
//! Barcode positions: 1–3 bank, 4 currency (9 = real), 5 general check digit, 6–9 due-date factor,
//! 10–19 amount in cents, 20–44 the bank's free field. The general check digit is modulo 11 over
//! the other 43 digits (weights 2..9 from the right), 0, 10 and 11 becoming 1. The due-date factor
//! counts days from 1997-10-07 and, having reached 9999 on 2025-02-21, starts again at 1000 on
//! 2025-02-22 (each further 9000 days it starts again).

use chrono::NaiveDate;
use rust_decimal::Decimal;

/// Why a document cannot be made.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum DocumentError {
    #[error("bank code must be 3 digits")]
    Bank,
    #[error("free field must be 25 digits")]
    FreeField,
    #[error("amount must be between 0.00 and 99,999,999.99 with at most 2 decimals")]
    Amount,
    #[error("due date before the factor base (1997-10-07)")]
    DueDate,
    #[error("not a barcode of 44 digits")]
    Barcode,
}

fn digits(text: &str) -> impl DoubleEndedIterator<Item = u32> + '_ {
    text.bytes().map(|b| u32::from(b - b'0'))
}

fn all_digits(text: &str, len: usize) -> bool {
    text.len() == len && text.bytes().all(|b| b.is_ascii_digit())
}

/// `11 - (sum mod 11)` of the digits weighted 2..9 from the right, repeating: the modulo 11 that
/// FEBRABAN's check digits start from (each maps the results above 9 its own way).
fn modulo_11(text: &str) -> u32 {
    let sum: u32 = digits(text).rev().zip((2..=9).cycle()).map(|(d, w)| d * w).sum();
    11 - sum % 11
}

/// Modulo 11 check digit of the barcode (0, 10, 11 → 1).
fn general_check_digit(digits43: &str) -> u32 {
    match modulo_11(digits43) {
        0 | 10 | 11 => 1,
        dv => dv,
    }
}

/// The bank code's check digit printed beside it in a slip's header (`001-9`, `237-2`): modulo 11,
/// 10 and 11 becoming 0.
pub fn bank_check_digit(bank: &str) -> u32 {
    match modulo_11(bank) {
        10 | 11 => 0,
        dv => dv,
    }
}

/// Modulo 10 check digit of a digitable-line field (weights 2, 1 from the right; products above 9
/// add their digits).
fn field_check_digit(field: &str) -> u32 {
    let sum: u32 = digits(field)
        .rev()
        .zip([2, 1].into_iter().cycle())
        .map(|(d, w)| {
            let p = d * w;
            p / 10 + p % 10
        })
        .sum();
    (10 - sum % 10) % 10
}

/// Due-date factor: days since 1997-10-07, restarting at 1000 after 9999.
fn due_date_factor(due: NaiveDate) -> Result<u32, DocumentError> {
    let base = NaiveDate::from_ymd_opt(1997, 10, 7).expect("a valid date");
    let days = u32::try_from((due - base).num_days()).map_err(|_| DocumentError::DueDate)?;
    Ok(if days < 10_000 { days } else { (days - 10_000) % 9_000 + 1_000 })
}

/// The amount in cents, 10 digits.
fn amount_field(amount: Decimal) -> Result<String, DocumentError> {
    let cents = (amount * Decimal::ONE_HUNDRED).normalize();
    if amount.is_sign_negative() || cents.scale() > 0 {
        return Err(DocumentError::Amount);
    }
    let text = cents.to_string();
    if text.len() > 10 {
        return Err(DocumentError::Amount);
    }
    Ok(format!("{text:0>10}"))
}

/// The 44-digit barcode.
pub fn barcode(bank: &str, due: NaiveDate, amount: Decimal, free_field: &str) -> Result<String, DocumentError> {
    if !all_digits(bank, 3) {
        return Err(DocumentError::Bank);
    }
    if !all_digits(free_field, 25) {
        return Err(DocumentError::FreeField);
    }
    let tail = format!("{:04}{}{free_field}", due_date_factor(due)?, amount_field(amount)?);
    let without_dv = format!("{bank}9{tail}");
    Ok(format!("{bank}9{}{tail}", general_check_digit(&without_dv)))
}

/// Whether a barcode's general check digit is right.
pub fn barcode_is_valid(code: &str) -> bool {
    all_digits(code, 44) && {
        let without_dv = format!("{}{}", &code[..4], &code[5..]);
        general_check_digit(&without_dv) == u32::from(code.as_bytes()[4] - b'0')
    }
}

/// The digitable line of a barcode, formatted `AAAAA.AAAAA BBBBB.BBBBBB CCCCC.CCCCCC D EEEEEEEEEEEEEE`.
pub fn digitable_line(code: &str) -> Result<String, DocumentError> {
    if !barcode_is_valid(code) {
        return Err(DocumentError::Barcode);
    }
    let field = |body: String| format!("{body}{}", field_check_digit(&body));
    let first = field(format!("{}{}", &code[0..4], &code[19..24]));
    let second = field(code[24..34].to_owned());
    let third = field(code[34..44].to_owned());
    Ok(format!(
        "{}.{} {}.{} {}.{} {} {}",
        &first[..5],
        &first[5..],
        &second[..5],
        &second[5..],
        &third[..5],
        &third[5..],
        &code[4..5],
        &code[5..19]
    ))
}

/// CRC-16/CCITT-FALSE (polynomial 0x1021, initial 0xFFFF, no reflection), as Pix requires.
pub fn crc16_ccitt_false(data: &[u8]) -> u16 {
    let mut crc: u16 = 0xFFFF;
    for byte in data {
        crc ^= u16::from(*byte) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 { (crc << 1) ^ 0x1021 } else { crc << 1 };
        }
    }
    crc
}

fn tlv(id: &str, value: &str) -> String {
    format!("{id}{:02}{value}", value.chars().count())
}

/// What a static Pix copy-and-paste code carries.
#[derive(Clone, Debug)]
pub struct PixCharge<'a> {
    pub key: &'a str,
    pub merchant_name: &'a str,
    pub merchant_city: &'a str,
    /// None: the payer types the amount.
    pub amount: Option<Decimal>,
    /// Up to 25 letters and digits; `***` when none.
    pub txid: &'a str,
}

/// The EMV BR Code payload (GUI `br.gov.bcb.pix`) ending in `6304` and its CRC in 4 uppercase hex
/// digits. Name and city are cut to 25 and 15 characters as the standard allows.
pub fn pix_copy_and_paste(charge: &PixCharge<'_>) -> String {
    let account = tlv("00", "br.gov.bcb.pix") + &tlv("01", charge.key);
    let mut payload = tlv("00", "01") + &tlv("26", &account) + &tlv("52", "0000") + &tlv("53", "986");
    if let Some(amount) = charge.amount {
        payload += &tlv("54", &format!("{:.2}", amount.round_dp(2)));
    }
    let name: String = charge.merchant_name.chars().take(25).collect();
    let city: String = charge.merchant_city.chars().take(15).collect();
    payload += &(tlv("58", "BR") + &tlv("59", &name) + &tlv("60", &city) + &tlv("62", &tlv("05", charge.txid)));
    payload += "6304";
    let crc = crc16_ccitt_false(payload.as_bytes());
    format!("{payload}{crc:04X}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn barcode_and_line_of_the_first_vector() {
        let code = "00192376900000135000000001238798777770016818";
        assert!(barcode_is_valid(code));
        assert_eq!(digitable_line(code).unwrap(), "00190.00009 01238.798779 77700.168188 2 37690000013500");
        // Rebuilt from its parts (factor 3769 = 2008-02-01, R$ 135,00).
        let due = NaiveDate::from_ymd_opt(2008, 2, 1).unwrap();
        assert_eq!(due_date_factor(due).unwrap(), 3769);
        assert_eq!(barcode("001", due, "135.00".parse().unwrap(), "0000001238798777770016818").unwrap(), code);
    }

    #[test]
    fn barcode_and_line_after_the_factor_reset() {
        let due = NaiveDate::from_ymd_opt(2025, 2, 23).unwrap();
        assert_eq!(due_date_factor(due).unwrap(), 1001);
        assert_eq!(due_date_factor(NaiveDate::from_ymd_opt(2025, 2, 22).unwrap()).unwrap(), 1000);
        assert_eq!(due_date_factor(NaiveDate::from_ymd_opt(2025, 2, 21).unwrap()).unwrap(), 9999);
        let code = barcode("422", due, "180.84".parse().unwrap(), "7004000002782472617300112").unwrap();
        assert_eq!(code, "42296100100000180847004000002782472617300112");
        assert_eq!(digitable_line(&code).unwrap(), "42297.00408 00002.782472 26173.001129 6 10010000018084");
    }

    #[test]
    fn bad_inputs_are_refused() {
        let due = NaiveDate::from_ymd_opt(2030, 1, 1).unwrap();
        let free = "0".repeat(25);
        assert_eq!(barcode("01", due, Decimal::ONE, &free), Err(DocumentError::Bank));
        assert_eq!(barcode("001", due, Decimal::ONE, "123"), Err(DocumentError::FreeField));
        assert_eq!(barcode("001", due, "0.001".parse().unwrap(), &free), Err(DocumentError::Amount));
        assert_eq!(barcode("001", due, "100000000".parse().unwrap(), &free), Err(DocumentError::Amount));
        assert_eq!(
            barcode("001", NaiveDate::from_ymd_opt(1990, 1, 1).unwrap(), Decimal::ONE, &free),
            Err(DocumentError::DueDate)
        );
        assert!(!barcode_is_valid("00192376900000135000000001238798777770016819"));
        assert_eq!(digitable_line("123"), Err(DocumentError::Barcode));
    }

    #[test]
    fn pix_matches_the_reference_payload() {
        let charge = PixCharge {
            key: "123e4567-e12b-12d1-a456-426655440000",
            merchant_name: "Fulano de Tal",
            merchant_city: "BRASILIA",
            amount: None,
            txid: "***",
        };
        assert_eq!(
            pix_copy_and_paste(&charge),
            "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D"
        );
        assert_eq!(crc16_ccitt_false(b"123456789"), 0x29B1, "the CRC's check value");
        let with_amount = pix_copy_and_paste(&PixCharge { amount: Some("180.84".parse().unwrap()), ..charge });
        assert!(with_amount.contains("5406180.84"));
    }
}
