//! Layers point one way ("types down, workflows up"): no file of `lib/src`, `functions/src` or
//! `infra/src` may depend, through its `crate::`, `super::` and `self::` paths, on a file of its
//! crate that depends back on it. Run alone with `cargo test -p billing-api --test module_cycles`;
//! a failure names each cycle's files.
//!
//! The paths are read as text (comments removed): each is resolved to the file that defines its
//! longest module prefix, following `pub use` re-exports to the file that defines the name. A
//! module's `mod.rs` and its own sub-files are not counted against each other (a parent lists and
//! re-exports its children).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

/// Every `.rs` file under `src`, by module path (`billings/mod.rs` is `billings`).
fn files(src: &Path) -> BTreeMap<Module, PathBuf> {
    let mut found = BTreeMap::new();
    let mut pending = vec![src.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("read a source folder") {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let relative = path.strip_prefix(src).expect("under src").with_extension("");
            let mut module: Module = relative.iter().map(|part| part.to_string_lossy().into_owned()).collect();
            if module.last().is_some_and(|last| last == "mod") || module == ["lib"] {
                module.pop();
            }
            found.insert(module, path);
        }
    }
    found
}

/// The text without comments (line and block), so that prose naming a path is not a dependency.
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut in_string = false;
    while i < bytes.len() {
        if in_string {
            if bytes[i] == b'\\' {
                i += 2;
                continue;
            }
            if bytes[i] == b'"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        if bytes[i] == b'"' {
            in_string = true;
            i += 1;
        } else if text[i..].starts_with("//") {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if text[i..].starts_with("/*") {
            i = text[i..].find("*/").map_or(bytes.len(), |end| i + end + 2);
        } else {
            let c = text[i..].chars().next().expect("a character");
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The paths a `use` tree or an inline path spells from `start` on: `a::b::{c, d::e}` gives
/// `a::b::c` and `a::b::d::e`. Returns the paths and where the tree ends.
fn paths_from(text: &str, start: usize, prefix: &[String]) -> (Vec<Module>, usize) {
    let bytes = text.as_bytes();
    let mut i = start;
    let mut path: Module = prefix.to_vec();
    loop {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if i < bytes.len() && bytes[i] == b'{' {
            let mut all = Vec::new();
            i += 1;
            loop {
                while i < bytes.len() && (bytes[i].is_ascii_whitespace() || bytes[i] == b',') {
                    i += 1;
                }
                if i >= bytes.len() || bytes[i] == b'}' {
                    return (all, i + 1);
                }
                let (inner, end) = paths_from(text, i, &path);
                all.extend(inner);
                i = end;
            }
        }
        let begin = i;
        while i < bytes.len() && is_ident(bytes[i] as char) {
            i += 1;
        }
        if begin == i {
            return (vec![path], i);
        }
        path.push(text[begin..i].to_owned());
        if text[i..].starts_with("::") {
            i += 2;
        } else {
            return (vec![path], i);
        }
    }
}

/// The module a path's first segments name, seen from the file of `module`: `crate::…` from the
/// root, `self::…` from `module` itself and `super::…` from its parent (whether the file is a
/// `mod.rs` or a plain `name.rs`: `billings/model.rs` is `billings::model`, whose `super` is
/// `billings`), or a child module of `module` named directly (`use model::Tag;` in `tags/mod.rs`).
fn absolute(module: &Module, path: &Module, files: &BTreeMap<Module, PathBuf>) -> Option<Module> {
    match path.first().map(String::as_str) {
        Some("crate") => Some(path[1..].to_vec()),
        Some("self") => Some([module.clone(), path[1..].to_vec()].concat()),
        Some("super") => {
            let mut base = module.clone();
            let mut rest = &path[..];
            while rest.first().is_some_and(|s| s == "super") {
                base.pop()?;
                rest = &rest[1..];
            }
            Some([base, rest.to_vec()].concat())
        }
        Some(first) => {
            let child = [module.clone(), vec![first.to_owned()]].concat();
            files.contains_key(&child).then(|| [module.clone(), path.clone()].concat())
        }
        None => None,
    }
}

struct Crate {
    files: BTreeMap<Module, PathBuf>,
    texts: BTreeMap<Module, String>,
    /// (module, name) → the absolute path a `pub use` of that module re-exports the name from.
    reexports: BTreeMap<(Module, String), Module>,
}

impl Crate {
    fn read(src: &Path) -> Self {
        let files = files(src);
        let texts: BTreeMap<Module, String> = files
            .iter()
            .map(|(m, p)| (m.clone(), without_comments(&std::fs::read_to_string(p).expect("read a source file"))))
            .collect();
        let mut reexports = BTreeMap::new();
        for (module, text) in &texts {
            for (at, _) in text.match_indices("pub use ") {
                let (paths, _) = paths_from(text, at + "pub use ".len(), &[]);
                for path in paths {
                    let Some(target) = absolute(module, &path, &files) else { continue };
                    if let Some(name) = path.last().filter(|n| n.as_str() != "*" && n.as_str() != "self") {
                        reexports.insert((module.clone(), name.clone()), target);
                    }
                }
            }
        }
        Crate { files, texts, reexports }
    }

    /// The file an absolute path lands in: its longest module prefix, through re-exports.
    fn resolve(&self, path: &Module, depth: usize) -> Option<Module> {
        for k in (0..=path.len()).rev() {
            let prefix = path[..k].to_vec();
            if !self.files.contains_key(&prefix) {
                continue;
            }
            if let Some(name) = path.get(k) {
                if let Some(target) = self.reexports.get(&(prefix.clone(), name.clone())) {
                    if depth < 8 && target != path {
                        let mut followed = target.clone();
                        followed.extend_from_slice(&path[k + 1..]);
                        return self.resolve(&followed, depth + 1);
                    }
                }
            }
            return Some(prefix);
        }
        None
    }

    /// Which files each file depends on.
    fn edges(&self) -> BTreeMap<Module, BTreeSet<Module>> {
        let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
        for (module, text) in &self.texts {
            let targets = edges.entry(module.clone()).or_default();
            let mut paths = Vec::new();
            for keyword in ["crate::", "super::", "self::"] {
                for (at, _) in text.match_indices(keyword) {
                    let before = text[..at].chars().next_back();
                    if before.is_some_and(|c| is_ident(c) || c == ':') {
                        continue;
                    }
                    paths.extend(paths_from(text, at, &[]).0);
                }
            }
            for (at, _) in text.match_indices("use ") {
                if text[..at].chars().next_back().is_some_and(is_ident) {
                    continue;
                }
                let (found, _) = paths_from(text, at + 4, &[]);
                let relative =
                    |p: &Module| !matches!(p.first().map(String::as_str), None | Some("crate" | "super" | "self"));
                paths.extend(found.into_iter().filter(relative));
            }
            for path in paths {
                let Some(absolute) = absolute(module, &path, &self.files) else { continue };
                let Some(target) = self.resolve(&absolute, 0) else { continue };
                // A parent and its own children are not counted against each other.
                let related = target.starts_with(module) || module.starts_with(&target);
                if !related {
                    targets.insert(target);
                }
            }
        }
        edges
    }
}

/// The strongly connected components with more than one file (Tarjan's algorithm).
fn cycles(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct State<'a> {
        edges: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'a Module, usize>,
        low: BTreeMap<&'a Module, usize>,
        stack: Vec<&'a Module>,
        on_stack: BTreeSet<&'a Module>,
        found: Vec<Vec<Module>>,
    }
    fn visit<'a>(s: &mut State<'a>, node: &'a Module) {
        let n = s.index.len();
        s.index.insert(node, n);
        s.low.insert(node, n);
        s.stack.push(node);
        s.on_stack.insert(node);
        for next in s.edges.get(node).into_iter().flatten() {
            if !s.edges.contains_key(next) {
                continue;
            }
            if !s.index.contains_key(next) {
                visit(s, next);
                let low = s.low[node].min(s.low[next]);
                s.low.insert(node, low);
            } else if s.on_stack.contains(next) {
                let low = s.low[node].min(s.index[next]);
                s.low.insert(node, low);
            }
        }
        if s.low[node] == s.index[node] {
            let mut component = Vec::new();
            while let Some(top) = s.stack.pop() {
                s.on_stack.remove(top);
                component.push(top.clone());
                if top == node {
                    break;
                }
            }
            if component.len() > 1 {
                s.found.push(component);
            }
        }
    }
    let mut state = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in edges.keys() {
        if !state.index.contains_key(node) {
            visit(&mut state, node);
        }
    }
    state.found
}

fn name(module: &Module) -> String {
    if module.is_empty() {
        "lib".to_owned()
    } else {
        module.join("/")
    }
}

/// The cycles between the files of the crate whose sources are in `src`, one line each.
fn cycles_in(src: &Path) -> Vec<String> {
    let krate = Crate::read(src);
    let described = |cycle: &Vec<Module>| {
        let mut names: Vec<String> = cycle.iter().map(name).collect();
        names.sort();
        names.join(" <-> ")
    };
    cycles(&krate.edges()).iter().map(described).collect()
}

#[test]
fn no_import_cycles_between_the_files_of_lib_functions_and_infra() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    for krate in ["lib", "functions", "infra"] {
        let found = cycles_in(&root.join(krate).join("src"));
        assert!(found.is_empty(), "import cycles between files of {krate}/src:\n{}", found.join("\n"));
    }
}

/// The pairs of top folders (or files) of `src` whose files import each other, one way and back.
fn folder_pairs(src: &Path) -> BTreeSet<(String, String)> {
    let edges = Crate::read(src).edges();
    let top = |module: &Module| module.first().cloned().unwrap_or_else(|| "lib".to_owned());
    let mut between: BTreeSet<(String, String)> = BTreeSet::new();
    for (from, targets) in &edges {
        for to in targets {
            if top(from) != top(to) {
                between.insert((top(from), top(to)));
            }
        }
    }
    between.iter().filter(|(a, b)| a < b && between.contains(&(b.clone(), a.clone()))).cloned().collect()
}

/// No two top folders of lib import each other (code only, comments removed; paths resolved as
/// the cycle check resolves them): what both need belongs to one of them or below both, and a
/// lower folder asks a higher one through a trait the edge installs (`billings::channels`).
#[test]
fn no_two_lib_folders_import_each_other() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let found = folder_pairs(&root.join("src"));
    assert!(found.is_empty(), "folders of lib/src that import each other (one must own what both need): {found:?}");
}

/// A crate of these files (path under `src`, text) in a folder of its own.
fn tree(files: &[(&str, &str)]) -> PathBuf {
    let src = std::env::temp_dir().join(format!("module-cycles-{:016x}", rand_u64())).join("src");
    for (path, text) in files {
        let path = src.join(path);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("create a folder");
        std::fs::write(path, text).expect("write a file");
    }
    src
}

/// A number to name a folder with (no `rand` in this crate's tests).
fn rand_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos());
    hasher.finish()
}

#[test]
fn a_cycle_through_super_paths_is_found_from_plain_files() {
    let src = tree(&[
        ("lib.rs", "pub mod p;"),
        ("p/mod.rs", "pub mod a;\npub mod b;"),
        ("p/a.rs", "use super::b::Beta;\npub struct Alpha;"),
        ("p/b.rs", "pub struct Beta(super::a::Alpha);"),
    ]);
    assert_eq!(cycles_in(&src), ["p/a <-> p/b"]);
}

#[test]
fn a_cycle_through_self_paths_is_found() {
    // `a.rs` reaches `b` through its own child `a/shared.rs`, which re-exports `b`'s type.
    let src = tree(&[
        ("lib.rs", "pub mod a;\npub mod b;"),
        ("a.rs", "pub mod shared;\nuse self::shared::Beta;\npub struct Alpha;"),
        ("a/shared.rs", "pub use crate::b::Beta;"),
        ("b.rs", "pub struct Beta(crate::a::Alpha);"),
    ]);
    assert_eq!(cycles_in(&src), ["a <-> b"]);
}

#[test]
fn a_cycle_through_crate_paths_is_found_and_a_tree_without_one_is_clean() {
    let src = tree(&[
        ("lib.rs", "pub mod a;\npub mod b;\npub mod c;"),
        ("a.rs", "use crate::b::Beta;\npub struct Alpha;"),
        ("b.rs", "pub struct Beta(crate::c::Gamma);"),
        ("c.rs", "pub struct Gamma(crate::a::Alpha);"),
    ]);
    assert_eq!(cycles_in(&src).len(), 1);
    let src = tree(&[
        ("lib.rs", "pub mod a;\npub mod b;"),
        ("a.rs", "use crate::b::Beta;\n// crate::a is named in a comment only\npub struct Alpha(Beta);"),
        ("b.rs", "pub struct Beta;\nconst NOTE: &str = \"crate::a::Alpha\";"),
    ]);
    assert_eq!(cycles_in(&src), Vec::<String>::new());
}

#[test]
fn the_check_finds_a_cycle_when_there_is_one() {
    let module = |path: &str| path.split('/').map(str::to_owned).collect::<Module>();
    let edges = BTreeMap::from([
        (module("a"), BTreeSet::from([module("b")])),
        (module("b"), BTreeSet::from([module("c/d")])),
        (module("c/d"), BTreeSet::from([module("a")])),
        (module("e"), BTreeSet::from([module("a")])),
    ]);
    let found = cycles(&edges);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].len(), 3);
    let (paths, _) = paths_from("crate::{a::b, c::{d, e::f}};", 0, &[]);
    assert_eq!(paths.len(), 3);
    assert_eq!(paths[2], module("crate/c/e/f"));
}

#[test]
fn a_pair_of_folders_importing_each_other_is_found_without_a_file_cycle() {
    let src = tree(&[
        ("lib.rs", "pub mod a;\npub mod b;"),
        ("a/mod.rs", "pub mod x;"),
        ("a/x.rs", "pub struct X(crate::b::y::Y);"),
        ("b/mod.rs", "pub mod y;\npub mod z;"),
        ("b/y.rs", "pub struct Y;"),
        ("b/z.rs", "pub struct Z(crate::a::x::X);"),
    ]);
    assert_eq!(cycles_in(&src), Vec::<String>::new());
    assert_eq!(folder_pairs(&src), BTreeSet::from([("a".to_owned(), "b".to_owned())]));
}
