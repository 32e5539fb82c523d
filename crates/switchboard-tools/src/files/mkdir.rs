//! The `create_directory` tool: a folder (and its missing parents) where
//! the tree would let `write_file` create a file ([`ServedTree::writable_dir`]):
//! inside a served folder, never a dot-name, never an excluded or
//! protected path. An existing served folder is not an error.

use serde::Deserialize;
use serde_json::{Value, json};
use switchboard_server::{CallToolResult, RequestContext, Tool, ToolError};
use switchboard_tree::ServedTree;

use super::{blocking, changing, parse_args, path_error};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    path: String,
}

pub(super) fn tool(tree: ServedTree) -> Tool {
    Tool::new("create_directory")
        .title("Create a folder")
        .description(
            "Creates a folder of the project, with any missing parent folders; an existing folder is left \
             as it is. Refused like write_file: dot-names (.git, .vscode…), ignored and excluded paths, and \
             the server's configuration and prompt folders.",
        )
        .input_schema(json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "minLength": 1, "description": "Folder path relative to the served folder"}
            },
            "required": ["path"],
            "additionalProperties": false
        }))
        .annotations(changing(false, true))
        .raw_handler(move |args: Value, _ctx: RequestContext| {
            let tree = tree.clone();
            async move {
                let args: Args = parse_args("create_directory", args)?;
                blocking("create_directory", move || create(&tree, &args.path)).await.map(CallToolResult::text)
            }
        })
}

fn create(tree: &ServedTree, path: &str) -> Result<String, ToolError> {
    let target = tree.writable_dir(path).map_err(|e| path_error("create_directory", path, &e))?;
    if target.exists {
        return Ok(format!("{path} exists already (nothing changed)."));
    }
    target.prepare().map_err(|e| path_error("create_directory", path, &e))?;
    Ok(format!("Created the folder {path}."))
}
