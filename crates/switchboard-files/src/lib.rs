//! A project folder as MCP `file://` resources.
//!
//! `switchboard` serves the folder it runs in (or several named roots) as resources
//! (`docs/specification/<rev>/server/resources.mdx`): every file that git
//! would track is listed with its size, MIME type (by name, source code
//! first: [`mime_from_name`]; else by content) and `lastModified`; the
//! template `file:///{+path}` completes path prefixes; reads return text as
//! text and anything else as a base64 blob, and refuse files above a size
//! limit with an error that says so. A watcher turns changes on disk into
//! `notifications/resources/updated` (for subscribers) and one
//! `notifications/resources/list_changed` per burst of files appearing or
//! disappearing.
//!
//! What is served is decided by the folder's one access policy,
//! [`ServedTree`] (crate `switchboard-tree`), which the file tools consult too:
//! files ignored by `.gitignore`, hidden files (unless enabled) and
//! everything under `.git` are neither listed nor readable, so a `.env`
//! kept out of git stays out of the model's context. Every read asks the
//! policy again at the moment of use (a file that became a symlink out, or
//! became ignored, is refused even while still listed).
//!
//! URIs: a root mounted at `""` (the default) serves `file:///src/main.rs`;
//! a root mounted at `docs` serves `file:///docs/guide.md`.

mod index;
mod mime;
mod provider;
mod source;
mod watch;

use std::path::PathBuf;

pub use index::Change;
pub use mime::{mime_from_content, mime_from_name, mime_of_file};
pub use provider::{FileResources, WatchDirsVersion};
pub use source::{FIRST_INDEX_WAIT, FileSource};
pub use switchboard_tree::{FilesOptions, RootSpec, ServedTree, TreeError, is_view_file_name};
pub use watch::{DebouncedWatcher, FolderWatch, WatchBatch};

/// Why the files could not be served.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FilesError {
    /// The roots or rules of the tree are unusable.
    #[error(transparent)]
    Tree(#[from] TreeError),
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
    Server(#[from] switchboard_server::Error),
}
