//! The `read_file` tool: a served text file, whole or a range of lines,
//! within a size cap (and never above the tree's `max_file_size`); a PNG,
//! JPEG, GIF or WebP image (known by its bytes, not its name) as image
//! content; or several of those in one call (`paths`).
//!
//! Several files are a parameter of this tool rather than a tool of their
//! own: one tool less for the model to choose among, and one place where
//! the limits and refusals are decided (each path is judged on its own).

use std::io::{BufRead, BufReader, Read};

use base64::Engine;
use serde::Deserialize;
use serde_json::{Value, json};
use switchboard_server::{CallToolResult, ContentBlock, RequestContext, Tool, ToolError};
use switchboard_tree::ServedTree;

use super::{blocking, parse_args, path_error};

/// Most files one call reads.
const MAX_PATHS: usize = 50;

/// The images returned as image content, by the type their bytes have.
const IMAGE_TYPES: &[&str] = &["image/png", "image/jpeg", "image/gif", "image/webp"];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    paths: Option<Vec<String>>,
    #[serde(default)]
    start_line: Option<u64>,
    #[serde(default)]
    end_line: Option<u64>,
    #[serde(default)]
    tail_lines: Option<u64>,
}

/// The caps of one call.
#[derive(Debug, Clone, Copy)]
struct Limits {
    /// Text returned whole (per file, and in total with `paths`).
    max_bytes: u64,
    /// Largest image returned.
    max_image: u64,
}

pub(super) fn tool(tree: ServedTree, max_bytes: u64, max_image: u64) -> Tool {
    let limits = Limits { max_bytes, max_image };
    Tool::new("read_file")
        .title("Read files")
        .description(description(max_bytes, tree.max_file_size(), max_image))
        .input_schema(json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File path relative to the served folder, e.g. src/main.rs"},
                "paths": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": MAX_PATHS,
                          "description": "Several files to read in one call, instead of path"},
                "start_line": {"type": "integer", "minimum": 1, "description": "First line to return (1-based)"},
                "end_line": {"type": "integer", "minimum": 1, "description": "Last line to return (inclusive)"},
                "tail_lines": {"type": "integer", "minimum": 1, "description": "Return only the last N lines (a log's end); not with start_line or end_line"}
            },
            "additionalProperties": false
        }))
        .read_only()
        .raw_handler(move |args: Value, _ctx: RequestContext| {
            let tree = tree.clone();
            async move {
                let args: Args = parse_args("read_file", args)?;
                blocking("read_file", move || read_call(&tree, &args, limits)).await
            }
        })
}

/// One path, or each of `paths`, marked with its path.
fn read_call(tree: &ServedTree, args: &Args, limits: Limits) -> Result<CallToolResult, ToolError> {
    if args.tail_lines.is_some() && (args.start_line.is_some() || args.end_line.is_some()) {
        return Err(ToolError::new("read_file: give tail_lines, or start_line/end_line, not both"));
    }
    let range = Range { start: args.start_line, end: args.end_line, tail: args.tail_lines };
    match (&args.path, &args.paths) {
        (Some(path), None) => Ok(CallToolResult::success(read_one(tree, path, range, limits)?)),
        (None, Some(paths)) => read_many(tree, paths, range, limits),
        _ => Err(ToolError::new("read_file: give either path (one file) or paths (several files)")),
    }
}

fn read_many(
    tree: &ServedTree,
    paths: &[String],
    range: Range,
    limits: Limits,
) -> Result<CallToolResult, ToolError> {
    if paths.is_empty() || paths.len() > MAX_PATHS {
        return Err(ToolError::new(format!("read_file: paths must hold 1 to {MAX_PATHS} paths")));
    }
    let mut content = Vec::new();
    // One call returns at most `max_bytes` of text and `max_image` of images in all.
    let mut budget = limits.max_bytes;
    let mut image_budget = limits.max_image;
    let mut failed = 0;
    for path in paths {
        let one = Limits { max_bytes: budget, max_image: image_budget };
        let blocks = if budget == 0 {
            Err(ToolError::new(format!(
                "read_file: {path:?} was not read: this call reached its {}-byte total; read it in another call",
                limits.max_bytes
            )))
        } else {
            read_one(tree, path, range, one)
        };
        match blocks {
            Ok(blocks) => {
                for block in &blocks {
                    match block {
                        ContentBlock::Text(t) => budget = budget.saturating_sub(t.text.len() as u64),
                        ContentBlock::Image(i) => {
                            image_budget = image_budget.saturating_sub(i.data.len() as u64 / 4 * 3);
                        }
                        _ => {}
                    }
                }
                content.push(ContentBlock::text(format!("==> {path} <==")));
                content.extend(blocks);
            }
            Err(e) => {
                failed += 1;
                let message = match e {
                    ToolError::Execution(message) => message,
                    ToolError::Protocol(error) => error.message.into_owned(),
                };
                content.push(ContentBlock::text(format!("==> {path} <== not read: {message}")));
            }
        }
    }
    let mut result = CallToolResult::success(content);
    if failed == paths.len() {
        result.is_error = Some(true);
    }
    Ok(result)
}

/// A file as content: an image block, or its text (whole or a range).
fn read_one(
    tree: &ServedTree,
    path: &str,
    range: Range,
    limits: Limits,
) -> Result<Vec<ContentBlock>, ToolError> {
    let file = tree.readable(path).map_err(|e| path_error("read_file", path, &e))?;
    let io = |e: std::io::Error| ToolError::new(format!("read_file: {path:?}: {e}"));
    let mut head = [0u8; 64];
    let n = std::fs::File::open(&file.path).and_then(|mut f| f.read(&mut head)).map_err(io)?;
    let mime = switchboard_files::mime_from_content(&head[..n]);
    if IMAGE_TYPES.contains(&mime) {
        if range.is_partial() {
            return Err(ToolError::new(format!(
                "read_file: {path:?} is a {mime} image; start_line, end_line and tail_lines apply to text files only"
            )));
        }
        if file.size > limits.max_image {
            return Err(ToolError::new(format!(
                "read_file: {path:?} is a {mime} image of {} bytes, over the {}-byte limit for images \
                 ([tools.builtin] max_image_bytes)",
                file.size, limits.max_image
            )));
        }
        let bytes = std::fs::read(&file.path).map_err(io)?;
        let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
        return Ok(vec![ContentBlock::image(data, mime)]);
    }
    read_text(&file.path, path, file.size, range, limits.max_bytes).map(|text| vec![ContentBlock::text(text)])
}

/// A 1-based inclusive line range (`None`s are open ends), or the last
/// `tail` lines.
#[derive(Debug, Clone, Copy)]
struct Range {
    start: Option<u64>,
    end: Option<u64>,
    tail: Option<u64>,
}

impl Range {
    /// Whether only part of a file is asked for.
    fn is_partial(self) -> bool {
        self.start.is_some() || self.end.is_some() || self.tail.is_some()
    }

    /// The last `tail` lines of `file` as a start line (a first pass counts
    /// the lines; the file is at most `max_file_size`), or the range itself.
    fn resolve(self, file: &std::path::Path) -> std::io::Result<Range> {
        let Some(tail) = self.tail else { return Ok(self) };
        let mut reader = BufReader::new(std::fs::File::open(file)?);
        let (mut lines, mut line) = (0u64, Vec::new());
        while reader.read_until(b'\n', &mut line)? > 0 {
            lines += 1;
            line.clear();
        }
        Ok(Range { start: Some(lines.saturating_sub(tail) + 1), end: None, tail: None })
    }
}

/// What the model is told, with the limits that really apply: files above
/// the tree's `max_file_size` are not read at all; below it, those above
/// `max_bytes` only in ranges.
fn description(max_bytes: u64, max_file_size: u64, max_image: u64) -> String {
    let mut text = String::from(
        "Reads a served text file of the project (what the file:// resources serve). Give start_line \
         and/or end_line (1-based, inclusive) to read part of it, or tail_lines for its last lines. PNG, JPEG, GIF and WebP images come \
         back as images. Give paths instead of path to read several files at once (each result is \
         marked with its path; a refused path does not stop the others).",
    );
    text.push_str(&format!(" Images over {max_image} bytes are not returned."));
    if max_bytes < max_file_size {
        text.push_str(&format!(" Files over {max_bytes} bytes must be read in ranges;"));
        text.push_str(&format!(" files over {max_file_size} bytes are not read."));
    } else {
        text.push_str(&format!(" Files over {max_file_size} bytes are not read."));
    }
    text
}

/// The text of the file at `file` (served as `path`), whole or `range`.
fn read_text(
    file: &std::path::Path,
    path: &str,
    size: u64,
    range: Range,
    max_bytes: u64,
) -> Result<String, ToolError> {
    let io = |e: std::io::Error| ToolError::new(format!("read_file: {path:?}: {e}"));
    let range = range.resolve(file).map_err(io)?;
    let start = range.start.unwrap_or(1);
    if let Some(end) = range.end
        && end < start
    {
        return Err(ToolError::new(format!(
            "read_file: end_line {end} is before start_line {start}; give end_line >= start_line"
        )));
    }
    let ranged = range.start.is_some() || range.end.is_some();
    if !ranged && size > max_bytes {
        return Err(ToolError::new(format!(
            "read_file: {:?} is {} bytes, over the {max_bytes}-byte limit; read it in parts with \
             start_line and end_line",
            path, size
        )));
    }
    let mut reader = BufReader::new(std::fs::File::open(file).map_err(io)?);
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
            return Err(ToolError::new(format!("read_file: {:?} is a binary file, not text", path)));
        }
        if number < start {
            continue;
        }
        if range.end.is_some_and(|end| number > end) {
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
            path
        )));
    }
    if truncated && out.is_empty() {
        return Err(ToolError::new(format!(
            "read_file: line {number} of {:?} alone is longer than the {max_bytes}-byte limit",
            path
        )));
    }
    let mut text = String::from_utf8(out)
        .map_err(|_| ToolError::new(format!("read_file: {:?} is not UTF-8 text", path)))?;
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
        let both = description(1000, 5000, 77);
        assert!(both.contains("Images over 77 bytes are not returned"), "{both}");
        assert!(
            both.contains("over 1000 bytes must be read in ranges")
                && both.contains("over 5000 bytes are not read")
        );
        let capped = description(1000, 1000, 77);
        assert!(capped.contains("over 1000 bytes are not read") && !capped.contains("ranges;"), "{capped}");
    }
}
