//! The endpoint's shared state: [`App`], and the handshake-era session
//! table it holds.

mod handshake_session;

use std::sync::Arc;

use switchboard_server::Server;

pub(crate) use handshake_session::{
    HandshakeSession, LIVE_CAPACITY, Live, Sessions, another_principal, too_many_sessions, unknown_session,
};

use crate::event_store::EventStore;
use crate::options::HttpOptions;

/// Shared state of the endpoint.
#[derive(Clone)]
pub(crate) struct App {
    pub server: Server,
    pub options: Arc<HttpOptions>,
    pub sessions: Arc<Sessions>,
    pub store: Arc<dyn EventStore>,
    /// [`HttpOptions::state`].
    pub state: Option<Arc<dyn switchboard_server::state::StateStore>>,
    /// Tags this instance's request stream ids (`p{tag}{n}`), so instances
    /// sharing a state store never reuse one; empty without a store.
    pub instance: Arc<str>,
    /// The one session of every independent 2026-07-28 request
    /// ([`Server::stateless_session`]).
    pub stateless: Arc<switchboard_server::Session>,
}
