//! The whole tree at once: every served file (for listing) and every
//! folder the walk entered (for watching). The same walker and the same
//! symlink rule as a single-path check, so the list and the reads agree.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::SystemTime;

use crate::ServedTree;

/// One served file found by a scan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScannedFile {
    /// Where it is (the root joined with the relative path, not canonical).
    pub path: PathBuf,
    /// Its size in bytes.
    pub size: u64,
    /// Its modification time.
    pub modified: Option<SystemTime>,
}

/// What a scan found.
#[derive(Debug, Clone, Default)]
pub struct Scan {
    /// Every served file by served path.
    pub files: BTreeMap<String, ScannedFile>,
    /// Every folder the walk entered (ignored ones such as `target/` are
    /// not entered, so they cost no watches).
    pub dirs: BTreeSet<PathBuf>,
}

impl ServedTree {
    /// Walks every root. Costs milliseconds for a project-sized tree; call
    /// it off the async threads.
    pub fn scan(&self) -> Scan {
        let mut scan = Scan::default();
        for root in self.roots() {
            for entry in self.walker(root, &root.dir, |_| true).flatten() {
                let Some(file_type) = entry.file_type() else { continue };
                if file_type.is_dir() {
                    scan.dirs.insert(entry.into_path());
                    continue;
                }
                let Some(served) = root.served(entry.path()) else { continue };
                if self.shadowed(root, &served) {
                    continue;
                }
                let listed = entry.path().to_path_buf();
                let Some(located) = self.as_file(entry, served.clone()) else { continue };
                let modified = std::fs::metadata(&located.path).and_then(|m| m.modified()).ok();
                scan.files.insert(served, ScannedFile { path: listed, size: located.size, modified });
            }
        }
        scan
    }
}
