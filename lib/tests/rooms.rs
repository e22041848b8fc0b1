//! Small rooms (docs/decisions.md, "Code"): no source file of `lib/src`, `functions/src` or
//! `infra/src` holds over 400 lines before its `#[cfg(test)]` module (every line, as `wc -l`
//! counts), and no function of the workspace (tests and benches included) is over 80 lines of
//! code: the lines that hold something once comments are removed, as clippy's `too_many_lines`
//! counts them.
//! Run alone with `cargo test -p billing-api --test rooms`; a failure names each file or function.

use std::path::{Path, PathBuf};

const FILE_LIMIT: usize = 400;
const FUNCTION_LIMIT: usize = 80;

/// Files allowed past [`FILE_LIMIT`], and why (paths from the workspace's root).
const LONG_FILES: &[(&str, &str)] = &[
    // A bench binary is one program that prints one table; its parts are read top to bottom.
    ("infra/src/bin/bench-", "a bench binary"),
];

/// Every `.rs` file under `dir`, sorted.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The text with comments, strings and character literals blanked (newlines kept), so that
/// braces and line counts read the code alone.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let (c, next) = (chars[i], chars.get(i + 1).copied());
        let end = match (c, next) {
            ('/', Some('/')) => chars[i..].iter().position(|&c| c == '\n').map_or(chars.len(), |p| i + p),
            ('/', Some('*')) => block_comment_end(&chars, i),
            ('r' | 'b', _) if !after_identifier(&chars, i) => raw_string_end(&chars, i).unwrap_or(i),
            ('"', _) => string_end(&chars, i),
            ('\'', Some('\\')) => chars[i + 2..].iter().position(|&c| c == '\'').map_or(chars.len(), |p| i + 3 + p),
            // A character literal ('x'); else a lifetime ('a), kept.
            ('\'', _) if chars.get(i + 2) == Some(&'\'') => i + 3,
            _ => i,
        };
        if end == i {
            out.push(c);
            i += 1;
            continue;
        }
        // A literal keeps its opening character, so that a line holding only one still counts.
        let comment = c == '/';
        out.push(if comment { ' ' } else { c });
        out.extend(chars[i + 1..end].iter().map(|&c| if c == '\n' { '\n' } else { ' ' }));
        i = end;
    }
    out
}

fn after_identifier(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

/// Where the (nested) block comment starting at `i` ends.
fn block_comment_end(chars: &[char], mut i: usize) -> usize {
    let mut depth = 0;
    while i < chars.len() {
        match (chars[i], chars.get(i + 1)) {
            ('/', Some('*')) => depth += 1,
            ('*', Some('/')) => depth -= 1,
            _ => {
                i += 1;
                continue;
            }
        }
        i += 2;
        if depth == 0 {
            break;
        }
    }
    i.min(chars.len())
}

/// Where the raw string (`r"…"`, `r#"…"#`, `br"…"`) starting at `i` ends, if one starts there.
fn raw_string_end(chars: &[char], i: usize) -> Option<usize> {
    let start = if chars[i] == 'b' && chars.get(i + 1) == Some(&'r') { i + 2 } else { i + 1 };
    if chars[i] == 'b' && start == i + 1 {
        return None;
    }
    let hashes = chars.get(start..)?.iter().take_while(|&&h| h == '#').count();
    if chars.get(start + hashes) != Some(&'"') {
        return None;
    }
    let closing =
        |j: usize| chars[j] == '"' && chars.get(j + 1..j + 1 + hashes).is_some_and(|h| h.iter().all(|&c| c == '#'));
    let close = (start + hashes + 1..chars.len()).find(|&j| closing(j))?;
    Some(close + 1 + hashes)
}

/// Where the string starting at `i` ends (past its closing quote).
fn string_end(chars: &[char], i: usize) -> usize {
    let mut j = i + 1;
    while j < chars.len() && chars[j] != '"' {
        j += if chars[j] == '\\' { 2 } else { 1 };
    }
    (j + 1).min(chars.len())
}

/// Lines that hold code.
fn lines_of_code(code: &str) -> usize {
    code.lines().filter(|line| !line.trim().is_empty()).count()
}

/// The lines of a file before its `#[cfg(test)]` module, comments and blank lines included (as
/// `wc -l` counts them: a reader scrolls past those too).
fn file_length(text: &str) -> usize {
    text.lines().take_while(|line| !line.starts_with("#[cfg(test)]")).count()
}

/// Each function of the text: its name, its first line (from 1), and its lines of code from its
/// `fn` to its closing brace.
fn functions(text: &str) -> Vec<(String, usize, usize)> {
    let code = code_only(text);
    let bytes = code.as_bytes();
    let mut found = Vec::new();
    for (at, _) in code.match_indices("fn ") {
        if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
            continue;
        }
        let name: String =
            code[at + 3..].trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if name.is_empty() {
            continue;
        }
        // The body: the first `{` outside brackets and parentheses, unless a `;` ends the item.
        let mut depth = 0i32;
        let mut open = None;
        for (offset, byte) in bytes[at..].iter().enumerate() {
            match byte {
                b'(' | b'[' => depth += 1,
                b')' | b']' => depth -= 1,
                b';' if depth == 0 => break,
                b'{' if depth == 0 => {
                    open = Some(at + offset);
                    break;
                }
                _ => {}
            }
        }
        let Some(open) = open else { continue };
        let mut braces = 0;
        let mut close = bytes.len() - 1;
        for (offset, byte) in bytes[open..].iter().enumerate() {
            match byte {
                b'{' => braces += 1,
                b'}' => {
                    braces -= 1;
                    if braces == 0 {
                        close = open + offset;
                        break;
                    }
                }
                _ => {}
            }
        }
        let line = code[..at].matches('\n').count() + 1;
        let line_start = code[..at].rfind('\n').map_or(0, |n| n + 1);
        found.push((name, line, lines_of_code(&code[line_start..=close])));
    }
    found
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root()).unwrap_or(path).to_string_lossy().replace("/lib/../", "/")
}

#[test]
fn no_source_file_holds_over_400_lines_before_its_tests() {
    let mut long = Vec::new();
    for krate in ["lib/src", "functions/src", "infra/src"] {
        for path in sources(&root().join(krate)) {
            let name = relative(&path);
            let length = file_length(&std::fs::read_to_string(&path).expect("a source file"));
            let exempt = LONG_FILES.iter().any(|(prefix, _)| name.starts_with(prefix));
            if length > FILE_LIMIT && !exempt {
                long.push(format!("{name}: {length} lines before its tests"));
            }
        }
    }
    assert!(long.is_empty(), "files over {FILE_LIMIT} lines (split them by what each part does):\n{}", long.join("\n"));
}

#[test]
fn no_function_is_over_80_lines_of_code() {
    let mut long = Vec::new();
    for dir in ["lib", "functions", "infra", "tests"] {
        for path in sources(&root().join(dir)) {
            let name = relative(&path);
            if name.contains("/target/") || name.contains("node_modules") {
                continue;
            }
            for (function, line, length) in functions(&std::fs::read_to_string(&path).expect("a source file")) {
                if length > FUNCTION_LIMIT {
                    long.push(format!("{name}:{line} {function}: {length} lines of code"));
                }
            }
        }
    }
    assert!(long.is_empty(), "functions over {FUNCTION_LIMIT} lines:\n{}", long.join("\n"));
}

#[test]
fn comments_strings_and_lifetimes_are_read_as_they_are() {
    let text = "fn a<'x>(s: &'x str) -> char {\n    // } a brace in a comment\n    let _ = \"}\";\n    let _ = r#\"}\"#;\n\n    '}'\n}\nfn b() {}\n";
    let found = functions(text);
    assert_eq!(found, vec![("a".to_owned(), 1, 5), ("b".to_owned(), 8, 1)]);
    assert_eq!(file_length("fn a() {}\n/* one\n two */\n\n#[cfg(test)]\nmod tests {}\n"), 4);
}

#[test]
fn the_checks_find_a_long_file_and_a_long_function() {
    let body: String = (0..81).map(|n| format!("    let _{n} = {n};\n")).collect();
    let text = format!("fn long() {{\n{body}}}\n");
    assert_eq!(functions(&text)[0].2, 83);
    assert!(file_length(&text.repeat(5)) > FILE_LIMIT);
}
