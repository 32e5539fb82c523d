//! The reads themselves: libgit2 calls turned into resource contents.

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

use git2::{DiffOptions, ErrorCode, ObjectType, Oid, Repository, Sort};
use switchboard_server::types::ResourceContents;
use switchboard_server::{HandlerError, base64_encode};

use crate::{GitOptions, PathFilter};

/// Commits examined at most when filtering the log by path.
const MAX_WALK: usize = 20_000;
/// Completion candidates computed at most.
const MAX_CANDIDATES: usize = 1_000;

/// An open repository, and which of its paths may be shown.
pub(crate) struct Repo {
    pub repo: Repository,
    pub permits: PathFilter,
}

impl Repo {
    pub fn open(git_dir: &Path, permits: PathFilter) -> Result<Self, HandlerError> {
        Repository::open(git_dir)
            .map(|repo| Repo { repo, permits })
            .map_err(|e| HandlerError::internal(format!("cannot open the repository: {}", e.message())))
    }

    /// Whether a delta's files may be shown (both sides of a rename).
    pub fn permits_delta(&self, delta: &git2::DiffDelta<'_>) -> bool {
        [delta.old_file().path(), delta.new_file().path()]
            .into_iter()
            .flatten()
            .all(|p| p.to_str().is_some_and(|p| (self.permits)(p)))
    }
}

pub(crate) fn internal(e: git2::Error) -> HandlerError {
    HandlerError::internal(format!("git: {}", e.message()))
}

/// Whether HEAD names a branch with no commit yet (a new repository).
pub(crate) fn is_unborn(repo: &Repository) -> bool {
    match repo.head() {
        Ok(_) => false,
        Err(e) => {
            matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound)
                || repo.find_reference("HEAD").is_ok_and(|h| h.symbolic_target().is_ok_and(|t| t.is_some()))
        }
    }
}

/// Resolves `rev` to a commit; unknown or not a commit → not found.
pub(crate) fn resolve<'r>(repo: &'r Repository, rev: &str) -> Result<git2::Commit<'r>, HandlerError> {
    if rev.is_empty() || rev.starts_with('-') || rev.contains(['\0', '\n']) {
        return Err(HandlerError::NotFound);
    }
    let object = match repo.revparse_single(rev) {
        Ok(o) => o,
        Err(e) if matches!(e.code(), ErrorCode::NotFound | ErrorCode::Ambiguous | ErrorCode::InvalidSpec) => {
            return Err(HandlerError::NotFound);
        }
        Err(e) if e.class() == git2::ErrorClass::Reference || e.class() == git2::ErrorClass::Object => {
            return Err(HandlerError::NotFound);
        }
        Err(e) => return Err(internal(e)),
    };
    object.peel_to_commit().map_err(|_| HandlerError::NotFound)
}

pub(crate) fn short(repo: &Repository, id: Oid) -> String {
    repo.find_object(id, None)
        .and_then(|o| o.short_id())
        .ok()
        .and_then(|b| b.as_str().ok().map(str::to_owned))
        .unwrap_or_else(|| id.to_string()[..7].to_owned())
}

pub(crate) fn date(time: git2::Time) -> String {
    let seconds = time.seconds().max(0) as u64;
    humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_secs(seconds)).to_string()
}

fn text(uri: String, mime: &str, text: String) -> Vec<ResourceContents> {
    vec![ResourceContents::text(uri, Some(mime.to_owned()), text)]
}

/// Paths must be relative, `/`-separated and stay in the tree.
pub(crate) fn checked_path(path: &str) -> Result<&str, HandlerError> {
    let path = path.trim_start_matches('/');
    if path.is_empty()
        || path.split('/').any(|s| s == ".." || s == "." || s.is_empty())
        || path.contains(['\\', '\0'])
    {
        return Err(HandlerError::invalid_params(format!(
            "{path:?} is not a path inside the repository (relative, '/'-separated, no '.' or '..')"
        )));
    }
    Ok(path)
}

/// The entry of `path` in `commit`'s tree, if present: its id and
/// whether it is a folder.
fn entry_at(commit: &git2::Commit<'_>, path: &str) -> Option<(Oid, bool)> {
    let entry = commit.tree().ok()?.get_path(Path::new(path)).ok()?;
    Some((entry.id(), entry.kind() == Some(ObjectType::Tree)))
}

impl Repo {
    /// Whether `commit` changed the (shown) file or folder `path` against
    /// its first parent. For a folder only the files the policy shows
    /// count, so the log of a folder does not reveal commits that touched
    /// only hidden files in it.
    pub fn changed(&self, commit: &git2::Commit<'_>, path: &str) -> bool {
        let here = entry_at(commit, path);
        let parent = commit.parent(0).ok();
        let before = parent.as_ref().and_then(|p| entry_at(p, path));
        if here == before {
            return false;
        }
        let folder = here.is_some_and(|(_, dir)| dir) || before.is_some_and(|(_, dir)| dir);
        if !folder {
            return true;
        }
        let mut options = DiffOptions::new();
        options.pathspec(path).disable_pathspec_match(true);
        let trees = (parent.and_then(|p| p.tree().ok()), commit.tree().ok());
        self.repo
            .diff_tree_to_tree(trees.0.as_ref(), trees.1.as_ref(), Some(&mut options))
            .is_ok_and(|diff| diff.deltas().any(|d| self.permits_delta(&d)))
    }
}

/// `git://log` and `git://log/{+path}`.
pub(crate) fn log(
    repo: &Repo,
    uri: String,
    path: Option<&str>,
    options: &GitOptions,
) -> Result<Vec<ResourceContents>, HandlerError> {
    let path = path.map(checked_path).transpose()?;
    if path.is_some_and(|p| !(repo.permits)(p)) {
        return Err(HandlerError::NotFound);
    }
    let policy = repo;
    let repo = &repo.repo;
    let mut walk = repo.revwalk().map_err(internal)?;
    walk.set_sorting(Sort::TIME).map_err(internal)?;
    if is_unborn(repo) {
        return Ok(text(uri, "text/plain", "No commits yet.\n".to_owned()));
    }
    walk.push_head().map_err(internal)?;
    let mut out = String::new();
    let mut shown = 0;
    for id in walk.take(MAX_WALK) {
        let commit = repo.find_commit(id.map_err(internal)?).map_err(internal)?;
        if path.is_some_and(|path| !policy.changed(&commit, path)) {
            continue;
        }
        let author = commit.author();
        let _ = writeln!(
            out,
            "{} {} {} {}",
            short(repo, commit.id()),
            date(commit.time()),
            author.name().unwrap_or("?"),
            commit.summary().ok().flatten().unwrap_or("")
        );
        shown += 1;
        if shown >= options.log_limit {
            break;
        }
    }
    if shown == 0
        && let Some(path) = path
    {
        out = format!("No commit among the last {MAX_WALK} changed {path}.\n");
    }
    Ok(text(uri, "text/plain", out))
}

/// `git://commit/{rev}`.
pub(crate) fn commit_info(
    repo: &Repo,
    uri: String,
    rev: &str,
) -> Result<Vec<ResourceContents>, HandlerError> {
    let c = resolve(&repo.repo, rev)?;
    let mut out = String::new();
    let _ = writeln!(out, "commit {}", c.id());
    for parent in c.parent_ids() {
        let _ = writeln!(out, "parent {parent}");
    }
    let (a, m) = (c.author(), c.committer());
    let _ =
        writeln!(out, "author {} <{}> {}", a.name().unwrap_or("?"), a.email().unwrap_or(""), date(a.when()));
    let _ = writeln!(
        out,
        "committer {} <{}> {}",
        m.name().unwrap_or("?"),
        m.email().unwrap_or(""),
        date(m.when())
    );
    let _ = writeln!(out, "\n{}", c.message().unwrap_or("").trim_end());
    let diff = diff_of(&repo.repo, &c)?;
    let _ = writeln!(out, "\nchanged files:");
    let mut hidden = 0;
    for delta in diff.deltas() {
        if !repo.permits_delta(&delta) {
            hidden += 1;
            continue;
        }
        let status = match delta.status() {
            git2::Delta::Added => 'A',
            git2::Delta::Deleted => 'D',
            git2::Delta::Renamed => 'R',
            git2::Delta::Copied => 'C',
            git2::Delta::Typechange => 'T',
            _ => 'M',
        };
        let path = delta.new_file().path().or(delta.old_file().path()).map(|p| p.display().to_string());
        let _ = writeln!(out, "{status} {}", path.unwrap_or_default());
    }
    if hidden > 0 {
        let _ = writeln!(out, "({hidden} more not served: hidden, .git or excluded paths)");
    }
    Ok(text(uri, "text/plain", out))
}

/// A commit's diff against its first parent (the empty tree for a root commit).
pub(crate) fn diff_of<'r>(
    repo: &'r Repository,
    c: &git2::Commit<'r>,
) -> Result<git2::Diff<'r>, HandlerError> {
    let tree = c.tree().map_err(internal)?;
    let parent = match c.parent(0) {
        Ok(p) => Some(p.tree().map_err(internal)?),
        Err(_) => None,
    };
    let mut options = DiffOptions::new();
    options.context_lines(3);
    let mut diff =
        repo.diff_tree_to_tree(parent.as_ref(), Some(&tree), Some(&mut options)).map_err(internal)?;
    diff.find_similar(None).map_err(internal)?;
    Ok(diff)
}

/// The two trees a revision or a range names: `A..B` (A's tree to B's),
/// `A...B` (from their merge base to B), or one commit (from its first
/// parent). An empty side is `HEAD`, as in git.
pub(crate) fn trees_of<'r>(
    repo: &'r Repository,
    spec: &str,
) -> Result<(Option<git2::Tree<'r>>, git2::Tree<'r>), HandlerError> {
    let side = |rev: &str| resolve(repo, if rev.is_empty() { "HEAD" } else { rev });
    let (from, to) = if let Some((a, b)) = spec.split_once("...") {
        let (a, b) = (side(a)?, side(b)?);
        let base = repo.merge_base(a.id(), b.id()).map_err(|_| {
            HandlerError::invalid_params(format!("{spec}: the two revisions have no common ancestor"))
        })?;
        (Some(repo.find_commit(base).map_err(internal)?), b)
    } else if let Some((a, b)) = spec.split_once("..") {
        (Some(side(a)?), side(b)?)
    } else {
        let c = resolve(repo, spec)?;
        (c.parent(0).ok(), c)
    };
    let from = from.map(|c| c.tree()).transpose().map_err(internal)?;
    Ok((from, to.tree().map_err(internal)?))
}

/// A diff of two trees with `context` lines, renames found.
pub(crate) fn tree_diff<'r>(
    repo: &'r Repository,
    from: Option<&git2::Tree<'r>>,
    to: Option<&git2::Tree<'r>>,
    options: &mut DiffOptions,
) -> Result<git2::Diff<'r>, HandlerError> {
    let mut diff = repo.diff_tree_to_tree(from, to, Some(options)).map_err(internal)?;
    diff.find_similar(None).map_err(internal)?;
    Ok(diff)
}

/// A diff rendered as a unified patch, files the policy hides left out
/// (neither their names nor their hunks appear).
pub(crate) struct Rendered {
    /// The patch text.
    pub text: String,
    /// Files shown.
    pub shown: usize,
    /// Files left out because the policy hides them.
    pub hidden: usize,
    /// Files left out because a cap was reached.
    pub cut_files: usize,
    /// Whether the byte cap cut the patch.
    pub cut_bytes: bool,
}

impl Rendered {
    /// The notices a reader needs: what was cut, what was hidden, and how
    /// to narrow (`narrow` says how for this caller).
    pub fn notices(&self, max_bytes: usize, narrow: &str) -> String {
        let mut out = String::new();
        if self.cut_bytes || self.cut_files > 0 {
            let limit =
                if self.cut_bytes { format!("{max_bytes} bytes") } else { format!("{MAX_DIFF_FILES} files") };
            let _ = write!(
                out,
                "\n[diff cut at {limit}: {} files shown, {} more not shown; {narrow}]\n",
                self.shown, self.cut_files
            );
        }
        if self.hidden > 0 {
            let _ = write!(
                out,
                "\n[{} changed files not shown: ignored, hidden, .git or excluded paths]\n",
                self.hidden
            );
        }
        out
    }
}

/// Files rendered at most in one patch.
pub(crate) const MAX_DIFF_FILES: usize = 500;

/// Renders `diff` file by file, at most `max_bytes` bytes of patch and
/// [`MAX_DIFF_FILES`] files.
pub(crate) fn render(repo: &Repo, diff: &git2::Diff<'_>, max_bytes: usize) -> Result<Rendered, HandlerError> {
    let mut out = Rendered { text: String::new(), shown: 0, hidden: 0, cut_files: 0, cut_bytes: false };
    for (index, delta) in diff.deltas().enumerate() {
        if !repo.permits_delta(&delta) {
            out.hidden += 1;
            continue;
        }
        if out.cut_bytes || out.shown >= MAX_DIFF_FILES {
            out.cut_files += 1;
            continue;
        }
        let patch = match git2::Patch::from_diff(diff, index).map_err(internal)? {
            Some(mut patch) => {
                let buf = patch.to_buf().map_err(internal)?;
                String::from_utf8_lossy(&buf).into_owned()
            }
            None => {
                let name =
                    |f: git2::DiffFile<'_>| f.path().map(|p| p.display().to_string()).unwrap_or_default();
                format!(
                    "diff --git a/{} b/{}\n(binary or unchanged)\n",
                    name(delta.old_file()),
                    name(delta.new_file())
                )
            }
        };
        let room = max_bytes.saturating_sub(out.text.len());
        if patch.len() > room {
            // Keep whole lines of this file up to the cap.
            let mut end = patch[..floor_char(&patch, room)].rfind('\n').map_or(0, |i| i + 1);
            if out.shown > 0 {
                end = 0;
            }
            if end > 0 {
                out.text.push_str(&patch[..end]);
                out.shown += 1;
            } else {
                out.cut_files += 1;
            }
            out.cut_bytes = true;
            continue;
        }
        out.text.push_str(&patch);
        out.shown += 1;
    }
    Ok(out)
}

/// The largest char boundary of `s` at or below `at`.
fn floor_char(s: &str, at: usize) -> usize {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// `git://diff/{rev}`: one commit against its first parent, or a range
/// (`A..B`, `A...B`).
pub(crate) fn diff(
    repo: &Repo,
    uri: String,
    rev: &str,
    options: &GitOptions,
) -> Result<Vec<ResourceContents>, HandlerError> {
    let (from, to) = trees_of(&repo.repo, rev)?;
    let mut diff_options = DiffOptions::new();
    diff_options.context_lines(3);
    let diff = tree_diff(&repo.repo, from.as_ref(), Some(&to), &mut diff_options)?;
    let limit = options.max_blob_bytes as usize;
    let rendered = render(repo, &diff, limit)?;
    let narrow = "the limit is git.max_blob_bytes; read a smaller range, or use git_diff with a path";
    let mut patch = rendered.text.clone();
    patch.push_str(&rendered.notices(limit, narrow));
    Ok(text(uri, "text/x-diff", patch))
}

/// `git://file/{rev}/{+path}`.
pub(crate) fn file(
    repo: &Repo,
    uri: String,
    rev: &str,
    path: &str,
    options: &GitOptions,
) -> Result<Vec<ResourceContents>, HandlerError> {
    let path = checked_path(path)?;
    if !(repo.permits)(path) {
        return Err(HandlerError::NotFound);
    }
    let repo = &repo.repo;
    let c = resolve(repo, rev)?;
    let tree = c.tree().map_err(internal)?;
    let entry = tree.get_path(Path::new(path)).map_err(|_| HandlerError::NotFound)?;
    if entry.kind() != Some(ObjectType::Blob) {
        return Err(HandlerError::invalid_params(format!(
            "{path} is a folder at {rev}; read git://log/{path} or a file inside it"
        )));
    }
    let blob = repo.find_blob(entry.id()).map_err(internal)?;
    let size = blob.size() as u64;
    if size > options.max_blob_bytes {
        return Err(HandlerError::invalid_params(format!(
            "{path} at {rev} is {size} bytes, above the {}-byte limit (git.max_blob_bytes)",
            options.max_blob_bytes
        )));
    }
    let mime = switchboard_files::mime_from_name(std::path::Path::new(path)).map(str::to_owned);
    let bytes = blob.content();
    if !blob.is_binary()
        && let Ok(s) = std::str::from_utf8(bytes)
    {
        let mime = mime.unwrap_or_else(|| "text/plain".to_owned());
        return Ok(text(uri, &mime, s.to_owned()));
    }
    let mime = mime.unwrap_or_else(|| "application/octet-stream".to_owned());
    Ok(vec![ResourceContents::blob(uri, Some(mime), base64_encode(bytes))])
}

/// Branches, tags and recent commits starting with `prefix`.
pub(crate) fn complete_rev(repo: &Repo, prefix: &str) -> Result<Vec<String>, HandlerError> {
    let repo = &repo.repo;
    let mut out = Vec::new();
    if "HEAD".starts_with(prefix) {
        out.push("HEAD".to_owned());
    }
    for branch in repo.branches(Some(git2::BranchType::Local)).map_err(internal)?.flatten() {
        if let Ok(Some(name)) = branch.0.name()
            && name.starts_with(prefix)
        {
            out.push(name.to_owned());
        }
    }
    for tag in repo.tag_names(None).map_err(internal)?.iter().flatten().flatten() {
        if tag.starts_with(prefix) {
            out.push(tag.to_owned());
        }
    }
    if let Ok(mut walk) = repo.revwalk()
        && walk.push_head().is_ok()
    {
        for id in walk.flatten().take(200) {
            let id = short(repo, id);
            if id.starts_with(prefix) {
                out.push(id);
            }
        }
    }
    out.truncate(MAX_CANDIDATES);
    Ok(out)
}

/// Paths in the tree at `rev` starting with `prefix`.
pub(crate) fn complete_path(repo: &Repo, rev: &str, prefix: &str) -> Result<Vec<String>, HandlerError> {
    let permits = &repo.permits;
    let repo = &repo.repo;
    let Ok(c) = resolve(repo, rev) else { return Ok(Vec::new()) };
    let tree = c.tree().map_err(internal)?;
    let mut out = Vec::new();
    let prefix = prefix.trim_start_matches('/');
    tree.walk(git2::TreeWalkMode::PreOrder, |dir, entry| {
        if out.len() >= MAX_CANDIDATES {
            return git2::TreeWalkResult::Abort;
        }
        let Ok(name) = entry.name() else { return git2::TreeWalkResult::Skip };
        let full = format!("{dir}{name}");
        if !permits(&full) {
            return git2::TreeWalkResult::Skip;
        }
        let is_tree = entry.kind() == Some(ObjectType::Tree);
        // Only walk into folders on the way to the prefix.
        if is_tree && !(full.starts_with(prefix) || prefix.starts_with(&format!("{full}/"))) {
            return git2::TreeWalkResult::Skip;
        }
        if !is_tree && full.starts_with(prefix) {
            out.push(full);
        }
        git2::TreeWalkResult::Ok
    })
    .map_err(internal)?;
    out.sort();
    Ok(out)
}
