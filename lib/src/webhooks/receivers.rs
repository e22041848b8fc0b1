//! Webhook receivers: up to three URLs per account, registered by operators (§6: "registered
//! elsewhere"), each with its own signing secret, sealed at rest ([`super::secrets`]).
//!
//! Item: `pk = A#<account>`, `sk = WEBHOOK#<id>`; the account's count of receivers is the counter
//! `COUNT#WEBHOOKS`, raised in the transaction that adds one only while it stays at most three, so
//! two operators adding at once cannot make a fourth. Removing deletes the item (its deliveries
//! still pending then fail, "receiver removed"). Rotating keeps the old secret signing beside the
//! new one for 24 hours (a second rotation within them drops the oldest). A receiver whose
//! deliveries have failed for three days in a row is disabled (`disabled_reason` says so) until
//! an operator enables it again. Changes are update expressions on the fields they touch, so the
//! sender marking a failure and an operator rotating the secret never overwrite each other.

use chrono::Duration;
use serde::{Deserialize, Serialize};

use super::client::{check_url, Policy, UrlProblem};
use super::secrets::{SecretBox, SigningSecret};
use crate::events::{self, Event};
use crate::refusal::{Problem, Refusal};
use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, Condition, Store, StoreError, StoreResult, Update, Write};
use crate::values::{AccountId, Timestamp, WebhookId};

pub const MAX_RECEIVERS: i64 = 3;
/// How long a rotated secret keeps signing.
const ROTATION_OVERLAP: Duration = Duration::hours(24);
/// A receiver failing for this long without a success is disabled.
const DISABLE_AFTER: Duration = Duration::hours(72);
const COUNTER: &str = "WEBHOOKS";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Receiver {
    pub id: WebhookId,
    pub account_id: AccountId,
    pub url: String,
    /// The signing secret, sealed.
    pub secret: String,
    /// The secret before the last rotation, sealed, while it still signs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_secret: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_secret_expires_at: Option<Timestamp>,
    pub enabled: bool,
    /// The types of event it receives (of [`events::TYPES`]); none stored: every type, also
    /// those added later (receivers stored before it existed receive everything).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event_types: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disabled_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disabled_at: Option<Timestamp>,
    /// The first failure since its last success.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failing_since: Option<Timestamp>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl Stored for Receiver {
    const KIND: Option<&'static str> = Some("webhook");
    type Scope<'a> = ();

    fn key(&self, (): ()) -> Key {
        Receiver::keys(self.account_id, self.id)
    }
}

/// Why an operation on receivers was refused (the CLI prints it and exits non-zero).
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    #[error("invalid receiver URL: {0}")]
    Url(UrlProblem),
    #[error("unknown event types: {}", .0.join(", "))]
    EventTypes(Vec<String>),
    #[error("the account already has {MAX_RECEIVERS} webhook receivers (the most allowed); remove one first")]
    TooMany,
    #[error("the account has no webhook receiver {0}")]
    NotFound(WebhookId),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The API's words for a refusal (§7): a bad URL or event type is a 422 naming it, the fourth
/// receiver a 422 with the code `webhook_limit_reached`, a missing one a 404.
impl From<Refused> for Refusal {
    fn from(refused: Refused) -> Self {
        match refused {
            Refused::Url(problem) => Refusal::invalid(Problem::invalid("url", problem.portuguese())),
            Refused::EventTypes(unknown) => Refusal::invalid(Problem::invalid(
                "event_types",
                format!(
                    "event_types contém tipos desconhecidos: {} (aceitos: {})",
                    unknown.join(", "),
                    events::TYPES.join(", ")
                ),
            )),
            Refused::TooMany => Refusal::Rule {
                code: "webhook_limit_reached",
                message: format!(
                    "A conta já tem {MAX_RECEIVERS} webhooks, o máximo permitido; remova um antes de cadastrar outro"
                ),
            },
            Refused::NotFound(_) => Refusal::NotFound,
            Refused::Store(error) => error.into(),
        }
    }
}

/// The event types a receiver is to receive: each one of [`events::TYPES`] (repeats dropped, in
/// the order of `TYPES`), at least one; the unknown ones refuse the list.
pub fn event_types(asked: &[String]) -> Result<Vec<String>, Refused> {
    let unknown: Vec<String> = asked.iter().filter(|kind| !events::TYPES.contains(&kind.as_str())).cloned().collect();
    if !unknown.is_empty() || asked.is_empty() {
        return Err(Refused::EventTypes(unknown));
    }
    Ok(events::TYPES.iter().filter(|kind| asked.iter().any(|a| a == *kind)).map(|kind| (*kind).to_owned()).collect())
}

impl Receiver {
    /// Whether `event` goes to this receiver: a `ping` only to the receiver it names; any other
    /// event to an enabled receiver that existed when it happened and takes its type.
    pub fn takes(&self, event: &Event) -> bool {
        if let Some(only) = event.receiver_id {
            return only == self.id;
        }
        self.enabled
            && self.created_at.0 <= event.created_at.0
            && events::goes_to(self.event_types.as_deref(), &event.event_type)
    }

    /// The types it receives: those chosen, or every one but those it must ask for.
    pub fn event_types(&self) -> Vec<String> {
        self.event_types.clone().unwrap_or_else(events::unasked_types)
    }

    fn keys(account: AccountId, id: WebhookId) -> (String, String) {
        (keys::account(account), keys::webhook::webhook(id))
    }

    /// The secrets that sign a delivery made `at`: the current one, and the previous one while it
    /// still signs.
    pub fn signing_secrets(&self, vault: &SecretBox, at: Timestamp) -> anyhow::Result<Vec<SigningSecret>> {
        let mut secrets = vec![vault.open(self.account_id, self.id, &self.secret)?];
        if let (Some(previous), Some(until)) = (&self.previous_secret, self.previous_secret_expires_at) {
            if at.0 < until.0 {
                secrets.push(vault.open(self.account_id, self.id, previous)?);
            }
        }
        Ok(secrets)
    }
}

/// What a new receiver is: where, which types of event (none: all), enabled or not.
#[derive(Clone, Debug, Default)]
pub struct Registration {
    pub url: String,
    pub event_types: Option<Vec<String>>,
    pub disabled: bool,
}

/// Registers a receiver with a new secret (returned once more in plain). At most
/// [`MAX_RECEIVERS`] per account.
pub async fn register(
    store: &Store,
    vault: &SecretBox,
    account: AccountId,
    registration: &Registration,
    policy: Policy,
) -> Result<(Receiver, SigningSecret), Refused> {
    let url = check_url(registration.url.trim(), policy).map_err(Refused::Url)?;
    let event_types = registration.event_types.as_deref().map(event_types).transpose()?;
    let id = WebhookId::new(store.next_id(keys::account(account), keys::sequence("WEBHOOK")).await?);
    let secret = SigningSecret::generate();
    let now = Timestamp::now();
    let receiver = Receiver {
        id,
        account_id: account,
        url: url.to_string(),
        secret: vault.seal(account, id, &secret),
        previous_secret: None,
        previous_secret_expires_at: None,
        enabled: !registration.disabled,
        event_types,
        disabled_reason: None,
        disabled_at: registration.disabled.then_some(now),
        failing_since: None,
        created_at: now,
        updated_at: now,
    };
    let count = Write::add_up_to(
        keys::account(account),
        keys::counter::counter(COUNTER),
        keys::counter::COUNT_ATTRIBUTE,
        1,
        MAX_RECEIVERS,
    );
    match store.write(vec![stored::insert(&receiver, ())?, count]).await {
        Ok(()) => Ok((receiver, secret)),
        Err(error) if error.failed_at(1) => Err(Refused::TooMany),
        Err(error) => Err(error.into()),
    }
}

/// What an account changes of a receiver (`PATCH`); `None` keeps the current value.
#[derive(Clone, Debug, Default)]
pub struct Changes {
    pub url: Option<String>,
    pub enabled: Option<bool>,
    /// `Some(None)`: every type again.
    pub event_types: Option<Option<Vec<String>>>,
}

/// Changes the URL, the event types and whether it is enabled, in one update of those fields.
/// Enabling clears what a disable left (its reason, the failure streak); disabling through the
/// API leaves no reason (the reason says why the service disabled one). Nothing to change
/// writes nothing.
pub async fn change(
    store: &Store,
    account: AccountId,
    id: WebhookId,
    changes: &Changes,
    policy: Policy,
) -> Result<Receiver, Refused> {
    let current = found(store, account, id).await?;
    let url = changes.url.as_deref().map(|url| check_url(url.trim(), policy).map_err(Refused::Url)).transpose()?;
    let types = match &changes.event_types {
        Some(Some(asked)) => Some(Some(event_types(asked)?)),
        other => other.clone(),
    };
    let now = Timestamp::now();
    let mut update = Update::new();
    let mut changed = false;
    if let Some(url) = url.map(|u| u.to_string()).filter(|u| *u != current.url) {
        update = update.set("url", &url);
        changed = true;
    }
    if let Some(types) = types.filter(|t| *t != current.event_types) {
        update = match types {
            Some(types) => update.set("event_types", &types),
            None => update.remove("event_types"),
        };
        changed = true;
    }
    match changes.enabled {
        Some(true) if !current.enabled => {
            update =
                update.set("enabled", &true).remove("disabled_reason").remove("disabled_at").remove("failing_since");
            changed = true;
        }
        Some(false) if current.enabled => {
            update = update.set("enabled", &false).set("disabled_at", &now).remove("disabled_reason");
            changed = true;
        }
        _ => {}
    }
    if !changed {
        return Ok(current);
    }
    update = update.set("updated_at", &now);
    self::update(store, account, id, update, None).await?;
    found(store, account, id).await
}

/// The account's receivers, by id (at most three: one short query).
pub async fn list(store: &Store, account: AccountId) -> StoreResult<Vec<Receiver>> {
    stored::with_prefix(store, keys::account(account), keys::webhook::WEBHOOK_PREFIX.to_owned(), true).await
}

pub async fn find(store: &Store, account: AccountId, id: WebhookId) -> StoreResult<Option<Receiver>> {
    stored::find(store, Receiver::keys(account, id)).await
}

async fn found(store: &Store, account: AccountId, id: WebhookId) -> Result<Receiver, Refused> {
    find(store, account, id).await?.ok_or(Refused::NotFound(id))
}

/// Deletes the receiver and gives its place back.
pub async fn remove(store: &Store, account: AccountId, id: WebhookId) -> Result<Receiver, Refused> {
    let receiver = found(store, account, id).await?;
    let (pk, sk) = Receiver::keys(account, id);
    let count = Write::add(keys::account(account), keys::counter::counter(COUNTER), keys::counter::COUNT_ATTRIBUTE, -1);
    match store.write(vec![Write::delete_if(pk, sk, Condition::present()), count]).await {
        Ok(()) => Ok(receiver),
        Err(error) if error.failed_at(0) => Err(Refused::NotFound(id)),
        Err(error) => Err(error.into()),
    }
}

/// An update of some fields of the receiver, which must still exist (and, with `expected`, still
/// satisfy that condition).
async fn update(
    store: &Store,
    account: AccountId,
    id: WebhookId,
    update: Update,
    expected: Option<Condition>,
) -> Result<(), Refused> {
    let (pk, sk) = Receiver::keys(account, id);
    let condition = match expected {
        Some(expected) => Condition::present().and(expected),
        None => Condition::present(),
    };
    match store.write(vec![Write::update(pk, sk, update, Some(condition))]).await {
        Ok(()) => Ok(()),
        Err(StoreError::ConditionFailed(_)) => Err(Refused::NotFound(id)),
        Err(error) => Err(error.into()),
    }
}

/// A new secret; the current one keeps signing for [`ROTATION_OVERLAP`].
pub async fn rotate_secret(
    store: &Store,
    vault: &SecretBox,
    account: AccountId,
    id: WebhookId,
) -> Result<(Receiver, SigningSecret), Refused> {
    let current = found(store, account, id).await?;
    let secret = SigningSecret::generate();
    let until = Timestamp(Timestamp::now().0 + ROTATION_OVERLAP);
    let change = Update::new()
        .set("secret", &vault.seal(account, id, &secret))
        .set("previous_secret", &current.secret)
        .set("previous_secret_expires_at", &until)
        .set("updated_at", &Timestamp::now());
    // On the secret read: a rotation at the same moment makes this one fail instead of losing one.
    let expected = Condition::equals("secret", &current.secret);
    update(store, account, id, change, Some(expected)).await?;
    Ok((found(store, account, id).await?, secret))
}

/// The change that disables a receiver for `reason`.
fn disabled(reason: &str, now: Timestamp) -> Update {
    Update::new().set("enabled", &false).set("disabled_reason", reason).set("disabled_at", &now).set("updated_at", &now)
}

/// Enables (clearing the failure streak) or disables the receiver.
pub async fn set_enabled(
    store: &Store,
    account: AccountId,
    id: WebhookId,
    enabled: bool,
    reason: &str,
) -> Result<Receiver, Refused> {
    let now = Timestamp::now();
    let change = if enabled {
        Update::new()
            .set("enabled", &true)
            .set("updated_at", &now)
            .remove("disabled_reason")
            .remove("disabled_at")
            .remove("failing_since")
    } else {
        disabled(reason, now)
    };
    update(store, account, id, change, None).await?;
    found(store, account, id).await
}

/// Records a failed attempt: starts the failure streak, and disables the receiver when the streak
/// has lasted [`DISABLE_AFTER`]. Writes only when something changes.
pub async fn record_failure(store: &Store, receiver: &Receiver, at: Timestamp) -> Result<(), Refused> {
    let (account, id) = (receiver.account_id, receiver.id);
    match receiver.failing_since {
        None => {
            let change = Update::new().set_if_missing("failing_since", &at);
            update(store, account, id, change, None).await
        }
        Some(since) if receiver.enabled && at.0 - since.0 >= DISABLE_AFTER => {
            let reason = format!("deliveries failing since {since} (three days without a success)");
            let change = disabled(&reason, Timestamp::now());
            // Only if no success ended the streak meanwhile.
            let expected = Condition::equals("failing_since", &since);
            match update(store, account, id, change, Some(expected)).await {
                Err(Refused::NotFound(_)) => Ok(()),
                other => other,
            }
        }
        Some(_) => Ok(()),
    }
}

/// Records a successful delivery: ends the failure streak, when there is one.
pub async fn record_success(store: &Store, receiver: &Receiver) -> Result<(), Refused> {
    if receiver.failing_since.is_none() {
        return Ok(());
    }
    let change = Update::new().remove("failing_since");
    match update(store, receiver.account_id, receiver.id, change, None).await {
        Err(Refused::NotFound(_)) => Ok(()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn receiver(types: Option<&[&str]>) -> Receiver {
        let now = Timestamp(Timestamp::now().0 - Duration::seconds(5));
        Receiver {
            id: WebhookId::new(2),
            account_id: AccountId::new(9),
            url: "https://hooks.example.com/h".into(),
            secret: "sealed".into(),
            previous_secret: None,
            previous_secret_expires_at: None,
            enabled: true,
            event_types: types.map(|t| t.iter().map(|s| (*s).to_owned()).collect()),
            disabled_reason: None,
            disabled_at: None,
            failing_since: None,
            created_at: now,
            updated_at: now,
        }
    }

    #[test]
    fn a_receiver_takes_the_types_it_chose_and_pings_meant_for_it() {
        let account = AccountId::new(9);
        let billing = Event::new(account, events::BILLING_UPDATED, json!({}));
        let sale = Event::new(account, events::SALE_UPDATED, json!({}));
        let all = receiver(None);
        assert!(all.takes(&billing) && all.takes(&sale), "no choice stored: every type");
        let sales_only = receiver(Some(&[events::SALE_UPDATED]));
        assert!(!sales_only.takes(&billing) && sales_only.takes(&sale));
        // A ping goes to the receiver it names only, whatever its types.
        let ping = Event::ping(account, WebhookId::new(2), "https://hooks.example.com/h");
        assert!(sales_only.takes(&ping));
        assert!(!Receiver { id: WebhookId::new(3), ..receiver(None) }.takes(&ping));
        // Disabled, or made after the event: nothing.
        assert!(!Receiver { enabled: false, ..receiver(None) }.takes(&billing));
        let later = Receiver { created_at: Timestamp(billing.created_at.0 + Duration::seconds(1)), ..receiver(None) };
        assert!(!later.takes(&billing));
        assert_eq!(all.event_types(), events::TYPES[..4].to_vec());
        // The ledger's own events go only where they are asked for.
        let applied = Event::new(account, events::PAYMENT_APPLIED, json!({}));
        assert!(!all.takes(&applied));
        assert!(receiver(Some(&[events::PAYMENT_APPLIED])).takes(&applied));
    }

    #[test]
    fn event_types_are_known_types_in_a_fixed_order() {
        let asked = |types: &[&str]| event_types(&types.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>());
        assert_eq!(
            asked(&["store_credit.created", "billing.updated", "billing.updated"]).unwrap(),
            ["billing.updated", "store_credit.created"]
        );
        match asked(&["billing.updated", "billing.deleted", "ping"]) {
            Err(Refused::EventTypes(unknown)) => assert_eq!(unknown, ["billing.deleted", "ping"]),
            other => panic!("{other:?}"),
        }
        assert!(asked(&[]).is_err());
        let said = Refusal::from(Refused::EventTypes(vec!["x".into()]));
        assert!(
            matches!(&said, Refusal::Invalid(m) if m[0].message.contains("desconhecidos: x") && m[0].field.as_deref() == Some("event_types")),
            "{said:?}"
        );
        assert!(matches!(Refusal::from(Refused::TooMany), Refusal::Rule { code: "webhook_limit_reached", .. }));
    }

    #[test]
    fn receivers_stored_before_event_types_receive_everything() {
        let mut item = crate::store::stored::item_of(&receiver(Some(&[events::SALE_UPDATED])), ()).unwrap();
        item.remove("event_types");
        let read: Receiver = crate::store::stored::read(item).unwrap();
        assert_eq!(read.event_types, None);
        assert!(read.takes(&Event::new(AccountId::new(9), events::BILLING_UPDATED, json!({}))));
    }
}
