//! The bank-provider interface and the built-in simulated bank.
//!
//! A billing's bank rule names its provider by `bank_symbol`; [`provider_for`] answers the
//! provider, or none (the billet is then rejected with a message saying so). A provider
//! registers an `issued` billet and answers either the payment documents or a rejection. The call
//! must be idempotent (the same billet asked twice gets the same answer): the worker asks again
//! after a failure it could not tell apart from a lost answer.
//!
//! The simulated bank (`bank_symbol = "simulated"`) registers at once and produces real, valid
//! documents with COMPE code 999 (not assigned to any bank, so a simulated billet can never be
//! paid at a real one):
//! - free field (25 digits): `000000` + agreement (7 digits) + sequential number (10 digits) +
//!   wallet `17`, the FEBRABAN layout of 7-digit agreements;
//! - our number: agreement (7) + sequential number (10);
//! - agreement: the rule's `agreement_code`, or else the account id (7 digits);
//! - Pix: a static BR Code with the amount, the billet's our number as txid and a key of the
//!   account at the simulated bank (a random-key UUID derived from the account id).
//!
//! It rejects, as banks do, a billet whose payer has no CPF/CNPJ ("Pagador sem CPF/CNPJ"; only
//! legacy contacts lack one), whose agreement code is not 1 to 7 digits ("Convênio inválido"), or
//! whose amount or due date cannot be written in a barcode (above 99,999,999.99, or a due date
//! before 1997-10-07). And, so that integrators can exercise the rejection path at will, it
//! rejects every billet of exactly R$ 6,66 (`SIMULATED_REJECTED_AMOUNT`).

use async_trait::async_trait;
use chrono::NaiveDate;
use rust_decimal::Decimal;
use sha2::{Digest, Sha256};

use super::model::{BankAccountRef, BankBillet};
use super::payment_codes::{self, PixCharge};
use crate::accounts::Account;
use crate::values::AccountId;

const SIMULATED: &str = "simulated";
const SIMULATED_BANK_CODE: &str = "999";
const SIMULATED_WALLET: &str = "17";
/// The amount the simulated bank always rejects (sandbox trigger).
const SIMULATED_REJECTED_AMOUNT: &str = "6.66";

/// The bank's answer to a registration.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    Registered {
        our_number: String,
        barcode: String,
        digitable_line: String,
        pix_qr_code: Option<String>,
        provider_id: String,
        provider_status: String,
    },
    Rejected {
        message: String,
        provider_status: String,
    },
    /// The documents are ours to compute and the bank learns of the billet from a remittance file
    /// (CNAB 240): the billet waits as `pending_remittance` with its codes.
    AwaitingRemittance {
        our_number: String,
        barcode: String,
        digitable_line: String,
        provider_status: String,
    },
}

#[async_trait]
pub trait BankProvider: Send + Sync {
    /// The agreement billets of this account are numbered under (`our_sequential_number` is a
    /// sequence per account and agreement).
    fn agreement(&self, account: AccountId, agreement_code: Option<&str>) -> String;

    /// The beneficiary's account at this bank, under `agreement` (what [`BankProvider::agreement`]
    /// answered).
    fn beneficiary_account(&self, account: AccountId, agreement: &str) -> BankAccountRef;

    /// Registers an issued billet. `Err` is a failure to retry (network, bank unavailable); a
    /// refusal is `Ok(Answer::Rejected)`.
    async fn register(&self, owner: &Account, billet: &BankBillet) -> anyhow::Result<Answer>;
}

/// The provider of a bank symbol.
pub fn provider_for(bank_symbol: &str) -> Option<&'static dyn BankProvider> {
    match bank_symbol {
        SIMULATED => Some(&SimulatedBank),
        symbol => super::banks::by_symbol(symbol).map(|bank| bank as &dyn BankProvider),
    }
}

struct SimulatedBank;

/// Modulo 11 digit of an account number (weights 2..9 from the right; 10 → 0).
fn mod11(number: &str) -> u32 {
    let sum: u32 = number.bytes().rev().zip((2..=9).cycle()).map(|(d, w)| u32::from(d - b'0') * w).sum();
    match 11 - sum % 11 {
        10 | 11 => 0,
        digit => digit,
    }
}

/// The agreement part of the simulated bank's documents: 1 to 7 digits, zero-padded.
fn agreement_digits(agreement: &str) -> Option<String> {
    let ok = (1..=7).contains(&agreement.len()) && agreement.bytes().all(|b| b.is_ascii_digit());
    ok.then(|| format!("{agreement:0>7}"))
}

/// The account's random Pix key at the simulated bank: a UUID (version 4 layout) derived from
/// the account id, the same on every call.
fn simulated_pix_key(account: AccountId) -> String {
    let digest = Sha256::digest(format!("simulated-pix-key:{account}").as_bytes());
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Builder::from_random_bytes(bytes).into_uuid().to_string()
}

/// Letters, digits and spaces only, without accents, upper case: what every Pix reader accepts
/// in the merchant name and city.
fn pix_text(text: &str) -> String {
    let folded = crate::values::text::sort_key(text).to_uppercase();
    folded.chars().filter(|c| c.is_ascii_alphanumeric() || *c == ' ').collect::<String>().trim().to_owned()
}

impl SimulatedBank {
    /// The documents of a billet, or the reason the bank refuses it.
    pub fn answer(owner: &Account, billet: &BankBillet) -> Answer {
        let rejected =
            |message: &str| Answer::Rejected { message: message.to_owned(), provider_status: "REJEITADO".into() };
        if billet.amount.get() == SIMULATED_REJECTED_AMOUNT.parse::<Decimal>().expect("a decimal") {
            return rejected("Boleto recusado pelo banco simulado (valor de teste 6,66)");
        }
        if billet.payer.payer_document.is_empty() {
            return rejected("Pagador sem CPF/CNPJ: o banco exige o documento do pagador");
        }
        let agreement = billet.agreement_code.as_deref().unwrap_or_default();
        let Some(agreement) = agreement_digits(agreement) else {
            return rejected("Convênio inválido: o código do convênio deve ter de 1 a 7 dígitos");
        };
        let our_number = format!("{agreement}{:010}", billet.our_sequential_number);
        let free_field = format!("000000{our_number}{SIMULATED_WALLET}");
        let barcode =
            match payment_codes::barcode(SIMULATED_BANK_CODE, billet.due_date, billet.amount.get(), &free_field) {
                Ok(code) => code,
                Err(payment_codes::DocumentError::DueDate) => return rejected("Vencimento inválido para boleto"),
                Err(_) => return rejected("Valor inválido para boleto: acima de 99.999.999,99"),
            };
        let digitable_line = payment_codes::digitable_line(&barcode).expect("a barcode just built is valid");
        let key = simulated_pix_key(owner.id);
        let name = pix_text(&billet.recipient.recipient_full_name);
        let city = pix_text(owner.city.as_deref().unwrap_or_default());
        let pix = payment_codes::pix_copy_and_paste(&PixCharge {
            key: &key,
            merchant_name: if name.is_empty() { "BENEFICIARIO" } else { &name },
            merchant_city: if city.is_empty() { "BRASIL" } else { &city },
            amount: Some(billet.amount.get()),
            txid: &our_number,
        });
        Answer::Registered {
            our_number,
            barcode,
            digitable_line,
            pix_qr_code: Some(pix),
            provider_id: format!("SIM-{}", billet.uuid),
            provider_status: "REGISTRADO".into(),
        }
    }
}

#[async_trait]
impl BankProvider for SimulatedBank {
    fn agreement(&self, account: AccountId, agreement_code: Option<&str>) -> String {
        match agreement_code.map(str::trim).filter(|a| !a.is_empty()) {
            Some(code) => code.to_owned(),
            None => format!("{:07}", account.get().rem_euclid(10_000_000)),
        }
    }

    fn beneficiary_account(&self, account: AccountId, _agreement: &str) -> BankAccountRef {
        let number = format!("{:08}", account.get().rem_euclid(100_000_000));
        BankAccountRef {
            agency_number: "0001".into(),
            agency_digit: mod11("0001").to_string(),
            account_digit: mod11(&number).to_string(),
            account_number: number,
        }
    }

    async fn register(&self, owner: &Account, billet: &BankBillet) -> anyhow::Result<Answer> {
        Ok(SimulatedBank::answer(owner, billet))
    }
}

/// A bank of remittance files (43: `billets::banks`): the rule's agreement written as that
/// bank writes it; registering computes the documents and leaves the billet waiting for its
/// remittance. No Pix from the bank's files: a rule linked to a Pix institution adds one.
fn file_bank_answer(bank: &super::banks::Bank, billet: &BankBillet) -> Answer {
    let rejected = |message: &str| Answer::Rejected { message: message.to_owned(), provider_status: "RECUSADO".into() };
    let Some(agreement) = billet.agreement_code.as_deref().and_then(|a| bank.agreement(a)) else {
        return rejected(&bank.agreement_problem(billet.agreement_code.as_deref()).unwrap_or_default());
    };
    if billet.recipient.recipient_document.trim().is_empty() {
        return rejected("Conta sem CNPJ/CPF: o banco exige o documento do beneficiário");
    }
    if billet.payer.payer_document.is_empty() {
        return rejected("Pagador sem CPF/CNPJ: o banco exige o documento do pagador");
    }
    let Some(our_number) = bank.rules.our_number(&agreement, billet.our_sequential_number) else {
        return rejected("Nosso número esgotado para este convênio");
    };
    let barcode = match bank.barcode(&agreement, &our_number, billet.due_date, billet.amount.get()) {
        Ok(code) => code,
        Err(payment_codes::DocumentError::DueDate) => return rejected("Vencimento inválido para boleto"),
        Err(_) => return rejected("Valor inválido para boleto: acima de 99.999.999,99"),
    };
    let digitable_line = payment_codes::digitable_line(&barcode).expect("a barcode just built is valid");
    Answer::AwaitingRemittance {
        our_number: bank.rules.printed(&agreement, &our_number),
        barcode,
        digitable_line,
        provider_status: "AGUARDANDO REMESSA".into(),
    }
}

#[async_trait]
impl BankProvider for super::banks::Bank {
    fn agreement(&self, _account: AccountId, agreement_code: Option<&str>) -> String {
        agreement_code.map(str::trim).unwrap_or_default().to_owned()
    }

    fn beneficiary_account(&self, _account: AccountId, agreement: &str) -> BankAccountRef {
        match super::banks::Bank::agreement(self, agreement) {
            Some(a) => BankAccountRef {
                agency_number: a.get("agency").to_owned(),
                agency_digit: a.get("agency_dv").to_owned(),
                account_number: a.get("account").to_owned(),
                account_digit: a.get("account_dv").to_owned(),
            },
            None => BankAccountRef::default(),
        }
    }

    async fn register(&self, _owner: &Account, billet: &BankBillet) -> anyhow::Result<Answer> {
        Ok(file_bank_answer(self, billet))
    }
}

/// The day a payment made on `paid_on` is credited to the beneficiary: the next business day
/// (weekends skipped; the simulated bank knows no holidays).
pub fn credit_date(paid_on: NaiveDate) -> NaiveDate {
    crate::values::calendar::next_business_day(paid_on + chrono::Days::new(1))
}

#[cfg(test)]
mod tests {
    use super::super::banks::itau::ITAU_240 as ITAU;
    use super::super::model::BilletStatus;
    use super::*;

    fn billet() -> BankBillet {
        let mut billet = super::super::model::tests::sample();
        billet.status = BilletStatus::Issued;
        billet.amount = "180.84".parse().unwrap();
        billet.due_date = "2026-12-10".parse().unwrap();
        billet.agreement_code = Some("1234567".into());
        billet.our_sequential_number = 42;
        billet.payer.payer_document = "52998224725".into();
        billet.recipient.recipient_full_name = "Clínica São José Ltda.".into();
        billet
    }

    fn owner() -> Account {
        let now = crate::values::Timestamp::now();
        Account {
            id: AccountId::new(7),
            name: "Clínica".into(),
            status: crate::values::AccountStatus::Active,
            kyc_approved: true,
            pos_enabled: false,
            health_module: false,
            document: Some("11222333000181".into()),
            address: Some("Rua A, 10".into()),
            city: Some("São Paulo".into()),
            settlement_contact_id: None,
            created_at: now,
            updated_at: now,
            version: 1,
        }
    }

    #[test]
    fn the_simulated_bank_registers_valid_documents() {
        let Answer::Registered { our_number, barcode, digitable_line, pix_qr_code, .. } =
            SimulatedBank::answer(&owner(), &billet())
        else {
            panic!("registered expected")
        };
        assert_eq!(our_number, "12345670000000042");
        assert!(payment_codes::barcode_is_valid(&barcode));
        assert!(barcode.starts_with("9999"));
        assert_eq!(&barcode[19..], "0000001234567000000004217");
        assert_eq!(&barcode[9..19], "0000018084");
        assert_eq!(payment_codes::digitable_line(&barcode).unwrap(), digitable_line);
        let pix = pix_qr_code.unwrap();
        assert!(pix.contains("5406180.84"), "{pix}");
        assert!(pix.contains("5921CLINICA SAO JOSE LTDA"), "{pix}");
        assert!(pix.contains("6009SAO PAULO"), "{pix}");
        assert!(pix.contains(&format!("0517{our_number}")), "{pix}");
        let crc = payment_codes::crc16_ccitt_false(&pix.as_bytes()[..pix.len() - 4]);
        assert_eq!(&pix[pix.len() - 4..], format!("{crc:04X}"));
    }

    #[test]
    fn the_simulated_bank_rejects_what_banks_reject() {
        let mut no_document = billet();
        no_document.payer.payer_document.clear();
        let mut bad_agreement = billet();
        bad_agreement.agreement_code = Some("12345678".into());
        let mut too_much = billet();
        too_much.amount = "100000000.00".parse().unwrap();
        let mut trigger = billet();
        trigger.amount = "6.66".parse().unwrap();
        let cases = [
            (no_document, "Pagador sem CPF/CNPJ"),
            (bad_agreement, "Convênio"),
            (too_much, "Valor"),
            (trigger, "Boleto recusado"),
        ];
        for (case, start) in cases {
            match SimulatedBank::answer(&owner(), &case) {
                Answer::Rejected { message, .. } => assert!(message.starts_with(start), "{message}"),
                other => panic!("rejection expected, got {other:?}"),
            }
        }
    }

    #[test]
    fn beneficiary_data_and_keys_are_stable() {
        let bank = SimulatedBank;
        let account_42 = AccountId::new(42);
        assert_eq!(bank.agreement(account_42, None), "0000042");
        assert_eq!(bank.agreement(account_42, Some(" 1234 ")), "1234");
        let account = bank.beneficiary_account(account_42, "");
        assert_eq!(account.account_number, "00000042");
        assert_eq!(account.agency_number, "0001");
        assert_eq!(simulated_pix_key(account_42), simulated_pix_key(account_42));
        assert_eq!(simulated_pix_key(account_42).len(), 36);
        assert_eq!(simulated_pix_key(account_42).as_bytes()[14], b'4', "a version-4 layout");
        assert!(
            provider_for("simulated").is_some() && provider_for("bradesco").is_some() && provider_for("hsbc").is_none()
        );
    }

    #[test]
    fn itau_computes_the_documents_and_waits_for_the_remittance() {
        let mut b = billet();
        b.bank_symbol = "itau".into();
        b.agreement_code = Some("0057/12345-7/109".into());
        b.recipient.recipient_document = "11222333000181".into();
        match file_bank_answer(&ITAU, &b) {
            Answer::AwaitingRemittance { our_number, barcode, digitable_line, provider_status } => {
                assert!(barcode.starts_with("3419") && payment_codes::barcode_is_valid(&barcode), "{barcode}");
                assert_eq!(digitable_line, payment_codes::digitable_line(&barcode).unwrap());
                assert!(our_number.starts_with("109/00000042-"), "{our_number}");
                assert_eq!(provider_status, "AGUARDANDO REMESSA");
            }
            other => panic!("{other:?}"),
        }
        let account = ITAU.beneficiary_account(AccountId::new(1), "0057/12345-7/109");
        assert_eq!((account.agency_number.as_str(), account.account_number.as_str()), ("0057", "12345"));
        b.agreement_code = Some("0057/12345-6/109".into());
        assert!(matches!(file_bank_answer(&ITAU, &b), Answer::Rejected { .. }));
        b.agreement_code = Some("0057/12345-7/109".into());
        b.payer.payer_document.clear();
        assert!(matches!(file_bank_answer(&ITAU, &b), Answer::Rejected { .. }));
        b.payer.payer_document = "52998224725".into();
        b.recipient.recipient_document.clear();
        assert!(
            matches!(file_bank_answer(&ITAU, &b), Answer::Rejected { message, .. } if message.starts_with("Conta sem"))
        );
        assert!(provider_for("itau").is_some());
    }
}
