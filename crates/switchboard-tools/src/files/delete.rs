//! The `delete_file` tool, offered only with `[tools.builtin] delete =
//! true`: a served file (a symlink itself, never its target) or an empty
//! served folder, where the tree would let `write_file` write
//! ([`ServedTree::removable`]). A folder is removed only when it is empty
//! on disk, so nothing the model cannot see (an ignored build output, a
//! `.env`) goes with it.

use serde::Deserialize;
use serde_json::{Value, json};
use switchboard_server::{CallToolResult, RequestContext, Tool, ToolError};
use switchboard_tree::{EntryKind, ServedTree};

use super::{blocking, changing, parse_args, path_error};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    path: String,
}

pub(super) fn tool(tree: ServedTree) -> Tool {
    Tool::new("delete_file")
        .title("Delete a file")
        .description(
            "Deletes a served file of the project, or an empty folder (a folder holding anything, even \
             files that are not served, is refused). Refused like write_file: dotfiles, ignored files, and \
             the server's configuration and prompt folders.",
        )
        .input_schema(json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "minLength": 1, "description": "Path relative to the served folder"}
            },
            "required": ["path"],
            "additionalProperties": false
        }))
        .annotations(changing(true, true))
        .raw_handler(move |args: Value, _ctx: RequestContext| {
            let tree = tree.clone();
            async move {
                let args: Args = parse_args("delete_file", args)?;
                blocking("delete_file", move || delete(&tree, &args.path)).await.map(CallToolResult::text)
            }
        })
}

fn delete(tree: &ServedTree, path: &str) -> Result<String, ToolError> {
    let entry = tree.removable(path).map_err(|e| path_error("delete_file", path, &e))?;
    if entry.kind == EntryKind::Dir {
        return match std::fs::remove_dir(&entry.path) {
            Ok(()) => Ok(format!("Deleted the empty folder {path}.")),
            Err(e) if e.kind() == std::io::ErrorKind::DirectoryNotEmpty => Err(ToolError::new(format!(
                "delete_file: the folder {path:?} is not empty (it may hold files that are not served); only \
                 empty folders are deleted"
            ))),
            Err(e) => Err(ToolError::new(format!("delete_file: {path:?}: {e}"))),
        };
    }
    std::fs::remove_file(&entry.path).map_err(|e| ToolError::new(format!("delete_file: {path:?}: {e}")))?;
    Ok(format!("Deleted {path}."))
}
