//! Paths that need not exist: a file in git history, a name in a diff.
//!
//! The walker decides for files on disk, but history holds files that are
//! gone, and files committed before a `.gitignore` line hid them. A history
//! path is shown only if the served tree would serve a file at that path
//! *now*: the name rules (hidden, `.git`, `exclude`) and the ignore files in
//! force now, applied exactly as the walker applies them, on every folder
//! on the way (an ignored folder hides everything below it):
//!
//! - on each folder, `.ignore` wins over `.gitignore`, and a deeper file
//!   wins over a shallower one (a `!pattern` re-includes);
//! - `.gitignore` and `.git/info/exclude` count from the folder holding
//!   `.git` down; `.ignore` files count up to the file system root, as do
//!   `.gitignore` files when the served folder is not itself a repository;
//! - git's global excludes (`core.excludesFile`) come last;
//! - with `gitignore = false` only the name rules apply.
//!
//! Reading the ignore files on the way for every path would read the same
//! few files thousands of times for one diff or one completion, so
//! [`HistoryRules`] keeps each folder's compiled rules and reuses them
//! while the files' sizes and modification times are unchanged (one
//! `stat` per file and folder instead of a read and a parse).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::ServedTree;
use crate::path::ServedPath;

/// Folders whose rules are kept at most; past it the cache starts over.
const MAX_CACHED_DIRS: usize = 4096;

/// The ignore files of one folder, compiled.
struct DirRules {
    /// `.ignore`.
    ignore: Gitignore,
    /// `.gitignore`.
    gitignore: Gitignore,
    /// `.git/info/exclude`, when the folder holds `.git`.
    exclude: Gitignore,
    /// Whether the folder holds `.git` (a repository's top).
    has_git: bool,
    /// The size and modification time of each file read (or `None` when
    /// it is absent), to tell when the compiled rules are stale.
    stamp: Vec<Option<(u64, Option<SystemTime>)>>,
}

/// The history access policy, with each folder's compiled ignore rules
/// kept while its ignore files are unchanged. Cheap to clone (shared).
#[derive(Clone)]
pub struct HistoryRules {
    tree: ServedTree,
    global: Arc<Gitignore>,
    cache: Arc<Mutex<HashMap<PathBuf, Arc<DirRules>>>>,
}

impl std::fmt::Debug for HistoryRules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HistoryRules").field("tree", &self.tree).finish_non_exhaustive()
    }
}

impl ServedTree {
    /// Whether a path that need not exist (a file at a git revision, a
    /// name in a diff; a served path) may be shown: the name rules (no
    /// `.git`, no hidden name unless `hidden`, no `exclude` match) *and*
    /// the ignore files in force now, on every folder on the way. Reads
    /// the ignore files each call; [`ServedTree::history_rules`] keeps
    /// them between calls.
    pub fn permits_history_path(&self, path: &str) -> bool {
        self.history_rules().permits(path)
    }

    /// The history access policy with a cache of compiled ignore files.
    pub fn history_rules(&self) -> HistoryRules {
        let global = if self.inner.gitignore { Gitignore::global().0 } else { Gitignore::empty() };
        HistoryRules { tree: self.clone(), global: Arc::new(global), cache: Arc::default() }
    }
}

impl HistoryRules {
    /// [`ServedTree::permits_history_path`], with cached ignore files.
    pub fn permits(&self, path: &str) -> bool {
        let Ok(parsed) = ServedPath::parse(path) else { return false };
        if parsed.is_root() {
            return false;
        }
        let Some((root, rest)) = self.tree.root_of(parsed.segments()) else { return false };
        if rest.is_empty() || !self.tree.names_allowed(root, rest, false) {
            return false;
        }
        !self.tree.inner.gitignore || !self.ignored(&root.dir, rest)
    }

    /// Whether the file at `relative` (a `/`-separated path below the
    /// repository's work tree `workdir`, canonical) may be shown: it must
    /// fall under a root, as the served path of that root (not shadowed by
    /// a root with a longer mount), and pass [`HistoryRules::permits`].
    pub fn permits_in_workdir(&self, workdir: &Path, relative: &str) -> bool {
        self.served_in_workdir(workdir, relative).is_some_and(|served| self.permits(&served))
    }

    /// Whether a git operation may create, change or delete the work-tree
    /// file at `relative` (as in [`HistoryRules::permits_in_workdir`]): only
    /// where [`ServedTree::writable`] allows a write, so switching branches
    /// never changes the configuration, a prompt or skills folder, a
    /// dotfile or an unserved file.
    pub fn writable_in_workdir(&self, workdir: &Path, relative: &str) -> bool {
        self.served_in_workdir(workdir, relative).is_some_and(|served| self.tree.writable(&served).is_ok())
    }

    /// The served path of the work-tree file `relative`, if a root serves
    /// that place (the root that owns the served path holds the file).
    fn served_in_workdir(&self, workdir: &Path, relative: &str) -> Option<String> {
        let parsed = ServedPath::parse(relative).ok().filter(|p| !p.is_root())?;
        let mut absolute = workdir.to_path_buf();
        absolute.extend(parsed.segments());
        let served = self.tree.served_path_of(&absolute)?;
        let served_parsed = ServedPath::parse(&served).ok()?;
        let (root, rest) = self.tree.root_of(served_parsed.segments())?;
        let mut expected = root.dir.clone();
        expected.extend(rest);
        (expected == absolute).then_some(served)
    }

    /// Whether the ignore files hide `rest` below the root folder `dir`, or
    /// any folder on its way, as the walker would.
    fn ignored(&self, dir: &Path, rest: &[String]) -> bool {
        // Folders above the root, nearest first (the walker's "parents").
        let parents: Vec<Arc<DirRules>> = dir.ancestors().skip(1).map(|d| self.rules_of(d)).collect();
        let mut walked: Vec<Arc<DirRules>> = vec![self.rules_of(dir)];
        let mut path = dir.to_path_buf();
        for (i, name) in rest.iter().enumerate() {
            path.push(name);
            let is_dir = i + 1 < rest.len();
            if self.matched(&walked, &parents, &path, is_dir).is_ignore() {
                return true;
            }
            if is_dir {
                walked.push(self.rules_of(&path));
            }
        }
        false
    }

    /// The walker's verdict on `path` given the rules of the walked folders
    /// (outermost first) and of the folders above the root (nearest first).
    fn matched<'a>(
        &'a self,
        walked: &'a [Arc<DirRules>],
        parents: &'a [Arc<DirRules>],
        path: &Path,
        is_dir: bool,
    ) -> Match<()> {
        let (mut m_ignore, mut m_gitignore, mut m_exclude) = (Match::None, Match::None, Match::None);
        let mut saw_git = false;
        for (i, rules) in walked.iter().rev().chain(parents.iter()).enumerate() {
            if m_ignore.is_none() {
                m_ignore = plain(rules.ignore.matched(path, is_dir));
            }
            if !saw_git && m_gitignore.is_none() {
                m_gitignore = plain(rules.gitignore.matched(path, is_dir));
            }
            if !saw_git && m_exclude.is_none() {
                m_exclude = plain(rules.exclude.matched(path, is_dir));
            }
            // Only the walked folders end the reach of `.gitignore` files
            // (the walker does not look for `.git` above its start when a
            // repository is not required).
            saw_git = saw_git || (i < walked.len() && rules.has_git);
        }
        m_ignore.or(m_gitignore).or(m_exclude).or(plain(self.global.matched(path, is_dir)))
    }

    /// The compiled rules of `dir`, from the cache while its files are unchanged.
    fn rules_of(&self, dir: &Path) -> Arc<DirRules> {
        let files = rule_files(dir);
        let stamp: Vec<_> = files.iter().map(|f| stamp_of(f)).collect();
        let mut cache = self.cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(rules) = cache.get(dir)
            && rules.stamp == stamp
        {
            return Arc::clone(rules);
        }
        let compile = |file: &Path, root: &Path| -> Gitignore {
            if !file.is_file() {
                return Gitignore::empty();
            }
            let mut builder = GitignoreBuilder::new(root);
            // A malformed line is skipped, as the walker skips it.
            let _ = builder.add(file);
            builder.build().unwrap_or_else(|_| Gitignore::empty())
        };
        let rules = Arc::new(DirRules {
            ignore: compile(&files[0], dir),
            gitignore: compile(&files[1], dir),
            exclude: compile(&files[2], dir),
            has_git: dir.join(".git").exists(),
            stamp,
        });
        if cache.len() >= MAX_CACHED_DIRS {
            cache.clear();
        }
        cache.insert(dir.to_path_buf(), Arc::clone(&rules));
        rules
    }
}

/// The files whose rules apply in `dir`: `.ignore`, `.gitignore` and the
/// repository's `info/exclude` (`.git` may be a folder, or a file naming
/// the git directory, as in a linked work tree).
fn rule_files(dir: &Path) -> [PathBuf; 3] {
    let dot_git = dir.join(".git");
    let exclude = if dot_git.is_file() {
        linked_git_dir(&dot_git).map_or_else(PathBuf::new, |git_dir| git_dir.join("info/exclude"))
    } else {
        dot_git.join("info/exclude")
    };
    [dir.join(".ignore"), dir.join(".gitignore"), exclude]
}

/// The common git directory named by a `.git` file (`gitdir: …`): the
/// directory itself, or the one its `commondir` names.
fn linked_git_dir(dot_git: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(dot_git).ok()?;
    let named = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim();
    let git_dir = dot_git.parent()?.join(named);
    match std::fs::read_to_string(git_dir.join("commondir")) {
        Ok(common) => Some(git_dir.join(common.trim())),
        Err(_) => Some(git_dir),
    }
}

fn stamp_of(file: &Path) -> Option<(u64, Option<SystemTime>)> {
    std::fs::metadata(file).ok().map(|m| (m.len(), m.modified().ok()))
}

fn plain<T>(m: Match<T>) -> Match<()> {
    m.map(|_| ())
}
