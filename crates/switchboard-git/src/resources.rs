//! The resources and templates, with their read handlers and completers.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use switchboard_server::types::ResourceContents;
use switchboard_server::{
    CompletionRequest, HandlerError, ReadRequest, RequestContext, Resource, ResourceTemplate, completer_fn,
};

use crate::read::{self, Repo};
use crate::{GitError, GitOptions, PathFilter};

/// A repository whose history is served. Cheap to clone.
#[derive(Debug, Clone)]
pub struct GitResources {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) git_dir: PathBuf,
    pub(crate) workdir: PathBuf,
    pub(crate) options: GitOptions,
    pub(crate) permits: PathFilter,
    /// Which work-tree paths the write tools may change.
    pub(crate) writes: PathFilter,
}

impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inner")
            .field("git_dir", &self.git_dir)
            .field("workdir", &self.workdir)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl GitResources {
    /// The repository whose work tree contains `dir`; `None` when `dir` is
    /// not inside one.
    pub fn discover(dir: &Path, options: GitOptions) -> Result<Option<Self>, GitError> {
        let repo = match git2::Repository::discover(dir) {
            Ok(repo) => repo,
            Err(e) if e.code() == git2::ErrorCode::NotFound => return Ok(None),
            Err(e) => return Err(GitError::open(dir, &e)),
        };
        let workdir = repo.workdir().ok_or_else(|| GitError::Bare(repo.path().to_path_buf()))?.to_path_buf();
        let git_dir = repo.path().to_path_buf();
        let permits: PathFilter = Arc::new(|_: &str| true);
        let writes: PathFilter = Arc::new(|_: &str| false);
        Ok(Some(Self { inner: Arc::new(Inner { git_dir, workdir, options, permits, writes }) }))
    }

    /// Shows only the paths `permits` allows (a served tree's name rules):
    /// files at a revision, logs of a path, diffs and changed-file lists,
    /// path completion. Without it every path of the history is shown.
    pub fn restrict_paths(self, permits: impl Fn(&str) -> bool + Send + Sync + 'static) -> Self {
        let inner = Inner {
            git_dir: self.inner.git_dir.clone(),
            workdir: self.inner.workdir.clone(),
            options: self.inner.options.clone(),
            permits: Arc::new(permits),
            writes: Arc::clone(&self.inner.writes),
        };
        Self { inner: Arc::new(inner) }
    }

    /// Lets the write tools change only the work-tree paths `writes`
    /// allows (a served tree's write policy): `git_checkout` refuses a
    /// switch that would change any other file. Without it they change
    /// nothing in the work tree.
    pub fn restrict_writes(self, writes: impl Fn(&str) -> bool + Send + Sync + 'static) -> Self {
        let inner = Inner {
            git_dir: self.inner.git_dir.clone(),
            workdir: self.inner.workdir.clone(),
            options: self.inner.options.clone(),
            permits: Arc::clone(&self.inner.permits),
            writes: Arc::new(writes),
        };
        Self { inner: Arc::new(inner) }
    }

    /// The repository's work tree.
    pub fn workdir(&self) -> &Path {
        &self.inner.workdir
    }

    /// The repository's git directory (usually `.git`); a change in it may
    /// change HEAD, so watch it and announce [`GitResources::changed_uris`].
    pub fn git_dir(&self) -> &Path {
        &self.inner.git_dir
    }

    /// The resources whose contents follow HEAD and the refs.
    pub fn changed_uris(&self) -> Vec<String> {
        vec!["git://log".to_owned()]
    }

    /// The fixed resources: `git://log`.
    pub fn resources(&self) -> Vec<Resource> {
        let this = self.clone();
        vec![
            Resource::new("git://log", "git-log")
                .title("Git log")
                .description(format!("The last {} commits of HEAD, newest first.", self.inner.options.log_limit))
                .mime_type("text/plain")
                .handler(move |request: ReadRequest, _ctx: RequestContext| {
                    let this = this.clone();
                    async move { this.blocking(request.uri, |repo, uri, o| read::log(repo, uri, None, o)).await }
                }),
        ]
    }

    /// The parameterised resources, with completion of `rev` and `path`.
    pub fn templates(&self) -> Vec<ResourceTemplate> {
        let template = |uri: &str, name: &str, title: &str, description: &str, mime: Option<&str>| {
            let t = ResourceTemplate::new(uri, name)
                .expect("valid templates; qed")
                .title(title)
                .description(description);
            match mime {
                Some(m) => t.mime_type(m),
                None => t,
            }
        };
        let log = {
            let this = self.clone();
            template(
                "git://log/{+path}",
                "git-log-path",
                "Git log of a path",
                "The last commits that changed a file or folder.",
                Some("text/plain"),
            )
            .handler(move |request: ReadRequest, _ctx: RequestContext| {
                let this = this.clone();
                let path = request.var("path").unwrap_or_default().to_owned();
                async move {
                    this.blocking(request.uri, move |repo, uri, o| read::log(repo, uri, Some(&path), o)).await
                }
            })
            .complete("path", self.path_completer())
        };
        let commit = {
            let this = self.clone();
            template(
                "git://commit/{rev}",
                "git-commit",
                "Git commit",
                "A commit: id, parents, author, dates, message and changed files.",
                Some("text/plain"),
            )
            .handler(move |request: ReadRequest, _ctx: RequestContext| {
                let this = this.clone();
                let rev = request.var("rev").unwrap_or_default().to_owned();
                async move {
                    this.blocking(request.uri, move |repo, uri, _| read::commit_info(repo, uri, &rev)).await
                }
            })
            .complete("rev", self.rev_completer())
        };
        let diff = {
            let this = self.clone();
            template(
                "git://diff/{rev}",
                "git-diff",
                "Git diff",
                "A commit's unified diff against its first parent; or a range: A..B (A to B), A...B (merge base to B).",
                Some("text/x-diff"),
            )
            .handler(move |request: ReadRequest, _ctx: RequestContext| {
                let this = this.clone();
                let rev = request.var("rev").unwrap_or_default().to_owned();
                async move { this.blocking(request.uri, move |repo, uri, o| read::diff(repo, uri, &rev, o)).await }
            })
            .complete("rev", self.rev_completer())
        };
        let file = {
            let this = self.clone();
            template(
                "git://file/{rev}/{+path}",
                "git-file",
                "File at a revision",
                "A file's contents as they were at a revision.",
                None,
            )
            .handler(move |request: ReadRequest, _ctx: RequestContext| {
                let this = this.clone();
                let rev = request.var("rev").unwrap_or_default().to_owned();
                let path = request.var("path").unwrap_or_default().to_owned();
                async move {
                    this.blocking(request.uri, move |repo, uri, o| read::file(repo, uri, &rev, &path, o))
                        .await
                }
            })
            .complete("rev", self.rev_completer())
            .complete("path", self.path_completer())
        };
        vec![log, commit, diff, file]
    }

    fn rev_completer(&self) -> Arc<dyn switchboard_server::Completer> {
        let this = self.clone();
        completer_fn(move |request: CompletionRequest, _ctx: RequestContext| {
            let this = this.clone();
            async move {
                let (git_dir, permits) = (this.inner.git_dir.clone(), Arc::clone(&this.inner.permits));
                tokio::task::spawn_blocking(move || {
                    read::complete_rev(&Repo::open(&git_dir, permits)?, &request.value)
                })
                .await
                .map_err(|e| HandlerError::internal(e.to_string()))?
            }
        })
    }

    fn path_completer(&self) -> Arc<dyn switchboard_server::Completer> {
        let this = self.clone();
        completer_fn(move |request: CompletionRequest, _ctx: RequestContext| {
            let this = this.clone();
            async move {
                let (git_dir, permits) = (this.inner.git_dir.clone(), Arc::clone(&this.inner.permits));
                let rev = request.context.get("rev").cloned().unwrap_or_else(|| "HEAD".to_owned());
                tokio::task::spawn_blocking(move || {
                    read::complete_path(&Repo::open(&git_dir, permits)?, &rev, &request.value)
                })
                .await
                .map_err(|e| HandlerError::internal(e.to_string()))?
            }
        })
    }

    /// Runs a read on the blocking pool with a freshly opened repository
    /// (`git2::Repository` is not `Sync`; opening one takes microseconds).
    async fn blocking<F>(&self, uri: String, read: F) -> Result<Vec<ResourceContents>, HandlerError>
    where
        F: FnOnce(&Repo, String, &GitOptions) -> Result<Vec<ResourceContents>, HandlerError> + Send + 'static,
    {
        let inner = Arc::clone(&self.inner);
        tokio::task::spawn_blocking(move || {
            read(&Repo::open(&inner.git_dir, Arc::clone(&inner.permits))?, uri, &inner.options)
        })
        .await
        .map_err(|e| HandlerError::internal(format!("reading the repository failed: {e}")))?
    }
}
