//! Git as tools: the working tree's state and the history, read with
//! libgit2 (never a `git` subprocess, so no argument is ever a flag), and,
//! when writing is enabled, staging, committing and switching branches.
//!
//! Every path that goes in or comes out passes the same filter as the
//! `git://` resources ([`GitResources::restrict_paths`]): a path the served
//! tree hides now (ignored, hidden, `.git`, excluded) is neither accepted
//! nor shown, whatever the history holds. Revisions are parsed by libgit2's
//! rev-parse; one starting with `-` is refused. Output is bounded by bytes
//! and by count, and a cut says what was cut and how to narrow.
//!
//! Paths are relative to the repository's top (the served folder when it
//! is the repository), as in `git://file/{rev}/{+path}`.

mod blame;
mod branch;
mod diff;
mod log;
mod show;
mod status;
mod write;

use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::Value;
use switchboard_server::{CallToolResult, HandlerError, RequestContext, Tool, ToolError};

use crate::GitResources;
use crate::read::{self, Repo};
use crate::resources::Inner;

/// Bytes of text a tool returns at most.
pub(crate) const MAX_OUTPUT_BYTES: usize = 100_000;

impl GitResources {
    /// The git tools: `git_status`, `git_diff`, `git_log`, `git_show`,
    /// `git_blame` and `git_branch` (read-only), and with `write` also
    /// `git_add`, `git_reset`, `git_commit`, `git_create_branch` and
    /// `git_checkout`, which change only what [`GitResources::restrict_writes`]
    /// allows.
    pub fn tools(&self, write: bool) -> Vec<Tool> {
        let mut tools = vec![
            status::tool(self),
            diff::tool(self),
            log::tool(self),
            show::tool(self),
            blame::tool(self),
            branch::tool(self),
        ];
        if write {
            tools.extend(write::tools(self));
        }
        tools
    }
}

/// A tool whose handler parses `A` and runs `work` on the blocking pool
/// with a freshly opened repository.
pub(crate) fn git_tool<A, F>(git: &GitResources, tool: Tool, work: F) -> Tool
where
    A: DeserializeOwned + Send + 'static,
    F: Fn(&Repo, &Inner, A) -> Result<CallToolResult, ToolError> + Send + Sync + 'static,
{
    let name = tool.name().to_owned();
    let inner = Arc::clone(&git.inner);
    let work = Arc::new(work);
    tool.raw_handler(move |args: Value, _ctx: RequestContext| {
        let (inner, work, name) = (Arc::clone(&inner), Arc::clone(&work), name.clone());
        async move {
            let args: A = serde_json::from_value(args)
                .map_err(|e| ToolError::new(format!("{name}: invalid arguments: {e}")))?;
            let tool = name.clone();
            tokio::task::spawn_blocking(move || {
                let repo =
                    Repo::open(&inner.git_dir, Arc::clone(&inner.permits)).map_err(|e| failed(&tool, e))?;
                work(&repo, &inner, args)
            })
            .await
            .map_err(|e| ToolError::new(format!("{name}: the repository read failed: {e}")))?
        }
    })
}

/// A read error as a tool error the model can act on.
pub(crate) fn failed(tool: &str, e: HandlerError) -> ToolError {
    match e {
        HandlerError::NotFound => ToolError::new(format!(
            "{tool}: unknown revision or path (give a commit id, a branch, a tag or HEAD~N; list branches \
             with git_branch, commits with git_log)"
        )),
        HandlerError::InvalidParams(m) | HandlerError::Internal(m) => ToolError::new(format!("{tool}: {m}")),
        HandlerError::Rpc(e) => ToolError::new(format!("{tool}: {}", e.message)),
    }
}

/// A revision argument: non-empty, not starting with `-` (never a flag),
/// no NUL or newline. libgit2 parses it later.
pub(crate) fn checked_rev<'a>(tool: &str, rev: &'a str) -> Result<&'a str, ToolError> {
    if rev.is_empty() || rev.starts_with('-') || rev.contains(['\0', '\n', '\r']) {
        return Err(ToolError::new(format!(
            "{tool}: {rev:?} is not a revision (a commit id, branch, tag or HEAD~N; revisions never start \
             with '-')"
        )));
    }
    Ok(rev)
}

/// A path argument the history may show: relative, inside the
/// repository, not hidden by the served tree. A hidden path reads like
/// one that does not exist.
pub(crate) fn checked_path(tool: &str, repo: &Repo, path: &str) -> Result<String, ToolError> {
    if path.starts_with('/') {
        return Err(ToolError::new(format!(
            "{tool}: {path:?} is absolute; paths are relative to the repository's top, e.g. src/main.rs"
        )));
    }
    let path = read::checked_path(path).map_err(|e| failed(tool, e))?;
    let path = path.trim_end_matches('/');
    if !(repo.permits)(path) {
        return Err(ToolError::new(format!(
            "{tool}: {path:?} is not a served path of the repository (ignored, hidden, .git and excluded \
             paths are never shown)"
        )));
    }
    Ok(path.to_owned())
}

/// The git2 error as a tool error.
pub(crate) fn git_failed(tool: &str, e: git2::Error) -> ToolError {
    ToolError::new(format!("{tool}: git: {}", e.message()))
}

/// A text result with a structured copy.
pub(crate) fn structured(text: String, value: Value) -> CallToolResult {
    CallToolResult {
        content: vec![switchboard_server::ContentBlock::text(text)],
        structured_content: Some(value),
        ..CallToolResult::default()
    }
}
