//! Built-in file tools over the served tree: `search` and `read_file`,
//! and, when writing is enabled, `write_file` and `edit_file`. Every path
//! is a served path and every decision is the tree's ([`ServedTree`]): the
//! tools see exactly what the `file://` resources serve, and write only
//! where the policy allows.

mod read;
mod search;
mod write;

use switchboard_server::{Tool, ToolError};
use switchboard_tree::{ServedTree, TreeError};

use crate::spec::FileToolsOptions;

/// The file tools `options` enable, over `tree`.
pub fn file_tools(tree: &ServedTree, options: &FileToolsOptions) -> Vec<Tool> {
    let mut tools = Vec::new();
    if options.search {
        tools.push(search::tool(tree.clone()));
    }
    if options.read {
        tools.push(read::tool(tree.clone(), options.max_read_bytes));
    }
    if options.write {
        tools.push(write::write_tool(tree.clone()));
        tools.push(write::edit_tool(tree.clone(), options.max_read_bytes));
    }
    tools
}

/// A tool error for a path the policy refused, saying why and what to do.
pub(crate) fn path_error(tool: &str, path: &str, e: &TreeError) -> ToolError {
    let hint = match e {
        TreeError::Malformed(_) => " (paths are relative to the served folder and stay inside it)",
        TreeError::NotServed => " (use `search` to find served files)",
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
