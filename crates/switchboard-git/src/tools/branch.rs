//! `git_branch`: the local branches (and, on request, the remote-tracking
//! ones), the current one marked, each with its upstream and last commit.

use std::fmt::Write as _;

use git2::BranchType;
use serde::Deserialize;
use serde_json::{Value, json};
use switchboard_server::{CallToolResult, Tool, ToolError};

use super::{git_failed, git_tool, structured};
use crate::GitResources;
use crate::read::{Repo, short};

/// Branches listed at most.
const MAX_BRANCHES: usize = 500;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    #[serde(default)]
    remote: bool,
}

pub(super) fn tool(git: &GitResources) -> Tool {
    let tool = Tool::new("git_branch")
        .title("Git branches")
        .description(format!(
            "Lists the local branches (remote=true: the remote-tracking ones too), the current one marked, \
             each with its upstream and last commit. At most {MAX_BRANCHES}."
        ))
        .input_schema(json!({
            "type": "object",
            "properties": {"remote": {"type": "boolean", "description": "also list remote-tracking branches"}},
            "additionalProperties": false
        }))
        .output_schema(json!({
            "type": "object",
            "properties": {
                "branches": {"type": "array", "items": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"}, "current": {"type": "boolean"}, "remote": {"type": "boolean"},
                        "upstream": {"type": ["string", "null"]}, "commit": {"type": "string"},
                        "subject": {"type": "string"}
                    },
                    "required": ["name", "current", "remote", "commit", "subject"]
                }},
                "truncated": {"type": "boolean"}
            },
            "required": ["branches", "truncated"]
        }))
        .read_only();
    git_tool(git, tool, |repo, _inner, args: Args| branches(repo, &args))
}

fn branches(repo: &Repo, args: &Args) -> Result<CallToolResult, ToolError> {
    let git = &repo.repo;
    let filter = if args.remote { None } else { Some(BranchType::Local) };
    let (mut rows, mut text, mut truncated) = (Vec::<Value>::new(), String::new(), false);
    for branch in git.branches(filter).map_err(|e| git_failed("git_branch", e))? {
        let Ok((branch, kind)) = branch else { continue };
        let Ok(Some(name)) = branch.name() else { continue };
        let Some(commit) = branch.get().peel_to_commit().ok() else { continue };
        if rows.len() >= MAX_BRANCHES {
            truncated = true;
            break;
        }
        let current = branch.is_head();
        let upstream = branch.upstream().ok().and_then(|u| u.name().ok().flatten().map(str::to_owned));
        let id = short(git, commit.id());
        let subject = commit.summary().ok().flatten().unwrap_or("").to_owned();
        let _ = writeln!(
            text,
            "{} {name} {id} {subject}{}",
            if current { '*' } else { ' ' },
            upstream.as_deref().map(|u| format!(" [{u}]")).unwrap_or_default()
        );
        rows.push(json!({
            "name": name, "current": current, "remote": kind == BranchType::Remote,
            "upstream": upstream, "commit": id, "subject": subject,
        }));
    }
    if rows.is_empty() {
        text.push_str("No branches yet (no commits).\n");
    }
    if truncated {
        let _ = writeln!(text, "[only the first {MAX_BRANCHES} branches are listed]");
    }
    Ok(structured(text, json!({"branches": rows, "truncated": truncated})))
}
