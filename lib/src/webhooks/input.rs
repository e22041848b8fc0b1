//! What the `webhook` envelope of a create or update may say (`/v1/webhooks`), read into a
//! [`Registration`] or [`Changes`], with the messages of the rules it breaks. The URL and the event
//! types are judged by the receivers' own rules (`receivers::register`, `receivers::change`).

use serde_json::Value;

use super::receivers::{Changes, Registration};
use crate::http::Fields;
use crate::refusal::Problem;

const MSG_URL_BLANK: &str = "url não pode ficar em branco";
const MSG_EVENT_TYPES_INVALID: &str = "event_types deve ser uma lista de tipos de evento";
const MSG_EVENT_TYPES_EMPTY: &str =
    "event_types não pode ser vazia (para não receber eventos, use enabled: false; para receber todos, omita-a)";
/// More than any list of distinct types could hold: a longer one is refused whole.
const EVENT_TYPES_MAX: usize = 50;

/// The fields a create or update sent.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WebhookInput {
    pub url: Option<String>,
    pub enabled: Option<bool>,
    /// `Some(None)`: sent as null (every type).
    pub event_types: Option<Option<Vec<String>>>,
}

impl WebhookInput {
    /// Reads and validates the `webhook` envelope. On create the URL is required.
    pub fn parse(fields: Fields<'_>, creating: bool) -> Result<Self, Vec<Problem>> {
        let mut errors = Vec::new();
        let mut input = WebhookInput::default();
        match fields.text("url", "url", &mut errors) {
            Some(Some(url)) if !url.trim().is_empty() => input.url = Some(url.trim().to_owned()),
            Some(_) => errors.push(Problem::blank(fields.path("url"), MSG_URL_BLANK)),
            None if creating && !fields.contains("url") => {
                errors.push(Problem::blank(fields.path("url"), MSG_URL_BLANK))
            }
            None => {}
        }
        if let Some(enabled) = fields.boolean("enabled", "enabled", &mut errors) {
            input.enabled = enabled;
        }
        match fields.raw("event_types") {
            None => {}
            Some(Value::Null) => input.event_types = Some(None),
            Some(Value::Array(items)) if items.len() <= EVENT_TYPES_MAX => {
                let texts: Option<Vec<String>> =
                    items.iter().map(|item| item.as_str().map(str::trim).map(str::to_owned)).collect();
                match texts {
                    Some(texts) if texts.is_empty() => {
                        errors.push(Problem::blank(fields.path("event_types"), MSG_EVENT_TYPES_EMPTY))
                    }
                    Some(texts) => input.event_types = Some(Some(texts)),
                    None => errors.push(Problem::invalid(fields.path("event_types"), MSG_EVENT_TYPES_INVALID)),
                }
            }
            // One type as text (a form's `webhook[event_types]=billing.updated`).
            Some(Value::String(one)) if !one.trim().is_empty() => {
                input.event_types = Some(Some(vec![one.trim().to_owned()]))
            }
            Some(_) => errors.push(Problem::invalid(fields.path("event_types"), MSG_EVENT_TYPES_INVALID)),
        }
        if errors.is_empty() {
            Ok(input)
        } else {
            Err(errors)
        }
    }

    /// A new receiver: enabled unless sent `false`, every type unless chosen.
    pub fn registration(self) -> Registration {
        Registration {
            url: self.url.unwrap_or_default(),
            event_types: self.event_types.flatten(),
            disabled: self.enabled == Some(false),
        }
    }

    pub fn changes(self) -> Changes {
        Changes { url: self.url, enabled: self.enabled, event_types: self.event_types }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The input, or the messages of its problems.
    fn parse(body: Value, creating: bool) -> Result<WebhookInput, Vec<String>> {
        WebhookInput::parse(Fields::new(body.as_object().unwrap()), creating)
            .map_err(|problems| problems.into_iter().map(|p| p.message).collect())
    }

    #[test]
    fn a_create_needs_a_url_and_may_choose_types_and_enabled() {
        assert_eq!(parse(json!({}), true).unwrap_err(), [MSG_URL_BLANK]);
        assert_eq!(parse(json!({"url": "  "}), true).unwrap_err(), [MSG_URL_BLANK]);
        let input =
            parse(json!({"url": " https://x.example/h ", "event_types": ["sale.updated"], "enabled": "false"}), true)
                .unwrap();
        let registration = input.registration();
        assert_eq!(registration.url, "https://x.example/h");
        assert_eq!(registration.event_types, Some(vec!["sale.updated".to_owned()]));
        assert!(registration.disabled);
        let plain = parse(json!({"url": "https://x.example/h"}), true).unwrap().registration();
        assert_eq!((plain.event_types, plain.disabled), (None, false));
    }

    #[test]
    fn an_update_keeps_what_it_omits_and_null_types_mean_all() {
        let input = parse(json!({}), false).unwrap();
        assert_eq!(input, WebhookInput::default());
        let input = parse(json!({"event_types": null, "enabled": true}), false).unwrap();
        assert_eq!((input.event_types, input.enabled), (Some(None), Some(true)));
        let input = parse(json!({"event_types": "billing.updated"}), false).unwrap();
        assert_eq!(input.event_types, Some(Some(vec!["billing.updated".to_owned()])));
    }

    #[test]
    fn bad_values_are_named() {
        assert_eq!(parse(json!({"event_types": []}), false).unwrap_err(), [MSG_EVENT_TYPES_EMPTY]);
        assert_eq!(parse(json!({"event_types": [1]}), false).unwrap_err(), [MSG_EVENT_TYPES_INVALID]);
        assert_eq!(parse(json!({"event_types": {"a": 1}}), false).unwrap_err(), [MSG_EVENT_TYPES_INVALID]);
        let many: Vec<String> = (0..51).map(|n| format!("t{n}")).collect();
        assert_eq!(parse(json!({"event_types": many}), false).unwrap_err(), [MSG_EVENT_TYPES_INVALID]);
        assert_eq!(parse(json!({"enabled": "maybe"}), false).unwrap_err(), ["enabled não é válido"]);
        assert_eq!(parse(json!({"url": ["x"]}), false).unwrap_err(), ["url não é válido"]);
    }
}

/// A bound of a date/time range filter (`start_created_at`, `end_created_at`): a date
/// (`YYYY-MM-DD`, a day in São Paulo: from its first millisecond, or through its last when `end`)
/// or an ISO 8601 date and time with its offset.
pub fn moment(text: &str, end: bool) -> Option<crate::values::Timestamp> {
    use crate::values::{calendar, Timestamp};
    let text = text.trim();
    if let Some(day) = calendar::parse_date(text) {
        let time = match end {
            false => chrono::NaiveTime::MIN,
            true => chrono::NaiveTime::from_hms_milli_opt(23, 59, 59, 999)?,
        };
        let local = day.and_time(time).and_local_timezone(calendar::sao_paulo()).single()?;
        return Some(Timestamp(local));
    }
    Timestamp::parse(text)
}

#[cfg(test)]
mod moment_tests {
    use super::moment;

    #[test]
    fn a_bound_is_a_day_in_sao_paulo_or_a_moment() {
        assert_eq!(moment("2026-11-20", false).unwrap().to_string(), "2026-11-20T00:00:00.000-03:00");
        assert_eq!(moment("2026-11-20", true).unwrap().to_string(), "2026-11-20T23:59:59.999-03:00");
        assert_eq!(moment("2026-11-20T12:00:00Z", false).unwrap().to_string(), "2026-11-20T09:00:00.000-03:00");
        for bad in ["2026-13-01", "20/11/2026", "ontem", "2026-11-20T25:00:00Z"] {
            assert_eq!(moment(bad, false), None, "{bad}");
        }
    }
}
