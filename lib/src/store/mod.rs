//! DynamoDB storage: one table, keys built only in [`keys`], records mapped by serde
//! ([`item`]; an account's listed records through [`records::Record`], every other kind through
//! [`stored::Stored`]), partial changes as typed [`Update`]s under [`Condition`]s, multi-item
//! changes as one transaction, listing through the `gsi1` index
//! (see docs/data-model.md). Storage answers its own errors ([`StoreError`]); what they mean to a
//! client is decided above it.

mod batches;
pub mod counting;
mod expressions;
mod failures;
pub mod gate;
pub mod item;
pub mod keys;
mod listing;
pub mod meter;
pub mod postings;
pub mod records;
pub mod refs;
pub mod shards;
pub mod stored;
pub mod turns;
pub mod window;
mod writes;

use std::sync::Arc;

use anyhow::Context as _;
use aws_sdk_dynamodb::types::AttributeValue;
use aws_sdk_dynamodb::Client;

pub use expressions::{Condition, Update};
pub use item::{CounterValue, Item, KeyItem};
pub use listing::{IndexEntry, KeyRange, Page, Sort};
pub use writes::{Write, MAX_TRANSACTION_ITEMS};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The condition of these writes (indexes into the list given to [`Store::write`]) failed.
    #[error("condition failed on writes {0:?}")]
    ConditionFailed(Vec<usize>),
    /// The value a uniqueness guard protects is another record's.
    #[error("the unique value is taken")]
    Duplicate,
    /// Another transaction touched the same items at the same moment; the caller may retry.
    #[error("transaction conflict")]
    Conflict,
    /// DynamoDB refused the request for throughput (a partition, index or table over its
    /// capacity), after the SDK's own retries: wait and try again.
    #[error("throttled: {0:#}")]
    Throttled(anyhow::Error),
    /// DynamoDB failed on its side, or did not answer in time, after the SDK's own retries: wait
    /// and try again (a write may have been applied).
    #[error("unavailable: {0:#}")]
    Unavailable(anyhow::Error),
    /// An item that does not map to its record type (or a record that does not map to an item).
    #[error("item mapping: {0}")]
    Mapping(String),
    /// The request these writes belong to was refused before them (its rate limit, counted
    /// beside it: [`gate`]); nothing was written.
    #[error("the request was refused before its writes")]
    Refused,
    /// More writes than one transaction takes ([`MAX_TRANSACTION_ITEMS`]); none was sent.
    #[error("{0} writes exceed one transaction")]
    TooManyWrites(usize),
    #[error(transparent)]
    Other(#[from] anyhow::Error),
}

impl StoreError {
    pub fn failed_at(&self, index: usize) -> bool {
        matches!(self, StoreError::ConditionFailed(failed) if failed.contains(&index))
    }

    /// Weather, not an answer: a conflict, a throttle or an outage, which the same request may
    /// get past a moment later.
    pub fn is_transient(&self) -> bool {
        matches!(self, StoreError::Conflict | StoreError::Throttled(_) | StoreError::Unavailable(_))
    }
}

pub type StoreResult<T> = Result<T, StoreError>;

/// Ids a process reserves from a sequence at a time ([`Store::ids_from_block`]).
const ID_BLOCK: i64 = 20;

type IdBlocks = std::collections::HashMap<(String, String, String), (i64, i64)>;

/// Per (table, sequence): the next id of this process's block and the end of the block.
static ID_BLOCKS: std::sync::LazyLock<std::sync::Mutex<IdBlocks>> = std::sync::LazyLock::new(Default::default);

fn take_from_block(key: &(String, String, String), count: i64) -> Option<i64> {
    let mut blocks = ID_BLOCKS.lock().expect("id blocks");
    let (next, end) = blocks.get_mut(key)?;
    if *next + count > *end {
        return None;
    }
    let first = *next;
    *next += count;
    Some(first)
}

/// The DynamoDB client, made at its first call: a function's init does not wait for it (about
/// a quarter of a millisecond, docs/cold-start.md).
type Db = Arc<std::sync::LazyLock<Client, Box<dyn FnOnce() -> Client + Send>>>;

/// The table and its client. Cheap to clone; built once per process.
#[derive(Clone, Debug)]
pub struct Store {
    db: Db,
    table: Arc<str>,
    /// Counts reads when attached (benchmarks).
    meter: Option<Arc<meter::ReadMeter>>,
    /// Told the keys of every item this store puts, when attached: the dev server's stand-in for
    /// the table's stream (`outbox::LocalStream`).
    stream: Option<tokio::sync::mpsc::UnboundedSender<(String, String)>>,
}

impl Store {
    /// A store on `table` through `db`, whose calls give up after [`crate::config::timeouts`].
    pub fn new(db: Client, table: impl Into<Arc<str>>) -> Self {
        Store::lazily(db.config().to_builder(), table)
    }

    /// [`Store::new`] waiting `timeouts` instead of the service's: a bench against an emulator far
    /// slower than DynamoDB on a large table (`infra/bench scale`).
    pub fn with_timeouts(
        db: Client,
        table: impl Into<Arc<str>>,
        timeouts: aws_sdk_dynamodb::config::timeout::TimeoutConfig,
    ) -> Self {
        Store::lazily_with(db.config().to_builder(), table, timeouts)
    }

    /// A store whose client is made from `config` (with [`crate::config::timeouts`]) at its first
    /// call.
    fn lazily(config: aws_sdk_dynamodb::config::Builder, table: impl Into<Arc<str>>) -> Self {
        Store::lazily_with(config, table, crate::config::timeouts())
    }

    fn lazily_with(
        config: aws_sdk_dynamodb::config::Builder,
        table: impl Into<Arc<str>>,
        timeouts: aws_sdk_dynamodb::config::timeout::TimeoutConfig,
    ) -> Self {
        let config = config.timeout_config(timeouts);
        let db: Db = Arc::new(std::sync::LazyLock::new(Box::new(move || Client::from_conf(config.build()))));
        Store { db, table: table.into(), meter: None, stream: None }
    }

    /// The same store, telling `stream` the keys of every item it puts (`write`), as the table's
    /// stream tells the outbox dispatcher on AWS.
    pub fn with_stream(self, stream: tokio::sync::mpsc::UnboundedSender<(String, String)>) -> Self {
        Store { stream: Some(stream), ..self }
    }

    fn stream_attached(&self) -> bool {
        self.stream.is_some()
    }

    /// Tells the attached stream about the items these writes put.
    pub(crate) fn streamed(&self, writes: &[Write]) {
        let Some(stream) = &self.stream else { return };
        for write in writes {
            if let Write::Put { item, .. } = write {
                // A receiver gone (the server stopping) only means nobody listens any more.
                let _ = stream.send(KeyItem::keys_of(item));
            }
        }
    }

    /// The same store, counting its reads on `meter`.
    pub fn with_meter(self, meter: Arc<meter::ReadMeter>) -> Self {
        Store { meter: Some(meter), ..self }
    }

    pub(crate) fn metered(&self, record: impl FnOnce(&meter::ReadMeter)) {
        if let Some(meter) = &self.meter {
            record(meter);
        }
    }

    /// The table named by `TABLE_NAME`, with the SDK configured from the environment.
    pub async fn from_env() -> Self {
        Store::from_config(&crate::config::aws().await)
    }

    /// The table `TABLE_NAME` names, through a client of `config` (a process that also builds
    /// other clients from it).
    pub fn from_config(config: &aws_config::SdkConfig) -> Self {
        Store::lazily(config.into(), crate::config::table_name())
    }

    pub fn client(&self) -> &Client {
        &self.db
    }

    pub fn table(&self) -> &str {
        &self.table
    }

    /// The value of a counter item (zero when it does not exist yet).
    pub async fn counter(&self, pk: String, sk: String) -> StoreResult<i64> {
        Ok(match self.get(pk, sk).await? {
            Some(found) => item::from_item::<CounterValue>(found)?.value,
            None => 0,
        })
    }

    /// Strongly consistent read of one item.
    pub async fn get(&self, pk: String, sk: impl Into<String>) -> StoreResult<Option<Item>> {
        let output = self
            .db
            .get_item()
            .table_name(self.table())
            .key("pk", AttributeValue::S(pk))
            .key("sk", AttributeValue::S(sk.into()))
            .consistent_read(true)
            .send()
            .await
            .map_err(|e| failures::failed("GetItem", e))?;
        self.metered(|m| m.query(output.item.as_slice(), true));
        Ok(output.item)
    }

    /// Reserves `count` consecutive ids of a sequence in one request; returns the first.
    pub async fn reserve_ids(&self, pk: String, sk: String, count: i64) -> StoreResult<i64> {
        Ok(self.add(pk, sk, count, None).await? - count + 1)
    }

    /// `count` consecutive ids of a sequence from this process's block of it, reserving a new
    /// block of at least [`ID_BLOCK`] ids when this one runs out: a sequence is written once per
    /// block, not once per record, so creates do not all write the same item. Ids stay unique;
    /// across processes they are no longer in creation order, and a process that ends leaves the
    /// rest of its block unused.
    pub async fn ids_from_block(&self, pk: String, sk: String, count: i64) -> StoreResult<i64> {
        let key = (self.table.to_string(), pk.clone(), sk.clone());
        if let Some(first) = take_from_block(&key, count) {
            return Ok(first);
        }
        // One refill at a time per sequence: requests that find the block empty together wait for
        // the first one's refill and take from it, instead of each reserving a block of its own
        // (which wrote the sequence once per request, and left each request the first id of a
        // block: the same shard of every posting).
        // Past the request's gate before taking the refill's turn (`store::gate`).
        gate::passed().await?;
        let _refilling = turns::turn_of((format!("{} {pk}", self.table), sk.clone())).lock_owned().await;
        if let Some(first) = take_from_block(&key, count) {
            return Ok(first);
        }
        let size = count.max(ID_BLOCK);
        let first = self.reserve_ids(pk, sk, size).await?;
        let mut blocks = ID_BLOCKS.lock().expect("id blocks");
        blocks.insert(key, (first + count, first + size));
        Ok(first)
    }

    /// Next value of a sequence item (`UpdateItem ADD`, atomic across processes).
    pub async fn next_id(&self, pk: String, sk: String) -> StoreResult<i64> {
        self.add(pk, sk, 1, None).await
    }

    /// Counts one more hit on a counter that DynamoDB's TTL removes after `expires_at` (unix
    /// seconds); returns the count including this hit.
    pub async fn count_hit(&self, pk: String, sk: String, expires_at: i64) -> StoreResult<i64> {
        self.add(pk, sk, 1, Some(expires_at)).await
    }

    /// `ADD value :by` on one item (created at 0 if missing), in one atomic request; the new value.
    async fn add(&self, pk: String, sk: String, by: i64, expires_at: Option<i64>) -> StoreResult<i64> {
        let mut update = self
            .db
            .update_item()
            .table_name(self.table())
            .key("pk", AttributeValue::S(pk))
            .key("sk", AttributeValue::S(sk))
            .expression_attribute_names("#value", keys::counter::COUNT_ATTRIBUTE)
            .expression_attribute_values(":by", AttributeValue::N(by.to_string()))
            .return_values(aws_sdk_dynamodb::types::ReturnValue::UpdatedNew);
        gate::passed().await?;
        update = match expires_at {
            None => update.update_expression("ADD #value :by"),
            Some(at) => update
                .update_expression("ADD #value :by SET expires_at = :expires_at")
                .expression_attribute_values(":expires_at", AttributeValue::N(at.to_string())),
        };
        self.metered(|m| m.write());
        let output = update.send().await.map_err(|e| failures::failed("UpdateItem ADD on a counter", e))?;
        let attributes = output.attributes.context("the counter returned no attributes")?;
        Ok(item::from_item::<CounterValue>(attributes)?.value)
    }
}
