//! `git_diff`: uncommitted changes (working tree vs index, or staged:
//! index vs HEAD), or the difference between revisions (`from`/`to`, or a
//! range `A..B` / `A...B`), as a unified patch without the files the
//! served tree hides.

use git2::DiffOptions;
use serde::Deserialize;
use serde_json::json;
use switchboard_server::{CallToolResult, Tool, ToolError};

use super::{MAX_OUTPUT_BYTES, checked_path, checked_rev, failed, git_failed, git_tool};
use crate::GitResources;
use crate::read::{self, Repo, internal, resolve};

/// Context lines at most.
const MAX_CONTEXT: u32 = 100;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    #[serde(default)]
    staged: bool,
    from: Option<String>,
    to: Option<String>,
    range: Option<String>,
    path: Option<String>,
    context_lines: Option<u32>,
}

pub(super) fn tool(git: &GitResources) -> Tool {
    let tool = Tool::new("git_diff")
        .title("Git diff")
        .description(format!(
            "A unified diff. With no revision: unstaged changes (working tree vs index); staged=true: staged \
             changes (index vs HEAD); from: that revision vs the working tree; from and to: between two \
             revisions; range: \"A..B\" (A to B) or \"A...B\" (from their merge base to B). path narrows to \
             a file or folder. At most {MAX_OUTPUT_BYTES} bytes and {} files; ignored and hidden files are \
             never shown.",
            read::MAX_DIFF_FILES
        ))
        .input_schema(json!({
            "type": "object",
            "properties": {
                "staged": {"type": "boolean", "description": "index vs HEAD instead of working tree vs index"},
                "from": {"type": "string", "description": "a revision: commit id, branch, tag, HEAD~N"},
                "to": {"type": "string", "description": "a revision (needs from)"},
                "range": {"type": "string", "description": "\"A..B\" or \"A...B\""},
                "path": {"type": "string", "description": "a file or folder, relative to the repository"},
                "context_lines": {"type": "integer", "minimum": 0, "maximum": MAX_CONTEXT, "description": "default 3"}
            },
            "additionalProperties": false
        }))
        .read_only();
    git_tool(git, tool, |repo, _inner, args: Args| diff(repo, &args))
}

fn diff(repo: &Repo, args: &Args) -> Result<CallToolResult, ToolError> {
    const TOOL: &str = "git_diff";
    let fail = |e| git_failed(TOOL, e);
    let mut options = DiffOptions::new();
    options.context_lines(args.context_lines.unwrap_or(3).min(MAX_CONTEXT));
    if let Some(path) = &args.path {
        options.pathspec(checked_path(TOOL, repo, path)?);
        // A pathspec is a glob for libgit2; this one is a literal path.
        options.disable_pathspec_match(true);
    }
    let git = &repo.repo;
    let revisions = [&args.range, &args.from, &args.to].into_iter().flatten().count() > 0;
    if args.staged && revisions {
        return Err(ToolError::new(
            "git_diff: staged compares the index with HEAD; give staged or revisions, not both",
        ));
    }
    if args.range.is_some() && (args.from.is_some() || args.to.is_some()) {
        return Err(ToolError::new("git_diff: give range, or from/to, not both"));
    }
    if args.to.is_some() && args.from.is_none() {
        return Err(ToolError::new("git_diff: to needs from (or use range \"A..B\")"));
    }
    let mut diff = if let Some(range) = &args.range {
        if !range.contains("..") {
            return Err(ToolError::new(format!("git_diff: range {range:?} must be \"A..B\" or \"A...B\"")));
        }
        range_sides(range)?;
        let (from, to) = read::trees_of(git, range).map_err(|e| failed(TOOL, e))?;
        git.diff_tree_to_tree(from.as_ref(), Some(&to), Some(&mut options)).map_err(fail)?
    } else if let Some(from) = &args.from {
        let from = resolve(git, checked_rev(TOOL, from)?).map_err(|e| failed(TOOL, e))?;
        let from = from.tree().map_err(fail)?;
        match &args.to {
            Some(to) => {
                let to = resolve(git, checked_rev(TOOL, to)?).map_err(|e| failed(TOOL, e))?;
                let to = to.tree().map_err(fail)?;
                git.diff_tree_to_tree(Some(&from), Some(&to), Some(&mut options)).map_err(fail)?
            }
            None => git.diff_tree_to_workdir_with_index(Some(&from), Some(&mut options)).map_err(fail)?,
        }
    } else if args.staged {
        let head = git.head().ok().and_then(|h| h.peel_to_tree().ok());
        git.diff_tree_to_index(head.as_ref(), None, Some(&mut options)).map_err(fail)?
    } else {
        git.diff_index_to_workdir(None, Some(&mut options)).map_err(fail)?
    };
    diff.find_similar(None).map_err(|e| failed(TOOL, internal(e)))?;
    let rendered = read::render(repo, &diff, MAX_OUTPUT_BYTES).map_err(|e| failed(TOOL, e))?;
    let mut text = rendered.text.clone();
    if rendered.shown == 0 && !rendered.cut_bytes {
        text.push_str("No differences (in the served files).\n");
    }
    text.push_str(&rendered.notices(MAX_OUTPUT_BYTES, "narrow it with path, or compare fewer commits"));
    Ok(CallToolResult::text(text))
}

/// Both sides of a range pass the revision check (an empty side is HEAD).
fn range_sides(range: &str) -> Result<(), ToolError> {
    let (a, b) = range.split_once("...").or_else(|| range.split_once("..")).unwrap_or((range, ""));
    for side in [a, b].into_iter().filter(|s| !s.is_empty()) {
        checked_rev("git_diff", side)?;
    }
    Ok(())
}
