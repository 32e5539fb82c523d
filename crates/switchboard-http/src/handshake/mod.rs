//! Streamable HTTP for the handshake-era revisions (2025-03-26 … 2025-11-25):
//! sessions, POST with JSON or SSE answers, the GET stream, DELETE,
//! resumption and idle expiry.
//!
//! With a state store ([`HttpOptions::state`](crate::HttpOptions::state)),
//! a session lives in the store as well (`session:{id}`): any instance
//! rebuilds it from its record, every request checks and renews the record,
//! and changes other instances must know (readiness, subscriptions, log
//! level) are published on the `sessions` channel. `max_sessions` then
//! counts every instance's sessions: a new one is admitted into a shared
//! set ([`StateStore::admit`]) where a session counts while its record
//! exists.
//!
//! Spec: `docs/specification/<rev>/basic/transports.mdx` §Streamable HTTP.
//!
//! Where it sits: on top of `shared_sessions.rs` (the record and the
//! `sessions` channel) and `handshake_session.rs` (the session types); creating,
//! restoring from a record, looking up and sweeping sessions are here.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};
use switchboard_server::state::StateStore;
use switchboard_server::{Principal, ProtocolVersion};

use switchboard_types::{Era, ErrorObject};
use tokio::sync::{broadcast, mpsc, oneshot};

use crate::caller::Caller;
use crate::app::{
    HandshakeSession, LIVE_CAPACITY, Live, Sessions, another_principal, too_many_sessions, unknown_session,
};
use crate::peek::{Body, Message};
use crate::security::{error_response, json_response, reply_response};
use shared::{
    CHANNEL, Change, Record, SessionChange, changes_of, forget_local, record_key, save, share,
    spawn_listener, unavailable,
};
use crate::{App, EventStore, ResponseMode, sse};

mod shared;

pub(crate) use shared::instance_tag;

/// Starts the idle sweeper and, with a state store, the listener applying
/// other instances' changes to local copies: once, with the first session.
pub(crate) fn start_background(app: &App) {
    app.sessions.sweeper.get_or_init(|| {
        spawn_sweeper(
            Arc::clone(&app.sessions),
            Arc::clone(&app.store),
            app.state.clone(),
            app.options.session_idle_timeout,
        );
        if let Some(state) = &app.state {
            spawn_listener(Arc::downgrade(&app.sessions), state.as_ref());
        }
    });
}

/// Ends sessions idle longer than `idle`, so sessions never leak. With a
/// state store, an idle local copy is dropped only once the store says the
/// session is gone (another instance may be keeping it alive); its record
/// and events expire on their own.
fn spawn_sweeper(
    sessions: Arc<Sessions>,
    store: Arc<dyn EventStore>,
    state: Option<Arc<dyn StateStore>>,
    idle: Duration,
) {
    let Ok(handle) = tokio::runtime::Handle::try_current() else { return };
    let period = (idle / 4).clamp(Duration::from_millis(50), Duration::from_secs(30));
    let weak = Arc::downgrade(&sessions);
    drop(sessions);
    handle.spawn(async move {
        let mut tick = tokio::time::interval(period);
        loop {
            tick.tick().await;
            let Some(sessions) = weak.upgrade() else { return };
            let now = Instant::now();
            let idle_ids: Vec<String> = sessions
                .map
                .lock()
                .expect("sessions lock poisoned")
                .iter()
                .filter(|(_, s)| now.duration_since(*s.last_seen.lock().expect("lock")) > idle)
                .map(|(id, _)| id.clone())
                .collect();
            for id in idle_ids {
                if let Some(state) = &state {
                    match state.get(&record_key(&id)).await {
                        Ok(None) => {}
                        Ok(Some(_)) => continue, // alive elsewhere
                        Err(e) => {
                            tracing::debug!(error = %e, "idle sweep: state store unavailable");
                            continue;
                        }
                    }
                }
                let Some(s) = sessions.remove(&id) else { continue };
                tracing::debug!(session = %s.id, "handshake-era session expired");
                if state.is_some() {
                    s.drop_local();
                } else {
                    s.end(store.as_ref()).await;
                }
            }
        }
    });
}

fn new_session_id() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the operating system's random source is available");
    URL_SAFE_NO_PAD.encode(bytes)
}

fn create(app: &App, caller: &Caller) -> Arc<HandshakeSession> {
    let hs = build(app, new_session_id(), caller.principal.clone());
    app.sessions.map.lock().expect("sessions lock poisoned").insert(hs.id.clone(), Arc::clone(&hs));
    hs
}

/// A local session with its standalone-stream drain and event forwarder,
/// not yet in the map.
pub(crate) fn build(app: &App, id: String, principal: Option<Principal>) -> Arc<HandshakeSession> {
    start_background(app);
    let (tx, rx) = mpsc::channel(app.server.options().outbound_queue.max(1));
    let session = app.server.new_session(tx, principal);
    let hs = Arc::new(HandshakeSession {
        id,
        session: Arc::clone(&session),
        get_open: Arc::new(AtomicBool::new(false)),
        last_seen: Mutex::new(Instant::now()),
        forwarder: Mutex::new(None),
        next_stream: AtomicU64::new(0),
        live: Mutex::new(HashMap::new()),
    });
    // Standalone messages (list changes, resource updates, and request
    // messages of JSON-answered requests) are drained into the event store
    // as stream "g" as they come, so a session without an open GET stream
    // never blocks its handlers; a GET stream follows them live and a
    // resume replays them.
    // Small on purpose: a broadcast channel allocates its slots up front,
    // once per session. A GET stream that falls behind catches up from the
    // event store instead (see `get`).
    let (g_tx, _) = broadcast::channel::<Live>(LIVE_CAPACITY);
    hs.live.lock().expect("session lock poisoned").insert("g".to_owned(), g_tx.clone());
    let store = Arc::clone(&app.store);
    let session_id = hs.id.clone();
    tokio::spawn(async move {
        let mut rx = rx;
        while let Some(data) = rx.recv().await {
            match store.append(&session_id, "g", &data).await {
                Ok(id) => {
                    let _ = g_tx.send(Live::Event(id, data));
                }
                // Not resumable, but delivered to an open GET stream.
                Err(e) => {
                    tracing::warn!(session = %session_id, error = %e, "event not stored");
                    let _ = g_tx.send(Live::Unstored(data));
                }
            }
        }
        let _ = g_tx.send(Live::End);
    });
    // Server events (list changes, resource updates) reach the session.
    let task = tokio::spawn(app.server.forward_events(session));
    *hs.forwarder.lock().expect("session lock poisoned") = Some(task.abort_handle());
    hs
}

fn session_header(headers: &HeaderMap) -> Option<&str> {
    headers.get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::trim)
}

fn with_session_header(mut response: Response, id: &str) -> Response {
    if let Ok(v) = HeaderValue::from_str(id) {
        response.headers_mut().insert("mcp-session-id", v);
    }
    response
}

/// Rebuilds a session another instance opened from its record; `Err` is
/// the answer (404 when there is no record, 403 for another principal,
/// 503 when the store fails).
pub(crate) async fn restore(
    app: &App,
    state: &dyn StateStore,
    id: &str,
    caller: &Caller,
) -> Result<Arc<HandshakeSession>, Response> {
    // Listening before reading the record: no change published after the
    // read is missed.
    start_background(app);
    let key = record_key(id);
    let bytes = state.get(&key).await.map_err(|e| unavailable(&e))?.ok_or_else(unknown_session)?;
    let record: Record = serde_json::from_slice(&bytes).map_err(|e| {
        tracing::warn!(session = %id, error = %e, "unreadable session record");
        unknown_session()
    })?;
    let owner = record.principal.as_ref().map(|p| p.subject.as_str());
    if owner != caller.principal.as_ref().map(|p| p.subject.as_str()) {
        return Err(another_principal());
    }
    if app.sessions.len() >= app.options.max_sessions {
        return Err(too_many_sessions());
    }
    let fresh = build(app, id.to_owned(), caller.principal.clone());
    fresh.session.restore(&record.snapshot);
    let hs = {
        let mut map = app.sessions.map.lock().expect("sessions lock poisoned");
        Arc::clone(map.entry(id.to_owned()).or_insert_with(|| Arc::clone(&fresh)))
    };
    if !Arc::ptr_eq(&hs, &fresh) {
        fresh.drop_local(); // a concurrent request restored it first
    }
    match state.touch(&key, app.options.session_idle_timeout).await {
        Ok(true) => Ok(hs),
        Ok(false) => {
            forget_local(app, id);
            Err(unknown_session())
        }
        Err(e) => Err(unavailable(&e)),
    }
}

/// The request's session. With a state store, a session unknown here is
/// rebuilt from its record, and a known one is checked (and renewed)
/// against it: one store round trip per request.
async fn lookup(app: &App, headers: &HeaderMap, caller: &Caller) -> Result<Arc<HandshakeSession>, Response> {
    let Some(id) = session_header(headers) else {
        return Err(error_response(
            StatusCode::BAD_REQUEST,
            None,
            ErrorObject::invalid_request(
                "missing Mcp-Session-Id header: send initialize first to open a session",
            ),
        ));
    };
    let Some(hs) = app.sessions.get(id) else {
        return match &app.state {
            Some(state) => restore(app, state.as_ref(), id, caller).await,
            None => Err(unknown_session()),
        };
    };
    // A session belongs to whoever opened it: another principal's token,
    // even a valid one, does not get into it.
    let owner = hs.session.principal().map(|p| p.subject.as_str());
    if owner != caller.principal.as_ref().map(|p| p.subject.as_str()) {
        return Err(another_principal());
    }
    if let Some(state) = &app.state {
        match state.touch(&record_key(id), app.options.session_idle_timeout).await {
            Ok(true) => {}
            Ok(false) => {
                // Deleted on another instance, or expired.
                forget_local(app, id);
                return Err(unknown_session());
            }
            Err(e) => return Err(unavailable(&e)),
        }
    }
    Ok(hs)
}

/// Whether a POST is answered as SSE: in `auto` mode when one of its
/// messages, each given as its method and whether it has a progress token,
/// asks for progress or is of a method whose facts say it streams (it may
/// send messages before its response: `tools/call`'s logs and live
/// questions).
fn wants_sse<'m>(
    mode: ResponseMode,
    server: &switchboard_server::Server,
    mut messages: impl Iterator<Item = (Option<&'m str>, bool)>,
) -> bool {
    match mode {
        ResponseMode::Sse => true,
        ResponseMode::Json => false,
        ResponseMode::Auto => messages.any(|(method, progress)| {
            let facts = method.and_then(|method| server.method_facts(method));
            progress || facts.is_some_and(|facts| facts.streams)
        }),
    }
}

/// A POST in the `initialize` era. `peeked` is the body's classification
/// (see [`peek`](crate::peek)): a body that is no valid JSON-RPC message
/// never gets here, and whether a batch is taken is decided there too.
/// `message` is the one message peek read (`None` for a batch).
pub(crate) async fn post(
    app: App,
    body: Bytes,
    peeked: Body,
    message: Option<Message<'_>>,
    caller: Caller,
) -> Response {
    let headers = caller.headers();
    if let Err(refusal) = check_protocol_header(&headers) {
        return refusal;
    }
    if !app.options.legacy_sessions {
        return sessionless(&app, &headers, &body, &peeked, message.as_ref(), &caller).await;
    }
    let value: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(e) => return error_response(StatusCode::BAD_REQUEST, None, ErrorObject::parse_error(e)),
    };
    let messages: Vec<&Value> = match &value {
        Value::Array(items) => items.iter().collect(),
        other => vec![other],
    };
    let (hs, created) = match open_or_find(&app, &headers, &peeked, &caller).await {
        Ok(found) => found,
        Err(refusal) => return refusal,
    };
    // Only computed with a store: what other instances must learn.
    let changes = if app.state.is_some() { changes_of(&messages) } else { Vec::new() };
    let request = Post { app: &app, hs: &hs, body: &body, caller: &caller };
    if !peeked.has_requests() {
        request.answer_without_requests(&changes).await
    } else if peeked.is_initialize() {
        request.answer_initialize(created).await
    } else if !wants_sse(
        app.options.response_mode,
        &app.server,
        messages.iter().map(|m| (m["method"].as_str(), m["params"]["_meta"].get("progressToken").is_some())),
    ) {
        request.answer_json(&changes).await
    } else {
        request.answer_sse(changes).await
    }
}

/// A present `MCP-Protocol-Version` must name a handshake revision.
fn check_protocol_header(headers: &HeaderMap) -> Result<(), Response> {
    if let Some(v) = headers.get("mcp-protocol-version") {
        let v = v.to_str().unwrap_or_default().trim();
        // Any supported handshake revision is accepted, even one other
        // than the session's (conformance clients send 2025-03-26 on
        // 2025-11-25 sessions).
        if !ProtocolVersion::parse(v).is_some_and(|v| v.era() == Era::Handshake) {
            return Err(error_response(
                StatusCode::BAD_REQUEST,
                None,
                ErrorObject::invalid_request(format!("unsupported MCP-Protocol-Version {v:?}"))
                    .with_data(json!({"supported": ProtocolVersion::SUPPORTED, "requested": v})),
            ));
        }
    }
    Ok(())
}

/// The shared set counting every instance's sessions for `max_sessions`.
const SESSIONS_SET: &str = "sessions";
/// How long that set lives after the last session was admitted.
const SESSIONS_SET_TTL: Duration = Duration::from_secs(7 * 24 * 3600);

/// Counts a new session (its record just written) against `max_sessions`
/// across every instance sharing `state`: one atomic admission, in which a
/// session counts while its record exists (so an instance that crashed
/// leaks no count). `Err` is the answer when it is refused (`503`, its
/// record removed) or the store fails.
async fn admit(app: &App, state: &dyn StateStore, id: &str) -> Result<(), Response> {
    let admitted =
        state.admit(SESSIONS_SET, id, app.options.max_sessions, &record_key(""), SESSIONS_SET_TTL).await;
    let refusal = match admitted {
        Ok(true) => return Ok(()),
        Ok(false) => too_many_sessions(),
        Err(e) => unavailable(&e),
    };
    if let Err(e) = state.delete(&record_key(id)).await {
        tracing::warn!(session = %id, error = %e, "a refused session's record stays until it expires");
    }
    Err(refusal)
}

/// The POST's session: a new one for an `initialize` without a session
/// header, otherwise the one it names (`true` when created here). A batch
/// the session's revision does not take is refused here.
async fn open_or_find(
    app: &App,
    headers: &HeaderMap,
    peeked: &Body,
    caller: &Caller,
) -> Result<(Arc<HandshakeSession>, bool), Response> {
    let (hs, created) = if peeked.is_initialize() && session_header(headers).is_none() {
        if app.sessions.len() >= app.options.max_sessions {
            return Err(too_many_sessions());
        }
        (create(app, caller), true)
    } else {
        (lookup(app, headers, caller).await?, false)
    };
    hs.touch();
    if let Body::Batch(batch) = peeked
        && let Some(refusal) = batch.refusal_at(hs.session.negotiated_version())
    {
        return Err(refusal.response());
    }
    Ok((hs, created))
}

/// One POST on a session, between finding the session and answering.
struct Post<'a> {
    app: &'a App,
    hs: &'a Arc<HandshakeSession>,
    body: &'a Bytes,
    caller: &'a Caller,
}

impl Post<'_> {
    /// Notifications and responses only: `202` (or `400` with the errors).
    async fn answer_without_requests(&self, changes: &[Change]) -> Response {
        let Post { app, hs, body, caller } = *self;
        let reply = app.server.handle_frame_via(&hs.session, body, &caller.via(None)).await;
        if let Err(e) = share(app, hs, changes).await {
            return unavailable(&e);
        }
        without_requests(reply)
    }

    /// `initialize`: answered with JSON and the new session's id. A failed
    /// handshake ends a session created for it; with a store, the new
    /// session's record is written before it is announced.
    async fn answer_initialize(&self, created: bool) -> Response {
        let Post { app, hs, body, caller } = *self;
        let reply =
            app.server.handle_frame_via(&hs.session, body, &caller.via(None)).await.unwrap_or_default();
        let ok = hs.session.negotiated_version().is_some();
        if created && !ok {
            if let Some(s) = app.sessions.remove(&hs.id) {
                s.end(app.store.as_ref()).await;
            }
            return json_response(StatusCode::OK, reply);
        }
        if created
            && let Some(state) = &app.state
            && let Err(e) = save(app, state.as_ref(), hs).await
        {
            if let Some(s) = app.sessions.remove(&hs.id) {
                s.drop_local();
            }
            return unavailable(&e);
        }
        if created
            && let Some(state) = &app.state
            && let Err(refusal) = admit(app, state.as_ref(), &hs.id).await
        {
            if let Some(s) = app.sessions.remove(&hs.id) {
                s.drop_local();
            }
            return refusal;
        }
        with_session_header(json_response(StatusCode::OK, reply), &hs.id)
    }

    /// Requests answered with one JSON body.
    async fn answer_json(&self, changes: &[Change]) -> Response {
        let Post { app, hs, body, caller } = *self;
        let reply = app.server.accept_via(&hs.session, body, &caller.via(None)).reply().await;
        if let Err(e) = share(app, hs, changes).await {
            return unavailable(&e);
        }
        with_session_header(reply_response(StatusCode::OK, reply), &hs.id)
    }

    /// Requests answered with an SSE stream of their own, stored for
    /// resumption (primed first when the revision asks for it).
    async fn answer_sse(&self, changes: Vec<Change>) -> Response {
        let Post { app, hs, body, caller } = *self;
        // SSE: request-scoped messages and the response go on this POST's stream.
        let (req_tx, req_rx) = mpsc::channel::<Vec<u8>>(256);
        let accepted = app.server.accept_via(&hs.session, body, &caller.via(Some(&req_tx)));
        drop(req_tx);
        let (final_tx, final_rx) = oneshot::channel::<Option<Vec<u8>>>();
        let share_after = (!changes.is_empty()).then(|| (app.clone(), Arc::clone(hs)));
        tokio::spawn(async move {
            let out = accepted.resolve().await;
            if let Some((app, hs)) = share_after
                && let Err(e) = share(&app, &hs, &changes).await
            {
                tracing::warn!(session = %hs.id, error = %e, "session change not shared");
            }
            let _ = final_tx.send(out);
        });
        let stream_id = format!("p{}{}", app.instance, hs.next_stream.fetch_add(1, Ordering::Relaxed));
        let (primary_tx, primary_rx) = mpsc::channel::<Bytes>(256);
        let (live_tx, _) = broadcast::channel::<Live>(LIVE_CAPACITY);
        hs.live.lock().expect("session lock poisoned").insert(stream_id.clone(), live_tx.clone());
        let priming = app.options.sse_priming
            && hs.session.negotiated_version().is_some_and(|v| v.rules().http.sse_priming);
        if priming {
            // Without a stored id there is nothing to resume from: no priming.
            match app.store.append(&hs.id, &stream_id, b"").await {
                Ok(id) => {
                    let _ = primary_tx.try_send(sse::priming(id, app.options.sse_retry));
                }
                Err(e) => tracing::warn!(session = %hs.id, error = %e, "priming event not stored"),
            }
        }
        let stream = StreamPump { store: Arc::clone(&app.store), hs: Arc::clone(hs), stream_id, live_tx };
        stream.spawn(req_rx, final_rx, primary_tx);
        let stream =
            futures::stream::unfold(primary_rx, |mut rx| async move { rx.recv().await.map(|e| (e, rx)) });
        sse::response(stream, app.options.keep_alive, Some(&hs.id))
    }
}

/// Moves one POST's messages onto its SSE stream, storing each as an event.
struct StreamPump {
    store: Arc<dyn EventStore>,
    hs: Arc<HandshakeSession>,
    stream_id: String,
    live_tx: broadcast::Sender<Live>,
}

impl StreamPump {
    /// Runs the pump: request-scoped messages as they come, then the
    /// response, then the stream's end.
    fn spawn(
        self,
        req_rx: mpsc::Receiver<Vec<u8>>,
        final_rx: oneshot::Receiver<Option<Vec<u8>>>,
        primary_tx: mpsc::Sender<Bytes>,
    ) {
        let StreamPump { store, hs, stream_id, live_tx } = self;
        let session_id = hs.id.clone();
        // The pump runs to completion whether or not the client stays: a
        // disconnect is not a cancellation in these revisions, and everything
        // is stored for a resume.
        tokio::spawn(async move {
            let mut req_rx = req_rx;
            let mut final_rx = final_rx;
            let emit = async |data: Vec<u8>| match store.append(&session_id, &stream_id, &data).await {
                Ok(id) => {
                    let _ = live_tx.send(Live::Event(id.clone(), data.clone()));
                    sse::event(Some(id), &data)
                }
                Err(e) => {
                    // Delivered, but not resumable.
                    tracing::warn!(session = %session_id, error = %e, "event not stored");
                    let _ = live_tx.send(Live::Unstored(data.clone()));
                    sse::event(None, &data)
                }
            };
            loop {
                tokio::select! {
                    biased;
                    Some(message) = req_rx.recv() => {
                        let _ = primary_tx.send(emit(message).await).await;
                    }
                    out = &mut final_rx => {
                        while let Ok(message) = req_rx.try_recv() {
                            let _ = primary_tx.send(emit(message).await).await;
                        }
                        if let Ok(Some(reply)) = out {
                            let _ = primary_tx.send(emit(reply).await).await;
                        }
                        break;
                    }
                }
            }
            let _ = live_tx.send(Live::End);
            hs.live.lock().expect("session lock poisoned").remove(&stream_id);
        });
    }
}

/// Handshake-era requests without sessions: a fresh session per request, already
/// negotiated at the header's revision (2025-03-26 without one). A single
/// request is answered as SSE when the response mode says so (in `auto`: a
/// progress token), with its progress and logs before its response;
/// otherwise as JSON, and what it sends is dropped.
async fn sessionless(
    app: &App,
    headers: &HeaderMap,
    body: &Bytes,
    peeked: &Body,
    message: Option<&Message<'_>>,
    caller: &Caller,
) -> Response {
    let version = headers
        .get("mcp-protocol-version")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| ProtocolVersion::parse(v.trim()))
        .unwrap_or(ProtocolVersion::HTTP_DEFAULT);
    if let Body::Batch(batch) = peeked
        && let Some(refusal) = batch.refusal_at(Some(version))
    {
        return refusal.response();
    }
    // One request may be answered as SSE, with what it sends before its
    // response; otherwise what it sends has nowhere to go, and the queue
    // has no reader (a queue nobody reads would stall the handler).
    // Without a session no live question can be answered, so a method
    // that streams does not ask for SSE here: only a progress token does.
    let sse = peeked.has_requests()
        && !peeked.is_initialize()
        && message.is_some_and(|m| {
            // peek read the head of any params that may hold `_meta` (none
            // read: no `_meta`, so no progress token); nothing is read again.
            let progress = m.params.is_some_and(|head| head.meta.progress_token.is_some());
            wants_sse(app.options.response_mode, &app.server, std::iter::once((None, progress)))
        });
    let (tx, rx) = mpsc::channel(64);
    let rx = sse.then_some(rx);
    let session = app.server.new_session(tx, caller.principal.clone());
    if !peeked.is_initialize() {
        session.assume_initialized(version);
    }
    // One message was read by peek already: the dispatcher takes it as read.
    let accepted = match message {
        Some(message) => {
            app.server.accept_message(&session, &message.envelope, message.params.as_ref(), &caller.via(None))
        }
        None => app.server.accept_via(&session, body, &caller.via(None)),
    };
    let reply = match (accepted, rx) {
        (switchboard_server::Accepted::Pending(fut), Some(rx)) => {
            return crate::post_stream::stream_answer(app, session, rx, fut, false);
        }
        (accepted, rx) => {
            drop(rx);
            accepted.resolve().await
        }
    };
    match reply {
        _ if !peeked.has_requests() => without_requests(reply),
        Some(reply) => json_response(StatusCode::OK, reply),
        None => json_response(StatusCode::OK, Vec::new()),
    }
}

/// The answer to a body without requests (notifications, responses, a
/// 2025-03-26 batch of them): `202`, or `400` with the errors when the
/// dispatcher refused some of it ("If the server cannot accept the input,
/// it MUST return an HTTP error status code").
fn without_requests(reply: Option<Vec<u8>>) -> Response {
    match reply {
        None => StatusCode::ACCEPTED.into_response(),
        Some(reply) => json_response(StatusCode::BAD_REQUEST, reply),
    }
}

/// Follows a live stream; when the reader falls behind the live channel,
/// catches up from the event store, so a slow reader loses nothing the
/// store still holds.
struct Follow {
    /// The live channel, if the stream is still running.
    rx: Option<broadcast::Receiver<Live>>,
    store: Arc<dyn EventStore>,
    session: String,
    last: Option<String>,
    backlog: std::collections::VecDeque<crate::StoredEvent>,
    _guard: Option<GetGuard>,
}

impl Follow {
    async fn next(&mut self) -> Option<Bytes> {
        loop {
            if let Some(e) = self.backlog.pop_front() {
                self.last = Some(e.id.clone());
                return Some(sse::event(Some(e.id), &e.data));
            }
            let rx = self.rx.as_mut()?;
            match rx.recv().await {
                Ok(Live::Event(id, data)) => {
                    if let Some(last) = &self.last
                        && !is_after(&id, last)
                    {
                        continue; // already sent while catching up
                    }
                    self.last = Some(id.clone());
                    return Some(sse::event(Some(id), &data));
                }
                Ok(Live::Unstored(data)) => return Some(sse::event(None, &data)),
                Ok(Live::End) | Err(broadcast::error::RecvError::Closed) => return None,
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    if let Some(last) = &self.last
                        && let Ok(Some((_, missed))) = self.store.replay_after(&self.session, last).await
                    {
                        self.backlog.extend(missed.into_iter().filter(|e| !e.data.is_empty()));
                    }
                }
            }
        }
    }
}

/// True if event id `a` comes after `b` on the same stream (`stream.seq`).
fn is_after(a: &str, b: &str) -> bool {
    let seq = |id: &str| id.rsplit_once('.').and_then(|(_, n)| n.parse::<u64>().ok());
    match (seq(a), seq(b)) {
        (Some(x), Some(y)) => x > y,
        _ => true,
    }
}

/// Clears the "GET stream open" flag when the stream goes away.
struct GetGuard(Arc<AtomicBool>);

impl Drop for GetGuard {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

pub(crate) async fn get(app: App, caller: Caller) -> Response {
    let headers = caller.headers();
    if !app.options.enable_get_stream {
        return crate::security::method_not_allowed();
    }
    let accepts_sse = headers
        .get(axum::http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_none_or(|v| v.contains("text/event-stream") || v.contains("*/*"));
    if !accepts_sse {
        return error_response(
            StatusCode::NOT_ACCEPTABLE,
            None,
            ErrorObject::invalid_request("GET opens an SSE stream: Accept must include text/event-stream"),
        );
    }
    let hs = match lookup(&app, &headers, &caller).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    hs.touch();
    if let Some(last) = headers.get("last-event-id").and_then(|v| v.to_str().ok()) {
        return resume(&app, &hs, last.trim()).await;
    }
    if hs.get_open.swap(true, Ordering::AcqRel) {
        return error_response(
            StatusCode::CONFLICT,
            None,
            ErrorObject::invalid_request("this session already has an open GET stream"),
        );
    }
    let guard = GetGuard(Arc::clone(&hs.get_open));
    let Some(rx) = hs.live.lock().expect("session lock poisoned").get("g").map(|tx| tx.subscribe()) else {
        return error_response(
            StatusCode::NOT_FOUND,
            None,
            ErrorObject::invalid_request("the session has ended"),
        );
    };
    let follow = Follow {
        rx: Some(rx),
        store: Arc::clone(&app.store),
        session: hs.id.clone(),
        last: None,
        backlog: std::collections::VecDeque::new(),
        _guard: Some(guard),
    };
    let stream = futures::stream::unfold(follow, |mut follow| async move {
        let event = follow.next().await?;
        Some((event, follow))
    });
    sse::response(stream, app.options.keep_alive, Some(&hs.id))
}

/// Replays a stream after `last` and, if it is still running, follows it.
async fn resume(app: &App, hs: &Arc<HandshakeSession>, last: &str) -> Response {
    // Subscribe before reading the store, so nothing falls in between.
    let live = hs
        .live
        .lock()
        .expect("session lock poisoned")
        .iter()
        .find_map(|(stream, tx)| last.starts_with(&format!("{stream}.")).then(|| tx.subscribe()));
    let replay = match app.store.replay_after(&hs.id, last).await {
        Ok(replay) => replay,
        Err(e) => return unavailable(&e),
    };
    let Some((_, stored)) = replay else {
        return error_response(
            StatusCode::NOT_FOUND,
            None,
            ErrorObject::invalid_request("unknown Last-Event-ID for this session"),
        );
    };
    let follow = Follow {
        rx: live,
        store: Arc::clone(&app.store),
        session: hs.id.clone(),
        last: Some(last.to_owned()),
        backlog: stored.into_iter().filter(|e| !e.data.is_empty()).collect(),
        _guard: None,
    };
    let stream = futures::stream::unfold(follow, |mut follow| async move {
        let event = follow.next().await?;
        Some((event, follow))
    });
    sse::response(stream, app.options.keep_alive, Some(&hs.id))
}

pub(crate) async fn delete(app: App, caller: Caller) -> Response {
    let headers = caller.headers();
    let hs = match lookup(&app, &headers, &caller).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    // With a store, deleting the record ends the session on every instance
    // (their next request finds it gone).
    if let Some(state) = &app.state {
        if let Err(e) = state.delete(&record_key(&hs.id)).await {
            return unavailable(&e);
        }
        // Best effort: the others would otherwise notice at their next request.
        let ended = SessionChange { ended: true, ..SessionChange::new(&hs.id) };
        let bytes = serde_json::to_vec(&ended).expect("changes serialize; qed");
        if let Err(e) = state.publish(CHANNEL, bytes).await {
            tracing::warn!(session = %hs.id, error = %e, "session end not published");
        }
    }
    if let Some(s) = app.sessions.remove(&hs.id) {
        s.end(app.store.as_ref()).await;
    } else {
        // Already dropped locally: still forget its shared events.
        hs.end(app.store.as_ref()).await;
    }
    StatusCode::OK.into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::InMemoryEventStore;

    #[tokio::test]
    async fn a_lagging_reader_catches_up_from_the_store() {
        let store: Arc<dyn EventStore> = Arc::new(InMemoryEventStore::default());
        let (tx, rx) = broadcast::channel::<Live>(2);
        let mut follow = Follow {
            rx: Some(rx),
            store: Arc::clone(&store),
            session: "s".into(),
            last: None,
            backlog: Default::default(),
            _guard: None,
        };
        let first = store.append("s", "g", b"0").await.unwrap();
        tx.send(Live::Event(first, b"0".to_vec())).unwrap();
        assert_eq!(follow.next().await.unwrap(), sse::event(Some("g.0".into()), b"0"));
        // Ten more events while the reader is away: the channel keeps two.
        for i in 1..=10u8 {
            let data = vec![b'0' + i % 10];
            let id = store.append("s", "g", &data).await.unwrap();
            let _ = tx.send(Live::Event(id, data));
        }
        tx.send(Live::End).unwrap();
        let mut seen = Vec::new();
        while let Some(event) = follow.next().await {
            seen.push(String::from_utf8(event.to_vec()).unwrap());
        }
        let ids: Vec<String> =
            seen.iter().map(|e| e.lines().next().unwrap().trim_start_matches("id: ").to_owned()).collect();
        let expected: Vec<String> = (1..=10).map(|i| format!("g.{i}")).collect();
        assert_eq!(ids, expected, "every event once, in order");
    }
}
