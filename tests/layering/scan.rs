//! The workspace's layering scanner: no import circle of any size, among a
//! crate's top-level modules or among the files of any folder of its `src/`,
//! and (where a crate asks for it) no function past a length.
//!
//! Every crate's `tests/layering.rs` includes this one file by `#[path]`, so
//! one scanner holds them all; `env!("CARGO_MANIFEST_DIR")` is the including
//! crate's. It is a file rather than a `switchboard-testkit` module so that
//! the small crates need no dev-dependency on the server to use it.
//!
//! The import graph is built from the text of `src/`. A file's module path
//! is its place in `src/` (`sql/run.rs` is `sql::run`; `mod.rs`, `lib.rs`
//! and `main.rs` are their folder's own module). Every path that starts at
//! `crate::`, `super::` or `self::` (and each item of a `use ...::{...}`
//! group) is resolved to an absolute module path, in a file's text before its
//! `#[cfg(test)]` part; doc links count, since they are what a reader follows.
//! A path from module `a::b::c` to `a::d::e` is an edge `b -> d` in folder
//! `a/`: the two files' nodes are where their paths part. A folder's own
//! `mod.rs` (and `lib.rs` at the top) is the folder itself, above its files,
//! so its imports of them are not edges among them. A cycle fails the test
//! with its folder, members and their edges.
//!
//! Function length is counted from the `fn` line to the `}` at the same
//! indentation.
//!
//! A plain line and token scan (no parser): enough for this workspace's code,
//! which `cargo fmt` keeps in one shape.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// A directed graph of module names.
type Graph = BTreeMap<String, BTreeSet<String>>;

/// Fails with every import cycle among the modules of the crate at
/// `manifest_dir`, folder by folder.
pub fn assert_no_import_cycles(manifest_dir: &str) {
    let src = Path::new(manifest_dir).join("src");
    let files = rust_files(&src);
    assert!(!files.is_empty(), "the scan found the crate's source files in {}", src.display());
    let graphs = folder_graphs(&src, &files);
    let mut report = Vec::new();
    for (folder, graph) in &graphs {
        for cycle in cycles(graph) {
            report.push(format!("in src/{folder}:\n{}", describe(graph, &cycle)));
        }
    }
    assert!(
        report.is_empty(),
        "import cycles (each module must import downward only):\n{}",
        report.join("\n\n")
    );
}

/// Fails with every function of the crate at `manifest_dir` longer than
/// `max` lines.
pub fn assert_no_function_longer_than(manifest_dir: &str, max: usize) {
    let long = long_functions(&Path::new(manifest_dir).join("src"), max);
    let report: Vec<String> = long.iter().map(|(n, at, name)| format!("  {n:4} {at} {name}")).collect();
    assert!(
        long.is_empty(),
        "functions over {max} lines (split them into named stages):\n{}",
        report.join("\n")
    );
}

/// Every `.rs` file under `dir`, recursively, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut entries: Vec<PathBuf> =
        fs::read_dir(dir).expect("src/ is readable").map(|e| e.expect("a directory entry").path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

/// A file's module path inside the crate: `sql/run.rs` is `[sql, run]`,
/// `sql/mod.rs` is `[sql]`, `lib.rs` and `main.rs` are `[]`.
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src).expect("the file is under src/").with_extension("");
    let mut path: Vec<String> =
        relative.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    let own_module = match path.as_slice() {
        [root] => root == "lib" || root == "main",
        [.., last] => last == "mod",
        [] => false,
    };
    if own_module {
        path.pop();
    }
    path
}

/// The modules a folder holds: its files' stems (not `mod`, nor `lib` and
/// `main` at the top) and its subfolders.
fn child_modules(src: &Path, folder: &[String]) -> BTreeSet<String> {
    let dir = folder.iter().fold(src.to_path_buf(), |dir, name| dir.join(name));
    let Ok(entries) = fs::read_dir(&dir) else { return BTreeSet::new() };
    entries
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.is_dir() || p.extension().is_some_and(|e| e == "rs"))
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .filter(|name| name != "mod" && !(folder.is_empty() && (name == "lib" || name == "main")))
        .collect()
}

/// The import graph of each folder's modules, keyed by the folder's path
/// (`""` for `src/` itself, `"sql/"` for `src/sql/`).
fn folder_graphs(src: &Path, files: &[PathBuf]) -> BTreeMap<String, Graph> {
    let mut children: BTreeMap<Vec<String>, BTreeSet<String>> = BTreeMap::new();
    let mut graphs: BTreeMap<String, Graph> = BTreeMap::new();
    for file in files {
        let from = module_path(src, file);
        let text = fs::read_to_string(file).expect("a source file is readable");
        for to in resolved_paths(&from, without_tests(&text)) {
            let shared = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
            if shared >= from.len() || shared >= to.len() {
                continue; // a module importing below itself, or an item of its own ancestors
            }
            let folder = from[..shared].to_vec();
            let modules = children.entry(folder.clone()).or_insert_with(|| child_modules(src, &folder));
            if !modules.contains(&to[shared]) {
                continue; // an item of the folder's own module, not one of its files
            }
            let key: String = folder.iter().map(|name| format!("{name}/")).collect();
            let graph = graphs.entry(key).or_default();
            graph.entry(from[shared].clone()).or_default().insert(to[shared].clone());
        }
    }
    graphs
}

/// The text of a file before its `#[cfg(test)]` part.
fn without_tests(text: &str) -> &str {
    text.split("#[cfg(test)]").next().unwrap_or_default()
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Every path in `text` that starts at `crate::`, `super::` or `self::`,
/// resolved against the module `from` to an absolute module path.
fn resolved_paths(from: &[String], text: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    for anchor in ["crate::", "super::", "self::"] {
        for (at, _) in text.match_indices(anchor) {
            let before = text[..at].chars().next_back();
            if before.is_some_and(|c| is_ident(c) || c == ':') {
                continue; // part of a longer name or of a path already read
            }
            let Some(base) = anchor_base(from, &text[at..]) else { continue };
            for relative in path_tails(&text[at + anchor.len()..]) {
                let mut path = base.clone();
                path.extend(relative.into_iter().skip_while(|s| s == "super"));
                found.push(path);
            }
        }
    }
    found
}

/// Where a path starting at `text` (`crate::`, `self::` or one or more
/// `super::`) begins, as an absolute module path; `None` above the root.
fn anchor_base(from: &[String], text: &str) -> Option<Vec<String>> {
    if text.starts_with("crate::") {
        return Some(Vec::new());
    }
    if text.starts_with("self::") {
        return Some(from.to_vec());
    }
    let mut rest = text;
    let mut up = 0;
    while let Some(after) = rest.strip_prefix("super::") {
        up += 1;
        rest = after;
    }
    from.len().checked_sub(up).map(|keep| from[..keep].to_vec())
}

/// The paths written at the start of `text`: `a::b::C` is `[a, b, C]`, and a
/// group `a::{b::c, d}` is `[a, b, c]` and `[a, d]`. Bounded by the text.
fn path_tails(text: &str) -> Vec<Vec<String>> {
    let mut segments = Vec::new();
    let mut rest = text;
    loop {
        let name: String = rest.chars().take_while(|c| is_ident(*c)).collect();
        if name.is_empty() {
            break;
        }
        rest = &rest[name.len()..];
        if name != "self" {
            segments.push(name);
        }
        match rest.strip_prefix("::") {
            Some(after) => rest = after,
            None => return vec![segments],
        }
    }
    let Some(group) = rest.strip_prefix('{') else { return vec![segments] };
    let mut paths = Vec::new();
    for item in group_items(group) {
        for tail in path_tails(item.trim_start()) {
            let mut path = segments.clone();
            path.extend(tail);
            paths.push(path);
        }
    }
    if paths.is_empty() {
        paths.push(segments);
    }
    paths
}

/// The comma-separated items of a `{...}` group whose text follows the `{`,
/// up to its matching `}` (nested groups stay inside their item).
fn group_items(group: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (at, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(&group[start..at]);
                return items;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&group[start..at]);
                start = at + 1;
            }
            ';' => break,
            _ => {}
        }
    }
    items
}

/// The strongly connected components with more than one module (Tarjan).
fn cycles(graph: &Graph) -> Vec<BTreeSet<String>> {
    struct Tarjan<'a> {
        graph: &'a Graph,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<BTreeSet<String>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, v: &'a str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.graph.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = BTreeSet::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    component.insert(w.to_owned());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    self.found.push(component);
                }
            }
        }
    }
    let mut tarjan = Tarjan {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !tarjan.index.contains_key(v.as_str()) {
            tarjan.visit(v);
        }
    }
    tarjan.found
}

/// A cycle's members with their edges inside it, one per line.
fn describe(graph: &Graph, component: &BTreeSet<String>) -> String {
    component
        .iter()
        .map(|m| {
            let inside: Vec<&str> = graph
                .get(m)
                .into_iter()
                .flatten()
                .filter(|t| component.contains(*t))
                .map(String::as_str)
                .collect();
            format!("  {m} -> {}", inside.join(", "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Functions longer than `max` lines: `(lines, file:line, name)`.
fn long_functions(src: &Path, max: usize) -> Vec<(usize, String, String)> {
    let mut long = Vec::new();
    for file in rust_files(src) {
        let text = fs::read_to_string(&file).expect("a source file is readable");
        let lines: Vec<&str> = text.split('\n').collect();
        for (start, line) in lines.iter().enumerate() {
            let Some((indent, name)) = fn_header(line) else { continue };
            let closing = " ".repeat(indent) + "}";
            let end = (start + 1..lines.len())
                .find(|&j| lines[j].starts_with(&closing) && indentation(lines[j]) == indent)
                .unwrap_or(lines.len());
            let length = end - start + 1;
            if length > max {
                let at = format!("{}:{}", file.strip_prefix(src).unwrap_or(&file).display(), start + 1);
                long.push((length, at, name));
            }
        }
    }
    long
}

fn indentation(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The indentation and name of a line that starts a function with a body
/// (`[pub[(…)] ][async ]fn name`, not ending in `;`).
fn fn_header(line: &str) -> Option<(usize, String)> {
    if line.trim_end().ends_with(';') {
        return None;
    }
    let indent = line.len() - line.trim_start_matches(char::is_whitespace).len();
    let mut rest = &line[indent..];
    if let Some(after) = rest.strip_prefix("pub") {
        rest = match after.strip_prefix('(') {
            Some(inner) => inner.split_once(')')?.1.strip_prefix(' ')?,
            None => after.strip_prefix(' ')?,
        };
    }
    rest = rest.strip_prefix("async ").unwrap_or(rest);
    let name: String = rest.strip_prefix("fn ")?.chars().take_while(|c| is_ident(*c)).collect();
    (!name.is_empty()).then_some((indent, name))
}

fn owned(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| (*n).to_owned()).collect()
}

#[test]
fn the_scan_resolves_paths_and_finds_cycles() {
    let from = owned(&["sql", "run"]);
    let text = "use crate::{App, sse::{Event, self}};\nuse super::pool::Pool;\n\
                /// [`x`](crate::tasks::X)\nuse super::super::top;\nuse self::inner::Y;\nfoo_crate::z;\n";
    let paths = resolved_paths(&from, text);
    for expected in [
        owned(&["App"]),
        owned(&["sse", "Event"]),
        owned(&["sse"]),
        owned(&["sql", "pool", "Pool"]),
        owned(&["tasks", "X"]),
        owned(&["top"]),
        owned(&["sql", "run", "inner", "Y"]),
    ] {
        assert!(paths.contains(&expected), "{expected:?} in {paths:?}");
    }
    assert_eq!(paths.len(), 7, "only paths at `crate::`, `super::` and `self::` themselves: {paths:?}");
    let graph: Graph = [("a", vec!["b"]), ("b", vec!["c"]), ("c", vec!["a"]), ("d", vec!["a"])]
        .into_iter()
        .map(|(m, to)| (m.to_owned(), to.into_iter().map(str::to_owned).collect()))
        .collect();
    let found = cycles(&graph);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0], ["a", "b", "c"].into_iter().map(str::to_owned).collect());
    assert_eq!(fn_header("    pub(crate) async fn run("), Some((4, "run".to_owned())));
    assert_eq!(fn_header("fn f() -> u8;"), None);
}
