//! Every stored name of the table is spelled in `lib/src/store/keys/` alone: a key fragment (a
//! text holding `#`, the separator of every key), an item attribute's short name read or written
//! by hand, or a counter's count named by a letter and a number, spelled in any other file of the
//! workspace's code (the library's, the functions', the tools' in `infra`) fails this test, which
//! names the line. Run alone with
//! `cargo test -p billing-api --test stored_names`.
//!
//! The code is read as text: each file's tests (from its `#[cfg(test)]` on) and its comments are
//! left out, since tests spell the stored shapes on purpose, to check them.

use std::path::{Path, PathBuf};

/// Where the stored names live.
const SCHEMA: &str = "store/keys";

/// Texts that look like stored names and are not, each by its file and a piece of its line, with
/// why.
const NOT_STORED: &[(&str, &str)] = &[
    // The characters an `evincive` text may not hold, and the message that names them.
    ("billings/input/texts.rs", "EVINCIVE_FORBIDDEN: &[char]"),
    ("billings/input/texts.rs", "evincive não pode conter os caracteres"),
    // The characters of an e-mail address's local part.
    ("contacts/input/email_and_phones.rs", "is_ascii_alphanumeric() || \"!#$%"),
    // An HTML entity, an SVG colour and an SVG path (a QR code's module) of the payer's page.
    ("values/text.rs", "&#39;"),
    ("payer_page/page/mod.rs", "#000"),
    ("payer_page/page/mod.rs", "h1v1h-1z"),
    // The comment lines of a target file (`infra/target`).
    ("infra/src/target.rs", "line.starts_with('#')"),
    // A contact's code in the scale bench's data, not a count.
    ("infra/src/bin/bench-scale.rs", "code: Some(format!(\"C{n}\"))"),
];

/// The accessors of an item's attributes that take its name (the keys `pk` and `sk` aside, which
/// every item has).
const ATTRIBUTE_READS: &[&str] = &["item::text(", ".with(\"", "item.get(\"", "posting.get(\"", "entry.get(\""];

/// Every `.rs` file of the library (but the schema's), the functions and the tools, with its code lines (number, text): no
/// comment, nothing from `#[cfg(test)]` on.
fn code() -> Vec<(PathBuf, Vec<(usize, String)>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace").to_path_buf();
    let src = root.join("lib/src");
    let mut found = Vec::new();
    let mut pending: Vec<PathBuf> = ["lib/src", "infra/src", "functions/src"].iter().map(|d| root.join(d)).collect();
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("read a source folder") {
            let path = entry.expect("a folder entry").path();
            let relative = path.strip_prefix(&root).expect("under the workspace").to_path_buf();
            let relative = relative.strip_prefix("lib/src").map(Path::to_path_buf).unwrap_or(relative);
            if path.is_dir() {
                if !relative.starts_with(SCHEMA) {
                    pending.push(path);
                }
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("read a source file");
            let lines = text
                .lines()
                .enumerate()
                .take_while(|(_, line)| line.trim() != "#[cfg(test)]")
                .filter(|(_, line)| !line.trim_start().starts_with("//"))
                .map(|(n, line)| (n + 1, line.to_owned()))
                .collect();
            found.push((relative, lines));
        }
    }
    assert!(found.len() > 100, "the library's files were not found under {}", src.display());
    found
}

/// The string literals of a line (escapes kept as written), and its `'#'` character literals.
fn literals(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c != '"' {
            continue;
        }
        let mut text = String::new();
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    text.push(c);
                    text.extend(chars.next());
                }
                '"' => break,
                c => text.push(c),
            }
        }
        found.push(text);
    }
    if line.contains("'#'") {
        found.push("#".to_owned());
    }
    found
}

/// Whether a literal's `#` are all no key's: a format's alternate flag (`{error:#}`), or a
/// DynamoDB expression's name placeholder (`#pk`, `#value`: `#` then a lower-case letter, at the
/// start of a word).
fn no_key(literal: &str) -> bool {
    let bytes = literal.as_bytes();
    bytes.iter().enumerate().filter(|(_, b)| **b == b'#').all(|(at, _)| {
        let before = at.checked_sub(1).map(|b| bytes[b]);
        let after = bytes.get(at + 1).copied();
        let alternate = before == Some(b':') && (after == Some(b'}') || after == Some(b'?'));
        // A heading of a bench's printed table (`# 1000 creates…`): no key holds a space.
        let heading = after == Some(b' ');
        let placeholder = after.is_some_and(|a| a.is_ascii_lowercase())
            && before.is_none_or(|b| !(b.is_ascii_alphanumeric() || b == b'}' || b == b'_'));
        alternate || placeholder || heading
    })
}

/// Whether a literal is a short attribute name (one or two lower-case letters, `pk` and `sk` aside).
fn attribute_name(literal: &str) -> bool {
    (1..=2).contains(&literal.len())
        && literal.bytes().all(|b| b.is_ascii_lowercase())
        && !["pk", "sk"].contains(&literal)
}

/// Whether a literal names a count by a letter and a number or name (`r{rule}`, `k{}`): the letter
/// and one placeholder, nothing after it (`p{n}@example.com` is an e-mail).
fn count_name(literal: &str) -> bool {
    let bytes = literal.as_bytes();
    bytes.len() > 2
        && bytes[0].is_ascii_alphabetic()
        && bytes[1] == b'{'
        && literal.find('}') == Some(literal.len() - 1)
}

/// The lines outside the schema that spell a stored name, each with why.
fn spelled_outside() -> Vec<String> {
    let mut found = Vec::new();
    for (file, lines) in code() {
        let name = file.to_string_lossy().replace('\\', "/");
        for (n, line) in lines {
            if NOT_STORED.iter().any(|(f, piece)| name.ends_with(f) && line.contains(piece)) {
                continue;
            }
            let literals = literals(&line);
            let mut why = Vec::new();
            if literals.iter().any(|l| l.contains('#') && !no_key(l)) {
                why.push("a key fragment");
            }
            if ATTRIBUTE_READS.iter().any(|read| line.contains(read)) && literals.iter().any(|l| attribute_name(l)) {
                why.push("an attribute's name");
            }
            if line.contains("format!(") && literals.iter().any(|l| count_name(l)) {
                why.push("a count's name");
            }
            if !why.is_empty() {
                found.push(format!("{name}:{n}: {} ({})", line.trim(), why.join(", ")));
            }
        }
    }
    found
}

#[test]
fn no_stored_name_is_spelled_outside_the_keys() {
    let found = spelled_outside();
    assert!(found.is_empty(), "stored names belong in lib/src/{SCHEMA}:\n{}", found.join("\n"));
}

#[test]
fn the_check_sees_what_it_looks_for() {
    for fragment in ["A#{account}#BILLINGS", "{day}#", "#K{category}"] {
        assert!(!no_key(fragment), "{fragment}");
    }
    for other in
        ["storage unavailable: {0:#}", "#pk = :pk AND #sk < :sk", "ADD #value :by", "#n{}", "got {:#?}", "# 10 creates"]
    {
        assert!(no_key(other), "{other}");
    }
    assert!(attribute_name("v") && !attribute_name("a1") && !attribute_name("sk"));
    assert!(count_name("r{rule}") && count_name("t{}") && !count_name("{day}#") && !count_name("p{n}@example.com"));
    assert_eq!(literals(r#"item::text(entry, "s").and_then(x, "a\"b")"#), ["s", "a\\\"b"]);
    assert_eq!(literals("['@', '#', '$']"), ["#"]);
}
