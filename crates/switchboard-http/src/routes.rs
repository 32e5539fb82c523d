//! The router: the MCP endpoint and the routes beside it, and the layers
//! around them.

use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::handler::Handler;
use switchboard_server::Server;
use tower::Layer;

use crate::app::{App, Sessions};
use crate::event_store::{EventStore, InMemoryEventStore, StateEventStore};
use crate::guard::GuardLayer;
use crate::options::HttpOptions;
use crate::{cors, endpoint, handshake, side_routes};

/// Events kept per SSE stream.
const EVENTS_PER_STREAM: usize = 1024;

/// The MCP endpoint as an axum router, for mounting in an application of
/// your own. The idle-session sweeper starts with the first session. With
/// [`HttpOptions::state`](crate::HttpOptions::state), SSE events are kept in that store
/// ([`StateEventStore`]); otherwise in memory.
pub fn router(server: Server, options: HttpOptions) -> Router {
    let store: Arc<dyn EventStore> = match &options.state {
        Some(state) => {
            Arc::new(StateEventStore::new(Arc::clone(state), EVENTS_PER_STREAM, options.session_idle_timeout))
        }
        None => Arc::new(InMemoryEventStore::new(EVENTS_PER_STREAM)),
    };
    router_with_store(server, options, store)
}

/// [`router`] with an event store of your own (e.g. shared between instances).
pub fn router_with_store(server: Server, options: HttpOptions, store: Arc<dyn EventStore>) -> Router {
    let state = options.state.clone();
    let instance: Arc<str> = if state.is_some() { handshake::instance_tag().into() } else { "".into() };
    let options = Arc::new(options);
    let sessions = Arc::new(Sessions::default());
    let stateless = server.stateless_session();
    let app = App { server, options: Arc::clone(&options), sessions, store, state, instance, stateless };
    // The endpoint and `/metrics` are guarded (Host/Origin, then the
    // token); the probes and the metadata document are open.
    let guard = GuardLayer::new(Arc::clone(&options));
    let endpoint = guard.layer(endpoint::handle.with_state(app.clone()));
    let mut router = Router::new().route(&options.path, axum::routing::any_service(endpoint));
    if let Some(auth) = &options.auth {
        for path in auth.metadata_paths() {
            router = router.route(&path, axum::routing::get(side_routes::protected_resource_metadata));
        }
    }
    if options.metrics.is_some() {
        let metrics = guard.layer(side_routes::metrics.with_state(app.clone()));
        router = router.route("/metrics", axum::routing::get_service(metrics));
    }
    router = router
        .route("/healthz", axum::routing::get(side_routes::healthz))
        .route("/readyz", axum::routing::get(side_routes::readyz));
    // Bodies are read (and limited) by the handler itself, after the
    // guard. CORS wraps every route once,
    // and only when origins are named: without them the layer would pass
    // every request through, a boxed call on the hot path for nothing.
    router = router.layer(DefaultBodyLimit::disable());
    if !options.allowed_origins.is_empty() {
        router = router.layer(axum::middleware::from_fn_with_state(options, cors::layer));
    }
    router.with_state(app)
}
