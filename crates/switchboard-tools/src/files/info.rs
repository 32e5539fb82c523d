//! The `file_info` tool: what one served entry is (kind, size, times, MIME
//! type, lines) and what the tree allows with it (read, write), with the
//! tree's reason when it does not. A path that is not served is refused
//! like in every other tool, so the answer never tells that it exists.

use std::io::Read;
use std::path::Path;
use std::time::SystemTime;

use serde::Deserialize;
use serde_json::{Value, json};
use switchboard_server::{CallToolResult, RequestContext, Tool, ToolError};
use switchboard_tree::{EntryKind, ServedTree};

use super::{blocking, parse_args, path_error, structured};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    path: String,
}

pub(super) fn tool(tree: ServedTree) -> Tool {
    Tool::new("file_info")
        .title("Describe a file or folder")
        .description(
            "Describes a served file or folder of the project: kind, size, modified/created/accessed times \
             (RFC 3339), MIME type, line count of text files, and whether read_file may read it and \
             write_file may write it (with the reason when not).",
        )
        .input_schema(json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Path relative to the served folder"}
            },
            "required": ["path"],
            "additionalProperties": false
        }))
        .output_schema(json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "kind": {"type": "string", "enum": ["file", "dir", "symlink-to-file"]},
                "size": {"type": "integer"},
                "modified": {"type": ["string", "null"]},
                "created": {"type": ["string", "null"]},
                "accessed": {"type": ["string", "null"]},
                "permissions": {"type": ["string", "null"], "description": "Unix mode, octal"},
                "mimeType": {"type": ["string", "null"]},
                "lines": {"type": ["integer", "null"], "description": "Lines of a readable text file"},
                "readable": {"type": "boolean"},
                "readReason": {"type": ["string", "null"]},
                "writable": {"type": "boolean"},
                "writeReason": {"type": ["string", "null"]}
            },
            "required": ["path", "kind", "size", "readable", "writable"]
        }))
        .read_only()
        .raw_handler(move |args: Value, _ctx: RequestContext| {
            let tree = tree.clone();
            async move {
                let args: Args = parse_args("file_info", args)?;
                blocking("file_info", move || info(&tree, &args.path)).await
            }
        })
}

fn info(tree: &ServedTree, path: &str) -> Result<CallToolResult, ToolError> {
    let entry = tree.describe(path).map_err(|e| path_error("file_info", path, &e))?;
    let metadata =
        std::fs::metadata(&entry.path).map_err(|e| ToolError::new(format!("file_info: {path:?}: {e}")))?;
    let is_dir = entry.kind == EntryKind::Dir;
    let read = if is_dir { Ok(()) } else { tree.readable(path).map(drop) };
    let write = if is_dir { tree.writable_dir(path).map(drop) } else { tree.writable(path).map(drop) };
    let (mime, lines) = match (is_dir, &read) {
        (true, _) => (None, None),
        (false, Ok(())) => content_facts(&entry.served, &entry.path),
        // Too large to read: the name still tells the type, if it can.
        (false, Err(_)) => {
            (switchboard_files::mime_from_name(Path::new(&entry.served)).map(str::to_owned), None)
        }
    };
    let data = json!({
        "path": entry.served,
        "kind": entry.kind.as_str(),
        "size": entry.size,
        "modified": rfc3339(metadata.modified()),
        "created": rfc3339(metadata.created()),
        "accessed": rfc3339(metadata.accessed()),
        "permissions": permissions(&metadata),
        "mimeType": mime,
        "lines": lines,
        "readable": read.is_ok(),
        "readReason": read.as_ref().err().map(ToString::to_string),
        "writable": write.is_ok(),
        "writeReason": write.as_ref().err().map(ToString::to_string),
    });
    Ok(structured(describe(&data), data))
}

/// The text for the model: one `key: value` line per known fact.
fn describe(data: &Value) -> String {
    let mut text = String::new();
    for key in [
        "path",
        "kind",
        "size",
        "modified",
        "created",
        "accessed",
        "permissions",
        "mimeType",
        "lines",
        "readable",
        "readReason",
        "writable",
        "writeReason",
    ] {
        match &data[key] {
            Value::Null => {}
            Value::String(s) => text.push_str(&format!("{key}: {s}\n")),
            other => text.push_str(&format!("{key}: {other}\n")),
        }
    }
    text
}

/// The MIME type (by name, else by content: the one table of
/// `switchboard-files`) and, for UTF-8 text, the number of lines.
fn content_facts(served: &str, path: &Path) -> (Option<String>, Option<u64>) {
    let Ok(mut file) = std::fs::File::open(path) else { return (None, None) };
    let mut bytes = Vec::new();
    if file.read_to_end(&mut bytes).is_err() {
        return (None, None);
    }
    let head = &bytes[..bytes.len().min(1024)];
    let mime = switchboard_files::mime_from_name(Path::new(served))
        .unwrap_or_else(|| switchboard_files::mime_from_content(head))
        .to_owned();
    let text = !bytes.contains(&0) && std::str::from_utf8(&bytes).is_ok();
    let lines = text.then(|| {
        let newlines = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
        newlines + u64::from(bytes.last().is_some_and(|&b| b != b'\n'))
    });
    (Some(mime), lines)
}

fn rfc3339(time: std::io::Result<SystemTime>) -> Option<String> {
    time.ok().map(|t| humantime::format_rfc3339_seconds(t).to_string())
}

#[cfg(unix)]
fn permissions(metadata: &std::fs::Metadata) -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    Some(format!("{:o}", metadata.permissions().mode() & 0o7777))
}

#[cfg(not(unix))]
fn permissions(_metadata: &std::fs::Metadata) -> Option<String> {
    None
}
