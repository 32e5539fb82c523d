//! The rules themselves: the roots, the name rules (hidden names, `.git`,
//! `exclude` globs) and the one walker configuration that adds the ignore
//! files. Every scan and every single-path check builds its walker here.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use ignore::overrides::{Override, OverrideBuilder};
use ignore::{DirEntry, Walk, WalkBuilder};

use crate::{FilesOptions, ServedTree, TreeError};

/// One configured root, resolved.
#[derive(Debug)]
pub(crate) struct Root {
    /// The canonical folder.
    pub dir: PathBuf,
    /// The served-path prefix (`""` or `a/b`).
    pub mount: String,
    excludes: Override,
}

impl Root {
    /// Resolves every root of `options` (default: `base` at `""`), shortest
    /// mount first.
    pub fn resolve_all(base: &Path, options: &FilesOptions) -> Result<Vec<Arc<Root>>, TreeError> {
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
                return Err(TreeError::Mount { mount, reason: "must be plain path segments" });
            }
            if !mounts.insert(mount.clone()) {
                return Err(TreeError::Mount { mount, reason: "two roots share this mount" });
            }
            let dir = base
                .join(&spec.path)
                .canonicalize()
                .and_then(|d| if d.is_dir() { Ok(d) } else { Err(std::io::Error::other("not a directory")) })
                .map_err(|source| TreeError::Root { path: spec.path.clone(), source })?;
            let excludes = globs(&dir, options.exclude.iter().map(|p| (p.as_str(), format!("!{p}"))))?;
            roots.push(Arc::new(Root { dir, mount, excludes }));
        }
        roots.sort_by_key(|r| r.mount.len());
        Ok(roots)
    }

    /// The served path of a file under this root (`mount/relative`).
    pub fn served(&self, path: &Path) -> Option<String> {
        let relative = path.strip_prefix(&self.dir).ok()?;
        let mut out = self.mount.clone();
        for part in relative.components() {
            let Component::Normal(part) = part else { return None };
            if !out.is_empty() {
                out.push('/');
            }
            out.push_str(part.to_str()?);
        }
        Some(out)
    }

    /// The path below this root of a served path, if it falls under the
    /// mount (`docs/a.md` under mount `docs` → `a.md`).
    pub fn strip_mount<'a>(&self, segments: &'a [String]) -> Option<&'a [String]> {
        if self.mount.is_empty() {
            return Some(segments);
        }
        let mount: Vec<&str> = self.mount.split('/').collect();
        let prefix = segments.get(..mount.len())?;
        prefix.iter().zip(&mount).all(|(a, b)| a == b).then(|| &segments[mount.len()..])
    }
}

/// An `Override` of `patterns` (each given as (shown, glob)) rooted at `dir`.
pub(crate) fn globs<'a>(
    dir: &Path,
    patterns: impl Iterator<Item = (&'a str, String)>,
) -> Result<Override, TreeError> {
    let mut builder = OverrideBuilder::new(dir);
    let mut shown = Vec::new();
    for (pattern, glob) in patterns {
        builder
            .add(&glob)
            .map_err(|e| TreeError::Glob { pattern: pattern.to_owned(), reason: e.to_string() })?;
        shown.push(pattern);
    }
    builder.build().map_err(|e| TreeError::Glob { pattern: shown.join(", "), reason: e.to_string() })
}

impl ServedTree {
    /// The roots, shortest mount first.
    pub(crate) fn roots(&self) -> &[Arc<Root>] {
        &self.inner.roots
    }

    /// The root a served path falls under (the longest mount that is a
    /// prefix of it) and the path below that root.
    pub(crate) fn root_of<'a>(&self, segments: &'a [String]) -> Option<(&Arc<Root>, &'a [String])> {
        self.inner.roots.iter().rev().find_map(|r| r.strip_mount(segments).map(|rest| (r, rest)))
    }

    /// Whether the entry `path` of `root` is shadowed by a root with a
    /// longer mount (its served path belongs to that one).
    pub(crate) fn shadowed(&self, root: &Root, served: &str) -> bool {
        let segments: Vec<String> = served.split('/').map(str::to_owned).collect();
        self.root_of(&segments).is_some_and(|(owner, _)| !std::ptr::eq(owner.as_ref(), root))
    }

    /// The name rules for one entry below `root`: never `.git`; a name
    /// starting with `.` only with `hidden`; never a never-served path;
    /// nothing an `exclude` glob matches. `relative` is the entry's path below the root.
    pub(crate) fn name_allowed(&self, root: &Root, relative: &Path, is_dir: bool) -> bool {
        let Some(name) = relative.file_name().and_then(|n| n.to_str()) else {
            // The root itself has no name to judge; names that are not
            // UTF-8 cannot be served paths.
            return relative.as_os_str().is_empty();
        };
        if name == ".git" || (name.starts_with('.') && !self.inner.hidden) {
            return false;
        }
        !self.never_served(root, relative) && !root.excludes.matched(relative, is_dir).is_ignore()
    }

    /// Whether the entry `relative` below `root` is (or is inside) one of
    /// the paths that are never served ([`ServedTree::never_serving`]).
    /// `root.dir` is canonical and the walk enters no linked folder, so the
    /// joined path compares as is; a symlink to such a file is judged at
    /// its target ([`ServedTree::link_target`]).
    pub(crate) fn never_served(&self, root: &Root, relative: &Path) -> bool {
        let never = &self.inner.never_served;
        !never.is_empty() && {
            let path = root.dir.join(relative);
            never.iter().any(|p| path.starts_with(p))
        }
    }

    /// Whether every name on `relative`'s way below `root` passes the name
    /// rules (for paths that need not exist, such as a file in git history).
    /// `last_is_dir` says whether the last name is a folder.
    pub(crate) fn names_allowed(&self, root: &Root, relative: &[String], last_is_dir: bool) -> bool {
        let mut path = PathBuf::new();
        relative.iter().enumerate().all(|(i, name)| {
            path.push(name);
            self.name_allowed(root, &path, last_is_dir || i + 1 < relative.len())
        })
    }

    /// The walker every decision uses: ripgrep's ignore rules plus the name
    /// rules, symlinks not followed, starting at `start` (inside `root`);
    /// `keep` prunes it further (e.g. to the way to one path). `keep` sees
    /// an entry the rules let through, before a folder's entries or its
    /// ignore files are read (a scan watches each folder there).
    pub(crate) fn walker(
        &self,
        root: &Arc<Root>,
        start: &Path,
        keep: impl Fn(&DirEntry) -> bool + Send + Sync + 'static,
    ) -> Walk {
        self.walk_builder(root, start, keep).build()
    }

    /// The same walker, not yet built, for callers that bound its depth or
    /// sort it (listings); the rules it applies are not changed by either.
    pub(crate) fn walk_builder(
        &self,
        root: &Arc<Root>,
        start: &Path,
        keep: impl Fn(&DirEntry) -> bool + Send + Sync + 'static,
    ) -> WalkBuilder {
        let gitignore = self.inner.gitignore;
        let tree = self.clone();
        let rules_root = Arc::clone(root);
        let mut builder = WalkBuilder::new(start);
        builder
            .hidden(false)
            .git_ignore(gitignore)
            .git_global(gitignore)
            .git_exclude(gitignore)
            .ignore(gitignore)
            .parents(gitignore)
            // .gitignore applies even when the folder is not (yet) a repository.
            .require_git(false)
            .follow_links(false)
            .filter_entry(move |entry: &DirEntry| {
                let Ok(relative) = entry.path().strip_prefix(&rules_root.dir) else { return false };
                let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
                tree.name_allowed(&rules_root, relative, is_dir) && keep(entry)
            });
        builder
    }
}
