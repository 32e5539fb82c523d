//! Who is calling and with which headers: what one HTTP request tells the
//! dispatcher beyond its body.

use std::sync::Arc;

use axum::http::HeaderMap;
use switchboard_server::{Outbound, Principal, RequestHeaders, Via};

/// Headers never handed to handlers: credentials stay in the transport
/// (the authorization spec forbids passing tokens through).
const WITHHELD: &[&str] = &["authorization", "cookie", "proxy-authorization"];

/// The authenticated principal (if authorization is on) and the request's
/// headers.
#[derive(Debug, Clone)]
pub(crate) struct Caller {
    pub principal: Option<Principal>,
    /// The request's header map, shared by the transport's checks and the
    /// handlers' lazy list (moved here, not copied: cloning a request's
    /// map was about 2% of a 2026-07-28 `tools/call`, measured with
    /// callgrind).
    map: Arc<HeaderMap>,
    headers: RequestHeaders,
}

impl Caller {
    /// The headers are listed for handlers only when one asks: the map
    /// is kept (its values share the request's buffer) instead of copying
    /// every name and value of every request.
    pub fn new(principal: Option<Principal>, headers: HeaderMap) -> Self {
        let map = Arc::new(headers);
        let shared = Arc::clone(&map);
        let listed = RequestHeaders::lazy(move || {
            shared
                .iter()
                .filter(|(name, _)| !WITHHELD.contains(&name.as_str()))
                .filter_map(|(name, value)| Some((name.as_str().to_owned(), value.to_str().ok()?.to_owned())))
                .collect()
        });
        Self { principal, map, headers: listed }
    }

    /// The request's headers.
    pub fn headers(&self) -> Arc<HeaderMap> {
        Arc::clone(&self.map)
    }

    /// The dispatcher's view, with request-scoped messages going to `stream`.
    pub fn via(&self, stream: Option<&Outbound>) -> Via {
        Via {
            stream: stream.cloned(),
            principal: self.principal.clone(),
            headers: Some(self.headers.clone()),
        }
    }
}
