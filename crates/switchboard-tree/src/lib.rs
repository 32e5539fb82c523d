//! The served tree: the one place that decides what of a project folder an
//! MCP client or model may read, list, search and write.
//!
//! `switchboard` reaches the files of the folder it serves through many paths:
//! `file://` resources (list, read, the `file:///{+path}` template, its
//! completion, subscriptions, the watcher), the `search`, `read_file`,
//! `write_file` and `edit_file` tools, path arguments of command tools,
//! and paths inside the git history. When each of them decided for itself,
//! one forgot a rule and a `.env` the resources refused came back through a
//! tool. So every one of them asks a [`ServedTree`], and nothing else:
//!
//! - **what is served** (read, listed, searched): the files ripgrep's walker
//!   yields under the roots with `.gitignore`, `.ignore`, `.git/info/exclude`
//!   and the global excludes honoured (unless `gitignore = false`), minus
//!   the `exclude` globs, minus names starting with `.` (unless
//!   `hidden = true`), and never anything under `.git`. A path the model
//!   gives is served only if the same walk, pruned to that path, reaches it
//!   ([`ServedTree::locate`]), so a single path and a full scan
//!   ([`ServedTree::scan`]) cannot disagree. A symlink is served only when
//!   its target is itself a served file, checked when the file is used,
//!   not only when it was listed. Reads stop at `max_file_size`.
//! - **what may be written** ([`ServedTree::writable`]): a served file, or a
//!   new file in a served folder, never a name starting with `.` (so
//!   never `.git/`, `.switchboard/`, `.gitignore`, `.ignore`, `.env`, `.vscode/`…,
//!   whatever `hidden` says) and never a protected path: the configuration
//!   in use and the prompt folders ([`ServedTree::with_protected`]), so the model
//!   cannot reconfigure the server or plant code that runs later; nor a
//!   view file of an apps folder ([`ServedTree::protecting_views`]).
//! - **paths that need not exist** (a file at an old git revision, a name
//!   in a diff): [`ServedTree::permits_history_path`] (and its cached form,
//!   [`HistoryRules`]) applies the name rules (hidden, `.git`, `exclude`, never served)
//!   *and* the ignore files in force now, on every folder on the way, as
//!   the walker would; so a file committed before `.gitignore` hid it, or a
//!   `.env` committed once, is hidden in every view of the history.
//!   [`ServedTree::permits_name`] is the name rules alone.
//! - **what is never served** ([`ServedTree::never_serving`]): the server's
//!   own configuration and the files it names as holding secrets. They are
//!   a name rule like `.git`, checked wherever the name rules are (the
//!   walker's filter, so every scan, walk and [`ServedTree::locate`];
//!   [`ServedTree::permits_name`]; [`ServedTree::writable`]), whatever
//!   `hidden`, `exclude` or the ignore files say: the configuration is the
//!   user's, not the model's.
//!
//! Paths given by a client are `/`-separated and relative to the served
//! folder (a root mounted at `docs` serves `docs/…`). They are parsed once
//! ([`ServedPath`]): `..`, absolute paths, backslashes and NUL are refused;
//! nothing is percent-decoded here (URIs are decoded by their template).
//! Refusals of files that exist but are not served read exactly like
//! refusals of files that do not exist, so a refusal does not tell the model
//! that a secret is there.

mod access;
mod history;
mod listing;
mod path;
mod rules;
mod scan;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;

pub use access::{Kind, Located, WriteTarget};
pub use history::HistoryRules;
pub use listing::{Entry, EntryKind, Removable};
pub use path::{ServedPath, cmp_served};
pub use scan::{Entering, Found, PartialScan, Scan, ScannedFile, Walked, covers};

/// The `[files]` section of `switchboard.toml`: the roots and the rules of the
/// served tree (shared by the resources and the file tools).
///
/// ```toml
/// [files]
/// max_file_size = 1048576   # bytes; larger files are listed but not read
/// hidden = false            # serve dotfiles (never .git)
/// gitignore = true          # honour .gitignore, .ignore and git's excludes
/// exclude = ["*.lock"]      # more globs to leave out
/// watch = true              # announce changes on disk
/// debounce_ms = 50
///
/// [[files.roots]]           # default: the served folder, mounted at ""
/// path = "."
/// [[files.roots]]
/// path = "../docs"
/// mount = "docs"
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct FilesOptions {
    /// Serve files as resources at all (the file tools follow `[tools.builtin]`).
    pub enabled: bool,
    /// The folders to serve; empty means the served folder itself.
    pub roots: Vec<RootSpec>,
    /// Files larger than this many bytes are listed but never read.
    pub max_file_size: u64,
    /// Serve hidden files (names starting with `.`); `.git` never is, and
    /// such files are never written.
    pub hidden: bool,
    /// Honour `.gitignore`, `.ignore`, `.git/info/exclude` and the global excludes.
    pub gitignore: bool,
    /// Extra glob patterns (gitignore syntax) of files to leave out.
    pub exclude: Vec<String>,
    /// Watch the roots and announce changes.
    pub watch: bool,
    /// How long a burst of changes is collected before it is announced
    /// (default 50 ms: a batch updates only the paths it names, so a short
    /// window costs little, and a subscriber hears of a save sooner).
    pub debounce_ms: u64,
}

impl Default for FilesOptions {
    fn default() -> Self {
        Self {
            enabled: true,
            roots: Vec::new(),
            max_file_size: 1024 * 1024,
            hidden: false,
            gitignore: true,
            exclude: Vec::new(),
            watch: true,
            debounce_ms: 50,
        }
    }
}

/// One served folder.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RootSpec {
    /// The folder, relative to the served folder or absolute.
    pub path: PathBuf,
    /// The URI prefix its files appear under (`""`: `file:///<path>`).
    #[serde(default)]
    pub mount: String,
}

/// Why a tree could not be built, or why a path is refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TreeError {
    /// A root folder does not exist or cannot be read.
    #[error("root {path}: {source}")]
    Root {
        /// The root as configured.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Two roots share a mount prefix, or a mount is malformed.
    #[error("mount {mount:?}: {reason}")]
    Mount {
        /// The mount prefix.
        mount: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// An `exclude` (or search) pattern is not a valid glob.
    #[error("glob {pattern:?}: {reason}")]
    Glob {
        /// The pattern.
        pattern: String,
        /// The glob parser's message.
        reason: String,
    },
    /// The path is not a plain relative path (`..`, absolute, backslash, NUL).
    #[error("not a path inside the served folder: {0}")]
    Malformed(&'static str),
    /// Nothing served is there: it does not exist, or the rules hide it
    /// (the two are not told apart).
    #[error("no served file or folder there (ignored, hidden and .git paths are never served)")]
    NotServed,
    /// A folder where a file was expected, or the other way round.
    #[error("{0}")]
    WrongKind(&'static str),
    /// A file above `max_file_size`.
    #[error("the file is {size} bytes, above the {max}-byte limit for reads (files.max_file_size)")]
    TooLarge {
        /// Its size.
        size: u64,
        /// The limit.
        max: u64,
    },
    /// A write the policy never allows, with the reason.
    #[error("writing there is not allowed: {0}")]
    Protected(&'static str),
    /// The file system failed.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
}

/// The access policy over the served roots; cheap to clone (shared).
///
/// ```
/// use switchboard_tree::{FilesOptions, ServedTree};
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join(".env"), "KEY=secret").unwrap();
/// std::fs::write(dir.path().join("main.rs"), "fn main() {}").unwrap();
/// let tree = ServedTree::new(dir.path(), &FilesOptions::default()).unwrap();
/// assert!(tree.readable("main.rs").is_ok());
/// assert!(tree.readable(".env").is_err());
/// assert!(tree.writable("main.rs").is_ok());
/// assert!(tree.writable(".gitignore").is_err());
/// ```
#[derive(Clone)]
pub struct ServedTree {
    inner: Arc<Inner>,
}

#[derive(Clone)]
struct Inner {
    /// The served folder (canonical): relative roots and settings resolve
    /// against it.
    base: PathBuf,
    /// The roots, shortest mount first.
    roots: Vec<Arc<rules::Root>>,
    hidden: bool,
    gitignore: bool,
    max_file_size: u64,
    /// Paths (files or folders, absolute) that are never written.
    protected: Vec<PathBuf>,
    /// Paths (files or folders, absolute) that are never served at all.
    never_served: Vec<PathBuf>,
    /// Apps folders (absolute): the view files directly in them are never
    /// written ([`ServedTree::protecting_views`]).
    view_dirs: Vec<PathBuf>,
}

impl std::fmt::Debug for ServedTree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServedTree")
            .field("roots", &self.dirs())
            .field("hidden", &self.inner.hidden)
            .field("gitignore", &self.inner.gitignore)
            .field("max_file_size", &self.inner.max_file_size)
            .field("protected", &self.inner.protected)
            .field("never_served", &self.inner.never_served)
            .field("view_dirs", &self.inner.view_dirs)
            .finish()
    }
}

impl ServedTree {
    /// The tree of `options`' roots (relative ones resolve against `base`).
    pub fn new(base: &Path, options: &FilesOptions) -> Result<Self, TreeError> {
        Self::with_protected(base, options, Vec::new())
    }

    /// The same, with paths that are never written (the configuration file
    /// in use, the prompt folders). They need not exist yet.
    pub fn with_protected(
        base: &Path,
        options: &FilesOptions,
        protected: impl IntoIterator<Item = PathBuf>,
    ) -> Result<Self, TreeError> {
        let roots = rules::Root::resolve_all(base, options)?;
        let protected = protected.into_iter().map(|p| canonical_lexically(&base.join(p))).collect();
        let base =
            base.canonicalize().map_err(|source| TreeError::Root { path: base.to_path_buf(), source })?;
        Ok(Self {
            inner: Arc::new(Inner {
                base,
                roots,
                hidden: options.hidden,
                gitignore: options.gitignore,
                max_file_size: options.max_file_size,
                protected,
                never_served: Vec::new(),
                view_dirs: Vec::new(),
            }),
        })
    }

    /// The same tree with `paths` (relative ones resolve against the
    /// served folder; they need not exist) never served: not listed, read,
    /// searched, written, nor shown from history, like `.git`.
    #[must_use]
    pub fn never_serving(self, paths: impl IntoIterator<Item = PathBuf>) -> Self {
        let mut inner = Arc::unwrap_or_clone(self.inner);
        inner.never_served.extend(paths.into_iter().map(|p| canonical_lexically(&inner.base.join(p))));
        Self { inner: Arc::new(inner) }
    }

    /// The same tree with `dirs` (relative ones resolve against the served
    /// folder; they need not exist) as apps folders: a view file directly
    /// in one ([`is_view_file_name`]: a page or its side file) is never
    /// written, moved or removed, so the model cannot put its own script in
    /// front of the user. Their subfolders are not views and follow the
    /// usual rules (a monorepo's `apps/web/` stays writable).
    #[must_use]
    pub fn protecting_views(self, dirs: impl IntoIterator<Item = PathBuf>) -> Self {
        let mut inner = Arc::unwrap_or_clone(self.inner);
        inner.view_dirs.extend(dirs.into_iter().map(|p| canonical_lexically(&inner.base.join(p))));
        Self { inner: Arc::new(inner) }
    }

    /// The served folder (canonical), which relative settings such as a
    /// command's `cwd` resolve against.
    pub fn base(&self) -> &Path {
        &self.inner.base
    }

    /// The canonical root folders.
    pub fn dirs(&self) -> Vec<PathBuf> {
        self.inner.roots.iter().map(|r| r.dir.clone()).collect()
    }

    /// The largest file read, in bytes.
    pub fn max_file_size(&self) -> u64 {
        self.inner.max_file_size
    }

    /// Where the served path `served` lies on disk: its root's folder
    /// joined with the rest (lexically; whether it is served is not checked).
    pub fn path_of(&self, served: &str) -> Option<PathBuf> {
        let parsed = ServedPath::parse(served).ok()?;
        let (root, rest) = self.root_of(parsed.segments())?;
        let mut path = root.dir.clone();
        path.extend(rest);
        Some(path)
    }

    /// The served path of an absolute path under some root (the longest
    /// mount that contains it), whether or not it is served.
    pub fn served_path_of(&self, path: &Path) -> Option<String> {
        self.inner.roots.iter().rev().find_map(|r| r.served(path))
    }
}

/// The one rule of which files of an apps folder belong to views: a page
/// (`<name>.html`) or its side file (`<name>.toml`), directly in the folder.
pub fn is_view_file_name(name: &str) -> bool {
    name.ends_with(".html") || name.ends_with(".toml")
}

/// `path` with its longest existing ancestor canonicalized and the rest
/// appended, so a protected path that does not exist yet still compares
/// equal to where it would be created.
pub(crate) fn canonical_lexically(path: &Path) -> PathBuf {
    let mut missing = Vec::new();
    let mut existing = path.to_path_buf();
    loop {
        if let Ok(canonical) = existing.canonicalize() {
            let mut out = canonical;
            out.extend(missing.iter().rev());
            return out;
        }
        match (existing.file_name().map(|n| n.to_os_string()), existing.parent()) {
            (Some(name), Some(parent)) => {
                missing.push(name);
                existing = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}
