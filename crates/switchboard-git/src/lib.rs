//! A git repository's history as MCP resources.
//!
//! When the served folder is inside a git work tree, `switchboard` also serves its
//! history (`docs/specification/<rev>/server/resources.mdx`), read with
//! libgit2 through `git2`, never by running `git`:
//!
//! | URI | What | MIME type |
//! |---|---|---|
//! | `git://log` | the last `log_limit` commits of HEAD: short id, date, author, subject | `text/plain` |
//! | `git://log/{+path}` | the same, only commits that changed `path` | `text/plain` |
//! | `git://commit/{rev}` | one commit: id, parents, author, committer, dates, message, changed files | `text/plain` |
//! | `git://diff/{rev}` | the commit's unified diff against its first parent (the empty tree for a root commit); `A..B` diffs A to B, `A...B` their merge base to B | `text/x-diff` |
//! | `git://file/{rev}/{+path}` | a file as it was at `rev`: text as text, anything else as a blob | from the extension |
//!
//! `{rev}` is anything libgit2's rev-parse understands that fits in one URI
//! segment: a full or short id, a branch, a tag, `HEAD~2` (percent-encode a
//! `/` in a branch name). `rev` completes from branches, tags and recent
//! commits; `path` completes from the tree at `rev` (from the completion
//! context) or at HEAD. An unknown revision or path is the spec's
//! resource-not-found error; a file above `max_blob_bytes` is refused with
//! the limit named. Text is plain text rather than JSON because models read
//! `git log`-shaped text fluently and it is half the tokens. A repository
//! with no commits has an empty log.
//!
//! [`GitResources::tools`] adds the same reads, and the working tree's
//! state, as tools (see the `tools` module): `git_status`, `git_diff`,
//! `git_log`, `git_show`, `git_blame`, `git_branch`, and on request the
//! writing ones. Every path shown or accepted, by a resource or a tool,
//! passes [`GitResources::restrict_paths`] (in the `switchboard` binary: the
//! served tree's history policy, so what the folder hides now is hidden
//! from the history too); the writing tools change the work tree only
//! where [`GitResources::restrict_writes`] allows.

mod read;
mod resources;
mod tools;

use std::path::{Path, PathBuf};

use serde::Deserialize;

pub use resources::GitResources;

/// Which paths of the history may be shown ([`GitResources::restrict_paths`]).
pub type PathFilter = std::sync::Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// The `[git]` section of `switchboard.toml`.
///
/// ```toml
/// [git]
/// enabled = true          # serve the history when the folder is a repository
/// log_limit = 50          # commits in git://log
/// max_blob_bytes = 1048576
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct GitOptions {
    /// Serve the history at all.
    pub enabled: bool,
    /// Commits listed by `git://log` (and `git://log/{+path}`).
    pub log_limit: usize,
    /// Largest file (and diff) served, in bytes.
    pub max_blob_bytes: u64,
}

impl Default for GitOptions {
    fn default() -> Self {
        Self { enabled: true, log_limit: 50, max_blob_bytes: 1024 * 1024 }
    }
}

/// Why the repository cannot be served.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GitError {
    /// libgit2 failed to open or read the repository.
    #[error("git repository at {path}: {message}")]
    Open {
        /// Where it was looked for.
        path: PathBuf,
        /// libgit2's message.
        message: String,
    },
    /// The repository has no work tree (a bare repository).
    #[error("git repository at {0} is bare; switchboard serves the history of a work tree")]
    Bare(PathBuf),
}

impl GitError {
    fn open(path: &Path, e: &git2::Error) -> Self {
        GitError::Open { path: path.to_path_buf(), message: e.message().to_owned() }
    }
}
