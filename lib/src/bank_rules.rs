//! Bank rules (§2.6): which bank or agreement produces the billets of a billing; `bank_symbol`
//! picks the provider. Created elsewhere (the ops CLI); billings name one.

use serde::{Deserialize, Serialize};

use crate::store::counting::Counting;
use crate::store::records::{self, Record};
use crate::store::Store;
use crate::values::text::collapse_whitespace;
use crate::values::{AccountId, BankRuleId, Timestamp};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BankRule {
    pub id: BankRuleId,
    pub name: String,
    pub bank_symbol: String,
    pub agreement_code: Option<String>,
    pub active: bool,
    pub created_at: Timestamp,
    pub version: i64,
}

#[derive(Serialize, Deserialize)]
pub struct BankRuleListFields {
    #[serde(default)]
    pub name: String,
}

impl Record for BankRule {
    const KIND: &'static str = "BANKRULE";
    const ITEM_KIND: &'static str = "bankrule";
    type Id = BankRuleId;
    type ListFields = BankRuleListFields;

    fn id(&self) -> BankRuleId {
        self.id
    }

    fn version(&self) -> i64 {
        self.version
    }

    fn list_fields(&self) -> BankRuleListFields {
        BankRuleListFields { name: self.name.clone() }
    }
}

impl Counting for BankRule {}

pub async fn create(
    store: &Store,
    account: AccountId,
    name: &str,
    bank_symbol: &str,
    agreement_code: Option<String>,
) -> anyhow::Result<BankRule> {
    let rule = BankRule {
        id: records::next_id::<BankRule>(store, account).await?,
        name: collapse_whitespace(name),
        bank_symbol: bank_symbol.trim().to_owned(),
        agreement_code,
        active: true,
        created_at: Timestamp::now(),
        version: 1,
    };
    records::insert(store, account, &rule, Vec::new()).await?;
    Ok(rule)
}
