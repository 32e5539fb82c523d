//! The served files as resources: the index, reading, the `file:///{+path}`
//! template with path completion, and announcing changes on a live server
//! (the listing itself is `source.rs`).

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use switchboard_server::types::ResourceContents;
use switchboard_server::types::content::Annotations;
use switchboard_server::{
    CompletionRequest, HandlerError, ListKind, ReadRequest, RequestContext, Resource, ResourceTemplate,
    Server, base64_encode, completer_fn,
};

use switchboard_tree::{ServedTree, TreeError};

use crate::index::{self, Change, Entry};
use crate::watch::{FolderWatch, WatchBatch};
use crate::{FilesError, FilesOptions, mime};

/// Completion candidates computed at most (the server sends the first 100).
const MAX_CANDIDATES: usize = 10_000;

/// How far a file's modification time may lag the clock it is compared
/// with: Linux stamps files from a coarse clock (one tick, 1–10 ms, behind
/// the fine one), so a save made just after a scan began can carry a time
/// a little before it. (File systems with coarser times, such as FAT's two
/// seconds, are not covered.)
const FILE_TIME_LAG: Duration = Duration::from_millis(50);

/// The files of one or more roots, served as `file://` resources.
#[derive(Clone)]
pub struct FileResources {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    tree: ServedTree,
    index: Mutex<BTreeMap<String, Entry>>,
    /// The folders the last scan entered.
    dirs: Mutex<BTreeSet<PathBuf>>,
    /// Bumped whenever `dirs` may have changed (a folder scanned again),
    /// so a watcher re-reads them only then ([`FileResources::watch_dirs_version`]).
    dirs_version: AtomicU64,
    /// Unique to this index (a reload makes another), for the same.
    id: u64,
    /// Bumped by every change to the index (a page walk's resume point
    /// is only good for the version it was taken at).
    pub(crate) version: AtomicU64,
    /// Where the last page ended: (position, last served path, version).
    pub(crate) resume: Mutex<Option<(usize, String, u64)>>,
    /// Whether the first full scan is done (lists wait for it).
    indexed: (Mutex<bool>, Condvar),
    /// Whether a list gave up waiting for the first index
    /// ([`crate::source::FIRST_INDEX_WAIT`]) and answered with part of the
    /// folder; set while holding `indexed`'s lock. Only then is the first
    /// index announced (`list_changed`): every other list waited for it.
    listed_short: AtomicBool,
    /// When these files were set up to be served (before any client could
    /// ask for one): a file modified since then while the first index was
    /// built is announced when it is done.
    created: SystemTime,
}

/// The next index's id (see [`WatchDirsVersion`]).
static NEXT_INDEX_ID: AtomicU64 = AtomicU64::new(0);

/// See [`FileResources::watch_dirs_version`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WatchDirsVersion {
    /// Which index (a reload makes another).
    files: u64,
    version: u64,
}

impl std::fmt::Debug for FileResources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileResources").field("files", &self.len()).finish_non_exhaustive()
    }
}

impl FileResources {
    /// Builds the tree of `options` (relative paths resolve against
    /// `base`) and scans it before returning.
    pub fn new(base: &Path, options: &FilesOptions) -> Result<Self, FilesError> {
        let files = Self::unscanned(ServedTree::new(base, options)?);
        files.rescan(&WatchBatch::default());
        Ok(files)
    }

    /// The files of `tree`, listed empty until [`FileResources::rescan`] or
    /// [`FileResources::sync`] (a server can answer `initialize` while a
    /// big tree is scanned, then announce the files).
    pub fn unscanned(tree: ServedTree) -> Self {
        Self {
            inner: Arc::new(Inner {
                tree,
                index: Mutex::new(BTreeMap::new()),
                dirs: Mutex::new(BTreeSet::new()),
                dirs_version: AtomicU64::new(0),
                id: NEXT_INDEX_ID.fetch_add(1, Ordering::Relaxed),
                version: AtomicU64::new(0),
                resume: Mutex::new(None),
                indexed: (Mutex::new(false), Condvar::new()),
                listed_short: AtomicBool::new(false),
                created: SystemTime::now(),
            }),
        }
    }

    /// The access policy the files follow.
    pub fn tree(&self) -> &ServedTree {
        &self.inner.tree
    }

    /// How many files are served.
    pub fn len(&self) -> usize {
        self.index().len()
    }

    /// Whether no file is served.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The canonical root folders.
    pub fn dirs(&self) -> Vec<PathBuf> {
        self.inner.tree.dirs()
    }

    /// The folders to watch, each on its own (not recursively): every
    /// folder the last scan entered. Ignored folders (`target/`,
    /// `node_modules/`) are left out, so a big build tree costs no watches
    /// and no events. Watch new ones after each [`FileResources::sync`].
    pub fn watch_dirs(&self) -> BTreeSet<PathBuf> {
        self.inner.dirs.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Whether `dir` is one of [`watch_dirs`](Self::watch_dirs) or a root.
    pub fn watches_dir(&self, dir: &Path) -> bool {
        self.inner.dirs.lock().unwrap_or_else(|p| p.into_inner()).contains(dir)
            || self.inner.tree.dirs().iter().any(|root| root == dir)
    }

    /// Which [`watch_dirs`](Self::watch_dirs) these are: equal versions
    /// (of the same `FileResources`) have the same folders, so a watcher
    /// copies and compares them (a cost that grows with the folder) only
    /// when a batch scanned a folder again, not for each saved file.
    pub fn watch_dirs_version(&self) -> WatchDirsVersion {
        WatchDirsVersion { files: self.inner.id, version: self.inner.dirs_version.load(Ordering::Acquire) }
    }

    /// The `file://` URI of a served path (`src/main.rs` → `file:///src/main.rs`).
    pub fn uri_of(served: &str) -> String {
        let mut uri = String::from("file:///");
        for (i, segment) in served.split('/').enumerate() {
            if i > 0 {
                uri.push('/');
            }
            for b in segment.bytes() {
                if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
                    uri.push(b as char);
                } else {
                    uri.push_str(&format!("%{b:02X}"));
                }
            }
        }
        uri
    }

    /// The served path of an absolute path inside a root, if it is served.
    pub fn served_path(&self, path: &Path) -> Option<String> {
        let served = self.inner.tree.served_path_of(path)?;
        self.index().contains_key(&served).then_some(served)
    }

    /// Every served file as a resource, in path order.
    pub fn resources(&self) -> Vec<Resource> {
        self.index().iter().map(|(served, entry)| self.resource(served, entry)).collect()
    }

    /// Every served file as (served path, path on disk, size in bytes), in
    /// path order, as the last scan found them: what another source looks
    /// through without walking the folder again (zero-config finds SQLite
    /// databases in it).
    pub fn scanned_files(&self) -> Vec<(String, PathBuf, u64)> {
        let tree = &self.inner.tree;
        self.index()
            .iter()
            .filter_map(|(served, entry)| Some((served.clone(), tree.path_of(served)?, entry.size)))
            .collect()
    }

    /// `file:///{+path}`: reads any served file by path, completes paths.
    pub fn template(&self) -> ResourceTemplate {
        let reader = self.clone();
        let completer = self.clone();
        ResourceTemplate::new("file:///{+path}", "file")
            .expect("a valid template; qed")
            .title("Project file")
            .description("Any served file by its path relative to the served folder (completes paths).")
            .handler(move |request: ReadRequest, _ctx: RequestContext| {
                let reader = reader.clone();
                async move {
                    let served = request.var("path").unwrap_or_default().trim_start_matches('/').to_owned();
                    reader.read(&served, request.uri).await
                }
            })
            .complete(
                "path",
                completer_fn(move |request: CompletionRequest, _ctx: RequestContext| {
                    let completer = completer.clone();
                    async move {
                        // The candidates are never silently fewer than the
                        // folder serves.
                        completer.wait_first_index().await;
                        Ok(completer.complete(&request.value))
                    }
                }),
            )
    }

    /// Served paths starting with `prefix`, in order.
    pub fn complete(&self, prefix: &str) -> Vec<String> {
        let prefix = prefix.trim_start_matches('/');
        self.index()
            .range(prefix.to_owned()..)
            .take_while(|(k, _)| k.starts_with(prefix))
            .take(MAX_CANDIDATES)
            .map(|(k, _)| k.clone())
            .collect()
    }

    /// Brings the index up to date after `batch` (off the async threads)
    /// and registers the changes with `server` (one `list_changed` when
    /// files came or went; `resources/updated` for changed files). Returns
    /// the changes.
    pub async fn sync(&self, server: &Server, batch: &WatchBatch) -> Result<Vec<Change>, FilesError> {
        self.sync_watching(server, batch, None).await
    }

    /// [`sync`](Self::sync), and when `folders` is given a full rescan
    /// watches each folder as the walk enters it, before reading it
    /// ([`ServedTree::scan_entering`]): the first scan of a served folder
    /// runs while clients are already answered, and an edit made during
    /// it is either found by the walk or reported by a watch.
    pub async fn sync_watching(
        &self,
        server: &Server,
        batch: &WatchBatch,
        folders: Option<FolderWatch>,
    ) -> Result<Vec<Change>, FilesError> {
        let first = !self.wait_indexed(Duration::ZERO);
        let since = self.inner.created.checked_sub(FILE_TIME_LAG).unwrap_or(SystemTime::UNIX_EPOCH);
        let this = self.clone();
        let batch = batch.clone();
        let (changes, saved_during) = tokio::task::spawn_blocking(move || {
            let changes = this.update_watching(&batch, folders);
            let saved_during = if first { this.modified_since(since) } else { Vec::new() };
            (changes, saved_during)
        })
        .await
        .map_err(|e| FilesError::Watch { path: PathBuf::new(), reason: e.to_string() })?;
        // The first index: no list was shorter than it unless one gave up
        // waiting, so there is nothing to announce otherwise.
        let listed_short = {
            let _done = self.inner.indexed.0.lock().unwrap_or_else(|p| p.into_inner());
            self.inner.listed_short.load(Ordering::SeqCst)
        };
        if !first || listed_short {
            self.apply(server, &changes)?;
        }
        // A file saved while the first scan ran may have been saved after a
        // client subscribed to it, before the walk reached its folder (so
        // before its watch): the walk read it as saved, and no watch saw
        // the save. Its subscribers hear of it now (a file saved just
        // before serving began is announced too: harmless, nobody could
        // have read it through the server yet).
        for served in saved_during {
            server.notify_resource_updated(Self::uri_of(&served));
        }
        Ok(changes)
    }

    /// The served paths whose modification time is `since` or later.
    fn modified_since(&self, since: SystemTime) -> Vec<String> {
        self.index()
            .iter()
            .filter(|(_, entry)| entry.modified.is_some_and(|m| m >= since))
            .map(|(served, _)| served.clone())
            .collect()
    }

    /// Updates the index after `batch` (blocking) and returns what changed:
    /// only the paths and folders the batch names are looked at again (an
    /// edited `.gitignore` rescans its folder); an empty batch (the first
    /// scan), an overflow or a huge burst rescans everything.
    pub fn update(&self, batch: &WatchBatch) -> Vec<Change> {
        self.update_watching(batch, None)
    }

    /// [`update`](Self::update), a full rescan watching each folder as it
    /// enters it when `folders` is given.
    fn update_watching(&self, batch: &WatchBatch, folders: Option<FolderWatch>) -> Vec<Change> {
        let Some(plan) = index::plan(batch) else { return self.rescan_watching(batch, folders) };
        let tree = &self.inner.tree;
        let looked = index::look(tree, &plan);
        let touched = self.touched(batch);
        let mut index = self.index();
        let mut dirs = self.inner.dirs.lock().unwrap_or_else(|p| p.into_inner());
        let changes = index::apply(tree, &mut index, &mut dirs, &plan, looked, &touched);
        self.inner.version.fetch_add(1, Ordering::AcqRel);
        if !plan.folders.is_empty() {
            self.inner.dirs_version.fetch_add(1, Ordering::AcqRel);
        }
        changes
    }

    /// Rescans the roots (blocking) and returns what changed since the last scan.
    pub fn rescan(&self, batch: &WatchBatch) -> Vec<Change> {
        self.rescan_watching(batch, None)
    }

    /// [`rescan`](Self::rescan), watching each folder (flat) as the walk
    /// enters it when `folders` is given.
    fn rescan_watching(&self, batch: &WatchBatch, folders: Option<FolderWatch>) -> Vec<Change> {
        let scan = match folders {
            None => self.inner.tree.scan(),
            Some(folders) => self.inner.tree.scan_entering(Arc::new(move |dir: &Path| {
                if let Err(e) = folders.watch_flat(dir) {
                    tracing::warn!(error = %e, "not watched");
                }
            })),
        };
        let touched = self.touched(batch);
        *self.inner.dirs.lock().unwrap_or_else(|p| p.into_inner()) = scan.dirs;
        self.inner.dirs_version.fetch_add(1, Ordering::AcqRel);
        let changes = {
            let mut index = self.index();
            let changes = index::replace_all(&mut index, scan.files, &touched);
            self.inner.version.fetch_add(1, Ordering::AcqRel);
            changes
        };
        let (done, ready) = &self.inner.indexed;
        *done.lock().unwrap_or_else(|p| p.into_inner()) = true;
        ready.notify_all();
        changes
    }

    /// Waits (off the async threads, at most
    /// [`FIRST_INDEX_WAIT`](crate::source::FIRST_INDEX_WAIT)) for the first
    /// index when it is still being built.
    async fn wait_first_index(&self) {
        if !self.wait_indexed(Duration::ZERO) {
            let waiting = self.clone();
            let wait = move || waiting.wait_indexed(crate::source::FIRST_INDEX_WAIT);
            let _ = tokio::task::spawn_blocking(wait).await;
        }
    }

    /// Waits (at most `limit`) until the first full scan is done; true if it is.
    pub fn wait_indexed(&self, limit: Duration) -> bool {
        *self.first_scan_done(limit)
    }

    /// Waits (at most `limit`) for the first full scan, and keeps its flag
    /// locked: a note a caller makes on a "not yet" is made before a scan
    /// ending now can mark itself done.
    fn first_scan_done(&self, limit: Duration) -> MutexGuard<'_, bool> {
        let (done, ready) = &self.inner.indexed;
        let guard = done.lock().unwrap_or_else(|p| p.into_inner());
        let (guard, _) =
            ready.wait_timeout_while(guard, limit, |done| !*done).unwrap_or_else(|p| p.into_inner());
        guard
    }

    /// [`wait_indexed`](Self::wait_indexed) for a list that answers now:
    /// past `limit` it notes that a list was short, so the first index is
    /// announced when it is done.
    pub(crate) fn wait_indexed_to_list(&self, limit: Duration) -> bool {
        let guard = self.first_scan_done(limit);
        if !*guard {
            self.inner.listed_short.store(true, Ordering::SeqCst);
        }
        *guard
    }

    /// The served paths `batch` names.
    fn touched(&self, batch: &WatchBatch) -> HashSet<String> {
        batch.paths.iter().filter_map(|p| self.inner.tree.served_path_of(p)).collect()
    }

    /// Announces `changes` (from [`FileResources::update`]) on `server`:
    /// `resources/updated` for each changed file (its subscribers hear
    /// it), one `list_changed` when files came or went. The server lists
    /// the files from the index ([`crate::FileSource`]), so nothing is
    /// registered per file.
    pub fn apply(&self, server: &Server, changes: &[Change]) -> Result<(), FilesError> {
        let mut listed = false;
        for change in changes {
            match change {
                Change::Modified(p) => server.notify_resource_updated(Self::uri_of(p)),
                Change::Added(_) | Change::Removed(_) => listed = true,
            }
        }
        if listed {
            server.notify_list_changed(ListKind::Resources);
        }
        Ok(())
    }

    pub(crate) fn index(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Entry>> {
        self.inner.index.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn resource(&self, served: &str, entry: &Entry) -> Resource {
        let uri = Self::uri_of(served);
        let reader = self.clone();
        let path = served.to_owned();
        let mut resource = Resource::new(uri, served).mime_type(entry.mime).size(entry.size);
        if let Some(modified) = entry.modified {
            resource = resource.annotations(Annotations {
                last_modified: Some(humantime::format_rfc3339_seconds(modified).to_string()),
                ..Annotations::default()
            });
        }
        resource.handler(move |request: ReadRequest, _ctx: RequestContext| {
            let reader = reader.clone();
            let path = path.clone();
            async move { reader.read(&path, request.uri).await }
        })
    }

    /// Reads a served file, answering for `uri`: it must be listed, and
    /// the policy must still serve it now.
    async fn read(&self, served: &str, uri: String) -> Result<Vec<ResourceContents>, HandlerError> {
        // Asked during the first index (the server answers from the start):
        // wait for it, as a list does, rather than call an unindexed file
        // not found.
        self.wait_first_index().await;
        let Some(entry) = self.index().get(served).copied() else {
            return Err(HandlerError::NotFound);
        };
        let tree = self.inner.tree.clone();
        let served = served.to_owned();
        tokio::task::spawn_blocking(move || read_file(&tree, &served, entry.mime, uri))
            .await
            .map_err(|e| HandlerError::internal(format!("reading the file failed: {e}")))?
    }
}

fn read_file(
    tree: &ServedTree,
    served: &str,
    mime: &str,
    uri: String,
) -> Result<Vec<ResourceContents>, HandlerError> {
    let located = match tree.readable(served) {
        Ok(located) => located,
        Err(TreeError::NotServed) => return Err(HandlerError::NotFound),
        Err(e) => return Err(HandlerError::invalid_params(format!("{uri}: {e}"))),
    };
    let max = tree.max_file_size();
    let bytes = std::fs::read(&located.path).map_err(|e| HandlerError::internal(format!("{uri}: {e}")))?;
    if bytes.len() as u64 > max {
        return Err(HandlerError::invalid_params(format!(
            "{uri} grew above the {max}-byte limit for reads (files.max_file_size)"
        )));
    }
    let mime_type = Some(mime.to_owned());
    if mime::is_text(&bytes)
        && let Ok(text) = String::from_utf8(bytes.clone())
    {
        return Ok(vec![ResourceContents::text(uri, mime_type, text)]);
    }
    Ok(vec![ResourceContents::blob(uri, mime_type, base64_encode(&bytes))])
}
