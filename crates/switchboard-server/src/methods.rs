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
use switchboard_types::methods::{MethodFacts, Request};
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
///
/// A method defined as a type ([`Request`]) is registered with
/// [`Method::typed`]: its params and result are typed, and its
/// [`MethodFacts`] (the param naming its target, whether it may ask the
/// client for input) reach every layer that reads them, as a core
/// method's do.
#[derive(Clone)]
pub struct Method {
    pub(crate) name: String,
    pub(crate) facts: Option<MethodFacts>,
    pub(crate) cacheable: bool,
    pub(crate) since: Option<ProtocolVersion>,
    pub(crate) handler: Arc<dyn MethodHandler>,
}

impl fmt::Debug for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Method")
            .field("name", &self.name)
            .field("facts", &self.facts)
            .field("cacheable", &self.cacheable)
            .field("since", &self.since)
            .finish_non_exhaustive()
    }
}

impl Method {
    /// The method `name` answered by `handler`.
    pub fn new(name: impl Into<String>, handler: impl MethodHandler) -> Self {
        Self { name: name.into(), facts: None, cacheable: false, since: None, handler: Arc::new(handler) }
    }

    /// The method `M`, answered by `handler` with typed params and result.
    /// Params that do not fit `M::Params` are `-32602`; a result that is
    /// not a JSON object is `-32603` (a JSON-RPC result here is an object).
    ///
    /// `M::FACTS` say what the method is: a `target` param names what a
    /// request is about (mirrored in the 2026-07-28 `Mcp-Name` header, on
    /// the request span, a metrics label when it is a name); `asks_input`
    /// lets its handler ask the client for input, in 2026-07-28 through
    /// `input_required` rounds (`basic/patterns/mrtr.mdx`).
    pub fn typed<M, F, Fut>(handler: F) -> Self
    where
        M: Request,
        F: Fn(M::Params, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<M::Result, ErrorObject>> + Send + 'static,
    {
        let untyped = move |params: Value, ctx: RequestContext| {
            let running = serde_json::from_value::<M::Params>(params)
                .map(|params| handler(params, ctx))
                .map_err(ErrorObject::invalid_params);
            async move {
                let result = running?.await?;
                match serde_json::to_value(result) {
                    Ok(Value::Object(map)) => Ok(map),
                    Ok(_) => Err(ErrorObject::internal(format!(
                        "the result of {} is not a JSON object",
                        M::FACTS.name
                    ))),
                    Err(e) => Err(ErrorObject::internal(format!(
                        "the result of {} does not serialize: {e}",
                        M::FACTS.name
                    ))),
                }
            }
        };
        Self { facts: Some(M::FACTS), ..Self::new(M::FACTS.name, untyped) }
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

    /// Checks the name: usable, and not a core method (nor a reserved
    /// prefix), so a bad one fails `build()`. A name registered twice is
    /// the registry's to refuse.
    pub(crate) fn check(&self) -> crate::Result<()> {
        let invalid = |reason| crate::Error::InvalidMethod { name: self.name.clone(), reason };
        let name = self.name.as_str();
        if name.is_empty() || name.len() > 256 {
            return Err(invalid("a method name has 1 to 256 characters"));
        }
        if !name.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(invalid("a method name holds printable ASCII only, no spaces"));
        }
        if switchboard_types::methods::is_built_in(name) {
            return Err(invalid("the core protocol defines this method (or reserves its prefix)"));
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
        for name in ["skills/list", "skills/get", "resources/directory/read"] {
            assert!(method(name).check().is_ok(), "{name}");
        }
    }

    #[test]
    fn core_names_and_bad_names_are_refused() {
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
            assert!(method(bad).check().is_err(), "{bad:?} was accepted");
        }
    }
}
