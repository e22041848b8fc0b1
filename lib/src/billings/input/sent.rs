//! How a billing's body reads one sent value: a trimmed text, an id, and what is wrong with a
//! value that must be a number. Every group of fields reads its values through these, so that a
//! problem reads alike whichever field it names.

use crate::http::{Fields, Sent};
use crate::refusal::{Code, Problem};

/// The text sent at `key`, trimmed; none when omitted, null or blank.
pub(super) fn text(fields: Fields<'_>, key: &str, errors: &mut Vec<Problem>) -> Option<String> {
    fields.text(key, key, errors).flatten().map(|t| t.trim().to_owned()).filter(|t| !t.is_empty())
}

/// The id sent at `key`; a value that is no id is a problem (and none).
pub(super) fn id_of<T: std::str::FromStr>(fields: Fields<'_>, key: &str, errors: &mut Vec<Problem>) -> Option<T> {
    match fields.id::<T>(key) {
        Sent::Invalid => {
            errors.push(Problem::invalid(key, format!("{key} não é válido")));
            None
        }
        sent => sent.given(),
    }
}

/// What is wrong with a sent value that must be a number: missing (`blank`), not a number of its
/// kind (`invalid`), or out of its bounds (`bound`).
pub(super) fn number_code<T>(sent: &Sent<T>, bound: Code) -> Code {
    match sent {
        Sent::Omitted | Sent::Empty => Code::Blank,
        Sent::Invalid => Code::Invalid,
        Sent::Given(_) => bound,
    }
}
