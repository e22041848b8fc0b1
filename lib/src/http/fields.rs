//! Typed readers over the fields of a resource envelope. JSON and form bodies differ in types
//! (forms carry only strings), so each reader accepts both and reports a Portuguese message when
//! a value cannot be read. `None` = the field was omitted (PATCH keeps the current value);
//! `Some(None)` = it was sent as null or empty.

use serde_json::{Map, Value};

#[derive(Debug, Clone, Copy)]
pub struct Fields<'a> {
    map: &'a Map<String, Value>,
}

impl<'a> Fields<'a> {
    pub fn new(map: &'a Map<String, Value>) -> Self {
        Fields { map }
    }

    pub fn raw(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key)
    }

    pub fn contains(&self, key: &str) -> bool {
        self.map.contains_key(key)
    }

    /// A text field. Numbers and booleans are taken as their text; arrays and objects are errors.
    pub fn text(&self, key: &str, label: &str, errors: &mut Vec<String>) -> Option<Option<String>> {
        match self.map.get(key)? {
            Value::Null => Some(None),
            Value::String(s) => Some(Some(s.clone())),
            Value::Number(n) => Some(Some(n.to_string())),
            Value::Bool(b) => Some(Some(b.to_string())),
            Value::Array(_) | Value::Object(_) => {
                errors.push(format!("{label} não é válido"));
                None
            }
        }
    }

    /// A boolean field: JSON booleans, `1`/`0`, and the strings `true`/`false`, `1`/`0`, `t`/`f`,
    /// `on`/`off`, `yes`/`no` (any case). An empty string counts as null. Anything else is an error,
    /// rather than silently true.
    pub fn boolean(&self, key: &str, label: &str, errors: &mut Vec<String>) -> Option<Option<bool>> {
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
                errors.push(format!("{label} não é válido"));
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
        assert_eq!(errors, vec!["D não é válido"]);
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
        assert_eq!(errors, vec!["E não é válido"]);
    }
}
