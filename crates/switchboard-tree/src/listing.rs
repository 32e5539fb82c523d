//! Folders as the model sees them: the served entries of a folder (to a
//! depth), served files found by a glob, one entry described, and the
//! checks for creating folders and for moving or removing an entry.
//!
//! Nothing here has rules of its own. A listing is the walker of
//! [`ServedTree::walker`] bounded in depth and sorted by name, so it shows
//! exactly what a scan serves and a read accepts (never an ignored, hidden,
//! excluded or `.git` entry, never a symlinked folder, a symlink only when
//! it leads to a served file). Folders are created where
//! [`ServedTree::writable`] would write a file; entries are removed or
//! moved only where it would overwrite one.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ignore::DirEntry;

use crate::access::{Kind, Located, WriteTarget};
use crate::path::ServedPath;
use crate::rules::{Root, globs};
use crate::{ServedTree, TreeError};

/// What a listed entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A folder (or a mounted root shown as one).
    Dir,
    /// A symlink to a served regular file (sizes are the target's).
    FileLink,
}

impl EntryKind {
    /// `file`, `dir` or `symlink-to-file`.
    pub fn as_str(self) -> &'static str {
        match self {
            EntryKind::File => "file",
            EntryKind::Dir => "dir",
            EntryKind::FileLink => "symlink-to-file",
        }
    }
}

/// One served entry of a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its served path.
    pub served: String,
    /// File, folder or link to a file.
    pub kind: EntryKind,
    /// The file's size in bytes (the target's for a link; 0 for folders).
    pub size: u64,
    /// How deep below the listed folder (1: directly in it).
    pub depth: usize,
    /// Where its content is: canonical for files and links (the link's
    /// target), the folder itself for folders.
    pub path: PathBuf,
}

/// An entry that may be moved or removed, as it is on disk.
#[derive(Debug, Clone)]
pub struct Removable {
    /// The entry itself (a symlink, not its target).
    pub path: PathBuf,
    /// File, folder or link to a file.
    pub kind: EntryKind,
}

impl ServedTree {
    /// Calls `visit` with every served entry below the folder `path` (a
    /// served path, `""` for the served folder) down to `max_depth` levels
    /// (1: its direct entries), in name order within each root. Mounted
    /// roots below `path` appear as folders (then their entries). Every
    /// entry is visited, so a caller that keeps only some can count the rest.
    pub fn list(&self, path: &str, max_depth: usize, mut visit: impl FnMut(Entry)) -> Result<(), TreeError> {
        let parsed = ServedPath::parse(path)?;
        let mounts = self.mounts_below(&parsed);
        match self.locate_parsed(&parsed) {
            Ok(located) if located.kind == Kind::Dir => {
                let (root, _) = self.root_of(parsed.segments()).ok_or(TreeError::NotServed)?;
                self.walk_entries(root, &located.path, max_depth, 0, &mut visit);
            }
            Ok(_) => return Err(TreeError::WrongKind("it is a file, not a folder")),
            Err(e) if mounts.is_empty() => return Err(e),
            Err(_) => {}
        }
        let base = parsed.segments().len();
        let mut shown: Vec<String> = Vec::new();
        for root in mounts {
            let segments: Vec<&str> = root.mount.split('/').collect();
            // The folders between `path` and the mount, each shown once.
            for level in base + 1..=segments.len() {
                let depth = level - base;
                let served = segments[..level].join("/");
                if depth > max_depth || shown.contains(&served) || self.is_dir_of_other_root(&root, &served) {
                    continue;
                }
                shown.push(served.clone());
                let path = if level == segments.len() { root.dir.clone() } else { PathBuf::new() };
                visit(Entry { served, kind: EntryKind::Dir, size: 0, depth, path });
            }
            let offset = segments.len() - base;
            if max_depth > offset {
                self.walk_entries(&root, &root.dir, max_depth - offset, offset, &mut visit);
            }
        }
        Ok(())
    }

    /// Calls `visit` with every served file below `path` whose served path
    /// `glob` (gitignore syntax: `*.rs` anywhere, `src/**/mod.rs`) matches,
    /// whatever its size. The glob only narrows what is served.
    pub fn find(&self, path: &str, glob: &str, mut visit: impl FnMut(Entry)) -> Result<(), TreeError> {
        let pattern = globs(Path::new("/"), std::iter::once((glob, glob.to_owned())))?;
        let located = self.locate(path).ok();
        if let Some(file) = located.filter(|l| l.kind == Kind::File) {
            let entry = self.describe(&file.served)?;
            if pattern.matched(&entry.served, false).is_whitelist() {
                visit(entry);
            }
            return Ok(());
        }
        self.list(path, usize::MAX, |entry| {
            if entry.kind != EntryKind::Dir && pattern.matched(&entry.served, false).is_whitelist() {
                visit(entry);
            }
        })
    }

    /// The served entry at `path`, with what it is on disk (a file, a
    /// folder, a symlink to a served file). Refused like every other
    /// access when it is not served.
    pub fn describe(&self, path: &str) -> Result<Entry, TreeError> {
        let parsed = ServedPath::parse(path)?;
        let located = self.locate_parsed(&parsed)?;
        let kind = match located.kind {
            Kind::Dir => EntryKind::Dir,
            Kind::File if self.lexical(&parsed)?.is_symlink() => EntryKind::FileLink,
            Kind::File => EntryKind::File,
        };
        Ok(Entry { served: located.served, kind, size: located.size, depth: 0, path: located.path })
    }

    /// Where a new folder `path` may be made (with its missing parents):
    /// the rules of [`ServedTree::writable`], for a folder. An existing
    /// served folder is returned with `exists`.
    pub fn writable_dir(&self, path: &str) -> Result<WriteTarget, TreeError> {
        self.write_target(path, Kind::Dir)
    }

    /// The entry at `path` if it may be moved away or removed: a served file
    /// or symlink that [`ServedTree::writable`] would overwrite, or a served
    /// folder that [`ServedTree::writable_dir`] accepts and that holds no
    /// protected path. Returns the entry itself (a symlink, not its target).
    pub fn removable(&self, path: &str) -> Result<Removable, TreeError> {
        let parsed = ServedPath::parse(path)?;
        let entry = self.describe(path)?;
        if entry.kind == EntryKind::Dir {
            let target = self.writable_dir(path)?;
            if self.contains_protected(&target.path) {
                return Err(TreeError::Protected("the folder holds the server's configuration or prompts"));
            }
        } else {
            self.writable(path)?;
        }
        Ok(Removable { path: self.lexical(&parsed)?, kind: entry.kind })
    }

    /// The path on disk of a served path, symlinks not resolved (its folders
    /// are real folders: the walk never enters a symlinked one).
    fn lexical(&self, parsed: &ServedPath) -> Result<PathBuf, TreeError> {
        let (root, rest) = self.root_of(parsed.segments()).ok_or(TreeError::NotServed)?;
        let mut path = root.dir.clone();
        path.extend(rest);
        Ok(path)
    }

    /// The roots mounted strictly below `parsed`, shortest mount first.
    fn mounts_below(&self, parsed: &ServedPath) -> Vec<Arc<Root>> {
        let base = parsed.segments();
        self.roots()
            .iter()
            .filter(|r| {
                let mount: Vec<&str> =
                    if r.mount.is_empty() { Vec::new() } else { r.mount.split('/').collect() };
                mount.len() > base.len() && base.iter().zip(&mount).all(|(a, b)| a == b)
            })
            .cloned()
            .collect()
    }

    /// Whether `served` (a folder on the way to `root`'s mount) is an entry
    /// of another root's walk already (a real folder there), so it is not
    /// shown twice.
    fn is_dir_of_other_root(&self, root: &Arc<Root>, served: &str) -> bool {
        let segments: Vec<String> = served.split('/').map(str::to_owned).collect();
        self.root_of(&segments).is_some_and(|(owner, rest)| {
            !Arc::ptr_eq(owner, root)
                && !rest.is_empty()
                && self.located_in(owner, rest).is_ok_and(|l| l.kind == Kind::Dir)
        })
    }

    /// Visits the served entries below `dir` (inside `root`), `max_depth`
    /// levels deep, sorted by name, their depth raised by `offset`.
    fn walk_entries(
        &self,
        root: &Arc<Root>,
        dir: &Path,
        max_depth: usize,
        offset: usize,
        visit: &mut impl FnMut(Entry),
    ) {
        let walk = self
            .walk_builder(root, dir, |_| true)
            .max_depth(Some(max_depth))
            .sort_by_file_name(|a, b| a.cmp(b))
            .build();
        for entry in walk.flatten() {
            if entry.depth() == 0 {
                continue;
            }
            let depth = entry.depth() + offset;
            if let Some(listed) = self.listed(root, entry, depth) {
                visit(listed);
            }
        }
    }

    /// A walked entry as a listed one, if it is served (a folder not
    /// shadowed by a longer mount, a file, a symlink to a served file).
    fn listed(&self, root: &Arc<Root>, entry: DirEntry, depth: usize) -> Option<Entry> {
        let served = root.served(entry.path())?;
        if self.shadowed(root, &served) {
            return None;
        }
        let file_type = entry.file_type()?;
        if file_type.is_dir() {
            return Some(Entry { served, kind: EntryKind::Dir, size: 0, depth, path: entry.into_path() });
        }
        let kind = if file_type.is_symlink() { EntryKind::FileLink } else { EntryKind::File };
        let Located { served, path, size, .. } = self.as_file(entry, served)?;
        Some(Entry { served, kind, size, depth, path })
    }
}
