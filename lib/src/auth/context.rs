//! The account behind a request and the gate every route passes (§5 items 6 and 8).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::accounts::{Account, AccountId, AccountStatus};
use crate::refusal::Refusal;

/// What the authorizer learns about the token's account. On AWS it travels in the API Gateway
/// authorizer context (and is cached with it); locally the middleware puts it in the request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccountContext {
    pub account_id: AccountId,
    pub status: AccountStatus,
    pub kyc_approved: bool,
    pub pos_enabled: bool,
    /// Health module: billings may name a `patient_id`.
    #[serde(default)]
    pub health_module: bool,
}

impl AccountContext {
    pub fn of(account: &Account) -> Self {
        AccountContext {
            account_id: account.id,
            status: account.status,
            kyc_approved: account.kyc_approved,
            pos_enabled: account.pos_enabled,
            health_module: account.health_module,
        }
    }

    /// Every route: an account that is not active, or whose KYC is not approved, gets 403.
    pub fn admit(&self) -> Result<(), Refusal> {
        if self.status != AccountStatus::Active {
            return Err(Refusal::Forbidden(format!("Conta sem acesso à API: situação da conta é {}", self.status)));
        }
        if !self.kyc_approved {
            return Err(Refusal::Forbidden(
                "Conta sem acesso à API: verificação cadastral (KYC) ainda não aprovada".to_owned(),
            ));
        }
        Ok(())
    }

    /// Point-of-sale routes also need the module enabled.
    pub fn admit_point_of_sale(&self) -> Result<(), Refusal> {
        self.admit()?;
        if !self.pos_enabled {
            return Err(Refusal::Forbidden("Módulo de ponto de venda não habilitado para a conta".to_owned()));
        }
        Ok(())
    }

    /// The API Gateway authorizer context: flat string, number and boolean values only.
    pub fn to_authorizer_context(&self) -> Map<String, Value> {
        let mut map = Map::new();
        map.insert("account_id".into(), Value::String(self.account_id.to_string()));
        map.insert("account_status".into(), Value::String(self.status.as_str().into()));
        map.insert("kyc_approved".into(), Value::String(self.kyc_approved.to_string()));
        map.insert("pos_enabled".into(), Value::String(self.pos_enabled.to_string()));
        map.insert("health_module".into(), Value::String(self.health_module.to_string()));
        map
    }

    /// Reads the context back as the function receives it in `requestContext.authorizer`, where
    /// API Gateway may have turned every value into a string.
    pub fn from_authorizer_context<'a>(get: impl Fn(&str) -> Option<&'a Value>) -> Option<Self> {
        let text = |key: &str| -> Option<String> {
            match get(key)? {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                Value::Bool(b) => Some(b.to_string()),
                _ => None,
            }
        };
        Some(AccountContext {
            account_id: text("account_id")?.parse().ok()?,
            status: text("account_status")?.parse().ok()?,
            kyc_approved: text("kyc_approved")?.parse().ok()?,
            pos_enabled: text("pos_enabled")?.parse().ok()?,
            // Contexts cached before the flag existed read as without the module.
            health_module: text("health_module").and_then(|v| v.parse().ok()).unwrap_or(false),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context(status: AccountStatus, kyc: bool, pos: bool) -> AccountContext {
        AccountContext {
            account_id: AccountId::new(7),
            status,
            kyc_approved: kyc,
            pos_enabled: pos,
            health_module: false,
        }
    }

    #[test]
    fn only_active_verified_accounts_pass() {
        assert!(context(AccountStatus::Active, true, false).admit().is_ok());
        for status in [AccountStatus::Overdue, AccountStatus::Locked, AccountStatus::Canceled] {
            assert!(matches!(context(status, true, true).admit(), Err(Refusal::Forbidden(_))));
        }
        assert!(matches!(context(AccountStatus::Active, false, true).admit(), Err(Refusal::Forbidden(_))));
    }

    #[test]
    fn point_of_sale_needs_the_module() {
        assert!(context(AccountStatus::Active, true, true).admit_point_of_sale().is_ok());
        assert!(matches!(
            context(AccountStatus::Active, true, false).admit_point_of_sale(),
            Err(Refusal::Forbidden(_))
        ));
    }

    #[test]
    fn the_authorizer_context_round_trips_even_as_strings() {
        let c = context(AccountStatus::Overdue, false, true);
        let map = c.to_authorizer_context();
        assert_eq!(AccountContext::from_authorizer_context(|k| map.get(k)), Some(c));
        let raw = serde_json::json!({"account_id": 9, "account_status": "active", "kyc_approved": true, "pos_enabled": "false"});
        let parsed = AccountContext::from_authorizer_context(|k| raw.get(k)).unwrap();
        assert_eq!(parsed.account_id, AccountId::new(9));
        assert!(parsed.kyc_approved && !parsed.pos_enabled);
        assert_eq!(AccountContext::from_authorizer_context(|_| None), None);
    }
}
