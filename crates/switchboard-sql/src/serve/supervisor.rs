//! Keeps the configured databases open: one background task per database
//! opens it (bounded by `connect_timeout`, retried with backoff while it is
//! down), describes its `[[tools.sql]]` statements, and polls its schema's
//! fingerprint. What is open now becomes [`Items`]; a change of that set
//! wakes [`Databases::changed`], and a schema change sends
//! `resources/updated` for the schema's URI.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use switchboard_server::{Resource, ResourceTemplate, Server, Tool};
use tokio::sync::{Notify, watch};
use tokio_util::sync::CancellationToken;

use crate::spec::{Resolved, SqlToolSpec, Target};
use crate::{Database, Engine, Error};

use super::described;
use super::live::{Attached, Live, Slot, SlotState};
use super::{query_tool, resources, sql_tool};

/// The first wait after a failed open; it doubles up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_secs(1);
/// The longest wait between two attempts to open a database that is down.
const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// What the open databases offer, for a project to register.
#[derive(Debug, Default)]
pub struct Items {
    /// The query tools and the `[[tools.sql]]` tools.
    pub tools: Vec<Tool>,
    /// `db://{name}/schema` of each open database.
    pub resources: Vec<Resource>,
    /// `db://{name}/table/{table}` of each open database.
    pub templates: Vec<ResourceTemplate>,
}

/// Where one database stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DatabaseState {
    /// Not opened yet (the first attempt is under way).
    Connecting,
    /// Open: its items are offered.
    Open,
    /// Could not be opened, or stopped answering; retried with backoff.
    /// The message never holds a password.
    Down(String),
}

/// One database for `switchboard list` and the logs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DatabaseStatus {
    /// Its name.
    pub name: String,
    /// Its engine.
    pub engine: Engine,
    /// Where it stands.
    pub state: DatabaseState,
    /// What the operator should know: the engine's notes (write grants on
    /// exposed tables, say) and the tools left out, with why.
    pub notes: Vec<String>,
}

/// One configured database and its task.
#[derive(Debug)]
struct Entry {
    resolved: Resolved,
    tools: Vec<SqlToolSpec>,
    slot: Arc<Slot>,
    stop: CancellationToken,
}

#[derive(Debug)]
struct Shared {
    /// By database name, in name order.
    entries: Mutex<BTreeMap<String, Entry>>,
    /// Bumped whenever the items change.
    generation: watch::Sender<u64>,
    /// The generation the last [`Databases::items`] reflected.
    seen: AtomicU64,
    attached: Attached,
}

impl Drop for Shared {
    fn drop(&mut self) {
        let entries = self.entries.get_mut().map(std::mem::take).unwrap_or_default();
        for entry in entries.into_values() {
            entry.stop.cancel();
        }
    }
}

/// The databases of one running server, kept open in the background and
/// carried across reloads. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Databases {
    shared: Arc<Shared>,
}

impl Default for Databases {
    fn default() -> Self {
        Self::new()
    }
}

impl Databases {
    /// No databases yet.
    pub fn new() -> Self {
        Self {
            shared: Arc::new(Shared {
                entries: Mutex::new(BTreeMap::new()),
                generation: watch::channel(0).0,
                seen: AtomicU64::new(0),
                attached: Attached::default(),
            }),
        }
    }

    /// Opens (in the background, with backoff while down) the databases of
    /// `specs`, closes the ones gone, keeps the ones unchanged (same entry,
    /// same tools). A database name given twice keeps the first. Needs a
    /// Tokio runtime.
    pub fn set(&self, specs: Vec<Resolved>, tools: Vec<SqlToolSpec>) {
        let mut entries = self.shared.entries.lock().expect("databases lock poisoned");
        let mut next = BTreeMap::new();
        let mut changed = false;
        for resolved in specs {
            let name = resolved.spec.name.clone();
            if next.contains_key(&name) {
                continue;
            }
            let own: Vec<SqlToolSpec> = tools.iter().filter(|t| t.database == name).cloned().collect();
            let entry = match entries.remove(&name) {
                Some(old) if old.resolved == resolved && old.tools == own => old,
                old => {
                    if let Some(old) = old {
                        old.stop.cancel();
                        changed |= old.slot.live().is_some();
                    }
                    self.start(resolved, own)
                }
            };
            next.insert(name, entry);
        }
        for gone in std::mem::take(&mut *entries).into_values() {
            gone.stop.cancel();
            changed |= gone.slot.live().is_some();
        }
        *entries = next;
        drop(entries);
        if changed {
            self.shared.generation.send_modify(|g| *g += 1);
        }
    }

    /// Starts the task that keeps `resolved` open.
    fn start(&self, resolved: Resolved, tools: Vec<SqlToolSpec>) -> Entry {
        let slot = Arc::new(Slot { state: Mutex::new(SlotState::Connecting), poke: Notify::new() });
        let stop = CancellationToken::new();
        let task = Supervisor {
            resolved: resolved.clone(),
            tools: tools.clone(),
            slot: Arc::clone(&slot),
            generation: self.shared.generation.clone(),
            attached: self.shared.attached.clone(),
        };
        let stopped = stop.clone();
        tokio::spawn(async move {
            tokio::select! {
                () = task.run() => {}
                () = stopped.cancelled() => {}
            }
        });
        Entry { resolved, tools, slot, stop }
    }

    /// Tools, resources and templates of the databases open now.
    pub fn items(&self) -> Items {
        let generation = *self.shared.generation.borrow();
        self.shared.seen.store(generation, Ordering::Release);
        let entries = self.shared.entries.lock().expect("databases lock poisoned");
        let mut items = Items::default();
        for entry in entries.values() {
            let Some(live) = entry.slot.live() else { continue };
            let attached = &self.shared.attached;
            if live.resolved.spec.offers_query_tool() {
                items.tools.push(query_tool::tool(&live, attached));
            }
            for described in &live.tools {
                items.tools.push(sql_tool::tool(&live, described, attached));
            }
            items.resources.push(resources::schema(&live, &entry.slot));
            items.templates.push(resources::table_template(&live, &entry.slot));
        }
        items
    }

    /// Resolves when the set of items changed since the last
    /// [`Databases::items`] (a database opened, went down, its schema
    /// changed): the binary reloads then and registers `items()` again.
    pub async fn changed(&self) {
        let seen = self.shared.seen.load(Ordering::Acquire);
        let mut receiver = self.shared.generation.subscribe();
        // The sender lives in `self.shared`, so the channel never closes
        // while `self` is borrowed.
        let _ = receiver.wait_for(|generation| *generation > seen).await;
    }

    /// Gives the items' handlers the running server (cursor signing, the
    /// state store) and lets schema changes send `resources/updated`. The
    /// first server attached stays.
    pub fn attach(&self, server: &Server) {
        let _ = self.shared.attached.0.set(server.clone());
    }

    /// The SQLite databases whose file is `path` check their schema now
    /// (for the file watcher: a change seen before the next poll).
    pub fn schema_touched(&self, path: &Path) {
        let entries = self.shared.entries.lock().expect("databases lock poisoned");
        for entry in entries.values() {
            if matches!(&entry.resolved.target, Target::Sqlite(file) if file == path) {
                entry.slot.poke.notify_one();
            }
        }
    }

    /// One line per database: name, engine, state, notes.
    pub fn statuses(&self) -> Vec<DatabaseStatus> {
        let entries = self.shared.entries.lock().expect("databases lock poisoned");
        entries
            .values()
            .map(|entry| {
                let (state, notes) = match entry.slot.get() {
                    SlotState::Connecting => (DatabaseState::Connecting, Vec::new()),
                    SlotState::Open(live) => (DatabaseState::Open, live.notes.clone()),
                    SlotState::Down(message) => (DatabaseState::Down(message), Vec::new()),
                };
                DatabaseStatus {
                    name: entry.resolved.spec.name.clone(),
                    engine: engine_of(&entry.resolved),
                    state,
                    notes,
                }
            })
            .collect()
    }
}

/// The engine a resolved database uses.
pub(crate) fn engine_of(resolved: &Resolved) -> Engine {
    match resolved.target {
        Target::Sqlite(_) => Engine::Sqlite,
        Target::Postgres { .. } => Engine::Postgres,
    }
}

/// Opens the engine `resolved` names, within its `connect_timeout` (plus
/// a second for the engine's own bound to speak first).
pub(crate) async fn open(resolved: &Resolved) -> Result<Arc<dyn Database>, Error> {
    let options = resolved.options();
    let limit = options.connect_timeout + Duration::from_secs(1);
    let opening = open_engine(resolved.target.clone(), options);
    match tokio::time::timeout(limit, opening).await {
        Ok(result) => result,
        Err(_) => Err(Error::Connect(format!("no answer within the connect timeout ({limit:?})"))),
    }
}

// With no engine compiled in, nothing reads `options`.
#[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(unused_variables))]
async fn open_engine(target: Target, options: crate::Options) -> Result<Arc<dyn Database>, Error> {
    match target {
        #[cfg(feature = "sqlite")]
        Target::Sqlite(path) => {
            let opened = tokio::task::spawn_blocking(move || crate::sqlite::Sqlite::open(&path, &options))
                .await
                .map_err(|e| Error::Connect(format!("the opening task failed: {e}")))?;
            Ok(Arc::new(opened?))
        }
        #[cfg(feature = "postgres")]
        Target::Postgres { url, password } => {
            Ok(Arc::new(crate::postgres::Postgres::connect(&url, password.as_deref(), &options).await?))
        }
        #[allow(unreachable_patterns)]
        _ => Err(Error::Connect("this build of switchboard has no support for this engine".into())),
    }
}

/// Reads the catalogue and describes the tools of an open database.
pub(crate) async fn load(
    resolved: &Resolved,
    tools: &[SqlToolSpec],
    db: Arc<dyn Database>,
) -> Result<Live, Error> {
    let fingerprint = db.fingerprint().await?;
    let catalog = db.catalog().await?;
    let mut notes = db.notes();
    let mut described = Vec::new();
    for tool in tools {
        match described::describe(db.as_ref(), &resolved.spec, tool).await {
            Ok(tool) => described.push(Arc::new(tool)),
            Err(problems) => {
                let reasons: Vec<String> = problems.into_iter().map(|(_, message)| message).collect();
                notes.push(format!("tool {} left out: {}", tool.name, reasons.join("; ")));
            }
        }
    }
    Ok(Live { resolved: resolved.clone(), db, catalog, fingerprint, tools: described, notes })
}

/// The task of one database.
struct Supervisor {
    resolved: Resolved,
    tools: Vec<SqlToolSpec>,
    slot: Arc<Slot>,
    generation: watch::Sender<u64>,
    attached: Attached,
}

impl Supervisor {
    /// Opens, watches, and after a failure waits and opens again; ends
    /// only when the entry is stopped (the caller drops this future).
    async fn run(self) {
        let mut backoff = FIRST_BACKOFF;
        loop {
            let opened = match open(&self.resolved).await {
                Ok(db) => load(&self.resolved, &self.tools, db).await,
                Err(error) => Err(error),
            };
            match opened {
                Ok(live) => {
                    backoff = FIRST_BACKOFF;
                    self.set_open(Arc::new(live));
                    let failure = self.watch().await;
                    self.set_down(failure);
                }
                Err(error) => self.set_down(error),
            }
            self.wait(backoff).await;
            backoff = (backoff * 2).min(MAX_BACKOFF);
        }
    }

    /// Polls the fingerprint until the database fails; reloads what
    /// changed. Returns the failure.
    async fn watch(&self) -> Error {
        let poll = self.resolved.spec.poll;
        loop {
            tokio::select! {
                () = tokio::time::sleep(poll) => {}
                () = self.slot.poke.notified() => {}
            }
            let Some(live) = self.slot.live() else { return Error::Connect("closed".into()) };
            let fingerprint = match live.db.fingerprint().await {
                Ok(fingerprint) => fingerprint,
                Err(error) => return error,
            };
            if fingerprint == live.fingerprint {
                continue;
            }
            match load(&self.resolved, &self.tools, Arc::clone(&live.db)).await {
                Ok(reloaded) => {
                    self.set_open(Arc::new(reloaded));
                    self.announce_schema_change(&live);
                }
                Err(error) => return error,
            }
        }
    }

    /// Waits `delay`, or less when poked.
    async fn wait(&self, delay: Duration) {
        tokio::select! {
            () = tokio::time::sleep(delay) => {}
            () = self.slot.poke.notified() => {}
        }
    }

    fn set_open(&self, live: Arc<Live>) {
        self.slot.set(SlotState::Open(live));
        self.generation.send_modify(|g| *g += 1);
    }

    fn set_down(&self, error: Error) {
        let was_open = self.slot.live().is_some();
        self.slot.set(SlotState::Down(error.to_string()));
        if was_open {
            self.generation.send_modify(|g| *g += 1);
        }
    }

    /// `resources/updated` for the schema and every table of the old and
    /// new catalogue (only subscribers hear it).
    fn announce_schema_change(&self, before: &Live) {
        let Some(server) = self.attached.0.get() else { return };
        let name = &self.resolved.spec.name;
        server.notify_resource_updated(resources::schema_uri(name));
        let mut tables: Vec<String> =
            before.catalog.tables.iter().map(crate::Table::qualified_name).collect();
        if let Some(now) = self.slot.live() {
            tables.extend(now.catalog.tables.iter().map(crate::Table::qualified_name));
        }
        tables.sort();
        tables.dedup();
        for table in tables {
            server.notify_resource_updated(resources::table_uri(name, &table));
        }
    }
}
