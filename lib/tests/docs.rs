//! The docs keep the shape a newcomer needs: a README read in five minutes (at most 200 lines,
//! the two commands in its first 30), decisions by subject (each at most eight lines, none naming
//! the tracker's numbers), and no path outside the repository in any of them. Run alone with
//! `cargo test -p billing-api --test docs`.

use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// README.md and every text of docs/ (its bench runs included).
fn documents() -> Vec<(String, String)> {
    let mut found = vec![("README.md".to_owned(), read("README.md"))];
    let mut pending = vec![root().join("docs")];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("docs/") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "md" || e == "yaml") {
                let name = path.strip_prefix(root()).expect("under the root").to_string_lossy().into_owned();
                found.push((name, std::fs::read_to_string(&path).expect("a doc")));
            }
        }
    }
    found
}

#[test]
fn the_readme_is_short_and_starts_with_the_two_commands() {
    let readme = read("README.md");
    let lines: Vec<&str> = readme.lines().collect();
    assert!(lines.len() <= 200, "README.md has {} lines (at most 200: move the rest to a guide)", lines.len());
    let first = &lines[..30.min(lines.len())];
    for command in ["infra/run", "infra/test"] {
        assert!(first.iter().any(|line| line.starts_with(command)), "`{command}` is not in README's first 30 lines");
    }
}

#[test]
fn every_guide_the_readme_names_exists() {
    let readme = read("README.md");
    for (at, _) in readme.match_indices("(docs/") {
        let path = &readme[at + 1..][..readme[at + 1..].find(')').expect("a closing parenthesis")];
        assert!(root().join(path).exists(), "README.md names {path}, which does not exist");
    }
}

#[test]
fn no_doc_names_a_path_outside_the_repository() {
    for (name, text) in documents() {
        for outside in ["../shared", "shared/vendor", "shared/spec"] {
            assert!(!text.contains(outside), "{name} names {outside}: the repository alone is what users have");
        }
    }
}

#[test]
fn decisions_are_short_and_name_no_tracker_numbers() {
    let decisions = read("docs/decisions.md");
    assert!(
        !decisions.to_lowercase().contains("issue"),
        "docs/decisions.md names an issue: say the rule and its reason"
    );
    let mut long = Vec::new();
    let mut title = None;
    let mut lines = 0;
    for line in decisions.lines().chain(["## end"]) {
        if line.starts_with("#") {
            if let Some(title) = title.take().filter(|_| lines > 8) {
                long.push(format!("{title}: {lines} lines"));
            }
            title = line.strip_prefix("### ").map(str::to_owned);
            lines = 0;
        } else if !line.trim().is_empty() {
            lines += 1;
        }
    }
    assert!(long.is_empty(), "decisions over eight lines:\n{}", long.join("\n"));
}

#[test]
fn the_api_document_names_no_tracker_numbers() {
    let openapi = read("docs/openapi.yaml").to_lowercase();
    let numbered =
        openapi.match_indices("issue ").filter(|(at, _)| openapi[at + 6..].starts_with(|c: char| c.is_ascii_digit()));
    assert_eq!(numbered.count(), 0, "docs/openapi.yaml names an issue by its number");
}
