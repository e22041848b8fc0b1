//! What a cancel and a pay-off send (§4.2): the cancellation reason, and the bank account, the
//! discharge reason and the amount received of a pay-off.

use rust_decimal::Decimal;

use super::items::{maximum_amount, MAXIMUM_AMOUNT};
use super::sent::number_code;
use crate::http::{Fields, Sent};
use crate::refusal::{Code, Problem};
use crate::values::{BankAccountId, DischargeReason, Money};

/// `cancellation_reason` (§4.2): 3..1000 characters once trimmed.
pub fn cancellation_reason(fields: Fields<'_>) -> Result<String, Vec<Problem>> {
    let mut errors = Vec::new();
    let reason = fields.text("cancellation_reason", "Motivo do cancelamento", &mut errors).flatten();
    let reason = reason.map(|r| r.trim().to_owned()).unwrap_or_default();
    let length = reason.chars().count();
    // A value the reader refused already (not text, a control character) is one problem.
    if errors.is_empty() && !(3..=1000).contains(&length) {
        let code = match length {
            0 => Code::Blank,
            1..=2 => Code::TooShort,
            _ => Code::TooLong,
        };
        let message = "Motivo do cancelamento (cancellation_reason) deve ter de 3 a 1000 caracteres";
        errors.push(Problem::at("cancellation_reason", code, message));
    }
    if errors.is_empty() {
        Ok(reason)
    } else {
        Err(errors)
    }
}

/// What a pay-off sends (§4.2).
#[derive(Clone, Debug, PartialEq)]
pub struct PayOff {
    pub bank_account_id: BankAccountId,
    pub discharge_reason: DischargeReason,
    /// The amount received, when sent (else the amount payable today).
    pub gross: Option<Money>,
}

const MSG_BANK_ACCOUNT_NOT_FOUND: &str = "Conta bancária não encontrada";

/// A `bank_account_id` that names no bank account of the account.
pub fn bank_account_not_found() -> Problem {
    Problem::not_found("bank_account_id", MSG_BANK_ACCOUNT_NOT_FOUND)
}

impl PayOff {
    pub fn parse(fields: Fields<'_>) -> Result<PayOff, Vec<Problem>> {
        let mut errors = Vec::new();
        let bank_account_id = match fields.integer("bank_account_id") {
            Sent::Given(id) if id > 0 => Some(BankAccountId::new(id)),
            Sent::Given(_) => {
                errors.push(bank_account_not_found());
                None
            }
            sent => {
                let message = "Conta bancária (bank_account_id) não pode ficar em branco";
                errors.push(Problem::at("bank_account_id", number_code(&sent, Code::Invalid), message));
                None
            }
        };
        let refused = errors.len();
        let reason = fields.text("discharge_reason", "Motivo da baixa", &mut errors).flatten().unwrap_or_default();
        let discharge_reason = DischargeReason::parse(reason.trim());
        if discharge_reason.is_none() {
            let code = if reason.trim().is_empty() && errors.len() == refused { Code::Blank } else { Code::Invalid };
            let message =
                "Motivo da baixa (discharge_reason) não está incluído na lista (bank_deposit, payment_in_hand)";
            errors.push(Problem::at("discharge_reason", code, message));
        }
        let gross = match fields.decimal("gw_gross_amount") {
            Sent::Omitted | Sent::Empty => None,
            sent => {
                let parsed = sent.given();
                let code = match parsed {
                    None => Some(Code::Invalid),
                    Some(g) if g <= Decimal::ZERO => Some(Code::TooSmall),
                    Some(g) if g > maximum_amount() => Some(Code::TooLarge),
                    Some(g) if g.normalize().scale() > 2 => Some(Code::Invalid),
                    Some(_) => None,
                };
                if let Some(code) = code {
                    let message = format!(
                        "Valor recebido (gw_gross_amount) deve ser um número positivo de até {MAXIMUM_AMOUNT}, com até 2 casas decimais"
                    );
                    errors.push(Problem::at("gw_gross_amount", code, message));
                }
                parsed.map(Money::new)
            }
        };
        match (bank_account_id, discharge_reason) {
            (Some(bank_account_id), Some(discharge_reason)) if errors.is_empty() => {
                Ok(PayOff { bank_account_id, discharge_reason, gross })
            }
            _ => Err(errors),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::fields_and_codes;
    use super::*;
    use serde_json::{json, Value};

    #[test]
    fn a_cancellation_reason_is_three_to_a_thousand_characters() {
        let reason = |body: Value| cancellation_reason(Fields::new(body.as_object().unwrap()));
        let message = "Motivo do cancelamento (cancellation_reason) deve ter de 3 a 1000 caracteres";
        assert_eq!(
            reason(json!({"cancellation_reason": " ok "})),
            Err(vec![Problem::too_short("cancellation_reason", message)])
        );
        assert_eq!(reason(json!({})), Err(vec![Problem::blank("cancellation_reason", message)]));
        assert_eq!(
            reason(json!({"cancellation_reason": "x".repeat(1001)})),
            Err(vec![Problem::too_long("cancellation_reason", message)])
        );
        assert_eq!(reason(json!({"cancellation_reason": "Desistência"})), Ok("Desistência".to_owned()));
    }

    #[test]
    fn a_pay_off_names_what_it_lacks() {
        let pay_off = |body: Value| PayOff::parse(Fields::new(body.as_object().unwrap())).unwrap_err();
        let problems = pay_off(json!({"bank_account_id": -3, "discharge_reason": "cheque", "gw_gross_amount": "0"}));
        assert_eq!(
            fields_and_codes(&problems),
            [
                ("bank_account_id", Code::NotFound),
                ("discharge_reason", Code::Invalid),
                ("gw_gross_amount", Code::TooSmall)
            ]
        );
        let problems = pay_off(json!({"bank_account_id": "x", "gw_gross_amount": "1.001"}));
        assert_eq!(
            fields_and_codes(&problems),
            [("bank_account_id", Code::Invalid), ("discharge_reason", Code::Blank), ("gw_gross_amount", Code::Invalid)]
        );
    }
}
