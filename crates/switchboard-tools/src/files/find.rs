//! The `find_files` tool: served files whose path matches a glob. The
//! files are the tree's ([`ServedTree::find`]); the glob only narrows them,
//! so `**/.env` or `target/**` find nothing the tree does not serve.

use serde::Deserialize;
use serde_json::{Value, json};
use switchboard_server::{CallToolResult, RequestContext, Tool, ToolError};
use switchboard_tree::{Entry, ServedTree, TreeError};

use super::{blocking, parse_args, path_error, structured};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    pattern: String,
    #[serde(default)]
    path: String,
    #[serde(default = "default_max_results")]
    max_results: usize,
}

fn default_max_results() -> usize {
    200
}

pub(super) fn tool(tree: ServedTree) -> Tool {
    Tool::new("find_files")
        .title("Find files by name")
        .description(
            "Finds the served files of the project whose path matches a glob (gitignore syntax): `*.rs` \
             matches at any depth, `src/**/mod.rs` from the served folder, `**/test_*.py` anywhere. \
             .gitignore'd, hidden and .git files are never found. Returns one served path per line.",
        )
        .input_schema(json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "minLength": 1, "description": "Glob on the served path, e.g. **/*.rs"},
                "path": {"type": "string", "default": "", "description": "Only under this folder (relative to the served folder)"},
                "max_results": {"type": "integer", "minimum": 1, "maximum": 10000, "default": 200}
            },
            "required": ["pattern"],
            "additionalProperties": false
        }))
        .output_schema(json!({
            "type": "object",
            "properties": {
                "files": {"type": "array", "items": {
                    "type": "object",
                    "properties": {
                        "path": {"type": "string"},
                        "kind": {"type": "string", "enum": ["file", "symlink-to-file"]},
                        "size": {"type": "integer"}
                    },
                    "required": ["path", "kind", "size"]
                }},
                "omitted": {"type": "integer", "description": "Matches left out by max_results"}
            },
            "required": ["files", "omitted"]
        }))
        .read_only()
        .raw_handler(move |args: Value, _ctx: RequestContext| {
            let tree = tree.clone();
            async move {
                let args: Args = parse_args("find_files", args)?;
                blocking("find_files", move || find(&tree, &args)).await
            }
        })
}

fn find(tree: &ServedTree, args: &Args) -> Result<CallToolResult, ToolError> {
    if args.max_results == 0 {
        return Err(ToolError::new("find_files: max_results must be at least 1"));
    }
    let mut kept: Vec<Entry> = Vec::new();
    let mut omitted = 0usize;
    let found = tree.find(&args.path, &args.pattern, |entry| {
        if kept.len() < args.max_results {
            kept.push(entry);
        } else {
            omitted += 1;
        }
    });
    match found {
        Ok(()) => {}
        Err(TreeError::Glob { pattern, reason }) => {
            return Err(ToolError::new(format!("find_files: invalid glob {pattern:?}: {reason}")));
        }
        Err(e) => return Err(path_error("find_files", &args.path, &e)),
    }
    kept.sort_by(|a, b| a.served.split('/').cmp(b.served.split('/')));
    let mut text: String = kept.iter().map(|e| format!("{}\n", e.served)).collect();
    if kept.is_empty() {
        text = format!("No served files match {:?}.", args.pattern);
    } else if omitted > 0 {
        text.push_str(&format!(
            "[{omitted} more matches not shown (max_results = {}); narrow the pattern or the path]",
            args.max_results
        ));
    }
    let data = json!({
        "files": kept.iter().map(|e| json!({"path": e.served, "kind": e.kind.as_str(), "size": e.size}))
            .collect::<Vec<_>>(),
        "omitted": omitted,
    });
    Ok(structured(text, data))
}
