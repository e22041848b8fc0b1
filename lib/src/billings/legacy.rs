//! Legacy `schedule` (recurring) and `carne` (instalment booklet) records, which the API reads but
//! never creates (§2.1); operators create them with `infra/ops billing legacy` for accounts
//! migrated from elsewhere, and tests create them the same way.

use anyhow::{ensure, Context as _};
use chrono::{Months, NaiveDate};
use rust_decimal::Decimal;

use super::compute::Status;
use super::links;
use super::model::{Billing, BillingItem, Gateway};
use crate::accounts::AccountId;
use crate::contacts::Contact;
use crate::groups::Group;
use crate::references::BankRule;
use crate::store::records::{self, Record};
use crate::store::{keys, Store};
use crate::tags::Tag;
use crate::time::Timestamp;

/// What an operator gives for a legacy record.
#[derive(Clone, Debug)]
pub struct LegacyBilling {
    /// `schedule` or `carne`.
    pub billing_type: String,
    pub bank_rule_id: i64,
    /// Individual records: the payer.
    pub contact_id: Option<i64>,
    /// Bulk records: the target tag and the tags left out.
    pub tag_id: Option<i64>,
    pub excluded_tag_ids: Vec<i64>,
    /// Bulk records of old: the target group.
    pub group_id: Option<i64>,
    pub description: String,
    /// Per record (per instalment of a booklet), at least 5.00.
    pub amount: Decimal,
    pub due_date: NaiveDate,
    /// Booklets: how many monthly instalments (2 or more).
    pub installments: i64,
}

async fn exists<R: Record>(store: &Store, account: AccountId, id: i64, what: &str) -> anyhow::Result<()> {
    records::find::<R>(store, account, id).await?.with_context(|| format!("account {account} has no {what} {id}"))?;
    Ok(())
}

/// Stores the record (a booklet: the booklet and its instalments, `billing_id` = the booklet), each
/// counting on the records it uses like any billing. Returns what was stored.
pub async fn create(store: &Store, account: AccountId, spec: &LegacyBilling) -> anyhow::Result<Vec<Billing>> {
    ensure!(["schedule", "carne"].contains(&spec.billing_type.as_str()), "type must be schedule or carne");
    ensure!(spec.amount >= Decimal::new(500, 2), "the amount must be at least 5.00");
    let bulk = spec.tag_id.is_some() || spec.group_id.is_some();
    ensure!(bulk || spec.contact_id.is_some(), "give a contact, or a tag or group for a bulk record");
    ensure!(spec.billing_type == "schedule" || spec.installments >= 2, "a booklet has 2 or more instalments");
    exists::<BankRule>(store, account, spec.bank_rule_id, "bank rule").await?;
    if let Some(id) = spec.contact_id.filter(|_| !bulk) {
        exists::<Contact>(store, account, id, "contact").await?;
    }
    for id in spec.tag_id.iter().chain(&spec.excluded_tag_ids) {
        exists::<Tag>(store, account, *id, "tag").await?;
    }
    if let Some(id) = spec.group_id {
        exists::<Group>(store, account, id, "group").await?;
    }

    let booklet = spec.billing_type == "carne";
    let count = if booklet { spec.installments } else { 1 };
    let mut stored = Vec::new();
    let mut parent = None;
    // The booklet itself, then each instalment.
    for installment in 0..=count {
        if installment == 0 && !booklet {
            continue;
        }
        let id = records::next_id::<Billing>(store, account).await?;
        let item_id = store.next_id(keys::account(account), keys::sequence("BILLINGITEM")).await?;
        let (quantity, due_date) = match installment {
            0 => (count, spec.due_date),
            k => (1, spec.due_date.checked_add_months(Months::new(k as u32 - 1)).context("due date")?),
        };
        let now = Timestamp::now();
        let billing = Billing {
            id,
            code: Billing::code_for(id),
            your_code: None,
            reference: None,
            status: Status::Opened,
            billing_type: spec.billing_type.clone(),
            billing_issue_type: if bulk { "bulk" } else { "individual" }.into(),
            amount: spec.amount * Decimal::from(quantity),
            due_date: crate::dates::next_business_day(due_date),
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
            bank_rule_id: Some(spec.bank_rule_id),
            contact_id: if bulk { None } else { spec.contact_id },
            patient_id: None,
            tag_id: spec.tag_id,
            excluded_tag_ids: spec.excluded_tag_ids.clone(),
            group_id: spec.group_id,
            bill_category_id: None,
            parent_id: parent,
            installments: count,
            installment_type: if booklet { "monthly" } else { "none" }.into(),
            installment: installment.max(1),
            gw: Gateway::default(),
            billet_generation: 0,
            billet_id: None,
            items: vec![BillingItem {
                id: item_id,
                description: spec.description.clone(),
                quantity,
                amount: spec.amount,
            }],
            cancellation_reason: None,
            discharge_reason: None,
            created_at: now,
            updated_at: now,
            version: 1,
        };
        let mut also = links::reference_writes(account, None, Some(&billing));
        also.extend(links::added(account, &billing));
        records::insert(store, account, &billing, "", also).await?;
        if booklet && installment == 0 {
            parent = Some(id);
        }
        stored.push(billing);
    }
    Ok(stored)
}
