//! Batches of items by their keys: puts and deletes, 25 to a `BatchWriteItem`, and gets, 100 to a
//! `BatchGetItem`, each asking again for what DynamoDB left unprocessed.

use std::collections::HashMap;

use anyhow::Context as _;
use aws_sdk_dynamodb::types::{AttributeValue, KeysAndAttributes};

use super::failures::failed;
use super::{Item, Store, StoreResult};

/// Batch writes of [`Store::put_all`] in flight at once (16 × 25 = 400 items).
const PUT_BATCHES_AT_ONCE: usize = 16;

/// `BatchGetItem` takes at most this many keys.
const BATCH_GET_LIMIT: usize = 100;

impl Store {
    /// Puts these items (no conditions), 25 per `BatchWriteItem`, up to [`PUT_BATCHES_AT_ONCE`]
    /// batches at a time, asking again for what DynamoDB left unprocessed: one round trip for a
    /// few hundred key-only items, and a bounded number of requests in flight for any number.
    pub async fn put_all(&self, items: Vec<Item>) -> StoreResult<()> {
        use aws_sdk_dynamodb::types::{PutRequest, WriteRequest};
        use futures::stream::{self, StreamExt, TryStreamExt};
        let mut batches = Vec::new();
        for chunk in items.chunks(25) {
            let mut requests = Vec::new();
            for item in chunk {
                let put = PutRequest::builder().set_item(Some(item.clone())).build().context("put request")?;
                requests.push(WriteRequest::builder().put_request(put).build());
            }
            batches.push(requests);
        }
        stream::iter(batches)
            .map(|requests| self.batch_write(requests))
            .buffer_unordered(PUT_BATCHES_AT_ONCE)
            .try_collect::<Vec<()>>()
            .await?;
        Ok(())
    }

    /// One `BatchWriteItem` of at most 25 requests, until DynamoDB has processed them all.
    async fn batch_write(&self, requests: Vec<aws_sdk_dynamodb::types::WriteRequest>) -> StoreResult<()> {
        super::gate::passed().await?;
        let mut pending = Some(HashMap::from([(self.table().to_owned(), requests)]));
        let mut round = 0u64;
        while let Some(items) = pending.take() {
            self.metered(|m| m.write());
            let output = self
                .client()
                .batch_write_item()
                .set_request_items(Some(items))
                .send()
                .await
                .map_err(|e| failed("BatchWriteItem", e))?;
            if let Some(unprocessed) = output.unprocessed_items.filter(|u| !u.is_empty()) {
                round += 1;
                tokio::time::sleep(std::time::Duration::from_millis(20 * round.min(10))).await;
                pending = Some(unprocessed);
            }
        }
        Ok(())
    }

    /// Deletes these items, 25 per `BatchWriteItem` (one batch after another), asking again for
    /// what DynamoDB left unprocessed.
    pub async fn delete_all(&self, keys: Vec<(String, String)>) -> StoreResult<()> {
        use aws_sdk_dynamodb::types::{DeleteRequest, WriteRequest};
        for chunk in keys.chunks(25) {
            let mut requests = Vec::new();
            for (pk, sk) in chunk {
                let delete = DeleteRequest::builder()
                    .key("pk", AttributeValue::S(pk.clone()))
                    .key("sk", AttributeValue::S(sk.clone()))
                    .build()
                    .context("delete request")?;
                requests.push(WriteRequest::builder().delete_request(delete).build());
            }
            self.batch_write(requests).await?;
        }
        Ok(())
    }

    /// The items with these keys, in the order asked; keys with no item are skipped.
    pub async fn batch_get(&self, keys: &[(String, String)]) -> StoreResult<Vec<Item>> {
        let mut found: HashMap<(String, String), Item> = HashMap::new();
        for chunk in keys.chunks(BATCH_GET_LIMIT) {
            let mut request = KeysAndAttributes::builder();
            for (pk, sk) in chunk {
                request = request.keys(HashMap::from([
                    ("pk".to_owned(), AttributeValue::S(pk.clone())),
                    ("sk".to_owned(), AttributeValue::S(sk.clone())),
                ]));
            }
            let mut pending = Some(HashMap::from([(self.table().to_owned(), request.build().context("batch keys")?)]));
            let mut round = 0u32;
            while let Some(request_items) = pending.take() {
                let output = self
                    .client()
                    .batch_get_item()
                    .set_request_items(Some(request_items))
                    .send()
                    .await
                    .map_err(|e| failed("BatchGetItem", e))?;
                self.metered(|m| {
                    let empty = Vec::new();
                    let responses = output.responses.as_ref().and_then(|r| r.get(self.table()));
                    m.batch(responses.unwrap_or(&empty), false)
                });
                for item in output.responses.unwrap_or_default().remove(self.table()).unwrap_or_default() {
                    let key = (
                        item.get("pk").and_then(|v| v.as_s().ok()).cloned().unwrap_or_default(),
                        item.get("sk").and_then(|v| v.as_s().ok()).cloned().unwrap_or_default(),
                    );
                    found.insert(key, item);
                }
                // Keys DynamoDB did not process this time are asked again after a short pause.
                if let Some(unprocessed) = output.unprocessed_keys.filter(|u| !u.is_empty()) {
                    round += 1;
                    tokio::time::sleep(std::time::Duration::from_millis(20 * u64::from(round.min(10)))).await;
                    pending = Some(unprocessed);
                }
            }
        }
        Ok(keys.iter().filter_map(|key| found.remove(key)).collect())
    }
}
