//! The account's daily statement (`GET /v1/statements/{date}`): per channel, the payments paid on
//! the day (count, gross, fees, net; how much of it was kept to refund), what they credit on which
//! day, and the refunds recorded on the day; and the totals. Built from counts written with each
//! ledger entry and each refund, in their transactions (`store::shards`' day counts: one small item
//! per day and shard), so a payment reported twice counts once, and reading a day costs the same
//! whatever the account's size: one query of each of the counter's partitions.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use serde::Serialize;

use super::ledger::{Channel, Entry, Outcome};
use crate::store::{keys, shards, Store, StoreResult, Write};
use crate::values::{AccountId, Money};

/// The shard an entry counts in: its ledger key's, so its refunds count beside it.
fn holder(entry: &Entry) -> i64 {
    keys::shard_of(&entry.id(), 1 << 16)
}

fn count(name: &str, channel: Channel) -> String {
    keys::payment::statement_count(name, channel.as_str())
}

fn credit(day: NaiveDate, channel: Channel) -> String {
    keys::payment::statement_credit(day, channel.as_str())
}

/// The counts of a new entry, on the day it was paid.
pub fn received(entry: &Entry) -> Write {
    let channel = entry.channel;
    let mut deltas = vec![
        (count("n", channel), 1),
        (count("gross", channel), entry.amount.in_cents()),
        (count("fee", channel), entry.fee.in_cents()),
        (count("net", channel), entry.net_amount.in_cents()),
        (credit(entry.credit_on.unwrap_or(entry.paid_on), channel), entry.net_amount.in_cents()),
    ];
    if entry.outcome == Outcome::ToRefund {
        deltas.push((count("kept", channel), entry.amount.in_cents()));
    }
    let counter = keys::payment::statement_counter(entry.account_id);
    shards::add_on_day(&counter, entry.paid_on, holder(entry), &deltas)
}

/// The counts of `amount` of `entry` given back, on `day`.
pub fn refunded(entry: &Entry, amount: Money, day: NaiveDate) -> Write {
    let deltas = [(count("refunds", entry.channel), 1), (count("refunded", entry.channel), amount.in_cents())];
    shards::add_on_day(&keys::payment::statement_counter(entry.account_id), day, holder(entry), &deltas)
}

/// One channel's line of a day.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Line {
    pub count: i64,
    pub gross_amount: Money,
    pub fee_amount: Money,
    pub net_amount: Money,
    /// Of the gross, what came for a billing settled otherwise: to give back.
    pub kept_to_refund_amount: Money,
    pub refunds_count: i64,
    pub refunded_amount: Money,
}

impl Line {
    fn add(&mut self, name: &str, n: i64) {
        let money = Money::from_cents(n);
        match name {
            "n" => self.count += n,
            "gross" => self.gross_amount = self.gross_amount + money,
            "fee" => self.fee_amount = self.fee_amount + money,
            "net" => self.net_amount = self.net_amount + money,
            "kept" => self.kept_to_refund_amount = self.kept_to_refund_amount + money,
            "refunds" => self.refunds_count += n,
            "refunded" => self.refunded_amount = self.refunded_amount + money,
            _ => {}
        }
    }
}

/// What the day's payments credit on one day, through one channel.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Credit {
    pub date: NaiveDate,
    pub channel: &'static str,
    pub net_amount: Money,
}

/// A day's statement.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Statement {
    pub date: NaiveDate,
    /// Per channel that had anything on the day, by name.
    pub channels: BTreeMap<&'static str, Line>,
    pub credits: Vec<Credit>,
    pub totals: Line,
}

/// The statement of `day` from its counts.
pub async fn of_day(store: &Store, account: AccountId, day: NaiveDate) -> StoreResult<Statement> {
    let counter = keys::payment::statement_counter(account);
    let days = shards::days(store, &counter, Some(day), Some(day)).await?;
    Ok(from_counts(day, days.get(&day).cloned().unwrap_or_default()))
}

/// A day's statement from its counts, by name (`<count>#<channel>`, `credit#<day>#<channel>`).
pub fn from_counts(day: NaiveDate, counts: BTreeMap<String, i64>) -> Statement {
    let mut channels: BTreeMap<&'static str, Line> = BTreeMap::new();
    let mut totals = Line::default();
    let mut credits = Vec::new();
    for (name, n) in counts {
        let Some((kind, channel, day)) = keys::payment::read_statement_count(&name) else { continue };
        let Some(channel) = Channel::parse(channel) else { continue };
        if let Some(date) = day {
            credits.push(Credit { date, channel: channel.as_str(), net_amount: Money::from_cents(n) });
            continue;
        }
        channels.entry(channel.as_str()).or_default().add(kind, n);
        totals.add(kind, n);
    }
    credits.retain(|credit| credit.net_amount != Money::ZERO);
    credits.sort_by_key(|credit| (credit.date, credit.channel));
    Statement { date: day, channels, credits, totals }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_make_lines_credits_and_totals() {
        let day = NaiveDate::from_ymd_opt(2026, 11, 2).unwrap();
        let counts = BTreeMap::from([
            ("n#pix".to_owned(), 2),
            ("gross#pix".to_owned(), 10_000),
            ("net#pix".to_owned(), 10_000),
            ("n#credit_card".to_owned(), 1),
            ("gross#credit_card".to_owned(), 5_110),
            ("fee#credit_card".to_owned(), 229),
            ("net#credit_card".to_owned(), 4_881),
            ("credit#2026-12-02#credit_card".to_owned(), 4_881),
            ("credit#2026-11-02#pix".to_owned(), 10_000),
            ("refunds#pix".to_owned(), 1),
            ("refunded#pix".to_owned(), 2_500),
            ("value".to_owned(), 9),
        ]);
        let statement = from_counts(day, counts);
        assert_eq!(statement.totals.count, 3);
        assert_eq!(statement.totals.gross_amount, Money::from_cents(15_110));
        assert_eq!(statement.totals.net_amount, Money::from_cents(14_881));
        assert_eq!(statement.channels["pix"].refunded_amount, Money::from_cents(2_500));
        let credited: Vec<_> = statement.credits.iter().map(|c| (c.date.to_string(), c.channel)).collect();
        assert_eq!(credited, [("2026-11-02".to_owned(), "pix"), ("2026-12-02".to_owned(), "credit_card")]);
    }
}
