//! One handshake-era session and the table of them (`Sessions`), with the
//! answers about a session that cannot be used (unknown, another
//! principal's, one too many).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::http::StatusCode;
use axum::response::Response;
use switchboard_server::Session;
use switchboard_types::ErrorObject;
use tokio::sync::broadcast;
use tokio::task::AbortHandle;

use crate::event_store::EventStore;
use crate::security::error_response;

/// One handshake-era session.
pub(crate) struct HandshakeSession {
    pub id: String,
    pub session: Arc<Session>,
    /// Set while a GET stream is open (one at a time).
    pub(crate) get_open: Arc<AtomicBool>,
    pub(crate) last_seen: Mutex<Instant>,
    pub(crate) forwarder: Mutex<Option<AbortHandle>>,
    pub(crate) next_stream: AtomicU64,
    /// Live request streams, for clients resuming one that is still running.
    pub(crate) live: Mutex<HashMap<String, broadcast::Sender<Live>>>,
}

/// Slots of the per-stream live channels.
pub(crate) const LIVE_CAPACITY: usize = 16;

#[derive(Debug, Clone)]
pub(crate) enum Live {
    Event(String, Vec<u8>),
    /// An event the store could not keep: sent live without an id.
    Unstored(Vec<u8>),
    End,
}

impl HandshakeSession {
    pub(crate) fn touch(&self) {
        *self.last_seen.lock().expect("session lock poisoned") = Instant::now();
    }

    /// Ends the session here and forgets its events.
    pub(crate) async fn end(&self, store: &dyn EventStore) {
        self.drop_local();
        if let Err(e) = store.remove_session(&self.id).await {
            tracing::warn!(session = %self.id, error = %e, "could not remove the session's events");
        }
    }

    /// Stops serving the session in this process (its record and events,
    /// if shared, are someone else's business). Its requests still running
    /// are cancelled: the client said it needs none of their answers, and a
    /// tool's work (a database query, a command) must not outlive that.
    pub(crate) fn drop_local(&self) {
        self.session.close();
        self.session.cancel_all();
        if let Some(f) = self.forwarder.lock().expect("session lock poisoned").take() {
            f.abort();
        }
    }
}

/// Every handshake-era session of the endpoint.
#[derive(Default)]
pub(crate) struct Sessions {
    pub(crate) map: Mutex<HashMap<String, Arc<HandshakeSession>>>,
    /// The idle sweeper (and, with a state store, the listener of the
    /// `sessions` channel) starts with the first session (inside the
    /// runtime, whoever built the router).
    pub(crate) sweeper: std::sync::OnceLock<()>,
}

impl Sessions {
    pub(crate) fn get(&self, id: &str) -> Option<Arc<HandshakeSession>> {
        self.map.lock().expect("sessions lock poisoned").get(id).cloned()
    }

    pub(crate) fn remove(&self, id: &str) -> Option<Arc<HandshakeSession>> {
        self.map.lock().expect("sessions lock poisoned").remove(id)
    }

    pub(crate) fn len(&self) -> usize {
        self.map.lock().expect("sessions lock poisoned").len()
    }
}

/// `403`: the session belongs to another principal.
pub(crate) fn another_principal() -> Response {
    error_response(
        StatusCode::FORBIDDEN,
        None,
        ErrorObject::invalid_request("this session was opened by another principal"),
    )
}

/// `404`: no such session (never opened, ended, or expired).
pub(crate) fn unknown_session() -> Response {
    error_response(
        StatusCode::NOT_FOUND,
        None,
        ErrorObject::invalid_request("unknown or ended session: send initialize to open a new one"),
    )
}

/// `503`: the endpoint holds as many sessions as it may.
pub(crate) fn too_many_sessions() -> Response {
    error_response(
        StatusCode::SERVICE_UNAVAILABLE,
        None,
        ErrorObject::internal("too many open sessions; try again later"),
    )
}
