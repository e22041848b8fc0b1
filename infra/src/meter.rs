//! What a request costs in DynamoDB, for the benchmarks: an interceptor on the DynamoDB client
//! records every call — its read and write units by DynamoDB's sizing rules (moto reports a fixed
//! `ConsumedCapacity`, so the units are computed from the items sent and read) and when it started
//! and ended — and [`Cost::sequential`] counts the calls that had to wait for one another.
//!
//! Rules: a read unit is 4 KB read strongly consistent (half for eventually consistent);
//! `GetItem` and each item of `BatchGetItem` round up on their own, a `Query` page rounds its sum;
//! `TransactGetItems` costs two units per 4 KB of each item. A write unit is 1 KB written;
//! `TransactWriteItems` costs two per 1 KB of each action. The size of an updated or deleted item
//! is not in the request: those count one unit (two in a transaction), which is right for the
//! counters, postings and markers they touch here and low for a whole record.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use aws_sdk_dynamodb::config::interceptors::{
    BeforeSerializationInterceptorContextRef, FinalizerInterceptorContextRef,
};
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use aws_sdk_dynamodb::operation::{
    batch_get_item::{BatchGetItemInput, BatchGetItemOutput},
    batch_write_item::BatchWriteItemInput,
    delete_item::DeleteItemInput,
    get_item::{GetItemInput, GetItemOutput},
    put_item::PutItemInput,
    query::{QueryInput, QueryOutput},
    transact_get_items::{TransactGetItemsInput, TransactGetItemsOutput},
    transact_write_items::TransactWriteItemsInput,
    update_item::UpdateItemInput,
};
use aws_smithy_runtime_api::client::interceptors::context::{Input, Output};
use aws_smithy_types::config_bag::{Storable, StoreReplace};
use billing_api::store::meter::item_size;
use billing_api::store::Item;

const READ_BLOCK: usize = 4096;
const WRITE_BLOCK: usize = 1024;

/// One DynamoDB call.
#[derive(Clone, Debug)]
struct Call {
    started: Instant,
    ended: Instant,
    read_units: f64,
    write_units: f64,
    /// The write units by the partition they land in (`<pk>`, or `gsi1:<gsi1pk>` for the index).
    partitions: Vec<(String, f64)>,
    transaction: bool,
}

/// What the calls since the last [`Meter::take`] cost.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cost {
    pub calls: usize,
    /// The longest chain of calls each of which started after the previous one ended: the round
    /// trips a request waits for one after another.
    pub sequential: usize,
    pub read_units: f64,
    pub write_units: f64,
    /// Write units by partition key (`gsi1:<key>` for the index's partitions).
    pub by_partition: std::collections::HashMap<String, f64>,
    /// `TransactWriteItems` calls among them (a transaction tried again counts again).
    pub transactions: usize,
}

/// Attach with [`Meter::client`]; read with [`Meter::take`].
#[derive(Clone, Debug, Default)]
pub struct Meter(Arc<Mutex<Vec<Call>>>);

/// A call in flight: when it started and what it writes.
#[derive(Clone, Debug)]
struct Started {
    at: Instant,
    write_units: f64,
    partitions: Vec<(String, f64)>,
    transaction: bool,
    read_consistent: bool,
    transactional_read: bool,
}

impl Storable for Started {
    type Storer = StoreReplace<Self>;
}

impl Meter {
    /// A DynamoDB client of `config` whose calls this meter records.
    pub fn client(&self, config: &aws_config::SdkConfig) -> aws_sdk_dynamodb::Client {
        let conf = aws_sdk_dynamodb::config::Builder::from(config).interceptor(self.clone()).build();
        aws_sdk_dynamodb::Client::from_conf(conf)
    }

    /// The cost of the calls since the last take, and starts again from zero.
    pub fn take(&self) -> Cost {
        let calls = std::mem::take(&mut *self.0.lock().expect("meter lock"));
        let mut by_partition = std::collections::HashMap::new();
        for (partition, units) in calls.iter().flat_map(|c| c.partitions.iter()) {
            *by_partition.entry(partition.clone()).or_insert(0.0) += units;
        }
        Cost {
            calls: calls.len(),
            sequential: sequential(&calls),
            read_units: calls.iter().map(|c| c.read_units).sum(),
            write_units: calls.iter().map(|c| c.write_units).sum(),
            by_partition,
            transactions: calls.iter().filter(|c| c.transaction).count(),
        }
    }
}

/// The most calls that ran one after another (each started after the previous ended): the
/// classic interval scheduling, taking the call that ends first each time.
fn sequential(calls: &[Call]) -> usize {
    let mut by_end: Vec<&Call> = calls.iter().collect();
    by_end.sort_by_key(|c| c.ended);
    let mut count = 0;
    let mut free_at: Option<Instant> = None;
    for call in by_end {
        if free_at.is_none_or(|at| call.started >= at) {
            count += 1;
            free_at = Some(call.ended);
        }
    }
    count
}

fn units(size: usize, block: usize) -> f64 {
    size.div_ceil(block).max(1) as f64
}

fn read_units(items: &[Item], consistent: bool) -> f64 {
    let sum: usize = items.iter().map(item_size).sum();
    units(sum, READ_BLOCK) * if consistent { 1.0 } else { 0.5 }
}

/// The text of a key attribute of an item or key map.
fn key_text(item: &Item, name: &str) -> Option<String> {
    match item.get(name) {
        Some(aws_sdk_dynamodb::types::AttributeValue::S(text)) => Some(text.clone()),
        _ => None,
    }
}

/// The partitions one write lands in and its units there: the item's partition key, and the
/// index partition of a put item that carries `gsi1pk` (an index write costs as much again).
fn landing(item: Option<&Item>, key: Option<&Item>, write_units: f64) -> Vec<(String, f64)> {
    let mut at = Vec::new();
    if let Some(pk) = item.or(key).and_then(|i| key_text(i, "pk")) {
        at.push((pk, write_units));
    }
    if let Some(index) = item.and_then(|i| key_text(i, "gsi1pk")) {
        at.push((format!("gsi1:{index}"), write_units / if write_units > 1.0 { 2.0 } else { 1.0 }));
    }
    at
}

/// What a call's input tells of its cost before it runs.
fn started(input: &Input) -> Started {
    let mut started = Started {
        at: Instant::now(),
        write_units: 0.0,
        partitions: Vec::new(),
        transaction: false,
        read_consistent: false,
        transactional_read: false,
    };
    if let Some(put) = input.downcast_ref::<PutItemInput>() {
        started.write_units = units(put.item.as_ref().map_or(0, item_size), WRITE_BLOCK);
        started.partitions = landing(put.item.as_ref(), None, started.write_units);
    } else if let Some(update) = input.downcast_ref::<UpdateItemInput>() {
        started.write_units = 1.0;
        started.partitions = landing(None, update.key.as_ref(), 1.0);
    } else if let Some(delete) = input.downcast_ref::<DeleteItemInput>() {
        started.write_units = 1.0;
        started.partitions = landing(None, delete.key.as_ref(), 1.0);
    } else if let Some(batch) = input.downcast_ref::<BatchWriteItemInput>() {
        let requests = batch.request_items.iter().flat_map(|m| m.values()).flatten();
        for request in requests {
            let (item, key) =
                (request.put_request.as_ref().map(|p| &p.item), request.delete_request.as_ref().map(|d| &d.key));
            let units = item.map_or(1.0, |item| units(item_size(item), WRITE_BLOCK));
            started.write_units += units;
            started.partitions.extend(landing(item, key, units));
        }
    } else if let Some(transaction) = input.downcast_ref::<TransactWriteItemsInput>() {
        started.transaction = true;
        for action in transaction.transact_items.iter().flatten() {
            let item = action.put.as_ref().map(|p| &p.item);
            let key = action
                .update
                .as_ref()
                .map(|u| &u.key)
                .or(action.delete.as_ref().map(|d| &d.key))
                .or(action.condition_check.as_ref().map(|c| &c.key));
            let units = 2.0 * item.map_or(1.0, |item| units(item_size(item), WRITE_BLOCK));
            started.write_units += units;
            started.partitions.extend(landing(item, key, units));
        }
    } else if let Some(get) = input.downcast_ref::<GetItemInput>() {
        started.read_consistent = get.consistent_read == Some(true);
    } else if let Some(query) = input.downcast_ref::<QueryInput>() {
        started.read_consistent = query.consistent_read == Some(true);
    } else if let Some(batch) = input.downcast_ref::<BatchGetItemInput>() {
        started.read_consistent =
            batch.request_items.iter().flat_map(|m| m.values()).any(|k| k.consistent_read == Some(true));
    } else if input.downcast_ref::<TransactGetItemsInput>().is_some() {
        started.transactional_read = true;
    }
    started
}

/// What a call's output read.
fn read(output: &Output, started: &Started) -> f64 {
    let consistent = started.read_consistent;
    if let Some(get) = output.downcast_ref::<GetItemOutput>() {
        return read_units(get.item.as_slice(), consistent);
    }
    if let Some(query) = output.downcast_ref::<QueryOutput>() {
        return read_units(query.items(), consistent);
    }
    if let Some(batch) = output.downcast_ref::<BatchGetItemOutput>() {
        let items = batch.responses.iter().flat_map(|m| m.values()).flatten();
        return items.map(|item| read_units(std::slice::from_ref(item), consistent)).sum();
    }
    if let Some(transaction) = output.downcast_ref::<TransactGetItemsOutput>() {
        let items = transaction.responses().iter().filter_map(|r| r.item.as_ref());
        return items.map(|item| 2.0 * units(item_size(item), READ_BLOCK)).sum();
    }
    0.0
}

impl Intercept for Meter {
    fn name(&self) -> &'static str {
        "BenchMeter"
    }

    fn read_before_execution(
        &self,
        context: &BeforeSerializationInterceptorContextRef<'_>,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        cfg.interceptor_state().store_put(started(context.input()));
        Ok(())
    }

    fn read_after_execution(
        &self,
        context: &FinalizerInterceptorContextRef<'_>,
        _runtime_components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let Some(started) = cfg.load::<Started>() else { return Ok(()) };
        let (read_units, write_units) = match context.output_or_error() {
            Some(Ok(output)) => (read(output, started), started.write_units),
            // A refused write (a failed condition) still costs its units; a failed read, one.
            _ => (units(0, READ_BLOCK) * 0.5, started.write_units),
        };
        let call = Call {
            started: started.at,
            ended: Instant::now(),
            read_units,
            write_units,
            partitions: started.partitions.clone(),
            transaction: started.transaction,
        };
        self.0.lock().expect("meter lock").push(call);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn calls_in_parallel_count_once_and_calls_in_a_row_each() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let call = |from: u64, to: u64| Call {
            started: at(from),
            ended: at(to),
            read_units: 0.0,
            write_units: 0.0,
            partitions: Vec::new(),
            transaction: false,
        };
        // Three at once, then one after them, then two at once: three in a row.
        let calls = [call(0, 10), call(1, 12), call(2, 9), call(13, 20), call(21, 30), call(22, 25)];
        assert_eq!(sequential(&calls), 3);
        assert_eq!(sequential(&[]), 0);
    }
}
