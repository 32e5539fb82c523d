//! What a handler knows about the request it serves, and how it talks back.
//!
//! A [`RequestContext`] is cheap to clone and carries the request id, the
//! negotiated (or per-request) protocol revision, a cancellation token that
//! fires on `notifications/cancelled` (or a closed stream), the caller's
//! progress token and identity. Progress sent through it is dropped once the
//! request has been answered or cancelled, so a handler can never emit
//! progress after its response (spec: `basic/utilities/progress.mdx`).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

use serde_json::Value;
use serde_json::value::RawValue;
use switchboard_types::jsonrpc::encode_notification;
use switchboard_types::logging::{LoggingLevel, LoggingMessageParams};
use switchboard_types::notifications::{ProgressParams, ProgressToken, method};
use switchboard_types::{
    ClientCapabilities, Era, ErrorObject, Implementation, Meta, ProtocolVersion, RequestId,
};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::input::{InputError, InputRequest, InputRound};
use crate::session::caller::{Outbound, Principal, RequestHeaders};
use crate::shape;
use crate::tasks::{TaskRun, Tasks};
use crate::trace_context::TraceContext;

/// Per-request information and capabilities handed to handlers.
#[derive(Debug, Clone)]
pub struct RequestContext {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    id: RequestId,
    version: ProtocolVersion,
    cancel: CancellationToken,
    progress_token: Option<ProgressToken>,
    last_progress: Mutex<Option<f64>>,
    finished: AtomicBool,
    outbound: Outbound,
    principal: Option<Principal>,
    client_info: Option<Implementation>,
    client_capabilities: ClientCapabilities,
    /// `_meta` as sent (an object), parsed into [`Inner::meta`] when a
    /// handler first asks.
    meta_raw: Option<Box<RawValue>>,
    meta: OnceLock<Option<Meta>>,
    trace: Option<TraceContext>,
    log_level: Option<LoggingLevel>,
    peer: Option<Arc<crate::session::Session>>,
    headers: Option<RequestHeaders>,
    input: Option<Arc<InputRound>>,
    /// Set when this `tools/call` may become a task.
    tasks: OnceLock<Arc<Tasks>>,
    /// Set once it did.
    task: OnceLock<Arc<TaskRun>>,
    task_started: tokio::sync::Notify,
}

/// Everything needed to build a [`RequestContext`]; filled by the dispatcher.
#[derive(Debug)]
pub(crate) struct ContextParts {
    pub id: RequestId,
    pub version: ProtocolVersion,
    pub cancel: CancellationToken,
    pub progress_token: Option<ProgressToken>,
    pub outbound: Outbound,
    pub principal: Option<Principal>,
    pub client_info: Option<Implementation>,
    pub client_capabilities: ClientCapabilities,
    /// The request's `_meta` object as sent; the map
    /// [`RequestContext::meta`] returns is built from it on first use (most
    /// handlers never ask, and building it was measurable on every request).
    pub meta: Option<Box<RawValue>>,
    /// `traceparent` / `tracestate` / `baggage` from `meta`.
    pub trace: Option<TraceContext>,
    /// Threshold for `notifications/message`; `None` sends no log messages.
    pub log_level: Option<LoggingLevel>,
    /// The session to send server→client requests through (handshake-era only).
    pub peer: Option<Arc<crate::session::Session>>,
    /// The transport's headers (HTTP).
    pub headers: Option<RequestHeaders>,
    /// The multi round-trip state of a 2026-07-28 request that may end in
    /// an `InputRequiredResult` (see [`crate::input`]).
    pub input: Option<Arc<InputRound>>,
}

impl RequestContext {
    pub(crate) fn new(p: ContextParts) -> Self {
        Self {
            inner: Arc::new(Inner {
                id: p.id,
                version: p.version,
                cancel: p.cancel,
                progress_token: p.progress_token,
                last_progress: Mutex::new(None),
                finished: AtomicBool::new(false),
                outbound: p.outbound,
                principal: p.principal,
                client_info: p.client_info,
                client_capabilities: p.client_capabilities,
                meta_raw: p.meta,
                meta: OnceLock::new(),
                trace: p.trace,
                log_level: p.log_level,
                peer: p.peer,
                headers: p.headers,
                input: p.input,
                tasks: OnceLock::new(),
                task: OnceLock::new(),
                task_started: tokio::sync::Notify::new(),
            }),
        }
    }

    /// A context for calling a handler outside any connection (unit tests,
    /// `switchboard call`): latest revision, no progress token, nobody listening.
    pub fn detached(id: RequestId) -> Self {
        Self::detached_as(id, None)
    }

    /// Like [`RequestContext::detached`], acting as `principal`.
    pub fn detached_as(id: RequestId, principal: Option<Principal>) -> Self {
        let (tx, _rx) = mpsc::channel(1);
        Self::new(ContextParts {
            id,
            version: ProtocolVersion::LATEST,
            cancel: CancellationToken::new(),
            progress_token: None,
            outbound: tx,
            principal,
            client_info: None,
            client_capabilities: ClientCapabilities::default(),
            meta: None,
            trace: None,
            log_level: None,
            peer: None,
            headers: None,
            input: None,
        })
    }

    /// The transport's headers for this request (HTTP; `None` on stdio),
    /// names lower-case.
    pub fn headers(&self) -> Option<&[(String, String)]> {
        self.inner.headers.as_ref().map(RequestHeaders::pairs)
    }

    /// The first value of header `name` (case-insensitive), if any.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers()?.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The JSON-RPC id of the request.
    pub fn request_id(&self) -> &RequestId {
        &self.inner.id
    }

    /// The protocol revision this request is served under.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.inner.version
    }

    /// The caller's identity, if the transport authenticated one.
    pub fn principal(&self) -> Option<&Principal> {
        self.inner.principal.as_ref()
    }

    /// The client's self-reported identity (not for security decisions).
    pub fn client_info(&self) -> Option<&Implementation> {
        self.inner.client_info.as_ref()
    }

    /// What the client declared it can do: negotiated by `initialize`
    /// (handshake-era) or sent with this very request (2026-07-28).
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.inner.client_capabilities
    }

    /// MCP Apps: what the client declared under
    /// `capabilities.extensions["io.modelcontextprotocol/ui"]` (from
    /// `initialize` for a handshake-era session; from the request's own
    /// client capabilities in 2026-07-28), or `None` when it did not
    /// declare the extension. A tool with a view can answer a host that
    /// renders it ([`UiSupport::renders_html`](switchboard_types::apps::UiSupport::renders_html))
    /// with a result made for the view, and everyone else with plain content.
    pub fn ui_support(&self) -> Option<switchboard_types::apps::UiSupport> {
        let settings = self.inner.client_capabilities.extension(switchboard_types::apps::EXTENSION)?;
        switchboard_types::apps::UiSupport::from_capabilities(settings)
    }

    /// The request's `_meta`, as sent.
    pub fn meta(&self) -> Option<&Meta> {
        let raw = self.inner.meta_raw.as_deref();
        self.inner.meta.get_or_init(|| raw.and_then(|raw| serde_json::from_str(raw.get()).ok())).as_ref()
    }

    /// The W3C trace context (`traceparent`, `tracestate`, `baggage`) the
    /// request's `_meta` carried, as sent; `None` without any. With the
    /// `otel` feature a valid one is also the parent of the request's
    /// `mcp.request` span (see [`crate::trace_context`]).
    pub fn trace_context(&self) -> Option<&TraceContext> {
        self.inner.trace.as_ref()
    }

    /// True once the client cancelled this request.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancel.is_cancelled()
    }

    /// Completes when the client cancels this request. The dispatcher already
    /// drops the handler's future on cancellation; use this to stop work that
    /// runs elsewhere (a spawned task, a child process).
    pub async fn cancelled(&self) {
        self.inner.cancel.cancelled().await
    }

    /// The cancellation token itself, to hand to other tasks.
    pub fn cancellation_token(&self) -> CancellationToken {
        self.inner.cancel.clone()
    }

    /// The caller's progress token, if it asked for progress.
    pub fn progress_token(&self) -> Option<&ProgressToken> {
        self.inner.progress_token.as_ref()
    }

    /// Reports progress. Sends `notifications/progress` only when the caller
    /// gave a progress token, the request is still running, and `progress`
    /// is greater than the last value sent (the spec requires strictly
    /// increasing values); otherwise it does nothing. Returns whether a
    /// notification was queued.
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) -> bool {
        let Some(token) = &self.inner.progress_token else { return false };
        // A 2025-11-25 task's token stays valid until the task ends
        // (`2025-11-25/basic/utilities/tasks.mdx` §Task Progress
        // Notifications): once the request was answered with its
        // `CreateTaskResult`, its progress goes on the connection's stream.
        let outbound = match (self.inner.finished.load(Ordering::Acquire), self.task_session_2025_11_25()) {
            (false, _) => &self.inner.outbound,
            (true, Some(session)) => session.outbound(),
            (true, None) => return false,
        };
        if self.is_cancelled() || !progress.is_finite() {
            return false;
        }
        {
            let mut last = self.inner.last_progress.lock().expect("progress lock poisoned");
            if last.is_some_and(|l| progress <= l) {
                return false;
            }
            *last = Some(progress);
        }
        let params = ProgressParams {
            progress_token: token.clone(),
            progress,
            total,
            message: message.map(str::to_owned),
        };
        let params = shape::progress(params, self.inner.version);
        let bytes = encode_notification(method::PROGRESS, Some(&params));
        outbound.send(bytes).await.is_ok()
    }

    /// The connection of the 2025-11-25 task this request became, if it did.
    fn task_session_2025_11_25(&self) -> Option<&Arc<crate::session::Session>> {
        self.inner.task.get().and_then(|task| task.session())
    }

    /// Sends a log message (`notifications/message`) about this request, if
    /// the server offers logging and `level` is at or above the client's
    /// threshold: the level set with `logging/setLevel` (handshake-era; the
    /// server's default before that), or the request's own
    /// `io.modelcontextprotocol/logLevel` (2026-07-28; none when absent).
    /// Returns whether a message was queued. Keep secrets and personal data
    /// out of `data`.
    pub async fn log(&self, level: LoggingLevel, logger: Option<&str>, data: Value) -> bool {
        let Some(threshold) = self.inner.log_level else { return false };
        if level < threshold || self.is_cancelled() || self.inner.finished.load(Ordering::Acquire) {
            return false;
        }
        let params = LoggingMessageParams { level, logger: logger.map(str::to_owned), data };
        let bytes = encode_notification(method::MESSAGE, Some(&params));
        self.inner.outbound.send(bytes).await.is_ok()
    }

    /// Sends a request to the client and waits for its answer: the handshake-era
    /// revisions' `sampling/createMessage`, `elicitation/create` and
    /// `roots/list`. Fails with `-32601` when the client did not declare
    /// the capability the method needs, and in the 2026-07-28 model, where
    /// servers may not send requests. Cancelling this request abandons the
    /// wait.
    pub async fn request_client(&self, method: &str, params: Value) -> Result<Value, ErrorObject> {
        let Some(session) = &self.inner.peer else {
            return Err(ErrorObject::method_not_found(method).with_data(serde_json::json!({
                "reason": "the 2026-07-28 model has no server-to-client requests"
            })));
        };
        let caps = &self.inner.client_capabilities;
        let declared = match method {
            "sampling/createMessage" => caps.sampling.is_some(),
            "elicitation/create" => caps.elicitation.is_some(),
            "roots/list" => caps.roots.is_some(),
            _ => true,
        };
        if !declared {
            return Err(ErrorObject::method_not_found(method).with_data(serde_json::json!({
                "reason": "the client did not declare the capability this request needs"
            })));
        }
        tokio::select! {
            r = session.request_client(&self.inner.outbound, method, params) => r,
            _ = self.inner.cancel.cancelled() => Err(ErrorObject::internal("the request was cancelled")),
        }
    }

    /// Asks the client one question and returns its answer (an
    /// `ElicitResult`, `CreateMessageResult` or `ListRootsResult` object).
    ///
    /// In the handshake era this is a live request to the client. In
    /// 2026-07-28 it is a multi round-trip request: the first time, it
    /// returns [`InputError::Pending`], which the handler propagates with
    /// `?` so the request ends with an `InputRequiredResult`; when the
    /// client retries with its answer under `key`, the handler runs again
    /// and this call returns it (see [`crate::input`]). Keys name the
    /// question within the request; use a different key for each.
    pub async fn input(&self, key: &str, request: InputRequest) -> Result<Value, InputError> {
        let mut answers = self.inputs([(key, request)]).await?;
        Ok(answers.remove(key).unwrap_or(Value::Null))
    }

    /// Asks several questions at once (one `InputRequiredResult` lists them
    /// all; the handshake era sends them concurrently) and returns the
    /// answers by key.
    pub async fn inputs<K: Into<String>>(
        &self,
        questions: impl IntoIterator<Item = (K, InputRequest)>,
    ) -> Result<BTreeMap<String, Value>, InputError> {
        let questions: Vec<(String, InputRequest)> =
            questions.into_iter().map(|(k, q)| (k.into(), q)).collect();
        if let Some(task) = self.inner.task.get() {
            return task.ask(&self.inner.client_capabilities, questions).await;
        }
        if let Some(round) = &self.inner.input {
            return round.answer(&self.inner.client_capabilities, questions);
        }
        if self.inner.peer.is_none() {
            return Err(InputError::Failed(ErrorObject::internal(
                if self.inner.version.era() == Era::Handshake {
                    "this connection cannot carry requests to the client"
                } else {
                    "input requests are allowed only on tools/call, prompts/get and resources/read"
                },
            )));
        }
        if let Some((_, q)) =
            questions.iter().find(|(_, q)| !q.is_declared_by(&self.inner.client_capabilities))
        {
            return Err(InputError::NotDeclared { capability: q.capability() });
        }
        let asked = questions.into_iter().map(|(key, q)| async move {
            let answer = self.request_client(q.method(), q.params().clone()).await;
            (key, answer)
        });
        let mut answers = BTreeMap::new();
        for (key, answer) in futures::future::join_all(asked).await {
            answers.insert(key, answer.map_err(InputError::Failed)?);
        }
        Ok(answers)
    }

    /// Asks the user through a form elicitation (see [`RequestContext::input`]).
    pub async fn elicit(
        &self,
        key: &str,
        message: &str,
        requested_schema: Value,
    ) -> Result<Value, InputError> {
        self.input(key, InputRequest::elicit(message, requested_schema)).await
    }

    /// Asks the client's model one question, answered in at most
    /// `max_tokens` tokens (see [`RequestContext::input`]).
    pub async fn sample(&self, key: &str, text: &str, max_tokens: u32) -> Result<Value, InputError> {
        self.input(key, InputRequest::sample_text(text, max_tokens)).await
    }

    /// Asks the client for its roots (see [`RequestContext::input`]).
    pub async fn list_roots(&self, key: &str) -> Result<Value, InputError> {
        self.input(key, InputRequest::list_roots()).await
    }

    /// Whether `request` may be asked here: the client declared its
    /// capability, and the request can carry questions.
    pub fn can_ask(&self, request: &InputRequest) -> bool {
        request.is_declared_by(&self.inner.client_capabilities)
            && (self.inner.input.is_some() || self.inner.peer.is_some())
    }

    /// True when this 2026-07-28 request is a retry that carried a valid
    /// `requestState` issued by this server (or one sharing its key).
    pub fn resumed(&self) -> bool {
        self.inner.input.as_ref().is_some_and(|r| r.resumed())
    }

    /// A value stored with [`RequestContext::remember`] in an earlier round
    /// of this 2026-07-28 request.
    pub fn recall(&self, key: &str) -> Option<Value> {
        self.inner.input.as_ref()?.recall(key)
    }

    /// Stores a value for the next rounds of this 2026-07-28 request, in its
    /// `requestState`: signed, so the client cannot change it, but readable
    /// by the client, so never a secret. Does nothing in the handshake era,
    /// where a request has one round.
    pub fn remember(&self, key: &str, value: Value) {
        if let Some(round) = &self.inner.input {
            round.remember(key, value);
        }
    }

    /// Turns this `tools/call` into a task of the Tasks extension now, for a
    /// tool registered with
    /// [`Tool::task_started_by_handler`](crate::Tool::task_started_by_handler):
    /// the task is stored, the request is answered with its
    /// `CreateTaskResult`, and the handler goes on in the background (its
    /// later questions park the task in `input_required`; progress is no
    /// longer sent). Calling it again does nothing. Fails when the request
    /// cannot become a task (the client did not declare the extension, or
    /// the tool does not support tasks); check with
    /// [`RequestContext::can_start_task`].
    pub async fn start_task(&self) -> Result<(), ErrorObject> {
        if self.inner.task.get().is_some() {
            return Ok(());
        }
        let Some(tasks) = self.inner.tasks.get() else {
            return Err(crate::tasks::extension_required("this request cannot become a task: it"));
        };
        // A handshake-era request (2025-11-25 tasks) has its connection.
        let run = tasks.create(self.principal().map(|p| p.subject.clone()), self.inner.peer.clone()).await?;
        if self.inner.task.set(run).is_ok() {
            self.inner.task_started.notify_one();
        }
        Ok(())
    }

    /// Whether [`RequestContext::start_task`] can succeed here.
    pub fn can_start_task(&self) -> bool {
        self.inner.tasks.get().is_some()
    }

    /// Lets this request become a task (`tools/call` of a task-capable tool
    /// from a client that declared the extension).
    pub(crate) fn allow_tasks(&self, tasks: Arc<Tasks>) {
        let _ = self.inner.tasks.set(tasks);
    }

    /// The task this request became, if it did.
    pub(crate) fn started_task(&self) -> Option<Arc<TaskRun>> {
        self.inner.task.get().cloned()
    }

    /// Completes once this request became a task.
    pub(crate) async fn task_started(&self) -> Arc<TaskRun> {
        loop {
            let notified = self.inner.task_started.notified();
            if let Some(task) = self.inner.task.get() {
                return Arc::clone(task);
            }
            notified.await;
        }
    }

    /// The multi round-trip state of this request, if it has one.
    pub(crate) fn input_round(&self) -> Option<&Arc<InputRound>> {
        self.inner.input.as_ref()
    }

    /// Marks the request answered: later progress is dropped.
    pub(crate) fn finish(&self) {
        self.inner.finished.store(true, Ordering::Release);
    }
}

impl crate::tasks::methods::TaskCaller for RequestContext {
    fn era(&self) -> switchboard_types::Era {
        self.inner.version.era()
    }

    fn declared_capabilities(&self) -> &ClientCapabilities {
        &self.inner.client_capabilities
    }

    fn owner(&self) -> Option<&str> {
        self.inner.principal.as_ref().map(|p| p.subject.as_str())
    }
}
