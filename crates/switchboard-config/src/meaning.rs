//! Values of the right shape that still cannot work: a placeholder that
//! names no parameter, a program that is not installed, a bad glob, a
//! root folder that does not exist, a tool name used twice.
//!
//! Why here and not only where the server is built: the builders stop at
//! the first problem and know no line numbers. These checks run on every
//! part of the file whose shape is right (even when another part is
//! wrong), using the checks of the crates that own the values
//! ([`switchboard_tools::CommandToolSpec::problems`], the served tree's
//! own construction), and place each problem on the exact key, element or
//! header it is about.

use std::ops::Range;
use std::path::Path;

use serde::de::DeserializeOwned;
use serde_json::Value;
use switchboard_files::{FilesOptions, ServedTree, TreeError};
use switchboard_openapi::OpenApiSpec;
use switchboard_tools::{CommandToolSpec, FileToolsOptions, HttpToolSpec, Segment, SpecProblem};

use crate::document::{Document, escape};

/// The meaning problems of `doc` for serving `dir`, as (byte range,
/// message). `bad` holds the pointers of the values with a shape problem:
/// they are left out (a table then falls back to its defaults, or is
/// skipped when something it needs is gone). Secrets that are not set go
/// to `unset_secrets` instead: alone they do not make the file invalid
/// (the project leaves out what needs them).
pub(crate) fn problems(
    doc: &Document,
    dir: &Path,
    bad: &[String],
    unset_secrets: &mut Vec<(Range<usize>, String)>,
) -> Vec<(Range<usize>, String)> {
    let mut out = Vec::new();
    if let Some(files) = typed::<FilesOptions>(doc, "/files", bad, Lists::DropItems) {
        out.extend(files_problems(doc, dir, files));
    }
    out.extend(tool_problems(doc, dir, bad, unset_secrets));
    out.extend(duplicate_names(doc, bad));
    out.extend(skills_problems(doc, dir, bad));
    out.extend(upstream_problems(doc, dir, bad));
    out.extend(database_problems(doc, dir, bad));
    out
}

/// Each `[[databases]]` entry's and `[[tools.sql]]` tool's problems on
/// their keys (`switchboard_sql`'s own checks), and what only the file as
/// a whole shows: a database name used twice, an SQLite `path` outside
/// the served folder, a tool naming no database, a write tool on a read
/// database. What needs the database itself (an unknown table, a
/// privileged role) is `switchboard check`'s, which connects.
fn database_problems(doc: &Document, dir: &Path, bad: &[String]) -> Vec<(Range<usize>, String)> {
    use std::collections::HashMap;
    use switchboard_sql::Access;
    use switchboard_sql::spec::{DatabaseSpec, Key, SqlToolSpec};
    let segments = |keys: Vec<Key>| -> Vec<Segment> {
        keys.into_iter()
            .map(|k| match k {
                Key::Name(name) => Segment::Key(name),
                Key::Index(i) => Segment::Index(i),
            })
            .collect()
    };
    let mut out = Vec::new();
    // Name → (access, line of its name).
    let mut databases: HashMap<String, (Access, usize)> = HashMap::new();
    for (i, _) in array(doc, "/databases").iter().enumerate() {
        let pointer = format!("/databases/{i}");
        let Some(spec) = typed::<DatabaseSpec>(doc, &pointer, bad, Lists::DropList) else { continue };
        for (keys, message) in spec.problems() {
            out.push(place_at(doc, &pointer, &segments(keys), false, message));
        }
        if let Some(path) = &spec.path
            && let Err(message) = database_file(dir, path)
        {
            out.push((value_span(doc, &format!("{pointer}/path")), message));
        }
        let line = line_of(doc, &format!("{pointer}/name"));
        match databases.get(&spec.name) {
            Some((_, first)) => out.push((
                value_span(doc, &format!("{pointer}/name")),
                format!(
                    "database name {:?} is already used by the database on line {first}; give each its own name",
                    spec.name
                ),
            )),
            None => {
                databases.insert(spec.name.clone(), (spec.access, line));
            }
        }
    }
    for (i, _) in array(doc, "/tools/sql").iter().enumerate() {
        let pointer = format!("/tools/sql/{i}");
        let Some(spec) = typed::<SqlToolSpec>(doc, &pointer, bad, Lists::DropList) else { continue };
        for (keys, message) in spec.problems() {
            out.push(place_at(doc, &pointer, &segments(keys), false, message));
        }
        match databases.get(&spec.database) {
            None => {
                let mut names: Vec<&str> = databases.keys().map(String::as_str).collect();
                names.sort_unstable();
                let known = if names.is_empty() {
                    "there is no [[databases]] entry".to_owned()
                } else {
                    format!("the databases are {}", names.join(", "))
                };
                out.push((
                    value_span(doc, &format!("{pointer}/database")),
                    format!("no database named {:?}; {known}", spec.database),
                ));
            }
            Some((Access::Read, line)) if spec.access == Access::Write => out.push((
                value_span(doc, &format!("{pointer}/access")),
                format!(
                    "a write tool on the read database {:?} (line {line}): set access = \"write\" on the \
                     database too, or make this tool a read",
                    spec.database
                ),
            )),
            Some(_) => {}
        }
    }
    out
}

/// `path` (an SQLite file, relative to `dir`) when it is inside the
/// served folder, symbolic links followed; else why not.
pub(crate) fn database_file(dir: &Path, path: &Path) -> Result<std::path::PathBuf, String> {
    let shown = path.display().to_string();
    let outside = || {
        format!(
            "the SQLite file {shown:?} is outside the served folder; give a path inside it, like \"data/app.sqlite\""
        )
    };
    let root = dir.canonicalize().map_err(|_| outside())?;
    let joined = dir.join(path);
    if path.components().any(|c| c == std::path::Component::ParentDir) {
        return Err(outside());
    }
    // A file that does not exist yet is looked for in its (existing) folder.
    let real = match joined.canonicalize() {
        Ok(real) => real,
        Err(_) => {
            let parent = joined.parent().and_then(|p| p.canonicalize().ok()).ok_or_else(|| {
                format!("the folder of the SQLite file {shown:?} does not exist in the served folder")
            })?;
            parent.join(joined.file_name().unwrap_or_default())
        }
    };
    if real.starts_with(&root) { Ok(real) } else { Err(outside()) }
}

/// Each `[[upstreams]]` entry's problems on its keys, and the name clashes
/// the file alone shows: an upstream name or prefix used twice, and a
/// name an override gives (or a prefixed name of an overridden item) that
/// a local tool or another upstream's item already has. Clashes only
/// known once an upstream answers are logged and skipped at run time.
fn upstream_problems(doc: &Document, dir: &Path, bad: &[String]) -> Vec<(Range<usize>, String)> {
    use std::collections::HashMap;
    let mut out = Vec::new();
    let builtin = typed::<FileToolsOptions>(doc, "/tools/builtin", bad, Lists::DropList).unwrap_or_default();
    // Front names taken so far, with who took them (tools and prompts apart).
    let mut tools: HashMap<String, String> =
        builtin.tool_names().into_iter().map(|n| (n.to_owned(), "a built-in file tool".to_owned())).collect();
    for kind in ["command", "http", "sql"] {
        for (i, tool) in array(doc, &format!("/tools/{kind}")).iter().enumerate() {
            if let Some(name) = tool.get("name").and_then(Value::as_str) {
                let line = line_of(doc, &format!("/tools/{kind}/{i}/name"));
                tools.entry(name.to_owned()).or_insert(format!("the tool on line {line}"));
            }
        }
    }
    let mut prompts: HashMap<String, String> = HashMap::new();
    let mut names: HashMap<String, usize> = HashMap::new();
    let mut prefixes: HashMap<String, usize> = HashMap::new();
    for (i, _) in array(doc, "/upstreams").iter().enumerate() {
        let pointer = format!("/upstreams/{i}");
        let Some(spec) = typed::<crate::UpstreamSpec>(doc, &pointer, bad, Lists::DropList) else { continue };
        for (at, in_key, message) in spec.problems(dir) {
            let at: Vec<Segment> = at
                .into_iter()
                .map(|k| match k.parse::<usize>() {
                    Ok(n) => Segment::Index(n),
                    Err(_) => Segment::Key(k),
                })
                .collect();
            out.push(place_at(doc, &pointer, &at, in_key, message));
        }
        let line = line_of(doc, &format!("{pointer}/name"));
        if let Some(first) = names.get(&spec.name) {
            out.push((value_span(doc, &format!("{pointer}/name")), format!(
                "upstream name {:?} is already used by the upstream on line {first}; give each upstream its own name",
                spec.name
            )));
        } else {
            names.insert(spec.name.clone(), line);
        }
        if let Some(prefix) = spec.effective_prefix() {
            if let Some(first) = prefixes.get(prefix) {
                let key = if doc.get(&format!("{pointer}/prefix")).is_some() { "prefix" } else { "name" };
                out.push((value_span(doc, &format!("{pointer}/{key}")), format!(
                    "prefix {prefix:?} is already the prefix of the upstream on line {first}: their tool and prompt \
                     names would clash; give this upstream another `prefix`"
                )));
            } else {
                prefixes.insert(prefix.to_owned(), line);
            }
        }
        for (kind, overrides, taken) in
            [("tools", &spec.tools, &mut tools), ("prompts", &spec.prompts, &mut prompts)]
        {
            for remote in overrides.keys() {
                let front = spec.front_name(remote, kind == "prompts");
                let base = format!("{pointer}/{kind}/{}", crate::document::escape(remote));
                let named = format!("{base}/name");
                let span = if doc.get(&named).is_some() {
                    value_span(doc, &named)
                } else {
                    doc.place(&base).and_then(|p| p.key.clone()).unwrap_or_else(|| value_span(doc, &base))
                };
                let what = if kind == "tools" { "tool" } else { "prompt" };
                match taken.get(&front) {
                    Some(first) => out.push((
                        span,
                        format!(
                            "{what} name {front:?} (upstream {:?}'s {remote:?}) is already taken by {first}; \
                         give it another `name`",
                            spec.name
                        ),
                    )),
                    None => {
                        taken.insert(
                            front,
                            format!("upstream {:?}'s {what} {remote:?} (line {line})", spec.name),
                        );
                    }
                }
            }
        }
    }
    out
}

/// A configured skills folder that cannot be served: missing, not a
/// folder, or not served by the `[files]` rules (the policy skills go
/// through). Placed on `dir`. The skills in it are checked when the
/// project is built, each at its own `SKILL.md`.
fn skills_problems(doc: &Document, dir: &Path, bad: &[String]) -> Option<(Range<usize>, String)> {
    let skills = typed::<switchboard_skills::SkillsOptions>(doc, "/skills", bad, Lists::DropList)?;
    let configured = skills.dir.as_ref().filter(|_| skills.enabled)?;
    let files = typed::<FilesOptions>(doc, "/files", bad, Lists::DropItems).unwrap_or_default();
    let shown = configured.display();
    let reason = match ServedTree::new(dir, &files) {
        Ok(tree) => match switchboard_skills::SkillSet::locate_folder(&tree, configured) {
            Ok(_) => return None,
            Err(switchboard_skills::SkillsError::Folder { reason, .. }) => reason,
            Err(other) => other.to_string(),
        },
        // The [files] problems are reported on their own keys.
        Err(_) => return None,
    };
    Some((
        value_span(doc, "/skills/dir"),
        format!("the skills folder {shown:?} {reason}; give a served folder of skills, like \"skills\""),
    ))
}

/// What leaving out a bad list item does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lists {
    /// Leaves out the item alone (problems are then found by value).
    DropItems,
    /// Leaves out the whole list (problems are found by index).
    DropList,
}

/// The value at `pointer` as `T`, the values at `bad` pointers left out;
/// `None` when absent or unusable without them.
fn typed<T: DeserializeOwned>(doc: &Document, pointer: &str, bad: &[String], lists: Lists) -> Option<T> {
    let mut value = doc.get(pointer)?.clone();
    let below = format!("{pointer}/");
    for b in bad {
        if b == pointer {
            return None;
        }
        if let Some(rest) = b.strip_prefix(&below) {
            let path: Vec<String> =
                rest.split('/').map(|s| s.replace("~1", "/").replace("~0", "~")).collect();
            if leave_out(&mut value, &path, lists) {
                return None;
            }
        }
    }
    drop_nulls(&mut value);
    serde_json::from_value(value).ok()
}

/// Leaves out the value at `path` below `value` (a list item becomes null,
/// removed later, so the indexes of the others hold meanwhile). Returns
/// true when `value` itself must go.
fn leave_out(value: &mut Value, path: &[String], lists: Lists) -> bool {
    let Some((first, rest)) = path.split_first() else { return true };
    match value {
        Value::Object(map) => {
            let gone = map.get_mut(first).is_none_or(|child| leave_out(child, rest, lists));
            if gone {
                map.remove(first);
            }
            false
        }
        Value::Array(items) if lists == Lists::DropItems => {
            if let Some(item) = first.parse::<usize>().ok().and_then(|i| items.get_mut(i))
                && leave_out(item, rest, lists)
            {
                *item = Value::Null;
            }
            false
        }
        _ => true,
    }
}

/// Removes the nulls [`leave_out`] left in lists (TOML has no null).
fn drop_nulls(value: &mut Value) {
    match value {
        Value::Array(items) => {
            items.retain(|v| !v.is_null());
            items.iter_mut().for_each(drop_nulls);
        }
        Value::Object(map) => map.values_mut().for_each(drop_nulls),
        _ => {}
    }
}

fn value_span(doc: &Document, pointer: &str) -> Range<usize> {
    doc.place(pointer).map_or(0..0, |p| p.value.clone())
}

/// Each declared command, HTTP and OpenAPI tool's problems, on their keys;
/// a secret that is not set goes to `unset_secrets`.
fn tool_problems(
    doc: &Document,
    dir: &Path,
    bad: &[String],
    unset_secrets: &mut Vec<(Range<usize>, String)>,
) -> Vec<(Range<usize>, String)> {
    let mut out = Vec::new();
    for (i, _) in array(doc, "/tools/command").iter().enumerate() {
        let pointer = format!("/tools/command/{i}");
        if let Some(spec) = typed::<CommandToolSpec>(doc, &pointer, bad, Lists::DropList) {
            out.extend(spec.problems(dir).into_iter().map(|p| place(doc, &pointer, p)));
        }
    }
    for (i, _) in array(doc, "/tools/http").iter().enumerate() {
        let pointer = format!("/tools/http/{i}");
        if let Some(spec) = typed::<HttpToolSpec>(doc, &pointer, bad, Lists::DropList) {
            for problem in spec.problems() {
                let unset = problem.error.is_missing_secret();
                let placed = place(doc, &pointer, problem);
                if unset { unset_secrets.push(placed) } else { out.push(placed) }
            }
        }
    }
    // The document itself is read when the tools are built (a URL is
    // fetched only then); its problems are placed there.
    for (i, _) in array(doc, "/tools/openapi").iter().enumerate() {
        let pointer = format!("/tools/openapi/{i}");
        if let Some(spec) = typed::<OpenApiSpec>(doc, &pointer, bad, Lists::DropList) {
            for p in spec.problems(dir) {
                let placed = place_at(doc, &pointer, &p.at, p.in_key, p.error.to_string());
                if p.error.is_missing_secret() { unset_secrets.push(placed) } else { out.push(placed) }
            }
        }
    }
    out
}

fn array<'a>(doc: &'a Document, pointer: &str) -> &'a [Value] {
    doc.get(pointer).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// A tool's problem at its place below the tool's table (`base`).
fn place(doc: &Document, base: &str, problem: SpecProblem) -> (Range<usize>, String) {
    place_at(doc, base, &problem.at, problem.in_key, problem.error.to_string())
}

/// `message` at `at` below the table `base` (on the last key's name
/// when `in_key`).
fn place_at(
    doc: &Document,
    base: &str,
    at: &[Segment],
    in_key: bool,
    message: String,
) -> (Range<usize>, String) {
    let mut pointer = base.to_owned();
    for segment in at {
        match segment {
            Segment::Key(k) => pointer.push_str(&format!("/{}", escape(k))),
            Segment::Index(i) => pointer.push_str(&format!("/{i}")),
        }
    }
    let place = doc.place(&pointer).or_else(|| doc.place(base));
    let span = match place {
        Some(p) if in_key => p.key.clone().unwrap_or_else(|| p.value.clone()),
        Some(p) => p.value.clone(),
        None => 0..0,
    };
    (span, message)
}

/// A tool name used twice, or by a built-in file tool: placed on the
/// later `name`.
fn duplicate_names(doc: &Document, bad: &[String]) -> Vec<(Range<usize>, String)> {
    let builtin = typed::<FileToolsOptions>(doc, "/tools/builtin", bad, Lists::DropList).unwrap_or_default();
    let mut seen: std::collections::HashMap<String, String> =
        builtin.tool_names().into_iter().map(|n| (n.to_owned(), "a built-in file tool".to_owned())).collect();
    let mut out = Vec::new();
    for kind in ["command", "http", "sql"] {
        for (i, tool) in array(doc, &format!("/tools/{kind}")).iter().enumerate() {
            let Some(name) = tool.get("name").and_then(Value::as_str) else { continue };
            let pointer = format!("/tools/{kind}/{i}/name");
            let span = value_span(doc, &pointer);
            match seen.get(name) {
                Some(first) => out.push((
                    span,
                    format!("tool name {name:?} is already taken by {first}; give this tool another name"),
                )),
                None => {
                    let line = line_of(doc, &pointer);
                    seen.insert(name.to_owned(), format!("the tool on line {line}"));
                }
            }
        }
    }
    // Each database's ad-hoc query tool, `{name}_query`.
    for (i, _) in array(doc, "/databases").iter().enumerate() {
        let pointer = format!("/databases/{i}");
        let Some(spec) = typed::<switchboard_sql::spec::DatabaseSpec>(doc, &pointer, bad, Lists::DropList)
        else {
            continue;
        };
        if !spec.offers_query_tool() {
            continue;
        }
        let name = spec.query_tool_name();
        match seen.get(&name) {
            Some(first) => out.push((
                value_span(doc, &format!("{pointer}/name")),
                format!(
                    "this database's query tool {name:?} is already taken by {first}; rename the database, \
                     rename that tool, or set query_tool = false"
                ),
            )),
            None => {
                let line = line_of(doc, &format!("{pointer}/name"));
                seen.insert(name, format!("the query tool of the database on line {line}"));
            }
        }
    }
    out
}

fn line_of(doc: &Document, pointer: &str) -> usize {
    crate::problem::line_column(doc.text(), value_span(doc, pointer).start).0
}

/// The served tree's own problems (a root that is not a folder, a mount
/// used twice, a glob that does not parse), all of them: the tree is built
/// again without each offending entry until it builds. Entries are found
/// by value (bad items may have been left out, shifting indexes).
fn files_problems(doc: &Document, dir: &Path, mut files: FilesOptions) -> Vec<(Range<usize>, String)> {
    let mut out = Vec::new();
    for _ in 0..=files.roots.len() + files.exclude.len() {
        let error = match ServedTree::new(dir, &files) {
            Ok(_) => break,
            Err(e) => e,
        };
        let found = match &error {
            TreeError::Glob { pattern, reason } => files.exclude.iter().position(|p| p == pattern).map(|i| {
                files.exclude.remove(i);
                let message = format!(
                    "{pattern:?} in `exclude` is not a valid glob ({reason}); write one like \"*.lock\" or \"target/**\""
                );
                (find(doc, "/files/exclude", "", pattern, false), message)
            }),
            TreeError::Root { path, source } => files.roots.iter().position(|r| &r.path == path).map(|i| {
                files.roots.remove(i);
                let shown = path.display().to_string();
                let message = format!(
                    "the root folder {shown:?} cannot be served ({source}); give a folder that exists, like \".\" or \"docs\""
                );
                (find(doc, "/files/roots", "/path", &shown, false), message)
            }),
            TreeError::Mount { mount, reason } => {
                files.roots.iter().rposition(|r| r.mount.trim_matches('/') == mount).map(|i| {
                    let written = files.roots.remove(i).mount;
                    let message = format!("mount {mount:?}: {reason}; use a name like \"docs\" or \"src/lib\"");
                    (find(doc, "/files/roots", "/mount", &written, true), message)
                })
            }
            _ => None,
        };
        match found {
            Some(problem) => out.push(problem),
            None => {
                out.push((value_span(doc, "/files"), format!("[files]: {error}")));
                break;
            }
        }
    }
    out
}

/// The place of the item of the list at `list` whose `field` (a pointer
/// suffix, `""` for the item itself) is the text `value`: the first such
/// item, or the last with `last`; the list itself if none.
fn find(doc: &Document, list: &str, field: &str, value: &str, last: bool) -> Range<usize> {
    let pointers = (0..array(doc, list).len()).map(|i| format!("{list}/{i}{field}"));
    let mut matching = pointers.filter(|p| doc.get(p).and_then(Value::as_str) == Some(value));
    let pointer = if last { matching.next_back() } else { matching.next() };
    value_span(doc, pointer.as_deref().unwrap_or(list))
}
