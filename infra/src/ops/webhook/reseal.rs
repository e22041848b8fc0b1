//! The re-seal of webhook signing secrets after a master key rotation ([`WebhookOps::reseal`]):
//! what an older line of the key sealed is sealed again under the current one, receiver by
//! receiver, one account's or every account's (read by key, never by a scan).

use std::collections::HashMap;

use anyhow::Context as _;
use billing_api::store::item::{from_item, CounterValue};
use billing_api::store::{keys, Condition, Store, StoreError, Update, Write};
use billing_api::values::{AccountId, Timestamp, WebhookId};
use billing_api::webhooks::{receivers, Receiver, SecretBox};
use serde_json::{json, Value};

use super::receivers::WebhookOps;

/// What a re-seal found and did ([`WebhookOps::reseal`]).
#[derive(Debug, Default, PartialEq)]
pub struct ResealReport {
    /// Accounts whose receivers were read.
    pub accounts: usize,
    pub receivers: usize,
    /// Receivers with a secret rewritten under the current key.
    pub resealed: usize,
    /// Receivers whose secrets the current key already sealed.
    pub already_current: usize,
    /// Receivers removed while the re-seal ran.
    pub removed_meanwhile: usize,
    /// Secrets that open under none of the keys: `(account, receiver, field, why)`.
    pub unopened: Vec<(AccountId, WebhookId, &'static str, String)>,
}

impl ResealReport {
    fn view(&self, scope: &str, keys: usize) -> Value {
        let unopened: Vec<Value> = self
            .unopened
            .iter()
            .map(|(account, id, field, why)| json!({ "account_id": account, "webhook_id": id, "field": field, "error": why }))
            .collect();
        let notice = match self.unopened.is_empty() {
            true => format!(
                "Every signing secret of {scope} is sealed under the master key's first line; once every account \
                 is done (reseal without --account), the other lines can be dropped from the secret."
            ),
            false => "Some secrets open under none of the master key's lines: keep every line and find the key \
                      they were sealed with before dropping any (docs/runbook.md)."
                .to_owned(),
        };
        json!({
            "scope": scope,
            "master_key_lines": keys,
            "accounts": self.accounts,
            "receivers": self.receivers,
            "resealed": self.resealed,
            "already_current": self.already_current,
            "removed_meanwhile": self.removed_meanwhile,
            "unopened": unopened,
            "notice": notice,
        })
    }
}

/// How a receiver's sealed secrets change under the current key.
#[derive(Debug, Default)]
struct Reseal {
    /// `(old, new)` of `secret`.
    secret: Option<(String, String)>,
    /// `(old, new)` of `previous_secret`.
    previous: Option<(String, String)>,
    unopened: Vec<(&'static str, String)>,
}

/// The re-seal of one receiver: each sealed secret that an older key sealed, sealed again under
/// the current one. A previous secret that no longer signs (past `previous_secret_expires_at`)
/// is never opened again, so one that opens under no key is left alone.
fn plan_reseal(vault: &SecretBox, receiver: &Receiver, now: Timestamp) -> Reseal {
    let (account, id) = (receiver.account_id, receiver.id);
    let mut plan = Reseal::default();
    match vault.reseal(account, id, &receiver.secret) {
        Ok(Some(new)) => plan.secret = Some((receiver.secret.clone(), new)),
        Ok(None) => {}
        Err(error) => plan.unopened.push(("secret", format!("{error:#}"))),
    }
    if let Some(previous) = &receiver.previous_secret {
        let signs = receiver.previous_secret_expires_at.is_some_and(|until| now.0 < until.0);
        match vault.reseal(account, id, previous) {
            Ok(Some(new)) => plan.previous = Some((previous.clone(), new)),
            Ok(None) => {}
            Err(error) if signs => plan.unopened.push(("previous_secret", format!("{error:#}"))),
            Err(_) => {}
        }
    }
    plan
}

impl WebhookOps {
    /// Re-seals the signing secrets of one account's receivers, or of every account's (`None`),
    /// under the master key's current line: what an older line sealed is sealed again, what the
    /// current one sealed is left as it is, so running it again changes nothing. Every account's
    /// is read by key, never by a scan: the accounts' sequence gives their ids, one batch read
    /// per 100 accounts reads their receiver counters, and only accounts with receivers are
    /// queried (one short query each).
    pub async fn reseal(&self, account: Option<AccountId>) -> anyhow::Result<Value> {
        let now = Timestamp::now();
        let mut report = ResealReport::default();
        let (scope, accounts) = match account {
            Some(account) => {
                self.require_account(account).await?;
                (format!("account {account}"), vec![account])
            }
            None => ("every account".to_owned(), accounts_with_receivers(&self.store).await?),
        };
        for account in accounts {
            report.accounts += 1;
            for receiver in receivers::list(&self.store, account).await? {
                report.receivers += 1;
                self.reseal_receiver(receiver, now, &mut report).await?;
            }
        }
        Ok(report.view(&scope, self.vault.key_count()))
    }

    /// One receiver's re-seal, written only if its sealed secrets are still the ones read (an
    /// operator rotating it at the same moment wins; it is then read again and re-planned).
    async fn reseal_receiver(
        &self,
        mut receiver: Receiver,
        now: Timestamp,
        report: &mut ResealReport,
    ) -> anyhow::Result<()> {
        let (account, id) = (receiver.account_id, receiver.id);
        for _ in 0..5 {
            let plan = plan_reseal(&self.vault, &receiver, now);
            report.unopened.extend(plan.unopened.iter().map(|(field, why)| (account, id, *field, why.clone())));
            let mut update = Update::new();
            let mut expected: Option<Condition> = None;
            for (field, (old, new)) in [("secret", &plan.secret), ("previous_secret", &plan.previous)]
                .into_iter()
                .filter_map(|(field, change)| change.as_ref().map(|c| (field, c)))
            {
                update = update.set(field, new);
                let was = Condition::equals(field, old);
                expected = Some(match expected {
                    Some(before) => before.and(was),
                    None => was,
                });
            }
            let Some(condition) = expected else {
                if plan.unopened.is_empty() {
                    report.already_current += 1;
                }
                return Ok(());
            };
            let (pk, sk) = (keys::account(account), keys::webhook::webhook(id));
            match self.store.write(vec![Write::update(pk, sk, update, Some(condition))]).await {
                Ok(()) => {
                    report.resealed += 1;
                    return Ok(());
                }
                Err(StoreError::ConditionFailed(_)) => {
                    // Rotated or removed meanwhile: plan again on what is there now.
                    report.unopened.retain(|(a, r, _, _)| (*a, *r) != (account, id));
                    match receivers::find(&self.store, account, id).await? {
                        Some(found) => receiver = found,
                        None => {
                            report.removed_meanwhile += 1;
                            return Ok(());
                        }
                    }
                }
                Err(error) => {
                    return Err(error).with_context(|| format!("re-seal webhook receiver {id} of account {account}"))
                }
            }
        }
        anyhow::bail!(
            "webhook receiver {id} of account {account} kept changing while it was re-sealed: run reseal again"
        )
    }
}

/// The accounts that have webhook receivers, by key: every id of the accounts' sequence, their
/// receiver counters (`COUNT#WEBHOOKS`, kept in the transactions that add and remove receivers)
/// read in batches of 100, those above zero.
async fn accounts_with_receivers(store: &Store) -> anyhow::Result<Vec<AccountId>> {
    let last = store.counter(keys::GLOBAL_PK.to_owned(), keys::sequence("ACCOUNT")).await?;
    let counter = keys::counter::counter("WEBHOOKS");
    let ids: HashMap<String, AccountId> =
        (1..=last).map(AccountId::new).map(|account| (keys::account(account), account)).collect();
    let wanted: Vec<(String, String)> =
        (1..=last).map(|id| (keys::account(AccountId::new(id)), counter.clone())).collect();
    let mut found = Vec::new();
    for item in store.batch_get(&wanted).await? {
        let pk = item.get("pk").and_then(|v| v.as_s().ok()).cloned().unwrap_or_default();
        let count: CounterValue = from_item(item)?;
        if let Some(account) = ids.get(&pk).filter(|_| count.value > 0) {
            found.push(*account);
        }
    }
    found.sort_by_key(|account| i64::from(*account));
    Ok(found)
}

#[cfg(test)]
mod tests {
    use billing_api::webhooks::SigningSecret;
    use chrono::Duration;

    use super::*;

    fn receiver(vault: &SecretBox, previous: Option<(&SecretBox, Duration)>) -> Receiver {
        let (account, id) = (AccountId::new(4), WebhookId::new(2));
        let now = Timestamp::now();
        Receiver {
            id,
            account_id: account,
            url: "https://example.com/hook".into(),
            secret: vault.seal(account, id, &SigningSecret::generate()),
            previous_secret: previous.map(|(old, _)| old.seal(account, id, &SigningSecret::generate())),
            previous_secret_expires_at: previous.map(|(_, left)| Timestamp(now.0 + left)),
            enabled: true,
            event_types: None,
            disabled_reason: None,
            disabled_at: None,
            failing_since: None,
            created_at: now,
            updated_at: now,
        }
    }

    #[test]
    fn a_reseal_rewrites_what_an_old_key_sealed_and_only_that() {
        let (old, rotated, current) =
            (SecretBox::from_master("old"), SecretBox::from_master("new\nold"), SecretBox::from_master("new"));
        let now = Timestamp::now();

        // Sealed under the old key, with a previous secret still signing: both are re-sealed.
        let before = receiver(&old, Some((&old, Duration::hours(3))));
        let plan = plan_reseal(&rotated, &before, now);
        assert!(plan.unopened.is_empty());
        let (was, new) = plan.secret.expect("the secret is re-sealed");
        assert_eq!(was, before.secret);
        let (account, id) = (before.account_id, before.id);
        assert_eq!(current.open(account, id, &new).unwrap(), old.open(account, id, &before.secret).unwrap());
        let (_, new_previous) = plan.previous.expect("the previous secret is re-sealed");
        assert_eq!(
            current.open(account, id, &new_previous).unwrap(),
            old.open(account, id, before.previous_secret.as_ref().unwrap()).unwrap()
        );

        // Applied, a second plan has nothing to do.
        let after = Receiver { secret: new, previous_secret: Some(new_previous), ..before };
        let again = plan_reseal(&rotated, &after, now);
        assert!(again.secret.is_none() && again.previous.is_none() && again.unopened.is_empty());
    }

    #[test]
    fn secrets_under_no_key_are_reported_unless_they_no_longer_sign() {
        let (stranger, rotated) = (SecretBox::from_master("unknown"), SecretBox::from_master("new\nold"));
        let now = Timestamp::now();
        let lost = receiver(&stranger, Some((&stranger, Duration::hours(3))));
        let found = plan_reseal(&rotated, &lost, now);
        let fields: Vec<_> = found.unopened.iter().map(|(field, _)| *field).collect();
        assert_eq!(fields, ["secret", "previous_secret"]);
        assert!(found.secret.is_none() && found.previous.is_none());
        // A previous secret past its 24 hours is never opened again: nothing to report.
        let expired = receiver(&rotated, Some((&stranger, Duration::hours(-1))));
        let found = plan_reseal(&rotated, &expired, now);
        assert!(found.unopened.is_empty() && found.secret.is_none() && found.previous.is_none());
    }

    #[test]
    fn the_report_counts_and_says_whether_old_keys_may_go() {
        let mut report =
            ResealReport { accounts: 2, receivers: 3, resealed: 2, already_current: 1, ..Default::default() };
        let view = report.view("every account", 2);
        assert_eq!((view["resealed"].as_u64(), view["already_current"].as_u64()), (Some(2), Some(1)));
        assert!(view["notice"].as_str().unwrap().contains("can be dropped"));
        report.unopened.push((AccountId::new(1), WebhookId::new(1), "secret", "no key".into()));
        let view = report.view("every account", 2);
        assert_eq!(view["unopened"][0]["field"], "secret");
        assert!(view["notice"].as_str().unwrap().contains("keep every line"));
    }
}
