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
//! set ([`StateStore::admit`](switchboard_server::state::StateStore::admit))
//! where a session counts while its record exists.
//!
//! Spec: `docs/specification/<rev>/basic/transports.mdx` §Streamable HTTP.
//!
//! - `sessions.rs`: creating, restoring, finding, admitting and sweeping sessions;
//! - `shared.rs`: the shared record (`session:{id}`) and the `sessions` channel;
//! - `post.rs`: a POST on a session, answered with JSON or its own SSE stream;
//! - `sessionless.rs`: a POST when sessions are off;
//! - `get.rs`: the GET stream, and resuming a stream from `Last-Event-ID`;
//! - `delete.rs`: ending a session.
//!
//! The session types are in [`crate::app`], with the endpoint state that
//! holds their table.

mod delete;
mod get;
mod post;
mod sessionless;
mod sessions;
mod shared;

use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::json;
use switchboard_server::ProtocolVersion;
use switchboard_types::{Era, ErrorObject};

pub(crate) use delete::delete;
pub(crate) use get::get;
pub(crate) use shared::instance_tag;

use crate::app::App;
use crate::caller::Caller;
use crate::peek::{Body, Message};
use crate::security::error_response;

/// A POST in the `initialize` era: a present `MCP-Protocol-Version` must
/// name a handshake revision; then the session's POST, or one served on
/// its own when sessions are off. `message` is the one message peek read
/// (`None` for a batch).
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
        return sessionless::post(&app, &headers, &body, &peeked, message.as_ref(), &caller).await;
    }
    post::post(app, &headers, body, peeked, caller).await
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
