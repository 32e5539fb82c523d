//! The `list_directory` tool: the served entries of a folder, to a depth,
//! as an indented tree. The entries are the tree's listing
//! ([`ServedTree::list`]), so nothing ignored, hidden, excluded or under
//! `.git` is ever shown; the count is bounded and the rest is counted.

use serde::Deserialize;
use serde_json::{Value, json};
use switchboard_server::{CallToolResult, RequestContext, Tool, ToolError};
use switchboard_tree::{Entry, EntryKind, ServedTree};

use super::{blocking, parse_args, path_error, structured};

/// Deepest listing one call gives.
const MAX_DEPTH: usize = 10;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    #[serde(default)]
    path: String,
    #[serde(default = "default_depth")]
    depth: usize,
    #[serde(default)]
    sizes: bool,
    #[serde(default = "default_max_entries")]
    max_entries: usize,
}

fn default_depth() -> usize {
    1
}

fn default_max_entries() -> usize {
    500
}

pub(super) fn tool(tree: ServedTree) -> Tool {
    Tool::new("list_directory")
        .title("List a folder")
        .description(
            "Lists the served entries of a folder of the project (what the file:// resources serve: \
             .gitignore'd, hidden and .git entries never appear), each with its kind (file, dir, \
             symlink-to-file) and size. path \"\" is the served folder; when several folders are served, \
             each appears there as a folder (this is the list of allowed directories). depth > 1 gives an \
             indented tree. Long listings stop at max_entries and say how many entries were left out.",
        )
        .input_schema(json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "default": "", "description": "Folder relative to the served folder (\"\" for the served folder itself)"},
                "depth": {"type": "integer", "minimum": 1, "maximum": MAX_DEPTH, "default": 1, "description": "Levels to list (1: the folder's own entries)"},
                "sizes": {"type": "boolean", "default": false, "description": "Show file sizes in the text (structuredContent always has them)"},
                "max_entries": {"type": "integer", "minimum": 1, "maximum": 10000, "default": 500}
            },
            "additionalProperties": false
        }))
        .output_schema(json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "entries": {"type": "array", "items": {
                    "type": "object",
                    "properties": {
                        "path": {"type": "string", "description": "Served path"},
                        "kind": {"type": "string", "enum": ["file", "dir", "symlink-to-file"]},
                        "size": {"type": "integer", "description": "Bytes (0 for folders)"},
                        "depth": {"type": "integer", "description": "1: directly in the listed folder"}
                    },
                    "required": ["path", "kind", "size", "depth"]
                }},
                "omitted": {"type": "integer", "description": "Entries left out by max_entries"}
            },
            "required": ["path", "entries", "omitted"]
        }))
        .read_only()
        .raw_handler(move |args: Value, _ctx: RequestContext| {
            let tree = tree.clone();
            async move {
                let args: Args = parse_args("list_directory", args)?;
                blocking("list_directory", move || list(&tree, &args)).await
            }
        })
}

fn list(tree: &ServedTree, args: &Args) -> Result<CallToolResult, ToolError> {
    if !(1..=MAX_DEPTH).contains(&args.depth) {
        return Err(ToolError::new(format!("list_directory: depth must be 1 to {MAX_DEPTH}")));
    }
    if args.max_entries == 0 {
        return Err(ToolError::new("list_directory: max_entries must be at least 1"));
    }
    let mut kept: Vec<Entry> = Vec::new();
    let mut omitted = 0usize;
    tree.list(&args.path, args.depth, |entry| {
        if kept.len() < args.max_entries {
            kept.push(entry);
        } else {
            omitted += 1;
        }
    })
    .map_err(|e| path_error("list_directory", &args.path, &e))?;
    // Several roots are walked one after the other; show one tree.
    kept.sort_by(|a, b| a.served.split('/').cmp(b.served.split('/')));
    let text = render(&args.path, &kept, omitted, args.sizes);
    let data = json!({
        "path": args.path.trim_matches('/'),
        "entries": kept.iter().map(|e| json!({
            "path": e.served, "kind": e.kind.as_str(), "size": e.size, "depth": e.depth,
        })).collect::<Vec<_>>(),
        "omitted": omitted,
    });
    Ok(structured(text, data))
}

/// The indented tree: folders end in `/`, links say so, two spaces a level.
fn render(path: &str, entries: &[Entry], omitted: usize, sizes: bool) -> String {
    let shown = path.trim_matches('/');
    let mut text = format!("{}/\n", if shown.is_empty() { "." } else { shown });
    if entries.is_empty() {
        text.push_str("  (no served entries)\n");
    }
    for entry in entries {
        let name = entry.served.rsplit('/').next().unwrap_or(&entry.served);
        text.push_str(&"  ".repeat(entry.depth));
        text.push_str(name);
        match entry.kind {
            EntryKind::Dir => text.push('/'),
            EntryKind::FileLink => text.push_str(" (symlink to a file)"),
            EntryKind::File => {}
        }
        if sizes && entry.kind != EntryKind::Dir {
            text.push_str(&format!(" ({} bytes)", entry.size));
        }
        text.push('\n');
    }
    if omitted > 0 {
        text.push_str(&format!(
            "[{omitted} more entries not shown (max_entries = {}); list a sub-folder, lower depth, or use \
             find_files with a glob]\n",
            entries.len()
        ));
    }
    text
}
