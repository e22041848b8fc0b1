//! The local authorizer's cache: valid lookups are kept 15 minutes (as API Gateway's authorizer
//! result TTL), keyed by token digest; revocation and account changes flush it all, as
//! `FlushStageAuthorizersCache` does on AWS.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::AccountContext;

pub const TTL: Duration = Duration::from_secs(15 * 60);

#[derive(Clone, Debug)]
pub struct AuthCache {
    entries: Arc<Mutex<HashMap<String, (AccountContext, Instant)>>>,
    ttl: Duration,
}

impl Default for AuthCache {
    fn default() -> Self {
        AuthCache::with_ttl(TTL)
    }
}

impl AuthCache {
    pub fn with_ttl(ttl: Duration) -> Self {
        AuthCache { entries: Arc::default(), ttl }
    }

    pub fn get(&self, digest: &str) -> Option<AccountContext> {
        let mut entries = self.entries.lock().expect("cache lock");
        match entries.get(digest) {
            Some((context, stored)) if stored.elapsed() < self.ttl => Some(context.clone()),
            Some(_) => {
                entries.remove(digest);
                None
            }
            None => None,
        }
    }

    pub fn put(&self, digest: String, context: AccountContext) {
        self.entries.lock().expect("cache lock").insert(digest, (context, Instant::now()));
    }

    pub fn flush(&self) {
        self.entries.lock().expect("cache lock").clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accounts::AccountStatus;

    fn context() -> AccountContext {
        AccountContext {
            account_id: crate::values::AccountId::new(1),
            status: AccountStatus::Active,
            kyc_approved: true,
            pos_enabled: false,
            health_module: false,
        }
    }

    #[test]
    fn entries_expire_and_flush() {
        let cache = AuthCache::default();
        cache.put("d".into(), context());
        assert_eq!(cache.get("d"), Some(context()));
        cache.flush();
        assert_eq!(cache.get("d"), None);

        let expired = AuthCache::with_ttl(Duration::ZERO);
        expired.put("d".into(), context());
        assert_eq!(expired.get("d"), None);
    }
}
