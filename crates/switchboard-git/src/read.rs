//! The reads themselves: libgit2 calls turned into resource contents.

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

use git2::{DiffFormat, DiffOptions, ErrorCode, ObjectType, Oid, Repository, Sort};
use switchboard_server::types::ResourceContents;
use switchboard_server::{HandlerError, base64_encode};

use crate::{GitOptions, PathFilter};

/// Commits examined at most when filtering the log by path.
const MAX_WALK: usize = 20_000;
/// Completion candidates computed at most.
const MAX_CANDIDATES: usize = 1_000;

/// An open repository, and which of its paths may be shown.
pub(crate) struct Repo {
    repo: Repository,
    permits: PathFilter,
}

impl Repo {
    pub fn open(git_dir: &Path, permits: PathFilter) -> Result<Self, HandlerError> {
        Repository::open(git_dir)
            .map(|repo| Repo { repo, permits })
            .map_err(|e| HandlerError::internal(format!("cannot open the repository: {}", e.message())))
    }

    /// Whether a delta's files may be shown (both sides of a rename).
    fn permits_delta(&self, delta: &git2::DiffDelta<'_>) -> bool {
        [delta.old_file().path(), delta.new_file().path()]
            .into_iter()
            .flatten()
            .all(|p| p.to_str().is_some_and(|p| (self.permits)(p)))
    }
}

fn internal(e: git2::Error) -> HandlerError {
    HandlerError::internal(format!("git: {}", e.message()))
}

/// Resolves `rev` to a commit; unknown or not a commit → not found.
fn resolve<'r>(repo: &'r Repository, rev: &str) -> Result<git2::Commit<'r>, HandlerError> {
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

fn short(repo: &Repository, id: Oid) -> String {
    repo.find_object(id, None)
        .and_then(|o| o.short_id())
        .ok()
        .and_then(|b| b.as_str().ok().map(str::to_owned))
        .unwrap_or_else(|| id.to_string()[..7].to_owned())
}

fn date(time: git2::Time) -> String {
    let seconds = time.seconds().max(0) as u64;
    humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_secs(seconds)).to_string()
}

fn text(uri: String, mime: &str, text: String) -> Vec<ResourceContents> {
    vec![ResourceContents::text(uri, Some(mime.to_owned()), text)]
}

/// Paths must be relative, `/`-separated and stay in the tree.
fn checked_path(path: &str) -> Result<&str, HandlerError> {
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

/// The entry id of `path` in `commit`'s tree, if present.
fn entry_at(commit: &git2::Commit<'_>, path: &str) -> Option<Oid> {
    commit.tree().ok()?.get_path(Path::new(path)).ok().map(|e| e.id())
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
    let repo = &repo.repo;
    let mut walk = repo.revwalk().map_err(internal)?;
    walk.set_sorting(Sort::TIME).map_err(internal)?;
    match walk.push_head() {
        Ok(()) => {}
        Err(e) if matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => {
            return Ok(text(uri, "text/plain", "No commits yet.\n".to_owned()));
        }
        Err(e) => return Err(internal(e)),
    }
    let mut out = String::new();
    let mut shown = 0;
    for id in walk.take(MAX_WALK) {
        let commit = repo.find_commit(id.map_err(internal)?).map_err(internal)?;
        if let Some(path) = path {
            let here = entry_at(&commit, path);
            let before = commit.parent(0).ok().and_then(|p| entry_at(&p, path));
            if here == before {
                continue;
            }
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

fn diff_of<'r>(repo: &'r Repository, c: &git2::Commit<'r>) -> Result<git2::Diff<'r>, HandlerError> {
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

/// `git://diff/{rev}`.
pub(crate) fn diff(
    repo: &Repo,
    uri: String,
    rev: &str,
    options: &GitOptions,
) -> Result<Vec<ResourceContents>, HandlerError> {
    let c = resolve(&repo.repo, rev)?;
    let diff = diff_of(&repo.repo, &c)?;
    let limit = options.max_blob_bytes as usize;
    let mut out = Vec::new();
    let mut truncated = false;
    let hidden = diff.deltas().filter(|d| !repo.permits_delta(d)).count();
    diff.print(DiffFormat::Patch, |delta, _hunk, line| {
        if !repo.permits_delta(&delta) {
            return true;
        }
        if out.len() >= limit {
            truncated = true;
            return false;
        }
        if matches!(line.origin(), '+' | '-' | ' ') {
            out.push(line.origin() as u8);
        }
        out.extend_from_slice(line.content());
        true
    })
    .or_else(|e| if truncated { Ok(()) } else { Err(internal(e)) })?;
    let mut patch = String::from_utf8_lossy(&out).into_owned();
    if truncated {
        let _ = write!(patch, "\n[diff cut at {limit} bytes (git.max_blob_bytes)]\n");
    }
    if hidden > 0 {
        let _ = write!(patch, "\n[{hidden} changed files not shown: hidden, .git or excluded paths]\n");
    }
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
