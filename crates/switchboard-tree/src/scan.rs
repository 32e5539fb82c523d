//! The whole tree at once, or one folder of it: every served file (for
//! listing) and every folder the walk entered (for watching). The same
//! walker and the same symlink rule as a single-path check, so the list
//! and the reads agree; a folder's scan ([`ServedTree::scan_under`]) is a
//! full scan restricted to that folder, so a list kept up to date folder by
//! folder ends where a fresh full scan would.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use crate::rules::Root;
use crate::{ServedTree, cmp_served};

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

impl Scan {
    /// Files what a walk found.
    fn add(&mut self, found: Found) {
        match found {
            Found::File(served, file) => {
                self.files.insert(served, file);
            }
            Found::Dir(dir) => {
                self.dirs.insert(dir);
            }
        }
    }

    /// Puts `part` in place of what this scan holds under its prefix.
    fn replace(&mut self, part: PartialScan) {
        self.files.retain(|served, _| !covers(&part.prefix, served));
        self.dirs.extend(part.scan.dirs);
        self.files.extend(part.scan.files);
    }
}

/// One thing a walk found, in the order it found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// A served file, by served path.
    File(String, ScannedFile),
    /// A folder the walk entered.
    Dir(PathBuf),
}

/// How a whole walk ([`ServedTree::walk`]) went.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Walked {
    /// Whether the files came in served-path order ([`crate::cmp_served`]):
    /// true unless one root is mounted at or below another's mount (a walk
    /// of one root cannot interleave the other's paths).
    pub in_served_order: bool,
    /// Folders (only when walking with `entering`) whose modification time
    /// says an entry was added, removed or renamed in them since the walk
    /// began: what the walk read of them may predate their watch, so they
    /// are to be looked at again ([`ServedTree::scan_under`]).
    pub changed_while_walked: Vec<PathBuf>,
}

/// How far a folder's modification time may lag the clock the walk's
/// start was read from: Linux stamps it from a coarse clock, one tick
/// (1–10 ms) behind.
const FOLDER_TIME_LAG: Duration = Duration::from_millis(50);

impl ServedTree {
    /// Walks every root. Costs milliseconds for a project-sized tree; call
    /// it off the async threads.
    pub fn scan(&self) -> Scan {
        let mut scan = Scan::default();
        self.walk(None, &mut |found| scan.add(found));
        scan
    }

    /// [`ServedTree::scan`], calling `entering` with each folder the walk
    /// enters (every root, then each folder it goes into) before the
    /// folder's ignore files are read and before any of its files is
    /// looked at, and looking again at every folder changed while it was
    /// walked ([`Walked::changed_while_walked`]). A watch added in
    /// `entering` sees every change the walk could miss, so an index built
    /// from this scan and then kept up to date by those watches misses no
    /// edit made while the walk went.
    pub fn scan_entering(&self, entering: Entering) -> Scan {
        let mut scan = Scan::default();
        let walked = self.walk(Some(entering), &mut |found| scan.add(found));
        for dir in walked.changed_while_walked {
            for part in self.scan_under(&dir) {
                scan.replace(part);
            }
        }
        scan
    }

    /// Walks every root depth first with each folder's entries sorted by
    /// name, handing `visit` each served file and folder as it is found,
    /// so a caller can file them without holding the whole scan: when
    /// [`Walked::in_served_order`], files come in [`crate::cmp_served`]
    /// order (roots in mount order).
    ///
    /// With `entering`: each folder is announced as the walk enters it.
    /// A sorted walk reads a folder's names *before* it is announced (the
    /// walker must see them all to sort them), so a file created or
    /// removed in between would be missed by both the walk and a watch
    /// added then; after the announcement the folder's modification time
    /// is read, and a folder changed since the walk began is named in
    /// [`Walked::changed_while_walked`] for the caller to look at again.
    /// A file's contents and metadata are read after the announcement, so
    /// an edit of a file is either read by the walk or seen by the watch.
    /// (A file system that keeps no folder modification times, or keeps
    /// them coarser than a second, is not covered.)
    pub fn walk(&self, entering: Option<Entering>, visit: &mut dyn FnMut(Found)) -> Walked {
        let began = SystemTime::now().checked_sub(FOLDER_TIME_LAG).unwrap_or(SystemTime::UNIX_EPOCH);
        let in_served_order = self.walks_in_served_order();
        let mut roots: Vec<&Arc<Root>> = self.roots().iter().collect();
        if in_served_order {
            roots.sort_by(|a, b| cmp_served(&a.mount, &b.mount));
        }
        let changed = Arc::new(Mutex::new(Vec::new()));
        for root in roots {
            let announce = entering.as_ref().map(|entering| {
                let (entering, changed) = (Arc::clone(entering), Arc::clone(&changed));
                // The root is announced before the walk reads it.
                entering(&root.dir);
                Arc::new(move |dir: &Path| {
                    entering(dir);
                    if std::fs::metadata(dir).and_then(|m| m.modified()).map_or(true, |m| m >= began) {
                        changed.lock().unwrap_or_else(|p| p.into_inner()).push(dir.to_path_buf());
                    }
                }) as Entering
            });
            self.walk_from(root, &root.dir, true, announce, visit);
        }
        let changed_while_walked = std::mem::take(&mut *changed.lock().unwrap_or_else(|p| p.into_inner()));
        Walked { in_served_order, changed_while_walked }
    }

    /// Whether [`ServedTree::walk`] finds files in served-path order
    /// ([`crate::cmp_served`]): walking the roots one after another in
    /// mount order does when no mount is at or below another's.
    pub fn walks_in_served_order(&self) -> bool {
        let roots = self.roots();
        roots.iter().enumerate().all(|(i, a)| roots[i + 1..].iter().all(|b| !covers(&a.mount, &b.mount)))
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
                self.walk_from(root, dir, false, None, &mut |found| scan.add(found));
            }
            for other in self.roots() {
                if !Arc::ptr_eq(other, root) && other.mount != prefix && covers(&prefix, &other.mount) {
                    self.walk_from(other, &other.dir, false, None, &mut |found| scan.add(found));
                }
            }
            parts.push(PartialScan { prefix, scan });
        }
        parts
    }

    /// Hands `visit` what the walk of `root` from `start` (inside it)
    /// finds, `sorted` by name within each folder or in the order the
    /// file system lists them, telling `entering` about each folder below
    /// `start`: the walker's filter sees a folder after it is opened
    /// (and, sorted, listed) and before its ignore files are read.
    fn walk_from(
        &self,
        root: &Arc<Root>,
        start: &Path,
        sorted: bool,
        entering: Option<Entering>,
        visit: &mut dyn FnMut(Found),
    ) {
        let keep = move |entry: &ignore::DirEntry| {
            if let Some(entering) = &entering
                && entry.file_type().is_some_and(|t| t.is_dir())
            {
                entering(entry.path());
            }
            true
        };
        let mut builder = self.walk_builder(root, start, keep);
        if sorted {
            builder.sort_by_file_name(|a, b| a.cmp(b));
        }
        for entry in builder.build().flatten() {
            let Some(file_type) = entry.file_type() else { continue };
            if file_type.is_dir() {
                visit(Found::Dir(entry.into_path()));
                continue;
            }
            let Some(served) = root.served(entry.path()) else { continue };
            if self.shadowed(root, &served) {
                continue;
            }
            let Some(file) = self.scanned_file(entry, &served) else { continue };
            visit(Found::File(served, file));
        }
    }

    /// A walked entry as a served file (a regular file, or a symlink whose
    /// target is a served regular file): one `stat` for a regular file,
    /// which gives its size and time together.
    fn scanned_file(&self, entry: ignore::DirEntry, served: &str) -> Option<ScannedFile> {
        if entry.file_type()?.is_file() {
            let metadata = std::fs::metadata(entry.path()).ok().filter(|m| m.is_file())?;
            let modified = metadata.modified().ok();
            return Some(ScannedFile { path: entry.into_path(), size: metadata.len(), modified });
        }
        let listed = entry.path().to_path_buf();
        let located = self.as_file(entry, served.to_owned())?;
        let modified = std::fs::metadata(&located.path).and_then(|m| m.modified()).ok();
        Some(ScannedFile { path: listed, size: located.size, modified })
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
