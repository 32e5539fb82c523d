//! CORS for the browser origins the operator names ([`HttpOptions::allowed_origins`]).
//!
//! A browser page on another origin can call the endpoint only if the
//! server says so: it first sends a preflight (`OPTIONS` with
//! `Access-Control-Request-Method`), and it shows the page an answer only
//! when that answer names the page's origin in `Access-Control-Allow-Origin`.
//! This layer wraps the whole router once, so no handler deals with it:
//!
//! - no origins configured (the default): the layer is not installed
//!   (`router_with_store`), no CORS header is ever written;
//! - a preflight from a named origin (and an allowed `Host`) is answered
//!   `204` with the methods, the request headers the transport reads
//!   (`Mcp-Param-*` included, named one by one since CORS has no prefix
//!   wildcard) and a `Max-Age`; no `Authorization` is needed for it, as
//!   browsers send none;
//! - any other response to a named origin carries `Access-Control-Allow-Origin`
//!   (that one origin, never `*`) and `Access-Control-Expose-Headers` (the
//!   session id, the protocol version, `WWW-Authenticate`, `Retry-After`);
//! - every response carries `Vary: Origin` while origins are configured,
//!   so a cache never hands one origin's answer to another;
//! - an origin not named gets no CORS header at all: its preflight falls
//!   through to the endpoint (the Origin check refuses it, `403`, or the
//!   method is `405`), and the browser keeps the page from reading anything.
//!
//! Naming an origin also lets it past the DNS-rebinding Origin check
//! (`security::is_named_origin`, used by `security::check` and here): one
//! list says which pages may call, in one place.

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::options::HttpOptions;

/// The request headers a browser client may send (beyond the CORS-safelisted
/// ones). `Mcp-Param-*` headers are added per preflight.
const ALLOW_HEADERS: &str = "Content-Type, Accept, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, \
                             Last-Event-ID, Mcp-Method, Mcp-Name";

/// The response headers a browser client may read.
const EXPOSE_HEADERS: &str = "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate, Retry-After";

/// The methods of the endpoint.
const ALLOW_METHODS: &str = "GET, POST, DELETE, OPTIONS";

/// How long a browser may cache a preflight answer, in seconds (two hours,
/// the most Chromium honours).
const MAX_AGE: &str = "7200";

/// The prefix of the headers that mirror tool arguments (`x-mcp-header`).
const PARAM_PREFIX: &str = "mcp-param-";

/// Most `Mcp-Param-*` names echoed in one preflight answer.
const MAX_PARAM_HEADERS: usize = 64;

/// The layer: see the module docs.
pub(crate) async fn layer(
    State(options): State<std::sync::Arc<HttpOptions>>,
    request: Request,
    next: Next,
) -> Response {
    let origin = request
        .headers()
        .get(header::ORIGIN)
        .filter(|o| o.to_str().is_ok_and(|o| crate::security::is_named_origin(o, &options)))
        .cloned();
    let is_preflight = request.method() == Method::OPTIONS
        && request.headers().contains_key(header::ACCESS_CONTROL_REQUEST_METHOD);
    let mut response = match &origin {
        Some(_) if is_preflight => match crate::security::check(request.headers(), &options) {
            Ok(()) => preflight(request.headers()),
            Err(refusal) => return with_vary(refusal),
        },
        _ => next.run(request).await,
    };
    if let Some(origin) = origin {
        let headers = response.headers_mut();
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        headers.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static(EXPOSE_HEADERS));
    }
    with_vary(response)
}

/// `204` with what the endpoint accepts.
fn preflight(request: &HeaderMap) -> Response {
    let mut response = StatusCode::NO_CONTENT.into_response();
    let headers = response.headers_mut();
    headers.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static(ALLOW_METHODS));
    headers.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static(MAX_AGE));
    let allow = match param_headers(request) {
        params if params.is_empty() => HeaderValue::from_static(ALLOW_HEADERS),
        params => HeaderValue::from_str(&format!("{ALLOW_HEADERS}, {}", params.join(", ")))
            .unwrap_or_else(|_| HeaderValue::from_static(ALLOW_HEADERS)),
    };
    headers.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, allow);
    response
}

/// The `Mcp-Param-*` names of `Access-Control-Request-Headers` (valid
/// header names only, at most [`MAX_PARAM_HEADERS`]).
fn param_headers(request: &HeaderMap) -> Vec<String> {
    let requested = request
        .get_all(header::ACCESS_CONTROL_REQUEST_HEADERS)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim);
    requested
        .filter(|name| name.len() > PARAM_PREFIX.len())
        .filter(|name| name.get(..PARAM_PREFIX.len()).is_some_and(|p| p.eq_ignore_ascii_case(PARAM_PREFIX)))
        .filter(|name| HeaderName::from_bytes(name.as_bytes()).is_ok())
        .take(MAX_PARAM_HEADERS)
        .map(str::to_owned)
        .collect()
}

/// `response` with `Origin` added to its `Vary`.
fn with_vary(mut response: Response) -> Response {
    response.headers_mut().append(header::VARY, HeaderValue::from_static("origin"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::security::is_named_origin as is_allowed;

    fn options(origins: &[&str]) -> HttpOptions {
        HttpOptions {
            allowed_origins: origins.iter().map(|o| (*o).to_owned()).collect(),
            ..HttpOptions::default()
        }
    }

    #[test]
    fn origins_match_whole_and_case_insensitively() {
        let o = options(&["https://App.example.com", "http://localhost:5173/"]);
        assert!(is_allowed("https://app.example.com", &o));
        assert!(is_allowed("http://localhost:5173", &o));
        assert!(!is_allowed("http://app.example.com", &o), "another scheme is another origin");
        assert!(!is_allowed("https://app.example.com:8443", &o), "another port is another origin");
        assert!(!is_allowed("https://app.example.com.evil.example", &o));
        assert!(!is_allowed("null", &o));
        assert!(!is_allowed("", &options(&[""])));
    }

    #[test]
    fn only_mcp_param_names_are_echoed() {
        let mut h = HeaderMap::new();
        h.insert(
            header::ACCESS_CONTROL_REQUEST_HEADERS,
            HeaderValue::from_static("content-type, mcp-param-region, x-other, mcp-param-, Mcp-Param-Zone"),
        );
        assert_eq!(param_headers(&h), ["mcp-param-region", "Mcp-Param-Zone"]);
    }
}
