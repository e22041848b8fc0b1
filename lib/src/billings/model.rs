//! A billing as stored: one item per billing (its line items inside), listed through `gsi1` with
//! the filterable fields in `list_fields`. The attribute names are the API's field names.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::compute::{Discount, Interest, Penalty, Terms};
use super::input::{Draft, Item as DraftItem};
use crate::store::item::number;
use crate::values::recurrence::Recurrence;
use crate::values::{
    BankRuleId, BillCategoryId, BilletId, BillingId, BillingItemId, BillingStatus, BillingType, ContactId,
    DischargeReason, GroupId, InstallmentType, InstructionType, IssueType, Money, TagId, Timestamp,
};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BillingItem {
    pub id: BillingItemId,
    pub description: String,
    pub quantity: i64,
    #[serde(with = "number")]
    pub amount: Money,
}

fn one() -> i64 {
    1
}

fn no_installments() -> InstallmentType {
    InstallmentType::None
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Billing {
    pub id: BillingId,
    pub code: String,
    pub your_code: Option<String>,
    pub reference: Option<String>,
    pub status: BillingStatus,
    pub billing_type: BillingType,
    pub billing_issue_type: IssueType,
    #[serde(with = "number")]
    pub amount: Money,
    pub due_date: NaiveDate,
    pub competence: Option<String>,
    pub evincive: Option<String>,
    pub observation: Option<String>,
    /// The early-payment discounts (stored as `discount_type`, `discount`, `discount_antecedence`
    /// and the same with `2`): read-only through the API, set by legacy imports.
    #[serde(flatten, with = "stored::first_discount")]
    pub discount: Option<Discount>,
    #[serde(flatten, with = "stored::second_discount")]
    pub discount2: Option<Discount>,
    /// Stored as `penalty_type` and `penalty`.
    #[serde(flatten, with = "stored::penalty")]
    pub penalty: Option<Penalty>,
    #[serde(default)]
    pub cancel_penalty: bool,
    /// Stored as `interest_type`, `interest_period` and `interest`.
    #[serde(flatten, with = "stored::interest")]
    pub interest: Option<Interest>,
    #[serde(default)]
    pub instruction_type: Option<InstructionType>,
    #[serde(default)]
    pub instruction_days: i64,
    pub bank_rule_id: Option<BankRuleId>,
    /// The payer (of a bulk billing too: the contact its expansion billed).
    pub contact_id: Option<ContactId>,
    #[serde(default)]
    pub patient_id: Option<ContactId>,
    /// Bulk billings: the target tag, kept as issued.
    pub tag_id: Option<TagId>,
    #[serde(default)]
    pub excluded_tag_ids: Vec<TagId>,
    /// Legacy bulk target of old records (issuance by group, replaced by tags); never shown.
    #[serde(default)]
    pub group_id: Option<GroupId>,
    pub bill_category_id: Option<BillCategoryId>,
    /// Parent booklet of an instalment (legacy `carne`).
    #[serde(default)]
    pub parent_id: Option<BillingId>,
    #[serde(default = "one")]
    pub installments: i64,
    #[serde(default = "no_installments")]
    pub installment_type: InstallmentType,
    #[serde(default = "one")]
    pub installment: i64,
    /// The `gw_*` block: what a gateway (or a pay-off) recorded.
    #[serde(default)]
    pub gw_payment_link: Option<String>,
    #[serde(default)]
    pub gw_received_with: Option<String>,
    #[serde(default)]
    pub gw_payment_date: Option<NaiveDate>,
    #[serde(default, with = "number")]
    pub gw_gross_amount: Money,
    #[serde(default, with = "number")]
    pub gw_fee_amount: Money,
    #[serde(default, with = "number")]
    pub gw_discount_amount: Money,
    #[serde(default, with = "number")]
    pub gw_extra_amount: Money,
    /// Its card payment, once the payer began one (the card channel's gateway): the rest of the `gw_*`
    /// block and what moves its gateway statuses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gw_card: Option<super::card::Card>,
    /// Bank-billet registrations asked for so far (0: none, as on legacy records). A re-issue
    /// asks again; the worker registers only for the latest.
    #[serde(default)]
    pub billet_generation: i64,
    /// The billet of the latest registration, once the worker has issued it.
    #[serde(default)]
    pub billet_id: Option<BilletId>,
    #[serde(rename = "billing_items", default)]
    pub items: Vec<BillingItem>,
    #[serde(default)]
    pub cancellation_reason: Option<String>,
    #[serde(default)]
    pub discharge_reason: Option<DischargeReason>,
    /// A schedule made through the API: its calendar and where it stands (`schedules`). Legacy
    /// schedules have none, and issue nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recurrence: Option<Recurrence>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub version: i64,
}

impl Billing {
    /// What the computed fields are computed from (a kind left out is a percentage, a period
    /// monthly, as records made elsewhere may have them).
    pub fn terms(&self) -> Terms {
        Terms {
            status: self.status,
            amount: self.amount.get(),
            due_date: self.due_date,
            discount: self.discount,
            discount2: self.discount2,
            penalty: self.penalty,
            interest: self.interest,
            cancel_penalty: self.cancel_penalty,
        }
    }

    pub fn devolution(&self) -> bool {
        self.instruction_type == Some(InstructionType::Devolution)
    }

    /// The draft's items: those with an id keep it, the others take consecutive ids from
    /// `first_new_id` (a block reserved for them).
    pub fn items_from(first_new_id: i64, items: &[DraftItem]) -> Vec<BillingItem> {
        let mut next_id = first_new_id;
        items
            .iter()
            .map(|item| BillingItem {
                id: item.id.unwrap_or_else(|| {
                    next_id += 1;
                    BillingItemId::new(next_id - 1)
                }),
                description: item.description.clone(),
                quantity: item.quantity,
                amount: item.amount,
            })
            .collect()
    }

    /// A booklet made through the API (`service::booklet`): a `carne` record with instalment 0 and
    /// no billet of its own.
    pub fn is_booklet(&self) -> bool {
        self.billing_type == BillingType::Carne && self.installment == 0
    }

    /// A billing of type `billing_type`, `opened`, with nothing else set yet.
    pub fn blank(id: BillingId, billing_type: BillingType, due_date: NaiveDate, now: Timestamp) -> Billing {
        Billing {
            id,
            code: id.code(),
            your_code: None,
            reference: None,
            status: BillingStatus::Opened,
            billing_type,
            billing_issue_type: IssueType::Individual,
            amount: Money::ZERO,
            due_date,
            competence: None,
            evincive: None,
            observation: None,
            discount: None,
            discount2: None,
            penalty: None,
            cancel_penalty: false,
            interest: None,
            instruction_type: None,
            instruction_days: 0,
            bank_rule_id: None,
            contact_id: None,
            patient_id: None,
            tag_id: None,
            excluded_tag_ids: Vec::new(),
            group_id: None,
            bill_category_id: None,
            parent_id: None,
            installments: 1,
            installment_type: InstallmentType::None,
            installment: 1,
            gw_payment_link: None,
            gw_received_with: None,
            gw_payment_date: None,
            gw_gross_amount: Money::ZERO,
            gw_fee_amount: Money::ZERO,
            gw_discount_amount: Money::ZERO,
            gw_extra_amount: Money::ZERO,
            gw_card: None,
            billet_generation: 0,
            billet_id: None,
            items: Vec::new(),
            cancellation_reason: None,
            discharge_reason: None,
            recurrence: None,
            created_at: now,
            updated_at: now,
            version: 1,
        }
    }

    /// A new billing from a create body: `opened`, its billet's registration asked for, with the
    /// draft's fields (see [`Billing::with_draft`]).
    pub fn new(
        id: BillingId,
        draft: &Draft,
        payer: Option<ContactId>,
        items: Vec<BillingItem>,
        now: Timestamp,
    ) -> Billing {
        let opened = Billing {
            billing_issue_type: draft.issue_type,
            billet_generation: 1,
            ..Billing::blank(id, BillingType::Billing, draft.due_date, now)
        };
        opened.with_draft(draft, payer, items)
    }

    /// The billing with every field a create body sets taken from `draft` (create, and an update
    /// of an editable billing); `excluded_tag_ids` are kept only on bulk billings.
    pub fn with_draft(&self, draft: &Draft, payer: Option<ContactId>, items: Vec<BillingItem>) -> Billing {
        Billing {
            your_code: draft.your_code.clone(),
            reference: draft.reference.clone(),
            amount: draft.amount,
            due_date: draft.due_date,
            competence: draft.competence.clone(),
            evincive: draft.evincive.clone(),
            observation: draft.observation.clone(),
            penalty: draft.penalty,
            interest: draft.interest,
            instruction_type: draft.instruction.map(|(kind, _)| kind),
            instruction_days: draft.instruction.map_or(0, |(_, days)| days),
            bank_rule_id: Some(draft.bank_rule_id),
            contact_id: payer,
            patient_id: draft.patient_id,
            tag_id: draft.tag_id,
            excluded_tag_ids: match draft.issue_type {
                IssueType::Bulk => draft.excluded_tag_ids.clone(),
                IssueType::Individual => Vec::new(),
            },
            bill_category_id: draft.bill_category_id,
            items,
            ..self.clone()
        }
    }
}

/// How a billing's terms are stored: each typed term as the flat attributes the API names
/// (`discount_type`, `discount`, `discount_antecedence`, …). A kind left out reads as a
/// percentage, a period as monthly, an antecedence as 0 (records made elsewhere may lack them); a
/// term without its value is no term.
mod stored {
    use rust_decimal::Decimal;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::{Discount, Interest, Penalty};
    use crate::store::item::number;
    use crate::values::{InterestPeriod, ValueKind};

    /// One discount slot under its attribute names.
    macro_rules! discount_slot {
        ($module:ident, $kind:literal, $value:literal, $antecedence:literal) => {
            pub mod $module {
                use super::*;

                #[derive(Serialize, Deserialize)]
                struct Stored {
                    #[serde(rename = $kind, default)]
                    kind: Option<ValueKind>,
                    #[serde(rename = $value, default, with = "number::option")]
                    value: Option<Decimal>,
                    #[serde(rename = $antecedence, default)]
                    antecedence: Option<i64>,
                }

                pub fn serialize<S: Serializer>(term: &Option<Discount>, serializer: S) -> Result<S::Ok, S::Error> {
                    let stored = Stored {
                        kind: term.map(|d| d.kind),
                        value: term.map(|d| d.value),
                        antecedence: term.map(|d| d.antecedence_days),
                    };
                    stored.serialize(serializer)
                }

                pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Discount>, D::Error> {
                    let stored = Stored::deserialize(deserializer)?;
                    Ok(stored.value.map(|value| Discount {
                        kind: stored.kind.unwrap_or(ValueKind::Percentage),
                        value,
                        antecedence_days: stored.antecedence.unwrap_or(0),
                    }))
                }
            }
        };
    }

    discount_slot!(first_discount, "discount_type", "discount", "discount_antecedence");
    discount_slot!(second_discount, "discount_type2", "discount2", "discount_antecedence2");

    pub mod penalty {
        use super::*;

        #[derive(Serialize, Deserialize)]
        struct Stored {
            #[serde(rename = "penalty_type", default)]
            kind: Option<ValueKind>,
            #[serde(rename = "penalty", default, with = "number::option")]
            value: Option<Decimal>,
        }

        pub fn serialize<S: Serializer>(term: &Option<Penalty>, serializer: S) -> Result<S::Ok, S::Error> {
            Stored { kind: term.map(|p| p.kind), value: term.map(|p| p.value) }.serialize(serializer)
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Penalty>, D::Error> {
            let stored = Stored::deserialize(deserializer)?;
            Ok(stored.value.map(|value| Penalty { kind: stored.kind.unwrap_or(ValueKind::Percentage), value }))
        }
    }

    pub mod interest {
        use super::*;

        #[derive(Serialize, Deserialize)]
        struct Stored {
            #[serde(rename = "interest_type", default)]
            kind: Option<ValueKind>,
            #[serde(rename = "interest_period", default)]
            period: Option<InterestPeriod>,
            #[serde(rename = "interest", default, with = "number::option")]
            value: Option<Decimal>,
        }

        pub fn serialize<S: Serializer>(term: &Option<Interest>, serializer: S) -> Result<S::Ok, S::Error> {
            let stored =
                Stored { kind: term.map(|i| i.kind), period: term.map(|i| i.period), value: term.map(|i| i.value) };
            stored.serialize(serializer)
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Interest>, D::Error> {
            let stored = Stored::deserialize(deserializer)?;
            Ok(stored.value.map(|value| Interest {
                kind: stored.kind.unwrap_or(ValueKind::Percentage),
                period: stored.period.unwrap_or(InterestPeriod::Monthly),
                value,
            }))
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::store::records::{item_of, read};
    use crate::values::{AccountId, InterestPeriod, ValueKind};

    pub(crate) fn sample() -> Billing {
        let now = Timestamp::now();
        Billing {
            your_code: Some("ERP-1".into()),
            amount: Money::parse("25.50").unwrap(),
            competence: Some("12/2026".into()),
            discount: Some(Discount { kind: ValueKind::Percentage, value: "5".parse().unwrap(), antecedence_days: 3 }),
            penalty: Some(Penalty { kind: ValueKind::FixedAmount, value: "2.5".parse().unwrap() }),
            interest: Some(Interest {
                kind: ValueKind::Percentage,
                period: InterestPeriod::Daily,
                value: "0.033".parse().unwrap(),
            }),
            instruction_type: Some(InstructionType::Devolution),
            instruction_days: 30,
            bank_rule_id: Some(BankRuleId::new(1)),
            contact_id: Some(ContactId::new(3)),
            group_id: Some(GroupId::new(4)),
            bill_category_id: Some(BillCategoryId::new(2)),
            billet_generation: 2,
            billet_id: Some(BilletId::new(5)),
            items: vec![BillingItem {
                id: BillingItemId::new(1),
                description: "Mensalidade".into(),
                quantity: 1,
                amount: Money::parse("25.50").unwrap(),
            }],
            discharge_reason: Some(DischargeReason::BankDeposit),
            ..Billing::blank(BillingId::new(7), BillingType::Billing, "2026-12-01".parse().unwrap(), now)
        }
    }

    #[test]
    fn a_billing_round_trips_through_its_item() {
        let billing = sample();
        let item = item_of(AccountId::new(1), &billing).unwrap();
        assert_eq!(item["amount"].as_n().unwrap(), "25.5");
        assert_eq!(item["interest"].as_n().unwrap(), "0.033");
        // The typed terms keep the flat attributes of the API's names.
        assert_eq!(item["discount_type"].as_s().unwrap(), "percentage");
        assert_eq!(item["discount"].as_n().unwrap(), "5");
        assert_eq!(item["discount_antecedence"].as_n().unwrap(), "3");
        assert!(item["discount2"].is_null() && item["discount_type2"].is_null());
        assert_eq!(item["penalty_type"].as_s().unwrap(), "fixed_amount");
        assert_eq!(item["penalty"].as_n().unwrap(), "2.5");
        assert_eq!(item["interest_period"].as_s().unwrap(), "daily");
        assert_eq!(item["status"].as_s().unwrap(), "opened");
        assert!(item["billing_items"].as_l().is_ok());
        assert_eq!(read::<Billing>(item).unwrap(), billing);
    }

    #[test]
    fn a_billing_stored_without_its_optional_blocks_reads_with_the_defaults() {
        let mut item = item_of(AccountId::new(1), &sample()).unwrap();
        for absent in ["penalty_type", "interest_type", "interest_period", "installments", "installment_type"] {
            item.remove(absent);
        }
        let read: Billing = read(item).unwrap();
        assert_eq!(read.terms().penalty.map(|p| p.kind), Some(ValueKind::Percentage));
        assert_eq!(read.terms().interest.map(|i| i.period), Some(InterestPeriod::Monthly));
        assert_eq!((read.installments, read.installment_type), (1, InstallmentType::None));
    }
}
