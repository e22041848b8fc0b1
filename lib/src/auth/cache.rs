//! The local authorizer's cache: valid lookups are kept 15 minutes (as API Gateway's authorizer
//! result TTL), keyed by token digest; revocation and account changes flush it all, as
//! `FlushStageAuthorizersCache` does on AWS.
//!
//! A lookup that read the token before a flush and finishes after it would write the old answer
//! back ("valid", of a token revoked meanwhile) for another 15 minutes. So every flush starts a new
//! generation, a lookup notes the generation it started in ([`AuthCache::generation`]), and its
//! answer is kept only if no flush came in between ([`AuthCache::put`]). (On AWS, where API
//! Gateway owns the cache, the ops CLI flushes twice instead: `infra::cache_flush`.)

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::AccountContext;

pub const TTL: Duration = Duration::from_secs(15 * 60);

#[derive(Clone, Debug)]
pub struct AuthCache {
    entries: Arc<Mutex<Entries>>,
    ttl: Duration,
}

#[derive(Debug, Default)]
struct Entries {
    by_digest: HashMap<String, (AccountContext, Instant)>,
    /// Flushes so far.
    generation: u64,
}

impl Default for AuthCache {
    fn default() -> Self {
        AuthCache::with_ttl(TTL)
    }
}

impl AuthCache {
    fn with_ttl(ttl: Duration) -> Self {
        AuthCache { entries: Arc::default(), ttl }
    }

    pub fn get(&self, digest: &str) -> Option<AccountContext> {
        let mut entries = self.entries.lock().expect("cache lock");
        match entries.by_digest.get(digest) {
            Some((context, stored)) if stored.elapsed() < self.ttl => Some(context.clone()),
            Some(_) => {
                entries.by_digest.remove(digest);
                None
            }
            None => None,
        }
    }

    /// The generation a lookup starts in: read it before reading the token.
    pub fn generation(&self) -> u64 {
        self.entries.lock().expect("cache lock").generation
    }

    /// Keeps a lookup's answer, unless the cache was flushed since `generation` (the lookup may
    /// have read what the flush was for). Whether it was kept.
    pub fn put(&self, digest: String, context: AccountContext, generation: u64) -> bool {
        let mut entries = self.entries.lock().expect("cache lock");
        let current = entries.generation == generation;
        if current {
            entries.by_digest.insert(digest, (context, Instant::now()));
        }
        current
    }

    pub fn flush(&self) {
        let mut entries = self.entries.lock().expect("cache lock");
        entries.by_digest.clear();
        entries.generation += 1;
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
        assert!(cache.put("d".into(), context(), cache.generation()));
        assert_eq!(cache.get("d"), Some(context()));
        cache.flush();
        assert_eq!(cache.get("d"), None);

        let expired = AuthCache::with_ttl(Duration::ZERO);
        expired.put("d".into(), context(), expired.generation());
        assert_eq!(expired.get("d"), None);
    }

    #[test]
    fn a_lookup_that_started_before_a_flush_is_not_kept() {
        let cache = AuthCache::default();
        let started = cache.generation();
        // The token was read as valid; then it was revoked and the cache flushed.
        cache.flush();
        assert!(!cache.put("d".into(), context(), started));
        assert_eq!(cache.get("d"), None);
        assert!(cache.put("d".into(), context(), cache.generation()));
    }
}
