//! Pagination by query parameters (§4.1): `page` ≥ 1 (else 1), `per_page` 1..100 (above 100 → 100;
//! zero, negative or not a number → 25).

const DEFAULT_PER_PAGE: usize = 25;
const MAX_PER_PAGE: usize = 100;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pagination {
    pub page: usize,
    pub per_page: usize,
}

impl Default for Pagination {
    fn default() -> Self {
        Pagination { page: 1, per_page: DEFAULT_PER_PAGE }
    }
}

/// A parameter read as a whole number: `None` when it is not one (blank, a fraction, letters).
enum Whole {
    /// Zero or negative.
    NotPositive,
    Positive(usize),
    /// Positive, and more digits than any count of records.
    Huge,
}

fn whole_number(text: Option<&str>) -> Option<Whole> {
    let text = text?.trim();
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let zero = digits.bytes().all(|b| b == b'0');
    Some(match digits.parse::<usize>() {
        _ if negative || zero => Whole::NotPositive,
        Ok(n) => Whole::Positive(n),
        Err(_) => Whole::Huge,
    })
}

impl Pagination {
    pub fn from_params(page: Option<&str>, per_page: Option<&str>) -> Self {
        let page = match whole_number(page) {
            Some(Whole::Positive(p)) => p,
            // Beyond any page there is: an empty page of the list.
            Some(Whole::Huge) => usize::MAX,
            _ => 1,
        };
        let per_page = match whole_number(per_page) {
            Some(Whole::Positive(p)) => p.min(MAX_PER_PAGE),
            Some(Whole::Huge) => MAX_PER_PAGE,
            _ => DEFAULT_PER_PAGE,
        };
        Pagination { page, per_page }
    }

    /// Number of records before this page; saturates for absurd page numbers.
    pub fn offset(&self) -> usize {
        (self.page - 1).saturating_mul(self.per_page)
    }

    /// `ceil(total / per_page)`; zero when there is nothing.
    pub fn total_pages(&self, total: usize) -> usize {
        total.div_ceil(self.per_page)
    }

    /// Which entries of a filtered, ordered list this page shows.
    pub fn window(&self) -> crate::store::records::Window {
        crate::store::records::Window { skip: self.offset(), take: self.per_page }
    }

    /// The slice of `items` (already filtered and ordered) that this page shows.
    pub fn slice<'a, T>(&self, items: &'a [T]) -> &'a [T] {
        let start = self.offset().min(items.len());
        let end = start.saturating_add(self.per_page).min(items.len());
        &items[start..end]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(page: Option<&str>, per_page: Option<&str>) -> (usize, usize) {
        let p = Pagination::from_params(page, per_page);
        (p.page, p.per_page)
    }

    #[test]
    fn defaults_and_clamping_follow_the_spec() {
        assert_eq!(p(None, None), (1, 25));
        assert_eq!(p(Some("3"), Some("10")), (3, 10));
        assert_eq!(p(Some("0"), Some("0")), (1, 25));
        assert_eq!(p(Some("-2"), Some("-5")), (1, 25));
        assert_eq!(p(Some("abc"), Some("x")), (1, 25));
        assert_eq!(p(Some("2.5"), Some("1.5")), (1, 25));
        assert_eq!(p(Some(""), Some("")), (1, 25));
        assert_eq!(p(Some("1"), Some("101")), (1, 100));
        assert_eq!(p(Some("1"), Some("100")), (1, 100));
        assert_eq!(p(Some("1"), Some("1")), (1, 1));
        // Above 100 is 100 however many digits it has; below 1 is 25 (§4.1).
        assert_eq!(p(Some("1"), Some("99999999999999999999")), (1, 100));
        assert_eq!(p(Some("1"), Some("-99999999999999999999")), (1, 25));
        assert_eq!(p(Some("1"), Some("+50")), (1, 50));
        assert_eq!(p(Some("99999999999999999999"), None), (usize::MAX, 25));
        assert_eq!(p(Some("-99999999999999999999"), None), (1, 25));
    }

    #[test]
    fn pages_and_slices() {
        let all: Vec<u32> = (1..=30).collect();
        let first = Pagination { page: 1, per_page: 25 };
        let second = Pagination { page: 2, per_page: 25 };
        let beyond = Pagination { page: 9, per_page: 25 };
        assert_eq!(first.slice(&all).len(), 25);
        assert_eq!(second.slice(&all), &[26, 27, 28, 29, 30]);
        assert!(beyond.slice(&all).is_empty());
        assert_eq!(first.total_pages(30), 2);
        assert_eq!(first.total_pages(25), 1);
        assert_eq!(first.total_pages(0), 0);
        let huge = Pagination { page: usize::MAX, per_page: 100 };
        assert!(huge.slice(&all).is_empty());
    }
}
