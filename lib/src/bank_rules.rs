//! Bank rules (§2.6): which bank or agreement produces the billets of a billing; `bank_symbol`
//! picks the provider; a rule may also name a Pix institution (`pix_secret_id`). Created and
//! linked elsewhere (the ops CLI); billings name one.

use serde::{Deserialize, Serialize};

use crate::store::counting::Counting;
use crate::store::keys;
use crate::store::records::{self, Record};
use crate::store::stored::{Key, Stored};
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
    /// The secret of the rule's Pix institution (`payments::pix::psp`): its billets carry a Pix
    /// charge with a due date there. None: boleto only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pix_secret_id: Option<String>,
    pub created_at: Timestamp,
    pub version: i64,
}

/// A bank rule's link to its Pix institution (`payments::pix`), in the partition the Pix
/// reconciliation reads (`keys::payment::PIX_PSPS`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PixLink {
    pub account_id: AccountId,
    pub bank_rule_id: BankRuleId,
    pub secret_id: String,
}

impl Stored for PixLink {
    const KIND: Option<&'static str> = Some("pix_psp");
    type Scope<'a> = ();

    fn key(&self, (): ()) -> Key {
        keys::payment::pix_psp(self.account_id, self.bank_rule_id)
    }
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
    // A bank of remittance files takes its agreement only as that bank writes it.
    if let Some(bank) = crate::billets::banks::by_symbol(bank_symbol.trim()) {
        if let Some(problem) = bank.agreement_problem(agreement_code.as_deref()) {
            anyhow::bail!("{problem}");
        }
    }
    let rule = BankRule {
        id: records::next_id::<BankRule>(store, account).await?,
        name: collapse_whitespace(name),
        bank_symbol: bank_symbol.trim().to_owned(),
        agreement_code,
        active: true,
        pix_secret_id: None,
        created_at: Timestamp::now(),
        version: 1,
    };
    records::insert(store, account, &rule, Vec::new()).await?;
    Ok(rule)
}

/// Links the rule to a Pix institution whose credentials are in `secret_id` (or unlinks it:
/// `None`). Billets registered from then on carry a Pix charge there.
pub async fn set_pix(
    store: &Store,
    account: AccountId,
    id: BankRuleId,
    secret_id: Option<String>,
) -> anyhow::Result<BankRule> {
    let current =
        records::find::<BankRule>(store, account, id).await?.ok_or_else(|| anyhow::anyhow!("no bank rule {id}"))?;
    let next = BankRule { pix_secret_id: secret_id.clone(), version: current.version + 1, ..current.clone() };
    let link = match secret_id {
        Some(secret_id) => {
            crate::store::stored::put(&PixLink { account_id: account, bank_rule_id: id, secret_id }, ())?
        }
        None => {
            let (pk, sk) = crate::store::keys::payment::pix_psp(account, id);
            crate::store::Write::delete(pk, sk)
        }
    };
    records::replace(store, account, &current, &next, vec![link]).await?;
    Ok(next)
}
