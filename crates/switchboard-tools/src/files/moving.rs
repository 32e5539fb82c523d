//! The `move_file` tool: a served file (or a symlink itself) to a new
//! path. The source must be one the tree lets `write_file` overwrite and
//! the destination one it lets `write_file` create
//! ([`ServedTree::removable`], [`ServedTree::writable`]), so no protected,
//! dot-named, ignored or excluded path is moved away or moved onto.
//!
//! Choices: files only, because a folder may hold what the model cannot
//! see (a `.env`, an ignored build output), which would move with it; and
//! never over an existing file, so a move loses no data. The
//! no-overwrite holds against races too: the new name is made with a hard
//! link, which fails when the name exists, and only then is the old name
//! removed.

use serde::Deserialize;
use serde_json::{Value, json};
use switchboard_server::{CallToolResult, RequestContext, Tool, ToolError};
use switchboard_tree::{EntryKind, ServedTree};

use super::{blocking, changing, parse_args, path_error};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    source: String,
    destination: String,
}

pub(super) fn tool(tree: ServedTree) -> Tool {
    Tool::new("move_file")
        .title("Move or rename a file")
        .description(
            "Moves or renames a served file of the project, creating missing parent folders of the \
             destination. Never overwrites: an existing destination is refused. Folders are not moved \
             (create_directory, then move the files). Refused like write_file, for both paths: dotfiles, \
             ignored files, and the server's configuration and prompt folders.",
        )
        .input_schema(json!({
            "type": "object",
            "properties": {
                "source": {"type": "string", "minLength": 1, "description": "The file's path relative to the served folder"},
                "destination": {"type": "string", "minLength": 1, "description": "Its new path, including the file name"}
            },
            "required": ["source", "destination"],
            "additionalProperties": false
        }))
        .annotations(changing(false, false))
        .raw_handler(move |args: Value, _ctx: RequestContext| {
            let tree = tree.clone();
            async move {
                let args: Args = parse_args("move_file", args)?;
                blocking("move_file", move || move_file(&tree, &args)).await.map(CallToolResult::text)
            }
        })
}

fn move_file(tree: &ServedTree, args: &Args) -> Result<String, ToolError> {
    let (source, destination) = (&args.source, &args.destination);
    let from = tree.removable(source).map_err(|e| path_error("move_file", source, &e))?;
    if from.kind == EntryKind::Dir {
        return Err(ToolError::new(format!(
            "move_file: {source:?} is a folder; only files are moved (create_directory, then move its files)"
        )));
    }
    let to = tree.writable(destination).map_err(|e| path_error("move_file", destination, &e))?;
    if to.exists {
        return Err(ToolError::new(format!(
            "move_file: {destination:?} exists; a move never overwrites (delete it first, or choose another name)"
        )));
    }
    to.prepare().map_err(|e| path_error("move_file", destination, &e))?;
    let io = |e: std::io::Error| ToolError::new(format!("move_file: {source:?} to {destination:?}: {e}"));
    match std::fs::hard_link(&from.path, &to.path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(ToolError::new(format!(
                "move_file: {destination:?} exists; a move never overwrites (delete it first, or choose another \
                 name)"
            )));
        }
        // Another file system (or one without hard links): copy, never over a file.
        Err(_) if from.kind == EntryKind::File => copy_new(&from.path, &to.path).map_err(io)?,
        Err(e) => return Err(io(e)),
    }
    std::fs::remove_file(&from.path).map_err(io)?;
    Ok(format!("Moved {source} to {destination}."))
}

/// Copies the file `from` to the new file `to` (refused if it exists),
/// with `from`'s permissions.
fn copy_new(from: &std::path::Path, to: &std::path::Path) -> std::io::Result<()> {
    let mut input = std::fs::File::open(from)?;
    let mut output = std::fs::OpenOptions::new().write(true).create_new(true).open(to)?;
    let copied = std::io::copy(&mut input, &mut output).and_then(|_| output.sync_all());
    if let Err(e) = copied {
        std::fs::remove_file(to).ok();
        return Err(e);
    }
    output.set_permissions(input.metadata()?.permissions())
}
