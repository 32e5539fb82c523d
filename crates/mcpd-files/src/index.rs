//! Which files are served, and what changed between two looks.
//!
//! A scan walks every root with `ignore` (ripgrep's walker: `.gitignore`,
//! `.ignore`, git's excludes, hidden files, extra globs) and records each
//! file's size, modification time and MIME type under its *served path*
//! (`mount/relative/path`, `/`-separated, not percent-encoded). Comparing
//! two scans gives the changes to announce. Rescanning the whole tree after
//! a burst of events is simpler and more robust than interpreting each
//! inotify event (renames, editors' save-via-temp-file dances, `.gitignore`
//! edits that hide or reveal hundreds of files), and costs milliseconds for
//! a project-sized tree.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use ignore::WalkBuilder;
use ignore::overrides::{Override, OverrideBuilder};

use crate::{FilesError, FilesOptions, mime};

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

/// One configured root, resolved.
#[derive(Debug, Clone)]
pub(crate) struct Root {
    /// The canonical folder.
    pub dir: PathBuf,
    /// The served-path prefix (`""` or `a/b`).
    pub mount: String,
    overrides: Override,
}

impl Root {
    /// The served path of a file under this root.
    pub fn served(&self, path: &Path) -> Option<String> {
        let relative = path.strip_prefix(&self.dir).ok()?;
        let mut out = self.mount.clone();
        for part in relative.components() {
            let std::path::Component::Normal(part) = part else { return None };
            if !out.is_empty() {
                out.push('/');
            }
            out.push_str(part.to_str()?);
        }
        Some(out)
    }
}

/// Walks the roots.
#[derive(Debug, Clone)]
pub(crate) struct Scanner {
    /// The roots, shortest mount first (a longer mount shadows the same
    /// served path of a shorter one).
    pub roots: Vec<Root>,
    hidden: bool,
    gitignore: bool,
}

impl Scanner {
    pub fn new(base: &Path, options: &FilesOptions) -> Result<Self, FilesError> {
        let specs = if options.roots.is_empty() {
            vec![crate::RootSpec { path: PathBuf::from("."), mount: String::new() }]
        } else {
            options.roots.clone()
        };
        let mut roots = Vec::with_capacity(specs.len());
        let mut mounts = HashSet::new();
        for spec in specs {
            let mount = spec.mount.trim_matches('/').to_owned();
            if mount.split('/').any(|s| s == ".." || s == ".") || mount.contains('\\') || mount.contains("//")
            {
                return Err(FilesError::Mount { mount, reason: "must be plain path segments" });
            }
            if !mounts.insert(mount.clone()) {
                return Err(FilesError::Mount { mount, reason: "two roots share this mount" });
            }
            let joined = base.join(&spec.path);
            let dir = joined
                .canonicalize()
                .and_then(|d| if d.is_dir() { Ok(d) } else { Err(std::io::Error::other("not a directory")) })
                .map_err(|source| FilesError::Root { path: spec.path.clone(), source })?;
            let mut overrides = OverrideBuilder::new(&dir);
            for pattern in &options.exclude {
                overrides
                    .add(&format!("!{pattern}"))
                    .map_err(|e| FilesError::Exclude { pattern: pattern.clone(), reason: e.to_string() })?;
            }
            let overrides = overrides.build().map_err(|e| FilesError::Exclude {
                pattern: options.exclude.join(", "),
                reason: e.to_string(),
            })?;
            roots.push(Root { dir, mount, overrides });
        }
        roots.sort_by_key(|r| r.mount.len());
        Ok(Self { roots, hidden: options.hidden, gitignore: options.gitignore })
    }

    /// Every served file now, and every folder the walk entered (the ones
    /// to watch: ignored folders such as `target/` or `node_modules/` are
    /// neither entered nor watched). `previous` lends MIME types of files
    /// whose size and time did not change, so they are not re-sniffed.
    pub fn scan(&self, previous: &BTreeMap<String, Entry>) -> (BTreeMap<String, Entry>, BTreeSet<PathBuf>) {
        let mut files = BTreeMap::new();
        let mut dirs = BTreeSet::new();
        for root in &self.roots {
            let walker = WalkBuilder::new(&root.dir)
                .hidden(!self.hidden)
                .git_ignore(self.gitignore)
                .git_global(self.gitignore)
                .git_exclude(self.gitignore)
                .ignore(self.gitignore)
                .parents(self.gitignore)
                // Read .gitignore files even when the folder is not (yet) a repository.
                .require_git(false)
                .follow_links(false)
                .overrides(root.overrides.clone())
                .filter_entry(|e| e.file_name() != ".git")
                .build();
            for item in walker {
                let Ok(item) = item else { continue };
                let Some(file_type) = item.file_type() else { continue };
                let path = item.path();
                if file_type.is_dir() {
                    dirs.insert(path.to_path_buf());
                    continue;
                }
                let metadata = if file_type.is_file() {
                    item.metadata().ok()
                } else if file_type.is_symlink() {
                    // A link is served only if it ends at a file inside the root.
                    match path.canonicalize() {
                        Ok(target) if target.starts_with(&root.dir) => std::fs::metadata(&target).ok(),
                        _ => None,
                    }
                } else {
                    None
                };
                let Some(metadata) = metadata.filter(|m| m.is_file()) else { continue };
                let Some(served) = root.served(path) else { continue };
                let size = metadata.len();
                let modified = metadata.modified().ok();
                let mime = match previous.get(&served) {
                    Some(old) if old.size == size && old.modified == modified => old.mime.clone(),
                    _ => mime::guess(path),
                };
                files.insert(served, Entry { path: path.to_path_buf(), size, modified, mime });
            }
        }
        (files, dirs)
    }

    /// The served path of an absolute path under some root (the longest
    /// mount that contains it).
    pub fn served(&self, path: &Path) -> Option<String> {
        self.roots.iter().rev().find_map(|r| r.served(path))
    }
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
