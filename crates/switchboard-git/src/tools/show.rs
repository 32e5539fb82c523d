//! `git_show`: one commit — id, parents, author, date, message, the files
//! it changed with their line counts, and its diff against its first
//! parent — without the files the served tree hides.

use std::fmt::Write as _;

use git2::DiffOptions;
use serde::Deserialize;
use serde_json::json;
use switchboard_server::{CallToolResult, Tool, ToolError};

use super::{MAX_OUTPUT_BYTES, checked_path, checked_rev, failed, git_failed, git_tool};
use crate::GitResources;
use crate::read::{self, Repo, date, resolve};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    rev: Option<String>,
    path: Option<String>,
}

pub(super) fn tool(git: &GitResources) -> Tool {
    let tool = Tool::new("git_show")
        .title("Git show")
        .description(format!(
            "One commit (rev, default HEAD): id, parents, author, date, message, the files it changed with \
             lines added and removed, and its diff against its first parent. path narrows the diff to a file \
             or folder. At most {MAX_OUTPUT_BYTES} bytes; ignored and hidden files are never shown."
        ))
        .input_schema(json!({
            "type": "object",
            "properties": {
                "rev": {"type": "string", "description": "commit id, branch, tag, HEAD~N (default HEAD)"},
                "path": {"type": "string", "description": "a file or folder, relative to the repository"}
            },
            "additionalProperties": false
        }))
        .read_only();
    git_tool(git, tool, |repo, _inner, args: Args| show(repo, &args))
}

fn show(repo: &Repo, args: &Args) -> Result<CallToolResult, ToolError> {
    const TOOL: &str = "git_show";
    let fail = |e| git_failed(TOOL, e);
    let git = &repo.repo;
    let rev = checked_rev(TOOL, args.rev.as_deref().unwrap_or("HEAD"))?;
    let commit = resolve(git, rev).map_err(|e| failed(TOOL, e))?;
    let mut options = DiffOptions::new();
    options.context_lines(3);
    if let Some(path) = &args.path {
        options.pathspec(checked_path(TOOL, repo, path)?);
        options.disable_pathspec_match(true);
    }
    let tree = commit.tree().map_err(fail)?;
    let parent = commit.parent(0).ok().map(|p| p.tree()).transpose().map_err(fail)?;
    let diff =
        read::tree_diff(git, parent.as_ref(), Some(&tree), &mut options).map_err(|e| failed(TOOL, e))?;
    let mut out = String::new();
    let _ = writeln!(out, "commit {}", commit.id());
    for parent in commit.parent_ids() {
        let _ = writeln!(out, "parent {parent}");
    }
    let a = commit.author();
    let _ =
        writeln!(out, "author {} <{}> {}", a.name().unwrap_or("?"), a.email().unwrap_or(""), date(a.when()));
    let _ = writeln!(out, "\n{}\n", commit.message().unwrap_or("").trim_end());
    let (mut files, mut added, mut removed) = (0usize, 0usize, 0usize);
    let mut stats = String::new();
    for (index, delta) in diff.deltas().enumerate() {
        if !repo.permits_delta(&delta) {
            continue;
        }
        let (plus, minus) = match git2::Patch::from_diff(&diff, index).map_err(fail)? {
            Some(patch) => patch.line_stats().map(|(_, p, m)| (p, m)).map_err(fail)?,
            None => (0, 0),
        };
        files += 1;
        (added, removed) = (added + plus, removed + minus);
        if files <= read::MAX_DIFF_FILES {
            let path = delta.new_file().path().or(delta.old_file().path()).map(|p| p.display().to_string());
            let _ = writeln!(stats, " {} | +{plus} -{minus}", path.unwrap_or_default());
        }
    }
    out.push_str(&stats);
    let _ = writeln!(out, " {files} files changed, {added} insertions(+), {removed} deletions(-)\n");
    let room = MAX_OUTPUT_BYTES.saturating_sub(out.len());
    let rendered = read::render(repo, &diff, room).map_err(|e| failed(TOOL, e))?;
    out.push_str(&rendered.text);
    out.push_str(&rendered.notices(MAX_OUTPUT_BYTES, "narrow it with path"));
    Ok(CallToolResult::text(out))
}
