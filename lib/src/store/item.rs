//! Items and their mapping: every stored record goes to and from its DynamoDB item through
//! `serde` and `serde_dynamo`, so a record type's fields are its attribute names. Decimals (money,
//! rates) are DynamoDB numbers, through [`number`].

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::{StoreError, StoreResult};

pub type Item = HashMap<String, AttributeValue>;

/// The item of a value whose fields are attributes.
pub fn to_item<T: Serialize>(value: &T) -> StoreResult<Item> {
    serde_dynamo::to_item(value).map_err(|e| StoreError::Mapping(e.to_string()))
}

/// The item of a record whose type carries no keys: its fields, then its keys, its `kind` (when it
/// has one) and, when given, its entry in the `gsi1` index (`gsi1pk`, `gsi1sk`).
pub(super) fn keyed<T: Serialize>(
    value: &T,
    (pk, sk): (String, String),
    kind: Option<&str>,
    index: Option<(String, String)>,
) -> StoreResult<Item> {
    let mut item = to_item(value)?;
    item.insert("pk".to_owned(), AttributeValue::S(pk));
    item.insert("sk".to_owned(), AttributeValue::S(sk));
    if let Some(kind) = kind {
        item.insert("kind".to_owned(), AttributeValue::S(kind.to_owned()));
    }
    if let Some((gsi1pk, gsi1sk)) = index {
        item.insert("gsi1pk".to_owned(), AttributeValue::S(gsi1pk));
        item.insert("gsi1sk".to_owned(), AttributeValue::S(gsi1sk));
    }
    Ok(item)
}

/// The value an item holds (attributes it does not name are ignored).
pub fn from_item<T: DeserializeOwned>(item: Item) -> StoreResult<T> {
    serde_dynamo::from_item(item).map_err(|e| StoreError::Mapping(e.to_string()))
}

/// A value as one attribute (a struct as a map).
pub fn to_attribute<T: Serialize>(value: &T) -> StoreResult<AttributeValue> {
    serde_dynamo::to_attribute_value(value).map_err(|e| StoreError::Mapping(e.to_string()))
}

/// One attribute as a value of `T`.
pub fn from_attribute<T: DeserializeOwned>(value: AttributeValue) -> StoreResult<T> {
    serde_dynamo::from_attribute_value(value).map_err(|e| StoreError::Mapping(e.to_string()))
}

/// The text an item holds in `attribute` (`None` when missing or not a text).
pub fn text<'a>(item: &'a Item, attribute: &str) -> Option<&'a str> {
    match item.get(attribute) {
        Some(AttributeValue::S(text)) => Some(text),
        _ => None,
    }
}

/// Copies the attributes `names` of the map `map` onto the item where the item lacks them (an
/// upgrade of items that kept them only in the map).
pub fn lift(item: &mut Item, map: &str, names: &[&str]) {
    let Some(AttributeValue::M(fields)) = item.get(map).cloned() else { return };
    for name in names {
        if !item.contains_key(*name) {
            if let Some(value) = fields.get(*name) {
                item.insert((*name).to_owned(), value.clone());
            }
        }
    }
}

/// The bytes an item holds in `attribute` (`None` when missing or not binary).
pub fn binary<'a>(item: &'a Item, attribute: &str) -> Option<&'a [u8]> {
    match item.get(attribute) {
        Some(AttributeValue::B(bytes)) => Some(bytes.as_ref()),
        _ => None,
    }
}

/// An item of nothing but its keys (links, key partitions).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct KeyItem {
    pub pk: String,
    pub sk: String,
}

impl KeyItem {
    /// The table keys of an item (empty when absent).
    pub fn keys_of(item: &Item) -> (String, String) {
        let text = |key: &str| match item.get(key) {
            Some(AttributeValue::S(value)) => value.clone(),
            _ => String::new(),
        };
        (text("pk"), text("sk"))
    }
}

/// The `value` of a counter or sequence item (`keys::counter::COUNT_ATTRIBUTE`).
#[derive(Clone, Copy, Debug, Default, Deserialize)]
pub struct CounterValue {
    #[serde(default)]
    pub value: i64,
}

/// Decimals as DynamoDB numbers: written from their exact text, read back exactly (through the
/// shortest text of a float, which is exact for every value the service admits: up to 15
/// significant digits). Use with `#[serde(with = "crate::store::item::number")]` on a `Decimal`
/// or `Money` field; `number::option` for an `Option` of one.
pub mod number {
    use rust_decimal::Decimal;
    use serde::{Deserializer, Serializer};

    use crate::values::money::DecimalVisitor;

    pub fn serialize<S: Serializer, T: Copy + Into<Decimal>>(value: &T, serializer: S) -> Result<S::Ok, S::Error> {
        let text = (*value).into().normalize().to_string();
        let number: f64 = text.parse().map_err(serde::ser::Error::custom)?;
        serializer.serialize_f64(number)
    }

    pub fn deserialize<'de, D: Deserializer<'de>, T: From<Decimal>>(deserializer: D) -> Result<T, D::Error> {
        deserializer.deserialize_any(DecimalVisitor).map(T::from)
    }

    pub mod option {
        use rust_decimal::Decimal;
        use serde::{Deserialize, Deserializer, Serializer};

        pub fn serialize<S: Serializer, T: Copy + Into<Decimal>>(
            value: &Option<T>,
            serializer: S,
        ) -> Result<S::Ok, S::Error> {
            match value {
                Some(value) => super::serialize(value, serializer),
                None => serializer.serialize_none(),
            }
        }

        pub fn deserialize<'de, D: Deserializer<'de>, T: From<Decimal>>(
            deserializer: D,
        ) -> Result<Option<T>, D::Error> {
            #[derive(serde::Deserialize)]
            struct Number(#[serde(with = "super")] Decimal);
            Ok(Option::<Number>::deserialize(deserializer)?.map(|n| T::from(n.0)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::Money;
    use rust_decimal::Decimal;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Priced {
        #[serde(with = "number")]
        amount: Money,
        #[serde(with = "number::option")]
        rate: Option<Decimal>,
        #[serde(with = "number::option", default)]
        missing: Option<Decimal>,
    }

    #[test]
    fn decimals_are_exact_numbers() {
        let value = Priced {
            amount: Money::parse("99999999.99").unwrap(),
            rate: Some("0.033".parse().unwrap()),
            missing: None,
        };
        let item = to_item(&value).unwrap();
        assert_eq!(item["amount"], AttributeValue::N("99999999.99".into()));
        assert_eq!(item["rate"], AttributeValue::N("0.033".into()));
        assert_eq!(item["missing"], AttributeValue::Null(true));
        assert_eq!(from_item::<Priced>(item).unwrap(), value);
        // Integers and attributes left out read as well.
        let stored: Item = HashMap::from([
            ("amount".to_owned(), AttributeValue::N("150".into())),
            ("rate".to_owned(), AttributeValue::Null(true)),
        ]);
        let read: Priced = from_item(stored).unwrap();
        assert_eq!((read.amount.to_string(), read.rate, read.missing), ("150.00".to_owned(), None, None));
    }
}
