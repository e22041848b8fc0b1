//! Reading and writing attribute values.

use std::collections::HashMap;

use anyhow::{anyhow, Context as _};
use aws_sdk_dynamodb::types::AttributeValue;

use crate::time::Timestamp;

pub type Item = HashMap<String, AttributeValue>;

pub fn s(value: impl Into<String>) -> AttributeValue {
    AttributeValue::S(value.into())
}

pub fn n(value: impl ToString) -> AttributeValue {
    AttributeValue::N(value.to_string())
}

pub fn b(value: bool) -> AttributeValue {
    AttributeValue::Bool(value)
}

/// A number, or an explicit NULL when absent.
pub fn opt_n(value: Option<i64>) -> AttributeValue {
    value.map(n).unwrap_or(AttributeValue::Null(true))
}

/// A decimal as a number, without trailing zeros.
pub fn dec(value: rust_decimal::Decimal) -> AttributeValue {
    AttributeValue::N(value.normalize().to_string())
}

/// A string, or an explicit NULL when absent.
pub fn opt_s(value: Option<impl Into<String>>) -> AttributeValue {
    value.map(s).unwrap_or(AttributeValue::Null(true))
}

pub trait ItemExt {
    fn string(&self, key: &str) -> anyhow::Result<String>;
    fn opt_string(&self, key: &str) -> Option<String>;
    fn int(&self, key: &str) -> anyhow::Result<i64>;
    fn opt_int(&self, key: &str) -> Option<i64>;
    fn boolean(&self, key: &str) -> anyhow::Result<bool>;
    fn timestamp(&self, key: &str) -> anyhow::Result<Timestamp>;
    fn opt_timestamp(&self, key: &str) -> Option<Timestamp>;
}

impl ItemExt for Item {
    fn string(&self, key: &str) -> anyhow::Result<String> {
        self.opt_string(key).ok_or_else(|| anyhow!("attribute {key} missing or not a string"))
    }

    fn opt_string(&self, key: &str) -> Option<String> {
        match self.get(key) {
            Some(AttributeValue::S(v)) => Some(v.clone()),
            _ => None,
        }
    }

    fn int(&self, key: &str) -> anyhow::Result<i64> {
        match self.get(key) {
            Some(AttributeValue::N(v)) => v.parse().with_context(|| format!("attribute {key} is not an integer")),
            _ => Err(anyhow!("attribute {key} missing or not a number")),
        }
    }

    fn opt_int(&self, key: &str) -> Option<i64> {
        self.int(key).ok()
    }

    fn boolean(&self, key: &str) -> anyhow::Result<bool> {
        match self.get(key) {
            Some(AttributeValue::Bool(v)) => Ok(*v),
            _ => Err(anyhow!("attribute {key} missing or not a boolean")),
        }
    }

    fn timestamp(&self, key: &str) -> anyhow::Result<Timestamp> {
        let text = self.string(key)?;
        Timestamp::parse(&text).ok_or_else(|| anyhow!("attribute {key} is not a timestamp"))
    }

    fn opt_timestamp(&self, key: &str) -> Option<Timestamp> {
        self.opt_string(key).and_then(|t| Timestamp::parse(&t))
    }
}
