//! Who sent a message and where messages for its client go: the
//! [`Principal`] a transport authenticated, the [`Outbound`] queue of a
//! connection, and what a transport knows of one message ([`Via`]).

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
    pub headers: Option<RequestHeaders>,
}

/// A request's transport headers, for
/// [`RequestContext::headers`](crate::RequestContext::headers). A
/// transport hands over either the list or a way to make it; a lazy list is
/// made the first time a handler asks, so the requests whose handlers never
/// read a header (most) do not copy every header name and value.
#[derive(Clone)]
pub struct RequestHeaders(Arc<HeaderList>);

/// Makes a request's header list when first asked.
type MakeHeaders = Box<dyn Fn() -> Vec<(String, String)> + Send + Sync>;

struct HeaderList {
    make: Option<MakeHeaders>,
    made: std::sync::OnceLock<Vec<(String, String)>>,
}

impl RequestHeaders {
    /// Headers made by `make` when first asked for (names lower-case, in
    /// the order received).
    pub fn lazy(make: impl Fn() -> Vec<(String, String)> + Send + Sync + 'static) -> Self {
        Self(Arc::new(HeaderList { make: Some(Box::new(make)), made: std::sync::OnceLock::new() }))
    }

    /// The name/value pairs.
    pub fn pairs(&self) -> &[(String, String)] {
        self.0.made.get_or_init(|| self.0.make.as_ref().map(|make| make()).unwrap_or_default())
    }
}

impl From<Vec<(String, String)>> for RequestHeaders {
    fn from(pairs: Vec<(String, String)>) -> Self {
        Self(Arc::new(HeaderList { make: None, made: std::sync::OnceLock::from(pairs) }))
    }
}

impl std::fmt::Debug for RequestHeaders {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Names only: values may be personal (the credentials never get here).
        f.debug_list().entries(self.pairs().iter().map(|(name, _)| name)).finish()
    }
}
