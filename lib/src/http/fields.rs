//! Typed readers over the fields of a resource envelope. JSON and form bodies differ in types
//! (forms carry only strings), so each reader accepts both and reports a [`Problem`] (the field's
//! path, a code and a Portuguese message) when a value cannot be read. `None` = the field was
//! omitted (PATCH keeps the current value); `Some(None)` = it was sent as null or empty.

use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde_json::{Map, Value};

use crate::refusal::{Code, Problem};
use crate::values::{calendar, ids, money};

/// A field as sent, read as a value of some kind.
#[derive(Clone, Debug, PartialEq)]
pub enum Sent<T> {
    /// Not in the body: an update keeps the current value.
    Omitted,
    /// `null` or blank text.
    Empty,
    Given(T),
    /// Present, but not a value of the kind asked for.
    Invalid,
}

impl<T> Sent<T> {
    /// The value, when one was given.
    pub fn given(self) -> Option<T> {
        match self {
            Sent::Given(value) => Some(value),
            _ => None,
        }
    }
}

/// A JSON value (number or text, as forms send everything as text) read with `parse`; `null` and
/// blank text are [`Sent::Empty`].
fn read<T>(value: Option<&Value>, parse: impl Fn(&str) -> Option<T>) -> Sent<T> {
    match value {
        None => Sent::Omitted,
        Some(Value::Null) => Sent::Empty,
        Some(Value::String(s)) if s.trim().is_empty() => Sent::Empty,
        Some(Value::String(s)) => parse(s.trim()).map_or(Sent::Invalid, Sent::Given),
        Some(Value::Number(n)) => parse(&n.to_string()).map_or(Sent::Invalid, Sent::Given),
        Some(_) => Sent::Invalid,
    }
}

/// A positive id in a JSON value (a number, or text of one).
pub fn id_in<T: std::str::FromStr>(value: Option<&Value>) -> Sent<T> {
    read(value, |text| ids::parse_positive(text).ok().and_then(|id| id.to_string().parse().ok()))
}

/// A whole number in a JSON value (a number without fraction, or text of one).
pub fn integer_in(value: Option<&Value>) -> Sent<i64> {
    read(value, |text| text.parse::<i64>().ok())
}

/// A decimal in a JSON value (a number, or plain decimal text: no separators, no exponent).
pub fn decimal_in(value: Option<&Value>) -> Sent<Decimal> {
    read(value, money::parse)
}

/// An array, or a form's object of index → value (its values in the order sent).
pub fn elements(value: &Value) -> Vec<&Value> {
    match value {
        Value::Array(items) => items.iter().collect(),
        Value::Object(map) => map.values().collect(),
        _ => Vec::new(),
    }
}

/// The path of the element `index` (from 0, as the client sent it) of the list `list`:
/// `billing_items[2]`. A form's object of index → value counts its values in order.
pub fn element(list: &str, index: usize) -> String {
    format!("{list}[{index}]")
}

#[derive(Debug, Clone, Copy)]
pub struct Fields<'a> {
    map: &'a Map<String, Value>,
    /// The path of this object inside the envelope (`billing_items[2]`), empty for the envelope.
    at: &'a str,
}

impl<'a> Fields<'a> {
    pub fn new(map: &'a Map<String, Value>) -> Self {
        Fields { map, at: "" }
    }

    /// The fields of an object nested at `at` (an element of a list), whose problems name
    /// `at.key`.
    pub fn nested(map: &'a Map<String, Value>, at: &'a str) -> Self {
        Fields { map, at }
    }

    /// The path of `key` as the client sent it: `due_date`, `billing_items[2].description`.
    pub fn path(&self, key: &str) -> String {
        match self.at {
            "" => key.to_owned(),
            at => format!("{at}.{key}"),
        }
    }

    pub fn raw(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key)
    }

    pub fn contains(&self, key: &str) -> bool {
        self.map.contains_key(key)
    }

    /// A record id (a positive integer, as a number or text).
    pub fn id<T: std::str::FromStr>(&self, key: &str) -> Sent<T> {
        id_in(self.map.get(key))
    }

    /// A whole number, as a number or text.
    pub fn integer(&self, key: &str) -> Sent<i64> {
        integer_in(self.map.get(key))
    }

    /// A decimal, as a number or plain decimal text.
    pub fn decimal(&self, key: &str) -> Sent<Decimal> {
        decimal_in(self.map.get(key))
    }

    /// A date written exactly `YYYY-MM-DD`.
    pub fn date(&self, key: &str) -> Sent<NaiveDate> {
        match self.map.get(key) {
            Some(Value::Number(_)) => Sent::Invalid,
            other => read(other, calendar::parse_date),
        }
    }

    /// A text field. Numbers and booleans are taken as their text; arrays and objects are errors,
    /// and so is text with a control character or with nothing visible in it
    /// ([`crate::values::text::unreadable`]): every text field refuses them alike.
    pub fn text(&self, key: &str, label: &str, errors: &mut Vec<Problem>) -> Option<Option<String>> {
        match self.map.get(key)? {
            Value::Null => Some(None),
            Value::String(s) => match crate::values::text::unreadable(s) {
                None => Some(Some(s.clone())),
                Some(reason) => {
                    errors.push(Problem::invalid(self.path(key), format!("{label} {reason}")));
                    None
                }
            },
            Value::Number(n) => Some(Some(n.to_string())),
            Value::Bool(b) => Some(Some(b.to_string())),
            Value::Array(_) | Value::Object(_) => {
                errors.push(Problem::invalid(self.path(key), format!("{label} não é válido")));
                None
            }
        }
    }

    /// A one-line name (a tag's name, a group's description): whitespace collapsed, required on
    /// create, never blank, at most `max_chars`. `None` when omitted on update, or refused (with
    /// `blank` or `too_long` pushed to `errors`).
    pub fn name(
        &self,
        key: &str,
        label: &str,
        creating: bool,
        (max_chars, blank, too_long): (usize, &str, &str),
        errors: &mut Vec<Problem>,
    ) -> Option<String> {
        let refused = errors.len();
        match self.text(key, label, errors) {
            // Omitted on update, or refused by `text` (its reason pushed already).
            None if !creating || errors.len() > refused => None,
            None | Some(None) => {
                errors.push(Problem::blank(self.path(key), blank));
                None
            }
            Some(Some(raw)) => {
                let name = crate::values::text::collapse_whitespace(&raw);
                if name.is_empty() {
                    errors.push(Problem::blank(self.path(key), blank));
                    None
                } else if name.chars().count() > max_chars {
                    errors.push(Problem::at(self.path(key), Code::TooLong, too_long));
                    None
                } else {
                    Some(name)
                }
            }
        }
    }

    /// A boolean field: JSON booleans, `1`/`0`, and the strings `true`/`false`, `1`/`0`, `t`/`f`,
    /// `on`/`off`, `yes`/`no` (any case). An empty string counts as null. Anything else is an error,
    /// rather than silently true.
    pub fn boolean(&self, key: &str, label: &str, errors: &mut Vec<Problem>) -> Option<Option<bool>> {
        let parsed = match self.map.get(key)? {
            Value::Null => Ok(None),
            Value::Bool(b) => Ok(Some(*b)),
            Value::Number(n) if n.as_i64() == Some(1) => Ok(Some(true)),
            Value::Number(n) if n.as_i64() == Some(0) => Ok(Some(false)),
            Value::String(s) => parse_bool_text(s),
            _ => Err(()),
        };
        match parsed {
            Ok(value) => Some(value),
            Err(()) => {
                errors.push(Problem::invalid(self.path(key), format!("{label} não é válido")));
                None
            }
        }
    }
}

fn parse_bool_text(s: &str) -> Result<Option<bool>, ()> {
    match s.trim().to_ascii_lowercase().as_str() {
        "" => Ok(None),
        "true" | "t" | "1" | "on" | "yes" => Ok(Some(true)),
        "false" | "f" | "0" | "off" | "no" => Ok(Some(false)),
        _ => Err(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_reads_strings_numbers_and_null() {
        let v = json!({"a": "x", "b": 12, "c": null, "d": [1], "e": true});
        let f = Fields::new(v.as_object().unwrap());
        let mut errors = vec![];
        assert_eq!(f.text("a", "A", &mut errors), Some(Some("x".into())));
        assert_eq!(f.text("b", "B", &mut errors), Some(Some("12".into())));
        assert_eq!(f.text("c", "C", &mut errors), Some(None));
        assert_eq!(f.text("e", "E", &mut errors), Some(Some("true".into())));
        assert_eq!(f.text("z", "Z", &mut errors), None);
        assert!(errors.is_empty());
        assert_eq!(f.text("d", "D", &mut errors), None);
        assert_eq!(errors, vec![Problem::invalid("d", "D não é válido")]);
    }

    #[test]
    fn ids_integers_decimals_and_dates() {
        use crate::values::TagId;
        let v = json!({"a": 7, "b": " 8 ", "c": "x", "d": 0, "e": "", "f": null, "g": "10.50", "h": 2.5, "i": "2030-03-04", "j": "2030-3-4"});
        let f = Fields::new(v.as_object().unwrap());
        assert_eq!(f.id::<TagId>("a"), Sent::Given(TagId::new(7)));
        assert_eq!(f.id::<TagId>("b"), Sent::Given(TagId::new(8)));
        assert_eq!(f.id::<TagId>("c"), Sent::Invalid);
        assert_eq!(f.id::<TagId>("d"), Sent::Invalid);
        assert_eq!(f.id::<TagId>("e"), Sent::Empty);
        assert_eq!(f.id::<TagId>("f"), Sent::Empty);
        assert_eq!(f.id::<TagId>("z"), Sent::Omitted);
        assert_eq!(f.integer("b"), Sent::Given(8));
        assert_eq!(f.integer("h"), Sent::Invalid);
        assert_eq!(f.decimal("g"), Sent::Given("10.50".parse().unwrap()));
        assert_eq!(f.decimal("h"), Sent::Given("2.5".parse().unwrap()));
        assert_eq!(f.date("i"), Sent::Given(NaiveDate::from_ymd_opt(2030, 3, 4).unwrap()));
        assert_eq!(f.date("j"), Sent::Invalid);
    }

    #[test]
    fn booleans_from_json_and_forms() {
        let v = json!({"a": true, "b": "false", "c": "1", "d": "", "e": "talvez", "f": 0, "g": "ON"});
        let f = Fields::new(v.as_object().unwrap());
        let mut errors = vec![];
        assert_eq!(f.boolean("a", "A", &mut errors), Some(Some(true)));
        assert_eq!(f.boolean("b", "B", &mut errors), Some(Some(false)));
        assert_eq!(f.boolean("c", "C", &mut errors), Some(Some(true)));
        assert_eq!(f.boolean("d", "D", &mut errors), Some(None));
        assert_eq!(f.boolean("f", "F", &mut errors), Some(Some(false)));
        assert_eq!(f.boolean("g", "G", &mut errors), Some(Some(true)));
        assert!(errors.is_empty());
        assert_eq!(f.boolean("e", "E", &mut errors), None);
        assert_eq!(errors, vec![Problem::invalid("e", "E não é válido")]);
    }

    #[test]
    fn problems_of_a_nested_object_name_its_path() {
        let v = json!({"description": "Ana\u{7}", "paid": "talvez", "name": "x".repeat(5)});
        let at = element("billing_items", 2);
        let f = Fields::nested(v.as_object().unwrap(), &at);
        let mut errors = vec![];
        assert_eq!(f.text("description", "descrição", &mut errors), None);
        assert_eq!(f.boolean("paid", "Pago", &mut errors), None);
        assert_eq!(f.name("name", "Nome", true, (4, "em branco", "longo"), &mut errors), None);
        assert_eq!(f.name("missing", "Nome", true, (4, "em branco", "longo"), &mut errors), None);
        assert_eq!(
            errors,
            vec![
                Problem::invalid("billing_items[2].description", "descrição contém caracteres de controle"),
                Problem::invalid("billing_items[2].paid", "Pago não é válido"),
                Problem::too_long("billing_items[2].name", "longo"),
                Problem::blank("billing_items[2].missing", "em branco"),
            ]
        );
        assert_eq!(Fields::new(v.as_object().unwrap()).path("due_date"), "due_date");
    }
}
