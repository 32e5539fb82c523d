//! Per-connection state.
//!
//! A [`Session`] is what one client connection (a stdio process, later an
//! HTTP session) carries between messages: the revision and capabilities
//! negotiated by a handshake-era `initialize`, the requests in flight (so
//! `notifications/cancelled` can reach them), and the queue its outgoing
//! messages go through. Requests in the 2026-07-28 model never read the
//! negotiated state; they bring their own in `_meta`.
//!
//! How many requests may be registered at once is the session's too
//! ([`Session::in_flight_cap`]): a transport that answers each request on
//! its own (HTTP) keeps [`ServerOptions::max_in_flight`] and refuses the
//! excess with `-32029`; the line transport's connection loop stops reading
//! instead (backpressure, see `transport/connection.rs`) and raises the cap
//! to what it may hold, so only a batch too big for it is refused.
//!
//! [`ServerOptions::max_in_flight`]: crate::ServerOptions::max_in_flight

pub(crate) mod caller;
pub(crate) mod events;
pub(crate) mod limits;

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use switchboard_types::ErrorObject;
use switchboard_types::logging::LoggingLevel;
use tokio::sync::oneshot;

use serde_json::{Map, Value, json};
use switchboard_types::jsonrpc::encode_notification;
use switchboard_types::meta::SUBSCRIPTION_ID;
use switchboard_types::notifications::method;
use switchboard_types::subscriptions::SubscriptionFilter;
use switchboard_types::{ClientCapabilities, Implementation, ProtocolVersion, RequestId};
use tokio_util::sync::CancellationToken;

use crate::session::caller::{Outbound, Principal};
use crate::session::events::{ListKind, ServerEvent};

/// What [`ServerBuilder::on_client_notification`](crate::ServerBuilder::on_client_notification) calls: the session the
/// notification came on and its method.
#[derive(Clone)]
pub(crate) struct NotificationHook(pub(crate) std::sync::Arc<NotificationFn>);

/// The function inside a [`NotificationHook`].
type NotificationFn = dyn Fn(&std::sync::Arc<Session>, &str) + Send + Sync;

impl std::fmt::Debug for NotificationHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NotificationHook")
    }
}

/// What a handshake-era `initialize` settled.
#[derive(Debug, Clone)]
pub struct Negotiated {
    /// The agreed revision.
    pub version: ProtocolVersion,
    /// What the client said it can do.
    pub client_capabilities: ClientCapabilities,
    /// Who the client says it is.
    pub client_info: Implementation,
}

/// What a transport keeps of a negotiated handshake-era session so another
/// process can serve it ([`Session::snapshot`], [`Session::restore`]): the
/// handshake, the readiness, the log level and the resource subscriptions.
/// The principal is not part of it; the transport binds and checks it.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionSnapshot {
    /// The agreed revision.
    pub protocol_version: ProtocolVersion,
    /// What the client said it can do.
    pub client_capabilities: ClientCapabilities,
    /// Who the client says it is.
    pub client_info: Implementation,
    /// `notifications/initialized` was received.
    pub ready: bool,
    /// The `logging/setLevel` threshold, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_level: Option<LoggingLevel>,
    /// Handshake-era `resources/subscribe` URIs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subscriptions: Vec<String>,
}

#[derive(Debug, Clone)]
enum Lifecycle {
    /// Nothing but `ping` and 2026-07-28 requests until `initialize`.
    New,
    /// `initialize` answered; waiting for `notifications/initialized`.
    Initialized(Negotiated),
    /// `notifications/initialized` received: unsolicited notifications may flow.
    Ready(Negotiated),
}

/// One client connection.
#[derive(Debug)]
pub struct Session {
    lifecycle: Mutex<Lifecycle>,
    inflight: Mutex<HashMap<RequestId, CancellationToken>>,
    /// Registered requests allowed at once; 0 means the server's
    /// `max_in_flight` ([`Session::in_flight_cap`]).
    in_flight_cap: AtomicUsize,
    outbound: Outbound,
    principal: Option<Principal>,
    /// Handshake-era `resources/subscribe` URIs.
    subscriptions: Mutex<HashSet<String>>,
    /// 2026-07-28 `subscriptions/listen` streams: listen request id → accepted filter.
    listens: Mutex<HashMap<RequestId, SubscriptionFilter>>,
    /// Fires when the connection is closing, so listen streams end gracefully.
    closing: CancellationToken,
    /// Handshake-era `logging/setLevel` threshold.
    log_level: Mutex<Option<LoggingLevel>>,
    /// Requests this server sent to the client, waiting for answers.
    pending: Mutex<HashMap<RequestId, oneshot::Sender<Result<Value, ErrorObject>>>>,
    next_request: AtomicU64,
    /// Names this connection as the owner of its 2025-11-25 tasks when
    /// there is no principal (`tasks/list`): 128 random bits.
    task_scope: std::sync::OnceLock<String>,
    /// 2025-11-25 tasks this connection created and not yet seen end:
    /// their status changes are sent here (`notifications/tasks/status`).
    tasks: Mutex<HashSet<String>>,
    /// Shared by independent 2026-07-28 requests ([`Session::stateless`]).
    stateless: bool,
}

/// Which lists the server announces changes of (the `listChanged` flags it
/// advertises).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Announced {
    pub tools: bool,
    pub prompts: bool,
    pub resources: bool,
    /// Whether the server offers logging.
    pub logging: bool,
    /// The threshold of a session that never sent `logging/setLevel`.
    pub default_log_level: Option<LoggingLevel>,
}

impl Announced {
    fn covers(self, kind: ListKind) -> bool {
        match kind {
            ListKind::Tools => self.tools,
            ListKind::Prompts => self.prompts,
            ListKind::Resources | ListKind::ResourceTemplates => self.resources,
        }
    }
}

impl Session {
    pub(crate) fn new(outbound: Outbound, principal: Option<Principal>) -> Self {
        Self {
            lifecycle: Mutex::new(Lifecycle::New),
            inflight: Mutex::new(HashMap::new()),
            in_flight_cap: AtomicUsize::new(0),
            outbound,
            principal,
            subscriptions: Mutex::new(HashSet::new()),
            listens: Mutex::new(HashMap::new()),
            closing: CancellationToken::new(),
            log_level: Mutex::new(None),
            pending: Mutex::new(HashMap::new()),
            next_request: AtomicU64::new(0),
            task_scope: std::sync::OnceLock::new(),
            tasks: Mutex::new(HashSet::new()),
            stateless: false,
        }
    }

    /// The one session of a transport's independent 2026-07-28 requests
    /// (stateless Streamable HTTP): nothing links them but the server, so
    /// they need no session of their own, and building one per request was
    /// pure cost. Its requests are not registered by id (two clients may
    /// both send id 1, and nothing can cancel such a request but closing
    /// its own stream), count against no in-flight cap (each came alone on
    /// its connection), are rate-limited per principal, or only globally
    /// without one (each was its own connection), and send what belongs to
    /// them to the stream the transport passes in [`Via`](crate::Via). It
    /// refuses `initialize` and `subscriptions/listen`, which need a
    /// session of their own.
    pub(crate) fn stateless() -> Self {
        // Its own outbound queue has no reader: every message of its
        // requests goes to the request's stream.
        let (outbound, _) = tokio::sync::mpsc::channel(1);
        Self { stateless: true, ..Self::new(outbound, None) }
    }

    /// Whether this is a transport's shared session of independent
    /// 2026-07-28 requests ([`Server::stateless_session`](crate::Server::stateless_session)).
    pub fn is_stateless(&self) -> bool {
        self.stateless
    }

    /// This connection as an owner of tasks, when it has no principal: 128
    /// random bits, drawn on first use (every HTTP request builds a
    /// session, and almost none of them creates a task).
    pub(crate) fn task_scope(&self) -> &str {
        self.task_scope.get_or_init(|| {
            let mut bytes = [0u8; 16];
            getrandom::fill(&mut bytes).expect("the operating system's random source is available");
            bytes.iter().map(|b| format!("{b:02x}")).collect()
        })
    }

    /// Sends this 2025-11-25 task's status changes here.
    pub(crate) fn track_task(&self, id: &str) {
        self.tasks.lock().expect("tasks lock poisoned").insert(id.to_owned());
    }

    /// The negotiated state of a handshake-era session, once `initialize` has
    /// been answered: what [`Session::restore`] needs to serve it elsewhere.
    pub fn snapshot(&self) -> Option<SessionSnapshot> {
        let (negotiated, ready) = match &*self.lifecycle.lock().expect("lifecycle lock poisoned") {
            Lifecycle::New => return None,
            Lifecycle::Initialized(n) => (n.clone(), false),
            Lifecycle::Ready(n) => (n.clone(), true),
        };
        let mut subscriptions: Vec<String> =
            self.subscriptions.lock().expect("subscriptions lock poisoned").iter().cloned().collect();
        subscriptions.sort();
        Some(SessionSnapshot {
            protocol_version: negotiated.version,
            client_capabilities: negotiated.client_capabilities,
            client_info: negotiated.client_info,
            ready,
            log_level: self.log_level(),
            subscriptions,
        })
    }

    /// Makes this (fresh) session the negotiated session `snapshot`
    /// describes, without a handshake: for transports serving a session
    /// another process opened (shared state behind a load balancer). Also
    /// applies a newer snapshot to a session already serving.
    pub fn restore(&self, snapshot: &SessionSnapshot) {
        let negotiated = Negotiated {
            version: snapshot.protocol_version,
            client_capabilities: snapshot.client_capabilities.clone(),
            client_info: snapshot.client_info.clone(),
        };
        *self.lifecycle.lock().expect("lifecycle lock poisoned") =
            if snapshot.ready { Lifecycle::Ready(negotiated) } else { Lifecycle::Initialized(negotiated) };
        *self.log_level.lock().expect("log level lock poisoned") = snapshot.log_level;
        *self.subscriptions.lock().expect("subscriptions lock poisoned") =
            snapshot.subscriptions.iter().cloned().collect();
    }

    /// Applies a `resources/subscribe` (or, with `false`, an unsubscribe)
    /// made on another process serving the same session.
    pub fn set_subscribed(&self, uri: &str, subscribed: bool) {
        if subscribed {
            self.subscribe(uri.to_owned());
        } else {
            self.unsubscribe(uri);
        }
    }

    /// The handshake-era log threshold, if `logging/setLevel` set one.
    pub(crate) fn log_level(&self) -> Option<LoggingLevel> {
        *self.log_level.lock().expect("log level lock poisoned")
    }

    /// Handles `logging/setLevel` (public for transports applying one
    /// received by another process serving the same session).
    pub fn set_log_level(&self, level: LoggingLevel) {
        *self.log_level.lock().expect("log level lock poisoned") = Some(level);
    }

    /// Sends a request to the client on `stream` and waits for the answer.
    pub(crate) async fn request_client(
        &self,
        stream: &Outbound,
        method: &str,
        params: Value,
    ) -> Result<Value, ErrorObject> {
        let n = self.next_request.fetch_add(1, Ordering::Relaxed) + 1;
        let id = RequestId::String(format!("srv-{n}"));
        let (tx, rx) = oneshot::channel();
        self.pending.lock().expect("pending lock poisoned").insert(id.clone(), tx);
        struct Forget<'a>(&'a Session, RequestId);
        impl Drop for Forget<'_> {
            fn drop(&mut self) {
                self.0.pending.lock().expect("pending lock poisoned").remove(&self.1);
            }
        }
        let _forget = Forget(self, id.clone());
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let bytes = serde_json::to_vec(&message).expect("a request serializes; qed");
        if stream.send(bytes).await.is_err() {
            return Err(ErrorObject::internal("the connection closed"));
        }
        rx.await.unwrap_or_else(|_| {
            Err(ErrorObject::internal("the connection closed before the client answered"))
        })
    }

    /// Sends a request to the client on the session's own stream (the stdio
    /// connection, the handshake-era GET stream) and waits for the answer:
    /// for an application asking outside any request, e.g. `roots/list`
    /// when the client says its roots changed. The caller checks the
    /// client declared the capability ([`Session::negotiated`]).
    pub async fn request_client_now(&self, method: &str, params: Value) -> Result<Value, ErrorObject> {
        let outbound = self.outbound.clone();
        self.request_client(&outbound, method, params).await
    }

    /// Routes a client's response to the request waiting for it; false if
    /// nothing was waiting for that id.
    pub(crate) fn complete_request(&self, id: &RequestId, outcome: Result<Value, ErrorObject>) -> bool {
        match self.pending.lock().expect("pending lock poisoned").remove(id) {
            Some(tx) => tx.send(outcome).is_ok(),
            None => false,
        }
    }

    /// The handshake-era negotiation, once `initialize` has been answered.
    pub fn negotiated(&self) -> Option<Negotiated> {
        match &*self.lifecycle.lock().expect("lifecycle lock poisoned") {
            Lifecycle::New => None,
            Lifecycle::Initialized(n) | Lifecycle::Ready(n) => Some(n.clone()),
        }
    }

    /// The negotiated handshake-era revision, if any.
    pub fn negotiated_version(&self) -> Option<ProtocolVersion> {
        match &*self.lifecycle.lock().expect("lifecycle lock poisoned") {
            Lifecycle::New => None,
            Lifecycle::Initialized(n) | Lifecycle::Ready(n) => Some(n.version),
        }
    }

    /// The caller's identity, if the transport authenticated one.
    pub fn principal(&self) -> Option<&Principal> {
        self.principal.as_ref()
    }

    pub(crate) fn outbound(&self) -> &Outbound {
        &self.outbound
    }

    /// Records a successful `initialize`; false if one happened already.
    pub(crate) fn initialize(&self, negotiated: Negotiated) -> bool {
        let mut state = self.lifecycle.lock().expect("lifecycle lock poisoned");
        if !matches!(*state, Lifecycle::New) {
            return false;
        }
        *state = Lifecycle::Initialized(negotiated);
        true
    }

    /// Treats this session as initialized and ready at `version`, without
    /// a handshake: for transports that serve handshake-era clients without
    /// sessions (each HTTP request gets a fresh, pre-negotiated session).
    pub fn assume_initialized(&self, version: ProtocolVersion) {
        *self.lifecycle.lock().expect("lifecycle lock poisoned") = Lifecycle::Ready(Negotiated {
            version,
            client_capabilities: ClientCapabilities::default(),
            client_info: Implementation::new("unknown", "unknown"),
        });
    }

    /// Handles `notifications/initialized` (public for transports applying
    /// one received by another process serving the same session).
    pub fn mark_ready(&self) {
        let mut state = self.lifecycle.lock().expect("lifecycle lock poisoned");
        if let Lifecycle::Initialized(n) = &*state {
            *state = Lifecycle::Ready(n.clone());
        }
    }

    fn ready_version(&self) -> Option<ProtocolVersion> {
        match &*self.lifecycle.lock().expect("lifecycle lock poisoned") {
            Lifecycle::Ready(n) => Some(n.version),
            _ => None,
        }
    }

    /// Registers a request in flight; false if the id is already in use.
    pub(crate) fn register(&self, id: &RequestId, token: &CancellationToken) -> bool {
        let mut map = self.inflight.lock().expect("inflight lock poisoned");
        if map.contains_key(id) {
            return false;
        }
        map.insert(id.clone(), token.clone());
        true
    }

    pub(crate) fn unregister(&self, id: &RequestId) {
        self.inflight.lock().expect("inflight lock poisoned").remove(id);
    }

    /// Cancels a request in flight. Unknown or finished ids are ignored, as
    /// the cancellation utility allows.
    pub(crate) fn cancel(&self, id: &RequestId) -> bool {
        match self.inflight.lock().expect("inflight lock poisoned").get(id) {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }

    /// Cancels every request in flight (the connection is going away, or
    /// the client ended the session with an HTTP `DELETE`).
    pub fn cancel_all(&self) {
        for token in self.inflight.lock().expect("inflight lock poisoned").values() {
            token.cancel();
        }
    }

    /// Number of requests in flight: registered and not finished, whether
    /// their handler runs yet or waits for a place in the connection's
    /// window.
    pub fn in_flight(&self) -> usize {
        self.inflight.lock().expect("inflight lock poisoned").len()
    }

    /// How many requests may be in flight before the dispatcher refuses
    /// more with `-32029`: `default` (the server's `max_in_flight`) unless
    /// the transport set its own with [`Session::set_in_flight_cap`].
    pub(crate) fn in_flight_cap(&self, default: usize) -> usize {
        match self.in_flight_cap.load(Ordering::Relaxed) {
            0 => default,
            cap => cap,
        }
    }

    /// Replaces the in-flight cap: for a transport that bounds the requests
    /// it accepts itself (the line transport's connection loop stops
    /// reading), so the dispatcher only refuses what it cannot hold.
    pub(crate) fn set_in_flight_cap(&self, cap: usize) {
        self.in_flight_cap.store(cap.max(1), Ordering::Relaxed);
    }

    /// Records a handshake-era `resources/subscribe`.
    pub(crate) fn subscribe(&self, uri: String) {
        self.subscriptions.lock().expect("subscriptions lock poisoned").insert(uri);
    }

    /// Records a handshake-era `resources/unsubscribe`.
    pub(crate) fn unsubscribe(&self, uri: &str) {
        self.subscriptions.lock().expect("subscriptions lock poisoned").remove(uri);
    }

    /// True if the handshake-era client subscribed to `uri`, or to a resource that
    /// `uri` is a sub-resource of (`uri` continues it after a `/`).
    fn subscribed(&self, uri: &str) -> bool {
        let subs = self.subscriptions.lock().expect("subscriptions lock poisoned");
        subs.contains(uri)
            || subs.iter().any(|s| uri.strip_prefix(s.as_str()).is_some_and(|rest| rest.starts_with('/')))
    }

    /// Starts delivering events that `filter` asks for to listen stream `id`.
    pub(crate) fn add_listen(&self, id: RequestId, filter: SubscriptionFilter) {
        self.listens.lock().expect("listens lock poisoned").insert(id, filter);
    }

    /// Stops delivering to listen stream `id`.
    pub(crate) fn remove_listen(&self, id: &RequestId) {
        self.listens.lock().expect("listens lock poisoned").remove(id);
    }

    /// Completes when the connection is closing.
    pub(crate) async fn closing(&self) {
        self.closing.cancelled().await
    }

    /// Tells long-lived requests (listen streams) to finish: the connection
    /// is closing. They answer with their result.
    pub fn close(&self) {
        self.closing.cancel();
    }

    /// Delivers one server event to this connection's client: handshake-era
    /// notifications once the handshake finished (only for lists whose
    /// `listChanged` is advertised, and `updated` only for subscribed URIs),
    /// and tagged notifications to every 2026-07-28 listen stream whose
    /// filter asked for them.
    pub(crate) async fn deliver(&self, event: &ServerEvent, announced: Announced) {
        if matches!(event, ServerEvent::Missed) {
            return self.deliver_missed(announced).await;
        }
        self.deliver_one(event, announced).await;
    }

    /// Sends the notifications of one event that is not
    /// [`ServerEvent::Missed`].
    async fn deliver_one(&self, event: &ServerEvent, announced: Announced) {
        let mut out: Vec<Vec<u8>> = Vec::new();
        if self.ready_version().is_some() {
            out.extend(self.handshake_notification(event, announced));
        }
        self.listen_notifications(event, &mut out);
        for bytes in out {
            if self.outbound.send(bytes).await.is_err() {
                return;
            }
        }
    }

    /// The handshake-era notification of `event` for this session, if it
    /// gets one.
    fn handshake_notification(&self, event: &ServerEvent, announced: Announced) -> Option<Vec<u8>> {
        match event {
            ServerEvent::ListChanged(kind) if announced.covers(*kind) => {
                Some(encode_notification::<Value>(kind.notification(), None))
            }
            ServerEvent::ResourceUpdated(uri) if self.subscribed(uri) => {
                Some(encode_notification(method::RESOURCES_UPDATED, Some(&json!({"uri": uri}))))
            }
            ServerEvent::Log(log)
                if announced.logging
                    && self.log_level().or(announced.default_log_level).is_some_and(|t| log.level >= t) =>
            {
                let params = json!({"level": log.level, "logger": log.logger, "data": log.data});
                Some(encode_notification(method::MESSAGE, Some(&params)))
            }
            ServerEvent::TaskStatus(status) => {
                let id = status.task_id();
                let mut tracked = self.tasks.lock().expect("tasks lock poisoned");
                let (true, Value::Object(task)) = (tracked.contains(id), &status.task) else { return None };
                let view = crate::task_wire::task_view(task);
                if matches!(
                    view.get("status").and_then(Value::as_str),
                    Some("completed" | "failed" | "cancelled")
                ) {
                    tracked.remove(id);
                }
                Some(encode_notification(method::TASKS_STATUS, Some(&view)))
            }
            _ => None,
        }
    }

    /// The tagged notifications of `event` for this session's 2026-07-28
    /// listen streams, appended to `out`.
    fn listen_notifications(&self, event: &ServerEvent, out: &mut Vec<Vec<u8>>) {
        let listens = self.listens.lock().expect("listens lock poisoned");
        for (id, filter) in listens.iter() {
            let Some((notification, mut params)) = listen_params(event, filter) else { continue };
            let mut meta = Map::new();
            meta.insert(SUBSCRIPTION_ID.into(), serde_json::to_value(id).expect("ids serialize; qed"));
            params.insert("_meta".into(), Value::Object(meta));
            out.push(encode_notification(notification, Some(&params)));
        }
    }

    /// After missing events (a lagging connection), sends every notification
    /// that might have been due, so no change goes unannounced.
    pub(crate) async fn deliver_missed(&self, announced: Announced) {
        for kind in [ListKind::Tools, ListKind::Prompts, ListKind::Resources] {
            self.deliver_one(&ServerEvent::ListChanged(kind), announced).await;
        }
        let mut uris: HashSet<String> =
            self.subscriptions.lock().expect("subscriptions lock poisoned").clone();
        for filter in self.listens.lock().expect("listens lock poisoned").values() {
            uris.extend(filter.resource_subscriptions.iter().flatten().cloned());
        }
        for uri in uris {
            self.deliver_one(&ServerEvent::ResourceUpdated(uri), announced).await;
        }
    }
}

/// The notification and params of `event` for a listen stream with
/// `filter`, if the filter asked for it.
fn listen_params(
    event: &ServerEvent,
    filter: &SubscriptionFilter,
) -> Option<(&'static str, Map<String, Value>)> {
    match event {
        ServerEvent::ListChanged(kind) => {
            let wanted = match kind {
                ListKind::Tools => filter.tools_list_changed,
                ListKind::Prompts => filter.prompts_list_changed,
                ListKind::Resources | ListKind::ResourceTemplates => filter.resources_list_changed,
            };
            if wanted != Some(true) {
                return None;
            }
            Some((kind.notification(), Map::new()))
        }
        // A listen stream carries list, resource and task changes only
        // (`Missed` is delivered as those, by `deliver_missed`).
        ServerEvent::Log(_) | ServerEvent::Missed => None,
        ServerEvent::TaskStatus(status) => {
            let wanted = filter.task_ids.iter().flatten().any(|t| t == status.task_id());
            let Value::Object(task) = &status.task else { return None };
            if !wanted {
                return None;
            }
            // The full `DetailedTask`, as `tasks/get` answers now.
            Some((method::TASKS, task.clone()))
        }
        ServerEvent::ResourceUpdated(uri) => {
            let wanted =
                filter.resource_subscriptions.iter().flatten().any(|s| {
                    s == uri || uri.strip_prefix(s.as_str()).is_some_and(|rest| rest.starts_with('/'))
                });
            if !wanted {
                return None;
            }
            let mut params = Map::new();
            params.insert("uri".into(), Value::String(uri.clone()));
            Some((method::RESOURCES_UPDATED, params))
        }
    }
}

#[cfg(test)]
mod snapshot_tests {
    use super::*;

    #[test]
    fn a_snapshot_restores_into_a_fresh_session() {
        let (tx, _rx) = tokio::sync::mpsc::channel(1);
        let a = Session::new(tx.clone(), None);
        assert!(a.snapshot().is_none(), "nothing before initialize");
        a.initialize(Negotiated {
            version: ProtocolVersion::V2025_06_18,
            client_capabilities: ClientCapabilities::default(),
            client_info: Implementation::new("c", "1"),
        });
        a.mark_ready();
        a.set_log_level(LoggingLevel::Warning);
        a.set_subscribed("file:///x", true);
        let json = serde_json::to_vec(&a.snapshot().unwrap()).unwrap();
        let b = Session::new(tx, None);
        b.restore(&serde_json::from_slice(&json).unwrap());
        assert_eq!(b.negotiated_version(), Some(ProtocolVersion::V2025_06_18));
        assert_eq!(b.ready_version(), Some(ProtocolVersion::V2025_06_18));
        assert_eq!(b.log_level(), Some(LoggingLevel::Warning));
        assert!(b.subscribed("file:///x"));
        b.set_subscribed("file:///x", false);
        assert!(!b.subscribed("file:///x"));
    }
}
