//! What `GET /v1/payments` reads: a copy of each ledger entry (a [`Row`]) in the partitions of
//! each way the list is asked for (`keys::payment::payment_rows`): ordered by the day paid or the
//! day credited, every payment or those of its channel, its status, or both. Whatever the filters,
//! a page is one query of one partition, newest first, reading its page and one item more (no
//! filter reads what it then drops), so a page costs the same at a hundred payments or a million.
//! The rows are written with the entry (`ledger::recorded_new`) and moved when its status changes
//! (a refund: [`moved`]).

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::ledger::{Channel, Entry, Status};
use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, KeyRange, Sort, Store, StoreResult, Write};

/// How a list of payments is ordered: by the day paid (and, within it, when recorded), or by the
/// day the money is credited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    Paid,
    Credited,
}

impl Order {
    fn letter(self) -> char {
        match self {
            Order::Paid => 'P',
            Order::Credited => 'C',
        }
    }
}

/// One partition of rows: an order, narrowed to a channel, a status, both or neither.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Partition {
    pub order: Order,
    pub channel: Option<Channel>,
    pub status: Option<Status>,
}

/// A ledger entry's copy in one partition.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Row(pub Entry);

impl Stored for Row {
    const KIND: Option<&'static str> = Some("payment_row");
    type Scope<'a> = Partition;

    fn key(&self, partition: Partition) -> Key {
        row_key(&self.0, partition)
    }
}

/// The key of the entry's row in `partition`.
fn row_key(entry: &Entry, partition: Partition) -> Key {
    (partition.key(entry.account_id), sort_key(entry, partition.order))
}

impl Partition {
    /// Its partition key in the account's rows.
    fn key(self, account: crate::values::AccountId) -> String {
        let (channel, status) = (self.channel.map(Channel::as_str), self.status.map(Status::as_str));
        keys::payment::payment_rows(account, self.order.letter(), channel, status)
    }
}

/// The entry's place in the partitions of `order`.
fn sort_key(entry: &Entry, order: Order) -> String {
    let at = entry.recorded_at.0.timestamp_millis();
    let paid = keys::payment::payment_row(entry.paid_on, at, entry.channel.as_str(), &entry.provider_id);
    match order {
        Order::Paid => paid,
        Order::Credited => keys::payment::payment_row_credited(entry.credit_on.unwrap_or(entry.paid_on), &paid),
    }
}

/// The partitions an entry has a row in.
fn partitions(entry: &Entry) -> Vec<Partition> {
    let (channel, status) = (Some(entry.channel), Some(entry.status()));
    [Order::Paid, Order::Credited]
        .into_iter()
        .flat_map(|order| {
            [(None, None), (channel, None), (None, status), (channel, status)].map(|(channel, status)| Partition {
                order,
                channel,
                status,
            })
        })
        .collect()
}

/// The writes of a new entry's rows.
pub fn put(entry: &Entry) -> StoreResult<Vec<Write>> {
    let row = Row(entry.clone());
    partitions(entry).into_iter().map(|partition| stored::put(&row, partition)).collect()
}

/// The writes that move an entry's rows from `before` to `after`: those of its old status
/// deleted, every row written again as it now is.
pub fn moved(before: &Entry, after: &Entry) -> StoreResult<Vec<Write>> {
    let now: Vec<Key> = partitions(after).into_iter().map(|p| row_key(after, p)).collect();
    let mut writes: Vec<Write> = partitions(before)
        .into_iter()
        .map(|partition| row_key(before, partition))
        .filter(|key| !now.contains(key))
        .map(|(pk, sk)| Write::delete(pk, sk))
        .collect();
    writes.extend(put(after)?);
    Ok(writes)
}

/// What a list of payments asks: its partition, the days it covers (either end open), and where
/// the page starts (after the sort key of the last payment of the page before).
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    pub partition: Partition,
    pub from: Option<NaiveDate>,
    pub to: Option<NaiveDate>,
    pub after: Option<String>,
    pub limit: usize,
}

/// The days and partition a list of payments asks for.
#[derive(Clone, Debug, PartialEq)]
pub struct Asked {
    pub partition: Partition,
    pub from: Option<NaiveDate>,
    pub to: Option<NaiveDate>,
}

/// What the filters of a list of payments ask (`paid_from`, `paid_to` or `credited_from`,
/// `credited_to`, `channel`, `status`), read by name with `get`, or every problem with them, each
/// named by `field` (the route's parameters, an export's `filters.…`).
pub fn asked<'a>(
    get: impl Fn(&str) -> Option<&'a str>,
    field: impl Fn(&str) -> String,
) -> Result<Asked, Vec<crate::refusal::Problem>> {
    use crate::refusal::Problem;
    let mut errors = Vec::new();
    let mut date = |name: &str| {
        let day = get(name)?.trim().parse::<NaiveDate>().ok();
        if day.is_none() {
            errors.push(Problem::invalid(field(name), format!("{name} inválido (use AAAA-MM-DD)")));
        }
        day
    };
    let (paid_from, paid_to) = (date("paid_from"), date("paid_to"));
    let (credited_from, credited_to) = (date("credited_from"), date("credited_to"));
    let credited = credited_from.is_some() || credited_to.is_some();
    if credited && (paid_from.is_some() || paid_to.is_some()) {
        let message = "Filtre por data de pagamento ou por data de crédito, não ambas";
        errors.push(Problem::invalid(field("credited_from"), message));
    }
    let channel = get("channel").and_then(|text| {
        let found = Channel::parse(text.trim());
        if found.is_none() {
            let message = format!("channel inválido (aceitos: {})", Channel::list());
            errors.push(Problem::invalid(field("channel"), message));
        }
        found
    });
    let status = get("status").and_then(|text| {
        let found = Status::parse(text.trim());
        if found.is_none() {
            let accepted = Status::ALL.map(Status::as_str).join(", ");
            errors.push(Problem::invalid(field("status"), format!("status inválido (aceitos: {accepted})")));
        }
        found
    });
    if !errors.is_empty() {
        return Err(errors);
    }
    let order = if credited { Order::Credited } else { Order::Paid };
    let (from, to) = if credited { (credited_from, credited_to) } else { (paid_from, paid_to) };
    Ok(Asked { partition: Partition { order, channel, status }, from, to })
}

/// A page of payments, newest first, and the sort key the next page starts after (when there is
/// one).
#[derive(Clone, Debug, PartialEq)]
pub struct Listed {
    pub payments: Vec<Entry>,
    pub next: Option<String>,
}

/// The page `query` asks for: one query of its partition, `limit + 1` items at most.
pub async fn list(store: &Store, account: crate::values::AccountId, query: &Query) -> StoreResult<Listed> {
    let pk = query.partition.key(account);
    let (low, high) = keys::counter::day_shards_between(query.from, query.to);
    if low > high {
        return Ok(Listed { payments: Vec::new(), next: None });
    }
    // A cursor outside the days asked for names no payment of theirs: the page is empty.
    let high = match &query.after {
        Some(after) if after.as_str() < low.as_str() => return Ok(Listed { payments: Vec::new(), next: None }),
        Some(after) => after.clone().min(high),
        None => high,
    };
    let range = KeyRange::listing(pk, Sort::Between(low, high), false);
    let wanted = query.limit + 1 + usize::from(query.after.is_some());
    let items = store.items_in(&range, 0, wanted).await?;
    let mut rows: Vec<(String, Entry)> = Vec::with_capacity(items.len());
    for item in items {
        let sk = crate::store::item::text(&item, "sk").unwrap_or_default().to_owned();
        if query.after.as_deref() != Some(sk.as_str()) {
            rows.push((sk, stored::read::<Row>(item)?.0));
        }
    }
    let next = (rows.len() > query.limit).then(|| rows[query.limit - 1].0.clone());
    rows.truncate(query.limit);
    Ok(Listed { payments: rows.into_iter().map(|(_, entry)| entry).collect(), next })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payments::ledger::{entry, Outcome, Payment};
    use crate::values::{AccountId, BillingId, Money};

    fn paid(channel: Channel) -> Entry {
        let day = NaiveDate::from_ymd_opt(2026, 11, 2).unwrap();
        let payment = Payment {
            channel,
            provider_id: "E1".into(),
            billet_id: None,
            amount: Money::from_cents(5110),
            paid_on: day,
            fee: Money::from_cents(110),
            credit_on: day.succ_opt().unwrap(),
            net_amount: Money::from_cents(5000),
            paid_off: None,
        };
        entry(AccountId::new(7), BillingId::new(3), &payment, Outcome::Settled, "")
    }

    #[test]
    fn an_entry_has_a_row_in_eight_partitions_and_a_refund_moves_four() {
        let before = paid(Channel::Pix);
        assert_eq!(put(&before).unwrap().len(), 8);
        let after = Entry { refunded: before.amount, ..before.clone() };
        let writes = moved(&before, &after).unwrap();
        let deletes = writes.iter().filter(|w| matches!(w, Write::Delete { .. })).count();
        assert_eq!((deletes, writes.len()), (4, 12));
    }

    #[test]
    fn the_credited_order_sorts_by_the_credit_day_first() {
        let entry = paid(Channel::CreditCard);
        let (_, paid) = Row(entry.clone()).key(Partition { order: Order::Paid, channel: None, status: None });
        let (pk, credited) = Row(entry).key(Partition {
            order: Order::Credited,
            channel: Some(Channel::CreditCard),
            status: Some(Status::Applied),
        });
        assert!(paid.starts_with("2026-11-02#"));
        assert_eq!(credited, format!("2026-11-03#{paid}"));
        assert_eq!(pk, "A#7#PAYROWS#C#C:credit_card#S:applied");
    }
}
