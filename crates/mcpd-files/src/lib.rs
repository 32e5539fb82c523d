//! A project folder as MCP `file://` resources.
//!
//! `mcpd` serves the folder it runs in (or several named roots) as resources
//! (`docs/specification/<rev>/server/resources.mdx`): every file that git
//! would track is listed with its size, MIME type and `lastModified`; the
//! template `file:///{+path}` completes path prefixes; reads return text as
//! text and anything else as a base64 blob, and refuse files above a size
//! limit with an error that says so. A watcher turns changes on disk into
//! `notifications/resources/updated` (for subscribers) and one
//! `notifications/resources/list_changed` per burst of files appearing or
//! disappearing.
//!
//! What is served is exactly what is listed: files ignored by `.gitignore`,
//! hidden files (unless enabled) and everything under `.git` are neither
//! listed nor readable, so a `.env` kept out of git stays out of the model's
//! context too. Paths never leave a root (see [`mcp_server::FileRoot`]).
//!
//! URIs: a root mounted at `""` (the default) serves `file:///src/main.rs`;
//! a root mounted at `docs` serves `file:///docs/guide.md`.

mod index;
mod mime;
mod provider;
mod watch;

use std::path::PathBuf;

use serde::Deserialize;

pub use index::Change;
pub use provider::FileResources;
pub use watch::{DebouncedWatcher, WatchBatch};

/// The `[files]` section of `mcpd.toml`.
///
/// ```toml
/// [files]
/// max_file_size = 1048576   # bytes; larger files are listed but not read
/// hidden = false            # serve dotfiles (never .git)
/// gitignore = true          # honour .gitignore, .ignore and git's excludes
/// exclude = ["*.lock"]      # more globs to leave out
/// watch = true              # announce changes on disk
/// debounce_ms = 200
///
/// [[files.roots]]           # default: the served folder, mounted at ""
/// path = "."
/// [[files.roots]]
/// path = "../docs"
/// mount = "docs"
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FilesOptions {
    /// Serve files at all.
    pub enabled: bool,
    /// The folders to serve; empty means the served folder itself.
    pub roots: Vec<RootSpec>,
    /// Files larger than this many bytes are listed but reads are refused.
    pub max_file_size: u64,
    /// Serve hidden files (names starting with `.`); `.git` never is.
    pub hidden: bool,
    /// Honour `.gitignore`, `.ignore`, `.git/info/exclude` and the global excludes.
    pub gitignore: bool,
    /// Extra glob patterns (gitignore syntax) of files to leave out.
    pub exclude: Vec<String>,
    /// Watch the roots and announce changes.
    pub watch: bool,
    /// How long a burst of changes is collected before it is announced.
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
            debounce_ms: 200,
        }
    }
}

/// One served folder.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RootSpec {
    /// The folder, relative to the served folder or absolute.
    pub path: PathBuf,
    /// The URI prefix its files appear under (`""`: `file:///<path>`).
    #[serde(default)]
    pub mount: String,
}

/// Why the files could not be served.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FilesError {
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
    /// An `exclude` pattern is not a valid glob.
    #[error("exclude pattern {pattern:?}: {reason}")]
    Exclude {
        /// The pattern.
        pattern: String,
        /// The glob parser's message.
        reason: String,
    },
    /// The file-system watcher could not start.
    #[error("watching {path}: {reason}")]
    Watch {
        /// The path that could not be watched.
        path: PathBuf,
        /// The watcher's message.
        reason: String,
    },
    /// The server refused a registration.
    #[error(transparent)]
    Server(#[from] mcp_server::Error),
}
