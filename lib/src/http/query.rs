//! Query-string parameters. Invalid values never fail a request: pagination clamps (§4.1) and
//! filters with unusable values simply match nothing or are ignored, as each list documents.

use std::collections::HashMap;

use super::Pagination;

#[derive(Clone, Debug, Default)]
pub struct Params(HashMap<String, String>);

impl Params {
    pub fn parse(query: Option<&str>) -> Self {
        let pairs = form_urlencoded::parse(query.unwrap_or_default().as_bytes()).into_owned();
        Params(pairs.collect())
    }

    /// The value, when present and not blank.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(String::as_str).filter(|v| !v.trim().is_empty())
    }

    pub fn pagination(&self) -> Pagination {
        Pagination::from_params(self.0.get("page").map(String::as_str), self.0.get("per_page").map(String::as_str))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_values_and_pagination() {
        let p = Params::parse(Some("s=Cl%C3%ADnica+VIP&page=2&per_page=500&empty="));
        assert_eq!(p.get("s"), Some("Clínica VIP"));
        assert_eq!(p.get("empty"), None);
        assert_eq!(p.get("missing"), None);
        assert_eq!(p.pagination(), Pagination { page: 2, per_page: 100 });
        assert_eq!(Params::parse(None).pagination(), Pagination::default());
    }
}
