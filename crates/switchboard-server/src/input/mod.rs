//! Asking the client for input in the middle of a request: elicitation,
//! sampling and roots, through one handler API that works in both eras.
//!
//! A handler calls [`RequestContext::input`](crate::RequestContext::input)
//! (or `elicit`, `sample`, `list_roots`, `inputs`) and gets the client's
//! answer. How the answer arrives depends on the revision:
//!
//! - **Handshake era** (2024-11-05 … 2025-11-25): a live server-to-client
//!   request over the session (`sampling/createMessage`, `elicitation/create`,
//!   `roots/list`), awaited in place.
//! - **Per-request era** (2026-07-28): multi round-trip requests
//!   (`docs/specification/2026-07-28/basic/patterns/mrtr.mdx`). The server
//!   may not send requests, so the first time a handler asks for an answer
//!   the client has not given, the call fails with [`InputError::Pending`];
//!   the handler propagates it with `?`, and the dispatcher answers the
//!   request with an `InputRequiredResult` listing every pending question
//!   (`inputRequests`) and a signed `requestState`. The client retries with
//!   `inputResponses`; the handler runs again from the top, and this time
//!   the same calls return the answers.
//!
//! Handlers therefore stay straight-line code. What a handler learned in
//! earlier rounds survives in the `requestState`: every answer it consumed,
//! and whatever it stored with `remember`. The state is authenticated with
//! HMAC-SHA256 under a key derived from the server key that instances share
//! (the cursor key, [`ServerOptions::cursor_key`](crate::ServerOptions)),
//! and bound to the principal, the method, a digest of the request's
//! parameters and an expiry, as the spec's security section asks. It is
//! integrity-protected, not secret: the client can read it, so never put
//! secrets in `remember`. A state that fails any check is `-32602`.
//!
//! The other rules of the pattern are kept here too: questions go only to
//! clients that declared the capability (otherwise the request ends with
//! `-32021` naming it, when the handler cannot go on without it), missing
//! answers are asked again in a new `InputRequiredResult` rather than
//! failing, answers the handler never asked for are ignored, and an
//! `InputRequiredResult` is only ever the answer to `tools/call`,
//! `prompts/get` or `resources/read`.

mod round;
mod state_codec;

use std::fmt;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use switchboard_types::{ClientCapabilities, ErrorObject};

use state_codec::{feed_canonical, without};

pub(crate) use round::{InputRound, settle};
pub(crate) use state_codec::StateCodec;

/// One question for the client: an `elicitation/create`,
/// `sampling/createMessage` or `roots/list` request
/// (`docs/specification/2026-07-28/basic/patterns/mrtr.mdx` §InputRequests).
#[derive(Debug, Clone, PartialEq)]
pub struct InputRequest {
    kind: Kind,
    params: Value,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Elicitation,
    Sampling,
    Roots,
}

impl Kind {
    fn method(self) -> &'static str {
        match self {
            Kind::Elicitation => "elicitation/create",
            Kind::Sampling => "sampling/createMessage",
            Kind::Roots => "roots/list",
        }
    }

    /// The client capability the question needs.
    fn capability(self) -> &'static str {
        match self {
            Kind::Elicitation => "elicitation",
            Kind::Sampling => "sampling",
            Kind::Roots => "roots",
        }
    }

    /// Whether `answer` has the shape of this request's result (the
    /// `ElicitResult`, `CreateMessageResult` or `ListRootsResult` essentials).
    fn accepts(self, answer: &Value) -> bool {
        match self {
            Kind::Elicitation => answer.get("action").is_some_and(Value::is_string),
            Kind::Sampling => {
                answer.get("content").is_some() && answer.get("role").is_some_and(Value::is_string)
            }
            Kind::Roots => answer.get("roots").is_some_and(Value::is_array),
        }
    }
}

impl InputRequest {
    /// A form elicitation: `message` shown to the user and the flat object
    /// schema of the answer.
    pub fn elicit(message: impl Into<String>, requested_schema: Value) -> Self {
        Self::elicitation(json!({"message": message.into(), "requestedSchema": requested_schema}))
    }

    /// An elicitation with the given `ElicitRequestParams` as sent.
    pub fn elicitation(params: Value) -> Self {
        Self { kind: Kind::Elicitation, params }
    }

    /// A sampling request with the given `CreateMessageRequestParams`.
    pub fn sampling(params: Value) -> Self {
        Self { kind: Kind::Sampling, params }
    }

    /// A sampling request for one user message, answered in at most
    /// `max_tokens` tokens.
    pub fn sample_text(text: impl Into<String>, max_tokens: u32) -> Self {
        Self::sampling(json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": text.into()}}],
            "maxTokens": max_tokens,
        }))
    }

    /// A request for the client's roots.
    pub fn list_roots() -> Self {
        Self { kind: Kind::Roots, params: json!({}) }
    }

    /// The question a server-to-client request is, by its JSON-RPC method
    /// (`elicitation/create`, `sampling/createMessage`, `roots/list`) and
    /// params as sent; `None` for any other method. For relaying questions
    /// a handler did not write itself, such as an upstream server's.
    pub fn from_request(method: &str, params: Value) -> Option<Self> {
        let kind =
            [Kind::Elicitation, Kind::Sampling, Kind::Roots].into_iter().find(|k| k.method() == method)?;
        Some(Self { kind, params })
    }

    /// A digest of the question (its method and params, object keys sorted,
    /// `_meta` left out) that is the same every time the same question is
    /// asked: a key for [`RequestContext::input`](crate::RequestContext::input)
    /// when a relayed question must find its answer again on a retry.
    pub fn fingerprint(&self) -> String {
        let mut hasher = Sha256::new();
        hasher.update(self.kind.method().as_bytes());
        let salient = match &self.params {
            Value::Object(map) => Value::Object(without(map, &["_meta"])),
            other => other.clone(),
        };
        feed_canonical(&mut hasher, &salient);
        URL_SAFE_NO_PAD.encode(hasher.finalize())
    }

    /// The JSON-RPC method of the question.
    pub fn method(&self) -> &'static str {
        self.kind.method()
    }

    /// The client capability it needs: `"elicitation"`, `"sampling"` or
    /// `"roots"`.
    pub fn capability(&self) -> &'static str {
        self.kind.capability()
    }

    /// Its parameters.
    pub fn params(&self) -> &Value {
        &self.params
    }

    /// Whether a client with `caps` may be asked this question.
    pub fn is_declared_by(&self, caps: &ClientCapabilities) -> bool {
        match self.kind {
            Kind::Elicitation => caps.elicitation.is_some(),
            Kind::Sampling => caps.sampling.is_some(),
            Kind::Roots => caps.roots.is_some(),
        }
    }

    /// The request object as it appears in `inputRequests`.
    fn wire(&self) -> Value {
        json!({"method": self.kind.method(), "params": self.params})
    }
}

/// Why a question got no answer. Propagate it with `?`: the dispatcher
/// turns [`InputError::Pending`] into an `InputRequiredResult` and
/// [`InputError::NotDeclared`] into `-32021` (2026-07-28) whatever error
/// type the handler converted it into.
#[derive(Debug, Clone)]
pub enum InputError {
    /// 2026-07-28: the client has not answered yet; it will be asked in the
    /// `InputRequiredResult` that ends this round.
    Pending,
    /// The client did not declare the capability the question needs
    /// (`"elicitation"`, `"sampling"` or `"roots"`); check first with
    /// [`RequestContext::can_ask`](crate::RequestContext::can_ask) to do
    /// without.
    NotDeclared {
        /// The missing capability.
        capability: &'static str,
    },
    /// The question could not be asked or the client answered with an
    /// error (handshake era), or the request does not allow questions.
    Failed(ErrorObject),
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::Pending => f.write_str("waiting for the client's input"),
            InputError::NotDeclared { capability } => {
                write!(f, "the client did not declare the {capability} capability")
            }
            InputError::Failed(e) => write!(f, "{}", e.message),
        }
    }
}

impl std::error::Error for InputError {}
