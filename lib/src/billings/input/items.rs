//! The items of a billing's body and their total (rule 9), with the bounds of an amount: each
//! item readable and priced, the total from 5.00 to the most a billet can carry. A draft the system
//! writes itself keeps the same bounds ([`Draft::within_limits`]).

use rust_decimal::Decimal;
use serde_json::Value;

use super::sent::number_code;
use super::{Draft, Item};
use crate::http::fields::{decimal_in, element, elements, id_in, integer_in};
use crate::http::{Fields, Sent};
use crate::refusal::{Code, Problem};
use crate::values::{BillingItemId, Money};

const MINIMUM_AMOUNT: &str = "5.00";
/// The largest amount a bank billet can carry (ten digits of cents in the barcode): a billing, and
/// each of its items, may not exceed it.
pub(super) const MAXIMUM_AMOUNT: &str = "99999999.99";
/// Items per billing. Each may hold 100 characters of up to 4 bytes of UTF-8, so 500 of them stay
/// near 230 KB, well under DynamoDB's 400 KB item limit (the billing and its outbox event copy).
pub const MAX_ITEMS: usize = 500;

/// The longest description of an item, in characters.
pub const ITEM_DESCRIPTION_MAX_CHARS: usize = 100;

fn msg_item_description_too_long(n: usize) -> String {
    format!("Item {n}: descrição é muito longa (máximo: {ITEM_DESCRIPTION_MAX_CHARS} caracteres)")
}

pub(super) fn msg_item_above_maximum(n: usize) -> String {
    format!("Item {n}: valor deve ser de no máximo {MAXIMUM_AMOUNT}")
}

/// The field of a billing's total: not sent (it is the sum of the items) but shown, and the
/// field its bounds are about.
const TOTAL: &str = "amount";

fn total_above_maximum() -> Problem {
    Problem::too_large(TOTAL, format!("Valor máximo da cobrança é {MAXIMUM_AMOUNT}"))
}

/// The largest amount of a billing or item, as a decimal.
pub(super) fn maximum_amount() -> Decimal {
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

/// The items sent (at least one) and their total. A total equal to `stored_amount` is not checked
/// against the minimum again (rule 9); `places` as in [`items`].
pub(super) fn items_and_total(
    fields: Fields<'_>,
    stored_amount: Option<Money>,
    places: &[usize],
    errors: &mut Vec<Problem>,
) -> (Vec<Item>, Money) {
    let items = items(fields.raw(ITEMS), places, errors);
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
    (items, amount)
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
}

#[cfg(test)]
mod tests {
    use super::super::tests::{parse, valid};
    use super::*;
    use serde_json::json;

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
