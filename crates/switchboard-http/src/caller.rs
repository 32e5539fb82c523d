//! Who is calling and with which headers: what one HTTP request tells the
//! dispatcher beyond its body.

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
    headers: RequestHeaders,
}

impl Caller {
    /// The headers are listed for handlers only when one asks: the map
    /// is kept (its values share the request's buffer) instead of copying
    /// every name and value of every request.
    pub fn new(principal: Option<Principal>, headers: &HeaderMap) -> Self {
        let headers = headers.clone();
        let listed = RequestHeaders::lazy(move || {
            headers
                .iter()
                .filter(|(name, _)| !WITHHELD.contains(&name.as_str()))
                .filter_map(|(name, value)| Some((name.as_str().to_owned(), value.to_str().ok()?.to_owned())))
                .collect()
        });
        Self { principal, headers: listed }
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
