//! DNS-rebinding protection and the JSON-RPC error bodies of HTTP errors.
//!
//! `Host` must name an allowed host (any port), and a present `Origin` must
//! too or be one of the CORS origins (`HttpOptions::allowed_origins`); otherwise `403` with a JSON-RPC error body, never an empty one
//! (the Streamable HTTP page's security warning; clients tell a 2026-07-28 server from a
//! handshake-era one by the body).

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use switchboard_server::Reply;
use switchboard_types::jsonrpc::encode_error;
use switchboard_types::{ErrorObject, RequestId};

use crate::options::HttpOptions;

/// An HTTP error with a JSON-RPC error body.
pub(crate) fn error_response(status: StatusCode, id: Option<&RequestId>, error: ErrorObject) -> Response {
    json_response(status, encode_error(id, &error))
}

/// A JSON body with a status.
pub(crate) fn json_response(status: StatusCode, body: Vec<u8>) -> Response {
    let mut response = (status, body).into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// A JSON-RPC reply with `status`, unless its outcome is the state-store
/// outage ([`switchboard_server::state::store_unavailable`]): that is `503`
/// with `Retry-After` on every path, handshake-era or 2026-07-28. The dispatcher
/// says which it is ([`Outcome`](switchboard_server::Outcome)); the bytes are not read. No reply (a
/// request that produced none) is an empty body with `status`.
pub(crate) fn reply_response(status: StatusCode, reply: Option<Reply>) -> Response {
    match reply {
        Some(reply) if reply.outcome().is_store_unavailable() => outage_response(reply.into_bytes()),
        Some(reply) => json_response(status, reply.into_bytes()),
        None => json_response(status, Vec::new()),
    }
}

/// `503` with `Retry-After` and the JSON-RPC error body.
pub(crate) fn outage_response(body: Vec<u8>) -> Response {
    with_retry_after(json_response(StatusCode::SERVICE_UNAVAILABLE, body))
}

/// `response` with `Retry-After`: when a store outage is worth retrying.
pub(crate) fn with_retry_after(mut response: Response) -> Response {
    let seconds = switchboard_server::state::STORE_RETRY_AFTER.as_secs().max(1).to_string();
    if let Ok(value) = HeaderValue::from_str(&seconds) {
        response.headers_mut().insert(header::RETRY_AFTER, value);
    }
    response
}

/// `413` for a body above `max` bytes.
pub(crate) fn too_large(max: usize) -> Response {
    error_response(
        StatusCode::PAYLOAD_TOO_LARGE,
        None,
        ErrorObject::invalid_request(format!("the request body is larger than {max} bytes")),
    )
}

pub(crate) fn method_not_allowed() -> Response {
    let mut r = error_response(
        StatusCode::METHOD_NOT_ALLOWED,
        None,
        ErrorObject::invalid_request("method not allowed on the MCP endpoint"),
    );
    r.headers_mut().insert(header::ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
    r
}

/// The host part of `host[:port]`, `[v6]:port` or a bare name, lower-cased.
fn host_name(authority: &str) -> String {
    let authority = authority.trim();
    let host = if let Some(rest) = authority.strip_prefix('[') {
        rest.split(']').next().unwrap_or_default()
    } else {
        authority.rsplit_once(':').map_or(authority, |(h, port)| {
            if port.chars().all(|c| c.is_ascii_digit()) { h } else { authority }
        })
    };
    host.to_ascii_lowercase()
}

fn allowed(host: &str, options: &HttpOptions) -> bool {
    options.allowed_hosts.iter().any(|a| a == "*" || a.eq_ignore_ascii_case(host))
}

/// `origin` (an `Origin` header value) is one of [`HttpOptions::allowed_origins`]:
/// scheme, host and port compared case-insensitively, a trailing `/` ignored.
pub(crate) fn is_named_origin(origin: &str, options: &HttpOptions) -> bool {
    let origin = origin.trim().trim_end_matches('/');
    !origin.is_empty()
        && options
            .allowed_origins
            .iter()
            .any(|allowed| allowed.trim().trim_end_matches('/').eq_ignore_ascii_case(origin))
}

pub(crate) fn check(headers: &HeaderMap, options: &HttpOptions) -> Result<(), Response> {
    let forbidden = |what: &str| {
        Err(error_response(
            StatusCode::FORBIDDEN,
            None,
            ErrorObject::invalid_request(format!("{what} is not allowed (DNS-rebinding protection)")),
        ))
    };
    match headers.get(header::HOST).and_then(|h| h.to_str().ok()) {
        Some(host) if allowed(&host_name(host), options) => {}
        Some(_) => return forbidden("this Host"),
        None => return forbidden("a request without Host"),
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or_default();
        let authority = origin.split_once("://").map(|(_, rest)| rest).unwrap_or("");
        let authority = authority.split('/').next().unwrap_or_default();
        let named = is_named_origin(origin, options);
        if !named && (origin == "null" || authority.is_empty() || !allowed(&host_name(authority), options)) {
            return forbidden("this Origin");
        }
    }
    Ok(())
}

/// A POST must carry JSON (`415` otherwise) and accept JSON or SSE answers
/// (`406` otherwise; clients MUST list both, a missing `Accept` is refused).
pub(crate) fn check_post_headers(headers: &HeaderMap) -> Result<(), Response> {
    let content_type = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or_default();
    let media = content_type.split(';').next().unwrap_or_default().trim();
    if !media.eq_ignore_ascii_case("application/json") {
        return Err(error_response(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            None,
            ErrorObject::invalid_request(format!(
                "Content-Type must be application/json, got {content_type:?}"
            )),
        ));
    }
    let accept = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()).unwrap_or_default();
    let acceptable = accept.split(',').any(|item| {
        let media = item.split(';').next().unwrap_or_default().trim();
        ["application/json", "text/event-stream", "*/*", "application/*", "text/*"]
            .iter()
            .any(|m| media.eq_ignore_ascii_case(m))
    });
    if !acceptable {
        return Err(error_response(
            StatusCode::NOT_ACCEPTABLE,
            None,
            ErrorObject::invalid_request(
                "Accept must list application/json and text/event-stream (the answer is one or the other)",
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names_ignore_ports_and_brackets() {
        assert_eq!(host_name("127.0.0.1:8080"), "127.0.0.1");
        assert_eq!(host_name("LOCALHOST"), "localhost");
        assert_eq!(host_name("[::1]:3000"), "::1");
        assert_eq!(host_name("evil.example.com"), "evil.example.com");
    }

    #[test]
    fn rejects_foreign_hosts_and_origins() {
        let o = HttpOptions::default();
        let mut h = HeaderMap::new();
        h.insert(header::HOST, HeaderValue::from_static("127.0.0.1:9"));
        assert!(check(&h, &o).is_ok());
        h.insert(header::ORIGIN, HeaderValue::from_static("http://localhost:9"));
        assert!(check(&h, &o).is_ok());
        h.insert(header::ORIGIN, HeaderValue::from_static("http://evil.example.com"));
        assert!(check(&h, &o).is_err());
        h.insert(header::ORIGIN, HeaderValue::from_static("null"));
        assert!(check(&h, &o).is_err());
        h.remove(header::ORIGIN);
        h.insert(header::HOST, HeaderValue::from_static("evil.example.com"));
        assert!(check(&h, &o).is_err());
    }
}
