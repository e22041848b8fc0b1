//! The create body of a billing (§4.2), parsed and validated without the store: rules 5–9 and the
//! field bounds of §2.1 and §8. Foreign keys (rules 1–4) are checked against the account later.
//! Every broken rule is reported at once.

use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde_json::Value;

use crate::http::fields::{decimal_in, id_in, integer_in};
use crate::http::{Fields, Sent};
use crate::values::terms::{Interest, Penalty};
use crate::values::{
    BankAccountId, BankRuleId, BillCategoryId, BillingItemId, ContactId, DischargeReason, InstructionType,
    InterestPeriod, IssueType, Money, TagId, ValueKind,
};

pub const MINIMUM_AMOUNT: &str = "5.00";
/// The largest amount a bank billet can carry (ten digits of cents in the barcode): a billing, and
/// each of its items, may not exceed it.
pub const MAXIMUM_AMOUNT: &str = "99999999.99";
pub const MAX_RATE: &str = "999999999";
/// Items per billing. Each may hold 100 characters of up to 4 bytes of UTF-8, so 500 of them stay
/// near 230 KB, well under DynamoDB's 400 KB item limit (the billing and its outbox event copy).
pub const MAX_ITEMS: usize = 500;
/// Tags a bulk billing may leave out; each is counted on the tag in the billing's transaction.
pub const MAX_EXCLUDED_TAGS: usize = 50;
pub const REFERENCE_MAX_CHARS: usize = 255;
const EVINCIVE_FORBIDDEN: &[char] = &['@', '#', '$', '%', '^', '&', '*', '"', '{', '}', '|', '<', '>', '\\', '[', ']'];

#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    /// An existing item of the billing (update only; ignored on create).
    pub id: Option<BillingItemId>,
    pub description: String,
    pub quantity: i64,
    pub amount: Money,
}

/// A billing as sent, valid in itself.
#[derive(Clone, Debug, PartialEq)]
pub struct Draft {
    pub issue_type: IssueType,
    pub bank_rule_id: BankRuleId,
    /// Individual: the payer (may be filled from `patient_id` by the health module). Bulk: none on
    /// create (cleared by the server); an update of a billing its expansion made keeps the payer.
    pub contact_id: Option<ContactId>,
    pub patient_id: Option<ContactId>,
    /// Bulk: the target tag. Individual: none (cleared by the server).
    pub tag_id: Option<TagId>,
    pub excluded_tag_ids: Vec<TagId>,
    pub bill_category_id: Option<BillCategoryId>,
    pub evincive: Option<String>,
    pub observation: Option<String>,
    pub reference: Option<String>,
    pub your_code: Option<String>,
    pub competence: Option<String>,
    /// Already moved off a weekend.
    pub due_date: NaiveDate,
    pub penalty: Option<Penalty>,
    pub interest: Option<Interest>,
    pub instruction: Option<(InstructionType, i64)>,
    pub items: Vec<Item>,
    /// Σ quantity × amount, at least 5.00.
    pub amount: Money,
}

/// An array, or a form's object of index → value.
fn elements(value: &Value) -> Vec<&Value> {
    match value {
        Value::Array(items) => items.iter().collect(),
        Value::Object(map) => map.values().collect(),
        _ => Vec::new(),
    }
}

/// The longest description of an item, in characters.
pub const ITEM_DESCRIPTION_MAX_CHARS: usize = 100;

fn msg_item_description_too_long(n: usize) -> String {
    format!("Item {n}: descrição é muito longa (máximo: {ITEM_DESCRIPTION_MAX_CHARS} caracteres)")
}

fn msg_item_above_maximum(n: usize) -> String {
    format!("Item {n}: valor deve ser de no máximo {MAXIMUM_AMOUNT}")
}

fn msg_total_above_maximum() -> String {
    format!("Valor máximo da cobrança é {MAXIMUM_AMOUNT}")
}

/// The largest amount of a billing or item, as a decimal.
pub fn maximum_amount() -> Decimal {
    MAXIMUM_AMOUNT.parse().expect("a decimal constant")
}

pub fn minimum_amount() -> Decimal {
    MINIMUM_AMOUNT.parse().expect("a decimal constant")
}

pub fn msg_too_many_items() -> String {
    format!("A cobrança pode ter no máximo {MAX_ITEMS} itens (billing_items)")
}

fn items(value: Option<&Value>, errors: &mut Vec<String>) -> Vec<Item> {
    let mut items = Vec::new();
    let elements = value.map(elements).unwrap_or_default();
    if elements.len() > MAX_ITEMS {
        errors.push(msg_too_many_items());
        return items;
    }
    let maximum = maximum_amount();
    for (index, raw) in elements.into_iter().enumerate() {
        let n = index + 1;
        let Value::Object(map) = raw else {
            errors.push(format!("Item {n}: não é válido"));
            continue;
        };
        let mut item_errors = Vec::new();
        let f = Fields::new(map);
        let item_id = match id_in::<BillingItemId>(map.get("id")) {
            Sent::Invalid => {
                item_errors.push(format!("Item {n}: id não é válido"));
                None
            }
            sent => sent.given(),
        };
        let description = f
            .text("description", "descrição", &mut item_errors)
            .flatten()
            .map(|d| crate::values::text::collapse_whitespace(&d))
            .unwrap_or_default();
        if description.is_empty() {
            item_errors.push(format!("Item {n}: descrição não pode ficar em branco"));
        } else if description.chars().count() > ITEM_DESCRIPTION_MAX_CHARS {
            item_errors.push(msg_item_description_too_long(n));
        }
        let quantity = integer_in(map.get("quantity")).given();
        if !quantity.is_some_and(|q| (1..=9_999_999).contains(&q)) {
            item_errors.push(format!("Item {n}: quantidade deve ser um inteiro de 1 a 9999999"));
        }
        let amount = decimal_in(map.get("amount")).given();
        if !amount.is_some_and(|a| a >= Decimal::new(1, 2) && a.scale() <= 2) {
            item_errors.push(format!("Item {n}: valor deve ser de no mínimo 0.01, com até 2 casas decimais"));
        } else if amount.is_some_and(|a| a > maximum) {
            item_errors.push(msg_item_above_maximum(n));
        }
        if item_errors.is_empty() {
            items.push(Item {
                id: item_id,
                description,
                quantity: quantity.unwrap_or(1),
                amount: Money::new(amount.unwrap_or_default()),
            });
        }
        errors.extend(item_errors);
    }
    items
}

impl Draft {
    /// The limits a draft the system writes itself (a settlement's billing) must still keep, as a
    /// parsed body would: each item's description readable and at most 100 characters, each amount
    /// and the total at most [`MAXIMUM_AMOUNT`].
    pub fn within_limits(&self) -> Result<(), Vec<String>> {
        let mut errors = Vec::new();
        for (index, item) in self.items.iter().enumerate() {
            let n = index + 1;
            if let Some(reason) = crate::values::text::unreadable(&item.description) {
                errors.push(format!("Item {n}: descrição {reason}"));
            } else if item.description.chars().count() > ITEM_DESCRIPTION_MAX_CHARS {
                errors.push(msg_item_description_too_long(n));
            }
            if item.amount.get() > maximum_amount() {
                errors.push(msg_item_above_maximum(n));
            }
        }
        if self.amount.get() > maximum_amount() {
            errors.push(msg_total_above_maximum());
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }

    /// A create body: item ids are never sent on create, so any sent is ignored.
    pub fn parse(fields: Fields<'_>) -> Result<Draft, Vec<String>> {
        let mut draft = Draft::parse_with(fields, None)?;
        draft.items.iter_mut().for_each(|item| item.id = None);
        Ok(draft)
    }

    /// A billing as it will be after an update (its stored fields with the sent ones over them).
    /// An amount equal to `stored_amount` is not checked against the minimum again (rule 9).
    pub fn parse_update(fields: Fields<'_>, stored_amount: Money) -> Result<Draft, Vec<String>> {
        Draft::parse_with(fields, Some(stored_amount))
    }

    fn parse_with(fields: Fields<'_>, stored_amount: Option<Money>) -> Result<Draft, Vec<String>> {
        let mut errors = Vec::new();
        let text = |key: &str, errors: &mut Vec<String>| -> Option<String> {
            fields.text(key, key, errors).flatten().map(|t| t.trim().to_owned()).filter(|t| !t.is_empty())
        };
        fn id_of<T: std::str::FromStr>(fields: Fields<'_>, key: &str, errors: &mut Vec<String>) -> Option<T> {
            match fields.id::<T>(key) {
                Sent::Invalid => {
                    errors.push(format!("{key} não é válido"));
                    None
                }
                sent => sent.given(),
            }
        }

        let issue_type = match text("billing_issue_type", &mut errors).as_deref().map(IssueType::parse) {
            None => IssueType::Individual,
            Some(Some(kind)) => kind,
            Some(None) => {
                errors.push("billing_issue_type não está incluído na lista (individual, bulk)".to_owned());
                IssueType::Individual
            }
        };
        let bank_rule_id = id_of::<BankRuleId>(fields, "bank_rule_id", &mut errors);
        if bank_rule_id.is_none() {
            errors.push("Regra bancária (bank_rule_id) não pode ficar em branco".to_owned());
        }
        let contact_id = id_of::<ContactId>(fields, "contact_id", &mut errors);
        let patient_id = id_of::<ContactId>(fields, "patient_id", &mut errors);
        let tag_id = id_of::<TagId>(fields, "tag_id", &mut errors);
        let bill_category_id = id_of::<BillCategoryId>(fields, "bill_category_id", &mut errors);
        let (contact_id, tag_id) = match issue_type {
            IssueType::Individual => {
                if contact_id.is_none() && patient_id.is_none() {
                    errors.push("Contato (contact_id) não pode ficar em branco".to_owned());
                }
                (contact_id, None)
            }
            IssueType::Bulk => {
                if tag_id.is_none() {
                    errors.push("Etiqueta (tag_id) não pode ficar em branco em cobranças em lote".to_owned());
                }
                // A bulk request has no payer; a billing its expansion made keeps its own.
                (if stored_amount.is_some() { contact_id } else { None }, tag_id)
            }
        };
        let excluded = fields.raw("excluded_tag_ids").map(elements).unwrap_or_default();
        let mut excluded_tag_ids: Vec<TagId> = Vec::new();
        if excluded.len() > MAX_EXCLUDED_TAGS {
            errors.push(format!("excluded_tag_ids pode ter no máximo {MAX_EXCLUDED_TAGS} etiquetas"));
        } else {
            for tag in excluded.into_iter().filter_map(|v| id_in::<TagId>(Some(v)).given()) {
                if !excluded_tag_ids.contains(&tag) {
                    excluded_tag_ids.push(tag);
                }
            }
        }

        let evincive = text("evincive", &mut errors);
        if let Some(e) = &evincive {
            let n = e.chars().count();
            if !(10..=80).contains(&n) {
                errors.push("evincive deve ter de 10 a 80 caracteres".to_owned());
            }
            if e.chars().any(|c| EVINCIVE_FORBIDDEN.contains(&c)) {
                errors.push("evincive não pode conter os caracteres @ # $ % ^ & * \" { } | < > \\ [ ]".to_owned());
            }
        }
        let observation = text("observation", &mut errors);
        if observation.as_ref().is_some_and(|o| o.chars().count() > 255) {
            errors.push("Observação é muito longa (máximo: 255 caracteres)".to_owned());
        }
        let your_code = text("your_code", &mut errors);
        if your_code.as_ref().is_some_and(|c| c.chars().count() > 20) {
            errors.push("your_code é muito longo (máximo: 20 caracteres)".to_owned());
        }
        let reference = text("reference", &mut errors);
        if reference.as_ref().is_some_and(|r| r.chars().count() > REFERENCE_MAX_CHARS) {
            errors.push(format!("reference é muito longo (máximo: {REFERENCE_MAX_CHARS} caracteres)"));
        }
        let competence = text("competence", &mut errors);
        if competence.as_deref().is_some_and(|c| !is_competence(c)) {
            errors.push("Competência deve estar no formato MM/AAAA".to_owned());
        }
        let due_date = match text("due_date", &mut errors) {
            None => {
                errors.push("Vencimento (due_date) não pode ficar em branco".to_owned());
                None
            }
            Some(d) => match crate::values::calendar::parse_due_date(&d) {
                Ok(date) => Some(date),
                Err(message) => {
                    errors.push(message.to_owned());
                    None
                }
            },
        };

        let max = MAX_RATE.parse::<Decimal>().expect("constant");
        let rate = |key: &str, errors: &mut Vec<String>| -> Option<Decimal> {
            match fields.decimal(key) {
                Sent::Omitted | Sent::Empty => None,
                Sent::Given(v) if v >= Decimal::ZERO && v <= max => Some(v),
                _ => {
                    errors.push(format!("{key} deve ser um número de 0 a 999999999"));
                    None
                }
            }
        };
        let penalty_value = rate("penalty", &mut errors);
        let interest_value = rate("interest", &mut errors);
        let kind_of = |key: &str, errors: &mut Vec<String>| match text(key, errors) {
            None => Some(ValueKind::Percentage),
            Some(k) => ValueKind::parse(&k).or_else(|| {
                errors.push(format!("{key} não está incluído na lista (percentage, fixed_amount)"));
                None
            }),
        };
        let penalty_kind = kind_of("penalty_type", &mut errors);
        let interest_kind = kind_of("interest_type", &mut errors);
        let period = match text("interest_period", &mut errors).as_deref().map(InterestPeriod::parse) {
            None => Some(InterestPeriod::Monthly),
            Some(Some(period)) => Some(period),
            Some(None) => {
                errors.push("interest_period não está incluído na lista (monthly, daily)".to_owned());
                None
            }
        };
        let instruction_type = match text("instruction_type", &mut errors).as_deref().map(InstructionType::parse) {
            None => None,
            Some(Some(kind)) => Some(kind),
            Some(None) => {
                errors.push("instruction_type não está incluído na lista (protest, devolution)".to_owned());
                None
            }
        };
        let instruction_days = match fields.integer("instruction_days") {
            Sent::Omitted | Sent::Empty => 0,
            Sent::Given(d) if (0..=99).contains(&d) => d,
            _ => {
                errors.push("instruction_days deve ser um inteiro de 0 a 99".to_owned());
                0
            }
        };

        let items = items(fields.raw("billing_items"), &mut errors);
        let item_errors = errors.iter().any(|e| e.starts_with("Item ") || *e == msg_too_many_items());
        if items.is_empty() && !item_errors {
            errors.push("A cobrança precisa de ao menos um item (billing_items)".to_owned());
        }
        // Checked: each term is at most 9,999,999 × 99,999,999.99, but 500 of them could still
        // overflow a decimal.
        let amount = items.iter().try_fold(Money::ZERO, |sum, i| i.amount.checked_times(i.quantity)?.checked_add(sum));
        let amount = match amount {
            Some(amount) if amount.get() <= maximum_amount() => amount,
            _ => {
                errors.push(msg_total_above_maximum());
                Money::ZERO
            }
        };
        let unchanged = stored_amount == Some(amount);
        if !items.is_empty() && !unchanged && amount.is_positive() && amount.get() < minimum_amount() {
            errors.push("Valor mínimo da cobrança é 5.00".to_owned());
        }

        if !errors.is_empty() {
            return Err(errors);
        }
        Ok(Draft {
            issue_type,
            bank_rule_id: bank_rule_id.expect("checked"),
            contact_id,
            patient_id,
            tag_id,
            excluded_tag_ids,
            bill_category_id,
            evincive,
            observation,
            reference,
            your_code,
            competence,
            due_date: due_date.expect("checked"),
            penalty: penalty_value.zip(penalty_kind).map(|(value, kind)| Penalty { kind, value }),
            interest: interest_value.zip(interest_kind).zip(period).map(|((value, kind), period)| Interest {
                kind,
                period,
                value,
            }),
            instruction: instruction_type.map(|t| (t, instruction_days)),
            items,
            amount,
        })
    }
}

/// `cancellation_reason` (§4.2): 3..1000 characters once trimmed.
pub fn cancellation_reason(fields: Fields<'_>) -> Result<String, Vec<String>> {
    let mut errors = Vec::new();
    let reason = fields.text("cancellation_reason", "Motivo do cancelamento", &mut errors).flatten();
    let reason = reason.map(|r| r.trim().to_owned()).unwrap_or_default();
    if !(3..=1000).contains(&reason.chars().count()) {
        errors.push("Motivo do cancelamento (cancellation_reason) deve ter de 3 a 1000 caracteres".to_owned());
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

pub const MSG_BANK_ACCOUNT_NOT_FOUND: &str = "Conta bancária não encontrada";

impl PayOff {
    pub fn parse(fields: Fields<'_>) -> Result<PayOff, Vec<String>> {
        let mut errors = Vec::new();
        let bank_account_id = match fields.integer("bank_account_id") {
            Sent::Given(id) if id > 0 => Some(BankAccountId::new(id)),
            Sent::Given(_) => {
                errors.push(MSG_BANK_ACCOUNT_NOT_FOUND.to_owned());
                None
            }
            _ => {
                errors.push("Conta bancária (bank_account_id) não pode ficar em branco".to_owned());
                None
            }
        };
        let reason = fields.text("discharge_reason", "Motivo da baixa", &mut errors).flatten().unwrap_or_default();
        let discharge_reason = DischargeReason::parse(reason.trim());
        if discharge_reason.is_none() {
            errors.push(
                "Motivo da baixa (discharge_reason) não está incluído na lista (bank_deposit, payment_in_hand)"
                    .to_owned(),
            );
        }
        let gross = match fields.decimal("gw_gross_amount") {
            Sent::Omitted | Sent::Empty => None,
            sent => {
                let parsed = sent.given();
                if parsed.is_none_or(|g| g <= Decimal::ZERO || g > maximum_amount() || g.normalize().scale() > 2) {
                    errors.push(format!(
                        "Valor recebido (gw_gross_amount) deve ser um número positivo de até {MAXIMUM_AMOUNT}, com até 2 casas decimais"
                    ));
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

/// `MM/YYYY` with a month from 01 to 12.
fn is_competence(text: &str) -> bool {
    let Some((month, year)) = text.split_once('/') else { return false };
    month.len() == 2
        && year.len() == 4
        && year.bytes().all(|b| b.is_ascii_digit())
        && month.parse::<u32>().is_ok_and(|m| (1..=12).contains(&m))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    fn parse(body: Value) -> Result<Draft, Vec<String>> {
        Draft::parse(Fields::new(body.as_object().unwrap()))
    }

    /// A valid individual draft, for tests elsewhere.
    pub(crate) fn valid_draft() -> Draft {
        parse(valid()).unwrap()
    }

    fn valid() -> Value {
        json!({
            "bank_rule_id": 1, "contact_id": "3", "due_date": "2026-11-21",
            "billing_items": [{"description": "Mensalidade", "quantity": 2, "amount": "10.50"}, {"description": "Taxa", "quantity": "1", "amount": 4}],
            "amount": "999", "billing_type": "carne", "status": "paid", "tag_id": 9
        })
    }

    #[test]
    fn a_valid_individual_billing() {
        let d = parse(valid()).unwrap();
        assert_eq!(d.amount, Money::parse("25.00").unwrap());
        assert_eq!(d.due_date, "2026-11-23".parse::<NaiveDate>().unwrap(), "Saturday moves to Monday");
        assert_eq!(
            (d.contact_id, d.tag_id),
            (Some(ContactId::new(3)), None),
            "tag_id is cleared on individual billings"
        );
        assert_eq!(d.items.len(), 2);
    }

    #[test]
    fn bulk_needs_a_tag_and_clears_the_contact() {
        let mut body = valid();
        body["billing_issue_type"] = json!("bulk");
        body["excluded_tag_ids"] = json!([4, "x", 5]);
        let d = parse(body).unwrap();
        assert_eq!(
            (d.contact_id, d.tag_id, d.excluded_tag_ids),
            (None, Some(TagId::new(9)), vec![TagId::new(4), TagId::new(5)])
        );
        let mut body = valid();
        body["billing_issue_type"] = json!("bulk");
        body["tag_id"] = json!(null);
        assert_eq!(parse(body).unwrap_err(), ["Etiqueta (tag_id) não pode ficar em branco em cobranças em lote"]);
    }

    #[test]
    fn required_fields_and_items() {
        let errors = parse(json!({})).unwrap_err();
        assert_eq!(errors.len(), 4, "{errors:?}");
        let mut body = valid();
        body["billing_items"] = json!([]);
        assert_eq!(parse(body).unwrap_err(), ["A cobrança precisa de ao menos um item (billing_items)"]);
        let mut body = valid();
        body["billing_items"] = json!([{"description": "", "quantity": 0, "amount": "0.001"}]);
        assert_eq!(parse(body).unwrap_err().len(), 3);
        let mut body = valid();
        body["billing_items"] = json!([{"description": "x".repeat(101), "quantity": 10_000_000, "amount": "0"}]);
        assert_eq!(parse(body).unwrap_err().len(), 3);
    }

    #[test]
    fn the_minimum_amount_is_five() {
        let mut body = valid();
        body["billing_items"] = json!([{"description": "Taxa", "quantity": 1, "amount": "4.99"}]);
        assert_eq!(parse(body).unwrap_err(), ["Valor mínimo da cobrança é 5.00"]);
        let mut body = valid();
        body["billing_items"] = json!([{"description": "Taxa", "quantity": 5, "amount": "1"}]);
        assert!(parse(body).is_ok());
    }

    #[test]
    fn evincive_rules() {
        for (value, ok) in [
            ("Contrato 2026", true),
            ("curto", false),
            ("x".repeat(81).as_str(), false),
            ("Contrato #2026", false),
            ("Contrato [2026]", false),
        ] {
            let mut body = valid();
            body["evincive"] = json!(value);
            assert_eq!(parse(body).is_ok(), ok, "{value}");
        }
    }

    #[test]
    fn bounds_of_rates_and_instructions() {
        let mut body = valid();
        body["penalty"] = json!("2");
        body["penalty_type"] = json!("percentage");
        body["interest"] = json!(1);
        body["interest_period"] = json!("daily");
        body["instruction_type"] = json!("devolution");
        body["instruction_days"] = json!("30");
        body["competence"] = json!("11/2026");
        let d = parse(body).unwrap();
        assert_eq!(d.interest.map(|i| i.period), Some(InterestPeriod::Daily));
        assert_eq!(d.instruction, Some((InstructionType::Devolution, 30)));
        let mut body = valid();
        body["penalty"] = json!("1000000000");
        body["interest"] = json!(-1);
        body["instruction_days"] = json!(100);
        body["interest_type"] = json!("other");
        body["competence"] = json!("13/2026");
        body["your_code"] = json!("c".repeat(21));
        body["observation"] = json!("o".repeat(256));
        body["due_date"] = json!("23/11/2026");
        assert_eq!(parse(body).unwrap_err().len(), 8);
    }

    #[test]
    fn a_draft_the_system_writes_keeps_the_limits_of_a_body() {
        let mut d = parse(valid()).unwrap();
        assert_eq!(d.within_limits(), Ok(()));
        d.items[0].description = "x".repeat(101);
        d.items.push(Item {
            id: None,
            description: "Ana\u{7}".into(),
            quantity: 1,
            amount: Money::parse("1.00").unwrap(),
        });
        d.amount = Money::parse("100000000.00").unwrap();
        assert_eq!(
            d.within_limits(),
            Err(vec![
                msg_item_description_too_long(1),
                format!("Item {}: descrição contém caracteres de controle", d.items.len()),
                msg_total_above_maximum(),
            ])
        );
    }
}
