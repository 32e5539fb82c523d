//! `git_log`: commits from a revision (HEAD by default), newest first,
//! optionally only those that changed a path, by an author, or in a time
//! window. A repository with no commits has an empty log.

use std::fmt::Write as _;
use std::time::UNIX_EPOCH;

use git2::Sort;
use serde::Deserialize;
use serde_json::{Value, json};
use switchboard_server::{CallToolResult, Tool, ToolError};

use super::{MAX_OUTPUT_BYTES, checked_path, checked_rev, failed, git_failed, git_tool, structured};
use crate::GitResources;
use crate::read::{Repo, date, is_unborn, resolve, short};

/// Commits returned at most, whatever `max_count` asks.
const MAX_COUNT: usize = 500;
/// Commits examined at most.
const MAX_WALK: usize = 20_000;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    rev: Option<String>,
    path: Option<String>,
    author: Option<String>,
    since: Option<String>,
    until: Option<String>,
    max_count: Option<usize>,
}

pub(super) fn tool(git: &GitResources) -> Tool {
    let default = git.inner.options.log_limit.min(MAX_COUNT);
    let tool = Tool::new("git_log")
        .title("Git log")
        .description(format!(
            "Commits reachable from rev (default HEAD), newest first: id, date, author, subject. Filters: \
             path (commits that changed that file or folder), author (part of the name or email), since and \
             until (dates such as 2024-05-01 or 2024-05-01T12:00:00Z). max_count defaults to {default}, at \
             most {MAX_COUNT}; at most {MAX_WALK} commits are examined."
        ))
        .input_schema(json!({
            "type": "object",
            "properties": {
                "rev": {"type": "string", "description": "where to start: commit id, branch, tag, HEAD~N"},
                "path": {"type": "string", "description": "a file or folder, relative to the repository"},
                "author": {"type": "string", "description": "part of the author's name or email (any case)"},
                "since": {"type": "string", "description": "only commits at or after this date"},
                "until": {"type": "string", "description": "only commits at or before this date"},
                "max_count": {"type": "integer", "minimum": 1, "maximum": MAX_COUNT}
            },
            "additionalProperties": false
        }))
        .output_schema(json!({
            "type": "object",
            "properties": {
                "commits": {"type": "array", "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string"}, "short_id": {"type": "string"},
                        "author": {"type": "string"}, "email": {"type": "string"},
                        "date": {"type": "string"}, "subject": {"type": "string"}
                    },
                    "required": ["id", "short_id", "author", "email", "date", "subject"]
                }},
                "truncated": {"type": "boolean", "description": "more commits matched than were returned"},
                "examined_all": {"type": "boolean", "description": "false when the walk stopped at its limit"}
            },
            "required": ["commits", "truncated", "examined_all"]
        }))
        .read_only();
    git_tool(git, tool, move |repo, _inner, args: Args| log(repo, &args, default))
}

/// A date argument as seconds since the epoch: RFC 3339, or a bare
/// `YYYY-MM-DD` (midnight UTC).
fn seconds(what: &str, text: &str) -> Result<i64, ToolError> {
    let full = if text.len() == 10 { format!("{text}T00:00:00Z") } else { text.to_owned() };
    let time = humantime::parse_rfc3339_weak(&full).map_err(|_| {
        ToolError::new(format!(
            "git_log: {what} {text:?} is not a date; write 2024-05-01 or 2024-05-01T12:00:00Z"
        ))
    })?;
    let secs = match time.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_secs() as i64,
        Err(e) => -(e.duration().as_secs() as i64),
    };
    Ok(secs)
}

fn log(repo: &Repo, args: &Args, default: usize) -> Result<CallToolResult, ToolError> {
    const TOOL: &str = "git_log";
    let fail = |e| git_failed(TOOL, e);
    let path = args.path.as_deref().map(|p| checked_path(TOOL, repo, p)).transpose()?;
    let since = args.since.as_deref().map(|s| seconds("since", s)).transpose()?;
    let until = args.until.as_deref().map(|s| seconds("until", s)).transpose()?;
    let author = args.author.as_deref().map(str::to_lowercase);
    let max = args.max_count.unwrap_or(default).clamp(1, MAX_COUNT);
    let git = &repo.repo;
    let mut walk = git.revwalk().map_err(fail)?;
    walk.set_sorting(Sort::TIME).map_err(fail)?;
    match args.rev.as_deref() {
        Some(rev) => {
            let start = resolve(git, checked_rev(TOOL, rev)?).map_err(|e| failed(TOOL, e))?;
            walk.push(start.id()).map_err(fail)?;
        }
        None if is_unborn(git) => {
            let value = json!({"commits": [], "truncated": false, "examined_all": true});
            return Ok(structured("No commits yet.\n".to_owned(), value));
        }
        None => walk.push_head().map_err(fail)?,
    }
    let mut commits: Vec<Value> = Vec::new();
    let (mut truncated, mut examined, mut text) = (false, 0usize, String::new());
    for id in walk.by_ref().take(MAX_WALK) {
        examined += 1;
        let commit = git.find_commit(id.map_err(fail)?).map_err(fail)?;
        let when = commit.time().seconds();
        if since.is_some_and(|s| when < s) || until.is_some_and(|u| when > u) {
            continue;
        }
        let a = commit.author();
        let (name, email) = (a.name().unwrap_or("?").to_owned(), a.email().unwrap_or("").to_owned());
        if author.as_ref().is_some_and(|want| {
            !name.to_lowercase().contains(want.as_str()) && !email.to_lowercase().contains(want.as_str())
        }) {
            continue;
        }
        if path.as_deref().is_some_and(|path| !repo.changed(&commit, path)) {
            continue;
        }
        if commits.len() >= max {
            truncated = true;
            break;
        }
        let (short_id, day) = (short(git, commit.id()), date(commit.time()));
        let subject = commit.summary().ok().flatten().unwrap_or("").to_owned();
        let line = format!("{short_id} {day} {name} {subject}\n");
        if text.len() + line.len() > MAX_OUTPUT_BYTES {
            truncated = true;
            break;
        }
        text.push_str(&line);
        commits.push(json!({
            "id": commit.id().to_string(), "short_id": short_id, "author": name, "email": email,
            "date": day, "subject": subject,
        }));
    }
    let examined_all = examined < MAX_WALK || walk.next().is_none();
    if commits.is_empty() {
        text.push_str("No matching commits.\n");
    }
    if truncated {
        let _ = writeln!(
            text,
            "[{} commits shown; more match: raise max_count (at most {MAX_COUNT}), or narrow with path, author, \
             since or until]",
            commits.len()
        );
    }
    if !examined_all {
        let _ =
            writeln!(text, "[only the newest {MAX_WALK} commits were examined; start further back with rev]");
    }
    let value = json!({"commits": commits, "truncated": truncated, "examined_all": examined_all});
    Ok(structured(text, value))
}
