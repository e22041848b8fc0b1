//! Banco Itaú (341) billets, as its "Cobrança – CNAB 240" manual and its barcode layout define them
//! (issue 26): the our-number's check digit (DAC), the barcode's free field, and the agreement an
//! account's Itaú bank rule names (agency, account and its DAC, carteira).
//!
//! - **Our number**: 8 digits, with a DAC: modulo 10 (weights 2, 1, 2, … from the right, the digits
//!   of each product summed) of agency (4) + account (5) + carteira (3) + our number (8); for the
//!   carteiras 126, 131, 146, 150 and 168 of carteira + our number only.
//! - **Free field** (barcode positions 20–44): carteira (3), our number (8), its DAC (1), agency (4),
//!   account (5), the DAC of agency + account (1), `000`.

use crate::billets::payment_codes::{self, DocumentError};
use chrono::NaiveDate;
use rust_decimal::Decimal;

pub const BANK_CODE: &str = "341";
pub const BANK_SYMBOL: &str = "itau";
pub const BANK_NAME: &str = "BANCO ITAU SA";

/// The carteiras whose our-number DAC leaves out agency and account.
const CARTEIRAS_WITHOUT_ACCOUNT: [&str; 5] = ["126", "131", "146", "150", "168"];

/// Modulo 10 digit: weights 2, 1, 2, … from the rightmost digit, the digits of each product
/// summed; `(10 - sum mod 10) mod 10`. `None` for anything but digits.
fn mod10(digits: &str) -> Option<u32> {
    let mut sum = 0;
    for (n, c) in digits.chars().rev().enumerate() {
        let product = c.to_digit(10)? * if n % 2 == 0 { 2 } else { 1 };
        sum += product / 10 + product % 10;
    }
    Some((10 - sum % 10) % 10)
}

/// The beneficiary's agreement at Itaú: agency (4 digits), account (5 digits), the account's DAC,
/// and the carteira (3 digits).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Agreement {
    pub agency: String,
    pub account: String,
    pub account_dac: u32,
    pub carteira: String,
}

impl Agreement {
    /// An agreement written `agency/account-dac/carteira` (`0057/12345-7/109`); the DAC must be the
    /// one of agency + account. `None` when it is not one.
    pub fn parse(text: &str) -> Option<Agreement> {
        let mut parts = text.trim().split('/');
        let (agency, account, carteira) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() {
            return None;
        }
        let (account, dac) = account.split_once('-')?;
        let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(agency, 4) || !digits(account, 5) || !digits(carteira, 3) || !digits(dac, 1) {
            return None;
        }
        let account_dac = mod10(&format!("{agency}{account}"))?;
        (dac.parse::<u32>().ok()? == account_dac).then(|| Agreement {
            agency: agency.to_owned(),
            account: account.to_owned(),
            account_dac,
            carteira: carteira.to_owned(),
        })
    }

    /// As [`Agreement::parse`] reads it.
    pub fn code(&self) -> String {
        format!("{}/{}-{}/{}", self.agency, self.account, self.account_dac, self.carteira)
    }

    /// The DAC of an our number (8 digits) under this agreement.
    pub fn our_number_dac(&self, our_number: &str) -> Option<u32> {
        match CARTEIRAS_WITHOUT_ACCOUNT.contains(&self.carteira.as_str()) {
            true => mod10(&format!("{}{our_number}", self.carteira)),
            false => mod10(&format!("{}{}{}{our_number}", self.agency, self.account, self.carteira)),
        }
    }

    /// The our number of a sequence number: 8 digits (`None` past 99,999,999).
    pub fn our_number(&self, sequence: i64) -> Option<String> {
        (0..100_000_000).contains(&sequence).then(|| format!("{sequence:08}"))
    }

    /// The our number as the slip prints it: `carteira/nnnnnnnn-d`.
    pub fn printed_our_number(&self, our_number: &str) -> Option<String> {
        Some(format!("{}/{our_number}-{}", self.carteira, self.our_number_dac(our_number)?))
    }

    /// The barcode's free field (25 digits) of an our number.
    pub fn free_field(&self, our_number: &str) -> Option<String> {
        let dac = self.our_number_dac(our_number)?;
        Some(format!("{}{our_number}{dac}{}{}{}000", self.carteira, self.agency, self.account, self.account_dac))
    }

    /// The 44-digit barcode of a billet of `amount` due on `due`.
    pub fn barcode(&self, our_number: &str, due: NaiveDate, amount: Decimal) -> Result<String, DocumentError> {
        let free = self.free_field(our_number).ok_or(DocumentError::FreeField)?;
        payment_codes::barcode(BANK_CODE, due, amount, &free)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::billets::payment_codes::{barcode_is_valid, digitable_line};

    #[test]
    fn modulo_10_as_the_manual_computes_it() {
        // Agency 0057, account 12345: 0·2 0·1 5·2 7·1 1·2 2·1 3·2 4·1 5·2 from the right.
        assert_eq!(mod10("005712345"), Some(7));
        assert_eq!(mod10("0"), Some(0));
        assert_eq!(mod10("9"), Some(1), "9·2 = 18 → 1 + 8 = 9 → 1");
        assert_eq!(mod10("12a"), None);
    }

    #[test]
    fn an_agreement_reads_back_and_checks_its_account_digit() {
        let agreement = Agreement::parse("0057/12345-7/109").unwrap();
        assert_eq!(agreement.code(), "0057/12345-7/109");
        for bad in ["0057/12345-6/109", "57/12345-7/109", "0057/12345/109", "0057/12345-7/10", "0057/12345-7/109/1", ""]
        {
            assert_eq!(Agreement::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_free_field_and_barcode_of_a_billet() {
        let agreement = Agreement::parse("0057/12345-7/109").unwrap();
        let our_number = agreement.our_number(12_345_678).unwrap();
        let dac = agreement.our_number_dac(&our_number).unwrap();
        assert_eq!(dac, mod10("00571234510912345678").unwrap());
        assert_eq!(agreement.free_field(&our_number).unwrap(), format!("10912345678{dac}0057123457000"));
        assert_eq!(agreement.printed_our_number(&our_number).unwrap(), format!("109/12345678-{dac}"));
        let code = agreement.barcode(&our_number, "2030-03-04".parse().unwrap(), "150.00".parse().unwrap()).unwrap();
        assert_eq!(code.len(), 44);
        assert!(code.starts_with("3419") && barcode_is_valid(&code), "{code}");
        assert_eq!(&code[19..], agreement.free_field(&our_number).unwrap());
        assert_eq!(digitable_line(&code).unwrap().len(), 54);
        // Carteiras that leave the account out of the DAC.
        let special = Agreement { carteira: "126".into(), ..agreement };
        assert_eq!(special.our_number_dac(&our_number), mod10(&format!("126{our_number}")));
        assert_eq!(agreement_our_number_bound(), None);
    }

    fn agreement_our_number_bound() -> Option<String> {
        Agreement::parse("0057/12345-7/109").unwrap().our_number(100_000_000)
    }
}
