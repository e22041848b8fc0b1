//! Query-string parameters. Invalid values never fail a request: pagination clamps (§4.1) and
//! filters with unusable values simply match nothing or are ignored, as each list documents. A
//! query string that cannot be read at all (a malformed percent-escape, bytes that are not UTF-8)
//! is a 400 (`super::urlencoded`).

use std::collections::HashMap;
use std::str::FromStr;

use axum::extract::FromRequestParts;
use http::request::Parts;

use super::{ApiError, ApiResult, Pagination};
use crate::refusal::{Code, Problem};

#[derive(Clone, Debug, Default)]
pub struct Params(HashMap<String, String>);

impl Params {
    pub fn parse(query: Option<&str>) -> Result<Self, ApiError> {
        let pairs = super::urlencoded::decode(query.unwrap_or_default().as_bytes())?;
        Ok(Params(pairs.into_iter().collect()))
    }

    /// The value, when present and not blank.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(String::as_str).filter(|v| !v.trim().is_empty())
    }

    /// The id named `name`: absent (a 422 when `required`), or one that parses (a 422 otherwise:
    /// `<name> é obrigatório`, `<name> inválido`, codes `required` and `invalid` on the field
    /// `<name>`).
    pub fn id<T: FromStr>(&self, name: &str, required: bool) -> ApiResult<Option<T>> {
        match self.get(name).map(str::trim).filter(|t| !t.is_empty()) {
            None if required => {
                Err(ApiError::validation(Problem::at(name, Code::Required, format!("{name} é obrigatório"))))
            }
            None => Ok(None),
            Some(text) => text
                .parse()
                .map(Some)
                .map_err(|_| ApiError::validation(Problem::invalid(name, format!("{name} inválido")))),
        }
    }

    /// The path and query of the next page of a list read from a cursor: these parameters but
    /// `page` and `cursor`, then `cursor` (sorted by name, so the same request gives the same
    /// link).
    /// The next page of a cursor list: the same parameters with `cursor`, as a reference made of
    /// the query alone (`?…`), which a client resolves against the URL it asked: the stage of the
    /// API's address (`…/live/v1/events`) is kept, which the path the function sees has lost.
    pub fn next_page(&self, cursor: &str) -> super::response::NextPage {
        let mut kept: Vec<(&String, &String)> =
            self.0.iter().filter(|(name, _)| name.as_str() != "page" && name.as_str() != "cursor").collect();
        kept.sort();
        let mut query = form_urlencoded::Serializer::new(String::new());
        for (name, value) in kept {
            query.append_pair(name, value);
        }
        query.append_pair("cursor", cursor);
        super::response::NextPage { cursor: cursor.to_owned(), url: format!("?{}", query.finish()) }
    }

    pub fn pagination(&self) -> Pagination {
        Pagination::from_params(self.0.get("page").map(String::as_str), self.0.get("per_page").map(String::as_str))
    }
}

/// The request's query string, read strictly.
impl<S: Send + Sync> FromRequestParts<S> for Params {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Params::parse(parts.uri.query())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_values_and_pagination() {
        let p = Params::parse(Some("s=Cl%C3%ADnica+VIP&page=2&per_page=500&empty=")).unwrap();
        assert_eq!(p.get("s"), Some("Clínica VIP"));
        assert_eq!(p.get("empty"), None);
        assert_eq!(p.get("missing"), None);
        assert_eq!(p.pagination(), Pagination { page: 2, per_page: 100 });
        assert_eq!(Params::parse(None).unwrap().pagination(), Pagination::default());
        assert!(Params::parse(Some("s=%G1%")).is_err());
    }

    #[test]
    fn the_next_page_keeps_the_filters_and_replaces_page_and_cursor() {
        let p = Params::parse(Some(
            "type=sale.updated&page=3&per_page=2&cursor=evt_old&start_created_at=2026-11-20T09:00:00%2B00:00",
        ))
        .unwrap();
        let next = p.next_page("evt_01");
        assert_eq!(next.cursor, "evt_01");
        assert_eq!(
            next.url,
            "?per_page=2&start_created_at=2026-11-20T09%3A00%3A00%2B00%3A00&type=sale.updated&cursor=evt_01"
        );
    }

    #[test]
    fn reads_an_id_or_says_why_not() {
        let errors = |result: ApiResult<Option<u32>>| match result {
            Err(ApiError::Validation(problems)) => {
                crate::refusal::messages(&problems).into_iter().map(str::to_owned).collect::<Vec<_>>()
            }
            other => panic!("expected a 422, got {other:?}"),
        };
        let p = Params::parse(Some("contact_id=+12+&other=abc&blank=+")).unwrap();
        assert_eq!(p.id::<u32>("contact_id", true).unwrap(), Some(12));
        assert_eq!(p.id::<u32>("missing", false).unwrap(), None);
        assert_eq!(p.id::<u32>("blank", false).unwrap(), None);
        assert_eq!(errors(p.id("missing", true)), ["missing é obrigatório"]);
        assert_eq!(errors(p.id("blank", true)), ["blank é obrigatório"]);
        assert_eq!(errors(p.id("other", false)), ["other inválido"]);
        assert_eq!(
            errors(Params::parse(Some("contact_id=-1")).unwrap().id("contact_id", true)),
            ["contact_id inválido"]
        );
        let problem = |result: ApiResult<Option<u32>>| match result {
            Err(ApiError::Validation(problems)) => problems,
            other => panic!("expected a 422, got {other:?}"),
        };
        assert_eq!(problem(p.id("missing", true)), [Problem::at("missing", Code::Required, "missing é obrigatório")]);
        assert_eq!(problem(p.id("other", false)), [Problem::invalid("other", "other inválido")]);
    }
}
