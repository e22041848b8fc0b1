//! The create body of a billing (§4.2), parsed and validated without the store: rules 5–9 and the
//! field bounds of §2.1 and §8. Foreign keys (rules 1–4) are checked against the account later.
//! Every broken rule is reported at once, each a [`Problem`] naming the field as sent
//! (`billing_items[1].amount`, counted from 0 while the messages count items from 1).
//!
//! A body is read one group of fields at a time, in the order its problems are reported (clients
//! see that order): the issue type and the parties ([`parties`]), the free texts ([`texts`]), the
//! due date and the terms ([`terms`]), the items and their total ([`items`]). What a cancel and a
//! pay-off send is read in [`cancel_and_pay_off`].

use chrono::NaiveDate;

use crate::http::Fields;
use crate::refusal::Problem;
use crate::values::terms::{Interest, Penalty};
use crate::values::{BankRuleId, BillCategoryId, BillingItemId, ContactId, InstructionType, IssueType, Money, TagId};

mod cancel_and_pay_off;
mod items;
mod parties;
mod sent;
mod terms;
mod texts;

pub use cancel_and_pay_off::{bank_account_not_found, cancellation_reason, PayOff};
pub use items::{minimum_amount, too_many_items, ITEMS, ITEM_DESCRIPTION_MAX_CHARS, MAX_ITEMS};
pub use terms::{due_date, due_date_blank};
pub use texts::REFERENCE_MAX_CHARS;

use parties::Parties;
use terms::DueTerms;
use texts::Texts;

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

impl Draft {
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
        let parties = Parties::parse(fields, stored_amount.is_some(), &mut errors);
        let texts = Texts::parse(fields, &mut errors);
        let terms = DueTerms::parse(fields, &mut errors);
        let (items, amount) = items::items_and_total(fields, stored_amount, places, &mut errors);
        if !errors.is_empty() {
            return Err(errors);
        }
        let Parties { issue_type, bank_rule_id, contact_id, patient_id, tag_id, excluded_tag_ids, bill_category_id } =
            parties;
        let Texts { evincive, observation, your_code, reference, competence } = texts;
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
            due_date: terms.due_date.expect("checked"),
            penalty: terms.penalty,
            interest: terms.interest,
            instruction: terms.instruction,
            items,
            amount,
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::items::msg_item_above_maximum;
    use super::*;
    use crate::refusal::Code;
    use crate::values::InterestPeriod;
    use serde_json::{json, Value};

    pub(super) fn parse(body: Value) -> Result<Draft, Vec<Problem>> {
        Draft::parse(Fields::new(body.as_object().unwrap()))
    }

    pub(super) fn fields_and_codes(problems: &[Problem]) -> Vec<(&str, Code)> {
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

    /// A valid individual draft, for tests elsewhere.
    pub(crate) fn valid_draft() -> Draft {
        parse(valid()).unwrap()
    }

    pub(super) fn valid() -> Value {
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
}
