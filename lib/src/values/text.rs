//! Text rules shared by resources: whitespace collapsing, case-insensitive keys, sort keys.

/// Trims and collapses every run of whitespace into one space (§2.3 normalization).
pub fn collapse_whitespace(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The longest search term (`s`) a list reads: longer than any name, description or code it is
/// matched against, so a longer one matches nothing and costs no read.
const SEARCH_MAX_CHARS: usize = 200;

/// Whether a search term is too long to match anything ([`SEARCH_MAX_CHARS`], surrounding
/// whitespace aside): the list answers nothing and reads nothing.
pub fn beyond_search(term: &str) -> bool {
    term.trim().chars().count() > SEARCH_MAX_CHARS
}

/// Why a text field's value is refused whatever the field: a control character (tab, line feed
/// and carriage return excepted: names collapse them, free texts keep them), or nothing to see
/// (only zero-width and other invisible characters; plain whitespace is a blank value, which each
/// field handles as it documents).
pub fn unreadable(s: &str) -> Option<&'static str> {
    if s.chars().any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r')) {
        return Some("contém caracteres de controle");
    }
    let nothing_visible = s.chars().all(|c| c.is_whitespace() || invisible(c));
    (nothing_visible && s.chars().any(invisible)).then_some("contém apenas caracteres invisíveis")
}

/// Characters that print nothing and are not whitespace: format characters (zero-width space and
/// joiners, direction marks and isolates, the byte-order mark, soft hyphen, tag characters),
/// variation selectors and the Hangul and Braille fillers.
fn invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{061C}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{17B4}'
            | '\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{2800}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E007F}'
            | '\u{E0100}'..='\u{E01EF}'
    )
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

/// The text of `value` safe inside HTML text and attribute values.
pub fn escape_html(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
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
    fn control_and_invisible_only_texts_are_unreadable() {
        assert_eq!(unreadable("a\u{0}b"), Some("contém caracteres de controle"));
        assert_eq!(unreadable("a\u{1b}[31m"), Some("contém caracteres de controle"));
        assert_eq!(unreadable("a\u{85}"), Some("contém caracteres de controle"));
        assert_eq!(unreadable("\u{200B}\u{200B}"), Some("contém apenas caracteres invisíveis"));
        assert_eq!(unreadable(" \u{FEFF} \u{2060}"), Some("contém apenas caracteres invisíveis"));
        // Whitespace alone is a blank value; a visible character with joiners is text (emoji).
        assert_eq!(unreadable("   "), None);
        assert_eq!(unreadable(""), None);
        assert_eq!(unreadable("linha 1\r\n\tlinha 2"), None);
        assert_eq!(unreadable("👩\u{200D}💻"), None);
        assert_eq!(unreadable("Ação"), None);
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
}
