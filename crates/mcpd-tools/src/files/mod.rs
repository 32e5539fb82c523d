//! Built-in file tools over the served root: `search` and `read_file`,
//! and, when writing is enabled, `write_file` and `edit_file`. Every path
//! is relative to the root and resolved with [`FileRoot`]'s checks, so no
//! `..`, absolute path or symlink leads outside it.

mod read;
mod search;
mod write;

use mcp_server::{FileAccessError, FileRoot, Tool, ToolError};

use crate::spec::FileToolsOptions;

/// The file tools `options` enable, over `root`.
pub fn file_tools(root: &FileRoot, options: &FileToolsOptions) -> Vec<Tool> {
    let mut tools = Vec::new();
    if options.search {
        tools.push(search::tool(root.clone()));
    }
    if options.read {
        tools.push(read::tool(root.clone(), options.max_read_bytes));
    }
    if options.write {
        tools.push(write::write_tool(root.clone()));
        tools.push(write::edit_tool(root.clone(), options.max_read_bytes));
    }
    tools
}

/// A tool error for a path that cannot be used, saying why.
pub(crate) fn path_error(tool: &str, path: &str, e: &FileAccessError) -> ToolError {
    let hint = match e {
        FileAccessError::Forbidden(_) => {
            " (paths are relative to the served root and must stay inside it)".to_owned()
        }
        FileAccessError::NotFound => " (use `search` to find files)".to_owned(),
        _ => String::new(),
    };
    ToolError::new(format!("{tool}: {path:?}: {e}{hint}"))
}

/// The path of `p` relative to the root, with `/` separators.
pub(crate) fn display_path(root: &FileRoot, p: &std::path::Path) -> String {
    let rel = p.strip_prefix(root.path()).unwrap_or(p);
    let parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    if parts.is_empty() { ".".to_owned() } else { parts.join("/") }
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
