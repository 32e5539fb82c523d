//! A file-system watcher that hands out changes in debounced batches.
//!
//! Editors save through temporary files, `git checkout` rewrites hundreds
//! of files, builds churn: one save can be a dozen inotify events. The
//! watcher collects paths from the first event until the stream has been
//! quiet for the debounce interval (or for at most ten intervals), then
//! hands them out as one [`WatchBatch`]. Files are watched through their
//! directory, so a file replaced by rename is still seen.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use notify::event::{AccessKind, AccessMode};
use notify::{EventKind, RecursiveMode, Watcher as _};
use tokio::sync::mpsc;

use crate::FilesError;

/// Paths kept per batch; past this the batch only says it overflowed.
const MAX_PATHS: usize = 10_000;

/// The paths that changed in one burst.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WatchBatch {
    /// The changed paths (as the watcher reported them: absolute).
    pub paths: BTreeSet<PathBuf>,
    /// More paths changed than were kept (or the watcher lost events):
    /// treat everything as changed.
    pub overflow: bool,
}

impl WatchBatch {
    /// Whether some changed path is `path` or lies under it (always true
    /// after an overflow).
    pub fn touches(&self, path: &Path) -> bool {
        self.overflow || self.paths.iter().any(|p| p.starts_with(path))
    }
}

enum Signal {
    Path(PathBuf),
    Rescan,
}

/// Watches folders and files and yields debounced batches of changes.
pub struct DebouncedWatcher {
    watcher: FolderWatch,
    events: mpsc::UnboundedReceiver<Signal>,
    debounce: Duration,
}

impl std::fmt::Debug for DebouncedWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DebouncedWatcher").field("debounce", &self.debounce).finish_non_exhaustive()
    }
}

impl DebouncedWatcher {
    /// A watcher with nothing watched yet.
    pub fn new(debounce: Duration) -> Result<Self, FilesError> {
        let (tx, events) = mpsc::unbounded_channel();
        let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| match event {
            Ok(event) => {
                // Opening or reading a file changes nothing.
                if let EventKind::Access(kind) = event.kind
                    && kind != AccessKind::Close(AccessMode::Write)
                {
                    return;
                }
                if event.need_rescan() {
                    let _ = tx.send(Signal::Rescan);
                }
                for path in event.paths {
                    let _ = tx.send(Signal::Path(path));
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "file watcher error; rescanning");
                let _ = tx.send(Signal::Rescan);
            }
        })
        .map_err(|e| FilesError::Watch { path: PathBuf::new(), reason: e.to_string() })?;
        Ok(Self { watcher: FolderWatch(Arc::new(Mutex::new(watcher))), events, debounce })
    }

    /// A handle that adds watches from another thread (a scan watching
    /// each folder as it walks into it); its changes come out of
    /// [`next`](Self::next) like any other.
    pub fn folder_watch(&self) -> FolderWatch {
        self.watcher.clone()
    }

    /// Watches a folder and everything below it.
    pub fn watch_dir(&mut self, dir: &Path) -> Result<(), FilesError> {
        self.watcher
            .lock()
            .watch(dir, RecursiveMode::Recursive)
            .map_err(|e| FilesError::Watch { path: dir.to_path_buf(), reason: e.to_string() })
    }

    /// Watches one folder's entries (not its subfolders' contents).
    pub fn watch_dir_flat(&mut self, dir: &Path) -> Result<(), FilesError> {
        self.watcher.watch_flat(dir)
    }

    /// Stops watching a folder or file added before (no error if it is gone).
    pub fn unwatch(&mut self, path: &Path) {
        let _ = self.watcher.lock().unwatch(path);
    }

    /// Watches one file, through its folder (so saves by rename are seen);
    /// the batch names the file's path.
    pub fn watch_file(&mut self, file: &Path) -> Result<(), FilesError> {
        let dir = match file.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        self.watcher
            .lock()
            .watch(dir, RecursiveMode::NonRecursive)
            .map_err(|e| FilesError::Watch { path: file.to_path_buf(), reason: e.to_string() })
    }

    /// The next batch of changes; `None` when the watcher stopped.
    pub async fn next(&mut self) -> Option<WatchBatch> {
        let mut batch = WatchBatch::default();
        let first = self.events.recv().await?;
        add(&mut batch, first);
        let deadline = tokio::time::Instant::now() + self.debounce * 10;
        loop {
            let quiet = tokio::time::sleep(self.debounce);
            tokio::select! {
                signal = self.events.recv() => match signal {
                    Some(signal) => add(&mut batch, signal),
                    None => return Some(batch),
                },
                () = quiet => return Some(batch),
            }
            if tokio::time::Instant::now() >= deadline {
                // Drain what is already queued, then hand the batch out.
                while let Ok(signal) = self.events.try_recv() {
                    add(&mut batch, signal);
                }
                return Some(batch);
            }
        }
    }
}

/// The watches of a [`DebouncedWatcher`], shareable with the thread that
/// scans the folder ([`DebouncedWatcher::folder_watch`]).
#[derive(Clone)]
pub struct FolderWatch(Arc<Mutex<notify::RecommendedWatcher>>);

impl std::fmt::Debug for FolderWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FolderWatch").finish_non_exhaustive()
    }
}

impl FolderWatch {
    /// Watches one folder's entries (not its subfolders' contents).
    pub fn watch_flat(&self, dir: &Path) -> Result<(), FilesError> {
        self.lock()
            .watch(dir, RecursiveMode::NonRecursive)
            .map_err(|e| FilesError::Watch { path: dir.to_path_buf(), reason: e.to_string() })
    }

    fn lock(&self) -> MutexGuard<'_, notify::RecommendedWatcher> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn add(batch: &mut WatchBatch, signal: Signal) {
    match signal {
        Signal::Rescan => batch.overflow = true,
        Signal::Path(path) => {
            if batch.paths.len() < MAX_PATHS {
                batch.paths.insert(path);
            } else {
                batch.overflow = true;
            }
        }
    }
}
