//! Holds the crate's layering (issue #18): modules import downward only, and
//! no function on the request path grows past 80 lines.
//!
//! The import graph is built the way `cycles.py` builds it, from the text of
//! `src/`: a module is a top-level file or directory of `src/`, and an edge
//! is any `crate::<module>` (or a module named inside `use crate::{...}`) in
//! its files before their `#[cfg(test)]` part (doc links count: they are
//! what a reader follows). A cycle fails the test with its members and
//! their edges. Function length is counted the way `fnlen.py` counts it:
//! from the `fn` line to the `}` at the same indentation.
//!
//! A plain line and token scan (no parser): enough for this crate's code,
//! which `cargo fmt` keeps in one shape.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The longest a function may be, in lines (its `fn` line to its `}`).
const MAX_FUNCTION_LINES: usize = 80;

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
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

/// The top-level modules of `src/`: file stems and directory names.
fn module_names(src: &Path) -> BTreeSet<String> {
    fs::read_dir(src)
        .expect("src/ is readable")
        .map(|e| e.expect("a directory entry").path())
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect()
}

/// The module a file belongs to: the first component of its path in `src/`.
fn module_of(src: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(src).expect("the file is under src/");
    let first = relative.components().next().expect("a path in src/");
    Path::new(first.as_os_str()).file_stem().expect("a file name").to_string_lossy().into_owned()
}

/// The text of a file before its `#[cfg(test)]` part.
fn without_tests(text: &str) -> &str {
    text.split("#[cfg(test)]").next().unwrap_or_default()
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Every name that follows `crate::` in `text`.
fn crate_paths(text: &str) -> Vec<String> {
    text.match_indices("crate::")
        .filter(|(at, _)| !text[..*at].ends_with(is_ident))
        .map(|(at, prefix)| {
            text[at + prefix.len()..].chars().take_while(|c| is_ident(*c)).collect::<String>()
        })
        .filter(|name| !name.is_empty())
        .collect()
}

/// The names at the head of each path inside `use crate::{...};` groups
/// (`use crate::{App, sse};` names `App` and `sse`).
fn grouped_uses(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    for (at, prefix) in text.match_indices("use crate::{") {
        let rest = &text[at + prefix.len()..];
        let group = &rest[..rest.find(';').unwrap_or(rest.len())];
        let chars: Vec<char> = group.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            if !is_ident(chars[i]) {
                i += 1;
                continue;
            }
            let start = i;
            while i < chars.len() && is_ident(chars[i]) {
                i += 1;
            }
            let heads_a_path =
                start == 0 || matches!(chars[start - 1], ',' | '{') || chars[start - 1].is_whitespace();
            let after: String = chars[i..].iter().collect();
            let trimmed = after.trim_start();
            let ends_a_segment = after.starts_with("::")
                || trimmed.starts_with(',')
                || trimmed.starts_with('}')
                || trimmed.is_empty();
            if heads_a_path && ends_a_segment {
                names.push(chars[start..i].iter().collect());
            }
        }
    }
    names
}

/// The import graph of the crate's modules.
fn import_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let modules = module_names(src);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in rust_files(src) {
        let module = module_of(src, &file);
        let text = fs::read_to_string(&file).expect("a source file is readable");
        let text = without_tests(&text);
        let edges = graph.entry(module.clone()).or_default();
        for name in crate_paths(text).into_iter().chain(grouped_uses(text)) {
            if name != module && modules.contains(&name) {
                edges.insert(name);
            }
        }
    }
    graph
}

/// The strongly connected components with more than one module (Tarjan).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    struct Tarjan<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
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
fn describe(graph: &BTreeMap<String, BTreeSet<String>>, component: &BTreeSet<String>) -> String {
    component
        .iter()
        .map(|m| {
            let inside: Vec<&str> =
                graph[m].iter().filter(|t| component.contains(*t)).map(String::as_str).collect();
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

#[test]
fn modules_import_downward_only() {
    let src = src_dir();
    let graph = import_graph(&src);
    assert!(graph.len() > 5, "the scan found the crate's modules: {:?}", graph.keys());
    let found = cycles(&graph);
    let report: Vec<String> = found.iter().map(|c| describe(&graph, c)).collect();
    assert!(
        found.is_empty(),
        "import cycles between modules (each must import downward only):\n{}",
        report.join("\n\n")
    );
}

#[test]
fn no_function_is_longer_than_80_lines() {
    let long = long_functions(&src_dir(), MAX_FUNCTION_LINES);
    let report: Vec<String> = long.iter().map(|(n, at, name)| format!("  {n:4} {at} {name}")).collect();
    assert!(
        long.is_empty(),
        "functions over {MAX_FUNCTION_LINES} lines (split them into named stages):\n{}",
        report.join("\n")
    );
}

#[test]
fn the_scan_sees_imports_and_cycles() {
    let text = "use crate::{App, sse};\nuse crate::peek::Body;\n/// [`x`](crate::tasks::X)\n";
    let mut names = crate_paths(text);
    names.extend(grouped_uses(text));
    for expected in ["App", "sse", "peek", "tasks"] {
        assert!(names.iter().any(|n| n == expected), "{expected} in {names:?}");
    }
    assert!(!crate_paths("switchboard_crate::x").iter().any(|n| n == "x"), "only `crate::` itself");
    let graph: BTreeMap<String, BTreeSet<String>> =
        [("a", vec!["b"]), ("b", vec!["c"]), ("c", vec!["a"]), ("d", vec!["a"])]
            .into_iter()
            .map(|(m, to)| (m.to_owned(), to.into_iter().map(str::to_owned).collect()))
            .collect();
    let found = cycles(&graph);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0], ["a", "b", "c"].into_iter().map(str::to_owned).collect());
    assert_eq!(fn_header("    pub(crate) async fn run("), Some((4, "run".to_owned())));
    assert_eq!(fn_header("fn f() -> u8;"), None);
}
