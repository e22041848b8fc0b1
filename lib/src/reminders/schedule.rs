//! An account's reminder schedule ("régua de cobrança"): steps of days around the due date, each
//! with its channels, on or off for the account; what ops sets beside it (the e-mail sender, the
//! WhatsApp number); and the steps every schedule uses, which the daily run reads to know which
//! due days to look at.
//!
//! An account that never changed its schedule has [`DEFAULT_STEPS`], on: an e-mail three days
//! before the due date, an e-mail and a WhatsApp message on the day, and both three days after.
//! The default is never stored; a change stores the whole schedule (`A#<acct>`, `REMINDERS`) and
//! moves the count of each step it adds or drops in the same transaction (`keys::reminder::reminder_step`).

use std::collections::{BTreeSet, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::http::fields::{elements, integer_in};
use crate::http::Fields;
use crate::refusal::{Problem, Refusal};
use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, Condition, Store, StoreResult, Write};
use crate::values::{AccountId, Timestamp};

/// How a reminder reaches its payer (a value the billing's deliveries keep too).
pub use crate::values::ReminderChannel as Channel;

/// One step: `days` from the due date (negative before it), through `channels`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    pub days: i64,
    pub channels: Vec<Channel>,
}

/// The steps of an account that never changed them.
pub const DEFAULT_STEPS: [(i64, &[Channel]); 3] =
    [(-3, &[Channel::Email]), (0, &[Channel::Email, Channel::Whatsapp]), (3, &[Channel::Email, Channel::Whatsapp])];

/// The days a step may be from the due date: a month before to two months after.
pub const DAYS: std::ops::RangeInclusive<i64> = -30..=60;
/// Steps a schedule may have.
pub const MAX_STEPS: usize = 10;

/// The name of the WhatsApp message template a schedule sends when ops named none (it must be
/// approved by Meta for the account's WhatsApp Business account: docs/runbook.md, "Reminders").
pub const DEFAULT_WHATSAPP_TEMPLATE: &str = "lembrete_cobranca";

/// An account's schedule, stored or the default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Schedule {
    pub account_id: AccountId,
    pub enabled: bool,
    pub steps: Vec<Step>,
    /// The account's sender identity (an address SES verified), set by ops; absent: the service's
    /// (`REMINDER_EMAIL_SENDER`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email_sender: Option<String>,
    /// The account's WhatsApp number in AWS End User Messaging Social (`phone-number-id-…`), set
    /// by ops; absent: no WhatsApp reminders.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub whatsapp_phone_number_id: Option<String>,
    /// The approved WhatsApp template to send; absent: [`DEFAULT_WHATSAPP_TEMPLATE`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub whatsapp_template: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<Timestamp>,
    /// 0: the default, never stored.
    #[serde(default)]
    pub version: i64,
}

impl Stored for Schedule {
    const KIND: Option<&'static str> = Some("reminder_schedule");
    type Scope<'a> = ();

    fn key(&self, (): ()) -> Key {
        keys::reminder::reminder_schedule(self.account_id)
    }
}

impl Schedule {
    /// The schedule of an account that never changed it.
    pub fn default_for(account_id: AccountId) -> Schedule {
        let steps = DEFAULT_STEPS.iter().map(|(days, channels)| Step { days: *days, channels: channels.to_vec() });
        Schedule {
            account_id,
            enabled: true,
            steps: steps.collect(),
            email_sender: None,
            whatsapp_phone_number_id: None,
            whatsapp_template: None,
            updated_at: None,
            version: 0,
        }
    }

    pub fn is_default(&self) -> bool {
        self.version == 0
    }

    /// Whether the account can send through `channel` at all: e-mail always (the service's sender
    /// when the account has none), WhatsApp once ops gave its number.
    pub fn can_send(&self, channel: Channel) -> bool {
        match channel {
            Channel::Email => true,
            Channel::Whatsapp => self.whatsapp_phone_number_id.is_some(),
        }
    }

    /// The channels the schedule sends through `days` from the due date: none when it is off or
    /// has no such step; a channel the account cannot send through is left out (the schedule's
    /// answer says so: `whatsapp_configured`), not logged on every billing.
    pub fn channels_on(&self, days: i64) -> Vec<Channel> {
        if !self.enabled {
            return Vec::new();
        }
        let step = self.steps.iter().find(|step| step.days == days);
        step.map(|step| step.channels.iter().copied().filter(|c| self.can_send(*c)).collect()).unwrap_or_default()
    }

    fn days(&self) -> BTreeSet<i64> {
        self.steps.iter().map(|step| step.days).collect()
    }
}

/// An account's schedule: the stored one, or the default.
pub async fn of(store: &Store, account: AccountId) -> StoreResult<Schedule> {
    let found: Option<Schedule> = stored::find(store, keys::reminder::reminder_schedule(account)).await?;
    Ok(found.unwrap_or_else(|| Schedule::default_for(account)))
}

/// The schedules of these accounts (one batch read per hundred), the default for those that never
/// changed theirs.
pub async fn of_many(store: &Store, accounts: &[AccountId]) -> StoreResult<HashMap<AccountId, Schedule>> {
    let keys: Vec<Key> = accounts.iter().map(|a| keys::reminder::reminder_schedule(*a)).collect();
    let found: Vec<Schedule> = stored::find_many(store, &keys).await?;
    let mut schedules: HashMap<AccountId, Schedule> = found.into_iter().map(|s| (s.account_id, s)).collect();
    for account in accounts {
        schedules.entry(*account).or_insert_with(|| Schedule::default_for(*account));
    }
    Ok(schedules)
}

/// The days from the due date that some schedule has a step on: the default's, and every stored
/// schedule's (the counts of [`keys::reminder::REMINDER_STEPS`], one small partition).
pub async fn days_in_use(store: &Store) -> StoreResult<BTreeSet<i64>> {
    let mut days: BTreeSet<i64> = DEFAULT_STEPS.iter().map(|(days, _)| *days).collect();
    // A step is a day from -30 to +60: the partition holds at most 91 items.
    let range =
        crate::store::KeyRange::listing(keys::reminder::REMINDER_STEPS.to_owned(), crate::store::Sort::All, true);
    let items = store.page(&range, 1_000, None).await?.items;
    #[derive(Deserialize)]
    struct Count {
        #[serde(default)]
        value: i64,
    }
    for item in items {
        let (_, sk) = crate::store::KeyItem::keys_of(&item);
        let count: Count = crate::store::item::from_item(item)?;
        if let Some(step) = keys::reminder::read_reminder_step(&sk).filter(|_| count.value > 0) {
            days.insert(step);
        }
    }
    Ok(days)
}

/// What a `PUT /v1/reminder_schedule` asks for: what it names, validated.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Change {
    pub enabled: Option<bool>,
    pub steps: Option<Vec<Step>>,
}

impl Change {
    /// The change in a `reminder_schedule` envelope: `enabled` (boolean) and `steps` (a list of
    /// `{days, channels}`), each optional; every problem at once.
    pub fn parse(fields: &Fields<'_>) -> Result<Change, Refusal> {
        let mut errors = Vec::new();
        let enabled = fields.boolean("enabled", "Ativo", &mut errors).map(|v| v.unwrap_or(true));
        let steps = match fields.raw("steps") {
            None => None,
            // A list, or a form's object of index → step (`steps[0][days]=-3`).
            Some(list @ (Value::Array(_) | Value::Object(_))) => Some(steps(&elements(list), &mut errors)),
            Some(_) => {
                errors.push(Problem::invalid("steps", "Etapas devem ser uma lista de {days, channels}"));
                None
            }
        };
        if errors.is_empty() {
            Ok(Change { enabled, steps })
        } else {
            Err(Refusal::Invalid(errors))
        }
    }
}

/// The steps of a list, sorted by day; a problem for each element that breaks a rule.
fn steps(list: &[&Value], errors: &mut Vec<Problem>) -> Vec<Step> {
    if list.len() > MAX_STEPS {
        errors.push(Problem::too_long("steps", format!("Etapas: no máximo {MAX_STEPS}")));
        return Vec::new();
    }
    let mut steps: Vec<Step> = Vec::new();
    for (n, element) in list.iter().enumerate() {
        let at = |field: &str| format!("steps[{n}].{field}");
        let Some(object) = element.as_object() else {
            errors.push(Problem::invalid(format!("steps[{n}]"), "Cada etapa é um objeto {days, channels}"));
            continue;
        };
        // A number, or a form's text of one.
        let days = integer_in(object.get("days")).given();
        let days = match days {
            Some(days) if DAYS.contains(&days) => Some(days),
            Some(_) => {
                let message = format!("Dias: de {} a {} em relação ao vencimento", DAYS.start(), DAYS.end());
                errors.push(Problem::out_of_range(at("days"), message));
                None
            }
            None => {
                errors.push(Problem::invalid(at("days"), "Dias: um número inteiro (negativo antes do vencimento)"));
                None
            }
        };
        let names = object.get("channels").map(elements).unwrap_or_default();
        let channels = match names {
            names if !names.is_empty() => {
                let parsed: Option<BTreeSet<Channel>> =
                    names.iter().map(|name| name.as_str().and_then(Channel::parse)).collect();
                match parsed {
                    Some(set) if set.len() == names.len() => Some(set.into_iter().collect::<Vec<_>>()),
                    _ => {
                        let message = "Canais: uma lista sem repetição de \"email\" e \"whatsapp\"";
                        errors.push(Problem::invalid(at("channels"), message));
                        None
                    }
                }
            }
            _ => {
                errors.push(Problem::blank(at("channels"), "Canais: ao menos um de \"email\" e \"whatsapp\""));
                None
            }
        };
        let (Some(days), Some(channels)) = (days, channels) else { continue };
        if steps.iter().any(|step| step.days == days) {
            errors.push(Problem::taken(at("days"), format!("Já há uma etapa no dia {days}")));
            continue;
        }
        steps.push(Step { days, channels });
    }
    steps.sort_by_key(|step| step.days);
    steps
}

/// Applies `change` to the account's schedule and stores it, moving the count of every step it
/// adds or drops in the same transaction; a concurrent change makes it read again.
pub async fn save(store: &Store, account: AccountId, change: &Change) -> Result<Schedule, Refusal> {
    changed(store, account, |current| Schedule {
        enabled: change.enabled.unwrap_or(current.enabled),
        steps: change.steps.clone().unwrap_or_else(|| current.steps.clone()),
        ..current.clone()
    })
    .await
}

/// The account's schedule as `next` makes it of the current one, stored on the current one's
/// version (new, when it was the default) with the counts of the steps it adds or drops, in one
/// transaction; read again after a concurrent change.
async fn changed(store: &Store, account: AccountId, next: impl Fn(&Schedule) -> Schedule) -> Result<Schedule, Refusal> {
    crate::contention::retry_on_conflict(|| async {
        let current = of(store, account).await?;
        let next = Schedule { updated_at: Some(Timestamp::now()), version: current.version + 1, ..next(&current) };
        let mut writes = vec![written(&current, &next)?];
        writes.extend(moved_steps(&current, &next));
        store.write(writes).await?;
        Ok(next)
    })
    .await
}

/// What ops sets on an account's schedule: the sender, the WhatsApp number and template (`Some(None)`
/// clears one; `None` keeps it).
#[derive(Clone, Debug, Default)]
pub struct Setup {
    pub email_sender: Option<Option<String>>,
    pub whatsapp_phone_number_id: Option<Option<String>>,
    pub whatsapp_template: Option<Option<String>>,
}

/// Stores what ops sets beside the account's steps (the steps themselves stay as they are; a
/// default schedule is stored with the default's steps).
pub async fn set_up(store: &Store, account: AccountId, setup: &Setup) -> Result<Schedule, Refusal> {
    let pick = |given: &Option<Option<String>>, now: &Option<String>| match given {
        Some(value) => value.clone().filter(|v| !v.trim().is_empty()),
        None => now.clone(),
    };
    changed(store, account, |current| Schedule {
        email_sender: pick(&setup.email_sender, &current.email_sender),
        whatsapp_phone_number_id: pick(&setup.whatsapp_phone_number_id, &current.whatsapp_phone_number_id),
        whatsapp_template: pick(&setup.whatsapp_template, &current.whatsapp_template),
        ..current.clone()
    })
    .await
}

/// The write of `next` over `current`: new when the account had the default, else on its version.
fn written(current: &Schedule, next: &Schedule) -> StoreResult<Write> {
    match current.is_default() {
        true => stored::insert(next, ()),
        false => stored::put_if(next, (), Condition::version(current.version)),
    }
}

/// The counts of the steps `next` adds and drops (the default's steps are not counted: the daily
/// run always reads them).
fn moved_steps(current: &Schedule, next: &Schedule) -> Vec<Write> {
    let before = if current.is_default() { BTreeSet::new() } else { current.days() };
    let after = next.days();
    let added = after.difference(&before).map(|days| (*days, 1));
    let dropped = before.difference(&after).map(|days| (*days, -1));
    added
        .chain(dropped)
        .map(|(days, delta)| {
            let (pk, sk) = keys::reminder::reminder_step(days);
            Write::add(pk, sk, "value", delta)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parsed(body: Value) -> Result<Change, Refusal> {
        let map = body.as_object().unwrap().clone();
        Change::parse(&Fields::new(&map))
    }

    #[test]
    fn the_default_has_an_email_step_within_ten_days_of_the_due_date() {
        let schedule = Schedule::default_for(AccountId::new(1));
        assert!(schedule.enabled && schedule.is_default());
        assert!(schedule.steps.iter().any(|s| (-10..=10).contains(&s.days) && s.channels.contains(&Channel::Email)));
        assert_eq!(schedule.channels_on(-3), vec![Channel::Email]);
        // WhatsApp only once ops gave the account a number.
        assert_eq!(schedule.channels_on(0), vec![Channel::Email]);
        let with_number = Schedule { whatsapp_phone_number_id: Some("phone-number-id-1".into()), ..schedule };
        assert_eq!(with_number.channels_on(0), vec![Channel::Email, Channel::Whatsapp]);
        assert!(with_number.channels_on(1).is_empty());
        let off = Schedule { enabled: false, ..with_number };
        assert!(off.channels_on(0).is_empty());
    }

    #[test]
    fn a_change_is_checked_step_by_step() {
        let change = parsed(
            json!({"enabled": false, "steps": [{"days": 5, "channels": ["whatsapp", "email"]}, {"days": -1, "channels": ["email"]}]}),
        );
        let change = change.unwrap();
        assert_eq!(change.enabled, Some(false));
        let steps = change.steps.unwrap();
        assert_eq!(steps[0], Step { days: -1, channels: vec![Channel::Email] });
        assert_eq!(steps[1].channels, vec![Channel::Email, Channel::Whatsapp]);

        let Err(Refusal::Invalid(problems)) = parsed(json!({"steps": [
            {"days": 61, "channels": ["email"]},
            {"days": "dois", "channels": ["email"]},
            {"days": 1, "channels": []},
            {"days": 2, "channels": ["sms"]},
            {"days": 3, "channels": ["email", "email"]},
            {"days": 4, "channels": ["email"]},
            {"days": 4, "channels": ["whatsapp"]},
            7
        ]})) else {
            panic!("refused")
        };
        let fields: Vec<&str> = problems.iter().map(|p| p.field.as_deref().unwrap_or("")).collect();
        assert_eq!(
            fields,
            [
                "steps[0].days",
                "steps[1].days",
                "steps[2].channels",
                "steps[3].channels",
                "steps[4].channels",
                "steps[6].days",
                "steps[7]"
            ]
        );
        assert!(parsed(json!({"steps": "daily"})).is_err());
        // A form's steps: objects of index → value, numbers as text.
        let form = parsed(json!({"steps": {"0": {"days": "-2", "channels": {"0": "email"}}}})).unwrap();
        assert_eq!(form.steps.unwrap(), [Step { days: -2, channels: vec![Channel::Email] }]);
        let many: Vec<Value> = (0..11).map(|d| json!({"days": d, "channels": ["email"]})).collect();
        assert!(parsed(json!({ "steps": many })).is_err());
        assert_eq!(parsed(json!({})).unwrap(), Change::default());
    }

    #[test]
    fn a_change_counts_the_steps_it_adds_and_drops() {
        let default = Schedule::default_for(AccountId::new(1));
        let first =
            Schedule { steps: vec![Step { days: 0, channels: vec![Channel::Email] }], version: 1, ..default.clone() };
        // From the default: only the new schedule's steps count.
        assert_eq!(moved_steps(&default, &first).len(), 1);
        let second =
            Schedule { steps: vec![Step { days: 2, channels: vec![Channel::Email] }], version: 2, ..first.clone() };
        assert_eq!(moved_steps(&first, &second).len(), 2);
        assert!(moved_steps(&second, &second).is_empty());
    }
}
