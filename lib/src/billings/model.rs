//! A billing as stored: one item per billing (its line items inside), listed through `gsi1` with
//! the filterable fields in `list_fields`.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::compute::{Discount, Interest, Period, Status, Terms, ValueKind};
use super::input::{Draft, IssueType, Item as DraftItem};
use crate::store::item::{b, dec, n, opt_n, opt_s, s};
use crate::store::records::{version_of, Record};
use crate::store::{keys, Item, ItemExt};
use crate::time::Timestamp;

#[derive(Clone, Debug, PartialEq)]
pub struct BillingItem {
    pub id: i64,
    pub description: String,
    pub quantity: i64,
    pub amount: Decimal,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Billing {
    pub id: i64,
    pub code: String,
    pub your_code: Option<String>,
    pub reference: Option<String>,
    pub status: Status,
    pub billing_type: String,
    pub billing_issue_type: String,
    pub amount: Decimal,
    pub due_date: NaiveDate,
    pub competence: Option<String>,
    pub evincive: Option<String>,
    pub observation: Option<String>,
    pub discount: Option<Discount>,
    pub discount2: Option<Discount>,
    pub penalty: Option<(ValueKind, Decimal)>,
    pub cancel_penalty: bool,
    pub interest: Option<Interest>,
    pub instruction_type: Option<String>,
    pub instruction_days: i64,
    pub bank_rule_id: Option<i64>,
    pub contact_id: Option<i64>,
    pub patient_id: Option<i64>,
    pub tag_id: Option<i64>,
    pub excluded_tag_ids: Vec<i64>,
    /// Legacy bulk target of old records (issuance by group, replaced by tags); never shown.
    pub group_id: Option<i64>,
    pub bill_category_id: Option<i64>,
    /// Parent booklet of an instalment (legacy `carne`).
    pub parent_id: Option<i64>,
    pub installments: i64,
    pub installment_type: String,
    pub installment: i64,
    pub gw: Gateway,
    /// Bank-billet registrations asked for so far (0: none, as on legacy records). A re-issue
    /// asks again; the worker registers only for the latest.
    pub billet_generation: i64,
    /// The billet of the latest registration, once the worker has issued it.
    pub billet_id: Option<i64>,
    pub items: Vec<BillingItem>,
    pub cancellation_reason: Option<String>,
    pub discharge_reason: Option<String>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub version: i64,
}

/// The `gw_*` block: what a gateway (or a pay-off) recorded.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Gateway {
    pub payment_link: Option<String>,
    pub received_with: Option<String>,
    pub payment_date: Option<NaiveDate>,
    pub gross_amount: Decimal,
    pub fee_amount: Decimal,
    pub discount_amount: Decimal,
    pub extra_amount: Decimal,
}

impl Billing {
    pub fn terms(&self) -> Terms {
        Terms {
            status: self.status,
            amount: self.amount,
            due_date: self.due_date,
            discount: self.discount,
            discount2: self.discount2,
            penalty: self.penalty,
            interest: self.interest,
            cancel_penalty: self.cancel_penalty,
        }
    }

    pub fn devolution(&self) -> bool {
        self.instruction_type.as_deref() == Some("devolution")
    }

    /// Server-assigned code: the id, zero-padded.
    pub fn code_for(id: i64) -> String {
        format!("{id:08}")
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
                    next_id - 1
                }),
                description: item.description.clone(),
                quantity: item.quantity,
                amount: item.amount,
            })
            .collect()
    }

    /// A new billing from a create body: `opened`, with the draft's fields (see [`Billing::with_draft`]).
    pub fn new(id: i64, draft: &Draft, payer: Option<i64>, items: Vec<BillingItem>, now: Timestamp) -> Billing {
        let opened = Billing {
            id,
            code: Billing::code_for(id),
            status: Status::Opened,
            billing_type: "billing".into(),
            billing_issue_type: if draft.issue_type == IssueType::Bulk { "bulk" } else { "individual" }.into(),
            discount: None,
            discount2: None,
            cancel_penalty: false,
            group_id: None,
            parent_id: None,
            installments: 1,
            installment_type: "none".into(),
            installment: 1,
            gw: Gateway::default(),
            billet_generation: 1,
            billet_id: None,
            cancellation_reason: None,
            discharge_reason: None,
            created_at: now,
            updated_at: now,
            version: 1,
            // Set from the draft just below.
            your_code: None,
            reference: None,
            amount: Decimal::ZERO,
            due_date: draft.due_date,
            competence: None,
            evincive: None,
            observation: None,
            penalty: None,
            interest: None,
            instruction_type: None,
            instruction_days: 0,
            bank_rule_id: None,
            contact_id: None,
            patient_id: None,
            tag_id: None,
            excluded_tag_ids: Vec::new(),
            bill_category_id: None,
            items: Vec::new(),
        };
        opened.with_draft(draft, payer, items)
    }

    /// The billing with every field a create body sets taken from `draft` (create, and an update
    /// of an editable billing); `excluded_tag_ids` are kept only on bulk billings.
    pub fn with_draft(&self, draft: &Draft, payer: Option<i64>, items: Vec<BillingItem>) -> Billing {
        Billing {
            your_code: draft.your_code.clone(),
            reference: draft.reference.clone(),
            amount: draft.amount,
            due_date: draft.due_date,
            competence: draft.competence.clone(),
            evincive: draft.evincive.clone(),
            observation: draft.observation.clone(),
            penalty: draft.penalty,
            interest: draft.interest.map(|(kind, period, value)| Interest { kind, period, value }),
            instruction_type: draft.instruction.as_ref().map(|i| i.0.clone()),
            instruction_days: draft.instruction.as_ref().map_or(0, |i| i.1),
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

fn kind_of(text: Option<String>) -> ValueKind {
    if text.as_deref() == Some("fixed_amount") {
        ValueKind::FixedAmount
    } else {
        ValueKind::Percentage
    }
}

trait ItemRead {
    fn decimal(&self, key: &str) -> Option<Decimal>;
    fn date(&self, key: &str) -> Option<NaiveDate>;
}

impl ItemRead for Item {
    fn decimal(&self, key: &str) -> Option<Decimal> {
        match self.get(key) {
            Some(AttributeValue::N(v)) => v.parse().ok(),
            _ => None,
        }
    }

    fn date(&self, key: &str) -> Option<NaiveDate> {
        self.opt_string(key).and_then(|d| d.parse().ok())
    }
}

fn discount_attrs(item: &mut Item, suffix: &str, discount: &Option<Discount>) {
    if let Some(d) = discount {
        item.insert(format!("discount_type{suffix}"), s(d.kind.as_str()));
        item.insert(format!("discount{suffix}"), dec(d.value));
        item.insert(format!("discount_antecedence{suffix}"), n(d.antecedence_days));
    }
}

fn discount_of(item: &Item, suffix: &str) -> Option<Discount> {
    Some(Discount {
        kind: kind_of(item.opt_string(&format!("discount_type{suffix}"))),
        value: item.decimal(&format!("discount{suffix}"))?,
        antecedence_days: item.opt_int(&format!("discount_antecedence{suffix}")).unwrap_or(0),
    })
}

impl Record for Billing {
    const KIND: &'static str = "BILLING";

    fn id(&self) -> i64 {
        self.id
    }

    fn version(&self) -> i64 {
        self.version
    }

    fn attributes(&self) -> Item {
        let mut item: Item = HashMap::from([
            ("id".into(), n(self.id)),
            ("code".into(), s(&self.code)),
            ("your_code".into(), opt_s(self.your_code.clone())),
            ("reference".into(), opt_s(self.reference.clone())),
            ("status".into(), s(self.status.as_str())),
            ("billing_type".into(), s(&self.billing_type)),
            ("billing_issue_type".into(), s(&self.billing_issue_type)),
            ("amount".into(), dec(self.amount)),
            ("due_date".into(), s(self.due_date.to_string())),
            ("competence".into(), opt_s(self.competence.clone())),
            ("evincive".into(), opt_s(self.evincive.clone())),
            ("observation".into(), opt_s(self.observation.clone())),
            ("cancel_penalty".into(), b(self.cancel_penalty)),
            ("instruction_type".into(), opt_s(self.instruction_type.clone())),
            ("instruction_days".into(), n(self.instruction_days)),
            ("bank_rule_id".into(), opt_n(self.bank_rule_id)),
            ("contact_id".into(), opt_n(self.contact_id)),
            ("patient_id".into(), opt_n(self.patient_id)),
            ("tag_id".into(), opt_n(self.tag_id)),
            ("excluded_tag_ids".into(), AttributeValue::L(self.excluded_tag_ids.iter().map(n).collect())),
            ("group_id".into(), opt_n(self.group_id)),
            ("bill_category_id".into(), opt_n(self.bill_category_id)),
            ("parent_id".into(), opt_n(self.parent_id)),
            ("installments".into(), n(self.installments)),
            ("installment_type".into(), s(&self.installment_type)),
            ("installment".into(), n(self.installment)),
            ("gw_payment_link".into(), opt_s(self.gw.payment_link.clone())),
            ("gw_received_with".into(), opt_s(self.gw.received_with.clone())),
            ("gw_payment_date".into(), opt_s(self.gw.payment_date.map(|d| d.to_string()))),
            ("gw_gross_amount".into(), dec(self.gw.gross_amount)),
            ("gw_fee_amount".into(), dec(self.gw.fee_amount)),
            ("gw_discount_amount".into(), dec(self.gw.discount_amount)),
            ("gw_extra_amount".into(), dec(self.gw.extra_amount)),
            ("billet_generation".into(), n(self.billet_generation)),
            ("billet_id".into(), opt_n(self.billet_id)),
            ("cancellation_reason".into(), opt_s(self.cancellation_reason.clone())),
            ("discharge_reason".into(), opt_s(self.discharge_reason.clone())),
            ("created_at".into(), s(self.created_at.to_string())),
            ("updated_at".into(), s(self.updated_at.to_string())),
            (
                "billing_items".into(),
                AttributeValue::L(
                    self.items
                        .iter()
                        .map(|i| {
                            AttributeValue::M(HashMap::from([
                                ("id".into(), n(i.id)),
                                ("description".into(), s(&i.description)),
                                ("quantity".into(), n(i.quantity)),
                                ("amount".into(), dec(i.amount)),
                            ]))
                        })
                        .collect(),
                ),
            ),
        ]);
        if let Some((kind, value)) = self.penalty {
            item.insert("penalty_type".into(), s(kind.as_str()));
            item.insert("penalty".into(), dec(value));
        }
        if let Some(i) = self.interest {
            item.insert("interest_type".into(), s(i.kind.as_str()));
            item.insert("interest_period".into(), s(i.period.as_str()));
            item.insert("interest".into(), dec(i.value));
        }
        discount_attrs(&mut item, "", &self.discount);
        discount_attrs(&mut item, "2", &self.discount2);
        item
    }

    fn from_item(item: &Item) -> anyhow::Result<Self> {
        let items = match item.get("billing_items") {
            Some(AttributeValue::L(list)) => list
                .iter()
                .filter_map(|v| match v {
                    AttributeValue::M(m) => Some(BillingItem {
                        id: m.get("id")?.as_n().ok()?.parse().ok()?,
                        description: m.get("description")?.as_s().ok()?.clone(),
                        quantity: m.get("quantity")?.as_n().ok()?.parse().ok()?,
                        amount: m.get("amount")?.as_n().ok()?.parse().ok()?,
                    }),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        Ok(Billing {
            id: item.int("id")?,
            code: item.string("code")?,
            your_code: item.opt_string("your_code"),
            reference: item.opt_string("reference"),
            status: Status::parse(&item.string("status")?).ok_or_else(|| anyhow::anyhow!("unknown billing status"))?,
            billing_type: item.string("billing_type")?,
            billing_issue_type: item.string("billing_issue_type")?,
            amount: item.decimal("amount").unwrap_or_default(),
            due_date: item.date("due_date").ok_or_else(|| anyhow::anyhow!("billing without due date"))?,
            competence: item.opt_string("competence"),
            evincive: item.opt_string("evincive"),
            observation: item.opt_string("observation"),
            discount: discount_of(item, ""),
            discount2: discount_of(item, "2"),
            penalty: item.decimal("penalty").map(|v| (kind_of(item.opt_string("penalty_type")), v)),
            cancel_penalty: item.boolean("cancel_penalty").unwrap_or(false),
            interest: item.decimal("interest").map(|value| Interest {
                kind: kind_of(item.opt_string("interest_type")),
                period: if item.opt_string("interest_period").as_deref() == Some("daily") {
                    Period::Daily
                } else {
                    Period::Monthly
                },
                value,
            }),
            instruction_type: item.opt_string("instruction_type"),
            instruction_days: item.opt_int("instruction_days").unwrap_or(0),
            bank_rule_id: item.opt_int("bank_rule_id"),
            contact_id: item.opt_int("contact_id"),
            patient_id: item.opt_int("patient_id"),
            tag_id: item.opt_int("tag_id"),
            excluded_tag_ids: match item.get("excluded_tag_ids") {
                Some(AttributeValue::L(ids)) => ids.iter().filter_map(|v| v.as_n().ok()?.parse().ok()).collect(),
                _ => Vec::new(),
            },
            group_id: item.opt_int("group_id"),
            bill_category_id: item.opt_int("bill_category_id"),
            parent_id: item.opt_int("parent_id"),
            installments: item.opt_int("installments").unwrap_or(1),
            installment_type: item.opt_string("installment_type").unwrap_or_else(|| "none".into()),
            installment: item.opt_int("installment").unwrap_or(1),
            gw: Gateway {
                payment_link: item.opt_string("gw_payment_link"),
                received_with: item.opt_string("gw_received_with"),
                payment_date: item.date("gw_payment_date"),
                gross_amount: item.decimal("gw_gross_amount").unwrap_or_default(),
                fee_amount: item.decimal("gw_fee_amount").unwrap_or_default(),
                discount_amount: item.decimal("gw_discount_amount").unwrap_or_default(),
                extra_amount: item.decimal("gw_extra_amount").unwrap_or_default(),
            },
            billet_generation: item.opt_int("billet_generation").unwrap_or(0),
            billet_id: item.opt_int("billet_id"),
            items,
            cancellation_reason: item.opt_string("cancellation_reason"),
            discharge_reason: item.opt_string("discharge_reason"),
            created_at: item.timestamp("created_at")?,
            updated_at: item.timestamp("updated_at")?,
            version: version_of(item)?,
        })
    }

    /// Everything the list filters on (§4.2), so a list never reads billings it does not show.
    fn list_fields(&self) -> HashMap<String, AttributeValue> {
        HashMap::from([
            ("status".into(), s(self.status.as_str())),
            ("due_date".into(), s(self.due_date.to_string())),
            ("created_on".into(), s(self.created_at.date().to_string())),
            ("contact_id".into(), opt_n(self.contact_id)),
            ("bank_rule_id".into(), opt_n(self.bank_rule_id)),
            ("bill_category_id".into(), opt_n(self.bill_category_id)),
            ("parent_id".into(), opt_n(self.parent_id)),
            ("your_code".into(), opt_s(self.your_code.clone())),
            ("evincive".into(), opt_s(self.evincive.clone())),
        ])
    }

    /// Lists are per billing type (`billing`, `schedule`, `carne`).
    fn index_sk(&self) -> String {
        format!("{}#{}", self.billing_type, keys::record(Self::KIND, self.id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_billing_round_trips_through_its_item() {
        let now = Timestamp::now();
        let billing = Billing {
            id: 7,
            code: Billing::code_for(7),
            your_code: Some("ERP-1".into()),
            reference: None,
            status: Status::Opened,
            billing_type: "billing".into(),
            billing_issue_type: "individual".into(),
            amount: "25.50".parse().unwrap(),
            due_date: "2026-12-01".parse().unwrap(),
            competence: Some("12/2026".into()),
            evincive: None,
            observation: None,
            discount: Some(Discount { kind: ValueKind::Percentage, value: "5".parse().unwrap(), antecedence_days: 3 }),
            discount2: None,
            penalty: Some((ValueKind::FixedAmount, "2.5".parse().unwrap())),
            cancel_penalty: false,
            interest: Some(Interest {
                kind: ValueKind::Percentage,
                period: Period::Daily,
                value: "0.033".parse().unwrap(),
            }),
            instruction_type: Some("devolution".into()),
            instruction_days: 30,
            bank_rule_id: Some(1),
            contact_id: Some(3),
            patient_id: None,
            tag_id: None,
            excluded_tag_ids: vec![],
            group_id: Some(4),
            bill_category_id: Some(2),
            parent_id: None,
            installments: 1,
            installment_type: "none".into(),
            installment: 1,
            gw: Gateway::default(),
            billet_generation: 2,
            billet_id: Some(5),
            items: vec![BillingItem {
                id: 1,
                description: "Mensalidade".into(),
                quantity: 1,
                amount: "25.50".parse().unwrap(),
            }],
            cancellation_reason: None,
            discharge_reason: Some("bank_deposit".into()),
            created_at: now,
            updated_at: now,
            version: 1,
        };
        let mut item = billing.attributes();
        item.insert("version".into(), n(1));
        assert_eq!(Billing::from_item(&item).unwrap(), billing);
    }
}
