//! A cascade's state, and the writes that start one: a tag's or group's delete starts it, the
//! contacts' worker (`contacts::cascade`) runs it; neither knows the other.

use serde::{Deserialize, Serialize};

use super::{tasks, Cascade};
use crate::store::keys;
use crate::store::stored::{self, Key, Stored};
use crate::store::Write;
use crate::values::{AccountId, GroupId, TagId, Timestamp};

/// A cascade while it runs: the round whose message runs next, and when the delete happened.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct State {
    pub round: i64,
    /// Absent on cascades started before it was kept: those end without waiting.
    #[serde(default)]
    pub started_at: Option<Timestamp>,
}

impl Stored for State {
    const KIND: Option<&'static str> = Some("cascade");
    /// The account, and the kind (`TAG`, `GROUP`) and id of the deleted record.
    type Scope<'a> = (AccountId, &'static str, i64);

    fn key(&self, (account, kind, id): Self::Scope<'_>) -> Key {
        state_key(account, kind, id)
    }
}

fn state_key(account: AccountId, kind: &str, id: i64) -> Key {
    (keys::account(account), keys::cascade(kind, id))
}

/// The state item's scope of the cascade a message belongs to.
fn state_of(message: &Cascade) -> anyhow::Result<(AccountId, &'static str, i64)> {
    Ok(match (message.tag_id, message.group_id) {
        (Some(tag), _) => (message.account_id, "TAG", tag.get()),
        (None, Some(group)) => (message.account_id, "GROUP", group.get()),
        (None, None) => anyhow::bail!("a cascade names a tag or a group"),
    })
}

/// The state item's keys of the cascade a message belongs to.
pub fn state_keys(message: &Cascade) -> anyhow::Result<(String, String)> {
    let (account, kind, id) = state_of(message)?;
    Ok(state_key(account, kind, id))
}

/// The writes, for a tag's or group's delete, that start its cascade: the state at round 0 and
/// the first round's task.
pub fn started(account: AccountId, tag: Option<TagId>, group: Option<GroupId>) -> anyhow::Result<Vec<Write>> {
    let first = Cascade { account_id: account, tag_id: tag, group_id: group, round: Some(0) };
    let state = stored::put(&State { round: 0, started_at: Some(Timestamp::now()) }, state_of(&first)?)?;
    Ok(vec![state, tasks::one(account, first)?])
}
