//! `git_status`: the working tree against the index and HEAD, the branch
//! and how far it is from its upstream. Paths the served tree hides are
//! left out (only counted).

use std::fmt::Write as _;

use git2::{Status, StatusOptions};
use serde::Deserialize;
use serde_json::{Value, json};
use switchboard_server::{CallToolResult, Tool, ToolError};

use super::{git_failed, git_tool, structured};
use crate::GitResources;
use crate::read::{Repo, short};

/// Entries listed at most (all four lists together).
const MAX_ENTRIES: usize = 1000;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {}

pub(super) fn tool(git: &GitResources) -> Tool {
    let tool = Tool::new("git_status")
        .title("Git status")
        .description(format!(
            "The working tree's state: the branch (and commits ahead/behind its upstream), staged changes \
             (index vs HEAD), unstaged changes (working tree vs index), untracked and conflicted files. \
             Lists at most {MAX_ENTRIES} paths; ignored and hidden files are never listed."
        ))
        .input_schema(json!({"type": "object", "properties": {}, "additionalProperties": false}))
        .output_schema(output_schema())
        .read_only();
    git_tool(git, tool, |repo, _inner, _args: Args| status(repo))
}

fn output_schema() -> Value {
    let changes = json!({
        "type": "array",
        "items": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "status": {"type": "string"}},
            "required": ["path", "status"]
        }
    });
    json!({
        "type": "object",
        "properties": {
            "branch": {"type": ["string", "null"], "description": "the current branch; null when HEAD is detached"},
            "head": {"type": ["string", "null"], "description": "HEAD's short commit id; null before the first commit"},
            "upstream": {"type": ["string", "null"]},
            "ahead": {"type": ["integer", "null"]},
            "behind": {"type": ["integer", "null"]},
            "staged": changes,
            "unstaged": changes,
            "untracked": {"type": "array", "items": {"type": "string"}},
            "conflicted": {"type": "array", "items": {"type": "string"}},
            "truncated": {"type": "boolean", "description": "more paths changed than were listed"},
            "not_shown": {"type": "integer", "description": "changed paths left out: ignored, hidden or excluded"}
        },
        "required": ["branch", "head", "staged", "unstaged", "untracked", "conflicted", "truncated", "not_shown"]
    })
}

/// The word for an index or work-tree change.
fn word(status: Status, staged: bool) -> Option<&'static str> {
    let pick = |new, modified, deleted, renamed, typechange| {
        if status.intersects(new) {
            Some("added")
        } else if status.intersects(modified) {
            Some("modified")
        } else if status.intersects(deleted) {
            Some("deleted")
        } else if status.intersects(renamed) {
            Some("renamed")
        } else if status.intersects(typechange) {
            Some("typechange")
        } else {
            None
        }
    };
    if staged {
        pick(
            Status::INDEX_NEW,
            Status::INDEX_MODIFIED,
            Status::INDEX_DELETED,
            Status::INDEX_RENAMED,
            Status::INDEX_TYPECHANGE,
        )
    } else {
        pick(
            Status::empty(),
            Status::WT_MODIFIED,
            Status::WT_DELETED,
            Status::WT_RENAMED,
            Status::WT_TYPECHANGE,
        )
    }
}

fn status(repo: &Repo) -> Result<CallToolResult, ToolError> {
    let fail = |e| git_failed("git_status", e);
    let git = &repo.repo;
    let head = git.head().ok();
    let branch = head.as_ref().filter(|h| h.is_branch()).and_then(|h| h.shorthand().ok().map(str::to_owned));
    // An unborn branch: HEAD names it but it has no commit yet.
    let unborn = head.is_none();
    let branch = if unborn {
        git.find_reference("HEAD").ok().and_then(|r| {
            r.symbolic_target().ok().flatten().map(|t| t.trim_start_matches("refs/heads/").to_owned())
        })
    } else {
        branch
    };
    let head_id = head.as_ref().and_then(|h| h.target()).map(|id| short(git, id));
    let (mut upstream, mut ahead, mut behind) = (None, None, None);
    if let Some(name) = branch.as_deref().filter(|_| !unborn)
        && let Ok(local) = git.find_branch(name, git2::BranchType::Local)
        && let Ok(up) = local.upstream()
        && let (Some(l), Some(u)) = (local.get().target(), up.get().target())
    {
        upstream = up.name().ok().flatten().map(str::to_owned);
        if let Ok((a, b)) = git.graph_ahead_behind(l, u) {
            (ahead, behind) = (Some(a), Some(b));
        }
    }
    let mut options = StatusOptions::new();
    options
        .include_untracked(true)
        .recurse_untracked_dirs(true)
        .include_ignored(false)
        .renames_head_to_index(true);
    let statuses = git.statuses(Some(&mut options)).map_err(fail)?;
    let (mut staged, mut unstaged, mut untracked, mut conflicted) = (vec![], vec![], vec![], vec![]);
    let (mut listed, mut truncated, mut not_shown) = (0usize, false, 0usize);
    for entry in statuses.iter() {
        let Some(path) = entry.path().ok().map(str::to_owned) else {
            not_shown += 1;
            continue;
        };
        let renamed_from = entry
            .head_to_index()
            .and_then(|d| d.old_file().path().and_then(|p| p.to_str()).map(str::to_owned));
        if !(repo.permits)(&path) || renamed_from.as_deref().is_some_and(|p| !(repo.permits)(p)) {
            not_shown += 1;
            continue;
        }
        if listed >= MAX_ENTRIES {
            truncated = true;
            continue;
        }
        listed += 1;
        let s = entry.status();
        if s.is_conflicted() {
            conflicted.push(path);
            continue;
        }
        if s.is_wt_new() {
            untracked.push(path.clone());
        }
        if let Some(w) = word(s, true) {
            staged.push(json!({"path": path, "status": w}));
        }
        if let Some(w) = word(s, false) {
            unstaged.push(json!({"path": path, "status": w}));
        }
    }
    let value = json!({
        "branch": branch, "head": head_id, "upstream": upstream, "ahead": ahead, "behind": behind,
        "staged": staged, "unstaged": unstaged, "untracked": untracked, "conflicted": conflicted,
        "truncated": truncated, "not_shown": not_shown,
    });
    Ok(structured(text_of(&value), value))
}

/// The status as `git status`-like text.
fn text_of(v: &Value) -> String {
    let mut out = String::new();
    match (v["branch"].as_str(), v["head"].as_str()) {
        (Some(b), Some(h)) => _ = writeln!(out, "On branch {b} at {h}"),
        (Some(b), None) => _ = writeln!(out, "On branch {b} (no commits yet)"),
        (None, Some(h)) => _ = writeln!(out, "HEAD detached at {h}"),
        (None, None) => _ = writeln!(out, "No HEAD"),
    }
    if let Some(up) = v["upstream"].as_str() {
        let _ = writeln!(out, "Upstream {up}: {} ahead, {} behind", v["ahead"], v["behind"]);
    }
    for (title, key) in [("Staged", "staged"), ("Unstaged", "unstaged")] {
        let items = v[key].as_array().map(Vec::as_slice).unwrap_or_default();
        if !items.is_empty() {
            let _ = writeln!(out, "\n{title}:");
            for item in items {
                let _ = writeln!(
                    out,
                    "  {:<10} {}",
                    item["status"].as_str().unwrap_or(""),
                    item["path"].as_str().unwrap_or("")
                );
            }
        }
    }
    for (title, key) in [("Untracked", "untracked"), ("Conflicted", "conflicted")] {
        let items = v[key].as_array().map(Vec::as_slice).unwrap_or_default();
        if !items.is_empty() {
            let _ = writeln!(out, "\n{title}:");
            for item in items {
                let _ = writeln!(out, "  {}", item.as_str().unwrap_or(""));
            }
        }
    }
    if ["staged", "unstaged", "untracked", "conflicted"]
        .iter()
        .all(|k| v[*k].as_array().is_none_or(Vec::is_empty))
    {
        let _ = writeln!(out, "\nNothing to commit, working tree clean (as far as the served files go).");
    }
    if v["truncated"].as_bool() == Some(true) {
        let _ = writeln!(
            out,
            "\n[only the first {MAX_ENTRIES} changed paths are listed; use git_diff with a path to narrow]"
        );
    }
    if v["not_shown"].as_u64().is_some_and(|n| n > 0) {
        let _ = writeln!(out, "\n[{} changed paths not shown: ignored, hidden or excluded]", v["not_shown"]);
    }
    out
}
