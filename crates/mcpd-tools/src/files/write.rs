//! The `write_file` and `edit_file` tools, offered only when the
//! configuration enables writing. New parent directories are created one
//! by one, each checked to be inside the root.

use std::path::{Component, Path};

use mcp_server::{CallToolResult, FileAccessError, FileRoot, RequestContext, Tool, ToolError};
use mcp_types::tools::ToolAnnotations;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{blocking, path_error};

#[derive(Debug, Deserialize)]
struct WriteArgs {
    path: String,
    content: String,
}

#[derive(Debug, Deserialize)]
struct EditArgs {
    path: String,
    old_text: String,
    new_text: String,
}

fn destructive() -> ToolAnnotations {
    ToolAnnotations {
        read_only_hint: Some(false),
        destructive_hint: Some(true),
        ..ToolAnnotations::default()
    }
}

pub(super) fn write_tool(root: FileRoot) -> Tool {
    Tool::new("write_file")
        .title("Write a file")
        .description(
            "Creates or overwrites a file under the served root with the given content, creating missing \
             parent directories.",
        )
        .input_schema(json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "minLength": 1, "description": "File path relative to the root"},
                "content": {"type": "string", "description": "The whole new content"}
            },
            "required": ["path", "content"],
            "additionalProperties": false
        }))
        .annotations(destructive())
        .raw_handler(move |args: Value, _ctx: RequestContext| {
            let root = root.clone();
            async move {
                let args: WriteArgs = serde_json::from_value(args)
                    .map_err(|e| ToolError::new(format!("write_file: invalid arguments: {e}")))?;
                blocking("write_file", move || write(&root, &args)).await.map(CallToolResult::text)
            }
        })
}

/// Creates the missing parents of `path` inside the root, checking each
/// existing one (symlinks included) before going deeper.
fn create_parents(root: &FileRoot, path: &str) -> Result<(), ToolError> {
    let parent = Path::new(path).parent().unwrap_or(Path::new(""));
    let mut prefix = std::path::PathBuf::new();
    for component in parent.components() {
        match component {
            Component::Normal(part) => prefix.push(part),
            Component::CurDir => continue,
            // resolve_new refuses these with the right message.
            _ => return Ok(()),
        }
        let shown = prefix.to_string_lossy().into_owned();
        match root.resolve_relative(&shown) {
            Ok(dir) if dir.is_dir() => {}
            Ok(_) => {
                return Err(ToolError::new(format!("write_file: {shown:?} exists and is not a directory")));
            }
            Err(FileAccessError::NotFound) => {
                // Its parent was checked to be inside the root on the previous step.
                std::fs::create_dir(root.path().join(&prefix)).map_err(|e| {
                    ToolError::new(format!("write_file: cannot create directory {shown:?}: {e}"))
                })?;
            }
            Err(e) => return Err(path_error("write_file", path, &e)),
        }
    }
    Ok(())
}

fn write(root: &FileRoot, args: &WriteArgs) -> Result<String, ToolError> {
    // Check the whole path first, so nothing is created for a path that is refused.
    if let Err(e @ FileAccessError::Forbidden(_)) = root.resolve_new(&args.path) {
        return Err(path_error("write_file", &args.path, &e));
    }
    create_parents(root, &args.path)?;
    let target = root.resolve_new(&args.path).map_err(|e| path_error("write_file", &args.path, &e))?;
    if target.is_dir() {
        return Err(ToolError::new(format!("write_file: {:?} is a directory", args.path)));
    }
    std::fs::write(&target, &args.content)
        .map_err(|e| ToolError::new(format!("write_file: {:?}: {e}", args.path)))?;
    Ok(format!("Wrote {} bytes to {}.", args.content.len(), args.path))
}

pub(super) fn edit_tool(root: FileRoot, max_bytes: u64) -> Tool {
    Tool::new("edit_file")
        .title("Edit a file")
        .description(
            "Replaces old_text with new_text in a file under the served root. old_text must occur exactly \
             once; include enough surrounding lines to make it unique.",
        )
        .input_schema(json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "minLength": 1, "description": "File path relative to the root"},
                "old_text": {"type": "string", "minLength": 1, "description": "Exact text to replace"},
                "new_text": {"type": "string", "description": "Replacement text"}
            },
            "required": ["path", "old_text", "new_text"],
            "additionalProperties": false
        }))
        .annotations(destructive())
        .raw_handler(move |args: Value, _ctx: RequestContext| {
            let root = root.clone();
            async move {
                let args: EditArgs = serde_json::from_value(args)
                    .map_err(|e| ToolError::new(format!("edit_file: invalid arguments: {e}")))?;
                blocking("edit_file", move || edit(&root, &args, max_bytes)).await.map(CallToolResult::text)
            }
        })
}

fn edit(root: &FileRoot, args: &EditArgs, max_bytes: u64) -> Result<String, ToolError> {
    let path = root.resolve_relative(&args.path).map_err(|e| path_error("edit_file", &args.path, &e))?;
    let io = |e: std::io::Error| ToolError::new(format!("edit_file: {:?}: {e}", args.path));
    let meta = std::fs::metadata(&path).map_err(io)?;
    if !meta.is_file() {
        return Err(ToolError::new(format!("edit_file: {:?} is not a file", args.path)));
    }
    if meta.len() > max_bytes {
        return Err(ToolError::new(format!(
            "edit_file: {:?} is {} bytes, over the {max_bytes}-byte limit for editing",
            args.path,
            meta.len()
        )));
    }
    if args.old_text.is_empty() {
        return Err(ToolError::new("edit_file: old_text is empty; give the exact text to replace"));
    }
    let content = std::fs::read_to_string(&path).map_err(io)?;
    match content.matches(&args.old_text).count() {
        0 => Err(ToolError::new(format!(
            "edit_file: old_text was not found in {:?}; it must match the file exactly, whitespace included \
             (read the file first)",
            args.path
        ))),
        1 => {
            let updated = content.replacen(&args.old_text, &args.new_text, 1);
            std::fs::write(&path, updated).map_err(io)?;
            Ok(format!("Edited {}: replaced 1 occurrence.", args.path))
        }
        n => Err(ToolError::new(format!(
            "edit_file: old_text occurs {n} times in {:?}; include more surrounding text so it matches \
             exactly once",
            args.path
        ))),
    }
}
