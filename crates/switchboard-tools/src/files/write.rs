//! The `write_file` and `edit_file` tools, offered only when the
//! configuration enables writing. Where they may write is the served
//! tree's decision ([`ServedTree::writable`]): served files and new files
//! in served folders, never dotfiles, `.git`, ignore files, the server's
//! configuration or its prompt folders.
//!
//! Every write is atomic: the content goes to a temporary file in the
//! target's folder (a dot-name, so never served meanwhile) that is renamed
//! over the target, with the target's permissions. A reader sees the old
//! file or the new one, never half of it. `edit_file` applies all its
//! edits in memory first (all or nothing) and answers with a unified diff
//! (the `similar` crate), or only the diff with `dry_run`.

use std::io::Write;
use std::path::Path;

use serde::Deserialize;
use serde_json::{Value, json};
use switchboard_server::{CallToolResult, RequestContext, Tool, ToolError};
use switchboard_tree::{ServedTree, TreeError};

use super::{blocking, changing, parse_args, path_error, structured};

/// Longest diff returned, in bytes.
const MAX_DIFF_BYTES: usize = 64 * 1024;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct WriteArgs {
    path: String,
    content: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EditArgs {
    path: String,
    #[serde(default)]
    old_text: Option<String>,
    #[serde(default)]
    new_text: Option<String>,
    #[serde(default)]
    edits: Option<Vec<Edit>>,
    #[serde(default)]
    dry_run: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Edit {
    old_text: String,
    new_text: String,
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
        .annotations(changing(true, true))
        .raw_handler(move |args: Value, _ctx: RequestContext| {
            let tree = tree.clone();
            async move {
                let args: WriteArgs = parse_args("write_file", args)?;
                blocking("write_file", move || write(&tree, &args)).await.map(CallToolResult::text)
            }
        })
}

fn write(tree: &ServedTree, args: &WriteArgs) -> Result<String, ToolError> {
    let target = tree.writable(&args.path).map_err(|e| path_error("write_file", &args.path, &e))?;
    target.prepare().map_err(|e| path_error("write_file", &args.path, &e))?;
    write_atomically(&target.path, args.content.as_bytes())
        .map_err(|e| ToolError::new(format!("write_file: {:?}: {e}", args.path)))?;
    Ok(format!("Wrote {} bytes to {}.", args.content.len(), args.path))
}

/// Writes `bytes` to `path` through a temporary file in the same folder,
/// renamed over it; an existing file's permissions are kept, a new file
/// gets what `std::fs::write` would give it (0666 less the umask).
pub(super) fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().ok_or_else(|| std::io::Error::other("no parent folder"))?;
    let mut builder = tempfile::Builder::new();
    builder.prefix(".switchboard-write-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // Applied at creation, so the umask takes its part as for any new file.
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut temp = builder.tempfile_in(dir)?;
    temp.write_all(bytes)?;
    temp.as_file().sync_all()?;
    match std::fs::metadata(path) {
        Ok(existing) => temp.as_file().set_permissions(existing.permissions())?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    temp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

pub(super) fn edit_tool(tree: ServedTree, max_bytes: u64) -> Tool {
    Tool::new("edit_file")
        .title("Edit a file")
        .description(
            "Edits a served file of the project: each edit replaces old_text with new_text, in order, and \
             each old_text must occur exactly once at its turn (include enough surrounding lines to make it \
             unique). All edits apply or none does. Returns a unified diff of the change; with dry_run, only \
             the diff, nothing is written. One edit may be given as old_text/new_text instead of edits. \
             The same files as write_file are refused.",
        )
        .input_schema(json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "minLength": 1, "description": "File path relative to the served folder"},
                "edits": {"type": "array", "minItems": 1, "items": {
                    "type": "object",
                    "properties": {
                        "old_text": {"type": "string", "minLength": 1, "description": "Exact text to replace"},
                        "new_text": {"type": "string", "description": "Replacement text"}
                    },
                    "required": ["old_text", "new_text"],
                    "additionalProperties": false
                }},
                "old_text": {"type": "string", "minLength": 1, "description": "Exact text to replace (one edit)"},
                "new_text": {"type": "string", "description": "Replacement text (one edit)"},
                "dry_run": {"type": "boolean", "default": false, "description": "Only show the diff; write nothing"}
            },
            "required": ["path"],
            "additionalProperties": false
        }))
        .output_schema(json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "diff": {"type": "string", "description": "Unified diff of the change"},
                "edits": {"type": "integer"},
                "written": {"type": "boolean", "description": "false for a dry run"}
            },
            "required": ["path", "diff", "edits", "written"]
        }))
        .annotations(changing(true, false))
        .raw_handler(move |args: Value, _ctx: RequestContext| {
            let tree = tree.clone();
            async move {
                let args: EditArgs = parse_args("edit_file", args)?;
                blocking("edit_file", move || edit(&tree, &args, max_bytes)).await
            }
        })
}

/// The edits of a call: `edits`, or the one `old_text`/`new_text` pair.
fn edits_of(args: &EditArgs) -> Result<Vec<Edit>, ToolError> {
    match (&args.edits, &args.old_text, &args.new_text) {
        (Some(edits), None, None) if !edits.is_empty() => Ok(edits.clone()),
        (None, Some(old_text), Some(new_text)) => {
            Ok(vec![Edit { old_text: old_text.clone(), new_text: new_text.clone() }])
        }
        _ => Err(ToolError::new(
            "edit_file: give either edits: [{old_text, new_text}, …] or one old_text with its new_text",
        )),
    }
}

fn edit(tree: &ServedTree, args: &EditArgs, max_bytes: u64) -> Result<CallToolResult, ToolError> {
    let edits = edits_of(args)?;
    let target = tree.writable(&args.path).map_err(|e| path_error("edit_file", &args.path, &e))?;
    if !target.exists {
        return Err(path_error("edit_file", &args.path, &TreeError::NotServed));
    }
    let io = |e: std::io::Error| ToolError::new(format!("edit_file: {:?}: {e}", args.path));
    let size = std::fs::metadata(&target.path).map_err(io)?.len();
    if size > max_bytes {
        return Err(ToolError::new(format!(
            "edit_file: {:?} is {size} bytes, over the {max_bytes}-byte limit for editing",
            args.path
        )));
    }
    let original = std::fs::read_to_string(&target.path)
        .map_err(|_| ToolError::new(format!("edit_file: {:?} is not UTF-8 text", args.path)))?;
    let updated = apply(&original, &edits, &args.path)?;
    let diff = unified_diff(&original, &updated, &args.path);
    if !args.dry_run {
        write_atomically(&target.path, updated.as_bytes()).map_err(io)?;
    }
    let verb = if args.dry_run { "Dry run, nothing written" } else { "Edited" };
    let text = format!("{verb}: {} ({} edit(s)).\n{diff}", args.path, edits.len());
    let data = json!({"path": args.path, "diff": diff, "edits": edits.len(), "written": !args.dry_run});
    Ok(structured(text, data))
}

/// `content` with every edit applied in order, or the first that fails.
fn apply(content: &str, edits: &[Edit], path: &str) -> Result<String, ToolError> {
    let mut current = content.to_owned();
    for (i, edit) in edits.iter().enumerate() {
        let which = if edits.len() > 1 { format!("edits[{i}].old_text") } else { "old_text".to_owned() };
        if edit.old_text.is_empty() {
            return Err(ToolError::new(format!(
                "edit_file: {which} is empty; give the exact text to replace"
            )));
        }
        match current.matches(&edit.old_text).count() {
            1 => current = current.replacen(&edit.old_text, &edit.new_text, 1),
            0 => {
                return Err(ToolError::new(format!(
                    "edit_file: {which} was not found in {path:?} (after the edits before it); it must match \
                     the file exactly, whitespace included (read the file first). Nothing was written."
                )));
            }
            n => {
                return Err(ToolError::new(format!(
                    "edit_file: {which} occurs {n} times in {path:?}; include more surrounding text so it \
                     matches exactly once. Nothing was written."
                )));
            }
        }
    }
    Ok(current)
}

/// A git-style unified diff (3 lines of context), cut at [`MAX_DIFF_BYTES`]
/// with a notice.
fn unified_diff(old: &str, new: &str, path: &str) -> String {
    let diff = similar::TextDiff::from_lines(old, new);
    let mut text =
        diff.unified_diff().context_radius(3).header(&format!("a/{path}"), &format!("b/{path}")).to_string();
    if text.len() > MAX_DIFF_BYTES {
        let total = text.len();
        let mut cut = MAX_DIFF_BYTES;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push_str(&format!(
            "\n[diff cut at {MAX_DIFF_BYTES} of {total} bytes; read the file to see the rest]\n"
        ));
    }
    text
}
