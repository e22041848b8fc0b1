//! A sale as an operator records it, and its checks: amounts, items and payments that add up.

use super::model::{Payment, SaleItem};
use crate::http::fields::element;
use crate::refusal::{Code, Problem, Refusal};
use crate::values::{ContactId, Money, PaymentKind};

pub const MSG_CUSTOMER_NOT_FOUND: &str = "Cliente (contact_id) não encontrado";
/// The most items one sale records.
pub const MAX_ITEMS: usize = 200;

/// A sale as an operator records it.
#[derive(Clone, Debug, Default)]
pub struct SaleDraft {
    pub contact_id: Option<ContactId>,
    pub total: Option<Money>,
    /// (description, quantity, unit price).
    pub items: Vec<(String, i64, Money)>,
    pub payments: Vec<Payment>,
}

/// The most one amount may be (what a billing or billet can carry).
pub fn max_amount() -> Money {
    Money::parse("99999999.99").expect("constant")
}

/// A positive amount of at most two decimals and at most [`max_amount`]; `field` names it in the
/// problem, `label` in its message.
pub fn check_amount(field: &str, label: &str, amount: Money, errors: &mut Vec<Problem>) {
    if !amount.is_positive() {
        errors.push(Problem::too_small(field, format!("{label} deve ser maior que zero")));
    } else if amount.cents() != amount {
        errors.push(Problem::invalid(field, format!("{label} aceita no máximo duas casas decimais")));
    } else if amount > max_amount() {
        errors.push(Problem::too_large(field, format!("{label} deve ser no máximo 99999999.99")));
    }
}

/// A validated draft: its items, payments (one per kind) and total.
pub(super) struct Checked {
    pub contact_id: ContactId,
    pub total: Money,
    pub items: Vec<SaleItem>,
    pub payments: Vec<Payment>,
}

impl SaleDraft {
    pub(super) fn check(&self) -> Result<Checked, Refusal> {
        let mut errors = Vec::new();
        let Some(contact_id) = self.contact_id else {
            return Err(Refusal::invalid(Problem::blank("contact_id", MSG_CUSTOMER_NOT_FOUND)));
        };
        let total = self.total.unwrap_or(Money::ZERO);
        check_amount("total", "Total da venda", total, &mut errors);
        if self.items.len() > MAX_ITEMS {
            errors.push(Problem::too_long("items", format!("Uma venda tem no máximo {MAX_ITEMS} itens")));
        }
        let mut items = Vec::new();
        for (index, (description, quantity, unit_price)) in self.items.iter().take(MAX_ITEMS).enumerate() {
            let at = |key: &str| format!("{}.{key}", element("items", index));
            let description = crate::values::text::collapse_whitespace(description);
            if description.is_empty() || description.chars().count() > 100 {
                let code = if description.is_empty() { Code::Blank } else { Code::TooLong };
                errors.push(Problem::at(at("description"), code, "Descrição do item deve ter de 1 a 100 caracteres"));
            }
            if !(1..=9_999_999).contains(quantity) {
                errors.push(Problem::out_of_range(at("quantity"), "Quantidade do item deve ser de 1 a 9999999"));
            }
            if *unit_price < Money::ZERO || unit_price.cents() != *unit_price || *unit_price > max_amount() {
                let code = match unit_price {
                    p if *p < Money::ZERO => Code::TooSmall,
                    p if *p > max_amount() => Code::TooLarge,
                    _ => Code::Invalid,
                };
                let message = "Preço do item deve ser de 0.00 a 99999999.99, com até duas casas decimais";
                errors.push(Problem::at(at("unit_price"), code, message));
            }
            let amount = unit_price.checked_times(*quantity).unwrap_or(Money::ZERO);
            items.push(SaleItem { description, quantity: *quantity, unit_price: *unit_price, amount });
        }
        if !items.is_empty() && errors.is_empty() {
            let sum: Money = items.iter().map(|i| i.amount).sum();
            if sum != total {
                errors.push(Problem::invalid(
                    "total",
                    format!("A soma dos itens ({sum}) difere do total da venda ({total})"),
                ));
            }
        }
        let mut payments: Vec<Payment> = Vec::new();
        for (index, payment) in self.payments.iter().enumerate() {
            let field = format!("{}.amount", element("payments", index));
            check_amount(&field, &format!("Pagamento {}", payment.kind), payment.amount, &mut errors);
            match payments.iter_mut().find(|p| p.kind == payment.kind) {
                Some(same) => same.amount = same.amount + payment.amount,
                None => payments.push(*payment),
            }
        }
        let paid: Money = payments.iter().map(|p| p.amount).sum();
        if errors.is_empty() && paid != total {
            let message = format!("A soma dos pagamentos ({paid}) difere do total da venda ({total})");
            errors.push(Problem::invalid("payments", message));
        }
        if !errors.is_empty() {
            return Err(Refusal::Invalid(errors));
        }
        Ok(Checked { contact_id, total, items, payments })
    }
}

pub(super) fn paid_with(payments: &[Payment], kind: PaymentKind) -> Money {
    payments.iter().filter(|p| p.kind == kind).map(|p| p.amount).sum()
}
