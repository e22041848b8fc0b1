//! Conditions and updates of writes, typed: callers name attributes and give values as they are
//! (through serde, as the item's own fields go), and the store writes the expression, its name
//! placeholders (`#n0`, …: no reserved word can clash) and its value placeholders (`:v0`, …).
//! A value that does not map fails the write that carries it ([`StoreError::Mapping`]), not the
//! builder, so that conditions and updates read as one expression at the call site.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use rust_decimal::Decimal;
use serde::Serialize;

use super::item::to_attribute;
use super::{StoreError, StoreResult};

/// A value of an expression, or why it could not be mapped.
type Value = Result<AttributeValue, String>;

fn value_of<T: Serialize + ?Sized>(value: &T) -> Value {
    to_attribute(&value).map_err(|e| e.to_string())
}

/// A condition on the item a write touches.
#[derive(Clone, Debug)]
pub struct Condition(Test);

#[derive(Clone, Debug)]
enum Test {
    Exists(String),
    Missing(String),
    Compare(String, &'static str, Value),
    And(Box<Test>, Box<Test>),
    Or(Box<Test>, Box<Test>),
}

impl Condition {
    /// The item must not exist yet.
    pub fn absent() -> Self {
        Condition::missing("pk")
    }

    /// The item must exist.
    pub fn present() -> Self {
        Condition::exists("pk")
    }

    /// The item must exist with this `version` (optimistic locking).
    pub fn version(version: i64) -> Self {
        Condition::equals("version", &version)
    }

    /// The attribute is there (`attribute_exists`).
    pub fn exists(attribute: &str) -> Self {
        Condition(Test::Exists(attribute.to_owned()))
    }

    /// The attribute is not there (`attribute_not_exists`; also true of an item that does not exist).
    pub fn missing(attribute: &str) -> Self {
        Condition(Test::Missing(attribute.to_owned()))
    }

    /// The attribute holds `value`.
    pub fn equals<T: Serialize + ?Sized>(attribute: &str, value: &T) -> Self {
        Condition(Test::Compare(attribute.to_owned(), "=", value_of(value)))
    }

    /// The attribute holds something other than `value` (true when it is missing).
    pub fn not_equals<T: Serialize + ?Sized>(attribute: &str, value: &T) -> Self {
        Condition(Test::Compare(attribute.to_owned(), "<>", value_of(value)))
    }

    /// The attribute is below `value`.
    pub fn less_than<T: Serialize + ?Sized>(attribute: &str, value: &T) -> Self {
        Condition(Test::Compare(attribute.to_owned(), "<", value_of(value)))
    }

    /// The attribute is at most `value`.
    pub fn at_most<T: Serialize + ?Sized>(attribute: &str, value: &T) -> Self {
        Condition(Test::Compare(attribute.to_owned(), "<=", value_of(value)))
    }

    pub fn and(self, other: Condition) -> Self {
        Condition(Test::And(Box::new(self.0), Box::new(other.0)))
    }

    pub fn or(self, other: Condition) -> Self {
        Condition(Test::Or(Box::new(self.0), Box::new(other.0)))
    }

    fn render(&self, placeholders: &mut Placeholders) -> StoreResult<String> {
        render_test(&self.0, placeholders)
    }
}

fn render_test(test: &Test, p: &mut Placeholders) -> StoreResult<String> {
    Ok(match test {
        Test::Exists(name) => format!("attribute_exists({})", p.name(name)),
        Test::Missing(name) => format!("attribute_not_exists({})", p.name(name)),
        Test::Compare(name, operator, value) => format!("{} {operator} {}", p.name(name), p.value(value)?),
        Test::And(left, right) => format!("({}) AND ({})", render_test(left, p)?, render_test(right, p)?),
        Test::Or(left, right) => format!("({}) OR ({})", render_test(left, p)?, render_test(right, p)?),
    })
}

/// A change of some attributes of an item (`UpdateItem`), creating it when missing.
#[derive(Clone, Debug, Default)]
pub struct Update {
    /// Attribute, value, and whether only when the attribute is missing (`if_not_exists`).
    set: Vec<(String, Value, bool)>,
    remove: Vec<String>,
    add: Vec<(String, Value)>,
}

impl Update {
    pub fn new() -> Self {
        Update::default()
    }

    /// `SET attribute = value`.
    pub fn set<T: Serialize + ?Sized>(mut self, attribute: &str, value: &T) -> Self {
        self.set.push((attribute.to_owned(), value_of(value), false));
        self
    }

    /// `SET attribute = value` only when the attribute is missing (it keeps its value otherwise).
    pub fn set_if_missing<T: Serialize + ?Sized>(mut self, attribute: &str, value: &T) -> Self {
        self.set.push((attribute.to_owned(), value_of(value), true));
        self
    }

    /// `REMOVE attribute`.
    pub fn remove(mut self, attribute: &str) -> Self {
        self.remove.push(attribute.to_owned());
        self
    }

    /// Takes the item out of the listing index (`gsi1`): removes its index keys.
    pub fn unindex(self) -> Self {
        self.remove("gsi1pk").remove("gsi1sk")
    }

    /// `ADD attribute by`: a number, counting from 0 when missing.
    pub fn add(mut self, attribute: &str, by: impl Into<Decimal>) -> Self {
        self.add.push((attribute.to_owned(), Ok(AttributeValue::N(by.into().to_string()))));
        self
    }

    /// Whether it adds to a number (a counter, a reference count, a total), which other writers
    /// may add to at the same moment.
    pub(super) fn adds(&self) -> bool {
        !self.add.is_empty()
    }

    fn render(&self, p: &mut Placeholders) -> StoreResult<String> {
        let mut clauses = Vec::new();
        if !self.set.is_empty() {
            let mut each = Vec::new();
            for (name, value, if_missing) in &self.set {
                let (name, value) = (p.name(name), p.value(value)?);
                each.push(match if_missing {
                    true => format!("{name} = if_not_exists({name}, {value})"),
                    false => format!("{name} = {value}"),
                });
            }
            clauses.push(format!("SET {}", each.join(", ")));
        }
        if !self.remove.is_empty() {
            let each: Vec<String> = self.remove.iter().map(|name| p.name(name)).collect();
            clauses.push(format!("REMOVE {}", each.join(", ")));
        }
        if !self.add.is_empty() {
            let mut each = Vec::new();
            for (name, value) in &self.add {
                each.push(format!("{} {}", p.name(name), p.value(value)?));
            }
            clauses.push(format!("ADD {}", each.join(", ")));
        }
        Ok(clauses.join(" "))
    }
}

/// The placeholders of one request: its update and its condition share them.
#[derive(Default)]
struct Placeholders {
    names: HashMap<String, String>,
    values: HashMap<String, AttributeValue>,
}

impl Placeholders {
    fn name(&mut self, attribute: &str) -> String {
        if let Some((placeholder, _)) = self.names.iter().find(|(_, name)| *name == attribute) {
            return placeholder.clone();
        }
        let placeholder = format!("#n{}", self.names.len());
        self.names.insert(placeholder.clone(), attribute.to_owned());
        placeholder
    }

    fn value(&mut self, value: &Value) -> StoreResult<String> {
        let value = value.clone().map_err(StoreError::Mapping)?;
        let placeholder = format!(":v{}", self.values.len());
        self.values.insert(placeholder.clone(), value);
        Ok(placeholder)
    }
}

/// An update and a condition as one request carries them: the expressions, and the names and
/// values both use.
#[derive(Debug, Default)]
pub(super) struct Expressions {
    pub update: Option<String>,
    pub condition: Option<String>,
    pub names: Option<HashMap<String, String>>,
    pub values: Option<HashMap<String, AttributeValue>>,
}

impl Expressions {
    pub fn of(update: Option<&Update>, condition: Option<&Condition>) -> StoreResult<Expressions> {
        let mut p = Placeholders::default();
        let update = update.map(|u| u.render(&mut p)).transpose()?;
        let condition = condition.map(|c| c.render(&mut p)).transpose()?;
        Ok(Expressions {
            update,
            condition,
            names: (!p.names.is_empty()).then_some(p.names),
            values: (!p.values.is_empty()).then_some(p.values),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_update_and_its_condition_share_placeholders() {
        let update = Update::new().set("state", "done").set_if_missing("since", &5).remove("reason").add("count", 1);
        let condition =
            Condition::missing("pk").or(Condition::equals("state", "running").and(Condition::less_than("lease", &3)));
        let e = Expressions::of(Some(&update), Some(&condition)).unwrap();
        assert_eq!(e.update.as_deref(), Some("SET #n0 = :v0, #n1 = if_not_exists(#n1, :v1) REMOVE #n2 ADD #n3 :v2"));
        assert_eq!(e.condition.as_deref(), Some("(attribute_not_exists(#n4)) OR ((#n0 = :v3) AND (#n5 < :v4))"));
        let names = e.names.unwrap();
        assert_eq!((names["#n0"].as_str(), names["#n4"].as_str(), names["#n5"].as_str()), ("state", "pk", "lease"));
        let values = e.values.unwrap();
        assert_eq!(values[":v0"], AttributeValue::S("done".into()));
        assert_eq!(values[":v1"], AttributeValue::N("5".into()));
        assert_eq!(values[":v2"], AttributeValue::N("1".into()));
        assert_eq!(values[":v3"], AttributeValue::S("running".into()));
        assert_eq!(values[":v4"], AttributeValue::N("3".into()));
    }

    #[test]
    fn a_value_that_does_not_map_fails_the_write() {
        struct Broken;
        impl Serialize for Broken {
            fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
                Err(serde::ser::Error::custom("no mapping"))
            }
        }
        let update = Update::new().set("n", &Broken);
        assert!(matches!(Expressions::of(Some(&update), None), Err(StoreError::Mapping(_))));
    }
}
