//! Tag input: what the `tag` envelope of a create or update may say, read and validated into
//! [`TagChanges`], with the messages of the rules it breaks.

use crate::http::Fields;
use crate::refusal::Problem;
use crate::values::TagColor;

const NAME_MAX_CHARS: usize = 40;
pub const DEFAULT_COLOR: TagColor = TagColor::Info;

pub const MSG_NAME_BLANK: &str = "Nome não pode ficar em branco";
pub const MSG_NAME_TOO_LONG: &str = "Nome é muito longo (máximo: 40 caracteres)";
pub const MSG_COLOR_INVALID: &str =
    "Cor não está incluída na lista (default, info, primary, success, warning, danger, purple)";

/// The fields a create or update sent; `None` keeps the current (or default) value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TagChanges {
    pub name: Option<String>,
    pub color: Option<TagColor>,
    pub allows_on_account: Option<bool>,
}

impl TagChanges {
    /// Reads and validates the `tag` envelope. On create the name is required.
    pub fn parse(fields: Fields<'_>, creating: bool) -> Result<Self, Vec<Problem>> {
        let mut errors = Vec::new();
        let mut changes = TagChanges::default();

        let rule = (NAME_MAX_CHARS, MSG_NAME_BLANK, MSG_NAME_TOO_LONG);
        changes.name = fields.name("name", "Nome", creating, rule, &mut errors);
        // Blank or null colour means the default.
        if let Some(raw) = fields.text("color", "Cor", &mut errors) {
            match raw.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
                None => changes.color = Some(DEFAULT_COLOR),
                Some(text) => match TagColor::parse(text) {
                    Some(color) => changes.color = Some(color),
                    None => errors.push(Problem::invalid("color", MSG_COLOR_INVALID)),
                },
            }
        }
        if let Some(value) =
            fields.boolean("allows_on_account", "Permite venda a prazo (allows_on_account)", &mut errors)
        {
            changes.allows_on_account = Some(value.unwrap_or(false));
        }

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
    pub(crate) fn parse(body: serde_json::Value, creating: bool) -> Result<TagChanges, Vec<Problem>> {
        TagChanges::parse(Fields::new(body.as_object().unwrap()), creating)
    }

    #[test]
    fn name_rules() {
        let blank = || Err(vec![Problem::blank("name", MSG_NAME_BLANK)]);
        assert_eq!(parse(json!({}), true), blank());
        assert_eq!(parse(json!({"name": null}), true), blank());
        assert_eq!(parse(json!({"name": "   "}), true), blank());
        assert!(parse(json!({"name": "x".repeat(40)}), true).is_ok());
        assert!(parse(json!({"name": "ç".repeat(40)}), true).is_ok());
        assert_eq!(
            parse(json!({"name": "x".repeat(41)}), true),
            Err(vec![Problem::too_long("name", MSG_NAME_TOO_LONG)])
        );
        // On update an omitted name keeps the current one, an explicit blank is refused.
        assert_eq!(parse(json!({}), false), Ok(TagChanges::default()));
        assert_eq!(parse(json!({"name": ""}), false), blank());
    }

    #[test]
    fn color_and_flag_rules() {
        let c = parse(json!({"name": "a", "color": "purple", "allows_on_account": "1"}), true).unwrap();
        assert_eq!(c.color, Some(TagColor::Purple));
        assert_eq!(c.allows_on_account, Some(true));
        assert_eq!(parse(json!({"name": "a", "color": ""}), true).unwrap().color, Some(TagColor::Info));
        assert_eq!(parse(json!({"name": "a", "color": null}), true).unwrap().color, Some(TagColor::Info));
        let errors = parse(json!({"name": "", "color": "pink", "allows_on_account": "talvez"}), true).unwrap_err();
        let fields: Vec<_> = errors.iter().map(|p| (p.field.as_deref(), p.code.as_str())).collect();
        assert_eq!(
            fields,
            [(Some("name"), "blank"), (Some("color"), "invalid"), (Some("allows_on_account"), "invalid")]
        );
        assert!(errors.contains(&Problem::invalid("color", MSG_COLOR_INVALID)));
    }
}
