//! Counts the requests a `Store` makes (reads and writes) and the read units DynamoDB charges for
//! the reads, computed
//! from the items read by DynamoDB's sizing rules (the local moto server reports a fixed figure,
//! so the benchmark cannot rely on `ConsumedCapacity`). Off unless a meter is attached.
//!
//! Rules: a read unit covers 4 KB strongly consistent, or twice that eventually consistent (0.5
//! unit per 4 KB). `GetItem` rounds its item up to 4 KB; `BatchGetItem` rounds each item; `Query`
//! rounds the sum of the items it read. Every request costs at least one 4 KB block.

use std::sync::Mutex;

use aws_sdk_dynamodb::types::AttributeValue;

use super::Item;

const BLOCK: usize = 4096;

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Reading {
    /// Read requests (`GetItem`, `Query` pages, `BatchGetItem` calls).
    pub round_trips: u64,
    /// Write requests (`PutItem`, `UpdateItem`, `DeleteItem`, `TransactWriteItems`,
    /// `BatchWriteItem` calls), each try counted.
    pub writes: u64,
    pub read_units: f64,
    pub bytes: u64,
    /// Items read.
    pub items: u64,
}

impl Reading {
    /// Every request, reads and writes.
    pub fn calls(&self) -> u64 {
        self.round_trips + self.writes
    }
}

#[derive(Debug, Default)]
pub struct ReadMeter(Mutex<Reading>);

impl ReadMeter {
    /// What was read since the last call, and starts counting again from zero.
    pub fn take(&self) -> Reading {
        std::mem::take(&mut *self.0.lock().expect("meter lock"))
    }

    fn add(&self, items: usize, blocks: usize, bytes: usize, consistent: bool) {
        let mut reading = self.0.lock().expect("meter lock");
        reading.round_trips += 1;
        reading.items += items as u64;
        reading.read_units += blocks.max(1) as f64 * if consistent { 1.0 } else { 0.5 };
        reading.bytes += bytes as u64;
    }

    /// One write request.
    pub(super) fn write(&self) {
        self.0.lock().expect("meter lock").writes += 1;
    }

    /// One `Query` page (or one `GetItem`): the items' sizes summed, then rounded up.
    pub(super) fn query(&self, items: &[Item], consistent: bool) {
        let bytes: usize = items.iter().map(item_size).sum();
        self.add(items.len(), bytes.div_ceil(BLOCK), bytes, consistent);
    }

    /// One `BatchGetItem` call: each item rounded up on its own.
    pub(super) fn batch(&self, items: &[Item], consistent: bool) {
        let bytes: usize = items.iter().map(item_size).sum();
        let blocks = items.iter().map(|i| item_size(i).div_ceil(BLOCK).max(1)).sum();
        self.add(items.len(), blocks, bytes, consistent);
    }
}

/// An item's size as DynamoDB counts it: attribute names plus values.
pub fn item_size(item: &Item) -> usize {
    item.iter().map(|(name, value)| name.len() + value_size(value)).sum()
}

fn value_size(value: &AttributeValue) -> usize {
    match value {
        AttributeValue::S(s) => s.len(),
        // Numbers: about one byte per two significant digits, plus one.
        AttributeValue::N(n) => n.trim_start_matches(['-', '0']).replace('.', "").len().div_ceil(2) + 1,
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
        AttributeValue::L(list) => 3 + list.iter().map(|v| 1 + value_size(v)).sum::<usize>(),
        AttributeValue::M(map) => 3 + map.iter().map(|(k, v)| 1 + k.len() + value_size(v)).sum::<usize>(),
        AttributeValue::Ss(set) => set.iter().map(String::len).sum(),
        AttributeValue::Ns(set) => set.iter().map(|n| n.len().div_ceil(2) + 1).sum(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn sizes_and_units_follow_the_dynamodb_rules() {
        let item: Item = HashMap::from([
            ("pk".to_owned(), AttributeValue::S("A#1".into())),
            ("n".to_owned(), AttributeValue::N("12345".into())),
        ]);
        assert_eq!(item_size(&item), 2 + 3 + 1 + 4);
        let meter = ReadMeter::default();
        meter.query(&[item.clone(), item.clone()], false);
        meter.batch(&[item.clone(), item], true);
        let reading = meter.take();
        assert_eq!((reading.round_trips, reading.read_units, reading.bytes), (2, 0.5 + 2.0, 40));
        assert_eq!(meter.take(), Reading::default());
    }
}
