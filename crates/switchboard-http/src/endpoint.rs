//! The MCP endpoint's handler: reads the body (bounded) and routes a
//! request to its era, handshake ([`crate::handshake`]) or 2026-07-28
//! ([`crate::per_request`]).

use switchboard_server::Server;

use crate::app::App;
use crate::auth::AuthOptions;
use crate::{caller, guard, handshake, peek, per_request, security};

/// The MCP endpoint: every method of the endpoint path, behind the guard
/// ([`crate::guard`]).
pub(crate) async fn handle(
    axum::extract::State(app): axum::extract::State<App>,
    request: axum::extract::Request,
) -> axum::response::Response {
    use axum::http::Method;
    let (mut parts, body) = request.into_parts();
    // Host/Origin and the token were checked by the guard, before a byte
    // of the body is read.
    let principal = match guard::principal(&mut parts.extensions, &app.options) {
        Ok(principal) => principal,
        Err(response) => return response,
    };
    let (method, headers) = (parts.method, parts.headers);
    let body = match read_body(&headers, body, app.options.max_body).await {
        Ok(body) => body,
        Err(response) => return response,
    };
    let per_request_header = has_per_request_header(&headers);
    match method {
        Method::POST => post(app, headers, body, principal, per_request_header).await,
        Method::GET if !per_request_header && app.options.legacy_sessions => {
            handshake::get(app, caller::Caller::new(principal, headers)).await
        }
        Method::DELETE if !per_request_header && app.options.legacy_sessions => {
            handshake::delete(app, caller::Caller::new(principal, headers)).await
        }
        _ => security::method_not_allowed(),
    }
}

/// `MCP-Protocol-Version` names a per-request revision (2026-07-28).
fn has_per_request_header(headers: &axum::http::HeaderMap) -> bool {
    headers
        .get("mcp-protocol-version")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| switchboard_server::ProtocolVersion::parse(v.trim()))
        .is_some_and(|v| v.era() == switchboard_types::Era::PerRequest)
}

/// A POST: media types, then the body's classification (a body that is no
/// valid JSON-RPC message is `400` here, on every path), then the scope
/// challenge, then the era's handler.
async fn post(
    app: App,
    headers: axum::http::HeaderMap,
    body: axum::body::Bytes,
    principal: Option<switchboard_server::Principal>,
    per_request_header: bool,
) -> axum::response::Response {
    if let Err(response) = security::check_post_headers(&headers) {
        return response;
    }
    let (peeked, message) = peek::read(&body);
    if let peek::Body::Refused(refusal) = &peeked {
        return refusal.response();
    }
    if let (Some(auth), Some(principal)) = (&app.options.auth, &principal)
        && let Some(response) = scope_challenge(&app.server, auth, principal, &body)
    {
        return response;
    }
    let caller = caller::Caller::new(principal, headers);
    if per_request_header || peeked.is_per_request() {
        per_request::post(app, peeked, message, caller).await
    } else {
        handshake::post(app, body.clone(), peeked, message, caller).await
    }
}

/// The body, at most `max` bytes: a larger declared `Content-Length` is
/// refused before reading, a longer stream is cut off at the limit.
async fn read_body(
    headers: &axum::http::HeaderMap,
    body: axum::body::Body,
    max: usize,
) -> Result<axum::body::Bytes, axum::response::Response> {
    let declared = headers
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > max as u64) {
        return Err(security::too_large(max));
    }
    axum::body::to_bytes(body, max).await.map_err(|_| security::too_large(max))
}

/// `403 insufficient_scope` when a message of the body names a tool,
/// prompt or resource the principal's scopes do not cover.
fn scope_challenge(
    server: &Server,
    auth: &AuthOptions,
    principal: &switchboard_server::Principal,
    body: &[u8],
) -> Option<axum::response::Response> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    let messages = match &value {
        serde_json::Value::Array(items) => items.iter().collect(),
        other => vec![other],
    };
    for message in messages {
        let Some(method) = message.get("method").and_then(|m| m.as_str()) else { continue };
        if let Some(scopes) = server.missing_scopes(principal, method, message.get("params")) {
            let description = format!("{method} needs the scopes: {}", scopes.join(" "));
            return Some(auth.insufficient(&scopes, &description));
        }
    }
    None
}
