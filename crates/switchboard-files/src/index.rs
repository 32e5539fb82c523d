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
//! Per file the index holds the served path once (the map's key) and a
//! small [`Entry`]: size, time, and the MIME type as a `&'static str`
//! (every type comes from a fixed table), never a path or an owned string.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use switchboard_tree::{PartialScan, ScannedFile, ServedTree};

use crate::mime;
use crate::watch::WatchBatch;

/// Changed paths in one batch above which a full rescan is cheaper than
/// looking at each (a `git checkout` of a big branch).
const MAX_PATHS_LOOKED_AT: usize = 2_000;

/// The ignore files the served tree's rules read in each folder.
const IGNORE_FILES: [&str; 2] = [".gitignore", ".ignore"];

/// One served file (its served path is the key it is filed under).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Entry {
    /// Its size in bytes when scanned.
    pub size: u64,
    /// Its modification time when scanned.
    pub modified: Option<SystemTime>,
    /// Its MIME type.
    pub mime: &'static str,
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
fn entry(file: &ScannedFile, old: Option<&Entry>) -> Entry {
    let mime = match old {
        Some(old) if old.size == file.size && old.modified == file.modified => old.mime,
        _ => mime::guess(&file.path),
    };
    Entry { size: file.size, modified: file.modified, mime }
}

/// Files `new` in place of everything the index held; returns the changes.
/// Served paths in `touched` count as modified even if their size and
/// time look the same (two writes within the file system's time resolution).
pub(crate) fn replace_all(
    index: &mut BTreeMap<String, Entry>,
    new: BTreeMap<String, ScannedFile>,
    touched: &HashSet<String>,
) -> Vec<Change> {
    let old = std::mem::take(index);
    let mut changes = Vec::new();
    for (served, file) in new {
        let before = old.get(&served);
        let after = entry(&file, before);
        match before {
            None => changes.push(Change::Added(served.clone())),
            Some(b) if *b != after || touched.contains(&served) => {
                changes.push(Change::Modified(served.clone()))
            }
            Some(_) => {}
        }
        index.insert(served, after);
    }
    for served in old.into_keys() {
        if !index.contains_key(&served) {
            changes.push(Change::Removed(served));
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
    index: &mut BTreeMap<String, Entry>,
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
        let old: Vec<String> = covered(index, &part.prefix).cloned().collect();
        for served in old {
            if !part.scan.files.contains_key(&served) {
                index.remove(&served);
                changes.push(Change::Removed(served));
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
                    && index.remove(&served).is_some()
                {
                    changes.push(Change::Removed(served));
                }
            }
        }
    }
    changes
}

fn upsert(
    index: &mut BTreeMap<String, Entry>,
    served: String,
    file: &ScannedFile,
    touched: &HashSet<String>,
    changes: &mut Vec<Change>,
) {
    let before = index.get(&served);
    let after = entry(file, before);
    match before {
        None => changes.push(Change::Added(served.clone())),
        Some(b) if *b != after || touched.contains(&served) => changes.push(Change::Modified(served.clone())),
        Some(_) => return,
    }
    index.insert(served, after);
}

/// The served paths of `index` that `prefix` covers: itself and `prefix/…`
/// (not `prefix.txt`, which sorts between them).
fn covered<'a>(index: &'a BTreeMap<String, Entry>, prefix: &str) -> impl Iterator<Item = &'a String> {
    let (exact, below) = if prefix.is_empty() {
        (None, index.range::<str, _>(..))
    } else {
        // '0' is the character after '/': the range is exactly `prefix/…`.
        let start = format!("{prefix}/");
        let end = format!("{prefix}0");
        let exact = index.get_key_value(prefix).map(|(k, _)| k);
        (exact, index.range::<str, _>((Bound::Included(start.as_str()), Bound::Excluded(end.as_str()))))
    };
    exact.into_iter().chain(below.map(|(k, _)| k))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scanned(size: u64) -> ScannedFile {
        ScannedFile { path: PathBuf::from("/x.txt"), size, modified: None }
    }

    fn entry_of(size: u64) -> Entry {
        Entry { size, modified: None, mime: "text/plain" }
    }

    #[test]
    fn replace_all_names_each_kind_of_change() {
        let mut index: BTreeMap<_, _> =
            [("a".to_owned(), entry_of(1)), ("b".to_owned(), entry_of(1)), ("c".to_owned(), entry_of(1))]
                .into();
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
        assert_eq!(index.keys().collect::<Vec<_>>(), ["a", "b", "d"]);
    }

    #[test]
    fn covered_is_the_prefix_and_below_it_only() {
        let index: BTreeMap<String, Entry> =
            ["a", "a-b", "a.txt", "a/x", "a/y/z", "a0", "b"].map(|k| (k.to_owned(), entry_of(1))).into();
        let keys = |p: &str| covered(&index, p).cloned().collect::<Vec<_>>();
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
