//! The account behind a request and the gate every route passes (§5 items 6 and 8).

use serde::{Deserialize, Serialize};

use crate::accounts::{Account, AccountId, AccountStatus};
use crate::refusal::Refusal;

/// What the authorizer learns about the token's account. On AWS it travels in the API Gateway
/// authorizer context (and is cached with it: `http::gateway_context`); locally the middleware
/// puts it in the request.
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
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// An account context of account 7 (for the tests of the edge too).
    pub(crate) fn context(status: AccountStatus, kyc: bool, pos: bool) -> AccountContext {
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
}
