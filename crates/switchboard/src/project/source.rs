//! Where a project comes from: its folder and configuration file, and the
//! one rule for which folders are never served unless named on the command
//! line (the root folder and the home folder).

use std::path::{Path, PathBuf};

/// Where the project came from, to load it again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Source {
    pub dir: PathBuf,
    pub config: Option<PathBuf>,
    /// Folders served instead of the configuration's `[[files.roots]]`
    /// (a client's roots, see `roots.rs`); empty: the configuration's.
    pub roots: Vec<switchboard_files::RootSpec>,
}

impl Source {
    /// The configuration file a reload reads (may not exist: the default).
    pub(crate) fn config_path(&self) -> PathBuf {
        self.config.clone().unwrap_or_else(|| self.dir.join(switchboard_config::FILE_NAME))
    }
}

/// What `dir` (canonical) is when it is never served unless named on the
/// command line: the file system's root, the home folder (`$HOME`) or a
/// folder that holds it. The one rule for the working folder of a host
/// that started switchboard without a folder, and for a client's roots.
pub(crate) fn unservable_folder(dir: &Path) -> Option<&'static str> {
    let home =
        std::env::var_os("HOME").filter(|h| !h.is_empty()).and_then(|h| PathBuf::from(h).canonicalize().ok());
    if dir.parent().is_none() {
        Some("the root folder")
    } else if home.as_deref() == Some(dir) {
        Some("the home folder")
    } else if home.is_some_and(|home| home.starts_with(dir)) {
        Some("a folder that holds the home folder")
    } else {
        None
    }
}
