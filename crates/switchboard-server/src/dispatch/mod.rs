//! From bytes to a response: parse, classify, admit, run, answer.
//!
//! [`admit`] does the synchronous part of handling one frame on the
//! connection's own task: it parses the envelope (borrowing, params kept
//! raw), applies the JSON-RPC rules, decides the era from `_meta`, checks
//! the lifecycle, looks the method up, and registers the request's
//! cancellation token. A transport with checks of its own (2026-07-28
//! HTTP's mirrored headers) hands them over as an [`AdmissionCheck`],
//! which admission calls at its place in the order. Errors found there,
//! and notifications, are finished on the spot ([`Accepted::Done`]), in
//! arrival order. A request that reaches a handler comes back as
//! [`Accepted::Pending`]: the future of [`run`], which a transport may run
//! concurrently with others. Registering the token before that future
//! exists is what makes a `notifications/cancelled` that follows right
//! behind its request find it.
//!
//! Every answer is a [`Reply`]: the bytes and the [`Outcome`](crate::Outcome)
//! they carry, so a transport that decides something from the outcome (an
//! HTTP status) does not parse them. The method rows ([`rows`]) say which
//! handler answers each core method and what of the core it is handed; the
//! handlers themselves live in their areas' folders (`tools/methods.rs`,
//! …). [`reply`] is what every answer is; [`layers`] is the server
//! middleware around them.

pub(crate) mod admit;
pub(crate) mod layers;
pub(crate) mod reply;
pub(crate) mod rows;
pub(crate) mod run;

use futures::future::BoxFuture;
use switchboard_types::{ErrorObject, RequestId};

use crate::dispatch::reply::Reply;

pub use admit::AdmissionCheck;

/// The outcome of accepting a frame (`Server::accept`).
pub enum Accepted {
    /// Fully handled; send this reply if any (a notification gets none).
    Done(Option<Reply>),
    /// A request for a handler: run the future, then send what it yields
    /// (nothing when the request was cancelled).
    Pending(BoxFuture<'static, Option<Reply>>),
}

impl std::fmt::Debug for Accepted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Accepted::Done(b) => f.debug_tuple("Done").field(&b.as_ref().map(|b| b.len())).finish(),
            Accepted::Pending(_) => f.write_str("Pending(..)"),
        }
    }
}

impl Accepted {
    /// Runs a pending request to completion; the reply's bytes.
    pub async fn resolve(self) -> Option<Vec<u8>> {
        self.reply().await.map(Reply::into_bytes)
    }

    /// Runs a pending request to completion; the reply with its outcome.
    pub async fn reply(self) -> Option<Reply> {
        match self {
            Accepted::Done(reply) => reply,
            Accepted::Pending(fut) => fut.await,
        }
    }
}

fn error_reply(id: Option<&RequestId>, error: ErrorObject) -> Accepted {
    Accepted::Done(Some(Reply::error(id, &error)))
}
