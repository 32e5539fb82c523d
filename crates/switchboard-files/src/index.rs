//! Which files are served, and what changed between two looks.
//!
//! A scan of the served tree ([`switchboard_tree::ServedTree::scan`], the same
//! rules every other access uses) gives each served file's size and
//! modification time under its *served path* (`mount/relative/path`,
//! `/`-separated, not percent-encoded); the index adds its MIME type.
//!
//! The first look is a full scan. After that a burst of watch events costs
//! what it touches ([`plan`]): a changed file is looked up on its own, a
//! folder that appeared, vanished or was renamed is walked (or dropped)
//! with everything below it, and an edited ignore file rescans the folder
//! it governs. Each of these asks the served tree, with its rules, for the
//! part it decides ([`ServedTree::scan_under`], [`ServedTree::scan_file`]),
//! so the index ends where a fresh full scan would. Only an overflowing
//! watcher (events lost) or a huge burst rescans everything. (A symlink
//! elsewhere that leads into a changed folder is looked at again by the
//! next full rescan; every read checks the policy at the moment of use
//! anyway.)
//!
//! Per file the index holds the served path once (the map's key, a
//! [`ServedKey`]: a boxed `str`, 16 bytes and the text) and a 24-byte
//! [`Entry`]: size, time in nanoseconds, and the MIME type's number in a
//! table of the few types ever given out (every type comes from a fixed
//! table), never a path or an owned string. Against a `String` key (24
//! bytes) and an entry with an `Option<SystemTime>` and a `&'static str`
//! (40 bytes) that is 24 bytes less per file, before the map's nodes.
//!
//! The index is ordered component by component ([`cmp_served`]: `a/x` <
//! `a.txt` < `a0`), the order of a depth-first walk with each folder's
//! entries sorted by name. So the first scan can file what it finds as it
//! walks, every file after the ones before it, and a position once filled
//! never moves until the scan ends; and a path with everything below it
//! (`p`, `p/…`), or every path starting with a given text, is one
//! contiguous run of the map.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use switchboard_tree::{PartialScan, ScannedFile, ServedTree, cmp_served, covers};

use crate::mime;
use crate::watch::WatchBatch;

/// Changed paths in one batch above which a full rescan is cheaper than
/// looking at each (a `git checkout` of a big branch).
const MAX_PATHS_LOOKED_AT: usize = 2_000;

/// The ignore files the served tree's rules read in each folder.
const IGNORE_FILES: [&str; 2] = [".gitignore", ".ignore"];

/// A served path as the index files it, ordered by [`cmp_served`].
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct ServedKey(Box<str>);

impl ServedKey {
    /// The served path.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<&str> for ServedKey {
    fn from(served: &str) -> Self {
        Self(served.into())
    }
}

impl From<String> for ServedKey {
    fn from(served: String) -> Self {
        Self(served.into_boxed_str())
    }
}

impl Ord for ServedKey {
    fn cmp(&self, other: &Self) -> Ordering {
        cmp_served(&self.0, &other.0)
    }
}

impl PartialOrd for ServedKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl std::fmt::Debug for ServedKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// A modification time the index does not know.
const NO_TIME: i64 = i64::MIN;

/// One served file (its served path is the key it is filed under).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Entry {
    /// Its size in bytes when scanned.
    pub size: u64,
    /// Its modification time when scanned, in nanoseconds from the Unix
    /// epoch (±292 years), or [`NO_TIME`].
    modified: i64,
    /// Its MIME type's number ([`mime::number`]).
    mime: u16,
}

impl Entry {
    pub fn new(size: u64, modified: Option<SystemTime>, mime: &'static str) -> Self {
        let modified = modified.and_then(nanos_from_epoch).unwrap_or(NO_TIME);
        Self { size, modified, mime: mime::number(mime) }
    }

    /// Its modification time when scanned.
    pub fn modified(&self) -> Option<SystemTime> {
        let nanos = self.modified;
        if nanos == NO_TIME {
            return None;
        }
        let span = Duration::from_nanos(nanos.unsigned_abs());
        if nanos >= 0 {
            SystemTime::UNIX_EPOCH.checked_add(span)
        } else {
            SystemTime::UNIX_EPOCH.checked_sub(span)
        }
    }

    /// Its MIME type.
    pub fn mime(&self) -> &'static str {
        mime::numbered(self.mime)
    }
}

/// `time` in nanoseconds from the Unix epoch, if it fits in an `i64`.
fn nanos_from_epoch(time: SystemTime) -> Option<i64> {
    match time.duration_since(SystemTime::UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_nanos()).ok(),
        Err(before) => i64::try_from(before.duration().as_nanos()).ok().map(|n| -n).filter(|n| *n != NO_TIME),
    }
}

/// A change to announce, by served path.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Change {
    /// A file is now served.
    Added(String),
    /// A file is no longer served.
    Removed(String),
    /// A served file's contents or metadata changed.
    Modified(String),
}

/// The index entry for a scanned file; `old` lends its MIME type when the
/// size and time did not change, so the file is not sniffed again.
pub(crate) fn entry(file: &ScannedFile, old: Option<&Entry>) -> Entry {
    let mime = match old {
        Some(old) if old.size == file.size && old.modified() == file.modified => old.mime(),
        _ => mime::guess(&file.path),
    };
    Entry::new(file.size, file.modified, mime)
}

/// Files `new` in place of everything the index held; returns the changes.
/// Served paths in `touched` count as modified even if their size and
/// time look the same (two writes within the file system's time resolution).
pub(crate) fn replace_all(
    index: &mut BTreeMap<ServedKey, Entry>,
    new: BTreeMap<String, ScannedFile>,
    touched: &HashSet<String>,
) -> Vec<Change> {
    let old = std::mem::take(index);
    let mut changes = Vec::new();
    // Collected, not inserted one by one: the map is built with full nodes.
    *index = new
        .into_iter()
        .map(|(served, file)| {
            let key = ServedKey::from(served.as_str());
            let before = old.get(&key);
            let after = entry(&file, before);
            match before {
                None => changes.push(Change::Added(served)),
                Some(b) if *b != after || touched.contains(&served) => changes.push(Change::Modified(served)),
                Some(_) => {}
            }
            (key, after)
        })
        .collect();
    for served in old.into_keys() {
        if !index.contains_key(&served) {
            changes.push(Change::Removed(served.as_str().to_owned()));
        }
    }
    changes
}

/// What one batch asks the index to look at again; `None`: everything.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Plan {
    /// Folders to walk again (each with everything below it); a path that
    /// no longer exists is here too, so what was under it goes.
    pub folders: BTreeSet<PathBuf>,
    /// Files to look up on their own.
    pub files: BTreeSet<PathBuf>,
}

/// The plan for `batch`, or `None` when only a full rescan will do (the
/// watcher overflowed, the batch is huge, a repository-wide ignore file
/// changed, or nothing is named: the first scan).
pub(crate) fn plan(batch: &WatchBatch) -> Option<Plan> {
    if batch.overflow || batch.paths.is_empty() || batch.paths.len() > MAX_PATHS_LOOKED_AT {
        return None;
    }
    let mut plan = Plan::default();
    for path in &batch.paths {
        if let Some(inside_git) = inside_git(path) {
            // `.git/info/exclude` is read for the whole repository;
            // anything else in .git serves nothing.
            if inside_git == Path::new("info/exclude") {
                return None;
            }
            continue;
        }
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        match std::fs::symlink_metadata(path) {
            _ if IGNORE_FILES.contains(&name) => {
                plan.folders.insert(path.parent().unwrap_or(path).to_path_buf());
            }
            Ok(meta) if !meta.is_dir() => {
                plan.files.insert(path.clone());
            }
            // A folder, or a path that is gone (a file or a whole folder).
            _ => {
                plan.folders.insert(path.clone());
            }
        }
    }
    // A folder walked covers everything below it.
    let folders: Vec<PathBuf> = plan.folders.iter().cloned().collect();
    let below_another = |p: &Path| folders.iter().any(|f| p != f && p.starts_with(f));
    plan.folders.retain(|f| !below_another(f));
    plan.files.retain(|f| !folders.iter().any(|d| f.starts_with(d)));
    Some(plan)
}

/// The part of `path` below a `.git` folder, if it is inside one.
fn inside_git(path: &Path) -> Option<&Path> {
    let mut prefix = PathBuf::new();
    for component in path.components() {
        prefix.push(component);
        if component.as_os_str() == ".git" {
            return path.strip_prefix(&prefix).ok();
        }
    }
    None
}

/// What the tree serves now for each part of `plan` (looked up without
/// holding the index).
pub(crate) struct Looked {
    parts: Vec<PartialScan>,
    files: Vec<(PathBuf, Option<(String, ScannedFile)>)>,
}

/// Asks `tree` about every part of `plan`.
pub(crate) fn look(tree: &ServedTree, plan: &Plan) -> Looked {
    Looked {
        parts: plan.folders.iter().flat_map(|dir| tree.scan_under(dir)).collect(),
        files: plan.files.iter().map(|path| (path.clone(), tree.scan_file(path))).collect(),
    }
}

/// Applies what was `looked` at to `index` and `dirs` (the folders to
/// watch); returns the changes.
pub(crate) fn apply(
    tree: &ServedTree,
    index: &mut BTreeMap<ServedKey, Entry>,
    dirs: &mut BTreeSet<PathBuf>,
    plan: &Plan,
    looked: Looked,
    touched: &HashSet<String>,
) -> Vec<Change> {
    let mut changes = Vec::new();
    for folder in &plan.folders {
        dirs.retain(|d| !d.starts_with(folder));
    }
    for part in looked.parts {
        let old: Vec<ServedKey> = covered(index, &part.prefix).cloned().collect();
        for served in old {
            if !part.scan.files.contains_key(served.as_str()) {
                index.remove(&served);
                changes.push(Change::Removed(served.as_str().to_owned()));
            }
        }
        dirs.extend(part.scan.dirs);
        for (served, file) in part.scan.files {
            upsert(index, served, &file, touched, &mut changes);
        }
    }
    for (path, found) in looked.files {
        match found {
            Some((served, file)) => upsert(index, served, &file, touched, &mut changes),
            None => {
                if let Some(served) = tree.served_path_of(&path)
                    && index.remove(&ServedKey::from(served.as_str())).is_some()
                {
                    changes.push(Change::Removed(served));
                }
            }
        }
    }
    changes
}

fn upsert(
    index: &mut BTreeMap<ServedKey, Entry>,
    served: String,
    file: &ScannedFile,
    touched: &HashSet<String>,
    changes: &mut Vec<Change>,
) {
    let key = ServedKey::from(served.as_str());
    let before = index.get(&key);
    let after = entry(file, before);
    match before {
        None => changes.push(Change::Added(served)),
        Some(b) if *b != after || touched.contains(&served) => changes.push(Change::Modified(served)),
        Some(_) => return,
    }
    index.insert(key, after);
}

/// The served paths of `index` that `prefix` covers: itself and `prefix/…`,
/// one run from `prefix` on in the index's order (`prefix.txt` sorts after it).
fn covered<'a>(index: &'a BTreeMap<ServedKey, Entry>, prefix: &str) -> impl Iterator<Item = &'a ServedKey> {
    let prefix = prefix.to_owned();
    index
        .range(ServedKey::from(prefix.as_str())..)
        .map(|(k, _)| k)
        .take_while(move |k| covers(&prefix, k.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scanned(size: u64) -> ScannedFile {
        ScannedFile { path: PathBuf::from("/x.txt"), size, modified: None }
    }

    fn entry_of(size: u64) -> Entry {
        Entry::new(size, None, "text/plain")
    }

    fn keys_of(index: &BTreeMap<ServedKey, Entry>) -> Vec<&str> {
        index.keys().map(ServedKey::as_str).collect()
    }

    #[test]
    fn an_entry_keeps_its_time_to_the_nanosecond_and_its_type() {
        let times = [
            None,
            Some(SystemTime::UNIX_EPOCH + Duration::new(1_700_000_000, 123_456_789)),
            Some(SystemTime::UNIX_EPOCH - Duration::new(86_400, 1)),
        ];
        for time in times {
            let entry = Entry::new(7, time, "text/x-rust");
            assert_eq!((entry.size, entry.modified(), entry.mime()), (7, time, "text/x-rust"));
        }
        assert_eq!(std::mem::size_of::<Entry>(), 24);
        assert_eq!(std::mem::size_of::<ServedKey>(), 16);
    }

    #[test]
    fn replace_all_names_each_kind_of_change() {
        let mut index: BTreeMap<_, _> =
            [("a".into(), entry_of(1)), ("b".into(), entry_of(1)), ("c".into(), entry_of(1))].into();
        let new: BTreeMap<_, _> =
            [("a".to_owned(), scanned(1)), ("b".to_owned(), scanned(2)), ("d".to_owned(), scanned(1))].into();
        let touched: HashSet<String> = ["a".to_owned()].into();
        let mut changes = replace_all(&mut index, new, &touched);
        changes.sort();
        assert_eq!(
            changes,
            vec![
                Change::Added("d".into()),
                Change::Removed("c".into()),
                Change::Modified("a".into()),
                Change::Modified("b".into())
            ]
        );
        assert_eq!(keys_of(&index), ["a", "b", "d"]);
    }

    #[test]
    fn covered_is_the_prefix_and_below_it_only() {
        let index: BTreeMap<ServedKey, Entry> =
            ["a", "a-b", "a.txt", "a/x", "a/y/z", "a0", "b"].map(|k| (k.into(), entry_of(1))).into();
        assert_eq!(keys_of(&index), ["a", "a/x", "a/y/z", "a-b", "a.txt", "a0", "b"], "component order");
        let keys = |p: &str| covered(&index, p).map(|k| k.as_str().to_owned()).collect::<Vec<_>>();
        assert_eq!(keys("a"), ["a", "a/x", "a/y/z"]);
        assert_eq!(keys("a/y"), ["a/y/z"]);
        assert_eq!(keys("").len(), 7);
        assert!(keys("zz").is_empty());
    }

    #[test]
    fn plan_rescans_everything_on_overflow_and_for_the_first_scan() {
        assert_eq!(plan(&WatchBatch::default()), None);
        let overflow = WatchBatch { paths: [PathBuf::from("/x")].into(), overflow: true };
        assert_eq!(plan(&overflow), None);
        let exclude = WatchBatch { paths: [PathBuf::from("/r/.git/info/exclude")].into(), overflow: false };
        assert_eq!(plan(&exclude), None);
    }

    #[test]
    fn plan_walks_folders_and_ignore_files_folders_and_looks_up_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("pkg/src")).unwrap();
        std::fs::write(root.join("pkg/src/a.rs"), "").unwrap();
        std::fs::write(root.join("pkg/.gitignore"), "").unwrap();
        std::fs::write(root.join("top.rs"), "").unwrap();
        let batch = WatchBatch {
            paths: [
                root.join("pkg/.gitignore"),
                root.join("pkg/src/a.rs"),
                root.join("top.rs"),
                root.join("gone"),
                root.join(".git/index"),
            ]
            .into(),
            overflow: false,
        };
        let plan = plan(&batch).unwrap();
        assert_eq!(plan.folders, [root.join("pkg"), root.join("gone")].into());
        assert_eq!(plan.files, [root.join("top.rs")].into());
    }
}
