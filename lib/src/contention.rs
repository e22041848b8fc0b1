//! Writes under contention and weather (docs/decisions.md): a read-modify-write that loses a race
//! to a concurrent writer runs again against what the winner wrote, and one that DynamoDB
//! throttled or failed runs again as it was, with exponential backoff and full jitter, for a
//! bounded time; writers of one record in one process take turns.

use std::time::Duration;

use tokio::time::Instant;

use crate::refusal::Refusal;

/// How long a request keeps running again an operation that lost races, before it gives up with
/// [`Refusal::Conflict`] (a 409 with `Retry-After`). Well inside the API functions' 10 s timeout.
const CONFLICT_BUDGET: Duration = Duration::from_secs(5);
/// The most a writer waits for its turn and retries together (a queue of writers of one record in
/// one process, which only the dev server has: a Lambda container serves one request at a time).
const TURN_BUDGET: Duration = Duration::from_secs(9);

/// The first pause after a lost race; each next one may be twice as long, up to [`MAX_PAUSE`].
const FIRST_PAUSE: Duration = Duration::from_millis(10);
const MAX_PAUSE: Duration = Duration::from_millis(500);

/// Runs `attempt` again when it lost a race to a concurrent writer (a transaction conflict, or
/// an optimistic-lock condition the attempt reports as [`Refusal::Conflict`]), each time against
/// what the winner wrote, or when the storage throttled or failed it ([`Refusal::Unavailable`]),
/// after an exponentially growing pause with full jitter (so that racing writers spread out
/// instead of colliding again), for at most [`CONFLICT_BUDGET`]; then the last of those errors
/// is the answer (409 or 503). Any other outcome is returned at once.
pub async fn retry_on_conflict<T, F, Fut>(attempt: F) -> Result<T, Refusal>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, Refusal>>,
{
    retry_until(Instant::now() + CONFLICT_BUDGET, attempt).await
}

/// [`retry_on_conflict`] with a budget of its own: background work, which no caller waits for and
/// which may ride out a longer spell of weather than a request.
pub async fn retry_for<T, F, Fut>(budget: Duration, attempt: F) -> Result<T, Refusal>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, Refusal>>,
{
    retry_until(Instant::now() + budget, attempt).await
}

/// [`retry_on_conflict`] for a read-modify-write of one existing record (`pk`, `sk`): the writers of
/// that record in this process take turns, so that each reads what the previous one wrote instead
/// of all of them racing and retrying. Across processes (each Lambda container serves one request
/// at a time) the version conditions and the retries still decide; in one process serving many
/// requests (the dev server) this spares the wasted attempts, which on the local emulator, where
/// every DynamoDB call is serialised, would cost the square of the number of writers. Waiting for
/// the turn is no lost race, so it does not spend [`CONFLICT_BUDGET`]; the wait and the retries
/// together stay within [`TURN_BUDGET`] (inside the functions' timeout).
pub async fn retry_in_turn<T, F, Fut>(record: RecordKey, attempt: F) -> Result<T, Refusal>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, Refusal>>,
{
    let overall = Instant::now() + TURN_BUDGET;
    let turn = crate::store::turns::turn_of(record);
    let Ok(_turn) = tokio::time::timeout_at(overall, turn.lock_owned()).await else {
        return Err(Refusal::Conflict);
    };
    retry_until((Instant::now() + CONFLICT_BUDGET).min(overall), attempt).await
}

/// Writes a worker's move past the part of its work it just did: `writes`, whose first moves a
/// cursor (a bulk expansion's, a settlement's count of chunks, a cascade's round) on the condition
/// that it still holds the value the worker read, with the task of what comes next. A failed
/// condition there is no error: a copy of the same message moved it first, and sent the next itself
/// (`Ok(false)`). Lost races on other items, throttles and outages are tried again.
pub async fn move_cursor(store: &crate::store::Store, writes: Vec<crate::store::Write>) -> Result<bool, Refusal> {
    retry_on_conflict(|| async {
        match store.write(writes.clone()).await {
            Ok(()) => Ok(true),
            Err(error) if error.failed_at(0) => Ok(false),
            Err(error) => Err(error.into()),
        }
    })
    .await
}

async fn retry_until<T, F, Fut>(deadline: Instant, mut attempt: F) -> Result<T, Refusal>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, Refusal>>,
{
    let mut ceiling = FIRST_PAUSE;
    loop {
        match attempt().await {
            Err(error) if error.is_transient() => {
                let pause = ceiling.mul_f64(rand::random::<f64>());
                if Instant::now() + pause >= deadline {
                    return Err(error);
                }
                tokio::time::sleep(pause).await;
                ceiling = (ceiling * 2).min(MAX_PAUSE);
            }
            other => return other,
        }
    }
}

type RecordKey = crate::store::turns::ItemKey;

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[tokio::test(start_paused = true)]
    async fn lost_races_are_run_again_until_they_win() {
        // Twelve lost races fit the budget whatever the jitter draws (the pauses' ceilings add up to
        // 3.6 s); twenty could outlast it now and then.
        let tries = AtomicU32::new(0);
        let result = retry_on_conflict(|| async {
            match tries.fetch_add(1, Ordering::SeqCst) {
                0..=11 => Err(Refusal::Conflict),
                n => Ok(n),
            }
        })
        .await;
        assert_eq!(result.unwrap(), 12);
        // Throttles and outages are run again too.
        let tries = AtomicU32::new(0);
        let result = retry_on_conflict(|| async {
            match tries.fetch_add(1, Ordering::SeqCst) {
                0..=2 => Err(Refusal::Unavailable(anyhow::anyhow!("throttled"))),
                n => Ok(n),
            }
        })
        .await;
        assert_eq!(result.unwrap(), 3);
    }

    #[tokio::test]
    async fn writers_of_one_record_take_turns() {
        let inside = AtomicU32::new(0);
        let record = || ("A#1".to_owned(), "TAG#0000000001".to_owned());
        let writer = || async {
            retry_in_turn(record(), || async {
                assert_eq!(inside.fetch_add(1, Ordering::SeqCst), 0, "one writer at a time");
                tokio::time::sleep(Duration::from_millis(2)).await;
                inside.fetch_sub(1, Ordering::SeqCst);
                Ok::<_, Refusal>(())
            })
            .await
        };
        let results = futures::future::join_all((0..20).map(|_| writer())).await;
        assert!(results.iter().all(Result::is_ok));
        // Another record is not held up by them.
        let other = ("A#1".to_owned(), "TAG#0000000002".to_owned());
        assert!(retry_in_turn(other, || async { Ok::<_, Refusal>(()) }).await.is_ok());
        assert!(crate::store::turns::idle());
    }

    #[tokio::test(start_paused = true)]
    async fn contention_that_outlasts_the_budget_is_a_conflict() {
        let started = tokio::time::Instant::now();
        let result: Result<(), Refusal> = retry_on_conflict(|| async { Err(Refusal::Conflict) }).await;
        assert!(matches!(result, Err(Refusal::Conflict)));
        assert!(started.elapsed() <= CONFLICT_BUDGET);
        // Other failures are not retried.
        let tries = AtomicU32::new(0);
        let result: Result<(), Refusal> = retry_on_conflict(|| async {
            tries.fetch_add(1, Ordering::SeqCst);
            Err(Refusal::NotFound)
        })
        .await;
        assert!(matches!(result, Err(Refusal::NotFound)));
        assert_eq!(tries.load(Ordering::SeqCst), 1);
    }
}
