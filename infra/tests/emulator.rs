//! The local emulator behaves like DynamoDB where the service depends on it: a cancelled
//! transaction leaves every item it named as it was (infra/local/moto_server.py restores the items
//! a transaction names instead of a copy of the whole table).

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use billing_api::store::{Condition, Item, Store, StoreError, Write};

fn item(pk: &str, sk: &str, value: i64) -> Item {
    HashMap::from([
        ("pk".to_owned(), AttributeValue::S(pk.to_owned())),
        ("sk".to_owned(), AttributeValue::S(sk.to_owned())),
        ("value".to_owned(), AttributeValue::N(value.to_string())),
    ])
}

async fn value(store: &Store, pk: &str, sk: &str) -> Option<String> {
    let found = store.get(pk.to_owned(), sk).await.unwrap()?;
    found.get("value").and_then(|v| v.as_n().ok()).cloned()
}

#[tokio::test]
async fn a_cancelled_transaction_changes_nothing_it_named() {
    let (_, store) = infra::testing::local_stack().await;
    let pk = format!("EMULATOR#{:016x}", rand::random::<u64>());
    store.write(vec![Write::put(item(&pk, "kept", 1))]).await.unwrap();
    store.write(vec![Write::put(item(&pk, "deleted", 2))]).await.unwrap();
    store.write(vec![Write::put(item(&pk, "guard", 3))]).await.unwrap();

    let writes = vec![
        Write::put(item(&pk, "kept", 10)),
        Write::put(item(&pk, "created", 20)),
        Write::delete(pk.clone(), "deleted".to_owned()),
        Write::add(pk.clone(), "counter".to_owned(), "value", 5),
        // Fails: the guard exists.
        Write::put_if(item(&pk, "guard", 30), Condition::absent()),
    ];
    let result = store.write(writes).await;
    assert!(matches!(result, Err(StoreError::ConditionFailed(ref failed)) if failed == &[4]), "{result:?}");

    assert_eq!(value(&store, &pk, "kept").await.as_deref(), Some("1"));
    assert_eq!(value(&store, &pk, "deleted").await.as_deref(), Some("2"));
    assert_eq!(value(&store, &pk, "guard").await.as_deref(), Some("3"));
    assert_eq!(value(&store, &pk, "created").await, None);
    assert_eq!(value(&store, &pk, "counter").await, None);

    // And one that goes through applies everything.
    let writes = vec![
        Write::put(item(&pk, "kept", 10)),
        Write::delete(pk.clone(), "deleted".to_owned()),
        Write::add(pk.clone(), "counter".to_owned(), "value", 5),
    ];
    store.write(writes).await.unwrap();
    assert_eq!(value(&store, &pk, "kept").await.as_deref(), Some("10"));
    assert_eq!(value(&store, &pk, "deleted").await, None);
    assert_eq!(value(&store, &pk, "counter").await.as_deref(), Some("5"));
}
