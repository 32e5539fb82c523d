//! Which files are served, and what changed between two looks.
//!
//! A scan of the served tree ([`switchboard_tree::ServedTree::scan`], the same
//! rules every other access uses) gives each served file's size and
//! modification time under its *served path* (`mount/relative/path`,
//! `/`-separated, not percent-encoded); the index adds its MIME type. Comparing
//! two scans gives the changes to announce. Rescanning the whole tree after
//! a burst of events is simpler and more robust than interpreting each
//! inotify event (renames, editors' save-via-temp-file dances, `.gitignore`
//! edits that hide or reveal hundreds of files), and costs milliseconds for
//! a project-sized tree.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::time::SystemTime;

use switchboard_tree::Scan;

use crate::mime;

/// One served file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// Where it is (the root joined with the relative path, not canonical).
    pub path: PathBuf,
    /// Its size in bytes when scanned.
    pub size: u64,
    /// Its modification time when scanned.
    pub modified: Option<SystemTime>,
    /// Its MIME type.
    pub mime: String,
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

/// The index of a scan: each served file with its MIME type; `previous`
/// lends the types of files whose size and time did not change, so they
/// are not sniffed again.
pub(crate) fn index(scan: &Scan, previous: &BTreeMap<String, Entry>) -> BTreeMap<String, Entry> {
    scan.files
        .iter()
        .map(|(served, file)| {
            let mime = match previous.get(served) {
                Some(old) if old.size == file.size && old.modified == file.modified => old.mime.clone(),
                _ => mime::guess(&file.path),
            };
            let entry = Entry { path: file.path.clone(), size: file.size, modified: file.modified, mime };
            (served.clone(), entry)
        })
        .collect()
}

/// The changes from `old` to `new`; served paths in `touched` count as
/// modified even if their size and time look the same (two writes within
/// the file system's time resolution).
pub(crate) fn diff(
    old: &BTreeMap<String, Entry>,
    new: &BTreeMap<String, Entry>,
    touched: &HashSet<String>,
) -> Vec<Change> {
    let mut changes = Vec::new();
    for (path, entry) in new {
        match old.get(path) {
            None => changes.push(Change::Added(path.clone())),
            Some(before) if before != entry || touched.contains(path) => {
                changes.push(Change::Modified(path.clone()))
            }
            Some(_) => {}
        }
    }
    for path in old.keys() {
        if !new.contains_key(path) {
            changes.push(Change::Removed(path.clone()));
        }
    }
    changes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(size: u64) -> Entry {
        Entry { path: PathBuf::from("/x"), size, modified: None, mime: "text/plain".into() }
    }

    #[test]
    fn diff_names_each_kind_of_change() {
        let old: BTreeMap<_, _> =
            [("a".to_owned(), entry(1)), ("b".to_owned(), entry(1)), ("c".to_owned(), entry(1))].into();
        let new: BTreeMap<_, _> =
            [("a".to_owned(), entry(1)), ("b".to_owned(), entry(2)), ("d".to_owned(), entry(1))].into();
        let mut changes = diff(&old, &new, &HashSet::new());
        changes.sort();
        assert_eq!(
            changes,
            vec![Change::Added("d".into()), Change::Removed("c".into()), Change::Modified("b".into())]
        );
        let touched: HashSet<String> = ["a".to_owned()].into();
        assert!(diff(&old, &new, &touched).contains(&Change::Modified("a".into())));
    }
}
