//! `git_blame`: who last changed each line of a file, at a revision,
//! optionally for a range of lines.

use std::fmt::Write as _;
use std::path::Path;

use git2::{BlameOptions, ObjectType};
use serde::Deserialize;
use serde_json::{Value, json};
use switchboard_server::{CallToolResult, Tool, ToolError};

use super::{MAX_OUTPUT_BYTES, checked_path, checked_rev, failed, git_failed, git_tool, structured};
use crate::GitResources;
use crate::read::{Repo, date, resolve, short};
use crate::resources::Inner;

/// Lines blamed at most in one call.
const MAX_LINES: usize = 2000;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    path: String,
    rev: Option<String>,
    start_line: Option<usize>,
    end_line: Option<usize>,
}

pub(super) fn tool(git: &GitResources) -> Tool {
    let tool = Tool::new("git_blame")
        .title("Git blame")
        .description(format!(
            "For each line of a file as it is at rev (default HEAD): the commit that last changed it, its \
             author and date. start_line/end_line (1-based, inclusive) narrow it; at most {MAX_LINES} lines \
             and {MAX_OUTPUT_BYTES} bytes per call."
        ))
        .input_schema(json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "a file, relative to the repository"},
                "rev": {"type": "string", "description": "commit id, branch, tag, HEAD~N (default HEAD)"},
                "start_line": {"type": "integer", "minimum": 1},
                "end_line": {"type": "integer", "minimum": 1}
            },
            "required": ["path"],
            "additionalProperties": false
        }))
        .output_schema(json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "rev": {"type": "string"},
                "lines": {"type": "array", "items": {
                    "type": "object",
                    "properties": {
                        "line": {"type": "integer"}, "commit": {"type": "string"},
                        "author": {"type": "string"}, "date": {"type": "string"}, "text": {"type": "string"}
                    },
                    "required": ["line", "commit", "author", "date", "text"]
                }},
                "total_lines": {"type": "integer"},
                "truncated": {"type": "boolean"}
            },
            "required": ["path", "rev", "lines", "total_lines", "truncated"]
        }))
        .read_only();
    git_tool(git, tool, |repo, inner, args: Args| blame(repo, inner, &args))
}

fn blame(repo: &Repo, inner: &Inner, args: &Args) -> Result<CallToolResult, ToolError> {
    const TOOL: &str = "git_blame";
    let fail = |e| git_failed(TOOL, e);
    let git = &repo.repo;
    let path = checked_path(TOOL, repo, &args.path)?;
    let rev = checked_rev(TOOL, args.rev.as_deref().unwrap_or("HEAD"))?;
    let commit = resolve(git, rev).map_err(|e| failed(TOOL, e))?;
    let entry = commit.tree().map_err(fail)?.get_path(Path::new(&path)).map_err(|_| {
        ToolError::new(format!(
            "git_blame: {path:?} does not exist at {rev} (list files with git_show or git_log)"
        ))
    })?;
    if entry.kind() != Some(ObjectType::Blob) {
        return Err(ToolError::new(format!("git_blame: {path:?} is a folder at {rev}; blame a file in it")));
    }
    let blob = git.find_blob(entry.id()).map_err(fail)?;
    let max = inner.options.max_blob_bytes;
    if blob.size() as u64 > max {
        return Err(ToolError::new(format!(
            "git_blame: {path:?} is {} bytes at {rev}, above the {max}-byte limit (git.max_blob_bytes)",
            blob.size()
        )));
    }
    if blob.is_binary() {
        return Err(ToolError::new(format!("git_blame: {path:?} is a binary file at {rev}")));
    }
    let content = String::from_utf8_lossy(blob.content()).into_owned();
    let lines: Vec<&str> = content.lines().collect();
    let total = lines.len();
    let start = args.start_line.unwrap_or(1);
    let end = args.end_line.unwrap_or(total).min(total);
    if start > end || start > total {
        return Err(ToolError::new(format!(
            "git_blame: lines {start}..{end} are outside {path:?}, which has {total} lines at {rev}"
        )));
    }
    let last = end.min(start + MAX_LINES - 1);
    let mut options = BlameOptions::new();
    options.newest_commit(commit.id()).min_line(start).max_line(last);
    let blame = git.blame_file(Path::new(&path), Some(&mut options)).map_err(fail)?;
    let (mut out, mut rows, mut truncated) = (String::new(), Vec::<Value>::new(), last < end);
    for number in start..=last {
        let Some(hunk) = blame.get_line(number) else { continue };
        let id = short(git, hunk.final_commit_id());
        let sig = hunk.final_signature();
        let author = sig.as_ref().and_then(|s| s.name().ok()).unwrap_or("?").to_owned();
        let day = sig.as_ref().map(|s| date(s.when())).unwrap_or_default();
        let text = lines[number - 1];
        let row = format!("{id} ({author} {day} {number}) {text}\n");
        if out.len() + row.len() > MAX_OUTPUT_BYTES {
            truncated = true;
            break;
        }
        out.push_str(&row);
        rows.push(json!({"line": number, "commit": id, "author": author, "date": day, "text": text}));
    }
    if truncated {
        let next = rows.last().and_then(|r| r["line"].as_u64()).unwrap_or(start as u64 - 1) + 1;
        let _ = writeln!(
            out,
            "[{} of lines {start}..{end} shown (limits: {MAX_LINES} lines, {MAX_OUTPUT_BYTES} bytes); continue \
             with start_line {next}]",
            rows.len()
        );
    }
    let value =
        json!({"path": path, "rev": rev, "lines": rows, "total_lines": total, "truncated": truncated});
    Ok(structured(out, value))
}
