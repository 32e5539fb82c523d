//! The `write_file` and `edit_file` tools, offered only when the
//! configuration enables writing. Where they may write is the served
//! tree's decision ([`ServedTree::writable`]): served files and new files
//! in served folders, never dotfiles, `.git`, ignore files, the server's
//! configuration or its prompt folders.

use serde::Deserialize;
use serde_json::{Value, json};
use switchboard_server::{CallToolResult, RequestContext, Tool, ToolError};
use switchboard_tree::ServedTree;
use switchboard_types::tools::ToolAnnotations;

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

pub(super) fn write_tool(tree: ServedTree) -> Tool {
    Tool::new("write_file")
        .title("Write a file")
        .description(
            "Creates or overwrites a file of the project with the given content, creating missing \
             parent folders. Refused: dotfiles and dot-folders (.env, .gitignore, .git/), ignored files, \
             and the server's configuration and prompt folders.",
        )
        .input_schema(json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "minLength": 1, "description": "File path relative to the served folder"},
                "content": {"type": "string", "description": "The whole new content"}
            },
            "required": ["path", "content"],
            "additionalProperties": false
        }))
        .annotations(destructive())
        .raw_handler(move |args: Value, _ctx: RequestContext| {
            let tree = tree.clone();
            async move {
                let args: WriteArgs = serde_json::from_value(args)
                    .map_err(|e| ToolError::new(format!("write_file: invalid arguments: {e}")))?;
                blocking("write_file", move || write(&tree, &args)).await.map(CallToolResult::text)
            }
        })
}

fn write(tree: &ServedTree, args: &WriteArgs) -> Result<String, ToolError> {
    let target = tree.writable(&args.path).map_err(|e| path_error("write_file", &args.path, &e))?;
    target.prepare().map_err(|e| path_error("write_file", &args.path, &e))?;
    std::fs::write(&target.path, &args.content)
        .map_err(|e| ToolError::new(format!("write_file: {:?}: {e}", args.path)))?;
    Ok(format!("Wrote {} bytes to {}.", args.content.len(), args.path))
}

pub(super) fn edit_tool(tree: ServedTree, max_bytes: u64) -> Tool {
    Tool::new("edit_file")
        .title("Edit a file")
        .description(
            "Replaces old_text with new_text in a served file of the project. old_text must occur exactly \
             once; include enough surrounding lines to make it unique. The same files as write_file are refused.",
        )
        .input_schema(json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "minLength": 1, "description": "File path relative to the served folder"},
                "old_text": {"type": "string", "minLength": 1, "description": "Exact text to replace"},
                "new_text": {"type": "string", "description": "Replacement text"}
            },
            "required": ["path", "old_text", "new_text"],
            "additionalProperties": false
        }))
        .annotations(destructive())
        .raw_handler(move |args: Value, _ctx: RequestContext| {
            let tree = tree.clone();
            async move {
                let args: EditArgs = serde_json::from_value(args)
                    .map_err(|e| ToolError::new(format!("edit_file: invalid arguments: {e}")))?;
                blocking("edit_file", move || edit(&tree, &args, max_bytes)).await.map(CallToolResult::text)
            }
        })
}

fn edit(tree: &ServedTree, args: &EditArgs, max_bytes: u64) -> Result<String, ToolError> {
    let target = tree.writable(&args.path).map_err(|e| path_error("edit_file", &args.path, &e))?;
    if !target.exists {
        return Err(path_error("edit_file", &args.path, &switchboard_tree::TreeError::NotServed));
    }
    let path = target.path;
    let io = |e: std::io::Error| ToolError::new(format!("edit_file: {:?}: {e}", args.path));
    let meta = std::fs::metadata(&path).map_err(io)?;
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
