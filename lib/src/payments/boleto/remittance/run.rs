//! The scheduled job: every due agreement's files made, each step run again after weather.

use super::file::{claim, finish, Claimed};
use super::*;

/// What one run of the scheduled job did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    pub made: Vec<Made>,
    /// Agreements that failed (account and reason); they stay due for the next run.
    pub failures: Vec<String>,
    /// Minutes the oldest instruction still waiting has waited (0: none waits).
    pub oldest_pending_minutes: i64,
}

/// The scheduled job: every due agreement, until `deadline` (what is left waits for the next run).
pub async fn run_due(store: &Store, files: &Files, deadline: Instant) -> anyhow::Result<Report> {
    let mut report = Report::default();
    for shard in 0..keys::bank_file::REMITTANCE_DUE_SHARDS {
        if Instant::now() >= deadline {
            break;
        }
        let range = due_range(shard);
        let mut start = None;
        loop {
            let page = store.page(&range, 100, start).await?;
            for due in stored_dues(page.items)? {
                if Instant::now() >= deadline {
                    break;
                }
                match run_agreement(store, files, due.account_id, &due.agreement, deadline).await {
                    Ok(made) => report.made.extend(made),
                    Err(error) => {
                        tracing::error!(account = %due.account_id, agreement = %due.agreement, "remittance: {error:#}");
                        report
                            .failures
                            .push(format!("account {} agreement {}: {error:#}", due.account_id, due.agreement));
                    }
                }
            }
            start = page.next;
            if start.is_none() || Instant::now() >= deadline {
                break;
            }
        }
    }
    report.oldest_pending_minutes = oldest_pending_minutes(store).await?;
    Ok(report)
}

/// One partition of the due markers.
fn due_range(shard: i64) -> KeyRange {
    KeyRange::prefix(keys::bank_file::remittance_due_shard(shard), keys::bank_file::REMITTANCE_DUE_PREFIX, true)
}

fn stored_dues(items: Vec<crate::store::Item>) -> StoreResult<Vec<Due>> {
    items.into_iter().map(crate::store::item::from_item::<Due>).collect()
}

/// How long the oldest waiting instruction has waited, in minutes (from the markers left; the
/// eight partitions read at once).
pub async fn oldest_pending_minutes(store: &Store) -> anyhow::Result<i64> {
    let now = Timestamp::now();
    let reads = (0..keys::bank_file::REMITTANCE_DUE_SHARDS).map(|shard| async move {
        let range = due_range(shard);
        let mut oldest = 0;
        let mut start = None;
        loop {
            let page = store.page(&range, 500, start).await?;
            for due in stored_dues(page.items)? {
                oldest = oldest.max((now.0 - due.since.0).num_minutes());
            }
            start = page.next;
            if start.is_none() {
                return Ok::<_, anyhow::Error>(oldest);
            }
        }
    });
    Ok(futures::future::try_join_all(reads).await?.into_iter().max().unwrap_or(0))
}

/// Every file due for one agreement of an account (open files first), until `deadline`.
pub async fn run_agreement(
    store: &Store,
    files: &Files,
    account: AccountId,
    agreement: &str,
    deadline: Instant,
) -> anyhow::Result<Vec<Made>> {
    let mut made = again(|| finish_open(store, files, account)).await?;
    let (symbol, code) = of_lane(agreement);
    let bank = banks::by_symbol(symbol).with_context(|| format!("lane {agreement:?}: no bank {symbol:?}"))?;
    let parsed = bank.agreement(code).with_context(|| format!("agreement {code:?} is not one of {}", bank.title))?;
    let owner = accounts::find(store, account).await?.context("the account is gone")?;
    let document = owner.document.clone().filter(|d| !d.trim().is_empty());
    let beneficiary = Beneficiary {
        document: document.context("the account has no CNPJ/CPF: the bank needs the beneficiary's document")?,
        name: owner.name.clone(),
        agreement: parsed,
    };
    let (marker_pk, marker_sk) = keys::bank_file::remittance_due(account, agreement);
    let marker = again(|| async { Ok(store.get(marker_pk.clone(), marker_sk.clone()).await?) }).await?;
    let marker = marker.map(crate::store::item::from_item::<Due>).transpose()?;
    let began = Timestamp::now();
    // Each turn makes a file, drops stale instructions or loses a race: all progress.
    for _ in 0..10_000 {
        if Instant::now() >= deadline {
            return Ok(made);
        }
        match again(|| claim(store, account, agreement, bank, &beneficiary)).await? {
            Claimed::Empty => break,
            Claimed::Progress => {}
            Claimed::File(remittance) => made.push(again(|| finish(store, files, (*remittance).clone())).await?),
        }
    }
    // The queue was empty: the marker goes, unless an instruction came meanwhile (then what waits
    // came after `began`).
    if let Some(marker) = marker {
        again(|| tidy(store, account, agreement, &marker, began)).await?;
    }
    Ok(made)
}

/// Removes the agreement's marker once its queue was found empty (see [`run_agreement`]).
async fn tidy(
    store: &Store,
    account: AccountId,
    agreement: &str,
    marker: &Due,
    began: Timestamp,
) -> anyhow::Result<()> {
    let (pk, sk) = keys::bank_file::remittance_due(account, agreement);
    let unchanged = Condition::equals("nonce", &marker.nonce);
    match store.write(vec![Write::delete_if(pk.clone(), sk.clone(), unchanged)]).await {
        Ok(()) => Ok(()),
        Err(StoreError::ConditionFailed(_)) => {
            let kept = Write::update(pk, sk, Update::new().set("since", &began), Some(Condition::present()));
            match store.write(vec![kept]).await {
                Ok(()) | Err(StoreError::ConditionFailed(_)) => Ok(()),
                Err(error) => Err(error.into()),
            }
        }
        Err(error) => Err(error.into()),
    }
}

/// How long a step of the bank-file jobs is tried again through the weather.
const WEATHER_BUDGET: std::time::Duration = std::time::Duration::from_secs(10);

/// Tries `attempt` again, with the service's backoff (`contention::retry_for`), while it fails for
/// the weather (a transaction conflict, a throttle, an outage: [`transient`]); every step it is
/// given can be run again.
pub async fn again<T, F, Fut>(mut attempt: F) -> anyhow::Result<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<T>>,
{
    let weather = |error: anyhow::Error| match transient(&error) {
        true => Refusal::Unavailable(error),
        false => Refusal::Internal(error),
    };
    let tried = crate::contention::retry_for(WEATHER_BUDGET, || attempt().map(|done| done.map_err(weather))).await;
    tried.map_err(|refusal| match refusal {
        Refusal::Unavailable(error) | Refusal::Internal(error) => error,
        other => anyhow::Error::new(other),
    })
}

/// Whether an error is the storage's weather rather than an answer.
fn transient(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause.downcast_ref::<StoreError>().is_some_and(StoreError::is_transient)
            || cause.downcast_ref::<Refusal>().is_some_and(Refusal::is_transient)
    })
}

/// Finishes the account's files left open by an earlier run.
pub async fn finish_open(store: &Store, files: &Files, account: AccountId) -> anyhow::Result<Vec<Made>> {
    let range = KeyRange::prefix(keys::bank_file::remittances(account), keys::bank_file::OPEN_REMITTANCE_PREFIX, true);
    let open = store.page(&range, 100, None).await?;
    let mut made = Vec::new();
    for item in open.items {
        let Some(id) = crate::store::KeyItem::keys_of(&item)
            .1
            .strip_prefix(keys::bank_file::OPEN_REMITTANCE_PREFIX)
            .and_then(|id| id.parse::<i64>().ok())
        else {
            continue;
        };
        let (pk, sk) = keys::bank_file::remittance(account, id);
        match stored::find::<Remittance>(store, (pk, sk)).await? {
            Some(remittance) => made.push(finish(store, files, remittance).await?),
            None => {
                let (pk, sk) = keys::bank_file::open_remittance(account, id);
                store.write(vec![Write::delete(pk, sk)]).await?
            }
        }
    }
    Ok(made)
}
