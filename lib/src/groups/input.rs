//! Group input: what the `group` envelope of a create or update may say, read and validated into
//! [`GroupChanges`], with the messages of the rules it breaks.

use crate::http::Fields;
use crate::refusal::Problem;
use crate::values::GroupContactType;

pub const DESCRIPTION_MAX_CHARS: usize = 255;

pub const MSG_TYPE_INVALID: &str = "Tipo de contato não está incluído na lista (customers, suppliers)";
pub const MSG_DESCRIPTION_BLANK: &str = "Descrição não pode ficar em branco";
pub const MSG_DESCRIPTION_TOO_LONG: &str = "Descrição é muito longa (máximo: 255 caracteres)";

#[derive(Clone, Debug, Default, PartialEq)]
pub struct GroupChanges {
    pub contact_type: Option<GroupContactType>,
    pub description: Option<String>,
}

impl GroupChanges {
    /// Reads and validates the `group` envelope; on create both fields are required.
    pub fn parse(fields: Fields<'_>, creating: bool) -> Result<Self, Vec<Problem>> {
        let mut errors = Vec::new();
        let mut changes = GroupChanges::default();
        match fields.text("contact_type", "Tipo de contato", &mut errors) {
            None if !creating => {}
            None | Some(None) => errors.push(Problem::blank("contact_type", MSG_TYPE_INVALID)),
            Some(Some(raw)) => match GroupContactType::parse(raw.trim()) {
                Some(kind) => changes.contact_type = Some(kind),
                None if raw.trim().is_empty() => errors.push(Problem::blank("contact_type", MSG_TYPE_INVALID)),
                None => errors.push(Problem::invalid("contact_type", MSG_TYPE_INVALID)),
            },
        }
        let rule = (DESCRIPTION_MAX_CHARS, MSG_DESCRIPTION_BLANK, MSG_DESCRIPTION_TOO_LONG);
        changes.description = fields.name("description", "Descrição", creating, rule, &mut errors);
        if errors.is_empty() {
            Ok(changes)
        } else {
            Err(errors)
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    /// The changes of a JSON body (for the tests of every layer).
    pub(crate) fn parse(body: serde_json::Value, creating: bool) -> Result<GroupChanges, Vec<Problem>> {
        GroupChanges::parse(Fields::new(body.as_object().unwrap()), creating)
    }

    #[test]
    fn create_needs_both_fields() {
        assert_eq!(
            parse(json!({}), true),
            Err(vec![
                Problem::blank("contact_type", MSG_TYPE_INVALID),
                Problem::blank("description", MSG_DESCRIPTION_BLANK)
            ])
        );
        assert_eq!(
            parse(json!({"contact_type": "customer", "description": "x"}), true),
            Err(vec![Problem::invalid("contact_type", MSG_TYPE_INVALID)])
        );
        let ok = parse(json!({"contact_type": "suppliers", "description": " Fornecedores  locais "}), true).unwrap();
        assert_eq!(ok.description.as_deref(), Some("Fornecedores locais"));
    }

    #[test]
    fn description_size() {
        assert!(parse(json!({"contact_type": "customers", "description": "a"}), true).is_ok());
        assert!(parse(json!({"contact_type": "customers", "description": "é".repeat(255)}), true).is_ok());
        assert_eq!(
            parse(json!({"contact_type": "customers", "description": "a".repeat(256)}), true),
            Err(vec![Problem::too_long("description", MSG_DESCRIPTION_TOO_LONG)])
        );
    }
}
