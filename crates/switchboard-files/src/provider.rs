//! The served files as resources: the index, reading, the `file:///{+path}`
//! template with path completion, and announcing changes on a live server
//! (the listing itself is `source.rs`).
//!
//! The first scan files what it finds as it walks
//! ([`ServedTree::walk`]), [`FILL_BATCH`] files per hold of the index's
//! lock, so neither a whole scan nor a list of every file as "added" is
//! held beside the index (that was the first index's memory peak). The
//! walk comes in the index's order, so after each batch every position
//! up to the index's length is settled: no later file sorts before it.
//! That count is published ([`Progress`]) and a list waits only for the
//! positions its page needs
//! ([`ResourceSource::len_past`](switchboard_server::ResourceSource::len_past)). When the
//! roots cannot be walked in the index's order (one root mounted at or
//! below another's mount) nothing is published before the scan ends:
//! lists wait for the whole index, as they always did. A read of a path
//! already filed, and a completion whose candidates are all settled, do
//! not wait either; a read of a path not filed yet waits for the index
//! (it may be a file the walk has not reached).

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, SystemTime};

use switchboard_server::types::ResourceContents;
use switchboard_server::types::content::Annotations;
use switchboard_server::{
    CompletionRequest, HandlerError, ListKind, ReadRequest, RequestContext, Resource, ResourceTemplate,
    Server, base64_encode, completer_fn,
};

use switchboard_tree::{Entering, Found, ServedTree, TreeError};

use crate::index::{self, Change, Entry, ServedKey};
use crate::watch::{FolderWatch, WatchBatch};
use crate::{FilesError, FilesOptions, mime};

/// Completion candidates computed at most (the server sends the first 100).
const MAX_CANDIDATES: usize = 10_000;

/// Files the first scan files per hold of the index's lock: small enough
/// that a list waits microseconds for the lock, large enough that the
/// lock and the wake-up of waiting lists cost nothing next to the walk.
const FILL_BATCH: usize = 256;

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
    index: Mutex<BTreeMap<ServedKey, Entry>>,
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
    pub(crate) resume: Mutex<Option<(usize, ServedKey, u64)>>,
    /// How far the first full scan is (lists wait for the part they need).
    pub(crate) progress: (Mutex<Progress>, Condvar),
    /// Files the first scan found and has not filed yet (at most
    /// [`FILL_BATCH`]): the walk files them when there are enough, and a
    /// list that needs them files them itself rather than wait.
    pending: Mutex<Vec<(ServedKey, Entry)>>,
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

/// How far the first scan is.
#[derive(Debug, Default)]
pub(crate) struct Progress {
    /// Whether the first full scan is done.
    pub done: bool,
    /// While it is not: the positions `0..settled` of the index hold
    /// their final files (no file the walk finds later sorts before them).
    pub settled: usize,
    /// The last settled served path (`None`: nothing settled yet).
    pub frontier: Option<ServedKey>,
    /// Whether every file so far was found after the one before it
    /// (false: nothing is published as settled until the scan ends).
    pub in_order: bool,
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
                progress: (Mutex::new(Progress { in_order: true, ..Progress::default() }), Condvar::new()),
                pending: Mutex::new(Vec::new()),
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
        self.index().contains_key(&ServedKey::from(served.as_str())).then_some(served)
    }

    /// Every served file as a resource, in path order.
    pub fn resources(&self) -> Vec<Resource> {
        self.index().iter().map(|(served, entry)| self.resource(served.as_str(), entry)).collect()
    }

    /// Every served file as (served path, path on disk, size in bytes), in
    /// path order, as the last scan found them: what another source looks
    /// through without walking the folder again (zero-config finds SQLite
    /// databases in it).
    pub fn scanned_files(&self) -> Vec<(String, PathBuf, u64)> {
        let tree = &self.inner.tree;
        self.index()
            .iter()
            .filter_map(|(served, entry)| {
                Some((served.as_str().to_owned(), tree.path_of(served.as_str())?, entry.size))
            })
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
                        // folder serves: every path starting with the value
                        // is settled, or the first index is done.
                        completer.wait_settled_past(&request.value).await;
                        Ok(completer.complete(&request.value))
                    }
                }),
            )
    }

    /// Served paths starting with `prefix`, in order (one run of the
    /// index: see [`switchboard_tree::cmp_served`]).
    pub fn complete(&self, prefix: &str) -> Vec<String> {
        let prefix = prefix.trim_start_matches('/');
        self.index()
            .range(ServedKey::from(prefix)..)
            .take_while(|(k, _)| k.as_str().starts_with(prefix))
            .take(MAX_CANDIDATES)
            .map(|(k, _)| k.as_str().to_owned())
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
    /// watches each folder as the walk enters it
    /// ([`ServedTree::walk`]): the first scan of a served folder runs while
    /// clients are already answered, and an edit made during it is either
    /// found by the walk, reported by a watch, or in a folder looked at
    /// again after the walk.
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
        let entering = folders.map(Self::watching_each);
        let (changes, saved_during) = tokio::task::spawn_blocking(move || {
            // The first scan's own findings are not listed as changes
            // (every file would be "added"): only what changed in folders
            // looked at again after the walk.
            let changes = match index::plan(&batch) {
                None if first => this.first_scan(entering, false),
                _ => this.update_entering(&batch, entering),
            };
            let saved_during = if first { this.modified_since(since) } else { Vec::new() };
            (changes, saved_during)
        })
        .await
        .map_err(|e| FilesError::Watch { path: PathBuf::new(), reason: e.to_string() })?;
        self.apply(server, &changes)?;
        // The first index: no list was shorter than it unless one gave up
        // waiting, so there is nothing else to announce otherwise.
        let listed_short = {
            let _done = self.inner.progress.0.lock().unwrap_or_else(|p| p.into_inner());
            self.inner.listed_short.load(Ordering::SeqCst)
        };
        let listed = changes.iter().any(|c| matches!(c, Change::Added(_) | Change::Removed(_)));
        if first && listed_short && !listed {
            server.notify_list_changed(ListKind::Resources);
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

    /// What a walk calls with each folder it enters: watch it (flat).
    fn watching_each(folders: FolderWatch) -> Entering {
        Arc::new(move |dir: &Path| {
            if let Err(e) = folders.watch_flat(dir) {
                tracing::warn!(error = %e, "not watched");
            }
        })
    }

    /// The served paths whose modification time is `since` or later.
    fn modified_since(&self, since: SystemTime) -> Vec<String> {
        self.index()
            .iter()
            .filter(|(_, entry)| entry.modified().is_some_and(|m| m >= since))
            .map(|(served, _)| served.as_str().to_owned())
            .collect()
    }

    /// Updates the index after `batch` (blocking) and returns what changed:
    /// only the paths and folders the batch names are looked at again (an
    /// edited `.gitignore` rescans its folder); an empty batch (the first
    /// scan), an overflow or a huge burst rescans everything.
    pub fn update(&self, batch: &WatchBatch) -> Vec<Change> {
        self.update_entering(batch, None)
    }

    /// [`update`](Self::update), a full rescan calling `entering` with
    /// each folder it enters when given.
    fn update_entering(&self, batch: &WatchBatch, entering: Option<Entering>) -> Vec<Change> {
        let Some(plan) = index::plan(batch) else { return self.rescan_entering(batch, entering) };
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

    /// Rescans the roots (blocking) and returns what changed since the
    /// last scan (for the first scan: every file, as added).
    pub fn rescan(&self, batch: &WatchBatch) -> Vec<Change> {
        self.rescan_entering(batch, None)
    }

    /// [`rescan`](Self::rescan), calling `entering` with each folder as
    /// the walk enters it (before reading the folder's ignore files and
    /// files; see [`ServedTree::walk`] for what that guarantees).
    pub fn rescan_watching(&self, batch: &WatchBatch, entering: Entering) -> Vec<Change> {
        self.rescan_entering(batch, Some(entering))
    }

    fn rescan_entering(&self, batch: &WatchBatch, entering: Option<Entering>) -> Vec<Change> {
        if !self.wait_indexed(Duration::ZERO) {
            return self.first_scan(entering, true);
        }
        let scan = match entering {
            None => self.inner.tree.scan(),
            Some(entering) => self.inner.tree.scan_entering(entering),
        };
        let touched = self.touched(batch);
        *self.inner.dirs.lock().unwrap_or_else(|p| p.into_inner()) = scan.dirs;
        self.inner.dirs_version.fetch_add(1, Ordering::AcqRel);
        let mut index = self.index();
        let changes = index::replace_all(&mut index, scan.files, &touched);
        self.inner.version.fetch_add(1, Ordering::AcqRel);
        changes
    }

    /// The first full scan (blocking): files what the walk finds as it
    /// goes, publishing the settled positions after each batch, then
    /// looks again at the folders changed while walked (what that changed
    /// is returned, and with `report_added` every file the walk found too).
    fn first_scan(&self, entering: Option<Entering>, report_added: bool) -> Vec<Change> {
        let tree = &self.inner.tree;
        if !tree.walks_in_served_order() {
            self.inner.progress.0.lock().unwrap_or_else(|p| p.into_inner()).in_order = false;
        }
        let mut added = Vec::new();
        let mut dirs = BTreeSet::new();
        let walked = tree.walk(entering, &mut |found| match found {
            Found::Dir(dir) => {
                dirs.insert(dir);
            }
            Found::File(served, file) => {
                let entry = index::entry(&file, None);
                self.found(ServedKey::from(served.as_str()), entry);
                if report_added {
                    added.push(Change::Added(served));
                }
            }
        });
        self.settle_pending();
        {
            // Filed one at a time at the right edge, the map's nodes are
            // left a little over half full; built again from its sorted
            // entries they are full: about 35 bytes less per file, for
            // milliseconds under the lock (the positions do not change).
            let mut index = self.index();
            let filed = std::mem::take(&mut *index);
            *index = filed.into_iter().collect();
        }
        let mut changes = added;
        *self.inner.dirs.lock().unwrap_or_else(|p| p.into_inner()) = dirs;
        self.inner.dirs_version.fetch_add(1, Ordering::AcqRel);
        self.inner.version.fetch_add(1, Ordering::AcqRel);
        {
            let (progress, ready) = &self.inner.progress;
            let mut progress = progress.lock().unwrap_or_else(|p| p.into_inner());
            progress.done = true;
            if !progress.in_order {
                // Published positions moved: lists that used them hear.
                self.inner.listed_short.store(true, Ordering::SeqCst);
            }
            ready.notify_all();
        }
        if !walked.changed_while_walked.is_empty() {
            let again =
                WatchBatch { paths: walked.changed_while_walked.into_iter().collect(), overflow: false };
            changes.extend(self.update_entering(&again, None));
        }
        changes
    }

    /// Notes a file the first scan found; files the pending ones when
    /// there are [`FILL_BATCH`] of them.
    fn found(&self, key: ServedKey, entry: Entry) {
        let full = {
            let mut pending = self.inner.pending.lock().unwrap_or_else(|p| p.into_inner());
            if pending.last().is_some_and(|(last, _)| *last >= key) {
                self.inner.progress.0.lock().unwrap_or_else(|p| p.into_inner()).in_order = false;
            }
            pending.push((key, entry));
            pending.len() >= FILL_BATCH
        };
        if full {
            self.settle_pending();
        }
    }

    /// Files what the first scan found and has not filed, and publishes
    /// how far the index is settled (called by the walk, and by a list
    /// that needs more than is settled).
    fn settle_pending(&self) {
        let mut pending = self.inner.pending.lock().unwrap_or_else(|p| p.into_inner());
        let Some((last, _)) = pending.last() else { return };
        let last = last.clone();
        let (filed, after_the_filed) = {
            let mut index = self.index();
            let after = index.last_key_value().is_none_or(|(filed, _)| *filed < pending[0].0);
            index.extend(pending.drain(..));
            (index.len(), after)
        };
        drop(pending);
        let (progress, ready) = &self.inner.progress;
        let mut progress = progress.lock().unwrap_or_else(|p| p.into_inner());
        progress.in_order &= after_the_filed;
        if progress.in_order {
            progress.settled = filed;
            progress.frontier = Some(last);
            ready.notify_all();
        } else {
            // Positions moved: resume points taken so far are stale, and
            // lists wait for the whole index from here on.
            self.inner.version.fetch_add(1, Ordering::AcqRel);
            progress.settled = 0;
            progress.frontier = None;
        }
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

    /// Waits (off the async threads, at most
    /// [`FIRST_INDEX_WAIT`](crate::source::FIRST_INDEX_WAIT)) until every
    /// served path starting with `prefix` is settled: the first index is
    /// done, or the walk has filed a path sorting after all of them.
    async fn wait_settled_past(&self, prefix: &str) {
        let prefix = prefix.trim_start_matches('/').to_owned();
        let past = move |progress: &Progress| {
            progress.done
                || progress.frontier.as_ref().is_some_and(|f| {
                    !f.as_str().starts_with(prefix.as_str()) && *f > ServedKey::from(prefix.as_str())
                })
        };
        if !past(&self.inner.progress.0.lock().unwrap_or_else(|p| p.into_inner())) {
            let waiting = self.clone();
            let wait = move || {
                waiting.settle_pending();
                let (progress, ready) = &waiting.inner.progress;
                let guard = progress.lock().unwrap_or_else(|p| p.into_inner());
                let limit = crate::source::FIRST_INDEX_WAIT;
                drop(ready.wait_timeout_while(guard, limit, |p| !past(p)));
            };
            let _ = tokio::task::spawn_blocking(wait).await;
        }
    }

    /// Waits (at most `limit`) until the first full scan is done; true if it is.
    pub fn wait_indexed(&self, limit: Duration) -> bool {
        let (progress, ready) = &self.inner.progress;
        let guard = progress.lock().unwrap_or_else(|p| p.into_inner());
        let (guard, _) =
            ready.wait_timeout_while(guard, limit, |p| !p.done).unwrap_or_else(|p| p.into_inner());
        guard.done
    }

    /// How many files a list may show when it needs to know whether there
    /// is one at `position`: waits (at most `limit`) until more than
    /// `position` files are settled or the first index is done. Positions
    /// below the answer do not move until the next change on disk. Past
    /// `limit` it notes that a list was short, so the first index is
    /// announced (`list_changed`) when it is done.
    pub(crate) fn len_past_waiting(&self, position: usize, limit: Duration) -> usize {
        let (progress, ready) = &self.inner.progress;
        let known = |p: &Progress| p.done || p.settled > position;
        if !known(&progress.lock().unwrap_or_else(|p| p.into_inner())) {
            // What the walk found and has not filed yet may be enough.
            self.settle_pending();
        }
        let guard = progress.lock().unwrap_or_else(|p| p.into_inner());
        let (guard, _) = ready
            .wait_timeout_while(guard, limit, |p| !p.done && p.settled <= position)
            .unwrap_or_else(|p| p.into_inner());
        if guard.done {
            drop(guard);
            return self.len();
        }
        if guard.settled > position {
            return guard.settled;
        }
        // Noted while holding the progress: a scan ending now announces.
        self.inner.listed_short.store(true, Ordering::SeqCst);
        drop(guard);
        self.len()
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

    pub(crate) fn index(&self) -> std::sync::MutexGuard<'_, BTreeMap<ServedKey, Entry>> {
        self.inner.index.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn resource(&self, served: &str, entry: &Entry) -> Resource {
        let uri = Self::uri_of(served);
        let reader = self.clone();
        let path = served.to_owned();
        let mut resource = Resource::new(uri, served).mime_type(entry.mime()).size(entry.size);
        if let Some(modified) = entry.modified() {
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
        // a file already filed is read at once; another waits for the
        // index, as a list does, rather than be called not found before
        // the walk reaches it.
        let key = ServedKey::from(served);
        let filed = self.index().get(&key).copied();
        let entry = match filed {
            Some(entry) => entry,
            None => {
                self.wait_first_index().await;
                let Some(entry) = self.index().get(&key).copied() else {
                    return Err(HandlerError::NotFound);
                };
                entry
            }
        };
        let tree = self.inner.tree.clone();
        let served = served.to_owned();
        tokio::task::spawn_blocking(move || read_file(&tree, &served, entry.mime(), uri))
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
