//! Text rules shared by resources: whitespace collapsing, case-insensitive keys, sort keys.

/// Trims and collapses every run of whitespace into one space (§2.3 normalization).
pub fn collapse_whitespace(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The key under which a name is unique case-insensitively ("VIP" and "vip" collide).
pub fn uniqueness_key(s: &str) -> String {
    collapse_whitespace(s).to_lowercase()
}

/// Lowercase without the accents of Portuguese, so that lists sort the way a reader expects
/// ("Árvore" before "Banana").
pub fn sort_key(s: &str) -> String {
    s.to_lowercase().chars().map(fold_accent).collect()
}

/// Case-insensitive substring match, as SQL `ILIKE '%term%'`.
pub fn contains_ignoring_case(haystack: &str, needle: &str) -> bool {
    haystack.to_lowercase().contains(&needle.to_lowercase())
}

fn fold_accent(c: char) -> char {
    match c {
        'á' | 'à' | 'â' | 'ã' | 'ä' => 'a',
        'é' | 'è' | 'ê' | 'ë' => 'e',
        'í' | 'ì' | 'î' | 'ï' => 'i',
        'ó' | 'ò' | 'ô' | 'õ' | 'ö' => 'o',
        'ú' | 'ù' | 'û' | 'ü' => 'u',
        'ç' => 'c',
        'ñ' => 'n',
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collapses_whitespace() {
        assert_eq!(collapse_whitespace("  Clientes \t  mensais\n "), "Clientes mensais");
        assert_eq!(collapse_whitespace("   "), "");
    }

    #[test]
    fn uniqueness_ignores_case_and_spacing() {
        assert_eq!(uniqueness_key("AÇÃO  Social"), uniqueness_key("ação social"));
    }

    #[test]
    fn sort_keys_fold_accents() {
        let mut names = vec!["banana", "Árvore", "avião", "Zebra", "água"];
        names.sort_by_key(|n| sort_key(n));
        assert_eq!(names, vec!["água", "Árvore", "avião", "banana", "Zebra"]);
    }

    #[test]
    fn substring_ignores_case() {
        assert!(contains_ignoring_case("Clientes VIP", "vip"));
        assert!(contains_ignoring_case("AÇÃO", "ção"));
        assert!(!contains_ignoring_case("VIP", "vp"));
    }
}
