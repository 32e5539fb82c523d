//! The handshake-era session table at work: creating a session, rebuilding
//! one from its shared record, finding the one a request names, admitting
//! it against `max_sessions`, and sweeping idle ones.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use switchboard_server::Principal;
use switchboard_server::state::StateStore;
use switchboard_types::ErrorObject;
use tokio::sync::{broadcast, mpsc};

use super::shared::{Record, forget_local, record_key, spawn_listener, unavailable};
use crate::app::{
    App, HandshakeSession, LIVE_CAPACITY, Live, Sessions, another_principal, too_many_sessions,
    unknown_session,
};
use crate::caller::Caller;
use crate::event_store::EventStore;
use crate::peek::Body;
use crate::security::error_response;

/// Starts the idle sweeper and, with a state store, the listener applying
/// other instances' changes to local copies: once, with the first session.
pub(super) fn start_background(app: &App) {
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
pub(super) fn build(app: &App, id: String, principal: Option<Principal>) -> Arc<HandshakeSession> {
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

pub(super) fn session_header(headers: &HeaderMap) -> Option<&str> {
    headers.get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::trim)
}

pub(super) fn with_session_header(mut response: Response, id: &str) -> Response {
    if let Ok(v) = HeaderValue::from_str(id) {
        response.headers_mut().insert("mcp-session-id", v);
    }
    response
}

/// Rebuilds a session another instance opened from its record; `Err` is
/// the answer (404 when there is no record, 403 for another principal,
/// 503 when the store fails).
pub(super) async fn restore(
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
pub(super) async fn lookup(
    app: &App,
    headers: &HeaderMap,
    caller: &Caller,
) -> Result<Arc<HandshakeSession>, Response> {
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

/// The shared set counting every instance's sessions for `max_sessions`.
const SESSIONS_SET: &str = "sessions";
/// How long that set lives after the last session was admitted.
const SESSIONS_SET_TTL: Duration = Duration::from_secs(7 * 24 * 3600);

/// Counts a new session (its record just written) against `max_sessions`
/// across every instance sharing `state`: one atomic admission, in which a
/// session counts while its record exists (so an instance that crashed
/// leaks no count). `Err` is the answer when it is refused (`503`, its
/// record removed) or the store fails.
pub(super) async fn admit(app: &App, state: &dyn StateStore, id: &str) -> Result<(), Response> {
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
pub(super) async fn open_or_find(
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
