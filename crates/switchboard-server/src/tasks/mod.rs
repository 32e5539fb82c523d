//! The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663,
//! `ext-tasks/specification/draft/tasks.md`): a `tools/call` answered with a
//! durable task handle instead of its result, polled with `tasks/get`,
//! given input with `tasks/update`, cancelled with `tasks/cancel`.
//!
//! Why it is built this way:
//!
//! - **Durable first.** The task record is written to the server's state
//!   store (in memory, or shared through Redis) before the
//!   `CreateTaskResult` leaves, so a `tasks/get` anywhere behind the same
//!   address resolves at once, and the record outlives the connection.
//! - **The same handler.** A task runs the tool's ordinary handler in the
//!   background. Its questions ([`RequestContext::input`](crate::RequestContext::input)) park the task in
//!   `input_required` with the questions as `inputRequests`, and the handler
//!   simply waits: `tasks/update` (on any instance) stores the answers in
//!   the record, and the waiting handler picks them up and goes on. A tool
//!   that should gather input synchronously first (multi round-trip) and
//!   only then go asynchronous calls [`RequestContext::start_task`](crate::RequestContext::start_task) at that
//!   point instead ([`Tool::task_started_by_handler`](crate::Tool::task_started_by_handler)).
//! - **Server-directed, client-gated.** A task is only ever created for a
//!   request whose own capabilities declare the extension; a tool that
//!   *requires* a task answers other requests with `-32021`; `tasks/*`
//!   from a request that did not declare it are `-32021` too.
//! - **One caller's tasks.** A task is bound to the principal that created
//!   it; to anybody else it does not exist (`-32602`), like an unknown id.
//!   Ids are 128 random bits.
//!
//! Outcomes follow the extension's error semantics: a tool result, even one
//! with `isError: true`, is `completed`; a JSON-RPC error (or a panic) is
//! `failed` with `error`; `tasks/cancel` stops the handler (cooperatively:
//! it is dropped at its next await) and the task settles as `cancelled`.
//! Progress and log notifications are not sent for tasks (the extension
//! does not support them).
//!
//! **Two wire shapes, one store.** Handshake-era clients of 2025-11-25 that
//! declare the `tasks` capability get that revision's experimental tasks
//! (`docs/specification/2025-11-25/basic/utilities/tasks.mdx`) over the
//! same records and runner: a `task` param on `tools/call`, `tasks/get`,
//! `tasks/result` (blocks until terminal), `tasks/list`, `tasks/cancel`
//! and `notifications/tasks/status`. Every difference of that shape in the
//! store lives in `v2025_11_25`: the `Task` view of a record
//! (`ttl`/`pollInterval`, a tool result with `isError` reported as
//! `failed`), cancel that settles at once and refuses a terminal task, the
//! result of a finished task, and input asked through live server-to-client
//! requests tagged with `io.modelcontextprotocol/related-task` while the
//! task shows `input_required`. The five methods, with the `-32601` and
//! `-32021` rules for a client that may not use tasks, are handlers of
//! their own rows in `methods.rs`.
//!
//! Every status change is published on the server's event bus
//! ([`ServerEvent::TaskStatus`]), so it
//! reaches the creating 2025-11-25 session and 2026-07-28 listen streams
//! that asked for the task on any instance sharing the state store.

pub(crate) mod methods;
pub(crate) mod v2025_11_25;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use switchboard_types::{ClientCapabilities, ErrorObject};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::input::{InputError, InputRequest};
use crate::session::Session;
use crate::session::events::{EventBus, ServerEvent, TaskStatusEvent};
use crate::store::{StateStore, store_unavailable};

/// The extension's identifier.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// Whether a tool runs as a task (the extension's per-tool task support).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TaskSupport {
    /// Never: the tool always answers in place (the default).
    #[default]
    Forbidden,
    /// When the request declares the extension; in place otherwise.
    Optional,
    /// Only as a task: a request that does not declare the extension gets
    /// `-32021` naming it.
    Required,
}

/// The `-32021` a request gets when it needs the extension and did not
/// declare it.
pub(crate) fn extension_required(what: &str) -> ErrorObject {
    ErrorObject::missing_client_capability(
        format!("{what} needs the client capability extension {TASKS_EXTENSION}"),
        json!({"extensions": {TASKS_EXTENSION: {}}}),
    )
}

/// Whether this request declared the extension.
pub(crate) fn declared(caps: &ClientCapabilities) -> bool {
    caps.extension(TASKS_EXTENSION).is_some()
}

const TERMINAL: [&str; 3] = ["completed", "failed", "cancelled"];

/// One task as stored: the wire fields of a `DetailedTask` plus what only
/// the server sees (its owner, answers not yet consumed, a cancel request).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Record {
    id: String,
    status: String,
    #[serde(default)]
    status_message: Option<String>,
    created_at: String,
    last_updated_at: String,
    ttl_ms: u64,
    poll_interval_ms: u64,
    /// Outstanding questions, by key, in wire form.
    #[serde(default)]
    input_requests: Map<String, Value>,
    #[serde(default)]
    result: Option<Value>,
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    principal: Option<String>,
    /// Answers delivered by `tasks/update`, by key.
    #[serde(default)]
    answers: Map<String, Value>,
    #[serde(default)]
    cancel_requested: bool,
}

impl Record {
    fn is_terminal(&self) -> bool {
        TERMINAL.contains(&self.status.as_str())
    }

    /// The `DetailedTask` (tasks/get, and the seed of `CreateTaskResult`).
    fn wire(&self) -> Map<String, Value> {
        let mut task = Map::new();
        task.insert("taskId".into(), Value::String(self.id.clone()));
        task.insert("status".into(), Value::String(self.status.clone()));
        if let Some(message) = &self.status_message {
            task.insert("statusMessage".into(), Value::String(message.clone()));
        }
        task.insert("createdAt".into(), Value::String(self.created_at.clone()));
        task.insert("lastUpdatedAt".into(), Value::String(self.last_updated_at.clone()));
        task.insert("ttlMs".into(), Value::from(self.ttl_ms));
        task.insert("pollIntervalMs".into(), Value::from(self.poll_interval_ms));
        match self.status.as_str() {
            "input_required" => {
                task.insert("inputRequests".into(), Value::Object(self.input_requests.clone()));
            }
            "completed" => {
                task.insert("result".into(), self.result.clone().unwrap_or_else(|| json!({})));
            }
            "failed" => {
                task.insert("error".into(), self.error.clone().unwrap_or_else(|| json!({})));
            }
            _ => {}
        }
        task
    }
}

fn now_iso() -> String {
    humantime::format_rfc3339_millis(SystemTime::now()).to_string()
}

fn new_id() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the operating system's random source is available");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn not_found(id: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!("no task {id:?} (unknown, expired, or not yours)"))
}

/// What this instance knows of the tasks it runs.
struct Running {
    cancel: CancellationToken,
    wake: Arc<Notify>,
}

/// The task store and runner of one server.
pub(crate) struct Tasks {
    store: Arc<dyn StateStore>,
    /// Where status changes are published.
    events: EventBus,
    running: Mutex<HashMap<String, Running>>,
    /// How long a task is kept (its `ttlMs`).
    ttl: Duration,
    /// The polling interval suggested to clients, and how often a running
    /// task checks the store for answers and cancellation from elsewhere.
    poll: Duration,
    /// Whether the Tasks extension is offered (so `tasks/*` exist and a
    /// task-capable tool may become a task).
    offered: bool,
}

impl std::fmt::Debug for Tasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tasks").field("ttl", &self.ttl).field("poll", &self.poll).finish_non_exhaustive()
    }
}

fn key(id: &str) -> String {
    format!("task:{id}")
}

/// The log of the tasks one owner created (for `tasks/list`): by principal,
/// or without one by the 2025-11-25 connection that created them.
fn owner_log(principal: Option<&str>, session: Option<&Session>) -> Option<String> {
    match (principal, session) {
        (Some(subject), _) => Some(format!("tasks-of:principal:{subject}")),
        (None, Some(session)) => Some(format!("tasks-of:connection:{}", session.task_scope())),
        (None, None) => None,
    }
}

/// At most this many tasks are listed per owner (the newest).
const LISTED_PER_OWNER: usize = 1000;

impl Tasks {
    pub(crate) fn new(
        store: Arc<dyn StateStore>,
        events: EventBus,
        ttl: Duration,
        poll: Duration,
        offered: bool,
    ) -> Self {
        Self { store, events, running: Mutex::new(HashMap::new()), ttl, poll, offered }
    }

    /// Whether the Tasks extension is offered.
    pub(crate) fn offered(&self) -> bool {
        self.offered
    }

    /// The store the tasks live in (the server's state store).
    pub(crate) fn store(&self) -> Arc<dyn StateStore> {
        Arc::clone(&self.store)
    }

    fn wake(&self, id: &str) -> Option<Arc<Notify>> {
        self.running.lock().expect("tasks lock poisoned").get(id).map(|r| Arc::clone(&r.wake))
    }

    async fn load(&self, id: &str) -> Result<Option<(Vec<u8>, Record)>, ErrorObject> {
        let bytes = self.store.get(&key(id)).await.map_err(|e| store_unavailable(&e, false))?;
        Ok(bytes.and_then(|b| serde_json::from_slice(&b).ok().map(|r| (b, r))))
    }

    /// Loads the task as `principal` sees it.
    async fn visible(&self, id: &str, principal: Option<&str>) -> Result<(Vec<u8>, Record), ErrorObject> {
        match self.load(id).await? {
            Some((bytes, record)) if record.principal.as_deref() == principal => Ok((bytes, record)),
            _ => Err(not_found(id)),
        }
    }

    /// Changes the stored record with `change` (read, change,
    /// compare-and-set, again on a concurrent write). Returns the record
    /// as written, or `None` when `change` declined (returned false) or
    /// the task is gone.
    async fn update(
        &self,
        id: &str,
        mut change: impl FnMut(&mut Record) -> bool,
    ) -> Result<Option<Record>, ErrorObject> {
        // Bounded: each retry means another writer succeeded meanwhile.
        for _ in 0..64 {
            let Some((bytes, mut record)) = self.load(id).await? else { return Ok(None) };
            let before = record.status.clone();
            if !change(&mut record) {
                return Ok(None);
            }
            record.last_updated_at = now_iso();
            let next = serde_json::to_vec(&record).expect("a record serializes; qed");
            let swapped = self
                .store
                .compare_and_set(&key(id), Some(&bytes), next, self.ttl)
                .await
                .map_err(|e| store_unavailable(&e, true))?;
            if swapped {
                if let Some(wake) = self.wake(id) {
                    wake.notify_waiters();
                }
                if record.status != before {
                    self.events.send(ServerEvent::TaskStatus(TaskStatusEvent {
                        task: Value::Object(record.wire()),
                    }));
                }
                return Ok(Some(record));
            }
        }
        Err(ErrorObject::internal(format!("task {id:?} is changing too fast to update")))
    }

    /// Creates a task durably and returns its handle; the caller runs the
    /// work and reports with [`TaskRun::finish`].
    /// `session` is set for a 2025-11-25 task: its input goes through live
    /// requests on that connection, which also lists it when there is no
    /// principal.
    pub(crate) async fn create(
        self: &Arc<Self>,
        principal: Option<String>,
        session: Option<Arc<Session>>,
    ) -> Result<Arc<TaskRun>, ErrorObject> {
        let now = now_iso();
        let record = Record {
            id: new_id(),
            status: "working".into(),
            status_message: None,
            created_at: now.clone(),
            last_updated_at: now,
            ttl_ms: u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX),
            poll_interval_ms: u64::try_from(self.poll.as_millis()).unwrap_or(u64::MAX),
            input_requests: Map::new(),
            result: None,
            error: None,
            principal,
            answers: Map::new(),
            cancel_requested: false,
        };
        let bytes = serde_json::to_vec(&record).expect("a record serializes; qed");
        let stored = self
            .store
            .set_if_absent(&key(&record.id), bytes, self.ttl)
            .await
            .map_err(|e| store_unavailable(&e, true))?;
        if !stored {
            return Err(ErrorObject::internal("task id collision; try again"));
        }
        if let Some(log) = owner_log(record.principal.as_deref(), session.as_deref()) {
            self.store
                .append(&log, record.id.clone().into_bytes(), LISTED_PER_OWNER, self.ttl)
                .await
                .map_err(|e| store_unavailable(&e, true))?;
        }
        if let Some(session) = &session {
            session.track_task(&record.id);
        }
        let cancel = CancellationToken::new();
        let wake = Arc::new(Notify::new());
        self.running
            .lock()
            .expect("tasks lock poisoned")
            .insert(record.id.clone(), Running { cancel: cancel.clone(), wake: Arc::clone(&wake) });
        Ok(Arc::new(TaskRun {
            tasks: Arc::clone(self),
            seed: record.wire(),
            id: record.id,
            cancel,
            wake,
            session,
        }))
    }

    /// `tasks/get`.
    pub(crate) async fn get(
        &self,
        id: &str,
        principal: Option<&str>,
    ) -> Result<Map<String, Value>, ErrorObject> {
        Ok(self.visible(id, principal).await?.1.wire())
    }

    /// `tasks/update`: stores the answers to questions now outstanding and
    /// ignores the rest.
    pub(crate) async fn answer(
        &self,
        id: &str,
        principal: Option<&str>,
        responses: Map<String, Value>,
    ) -> Result<(), ErrorObject> {
        self.visible(id, principal).await?;
        self.update(id, |record| {
            let fresh: Vec<(String, Value)> = responses
                .iter()
                .filter(|(k, v)| record.input_requests.contains_key(*k) && v.is_object())
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            if fresh.is_empty() || record.is_terminal() {
                return false;
            }
            for (k, v) in fresh {
                record.input_requests.remove(&k);
                record.answers.insert(k, v);
            }
            if record.input_requests.is_empty() && record.status == "input_required" {
                record.status = "working".into();
                record.status_message = None;
            }
            true
        })
        .await?;
        Ok(())
    }

    /// `tasks/cancel`: asks the task to stop; a terminal task is left as
    /// it is (the ack is the same).
    pub(crate) async fn cancel(&self, id: &str, principal: Option<&str>) -> Result<(), ErrorObject> {
        self.visible(id, principal).await?;
        self.update(id, |record| {
            if record.is_terminal() || record.cancel_requested {
                return false;
            }
            record.cancel_requested = true;
            true
        })
        .await?;
        if let Some(running) = self.running.lock().expect("tasks lock poisoned").get(id) {
            running.cancel.cancel();
        }
        Ok(())
    }
}

/// A running task: what its handler's context and the dispatcher hold.
pub(crate) struct TaskRun {
    tasks: Arc<Tasks>,
    id: String,
    /// The record as created (the `CreateTaskResult`).
    seed: Map<String, Value>,
    cancel: CancellationToken,
    wake: Arc<Notify>,
    /// The connection of a 2025-11-25 task (its input is asked live there).
    session: Option<Arc<Session>>,
}

impl std::fmt::Debug for TaskRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskRun").field("id", &self.id).finish_non_exhaustive()
    }
}

impl TaskRun {
    /// The `CreateTaskResult` fields.
    pub(crate) fn created(&self) -> Map<String, Value> {
        self.seed.clone()
    }

    /// The `tools/call` answer that hands this task to the client, in the
    /// shape of the request's model.
    pub(crate) fn created_output(&self) -> crate::output::Output {
        match self.session {
            Some(_) => crate::output::Output::Map(crate::task_wire::create_task_result(&self.seed)),
            None => crate::output::Output::Task(self.created()),
        }
    }

    /// The connection of a 2025-11-25 task (`None` for the extension's).
    pub(crate) fn session(&self) -> Option<&Arc<Session>> {
        self.session.as_ref()
    }

    /// Fires on `tasks/cancel`.
    pub(crate) fn cancel_token(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Watches the store for a cancellation requested on another instance,
    /// until the token fires (here or there). Runs beside the handler.
    pub(crate) async fn watch_remote_cancel(&self) {
        let mut tick = tokio::time::interval(self.tasks.poll.max(Duration::from_millis(50)));
        loop {
            tokio::select! {
                _ = self.cancel.cancelled() => return,
                _ = tick.tick() => {}
            }
            if let Ok(Some((_, record))) = self.tasks.load(&self.id).await
                && record.cancel_requested
            {
                self.cancel.cancel();
                return;
            }
        }
    }

    /// Asks the client through the task: parks it in `input_required` with
    /// the questions not yet answered and waits for `tasks/update` to
    /// answer all of them (checking the store every poll interval, or at
    /// once when the answer lands on this instance).
    pub(crate) async fn ask(
        &self,
        caps: &ClientCapabilities,
        questions: Vec<(String, InputRequest)>,
    ) -> Result<BTreeMap<String, Value>, InputError> {
        if let Some((_, q)) = questions.iter().find(|(_, q)| !q.is_declared_by(caps)) {
            return Err(InputError::NotDeclared { capability: q.capability() });
        }
        if let Some(session) = &self.session {
            return v2025_11_25::ask_live(self, session, questions).await;
        }
        let failed = |e: ErrorObject| InputError::Failed(e);
        loop {
            let wake = self.wake.notified();
            tokio::pin!(wake);
            wake.as_mut().enable();
            let record = self.tasks.load(&self.id).await.map_err(failed)?.map(|(_, r)| r);
            let Some(record) = record else {
                return Err(failed(ErrorObject::internal("the task expired while waiting for input")));
            };
            if questions.iter().all(|(k, _)| record.answers.contains_key(k)) {
                return Ok(questions.iter().map(|(k, _)| (k.clone(), record.answers[k].clone())).collect());
            }
            let missing: Vec<(String, Value)> = questions
                .iter()
                .filter(|(k, _)| !record.answers.contains_key(k) && !record.input_requests.contains_key(k))
                .map(|(k, q)| (k.clone(), json!({"method": q.method(), "params": q.params()})))
                .collect();
            if !missing.is_empty() {
                self.tasks
                    .update(&self.id, |r| {
                        if r.is_terminal() {
                            return false;
                        }
                        for (k, wire) in &missing {
                            if !r.answers.contains_key(k) {
                                r.input_requests.insert(k.clone(), wire.clone());
                            }
                        }
                        r.status = "input_required".into();
                        r.status_message = Some("waiting for the client's input".into());
                        true
                    })
                    .await
                    .map_err(failed)?;
                continue;
            }
            tokio::select! {
                _ = self.cancel.cancelled() => {
                    return Err(failed(ErrorObject::internal("the task was cancelled")));
                }
                _ = &mut wake => {}
                _ = tokio::time::sleep(self.tasks.poll) => {}
            }
        }
    }

    /// Records how the task ended: a result (`completed`, tool errors
    /// included), a JSON-RPC error (`failed`), or `None` for cancelled.
    pub(crate) async fn finish(&self, outcome: Option<Result<Map<String, Value>, ErrorObject>>) {
        let (status, result, error, message) = match outcome {
            Some(Ok(result)) => ("completed", Some(Value::Object(result)), None, None),
            Some(Err(e)) => {
                let message = e.message.to_string();
                (
                    "failed",
                    None,
                    Some(serde_json::to_value(&e).expect("errors serialize; qed")),
                    Some(message),
                )
            }
            None => ("cancelled", None, None, Some("cancelled by the client".to_owned())),
        };
        let written = self
            .tasks
            .update(&self.id, |r| {
                if r.is_terminal() {
                    return false;
                }
                r.status = status.into();
                r.status_message = message.clone();
                r.result = result.clone();
                r.error = error.clone();
                r.input_requests.clear();
                true
            })
            .await;
        if let Err(e) = written {
            tracing::warn!(task = %self.id, error = %e, "could not record how a task ended");
        }
        self.tasks.running.lock().expect("tasks lock poisoned").remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryStore;

    fn tasks() -> Arc<Tasks> {
        Arc::new(Tasks::new(
            MemoryStore::new(),
            EventBus::new(16),
            Duration::from_secs(60),
            Duration::from_millis(20),
            true,
        ))
    }

    #[tokio::test]
    async fn a_task_is_readable_at_once_and_only_by_its_owner() {
        let tasks = tasks();
        let run = tasks.create(Some("alice".into()), None).await.unwrap();
        let id = run.created()["taskId"].as_str().unwrap().to_owned();
        assert_eq!(tasks.get(&id, Some("alice")).await.unwrap()["status"], "working");
        assert!(tasks.get(&id, Some("bob")).await.is_err());
        assert!(tasks.get(&id, None).await.is_err());
        assert!(tasks.get("nope", Some("alice")).await.is_err());
        run.finish(Some(Ok(Map::from_iter([("content".into(), json!([]))])))).await;
        let done = tasks.get(&id, Some("alice")).await.unwrap();
        assert_eq!(done["status"], "completed");
        assert_eq!(done["result"], json!({"content": []}));
        // Terminal is final.
        run.finish(None).await;
        assert_eq!(tasks.get(&id, Some("alice")).await.unwrap()["status"], "completed");
        tasks.cancel(&id, Some("alice")).await.unwrap();
        assert_eq!(tasks.get(&id, Some("alice")).await.unwrap()["status"], "completed");
    }

    #[tokio::test]
    async fn questions_park_the_task_until_every_answer_arrives() {
        let tasks = tasks();
        let run = tasks.create(None, None).await.unwrap();
        let id = run.created()["taskId"].as_str().unwrap().to_owned();
        let caps: ClientCapabilities = serde_json::from_value(json!({"elicitation": {}})).unwrap();
        let asking = {
            let run = Arc::clone(&run);
            tokio::spawn(async move {
                let questions = vec![
                    ("a".to_owned(), InputRequest::elicit("A?", json!({"type": "object"}))),
                    ("b".to_owned(), InputRequest::elicit("B?", json!({"type": "object"}))),
                ];
                run.ask(&caps, questions).await
            })
        };
        let mut parked = Map::new();
        for _ in 0..200 {
            parked = tasks.get(&id, None).await.unwrap();
            if parked["status"] == "input_required" {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(parked["inputRequests"].as_object().unwrap().len(), 2, "{parked:?}");
        let answer = json!({"action": "accept", "content": {}});
        tasks
            .answer(&id, None, Map::from_iter([("a".into(), answer.clone()), ("zzz".into(), answer.clone())]))
            .await
            .unwrap();
        let partial = tasks.get(&id, None).await.unwrap();
        assert_eq!(partial["status"], "input_required");
        assert_eq!(partial["inputRequests"].as_object().unwrap().keys().collect::<Vec<_>>(), ["b"]);
        tasks.answer(&id, None, Map::from_iter([("b".into(), answer)])).await.unwrap();
        let answers = tokio::time::timeout(Duration::from_secs(5), asking).await.unwrap().unwrap().unwrap();
        assert_eq!(answers.len(), 2);
        assert_eq!(tasks.get(&id, None).await.unwrap()["status"], "working");
    }
}
