//! The `read_file` tool: a served text file, whole or a range of lines,
//! within a size cap (and never above the tree's `max_file_size`).

use std::io::{BufRead, BufReader};

use serde::Deserialize;
use serde_json::{Value, json};
use switchboard_server::{CallToolResult, RequestContext, Tool, ToolError};
use switchboard_tree::ServedTree;

use super::{blocking, path_error};

#[derive(Debug, Deserialize)]
struct Args {
    path: String,
    #[serde(default)]
    start_line: Option<u64>,
    #[serde(default)]
    end_line: Option<u64>,
}

pub(super) fn tool(tree: ServedTree, max_bytes: u64) -> Tool {
    Tool::new("read_file")
        .title("Read a file")
        .description(description(max_bytes, tree.max_file_size()))
        .input_schema(json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File path relative to the served folder, e.g. src/main.rs"},
                "start_line": {"type": "integer", "minimum": 1, "description": "First line to return (1-based)"},
                "end_line": {"type": "integer", "minimum": 1, "description": "Last line to return (inclusive)"}
            },
            "required": ["path"],
            "additionalProperties": false
        }))
        .read_only()
        .raw_handler(move |args: Value, _ctx: RequestContext| {
            let tree = tree.clone();
            async move {
                let args: Args = serde_json::from_value(args)
                    .map_err(|e| ToolError::new(format!("read_file: invalid arguments: {e}")))?;
                blocking("read_file", move || read(&tree, &args, max_bytes)).await.map(CallToolResult::text)
            }
        })
}

/// What the model is told, with the limits that really apply: files above
/// the tree's `max_file_size` are not read at all; below it, those above
/// `max_bytes` only in ranges.
fn description(max_bytes: u64, max_file_size: u64) -> String {
    let mut text = String::from(
        "Reads a served text file of the project (what the file:// resources serve). Give start_line \
         and/or end_line (1-based, inclusive) to read part of it.",
    );
    if max_bytes < max_file_size {
        text.push_str(&format!(" Files over {max_bytes} bytes must be read in ranges;"));
        text.push_str(&format!(" files over {max_file_size} bytes are not read."));
    } else {
        text.push_str(&format!(" Files over {max_file_size} bytes are not read."));
    }
    text
}

fn read(tree: &ServedTree, args: &Args, max_bytes: u64) -> Result<String, ToolError> {
    let file = tree.readable(&args.path).map_err(|e| path_error("read_file", &args.path, &e))?;
    let io = |e: std::io::Error| ToolError::new(format!("read_file: {:?}: {e}", args.path));
    let start = args.start_line.unwrap_or(1);
    if let Some(end) = args.end_line
        && end < start
    {
        return Err(ToolError::new(format!(
            "read_file: end_line {end} is before start_line {start}; give end_line >= start_line"
        )));
    }
    let ranged = args.start_line.is_some() || args.end_line.is_some();
    if !ranged && file.size > max_bytes {
        return Err(ToolError::new(format!(
            "read_file: {:?} is {} bytes, over the {max_bytes}-byte limit; read it in parts with \
             start_line and end_line",
            args.path, file.size
        )));
    }
    let mut reader = BufReader::new(std::fs::File::open(&file.path).map_err(io)?);
    let mut out: Vec<u8> = Vec::new();
    let mut line = Vec::new();
    let mut number = 0u64;
    let mut truncated = false;
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line).map_err(io)? == 0 {
            break;
        }
        number += 1;
        if line.contains(&0) {
            return Err(ToolError::new(format!("read_file: {:?} is a binary file, not text", args.path)));
        }
        if number < start {
            continue;
        }
        if args.end_line.is_some_and(|end| number > end) {
            break;
        }
        if (out.len() + line.len()) as u64 > max_bytes {
            truncated = true;
            break;
        }
        out.extend_from_slice(&line);
    }
    if start > 1 && number < start {
        return Err(ToolError::new(format!(
            "read_file: start_line {start} is past the end of {:?}, which has {number} lines",
            args.path
        )));
    }
    if truncated && out.is_empty() {
        return Err(ToolError::new(format!(
            "read_file: line {number} of {:?} alone is longer than the {max_bytes}-byte limit",
            args.path
        )));
    }
    let mut text = String::from_utf8(out)
        .map_err(|_| ToolError::new(format!("read_file: {:?} is not UTF-8 text", args.path)))?;
    if truncated {
        text.push_str(&format!(
            "\n[stopped after line {}: the {max_bytes}-byte limit was reached; continue with start_line = {}]",
            number - 1,
            number
        ));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::description;

    #[test]
    fn the_description_states_the_limits_that_apply() {
        let both = description(1000, 5000);
        assert!(
            both.contains("over 1000 bytes must be read in ranges")
                && both.contains("over 5000 bytes are not read")
        );
        let capped = description(1000, 1000);
        assert!(capped.contains("over 1000 bytes are not read") && !capped.contains("ranges;"), "{capped}");
    }
}
