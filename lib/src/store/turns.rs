//! Writers of one item in one process take turns. On DynamoDB two transactions touching one item
//! at the same moment conflict and one is cancelled; across processes the retries sort that out
//! (each Lambda container serves one request at a time, so nothing queues there). In one process
//! serving many requests (the dev server), where the local emulator runs every call one after
//! another and a transaction therefore holds its items for as long as the emulator is busy,
//! racing writers would mostly cancel each other: queueing them in the process spares those
//! attempts. An item's queue is forgotten once nobody holds it.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, Weak};

/// An item's keys.
pub type ItemKey = (String, String);

type Turn = Arc<tokio::sync::Mutex<()>>;

/// The items some writer of this process holds, each with the lock its writers queue on.
static TURNS: LazyLock<Mutex<HashMap<ItemKey, Weak<tokio::sync::Mutex<()>>>>> = LazyLock::new(Default::default);

/// The lock of one item.
pub fn turn_of(item: ItemKey) -> Turn {
    let mut turns = TURNS.lock().expect("turns lock");
    // Items nobody is writing any more are forgotten.
    turns.retain(|_, turn| turn.strong_count() > 0);
    if let Some(turn) = turns.get(&item).and_then(Weak::upgrade) {
        return turn;
    }
    let turn = Turn::default();
    turns.insert(item, Arc::downgrade(&turn));
    turn
}

/// Waits for the turn on each of these items, in key order (so that two writers of overlapping
/// sets never wait for each other); the turns are held until the guards are dropped.
pub async fn take(mut items: Vec<ItemKey>) -> Vec<tokio::sync::OwnedMutexGuard<()>> {
    items.sort();
    items.dedup();
    let mut held = Vec::with_capacity(items.len());
    for item in items {
        held.push(turn_of(item).lock_owned().await);
    }
    held
}

/// Whether no writer of this process holds any item (tests).
pub fn idle() -> bool {
    TURNS.lock().expect("turns lock").values().all(|turn| turn.strong_count() == 0)
}
