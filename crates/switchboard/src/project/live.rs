//! Keeping a running server in step with the disk: file changes become
//! resource notifications, and edits to `switchboard.toml`, a prompt file,
//! a view of the apps folder or an OpenAPI document file rebuild the project and swap it in without
//! dropping a connection.
//!
//! A database that opens, goes down or changes its schema reloads the
//! project the same way (its tools and resources come and go through the
//! one apply path), without rescanning the files; an SQLite file changed
//! on disk makes its database check its schema at once.
//!
//! An edit that does not build is reported on stderr, problem by problem,
//! and the last good project stays in force; the next good edit applies.
//! With no `switchboard.toml`, a prompt file that stops loading is not a
//! problem but a note (see `project`): the rest of the edit applies and
//! that prompt keeps its last good version.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;

use switchboard_files::{DebouncedWatcher, FileResources, WatchBatch, WatchDirsVersion};
use switchboard_server::Server;

use super::Project;
use super::paths::openapi_documents;
use super::source::Source;

/// Scans the served files and announces them (then `scanned` fires), and
/// watches what `project` was built from and keeps `server` current, until
/// the watcher stops. The first scan runs here, not before serving, so a
/// client's `initialize` is answered while a big folder is still walked.
///
/// A [`Source`] received on `retarget` (the client's roots changed) is
/// loaded and swapped in like an edited configuration: one `list_changed`
/// per list that changed, the watches moved to the new folders, and on
/// problems the project in force stays.
pub(crate) async fn run(
    server: Server,
    mut project: Project,
    mut source: Source,
    scanned: tokio::sync::oneshot::Sender<()>,
    mut retarget: Option<tokio::sync::mpsc::Receiver<Source>>,
) {
    let debounce = Duration::from_millis(project.config.files.debounce_ms.max(10));
    let watcher = DebouncedWatcher::new(debounce)
        .inspect_err(|e| tracing::warn!(error = %e, "not watching for changes"))
        .ok();
    // The configuration and the other sources are watched before the
    // first scan; the scan watches each served folder as it walks into it,
    // before reading it, so an edit made while a big folder is walked (the
    // server already answers) is either found by the walk or reported by
    // a watch: nothing to look at again afterwards.
    let mut watched = Watched::default();
    let mut watcher = watcher.map(|mut watcher| {
        watched.update(&mut watcher, &project, &source);
        watcher
    });
    let folders = watcher.as_ref().filter(|_| project.config.files.watch).map(DebouncedWatcher::folder_watch);
    if let Some(files) = &project.files
        && let Err(e) = files.sync_watching(&server, &WatchBatch::default(), folders).await
    {
        tracing::warn!(error = %e, "updating file resources");
    }
    // Zero-config: the SQLite files just scanned become databases; they
    // join (a reload) once open.
    project.detect_databases(None);
    project.start_databases();
    let Some(mut watcher) = watcher.take() else {
        let _ = scanned.send(());
        return;
    };
    watched.adopt_scanned(&project);
    watched.update(&mut watcher, &project, &source);
    // Indexed and watched: a client answered from here on misses no edit.
    let _ = scanned.send(());
    loop {
        let databases = project.databases.clone();
        // A batch being collected when a new source arrives is dropped:
        // switching rescans every served folder anyway.
        let batch = tokio::select! {
            () = databases.changed() => {
                project = reload(&server, project, &source, Scan::No).await.unwrap_or_else(|kept| kept);
                continue;
            }
            batch = watcher.next() => match batch {
                Some(batch) => batch,
                None => break,
            },
            next = next_source(&mut retarget) => {
                match reload(&server, project, &next, Scan::Files).await {
                    Ok(switched) => {
                        tracing::info!(dir = %next.dir.display(), roots = next.roots.len(), "serving the client's roots");
                        (project, source) = (switched, next);
                    }
                    Err(kept) => project = kept,
                }
                watched.update(&mut watcher, &project, &source);
                continue;
            }
        };
        tracing::debug!(paths = ?batch.paths, overflow = batch.overflow, "changes on disk");
        let config_touched = batch.touches(&source.config_path())
            || project.prompts_dir.as_deref().is_some_and(|d| batch.touches(d))
            || project.views.dir().is_some_and(|d| batch.touches(d))
            || openapi_documents(&project.config).iter().any(|d| batch.touches(d))
            || project.config.env_file().is_some_and(|f| batch.touches(&f));
        // A batch made only of writes inside .git (`git status` refreshing
        // the index, a commit) changes no served file: no rescan for it.
        let only_git = !batch.overflow
            && project.git.as_ref().is_some_and(|g| batch.paths.iter().all(|p| p.starts_with(g.git_dir())));
        if project.config.files.watch && !only_git {
            sync_files(&server, &project, &batch).await;
            // Zero-config: a SQLite file that appeared joins as a database.
            if new_sqlite_file(&project, &batch) {
                project.detect_databases(None);
                project.start_databases();
            }
            // New folders: watch them, then look once more in them (only
            // them) for files created before the watch existed.
            let added = watched.update(&mut watcher, &project, &source);
            if !added.is_empty() {
                sync_files(&server, &project, &WatchBatch { paths: added, overflow: false }).await;
                watched.update(&mut watcher, &project, &source);
            }
        }
        for file in sqlite_files(&project) {
            let mut siblings = file.clone().into_os_string();
            siblings.push("-wal");
            if batch.overflow || batch.touches(&file) || batch.touches(std::path::Path::new(&siblings)) {
                project.databases.schema_touched(&file);
            }
        }
        if let Some(git) = &project.git
            && git_refs_touched(&batch, git.git_dir())
        {
            for uri in git.changed_uris() {
                server.notify_resource_updated(uri);
            }
        }
        // An edited skill reloads the skills alone (a reload reloads them too).
        if !config_touched
            && let Some(skills) = &project.skills
            && skills.touched(&batch)
        {
            skills.sync(&server, &project.config).await;
        }
        if config_touched {
            project = reload(&server, project, &source, Scan::Files).await.unwrap_or_else(|kept| kept);
            watched.update(&mut watcher, &project, &source);
        }
    }
}

/// The SQLite files of the databases served (their real paths).
fn sqlite_files(project: &Project) -> Vec<PathBuf> {
    project
        .sql
        .databases
        .iter()
        .filter_map(|d| match &d.target {
            switchboard_sql::spec::Target::Sqlite(path) => Some(path.clone()),
            switchboard_sql::spec::Target::Postgres { .. } => None,
        })
        .collect()
}

/// With no configuration file: whether `batch` holds a SQLite file that
/// is not served as a database yet (at most 1,000 paths looked at).
fn new_sqlite_file(project: &Project, batch: &WatchBatch) -> bool {
    if project.config.path().is_some() {
        return false;
    }
    let canonical = |p: &std::path::Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let served: Vec<PathBuf> = sqlite_files(project).iter().map(|p| canonical(p)).collect();
    batch
        .paths
        .iter()
        .take(1_000)
        .any(|path| switchboard_sql::sqlite::is_sqlite_file(path) && !served.contains(&canonical(path)))
}

/// Whether a reload scans the served files again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scan {
    /// Yes: the configuration or the folder may have changed.
    Files,
    /// No: nothing on disk changed (a database opened or went down); the
    /// running file index stays in force.
    No,
}

/// The next source from `retarget`; never, once there is none (the sender
/// gone, or no sender at all).
async fn next_source(retarget: &mut Option<tokio::sync::mpsc::Receiver<Source>>) -> Source {
    if let Some(rx) = retarget {
        if let Some(source) = rx.recv().await {
            return source;
        }
        *retarget = None;
    }
    std::future::pending().await
}

/// Whether HEAD or a ref moved (not every write to `.git`: `git status`
/// rewrites the index without changing history).
fn git_refs_touched(batch: &WatchBatch, git_dir: &std::path::Path) -> bool {
    batch.overflow
        || batch.paths.iter().any(|p| {
            p.strip_prefix(git_dir).is_ok_and(|rel| {
                rel.starts_with("refs") || rel.starts_with("HEAD") || rel.starts_with("packed-refs")
            })
        })
}

async fn sync_files(server: &Server, project: &Project, batch: &WatchBatch) {
    let Some(files) = &project.files else { return };
    match files.sync(server, batch).await {
        Ok(changes) if !changes.is_empty() => tracing::info!(changes = changes.len(), "files changed"),
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e, "updating file resources"),
    }
}

/// What the watcher watches now: each served folder on its own, the
/// configuration file (through its folder), the prompts folder and the
/// skills folder.
///
/// The served folders are most of them (one watch per folder of a
/// monorepo): they are read from the index and compared again only when a
/// batch rescanned a folder ([`FileResources::watch_dirs_version`]), so a
/// saved file costs what it touches, not the size of the tree.
#[derive(Default)]
struct Watched {
    /// Every folder watched on its own: the served folders and `others`.
    flat: BTreeSet<PathBuf>,
    recursive: BTreeSet<PathBuf>,
    /// Which version of the index's folders `flat` holds.
    files_version: Option<WatchDirsVersion>,
    /// The rest: the configuration's folder, databases, documents, views, git.
    others: BTreeSet<PathBuf>,
}

impl Watched {
    /// Counts the folders the first scan of `project`'s files entered as
    /// watched: the scan watched each as it walked into it
    /// ([`FileResources::sync_watching`]).
    fn adopt_scanned(&mut self, project: &Project) {
        let Some(files) = project.files.as_ref().filter(|_| project.config.files.watch) else { return };
        self.flat.extend(files.watch_dirs());
        self.flat.extend(files.dirs());
        self.files_version = Some(files.watch_dirs_version());
    }

    /// Brings the watches in line with `project`; returns the folders
    /// newly watched on their own.
    fn update(
        &mut self,
        watcher: &mut DebouncedWatcher,
        project: &Project,
        source: &Source,
    ) -> BTreeSet<PathBuf> {
        let files = project.files.as_ref().filter(|_| project.config.files.watch);
        let version = files.map(FileResources::watch_dirs_version);
        let files_changed = version.is_none() || version != self.files_version;
        self.files_version = version;
        let mut flat = BTreeSet::new();
        if let Some(parent) = source.config_path().parent() {
            flat.insert(parent.to_path_buf());
        }
        // SQLite database files: a change makes their schema checked.
        flat.extend(
            sqlite_files(project).iter().filter_map(|f| f.parent().map(std::path::Path::to_path_buf)),
        );
        // OpenAPI document files: an edit reloads their tools.
        let documents = openapi_documents(&project.config);
        flat.extend(documents.iter().filter_map(|d| d.parent().map(std::path::Path::to_path_buf)));
        // The env_file: an edit reloads what reads its secrets.
        flat.extend(project.config.env_file().and_then(|f| f.parent().map(std::path::Path::to_path_buf)));
        // The apps folder: a view added, removed or edited reloads the
        // views (its parent too, so a folder that appears is seen).
        if let Some(apps) = project.views.dir() {
            flat.extend(apps.parent().map(std::path::Path::to_path_buf));
            if apps.is_dir() {
                flat.insert(apps.to_path_buf());
            }
        }
        let mut recursive: BTreeSet<PathBuf> = project.prompts_dir.iter().cloned().collect();
        recursive.extend(project.skills.as_ref().map(|s| s.dir().to_path_buf()));
        if let Some(git) = &project.git {
            // HEAD and packed-refs live in the git folder, branches under refs/.
            flat.insert(git.git_dir().to_path_buf());
            recursive.insert(git.git_dir().join("refs"));
        }
        // `flat` holds the others so far; the served folders join it.
        let others = flat;
        let (gone, new): (Vec<PathBuf>, Vec<PathBuf>) = if files_changed {
            let mut flat = files.map_or_else(BTreeSet::new, |f| {
                let mut dirs = f.watch_dirs();
                dirs.extend(f.dirs());
                dirs
            });
            flat.extend(others.iter().cloned());
            let gone = self.flat.difference(&flat).cloned().collect();
            let new = flat.difference(&self.flat).cloned().collect();
            self.flat = flat;
            (gone, new)
        } else {
            // Only the others moved: a folder also served stays watched.
            let kept = |d: &&PathBuf| !files.is_some_and(|f| f.watches_dir(d));
            let gone: Vec<PathBuf> = self.others.difference(&others).filter(kept).cloned().collect();
            let new: Vec<PathBuf> = others.difference(&self.others).filter(kept).cloned().collect();
            gone.iter().for_each(|d| {
                self.flat.remove(d);
            });
            self.flat.extend(new.iter().cloned());
            (gone, new)
        };
        self.others = others;
        let mut added = BTreeSet::new();
        for gone in gone.iter().chain(self.recursive.difference(&recursive)) {
            watcher.unwatch(gone);
        }
        for dir in new {
            match watcher.watch_dir_flat(&dir) {
                Ok(()) => {
                    added.insert(dir);
                }
                Err(e) => tracing::warn!(error = %e, "not watched"),
            }
        }
        for dir in recursive.difference(&self.recursive) {
            if let Err(e) = watcher.watch_dir(dir) {
                tracing::warn!(error = %e, "not watched");
            }
        }
        self.recursive = recursive;
        added
    }
}

/// Loads the project again and swaps it in; on problems keeps `current`
/// (the `Err`).
async fn reload(server: &Server, current: Project, source: &Source, scan: Scan) -> Result<Project, Project> {
    let src = source.clone();
    // Zero-config: a prompt file that no longer loads keeps its last good
    // version, and is noted rather than refusing the whole reload.
    let carried = current.carried();
    let files_in_force = (current.config.files.clone(), current.config.dir().to_path_buf());
    let loaded = tokio::task::spawn_blocking(move || {
        let next = Project::reload_with_roots(&src.dir, src.config.as_deref(), &src.roots, &carried)?;
        // Without a scan the running index is kept; scan anyway when the
        // files it would keep are no longer the ones configured.
        if scan == Scan::Files
            || (next.config.files.clone(), next.config.dir().to_path_buf()) != files_in_force
        {
            next.scan_files();
        }
        Ok::<_, Vec<switchboard_config::Problem>>(next)
    })
    .await;
    let next = match loaded {
        Ok(Ok(next)) => next,
        Ok(Err(problems)) => {
            for problem in &problems {
                tracing::error!("{problem}");
            }
            tracing::error!(
                problems = problems.len(),
                "configuration not reloaded; the last good configuration stays in force"
            );
            // A desktop host's user never sees stderr: tell the clients too.
            let problems: Vec<String> = problems.iter().map(ToString::to_string).collect();
            server.log_to_clients(
                switchboard_server::types::logging::LoggingLevel::Error,
                Some("switchboard"),
                serde_json::json!({
                    "message": "configuration not reloaded; the last good configuration stays in force",
                    "problems": problems,
                }),
            );
            return Err(current);
        }
        Err(e) => {
            tracing::error!(error = %e, "configuration reload failed");
            return Err(current);
        }
    };
    notify_new_notes(server, &next, &current);
    match next.apply(&current, server) {
        Ok((applied, restart)) => {
            if let Some(note) = restart {
                tracing::warn!("{note}");
            }
            tracing::info!("configuration reloaded");
            Ok(applied)
        }
        Err(e) => {
            tracing::error!(error = %e, "configuration not reloaded; the last good configuration stays in force");
            Err(current)
        }
    }
}

/// Tells the clients what a reload left out that was not left out before
/// (a prompt file that stopped loading, a tool whose secret is not set):
/// like a refused reload, it would
/// otherwise reach only stderr.
fn notify_new_notes(server: &Server, next: &Project, current: &Project) {
    let notes: Vec<String> = next.new_notes(&current.notes).map(ToString::to_string).collect();
    if notes.is_empty() {
        return;
    }
    server.log_to_clients(
        switchboard_server::types::logging::LoggingLevel::Warning,
        Some("switchboard"),
        serde_json::json!({
            "message": "configuration reloaded; some prompt files did not load or some entries were left out",
            "notes": notes,
        }),
    );
}
