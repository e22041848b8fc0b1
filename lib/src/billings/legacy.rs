//! Legacy `schedule` (recurring) and `carne` (instalment booklet) records, which the API reads but
//! never creates (§2.1); operators import them with `infra/ops billing legacy` for accounts
//! migrated from elsewhere, and tests create them the same way. They are imported as they were
//! made elsewhere: an amount below today's 5.00 minimum is kept (§4.2 rule 9: an amount that does
//! not change is not checked again).

use anyhow::{ensure, Context as _};
use chrono::{Months, NaiveDate};

use super::links;
use super::model::{Billing, BillingItem};
use crate::bank_rules::BankRule;
use crate::contacts::Contact;
use crate::groups::Group;
use crate::store::records::{self, Record};
use crate::store::{keys, Store};
use crate::tags::Tag;
use crate::values::calendar::next_business_day;
use crate::values::{
    AccountId, BankRuleId, BillingId, BillingItemId, BillingType, ContactId, GroupId, InstallmentType, IssueType,
    Money, TagId, Timestamp,
};

/// What an operator gives for a legacy record.
#[derive(Clone, Debug)]
pub struct LegacyBilling {
    pub billing_type: BillingType,
    pub bank_rule_id: BankRuleId,
    /// Individual records: the payer.
    pub contact_id: Option<ContactId>,
    /// Bulk records: the target tag and the tags left out.
    pub tag_id: Option<TagId>,
    pub excluded_tag_ids: Vec<TagId>,
    /// Bulk records of old: the target group.
    pub group_id: Option<GroupId>,
    pub description: String,
    /// Per record (per instalment of a booklet): positive, as it was made.
    pub amount: Money,
    pub due_date: NaiveDate,
    /// Booklets: how many monthly instalments (2 or more).
    pub installments: i64,
}

async fn exists<R: Record>(store: &Store, account: AccountId, id: R::Id, what: &str) -> anyhow::Result<()> {
    records::find::<R>(store, account, id).await?.with_context(|| format!("account {account} has no {what} {id}"))?;
    Ok(())
}

/// Stores the record (a booklet: the booklet and its instalments, `billing_id` = the booklet), each
/// counting on the records it uses like any billing. Returns what was stored.
pub async fn create(store: &Store, account: AccountId, spec: &LegacyBilling) -> anyhow::Result<Vec<Billing>> {
    ensure!(spec.billing_type != BillingType::Billing, "type must be schedule or carne");
    ensure!(spec.amount.is_positive(), "the amount must be positive");
    let bulk = spec.tag_id.is_some() || spec.group_id.is_some();
    ensure!(bulk || spec.contact_id.is_some(), "give a contact, or a tag or group for a bulk record");
    let booklet = spec.billing_type == BillingType::Carne;
    ensure!(!booklet || spec.installments >= 2, "a booklet has 2 or more instalments");
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

    let count = if booklet { spec.installments } else { 1 };
    let mut stored = Vec::new();
    let mut parent: Option<BillingId> = None;
    // The booklet itself, then each instalment.
    for installment in 0..=count {
        if installment == 0 && !booklet {
            continue;
        }
        let id = records::next_id::<Billing>(store, account).await?;
        let item_id = BillingItemId::new(store.next_id(keys::account(account), keys::sequence("BILLINGITEM")).await?);
        let (quantity, due_date) = match installment {
            0 => (count, spec.due_date),
            k => (1, spec.due_date.checked_add_months(Months::new(k as u32 - 1)).context("due date")?),
        };
        let amount = spec.amount.checked_times(quantity).context("amount")?;
        let billing = Billing {
            billing_issue_type: if bulk { IssueType::Bulk } else { IssueType::Individual },
            amount,
            bank_rule_id: Some(spec.bank_rule_id),
            contact_id: if bulk { None } else { spec.contact_id },
            tag_id: spec.tag_id,
            excluded_tag_ids: spec.excluded_tag_ids.clone(),
            group_id: spec.group_id,
            parent_id: parent,
            installments: count,
            installment_type: if booklet { InstallmentType::Monthly } else { InstallmentType::None },
            installment: installment.max(1),
            items: vec![BillingItem {
                id: item_id,
                description: spec.description.clone(),
                quantity,
                amount: spec.amount,
            }],
            ..Billing::blank(id, spec.billing_type, next_business_day(due_date), Timestamp::now())
        };
        let also = links::reference_writes(account, None, Some(&billing));
        records::insert(store, account, &billing, also).await?;
        if booklet && installment == 0 {
            parent = Some(id);
        }
        stored.push(billing);
    }
    Ok(stored)
}
