//! Built-in file tools over the served tree: `search`, `read_file`, the
//! folder tools `list_directory`, `find_files` and `file_info`, and, when
//! writing is enabled, `write_file`, `edit_file`, `create_directory` and
//! `move_file` (and `delete_file` only with `delete`). Every path is a
//! served path and every decision is the tree's ([`ServedTree`]): the tools
//! see exactly what the `file://` resources serve, and write only where the
//! policy allows.

mod delete;
mod find;
mod info;
mod list;
mod mkdir;
mod moving;
mod read;
mod search;
mod write;

use serde_json::Value;
use switchboard_server::{CallToolResult, ContentBlock, Tool, ToolError};
use switchboard_tree::{ServedTree, TreeError};
use switchboard_types::tools::ToolAnnotations;

use crate::spec::FileToolsOptions;

/// The file tools `options` enable, over `tree`.
pub fn file_tools(tree: &ServedTree, options: &FileToolsOptions) -> Vec<Tool> {
    let mut tools = Vec::new();
    if options.search {
        tools.push(search::tool(tree.clone()));
    }
    if options.read {
        tools.push(read::tool(tree.clone(), options.max_read_bytes, options.max_image_bytes));
    }
    if options.read && options.list {
        tools.push(list::tool(tree.clone()));
        tools.push(find::tool(tree.clone()));
        tools.push(info::tool(tree.clone()));
    }
    if options.write {
        tools.push(write::write_tool(tree.clone()));
        tools.push(write::edit_tool(tree.clone(), options.max_read_bytes));
        tools.push(mkdir::tool(tree.clone()));
        tools.push(moving::tool(tree.clone()));
    }
    if options.delete {
        tools.push(delete::tool(tree.clone()));
    }
    tools
}

/// The behaviour hints of a tool that changes files.
pub(crate) fn changing(destructive: bool, idempotent: bool) -> ToolAnnotations {
    ToolAnnotations {
        read_only_hint: Some(false),
        destructive_hint: Some(destructive),
        idempotent_hint: Some(idempotent),
        open_world_hint: Some(false),
        ..ToolAnnotations::default()
    }
}

/// A result with text for the model and the same data as `structuredContent`.
pub(crate) fn structured(text: String, data: Value) -> CallToolResult {
    CallToolResult {
        content: vec![ContentBlock::text(text)],
        structured_content: Some(data),
        is_error: None,
        meta: None,
    }
}

/// Parses a tool's arguments, or says what is wrong with them.
pub(crate) fn parse_args<T: serde::de::DeserializeOwned>(tool: &str, args: Value) -> Result<T, ToolError> {
    serde_json::from_value(args).map_err(|e| ToolError::new(format!("{tool}: invalid arguments: {e}")))
}

/// A tool error for a path the policy refused, saying why and what to do.
pub(crate) fn path_error(tool: &str, path: &str, e: &TreeError) -> ToolError {
    let hint = match e {
        TreeError::Malformed(_) => " (paths are relative to the served folder and stay inside it)",
        TreeError::NotServed => " (list_directory and find_files show the served paths)",
        _ => "",
    };
    ToolError::new(format!("{tool}: {path:?}: {e}{hint}"))
}

/// Runs blocking file work off the async threads.
pub(crate) async fn blocking<T: Send + 'static>(
    tool: &'static str,
    f: impl FnOnce() -> Result<T, ToolError> + Send + 'static,
) -> Result<T, ToolError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ToolError::new(format!("{tool}: the file operation failed: {e}")))?
}
