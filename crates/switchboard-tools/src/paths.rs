//! Path arguments of command tools. An argument that names a file or a
//! folder of the project is resolved through the served tree before the
//! program sees it, so `cat {file}` cannot be pointed at `.env`, `.git/`,
//! an ignored file or anything outside the folder.
//!
//! Which arguments are paths: a property whose schema says
//! `"format": "path"` (or, for an array, whose `items` do), and, so that a
//! configuration that forgot to say so is still safe, a property without a
//! `format` whose name says it is a path (`path`, `file`, `dir`, `folder`,
//! `directory`, `filename`, or ending in `_path`, `_file`, `_dir`,
//! `_folder`; the plurals for arrays). A property with another `format`
//! is not a path.
//!
//! What may be named: for a tool marked `read_only`, a served file or
//! folder; for any other tool (which may change what it is given), a file
//! the tree lets the model write (a served file, or a new file in a served
//! folder; never a dotfile or the server's configuration) or a served
//! folder that holds nothing protected. The program receives the absolute
//! path of what was named.

use serde_json::{Map, Value};
use switchboard_server::ToolError;
use switchboard_tree::{Kind, ServedTree, TreeError};

/// The path arguments of one tool and how to check them.
#[derive(Debug, Clone)]
pub(crate) struct PathArguments {
    names: Vec<String>,
    tree: ServedTree,
    read_only: bool,
}

const SINGULAR: &[&str] = &["path", "file", "dir", "folder", "directory", "filename"];
const PLURAL: &[&str] = &["paths", "files", "dirs", "folders", "directories", "filenames"];
const SUFFIXES: &[&str] = &["_path", "_file", "_dir", "_folder"];
const PLURAL_SUFFIXES: &[&str] = &["_paths", "_files", "_dirs", "_folders"];

impl PathArguments {
    /// The path properties of `schema` (a tool's input schema).
    pub fn new(schema: &Value, tree: ServedTree, read_only: bool) -> Self {
        let names = schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|props| props.iter().filter(|(n, s)| is_path(n, s)).map(|(n, _)| n.clone()).collect())
            .unwrap_or_default();
        Self { names, tree, read_only }
    }

    /// Replaces each path argument in `args` by the absolute path it
    /// names, or refuses the call saying why.
    pub fn resolve(&self, tool: &str, args: &mut Value) -> Result<(), ToolError> {
        let Some(args) = args.as_object_mut() else { return Ok(()) };
        for name in &self.names {
            match args.get_mut(name) {
                Some(Value::String(path)) => *path = self.check(tool, name, path)?,
                Some(Value::Array(items)) => {
                    for item in items {
                        if let Value::String(path) = item {
                            *path = self.check(tool, name, path)?;
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn check(&self, tool: &str, name: &str, path: &str) -> Result<String, ToolError> {
        let refused = |e: TreeError| ToolError::new(format!("{tool}: argument {name} = {path:?}: {e}"));
        let located = self.tree.locate(path);
        let resolved = match (located, self.read_only) {
            (Ok(found), true) => found.path,
            (Err(e), true) => return Err(refused(e)),
            (Ok(found), false) if found.kind == Kind::Dir => {
                if self.tree.contains_protected(&found.path) {
                    return Err(refused(TreeError::Protected(
                        "the folder holds the server's configuration or prompts, which a tool that \
                         may change files is never given",
                    )));
                }
                found.path
            }
            (_, false) => self.tree.writable(path).map_err(refused)?.path,
        };
        Ok(resolved.to_string_lossy().into_owned())
    }
}

fn is_path(name: &str, schema: &Value) -> bool {
    let format = |s: &Value| s.get("format").and_then(Value::as_str).map(str::to_owned);
    let named = |words: &[&str], suffixes: &[&str]| {
        let lower = name.to_ascii_lowercase();
        words.contains(&lower.as_str()) || suffixes.iter().any(|s| lower.ends_with(s))
    };
    match schema.get("type").and_then(Value::as_str) {
        Some("array") => {
            let items = schema.get("items").cloned().unwrap_or(Value::Object(Map::new()));
            match format(&items) {
                Some(f) => f == "path",
                None => named(PLURAL, PLURAL_SUFFIXES),
            }
        }
        _ => match format(schema) {
            Some(f) => f == "path",
            None => named(SINGULAR, SUFFIXES),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn path_properties_are_marked_or_named() {
        assert!(is_path("x", &json!({"type": "string", "format": "path"})));
        assert!(is_path("file", &json!({"type": "string"})));
        assert!(is_path("config_path", &json!({"type": "string"})));
        assert!(is_path("File", &json!({"type": "string"})));
        assert!(is_path("files", &json!({"type": "array", "items": {"type": "string"}})));
        assert!(is_path("xs", &json!({"type": "array", "items": {"type": "string", "format": "path"}})));
        assert!(!is_path("file", &json!({"type": "string", "format": "uri"})));
        assert!(!is_path("crate", &json!({"type": "string"})));
        assert!(!is_path("profile", &json!({"type": "string"})));
    }
}
