//! Methods an application adds to the server: the requests an extension
//! defines (SEP-2133), such as the skills extension's `skills/list`,
//! `skills/get` and `resources/directory/read`.
//!
//! Why here: an extension that only advertised itself in the capabilities
//! could not answer its own requests; every unknown method is `-32601`
//! before any middleware sees it. A [`Method`] is looked up after the
//! built-in methods, so it can never shadow one, and it runs through the
//! same pipeline (lifecycle, cancellation, handler timeout, server layers,
//! size cap, and for 2026-07-28 requests the `resultType` and server
//! identity every result carries). A method that is [`Method::cacheable`]
//! also gets the cache hints (`ttlMs`, `cacheScope`) of the core's lists.
//!
//! Spec: `seps/2133-extensions.md` §Definition (extensions may add methods);
//! `docs/specification/2026-07-28/server/utilities/caching.mdx`.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{Map, Value};
use switchboard_types::{ErrorObject, ProtocolVersion};

use crate::context::RequestContext;

/// A method's handler: the request's `params` (an empty object when the
/// request has none) and context in, the result object out. An
/// [`ErrorObject`] is sent as that JSON-RPC error.
pub trait MethodHandler: Send + Sync + 'static {
    /// Answers one request.
    fn call(
        &self,
        params: Value,
        ctx: RequestContext,
    ) -> BoxFuture<'static, Result<Map<String, Value>, ErrorObject>>;
}

impl<F, Fut> MethodHandler for F
where
    F: Fn(Value, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Map<String, Value>, ErrorObject>> + Send + 'static,
{
    fn call(
        &self,
        params: Value,
        ctx: RequestContext,
    ) -> BoxFuture<'static, Result<Map<String, Value>, ErrorObject>> {
        Box::pin(self(params, ctx))
    }
}

/// A request method the core does not define, registered with
/// [`ServerBuilder::method`](crate::ServerBuilder::method).
///
/// ```
/// use serde_json::{Map, Value, json};
/// use switchboard_server::{Method, RequestContext, Server};
/// use switchboard_server::types::ErrorObject;
///
/// let echo = Method::new("com.example/echo", |params: Value, _ctx: RequestContext| async move {
///     let mut result = Map::new();
///     result.insert("echoed".into(), params);
///     Ok::<_, ErrorObject>(result)
/// });
/// let server = Server::builder("demo", "1")
///     .extension("com.example/echo", json!({}))
///     .method(echo)
///     .build();
/// assert!(server.is_ok());
/// ```
#[derive(Clone)]
pub struct Method {
    pub(crate) name: String,
    pub(crate) cacheable: bool,
    pub(crate) since: Option<ProtocolVersion>,
    pub(crate) handler: Arc<dyn MethodHandler>,
}

impl fmt::Debug for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Method")
            .field("name", &self.name)
            .field("cacheable", &self.cacheable)
            .field("since", &self.since)
            .finish_non_exhaustive()
    }
}

impl Method {
    /// The method `name` answered by `handler`.
    pub fn new(name: impl Into<String>, handler: impl MethodHandler) -> Self {
        Self { name: name.into(), cacheable: false, since: None, handler: Arc::new(handler) }
    }

    /// Its 2026-07-28 results carry the list cache hints (`ttlMs` from
    /// [`ServerOptions::list_ttl`](crate::ServerOptions), and `cacheScope`:
    /// `private` for an authenticated caller, else `public`), as
    /// `tools/list` and `resources/list` results do. Off by default.
    pub fn cacheable(mut self) -> Self {
        self.cacheable = true;
        self
    }

    /// Served from revision `first` on; requests of older revisions are
    /// unknown methods (`-32601`). Default: every revision.
    pub fn since(mut self, first: ProtocolVersion) -> Self {
        self.since = Some(first);
        self
    }

    /// The method's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether requests of `version` reach it.
    pub(crate) fn served_to(&self, version: ProtocolVersion) -> bool {
        self.since.is_none_or(|first| version >= first)
    }

    /// Checks every method (a usable name, not a core method, no name
    /// twice), so a bad one fails `build()`.
    pub(crate) fn check_all(methods: &[Method]) -> crate::Result<()> {
        let mut seen = std::collections::HashSet::with_capacity(methods.len());
        for method in methods {
            let invalid = |reason| crate::Error::InvalidMethod { name: method.name.clone(), reason };
            let name = method.name.as_str();
            if name.is_empty() || name.len() > 256 {
                return Err(invalid("a method name has 1 to 256 characters"));
            }
            if !name.bytes().all(|b| b.is_ascii_graphic()) {
                return Err(invalid("a method name holds printable ASCII only, no spaces"));
            }
            if switchboard_types::methods::is_built_in(name) {
                return Err(invalid("the core protocol defines this method (or reserves its prefix)"));
            }
            if !seen.insert(name) {
                return Err(invalid("the method is registered twice"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn method(name: &str) -> Method {
        Method::new(name, |_params: Value, _ctx: RequestContext| async { Ok(Map::new()) })
    }

    #[test]
    fn extension_methods_are_accepted() {
        let methods = [method("skills/list"), method("skills/get"), method("resources/directory/read")];
        assert!(Method::check_all(&methods).is_ok());
    }

    #[test]
    fn core_names_bad_names_and_duplicates_are_refused() {
        for bad in [
            "tools/call",
            "initialize",
            "tasks/get",
            "notifications/skills",
            "rpc.discover",
            "",
            "a b",
            "naïve",
        ] {
            assert!(Method::check_all(&[method(bad)]).is_err(), "{bad:?} was accepted");
        }
        assert!(Method::check_all(&[method("x/y"), method("x/y")]).is_err());
    }

    #[test]
    fn since_limits_the_revisions() {
        let m = method("x/y").since(ProtocolVersion::V2026_07_28);
        assert!(m.served_to(ProtocolVersion::V2026_07_28));
        assert!(!m.served_to(ProtocolVersion::LATEST_LEGACY));
        assert!(method("x/y").served_to(ProtocolVersion::LATEST_LEGACY));
    }
}
