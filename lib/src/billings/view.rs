//! The two representations of §2.1: the single one (show, create, update, cancel, pay_off) and the
//! list one, which omits the three arrays, the discount block, the `gw_*` block,
//! `display_amount_payable` and `paid`. Computed fields are as of today in São Paulo.

use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::Serialize;

use super::compute::{self, Computed};
use super::model::{Billing, BillingItem};
use crate::billets::view::BilletView;
use crate::billets::BankBillet;
use crate::contacts::Contact;
use crate::tags::Tag;
use crate::values::{
    BankRuleId, BillCategoryId, BillingId, BillingItemId, BillingStatus, BillingType, ContactId, InstallmentType,
    InstructionType, InterestPeriod, IssueType, Money, TagColor, TagId, Timestamp, ValueKind,
};

/// Related records embedded in the representation.
pub struct Related<'a> {
    pub contact: Option<&'a Contact>,
    pub tag: Option<&'a Tag>,
    /// Newest first; shown only in the single representation.
    pub billets: &'a [BankBillet],
    /// Its reminders' deliveries, newest first (`reminders::deliveries::SHOWN` at most); shown
    /// only in the single representation.
    pub reminders: &'a [crate::billings::reminder_deliveries::Delivery],
}

/// What a billing's single representation embeds, as a workflow read it.
#[derive(Clone, Debug, Default)]
pub struct Embedded {
    pub contact: Option<Contact>,
    pub tag: Option<Tag>,
    /// Newest first.
    pub billets: Vec<BankBillet>,
    /// Newest first.
    pub reminders: Vec<crate::billings::reminder_deliveries::Delivery>,
}

impl Embedded {
    pub fn related(&self) -> Related<'_> {
        Related {
            contact: self.contact.as_ref(),
            tag: self.tag.as_ref(),
            billets: &self.billets,
            reminders: &self.reminders,
        }
    }
}

/// A rate or value shown with two decimals (`"2.00"`), or null.
fn shown(value: Option<Decimal>) -> Option<Money> {
    value.map(Money::new)
}

/// The fields both representations open with.
#[derive(Serialize)]
struct Head<'a> {
    id: BillingId,
    code: &'a str,
    your_code: &'a Option<String>,
    reference: &'a Option<String>,
    status: BillingStatus,
    virtual_status: &'static str,
    billing_type: BillingType,
    billing_issue_type: IssueType,
    amount: Money,
    due_date: NaiveDate,
    competence: &'a Option<String>,
    evincive: &'a Option<String>,
    observation: &'a Option<String>,
}

/// The discount block (single representation only; read-only).
#[derive(Serialize)]
struct Discounts {
    discount_type: Option<ValueKind>,
    discount: Option<Money>,
    discount_antecedence: Option<i64>,
    discount_type2: Option<ValueKind>,
    discount2: Option<Money>,
    discount_antecedence2: Option<i64>,
}

/// Charges, instructions, references and the instalment block.
#[derive(Serialize)]
struct Terms {
    penalty_type: Option<ValueKind>,
    penalty: Option<Money>,
    cancel_penalty: bool,
    interest_type: Option<ValueKind>,
    interest_period: Option<InterestPeriod>,
    interest: Option<Money>,
    instruction_type: Option<InstructionType>,
    instruction_days: i64,
    bank_rule_id: Option<BankRuleId>,
    contact_id: Option<ContactId>,
    patient_id: Option<ContactId>,
    tag_id: Option<TagId>,
    bill_category_id: Option<BillCategoryId>,
    /// The booklet an instalment belongs to (the `billing_id` list filter); null otherwise.
    billing_id: Option<BillingId>,
    installments: i64,
    installment_type: InstallmentType,
    installment: i64,
}

/// The `gw_*` block of `b`: what a payment recorded, and its card payment's details once the card
/// settled it (the numeric codes are PagSeguro's, which the spec's fields mirror:
/// `billings::card::Method`; `gw_type_id` 1 is a payment).
fn gateway(b: &Billing) -> Gateway<'_> {
    let card = b.gw_card.as_ref().filter(|card| card.settled);
    let method = card.and_then(|card| card.method.as_ref());
    Gateway {
        gw_payment_link: &b.gw_payment_link,
        gw_received_with: &b.gw_received_with,
        gw_payment_date: b.gw_payment_date,
        gw_gross_amount: b.gw_gross_amount,
        gw_fee_amount: b.gw_fee_amount,
        gw_net_amount: b.gw_gross_amount - b.gw_fee_amount,
        gw_discount_amount: b.gw_discount_amount,
        gw_extra_amount: b.gw_extra_amount,
        gw_escrow_end_date: card.and_then(|card| card.escrow_end),
        gw_installment_count: method.map(|m| m.installments),
        gw_payment_method_type: method.map(|m| m.kind),
        gw_payment_method_code: method.map(|m| m.code),
        gw_type_id: card.map(|_| 1),
    }
}

/// The `gw_*` block (single representation only).
#[derive(Serialize)]
struct Gateway<'a> {
    gw_payment_link: &'a Option<String>,
    gw_received_with: &'a Option<String>,
    gw_payment_date: Option<NaiveDate>,
    gw_gross_amount: Money,
    gw_fee_amount: Money,
    gw_net_amount: Money,
    gw_discount_amount: Money,
    gw_extra_amount: Money,
    gw_escrow_end_date: Option<Timestamp>,
    gw_installment_count: Option<i64>,
    gw_payment_method_type: Option<i64>,
    gw_payment_method_code: Option<i64>,
    gw_type_id: Option<i64>,
}

#[derive(Serialize)]
struct Amounts {
    discount_amount: Money,
    extra_amount: Money,
    amount_payable: Money,
}

#[derive(Serialize)]
struct ContactSummary<'a> {
    id: ContactId,
    description: Option<&'a str>,
    email: &'a Option<String>,
    document: Option<String>,
}

#[derive(Serialize)]
struct TagSummary<'a> {
    id: TagId,
    name: &'a str,
    color: TagColor,
}

/// What both representations close with.
#[derive(Serialize)]
struct Tail<'a> {
    days_overdue: i64,
    overdue: bool,
    return_date: Option<NaiveDate>,
    redirect_url: Option<String>,
    notification_url: Option<String>,
    created_at: Timestamp,
    updated_at: Timestamp,
    #[serde(skip_serializing_if = "Option::is_none")]
    contact: Option<ContactSummary<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tag: Option<TagSummary<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    recurrence: Option<super::recurrence_view::RecurrenceView>,
}

#[derive(Serialize)]
pub struct ItemView {
    pub id: BillingItemId,
    pub description: String,
    pub quantity: i64,
    pub amount: Money,
}

impl From<&BillingItem> for ItemView {
    fn from(item: &BillingItem) -> Self {
        ItemView { id: item.id, description: item.description.clone(), quantity: item.quantity, amount: item.amount }
    }
}

/// What a bulk create answers (`202`): the expansion is recorded and will bill this many contacts.
#[derive(Debug, PartialEq, Serialize)]
pub struct BulkAccepted {
    status: u16,
    enqueued: bool,
    contacts_count: usize,
}

impl BulkAccepted {
    pub fn new(contacts_count: usize) -> Self {
        BulkAccepted { status: 202, enqueued: true, contacts_count }
    }
}

/// The single representation.
#[derive(Serialize)]
pub struct BillingView<'a> {
    #[serde(flatten)]
    head: Head<'a>,
    #[serde(flatten)]
    discounts: Discounts,
    #[serde(flatten)]
    terms: Terms,
    #[serde(flatten)]
    gateway: Gateway<'a>,
    #[serde(flatten)]
    amounts: Amounts,
    display_amount_payable: Money,
    paid: bool,
    #[serde(flatten)]
    tail: Tail<'a>,
    billing_items: Vec<ItemView>,
    billing_reminder_deliveries: Vec<crate::billings::reminder_deliveries::DeliveryView>,
    bank_billets: Vec<BilletView>,
}

/// The list representation.
#[derive(Serialize)]
pub struct BillingListView<'a> {
    #[serde(flatten)]
    head: Head<'a>,
    #[serde(flatten)]
    terms: Terms,
    #[serde(flatten)]
    amounts: Amounts,
    #[serde(flatten)]
    tail: Tail<'a>,
}

fn head<'a>(b: &'a Billing, computed: &Computed) -> Head<'a> {
    Head {
        id: b.id,
        code: &b.code,
        your_code: &b.your_code,
        reference: &b.reference,
        status: b.status,
        virtual_status: computed.virtual_status,
        billing_type: b.billing_type,
        billing_issue_type: b.billing_issue_type,
        amount: b.amount,
        due_date: b.due_date,
        competence: &b.competence,
        evincive: &b.evincive,
        observation: &b.observation,
    }
}

fn terms(b: &Billing) -> Terms {
    let charges = b.terms();
    Terms {
        penalty_type: charges.penalty.map(|p| p.kind),
        penalty: shown(charges.penalty.map(|p| p.value)),
        cancel_penalty: b.cancel_penalty,
        interest_type: charges.interest.map(|i| i.kind),
        interest_period: charges.interest.map(|i| i.period),
        interest: shown(charges.interest.map(|i| i.value)),
        instruction_type: b.instruction_type,
        instruction_days: b.instruction_days,
        bank_rule_id: b.bank_rule_id,
        contact_id: b.contact_id,
        patient_id: b.patient_id,
        tag_id: b.tag_id,
        bill_category_id: b.bill_category_id,
        billing_id: b.parent_id,
        installments: b.installments,
        installment_type: b.installment_type,
        installment: b.installment,
    }
}

fn amounts(computed: &Computed) -> Amounts {
    Amounts {
        discount_amount: Money::new(computed.discount_amount),
        extra_amount: Money::new(computed.extra_amount),
        amount_payable: Money::new(computed.amount_payable),
    }
}

fn tail<'a>(b: &'a Billing, related: &Related<'a>, computed: &Computed) -> Tail<'a> {
    Tail {
        days_overdue: computed.days_overdue,
        overdue: computed.overdue,
        return_date: compute::return_date(b.due_date, b.devolution(), b.instruction_days),
        redirect_url: None,
        notification_url: None,
        created_at: b.created_at,
        updated_at: b.updated_at,
        contact: related.contact.map(|c| ContactSummary {
            id: c.id,
            description: c.description(),
            email: &c.email,
            document: c.document(),
        }),
        tag: related.tag.map(|t| TagSummary { id: t.id, name: &t.name, color: t.color }),
        recurrence: b.recurrence.as_ref().map(Into::into),
    }
}

impl<'a> BillingView<'a> {
    pub fn new(b: &'a Billing, related: &Related<'a>, today: NaiveDate) -> Self {
        let charges = b.terms();
        let computed = compute::compute(&charges, today);
        let received = (b.gw_gross_amount.get(), b.gw_discount_amount.get(), b.gw_extra_amount.get());
        let display = compute::display_amount_payable(&charges, today, None, Some(received));
        let discount = |d: Option<compute::Discount>| {
            (d.map(|d| d.kind), shown(d.map(|d| d.value)), d.map(|d| d.antecedence_days))
        };
        let (discount_type, discount1, discount_antecedence) = discount(charges.discount);
        let (discount_type2, discount2, discount_antecedence2) = discount(charges.discount2);
        BillingView {
            head: head(b, &computed),
            discounts: Discounts {
                discount_type,
                discount: discount1,
                discount_antecedence,
                discount_type2,
                discount2,
                discount_antecedence2,
            },
            terms: terms(b),
            gateway: gateway(b),
            amounts: amounts(&computed),
            display_amount_payable: Money::new(display),
            paid: computed.paid,
            tail: tail(b, related, &computed),
            billing_items: b.items.iter().map(ItemView::from).collect(),
            billing_reminder_deliveries: related.reminders.iter().map(Into::into).collect(),
            bank_billets: related.billets.iter().map(|billet| BilletView::new(billet, today)).collect(),
        }
    }
}

impl<'a> BillingListView<'a> {
    pub fn new(b: &'a Billing, related: &Related<'a>, today: NaiveDate) -> Self {
        let computed = compute::compute(&b.terms(), today);
        BillingListView {
            head: head(b, &computed),
            terms: terms(b),
            amounts: amounts(&computed),
            tail: tail(b, related, &computed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_accepted_body_of_a_bulk_create() {
        let body = serde_json::to_value(BulkAccepted::new(12)).unwrap();
        assert_eq!(body, serde_json::json!({"status": 202, "enqueued": true, "contacts_count": 12}));
    }
}
