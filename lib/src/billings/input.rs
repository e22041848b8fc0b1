//! The create body of a billing (§4.2), parsed and validated without the store: rules 5–9 and the
//! field bounds of §2.1 and §8. Foreign keys (rules 1–4) are checked against the account later.
//! Every broken rule is reported at once, each a [`Problem`] naming the field as sent
//! (`billing_items[1].amount`, counted from 0 while the messages count items from 1).

use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde_json::Value;

use crate::http::fields::{decimal_in, element, elements, id_in, integer_in};
use crate::http::{Fields, Sent};
use crate::refusal::{Code, Problem};
use crate::values::terms::{Interest, Penalty};
use crate::values::{
    BankAccountId, BankRuleId, BillCategoryId, BillingItemId, ContactId, DischargeReason, InstructionType,
    InterestPeriod, IssueType, Money, TagId, ValueKind,
};

const MINIMUM_AMOUNT: &str = "5.00";
/// The largest amount a bank billet can carry (ten digits of cents in the barcode): a billing, and
/// each of its items, may not exceed it.
const MAXIMUM_AMOUNT: &str = "99999999.99";
const MAX_RATE: &str = "999999999";
/// Items per billing. Each may hold 100 characters of up to 4 bytes of UTF-8, so 500 of them stay
/// near 230 KB, well under DynamoDB's 400 KB item limit (the billing and its outbox event copy).
pub const MAX_ITEMS: usize = 500;
/// Tags a bulk billing may leave out; each is counted on the tag in the billing's transaction.
const MAX_EXCLUDED_TAGS: usize = 50;
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

/// The longest description of an item, in characters.
pub const ITEM_DESCRIPTION_MAX_CHARS: usize = 100;

fn msg_item_description_too_long(n: usize) -> String {
    format!("Item {n}: descrição é muito longa (máximo: {ITEM_DESCRIPTION_MAX_CHARS} caracteres)")
}

fn msg_item_above_maximum(n: usize) -> String {
    format!("Item {n}: valor deve ser de no máximo {MAXIMUM_AMOUNT}")
}

/// The field of a billing's total: not sent (it is the sum of the items) but shown, and the
/// field its bounds are about.
const TOTAL: &str = "amount";

fn total_above_maximum() -> Problem {
    Problem::too_large(TOTAL, format!("Valor máximo da cobrança é {MAXIMUM_AMOUNT}"))
}

/// A blank `due_date`.
pub fn due_date_blank() -> Problem {
    Problem::blank("due_date", "Vencimento (due_date) não pode ficar em branco")
}

/// A sent `due_date` (moved off a weekend), or why it is refused: not a date (`invalid`) or
/// before the first a billet can carry (`out_of_range`).
pub fn due_date(text: &str) -> Result<NaiveDate, Problem> {
    crate::values::calendar::parse_due_date(text).map_err(|message| {
        let code = match crate::values::calendar::parse_date(text) {
            Some(_) => Code::OutOfRange,
            None => Code::Invalid,
        };
        Problem::at("due_date", code, message)
    })
}

/// The largest amount of a billing or item, as a decimal.
fn maximum_amount() -> Decimal {
    MAXIMUM_AMOUNT.parse().expect("a decimal constant")
}

pub fn minimum_amount() -> Decimal {
    MINIMUM_AMOUNT.parse().expect("a decimal constant")
}

fn msg_too_many_items() -> String {
    format!("A cobrança pode ter no máximo {MAX_ITEMS} itens (billing_items)")
}

/// A problem with `billing_items`: a list of more than [`MAX_ITEMS`].
pub fn too_many_items() -> Problem {
    Problem::too_long(ITEMS, msg_too_many_items())
}

/// The field of a billing's items.
pub const ITEMS: &str = "billing_items";

/// What is wrong with a sent value that must be a number: missing (`blank`), not a number of its
/// kind (`invalid`), or out of its bounds (`bound`).
fn number_code<T>(sent: &Sent<T>, bound: Code) -> Code {
    match sent {
        Sent::Omitted | Sent::Empty => Code::Blank,
        Sent::Invalid => Code::Invalid,
        Sent::Given(_) => bound,
    }
}

/// The items sent; `places[i]` is where the client put the element `i` (see
/// [`Draft::parse_update`]), else `i`.
fn items(value: Option<&Value>, places: &[usize], errors: &mut Vec<Problem>) -> Vec<Item> {
    let mut items = Vec::new();
    let elements = value.map(elements).unwrap_or_default();
    if elements.len() > MAX_ITEMS {
        errors.push(too_many_items());
        return items;
    }
    let maximum = maximum_amount();
    for (index, raw) in elements.into_iter().enumerate() {
        let place = places.get(index).copied().unwrap_or(index);
        let n = place + 1;
        let at = element(ITEMS, place);
        let Value::Object(map) = raw else {
            errors.push(Problem::invalid(at, format!("Item {n}: não é válido")));
            continue;
        };
        let mut item_errors = Vec::new();
        let f = Fields::nested(map, &at);
        let item_id = match id_in::<BillingItemId>(map.get("id")) {
            Sent::Invalid => {
                item_errors.push(Problem::invalid(f.path("id"), format!("Item {n}: id não é válido")));
                None
            }
            sent => sent.given(),
        };
        let before = item_errors.len();
        let description = f
            .text("description", "descrição", &mut item_errors)
            .flatten()
            .map(|d| crate::values::text::collapse_whitespace(&d))
            .unwrap_or_default();
        // A value the reader already refused (not text, a control character) is not also blank.
        let refused = item_errors.len() > before;
        if !refused && description.is_empty() {
            let message = format!("Item {n}: descrição não pode ficar em branco");
            item_errors.push(Problem::blank(f.path("description"), message));
        } else if description.chars().count() > ITEM_DESCRIPTION_MAX_CHARS {
            item_errors.push(Problem::too_long(f.path("description"), msg_item_description_too_long(n)));
        }
        let sent_quantity = integer_in(map.get("quantity"));
        let quantity = sent_quantity.clone().given();
        if !quantity.is_some_and(|q| (1..=9_999_999).contains(&q)) {
            let code = number_code(&sent_quantity, Code::OutOfRange);
            let message = format!("Item {n}: quantidade deve ser um inteiro de 1 a 9999999");
            item_errors.push(Problem::at(f.path("quantity"), code, message));
        }
        let sent_amount = decimal_in(map.get("amount"));
        let amount = sent_amount.clone().given();
        if !amount.is_some_and(|a| a >= Decimal::new(1, 2) && a.scale() <= 2) {
            let code = match amount {
                Some(a) if a.scale() > 2 => Code::Invalid,
                _ => number_code(&sent_amount, Code::TooSmall),
            };
            let message = format!("Item {n}: valor deve ser de no mínimo 0.01, com até 2 casas decimais");
            item_errors.push(Problem::at(f.path("amount"), code, message));
        } else if amount.is_some_and(|a| a > maximum) {
            item_errors.push(Problem::too_large(f.path("amount"), msg_item_above_maximum(n)));
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
    pub fn within_limits(&self) -> Result<(), Vec<Problem>> {
        let mut errors = Vec::new();
        for (index, item) in self.items.iter().enumerate() {
            let n = index + 1;
            let at = |key: &str| format!("{}.{key}", element(ITEMS, index));
            if let Some(reason) = crate::values::text::unreadable(&item.description) {
                errors.push(Problem::invalid(at("description"), format!("Item {n}: descrição {reason}")));
            } else if item.description.chars().count() > ITEM_DESCRIPTION_MAX_CHARS {
                errors.push(Problem::too_long(at("description"), msg_item_description_too_long(n)));
            }
            if item.amount.get() > maximum_amount() {
                errors.push(Problem::too_large(at("amount"), msg_item_above_maximum(n)));
            }
        }
        if self.amount.get() > maximum_amount() {
            errors.push(total_above_maximum());
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }

    /// A create body: item ids are never sent on create, so any sent is ignored.
    pub fn parse(fields: Fields<'_>) -> Result<Draft, Vec<Problem>> {
        let mut draft = Draft::parse_with(fields, None, &[])?;
        draft.items.iter_mut().for_each(|item| item.id = None);
        Ok(draft)
    }

    /// A billing as it will be after an update (its stored fields with the sent ones over them).
    /// An amount equal to `stored_amount` is not checked against the minimum again (rule 9).
    /// `places[i]` is the place in the sent `billing_items` of the element `i` of the merged one
    /// (an element refused before merging is left out of it), so that a problem names the item
    /// where the client put it.
    pub fn parse_update(fields: Fields<'_>, stored_amount: Money, places: &[usize]) -> Result<Draft, Vec<Problem>> {
        Draft::parse_with(fields, Some(stored_amount), places)
    }

    fn parse_with(fields: Fields<'_>, stored_amount: Option<Money>, places: &[usize]) -> Result<Draft, Vec<Problem>> {
        let mut errors = Vec::new();
        let text = |key: &str, errors: &mut Vec<Problem>| -> Option<String> {
            fields.text(key, key, errors).flatten().map(|t| t.trim().to_owned()).filter(|t| !t.is_empty())
        };
        fn id_of<T: std::str::FromStr>(fields: Fields<'_>, key: &str, errors: &mut Vec<Problem>) -> Option<T> {
            match fields.id::<T>(key) {
                Sent::Invalid => {
                    errors.push(Problem::invalid(key, format!("{key} não é válido")));
                    None
                }
                sent => sent.given(),
            }
        }

        let issue_type = match text("billing_issue_type", &mut errors).as_deref().map(IssueType::parse) {
            None => IssueType::Individual,
            Some(Some(kind)) => kind,
            Some(None) => {
                errors.push(Problem::invalid(
                    "billing_issue_type",
                    "billing_issue_type não está incluído na lista (individual, bulk)",
                ));
                IssueType::Individual
            }
        };
        let bank_rule_id = id_of::<BankRuleId>(fields, "bank_rule_id", &mut errors);
        if bank_rule_id.is_none() {
            errors.push(Problem::blank("bank_rule_id", "Regra bancária (bank_rule_id) não pode ficar em branco"));
        }
        let contact_id = id_of::<ContactId>(fields, "contact_id", &mut errors);
        let patient_id = id_of::<ContactId>(fields, "patient_id", &mut errors);
        let tag_id = id_of::<TagId>(fields, "tag_id", &mut errors);
        let bill_category_id = id_of::<BillCategoryId>(fields, "bill_category_id", &mut errors);
        let (contact_id, tag_id) = match issue_type {
            IssueType::Individual => {
                if contact_id.is_none() && patient_id.is_none() {
                    errors.push(Problem::blank("contact_id", "Contato (contact_id) não pode ficar em branco"));
                }
                (contact_id, None)
            }
            IssueType::Bulk => {
                if tag_id.is_none() {
                    let message = "Etiqueta (tag_id) não pode ficar em branco em cobranças em lote";
                    errors.push(Problem::blank("tag_id", message));
                }
                // A bulk request has no payer; a billing its expansion made keeps its own.
                (if stored_amount.is_some() { contact_id } else { None }, tag_id)
            }
        };
        let excluded = fields.raw("excluded_tag_ids").map(elements).unwrap_or_default();
        let mut excluded_tag_ids: Vec<TagId> = Vec::new();
        if excluded.len() > MAX_EXCLUDED_TAGS {
            let message = format!("excluded_tag_ids pode ter no máximo {MAX_EXCLUDED_TAGS} etiquetas");
            errors.push(Problem::too_long("excluded_tag_ids", message));
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
            let code = if n < 10 { Code::TooShort } else { Code::TooLong };
            if !(10..=80).contains(&n) {
                errors.push(Problem::at("evincive", code, "evincive deve ter de 10 a 80 caracteres"));
            }
            if e.chars().any(|c| EVINCIVE_FORBIDDEN.contains(&c)) {
                let message = "evincive não pode conter os caracteres @ # $ % ^ & * \" { } | < > \\ [ ]";
                errors.push(Problem::invalid("evincive", message));
            }
        }
        let observation = text("observation", &mut errors);
        if observation.as_ref().is_some_and(|o| o.chars().count() > 255) {
            errors.push(Problem::too_long("observation", "Observação é muito longa (máximo: 255 caracteres)"));
        }
        let your_code = text("your_code", &mut errors);
        if your_code.as_ref().is_some_and(|c| c.chars().count() > 20) {
            errors.push(Problem::too_long("your_code", "your_code é muito longo (máximo: 20 caracteres)"));
        }
        let reference = text("reference", &mut errors);
        if reference.as_ref().is_some_and(|r| r.chars().count() > REFERENCE_MAX_CHARS) {
            let message = format!("reference é muito longo (máximo: {REFERENCE_MAX_CHARS} caracteres)");
            errors.push(Problem::too_long("reference", message));
        }
        let competence = text("competence", &mut errors);
        if competence.as_deref().is_some_and(|c| !is_competence(c)) {
            errors.push(Problem::invalid("competence", "Competência deve estar no formato MM/AAAA"));
        }
        let before = errors.len();
        let due_date = match text("due_date", &mut errors) {
            // Refused by the reader already (not text): one problem, not a second "blank".
            None if errors.len() > before => None,
            None => {
                errors.push(due_date_blank());
                None
            }
            Some(d) => match due_date(&d) {
                Ok(date) => Some(date),
                Err(problem) => {
                    errors.push(problem);
                    None
                }
            },
        };

        let max = MAX_RATE.parse::<Decimal>().expect("constant");
        let rate = |key: &str, errors: &mut Vec<Problem>| -> Option<Decimal> {
            match fields.decimal(key) {
                Sent::Omitted | Sent::Empty => None,
                Sent::Given(v) if v >= Decimal::ZERO && v <= max => Some(v),
                sent => {
                    let message = format!("{key} deve ser um número de 0 a 999999999");
                    errors.push(Problem::at(key, number_code(&sent, Code::OutOfRange), message));
                    None
                }
            }
        };
        let penalty_value = rate("penalty", &mut errors);
        let interest_value = rate("interest", &mut errors);
        let kind_of = |key: &str, errors: &mut Vec<Problem>| match text(key, errors) {
            None => Some(ValueKind::Percentage),
            Some(k) => ValueKind::parse(&k).or_else(|| {
                let message = format!("{key} não está incluído na lista (percentage, fixed_amount)");
                errors.push(Problem::invalid(key, message));
                None
            }),
        };
        let penalty_kind = kind_of("penalty_type", &mut errors);
        let interest_kind = kind_of("interest_type", &mut errors);
        let period = match text("interest_period", &mut errors).as_deref().map(InterestPeriod::parse) {
            None => Some(InterestPeriod::Monthly),
            Some(Some(period)) => Some(period),
            Some(None) => {
                let message = "interest_period não está incluído na lista (monthly, daily)";
                errors.push(Problem::invalid("interest_period", message));
                None
            }
        };
        let instruction_type = match text("instruction_type", &mut errors).as_deref().map(InstructionType::parse) {
            None => None,
            Some(Some(kind)) => Some(kind),
            Some(None) => {
                let message = "instruction_type não está incluído na lista (protest, devolution)";
                errors.push(Problem::invalid("instruction_type", message));
                None
            }
        };
        let instruction_days = match fields.integer("instruction_days") {
            Sent::Omitted | Sent::Empty => 0,
            Sent::Given(d) if (0..=99).contains(&d) => d,
            sent => {
                let code = number_code(&sent, Code::OutOfRange);
                errors.push(Problem::at("instruction_days", code, "instruction_days deve ser um inteiro de 0 a 99"));
                0
            }
        };

        let items = items(fields.raw(ITEMS), places, &mut errors);
        let item_errors = errors.iter().any(|e| e.field.as_deref().is_some_and(|f| f.starts_with(ITEMS)));
        if items.is_empty() && !item_errors {
            errors.push(Problem::blank(ITEMS, "A cobrança precisa de ao menos um item (billing_items)"));
        }
        // Checked: each term is at most 9,999,999 × 99,999,999.99, but 500 of them could still
        // overflow a decimal.
        let amount = items.iter().try_fold(Money::ZERO, |sum, i| i.amount.checked_times(i.quantity)?.checked_add(sum));
        let amount = match amount {
            Some(amount) if amount.get() <= maximum_amount() => amount,
            _ => {
                errors.push(total_above_maximum());
                Money::ZERO
            }
        };
        let unchanged = stored_amount == Some(amount);
        if !items.is_empty() && !unchanged && amount.is_positive() && amount.get() < minimum_amount() {
            errors.push(Problem::too_small(TOTAL, "Valor mínimo da cobrança é 5.00"));
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

    fn parse(body: Value) -> Result<Draft, Vec<Problem>> {
        Draft::parse(Fields::new(body.as_object().unwrap()))
    }

    fn fields_and_codes(problems: &[Problem]) -> Vec<(&str, Code)> {
        problems.iter().map(|p| (p.field.as_deref().unwrap_or("-"), p.code)).collect()
    }

    #[test]
    fn a_value_the_reader_refused_is_one_problem_not_also_blank() {
        let mut body = valid();
        body["due_date"] = json!(["2030-01-01"]);
        body["billing_items"] = json!([{"description": ["x"], "quantity": 1, "amount": "10.00"}]);
        let problems = parse(body).unwrap_err();
        let codes = fields_and_codes(&problems);
        assert_eq!(codes.iter().filter(|(field, _)| *field == "due_date").count(), 1, "{codes:?}");
        assert_eq!(codes.iter().filter(|(f, _)| *f == "billing_items[0].description").count(), 1, "{codes:?}");
        assert!(codes.iter().all(|(_, code)| *code != Code::Blank), "{codes:?}");
        let reason = cancellation_reason(Fields::new(json!({"cancellation_reason": ["abc"]}).as_object().unwrap()));
        assert_eq!(reason.unwrap_err().len(), 1);
    }

    #[test]
    fn problems_name_the_item_they_are_about() {
        let mut body = valid();
        body["billing_items"] = json!([
            {"description": "Mensalidade", "quantity": 1, "amount": "10.00"},
            "x",
            {"description": "Taxa", "quantity": "um", "amount": "100000000.00", "id": "abc"},
        ]);
        body["due_date"] = json!("1997-10-06");
        body["evincive"] = json!("curto");
        assert_eq!(
            parse(body).unwrap_err(),
            [
                Problem::at("evincive", Code::TooShort, "evincive deve ter de 10 a 80 caracteres"),
                Problem::out_of_range("due_date", "Vencimento (due_date) deve ser a partir de 1997-10-07"),
                Problem::invalid("billing_items[1]", "Item 2: não é válido"),
                Problem::invalid("billing_items[2].id", "Item 3: id não é válido"),
                Problem::invalid("billing_items[2].quantity", "Item 3: quantidade deve ser um inteiro de 1 a 9999999"),
                Problem::too_large("billing_items[2].amount", msg_item_above_maximum(3)),
            ]
        );
    }

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
        assert_eq!(
            parse(body).unwrap_err(),
            [Problem::blank("tag_id", "Etiqueta (tag_id) não pode ficar em branco em cobranças em lote")]
        );
    }

    #[test]
    fn required_fields_and_items() {
        let errors = parse(json!({})).unwrap_err();
        assert_eq!(
            fields_and_codes(&errors),
            [
                ("bank_rule_id", Code::Blank),
                ("contact_id", Code::Blank),
                ("due_date", Code::Blank),
                ("billing_items", Code::Blank)
            ],
            "{errors:?}"
        );
        let mut body = valid();
        body["billing_items"] = json!([]);
        assert_eq!(
            parse(body).unwrap_err(),
            [Problem::blank("billing_items", "A cobrança precisa de ao menos um item (billing_items)")]
        );
        let mut body = valid();
        body["billing_items"] = json!([{"description": "", "quantity": 0, "amount": "0.001"}]);
        assert_eq!(
            fields_and_codes(&parse(body).unwrap_err()),
            [
                ("billing_items[0].description", Code::Blank),
                ("billing_items[0].quantity", Code::OutOfRange),
                ("billing_items[0].amount", Code::Invalid)
            ]
        );
        let mut body = valid();
        body["billing_items"] = json!([{"description": "x".repeat(101), "quantity": 10_000_000, "amount": "0"}]);
        assert_eq!(
            fields_and_codes(&parse(body).unwrap_err()),
            [
                ("billing_items[0].description", Code::TooLong),
                ("billing_items[0].quantity", Code::OutOfRange),
                ("billing_items[0].amount", Code::TooSmall)
            ]
        );
    }

    #[test]
    fn the_minimum_amount_is_five() {
        let mut body = valid();
        body["billing_items"] = json!([{"description": "Taxa", "quantity": 1, "amount": "4.99"}]);
        assert_eq!(parse(body).unwrap_err(), [Problem::too_small("amount", "Valor mínimo da cobrança é 5.00")]);
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
        assert_eq!(
            fields_and_codes(&parse(body).unwrap_err()),
            [
                ("observation", Code::TooLong),
                ("your_code", Code::TooLong),
                ("competence", Code::Invalid),
                ("due_date", Code::Invalid),
                ("penalty", Code::OutOfRange),
                ("interest", Code::OutOfRange),
                ("interest_type", Code::Invalid),
                ("instruction_days", Code::OutOfRange)
            ]
        );
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
        let last = d.items.len();
        assert_eq!(
            d.within_limits(),
            Err(vec![
                Problem::too_long("billing_items[0].description", msg_item_description_too_long(1)),
                Problem::invalid(
                    format!("billing_items[{}].description", last - 1),
                    format!("Item {last}: descrição contém caracteres de controle")
                ),
                total_above_maximum(),
            ])
        );
    }
}
