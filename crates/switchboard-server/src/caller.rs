//! Who sent a message and where messages for its client go: the
//! [`Principal`] a transport authenticated, the [`Outbound`] queue of a
//! connection, and what a transport knows of one message ([`Via`]).
//!
//! Why its own module: sessions, the request context, the dispatcher and
//! the registries all need these plain types; here they sit below all of
//! them (a session no longer imports the request context to name its
//! principal).

use std::collections::BTreeSet;
use std::sync::Arc;

use tokio::sync::mpsc;

/// Where serialized messages for one client go.
pub type Outbound = mpsc::Sender<Vec<u8>>;

/// The authenticated identity of a caller, set by the transport. stdio has
/// none (the local user runs the server); the HTTP transport fills it from
/// the bearer token of each request.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Principal {
    /// A stable subject identifier (e.g. the token's `sub`).
    pub subject: String,
    /// The OAuth scopes the token grants.
    pub scopes: BTreeSet<String>,
}

impl Principal {
    /// A principal with this subject and no scopes.
    pub fn new(subject: impl Into<String>) -> Self {
        Self { subject: subject.into(), scopes: BTreeSet::new() }
    }

    /// The same principal granted `scopes`.
    #[must_use]
    pub fn with_scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// Whether every scope of `required` is granted.
    pub fn has_scopes(&self, required: &[String]) -> bool {
        required.iter().all(|s| self.scopes.contains(s))
    }
}

/// Whether a registration that requires `scopes` is visible to and usable
/// by `principal`. Without a principal (stdio, or HTTP without
/// authorization) there is nobody to restrict: everything is allowed.
pub(crate) fn permits(principal: Option<&Principal>, scopes: &[String]) -> bool {
    scopes.is_empty() || principal.is_none_or(|p| p.has_scopes(scopes))
}

/// What a transport knows about one incoming message beyond its bytes.
#[derive(Debug, Clone, Default)]
pub struct Via {
    /// Where messages about the request go (an HTTP POST's own SSE stream);
    /// `None`: the session's queue.
    pub stream: Option<Outbound>,
    /// Who sent it, when the transport authenticates every message (HTTP
    /// bearer tokens); `None`: the session's principal.
    pub principal: Option<Principal>,
    /// The transport's headers for this message (HTTP), names lower-case,
    /// in the order received.
    pub headers: Option<Arc<Vec<(String, String)>>>,
}
