//! Writes with conditions, sent as one transaction when there are several, so that a failure
//! saves nothing.

use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{self, AttributeValue, TransactWriteItem};

use super::expressions::{Condition, Expressions, Update};
use super::failures::{self, failed};
use super::{Item, Store, StoreError, StoreResult};

#[derive(Clone, Debug)]
pub enum Write {
    Put {
        item: Item,
        condition: Option<Condition>,
    },
    Delete {
        pk: String,
        sk: String,
        condition: Option<Condition>,
    },
    /// Only a condition on another item, checked inside the transaction.
    Check {
        pk: String,
        sk: String,
        condition: Condition,
    },
    /// A change of some attributes of one item, under an optional condition.
    Update {
        pk: String,
        sk: String,
        update: Update,
        condition: Option<Condition>,
    },
}

impl Write {
    pub fn put(item: Item) -> Self {
        Write::Put { item, condition: None }
    }

    /// A key-only item (a list's key item, a link), whatever is there.
    pub fn put_keys(pk: String, sk: String) -> Self {
        Write::put(Item::from([("pk".to_owned(), AttributeValue::S(pk)), ("sk".to_owned(), AttributeValue::S(sk))]))
    }

    pub fn put_if(item: Item, condition: Condition) -> Self {
        Write::Put { item, condition: Some(condition) }
    }

    pub fn delete(pk: String, sk: String) -> Self {
        Write::Delete { pk, sk, condition: None }
    }

    pub fn delete_if(pk: String, sk: String, condition: Condition) -> Self {
        Write::Delete { pk, sk, condition: Some(condition) }
    }

    /// The other item must exist.
    pub fn check_exists(pk: String, sk: String) -> Self {
        Write::Check { pk, sk, condition: Condition::present() }
    }

    /// `update` on the item, under `condition` when given.
    pub fn update(pk: String, sk: String, update: Update, condition: Option<Condition>) -> Self {
        Write::Update { pk, sk, update, condition }
    }

    /// `ADD attribute delta` on a counter item (created at 0 when missing).
    pub fn add(pk: String, sk: String, attribute: &str, delta: i64) -> Self {
        Write::update(pk, sk, Update::new().add(attribute, delta), None)
    }

    /// `ADD attribute delta` on a counter item, provided the count stays at most `max` (the
    /// condition fails otherwise). Meant for positive deltas.
    pub fn add_up_to(pk: String, sk: String, attribute: &str, delta: i64, max: i64) -> Self {
        let bound = Condition::missing(attribute).or(Condition::at_most(attribute, &(max - delta)));
        Write::update(pk, sk, Update::new().add(attribute, delta), Some(bound))
    }

    /// The keys of the item this write adds to (an update that adds to a number: a counter's or a
    /// reference count's shard, a total), which other writers share.
    fn added_to(&self) -> Option<(String, String)> {
        match self {
            Write::Update { pk, sk, update, .. } if update.adds() => Some((pk.clone(), sk.clone())),
            _ => None,
        }
    }

    fn into_transact_item(self, table: &str) -> StoreResult<TransactWriteItem> {
        let builder = TransactWriteItem::builder();
        let built = |e: aws_sdk_dynamodb::error::BuildError| StoreError::Other(e.into());
        Ok(match self {
            Write::Put { item, condition } => {
                let e = Expressions::of(None, condition.as_ref())?;
                let put = types::Put::builder()
                    .table_name(table)
                    .set_item(Some(item))
                    .set_condition_expression(e.condition)
                    .set_expression_attribute_names(e.names)
                    .set_expression_attribute_values(e.values)
                    .build()
                    .map_err(built)?;
                builder.put(put).build()
            }
            Write::Delete { pk, sk, condition } => {
                let e = Expressions::of(None, condition.as_ref())?;
                let delete = types::Delete::builder()
                    .table_name(table)
                    .key("pk", AttributeValue::S(pk))
                    .key("sk", AttributeValue::S(sk))
                    .set_condition_expression(e.condition)
                    .set_expression_attribute_names(e.names)
                    .set_expression_attribute_values(e.values)
                    .build()
                    .map_err(built)?;
                builder.delete(delete).build()
            }
            Write::Check { pk, sk, condition } => {
                let e = Expressions::of(None, Some(&condition))?;
                let check = types::ConditionCheck::builder()
                    .table_name(table)
                    .key("pk", AttributeValue::S(pk))
                    .key("sk", AttributeValue::S(sk))
                    .set_condition_expression(e.condition)
                    .set_expression_attribute_names(e.names)
                    .set_expression_attribute_values(e.values)
                    .build()
                    .map_err(built)?;
                builder.condition_check(check).build()
            }
            Write::Update { pk, sk, update, condition } => {
                let e = Expressions::of(Some(&update), condition.as_ref())?;
                let update = types::Update::builder()
                    .table_name(table)
                    .key("pk", AttributeValue::S(pk))
                    .key("sk", AttributeValue::S(sk))
                    .set_update_expression(e.update)
                    .set_condition_expression(e.condition)
                    .set_expression_attribute_names(e.names)
                    .set_expression_attribute_values(e.values)
                    .build()
                    .map_err(built)?;
                builder.update(update).build()
            }
        })
    }
}

/// How long [`Store::write`] keeps trying a write that was certainly not applied (or a
/// transaction, with its token): short beside an API request's own budget (`contention`).
const WRITE_BUDGET: std::time::Duration = std::time::Duration::from_secs(2);

/// DynamoDB's limit of items in one transaction.
pub const MAX_TRANSACTION_ITEMS: usize = 100;

impl Store {
    /// Applies all writes or none. One write is sent on its own (half the cost of a transaction).
    ///
    /// What was certainly not applied is tried again, as it was, for up to [`WRITE_BUDGET`]: a
    /// write DynamoDB throttled, or cancelled because another transaction held one of its items
    /// (the SDK retries neither the cancellation nor a `TransactionConflictException`). A
    /// transaction whose answer was lost (a server error, a timeout) is tried again too, with the
    /// same `ClientRequestToken`, so that DynamoDB answers for the first attempt if it was
    /// applied instead of applying it twice. Anything still failing is the caller's: a lost race
    /// to read again, a throttle or outage to answer `503`.
    pub async fn write(&self, writes: Vec<Write>) -> StoreResult<()> {
        // Past the request's gate before taking turns on shared items (`store::gate`).
        super::gate::passed().await?;
        let streamed = self.stream_attached().then(|| writes.clone());
        let token = uuid::Uuid::new_v4().to_string();
        let deadline = tokio::time::Instant::now() + WRITE_BUDGET;
        let mut ceiling = std::time::Duration::from_millis(10);
        // The counters and reference counts a transaction adds to are the items other writers
        // share: writers of this process take turns on them (`store::turns`).
        let shared: Vec<super::turns::ItemKey> = match writes.len() {
            1 => Vec::new(),
            _ => writes.iter().filter_map(Write::added_to).collect(),
        };
        loop {
            let transaction = writes.len() > 1 || matches!(writes.first(), Some(Write::Check { .. }));
            let turns = super::turns::take(shared.clone()).await;
            let result = self.write_all(writes.clone(), &token).await;
            drop(turns);
            let again = match &result {
                Err(StoreError::Conflict | StoreError::Throttled(_)) => true,
                Err(StoreError::Unavailable(_)) => transaction,
                _ => false,
            };
            let pause = ceiling.mul_f64(rand::random::<f64>());
            if !again || tokio::time::Instant::now() + pause >= deadline {
                result?;
                break;
            }
            tokio::time::sleep(pause).await;
            ceiling = (ceiling * 2).min(std::time::Duration::from_millis(250));
        }
        if let Some(writes) = streamed {
            self.streamed(&writes);
        }
        Ok(())
    }

    async fn write_all(&self, writes: Vec<Write>, token: &str) -> StoreResult<()> {
        match writes.len() {
            0 => Ok(()),
            1 if !matches!(writes[0], Write::Check { .. }) => {
                self.write_one(writes.into_iter().next().expect("one write")).await
            }
            n if n > MAX_TRANSACTION_ITEMS => Err(StoreError::TooManyWrites(n)),
            _ => self.transact(writes, token).await,
        }
    }

    async fn write_one(&self, write: Write) -> StoreResult<()> {
        match write {
            Write::Put { item, condition } => {
                let e = Expressions::of(None, condition.as_ref())?;
                self.metered(|m| m.write());
                let result = self
                    .client()
                    .put_item()
                    .table_name(self.table())
                    .set_item(Some(item.clone()))
                    .set_condition_expression(e.condition)
                    .set_expression_attribute_names(e.names)
                    .set_expression_attribute_values(e.values)
                    .return_values_on_condition_check_failure(types::ReturnValuesOnConditionCheckFailure::AllOld)
                    .send()
                    .await;
                // A condition failing on the very item this put writes is this put: applied, its
                // answer lost, and tried again by the SDK (DynamoDB answers a retried put anew).
                let own = |error: &SdkError<aws_sdk_dynamodb::operation::put_item::PutItemError, _>| {
                    let found = match error.as_service_error() {
                        Some(aws_sdk_dynamodb::operation::put_item::PutItemError::ConditionalCheckFailedException(
                            e,
                        )) => e.item(),
                        _ => None,
                    };
                    found == Some(&item)
                };
                match result {
                    Err(error) if own(&error) => Ok(()),
                    other => settled(other),
                }
            }
            Write::Delete { pk, sk, condition } => {
                let e = Expressions::of(None, condition.as_ref())?;
                self.metered(|m| m.write());
                let result = self
                    .client()
                    .delete_item()
                    .table_name(self.table())
                    .key("pk", AttributeValue::S(pk))
                    .key("sk", AttributeValue::S(sk))
                    .set_condition_expression(e.condition)
                    .set_expression_attribute_names(e.names)
                    .set_expression_attribute_values(e.values)
                    .send()
                    .await;
                settled(result)
            }
            Write::Update { pk, sk, update, condition } => {
                let e = Expressions::of(Some(&update), condition.as_ref())?;
                self.metered(|m| m.write());
                let result = self
                    .client()
                    .update_item()
                    .table_name(self.table())
                    .key("pk", AttributeValue::S(pk))
                    .key("sk", AttributeValue::S(sk))
                    .set_update_expression(e.update)
                    .set_condition_expression(e.condition)
                    .set_expression_attribute_names(e.names)
                    .set_expression_attribute_values(e.values)
                    .send()
                    .await;
                settled(result)
            }
            check => self.transact(vec![check], &uuid::Uuid::new_v4().to_string()).await,
        }
    }

    /// One `TransactWriteItems` with this idempotency token.
    async fn transact(&self, writes: Vec<Write>, token: &str) -> StoreResult<()> {
        let items = writes.into_iter().map(|w| w.into_transact_item(self.table())).collect::<StoreResult<Vec<_>>>()?;
        let request = self.client().transact_write_items().set_transact_items(Some(items)).client_request_token(token);
        self.metered(|m| m.write());
        match request.send().await {
            Ok(_) => Ok(()),
            Err(error) => Err(transaction_error(error)),
        }
    }
}

/// A single-item write's outcome: a failed condition is [`StoreError::ConditionFailed`], the rest
/// as `failures` sorts it.
fn settled<O, E>(result: Result<O, SdkError<E, aws_smithy_runtime_api::http::Response>>) -> StoreResult<()>
where
    E: aws_sdk_dynamodb::error::ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
{
    result.map(|_| ()).map_err(|e| failed("write", e))
}

fn transaction_error(error: SdkError<TransactWriteItemsError>) -> StoreError {
    if let Some(TransactWriteItemsError::TransactionCanceledException(cancelled)) = error.as_service_error() {
        if let Some(known) = failures::cancelled(cancelled.cancellation_reasons()) {
            return known;
        }
    }
    failed("TransactWriteItems", error)
}
