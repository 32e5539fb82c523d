//! Per-connection state.
//!
//! A [`Session`] is what one client connection (a stdio process, later an
//! HTTP session) carries between messages: the revision and capabilities
//! negotiated by a legacy `initialize`, the requests in flight (so
//! `notifications/cancelled` can reach them), and the queue its outgoing
//! messages go through. Requests in the 2026-07-28 model never read the
//! negotiated state; they bring their own in `_meta`.

use std::collections::HashMap;
use std::sync::Mutex;

use mcp_types::jsonrpc::encode_notification;
use mcp_types::notifications::{EmptyParams, method};
use mcp_types::{ClientCapabilities, Implementation, ProtocolVersion, RequestId};
use tokio_util::sync::CancellationToken;

use crate::context::{Outbound, Principal};
use crate::registry::ListChanged;

/// What a legacy `initialize` settled.
#[derive(Debug, Clone)]
pub struct Negotiated {
    /// The agreed revision.
    pub version: ProtocolVersion,
    /// What the client said it can do.
    pub client_capabilities: ClientCapabilities,
    /// Who the client says it is.
    pub client_info: Implementation,
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
    outbound: Outbound,
    principal: Option<Principal>,
}

impl Session {
    pub(crate) fn new(outbound: Outbound, principal: Option<Principal>) -> Self {
        Self {
            lifecycle: Mutex::new(Lifecycle::New),
            inflight: Mutex::new(HashMap::new()),
            outbound,
            principal,
        }
    }

    /// The legacy negotiation, once `initialize` has been answered.
    pub fn negotiated(&self) -> Option<Negotiated> {
        match &*self.lifecycle.lock().expect("lifecycle lock poisoned") {
            Lifecycle::New => None,
            Lifecycle::Initialized(n) | Lifecycle::Ready(n) => Some(n.clone()),
        }
    }

    /// The negotiated legacy revision, if any.
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

    /// Handles `notifications/initialized`.
    pub(crate) fn mark_ready(&self) {
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

    /// Cancels every request in flight (the connection is going away).
    pub(crate) fn cancel_all(&self) {
        for token in self.inflight.lock().expect("inflight lock poisoned").values() {
            token.cancel();
        }
    }

    /// Number of requests in flight.
    pub fn in_flight(&self) -> usize {
        self.inflight.lock().expect("inflight lock poisoned").len()
    }

    /// Sends the legacy `notifications/*/list_changed` for `change`, if this
    /// session finished the handshake. (2026-07-28 clients receive list
    /// changes only on `subscriptions/listen` streams.)
    pub(crate) async fn notify_list_changed(&self, change: ListChanged) {
        if self.ready_version().is_none() {
            return;
        }
        let method = match change {
            ListChanged::Tools => method::TOOLS_LIST_CHANGED,
        };
        let bytes = encode_notification::<EmptyParams>(method, None);
        let _ = self.outbound.send(bytes).await;
    }
}
