//! The whole tree at once, or one folder of it: every served file (for
//! listing) and every folder the walk entered (for watching). The same
//! walker and the same symlink rule as a single-path check, so the list
//! and the reads agree; a folder's scan ([`ServedTree::scan_under`]) is a
//! full scan restricted to that folder, so a list kept up to date folder by
//! folder ends where a fresh full scan would.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use crate::ServedTree;
use crate::rules::Root;

/// What a scan calls with each folder as it enters it
/// ([`ServedTree::scan_entering`]).
pub type Entering = Arc<dyn Fn(&Path) + Send + Sync>;

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

/// The scan of one part of the tree: everything served whose served path
/// is `prefix` or lies below it (`""`: everything), and the folders entered.
#[derive(Debug, Clone, Default)]
pub struct PartialScan {
    /// The served paths this scan decides: `prefix` and `prefix/…`.
    pub prefix: String,
    /// What is served there now, and the folders walked.
    pub scan: Scan,
}

impl PartialScan {
    /// Whether `served` is one of the paths this scan decides.
    pub fn covers(&self, served: &str) -> bool {
        covers(&self.prefix, served)
    }
}

/// Whether the served path `served` is `prefix` or below it.
pub fn covers(prefix: &str, served: &str) -> bool {
    prefix.is_empty()
        || served.strip_prefix(prefix).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

impl ServedTree {
    /// Walks every root. Costs milliseconds for a project-sized tree; call
    /// it off the async threads.
    pub fn scan(&self) -> Scan {
        let mut scan = Scan::default();
        for root in self.roots() {
            self.scan_from(root, &root.dir, &mut scan, None);
        }
        scan
    }

    /// [`ServedTree::scan`], calling `entering` with each folder the walk
    /// enters (every root, then each folder it goes into) *before* the
    /// folder's entries and ignore files are read. A watch added there
    /// sees every change the walk's reading of the folder could miss, so
    /// an index built from this scan and then kept up to date by those
    /// watches misses no edit made while the walk went.
    pub fn scan_entering(&self, entering: Entering) -> Scan {
        let mut scan = Scan::default();
        for root in self.roots() {
            entering(&root.dir);
            self.scan_from(root, &root.dir, &mut scan, Some(&entering));
        }
        scan
    }

    /// Walks the folder `dir` (an absolute path inside a root; it need not
    /// exist any more) as [`ServedTree::scan`] would: one [`PartialScan`]
    /// per root whose served paths it holds, with the served-path prefix
    /// it decides. A folder that is gone or not served (ignored, hidden,
    /// excluded) yields an empty scan, so what was listed under it goes.
    /// Roots mounted below the folder's served path are walked whole.
    pub fn scan_under(&self, dir: &Path) -> Vec<PartialScan> {
        let mut parts = Vec::new();
        for root in self.roots() {
            let Some(prefix) = root.served(dir) else { continue };
            if dir != root.dir && self.shadowed(root, &prefix) {
                // A root with a longer mount owns these paths; its own
                // folder is what a change to them would touch.
                continue;
            }
            let mut scan = Scan::default();
            let walk = dir == root.dir
                || self.reach(root, dir).is_some_and(|e| e.file_type().is_some_and(|t| t.is_dir()));
            if walk {
                self.scan_from(root, dir, &mut scan, None);
            }
            for other in self.roots() {
                if !Arc::ptr_eq(other, root) && other.mount != prefix && covers(&prefix, &other.mount) {
                    self.scan_from(other, &other.dir, &mut scan, None);
                }
            }
            parts.push(PartialScan { prefix, scan });
        }
        parts
    }

    /// Adds what the walk of `root` from `start` (inside it) finds to
    /// `scan`, telling `entering` about each folder below `start` before
    /// the walk reads it: the walker's filter sees a folder after it is
    /// opened and before its entries and ignore files are read (walkdir
    /// reads a folder lazily when it is not sorted, and this walk is not).
    fn scan_from(&self, root: &Arc<Root>, start: &Path, scan: &mut Scan, entering: Option<&Entering>) {
        let entering = entering.cloned();
        let keep = move |entry: &ignore::DirEntry| {
            if let Some(entering) = &entering
                && entry.file_type().is_some_and(|t| t.is_dir())
            {
                entering(entry.path());
            }
            true
        };
        for entry in self.walker(root, start, keep).flatten() {
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

    /// The served file at the absolute path `path` as a scan would list it
    /// (`None`: not served now, or not a file).
    pub fn scan_file(&self, path: &Path) -> Option<(String, ScannedFile)> {
        let served = self.served_path_of(path)?;
        let located = self.locate(&served).ok().filter(|l| l.kind == crate::access::Kind::File)?;
        let modified = std::fs::metadata(&located.path).and_then(|m| m.modified()).ok();
        let listed = self.path_of(&served)?;
        Some((served, ScannedFile { path: listed, size: located.size, modified }))
    }
}
