//! The account context as API Gateway carries it from the authorizer to the functions
//! (`requestContext.authorizer`): flat string, number and boolean values only.

use serde_json::{Map, Value};

use crate::auth::AccountContext;

/// The API Gateway authorizer context: flat string, number and boolean values only.
pub fn of(account: &AccountContext) -> Map<String, Value> {
    let mut map = Map::new();
    map.insert("account_id".into(), Value::String(account.account_id.to_string()));
    map.insert("account_status".into(), Value::String(account.status.as_str().into()));
    map.insert("kyc_approved".into(), Value::String(account.kyc_approved.to_string()));
    map.insert("pos_enabled".into(), Value::String(account.pos_enabled.to_string()));
    map.insert("health_module".into(), Value::String(account.health_module.to_string()));
    map
}

/// Reads the context back as the function receives it in `requestContext.authorizer`, where
/// API Gateway may have turned every value into a string.
pub fn read<'a>(get: impl Fn(&str) -> Option<&'a Value>) -> Option<AccountContext> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accounts::{AccountId, AccountStatus};
    use crate::auth::context::tests::context;

    #[test]
    fn the_authorizer_context_round_trips_even_as_strings() {
        let c = context(AccountStatus::Overdue, false, true);
        let map = of(&c);
        assert_eq!(read(|k| map.get(k)), Some(c));
        let raw = serde_json::json!({"account_id": 9, "account_status": "active", "kyc_approved": true, "pos_enabled": "false"});
        let parsed = read(|k| raw.get(k)).unwrap();
        assert_eq!(parsed.account_id, AccountId::new(9));
        assert!(parsed.kyc_approved && !parsed.pos_enabled);
        assert_eq!(read(|_| None), None);
    }
}
