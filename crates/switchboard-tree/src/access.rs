//! Single paths: is this served (to read, list or search), may this be
//! written? A path counts as served only if the walker of
//! [`ServedTree::walker`], pruned to the way to that path, reaches it: the
//! same rules as a full scan, applied now, at the moment of use, at the
//! cost of the folders on the way (not of the folders beside them).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use ignore::{DirEntry, WalkState};

use crate::path::ServedPath;
use crate::rules::{Root, globs};
use crate::{ServedTree, TreeError};

/// A file or a folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A regular file (possibly reached through a served symlink).
    File,
    /// A folder.
    Dir,
}

/// A served file or folder, found now.
#[derive(Debug, Clone)]
pub struct Located {
    /// Its served path (`src/main.rs`; `""` for the served folder).
    pub served: String,
    /// Where to open it: canonical, inside a root.
    pub path: PathBuf,
    /// File or folder.
    pub kind: Kind,
    /// Its size in bytes (0 for folders).
    pub size: u64,
}

/// Where a write may go, once [`WriteTarget::prepare`] made its folders.
#[derive(Debug, Clone)]
pub struct WriteTarget {
    /// The file to write (its folder is inside a root).
    pub path: PathBuf,
    /// Whether the file exists (and is served) already.
    pub exists: bool,
    /// Folders to create first, outermost first (for a folder target, the
    /// last one is the folder itself).
    pub(crate) missing_dirs: Vec<PathBuf>,
}

impl WriteTarget {
    /// Creates the missing folders, one level at a time.
    pub fn prepare(&self) -> Result<(), TreeError> {
        for dir in &self.missing_dirs {
            match std::fs::create_dir(dir) {
                Ok(()) => {}
                // Created meanwhile by someone else: fine if it is a real folder.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    if !dir.symlink_metadata().is_ok_and(|m| m.is_dir()) {
                        return Err(TreeError::WrongKind("a folder on the way exists and is not a folder"));
                    }
                }
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    }
}

const DOTNAMES: &str = "names starting with '.' are never written (dotfiles such as .env, .gitignore and \
                        .ignore; folders such as .git, .switchboard and .vscode)";
const SYMLINKS: &str = "a symlink is never written, moved or removed through the tools; use the path of \
                        the file it points to";
const PROTECTED: &str = "the server's configuration, the files it reads secrets from, its prompt and skills \
                         folders and its apps folder (views) are never written";

impl ServedTree {
    /// The served file or folder at `path` (a served path), checked now.
    pub fn locate(&self, path: &str) -> Result<Located, TreeError> {
        self.locate_parsed(&ServedPath::parse(path)?)
    }

    /// The served file at `path`, no larger than `max_file_size`.
    pub fn readable(&self, path: &str) -> Result<Located, TreeError> {
        let located = self.locate(path)?;
        if located.kind != Kind::File {
            return Err(TreeError::WrongKind("it is a folder, not a file"));
        }
        let max = self.inner.max_file_size;
        if located.size > max {
            return Err(TreeError::TooLarge { size: located.size, max });
        }
        Ok(located)
    }

    /// Where a write of `path` may go: an existing served file, or a new
    /// file whose deepest existing folder is served; never a name starting
    /// with `.`, an excluded path or a protected one.
    pub fn writable(&self, path: &str) -> Result<WriteTarget, TreeError> {
        self.write_target(path, Kind::File)
    }

    /// What [`ServedTree::writable`] decides, for a file or (`Kind::Dir`,
    /// see [`ServedTree::writable_dir`]) a folder: the same name, exclude,
    /// served-folder and protection rules for both.
    pub(crate) fn write_target(&self, path: &str, kind: Kind) -> Result<WriteTarget, TreeError> {
        let parsed = ServedPath::parse(path)?;
        if parsed.is_root() {
            return Err(TreeError::WrongKind("the served folder itself is never written, moved or removed"));
        }
        if parsed.segments().iter().any(|s| s.starts_with('.')) {
            return Err(TreeError::Protected(DOTNAMES));
        }
        let (root, rest) = self.root_of(parsed.segments()).ok_or(TreeError::NotServed)?;
        if rest.is_empty() {
            return Err(TreeError::WrongKind("a mounted root folder is never written, moved or removed"));
        }
        if self.never_served(root, &rest.iter().collect::<PathBuf>()) {
            return Err(TreeError::Protected(PROTECTED));
        }
        if !self.names_allowed(root, rest, kind == Kind::Dir) {
            return Err(TreeError::Protected("the path is excluded from the served files ([files] exclude)"));
        }
        let existing = existing_prefix(&root.dir, rest);
        let target = if existing == rest.len() {
            // The rules above judged the path given; through a symlink the
            // write would land on a file they never saw (a dotfile with
            // `hidden = true`, a file the link was moved to point at).
            // (Judged once the link is known to be served, so a refusal
            // does not tell an unserved link from a missing file.)
            let located = self.locate_parsed(&parsed)?;
            let given = rest.iter().fold(root.dir.clone(), |path, name| path.join(name));
            if given.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink()) {
                return Err(TreeError::Protected(SYMLINKS));
            }
            if located.kind != kind {
                return Err(TreeError::WrongKind(match kind {
                    Kind::File => "it is a folder, not a file",
                    Kind::Dir => "it is a file, not a folder",
                }));
            }
            WriteTarget { path: located.path, exists: true, missing_dirs: Vec::new() }
        } else {
            let folder = self.located_in(root, &rest[..existing])?;
            if folder.kind != Kind::Dir {
                return Err(TreeError::WrongKind("a folder on the way is a file"));
            }
            let mut path = folder.path;
            let mut missing_dirs = Vec::new();
            for (i, name) in rest[existing..].iter().enumerate() {
                path.push(name);
                if existing + i + 1 < rest.len() || kind == Kind::Dir {
                    missing_dirs.push(path.clone());
                }
            }
            WriteTarget { path, exists: false, missing_dirs }
        };
        if self.inner.protected.iter().any(|p| target.path.starts_with(p)) || self.is_view_file(&target.path)
        {
            return Err(TreeError::Protected(PROTECTED));
        }
        Ok(target)
    }

    /// Whether `dir` holds (or is) a protected path: a tool that may change
    /// what it is given is not handed such a folder.
    pub fn contains_protected(&self, dir: &Path) -> bool {
        self.inner.protected.iter().any(|p| p.starts_with(dir) || dir.starts_with(p))
            || self.inner.view_dirs.iter().any(|views| views.starts_with(dir))
    }

    /// Whether `path` is a view file of an apps folder (see
    /// [`ServedTree::protecting_views`]).
    fn is_view_file(&self, path: &Path) -> bool {
        let name = path.file_name().and_then(|n| n.to_str());
        name.is_some_and(crate::is_view_file_name)
            && path.parent().is_some_and(|parent| self.inner.view_dirs.iter().any(|d| d == parent))
    }

    /// Whether a path that need not exist (a file at a git revision) passes
    /// the name rules: no `.git`, no hidden name unless `hidden`, no
    /// never-served path, no `exclude` match. The ignore files are not consulted.
    pub fn permits_name(&self, path: &str) -> bool {
        let Ok(parsed) = ServedPath::parse(path) else { return false };
        self.root_of(parsed.segments()).is_some_and(|(root, rest)| self.names_allowed(root, rest, false))
    }

    /// Calls `visit` with every served file under `start` (a served path;
    /// `""` for everything) that `glob` (gitignore syntax, matched against
    /// the served path) selects and that is not above `max_file_size`,
    /// until `visit` returns false. The glob only narrows.
    pub fn walk_files(
        &self,
        start: &str,
        glob: Option<&str>,
        mut visit: impl FnMut(Located) -> bool,
    ) -> Result<(), TreeError> {
        let parsed = ServedPath::parse(start)?;
        let narrow = glob.map(|g| globs(Path::new("/"), std::iter::once((g, g.to_owned())))).transpose()?;
        let selected = |served: &str| narrow.as_ref().is_none_or(|o| o.matched(served, false).is_whitelist());
        let max = self.inner.max_file_size;
        let starts: Vec<(&Arc<Root>, PathBuf)> = if parsed.is_root() {
            self.roots().iter().map(|r| (r, r.dir.clone())).collect()
        } else {
            let located = self.locate_parsed(&parsed)?;
            if located.kind == Kind::File {
                if located.size <= max && selected(&located.served) {
                    visit(located);
                }
                return Ok(());
            }
            let (root, _) = self.root_of(parsed.segments()).ok_or(TreeError::NotServed)?;
            vec![(root, located.path)]
        };
        for (root, dir) in starts {
            for entry in self.walker(root, &dir, |_| true).flatten() {
                let Some(served) = root.served(entry.path()) else { continue };
                if self.shadowed(root, &served) || !selected(&served) {
                    continue;
                }
                let Some(located) = self.as_file(entry, served) else { continue };
                if located.size <= max && !visit(located) {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    pub(crate) fn locate_parsed(&self, parsed: &ServedPath) -> Result<Located, TreeError> {
        let (root, rest) = self.root_of(parsed.segments()).ok_or(TreeError::NotServed)?;
        self.located_in(root, rest)
    }

    /// The served entry `rest` below `root`.
    pub(crate) fn located_in(&self, root: &Arc<Root>, rest: &[String]) -> Result<Located, TreeError> {
        let mut target = root.dir.clone();
        target.extend(rest);
        let served = root.served(&target).ok_or(TreeError::NotServed)?;
        if rest.is_empty() {
            return Ok(Located { served, path: target, kind: Kind::Dir, size: 0 });
        }
        if self.shadowed(root, &served) {
            return Err(TreeError::NotServed);
        }
        let entry = self.reach(root, &target).ok_or(TreeError::NotServed)?;
        if entry.file_type().is_some_and(|t| t.is_dir()) {
            return Ok(Located { served, path: target, kind: Kind::Dir, size: 0 });
        }
        self.as_file(entry, served).ok_or(TreeError::NotServed)
    }

    /// The walker's entry for `target` (inside `root`), if the rules let
    /// the walk reach it.
    ///
    /// The same walker and rules as a scan, in the walker's parallel form
    /// on one thread, pruned to the folders on the way and stopped at the
    /// target's depth. The parallel form decides an entry before it opens
    /// it; the sequential one opens every folder it meets and reads its
    /// ignore files even when the filter then prunes it, so one path at
    /// the top of a monorepo read and compiled the `.gitignore` of every
    /// package beside it (a saved file cost CPU in proportion to the
    /// folder). Here a path costs the listings of the folders on its way.
    pub(crate) fn reach(&self, root: &Arc<Root>, target: &Path) -> Option<DirEntry> {
        let depth = target.strip_prefix(&root.dir).ok()?.components().count();
        let goal = target.to_path_buf();
        let found = Mutex::new(None);
        self.walk_builder(root, &root.dir, move |e| goal.starts_with(e.path()))
            .max_depth(Some(depth))
            .threads(1)
            .build_parallel()
            .run(|| {
                Box::new(|entry| match entry {
                    Ok(entry) if entry.path() == target => {
                        *found.lock().unwrap_or_else(PoisonError::into_inner) = Some(entry);
                        WalkState::Quit
                    }
                    _ => WalkState::Continue,
                })
            });
        found.into_inner().unwrap_or_else(PoisonError::into_inner)
    }

    /// A walked entry as a served file: a regular file, or a symlink whose
    /// target is itself a served regular file (followed to it).
    pub(crate) fn as_file(&self, entry: DirEntry, served: String) -> Option<Located> {
        let file_type = entry.file_type()?;
        let path = if file_type.is_file() {
            entry.into_path()
        } else if file_type.is_symlink() {
            self.link_target(entry.path())?
        } else {
            return None;
        };
        let metadata = std::fs::metadata(&path).ok().filter(|m| m.is_file())?;
        Some(Located { served, path, kind: Kind::File, size: metadata.len() })
    }

    /// Where a symlink leads, if that is a served regular file (not a
    /// folder: the walk never enters linked folders).
    pub(crate) fn link_target(&self, link: &Path) -> Option<PathBuf> {
        let target = link.canonicalize().ok()?;
        self.roots()
            .iter()
            .rev()
            .filter(|r| target.starts_with(&r.dir))
            .find_map(|r| self.reach(r, &target).filter(|e| e.file_type().is_some_and(|t| t.is_file())))
            .map(DirEntry::into_path)
    }
}

/// How many of `rest`'s leading names exist below `dir` (not following a
/// final symlink; `locate` judges those).
fn existing_prefix(dir: &Path, rest: &[String]) -> usize {
    let mut path = dir.to_path_buf();
    for (i, name) in rest.iter().enumerate() {
        path.push(name);
        if path.symlink_metadata().is_err() {
            return i;
        }
    }
    rest.len()
}
