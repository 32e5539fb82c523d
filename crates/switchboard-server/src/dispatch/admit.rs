//! From bytes to a response: parse, classify, route, run, answer.
//!
//! [`Server::accept`] does the synchronous part of handling one frame on the
//! connection's own task: it parses the envelope (borrowing, params kept raw),
//! applies the JSON-RPC rules, decides the era from `_meta`, checks the
//! lifecycle, looks the method up, and registers the request's cancellation
//! token. Errors found there, and notifications, are finished on the spot
//! ([`Accepted::Done`]), in arrival order. A request that reaches a handler
//! comes back as [`Accepted::Pending`]: a future the transport may run
//! concurrently with others. Registering the token before that future
//! exists is what makes a `notifications/cancelled` that follows right
//! behind its request find it.
//!
//! The future catches panics (`-32603`), drops the handler when the request
//! is cancelled (and then answers nothing, as the cancellation utility asks),
//! and serializes the response once. Every answer is a [`Reply`]: the bytes
//! and the [`Outcome`](crate::Outcome) they carry, so a transport that
//! decides something from the outcome (an HTTP status) does not parse them.

pub(crate) mod listen;
pub(crate) mod prompts;
pub(crate) mod resources;
pub(crate) mod rows;
pub(crate) mod tools;

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::{BoxFuture, join_all};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use switchboard_types::head::ParamsHead;
use switchboard_types::jsonrpc::MessageKind;
use switchboard_types::methods::Target;
use switchboard_types::notifications::{CancelledParams, method};
use switchboard_types::{Era, ErrorObject, IncomingMessage, ProtocolVersion, RequestId};
use tokio_util::sync::CancellationToken;

use crate::context::{ContextParts, RequestContext};
use crate::core::{Core, Handler};
use crate::lifecycle::RequestMeta;
use crate::output::Output;
use crate::params::parse_params;
use crate::registry::{Admission, CacheClass, Route, target_in};
use crate::reply::Reply;
use crate::server::Server;
use crate::server_layer::RequestStack;
use crate::session::Session;
use crate::session::caller::{Outbound, Principal, Via};
use crate::trace_context::TraceContext;

/// The outcome of [`Server::accept`].
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

impl Server {
    /// Handles one frame (a message or a 2025-03-26 batch) from `session`.
    pub fn accept(&self, session: &Arc<Session>, frame: &[u8]) -> Accepted {
        self.accept_on(session, frame, None)
    }

    /// Like [`Server::accept`], but messages that belong to the request
    /// (progress, request-scoped notifications) go to `stream` instead of
    /// the session's queue. The HTTP transport passes the POST's own SSE
    /// stream here; stdio has one stream for everything.
    pub fn accept_on(&self, session: &Arc<Session>, frame: &[u8], stream: Option<&Outbound>) -> Accepted {
        self.accept_via(session, frame, &Via { stream: stream.cloned(), ..Via::default() })
    }

    /// Like [`Server::accept`], with what the transport knows about this
    /// message: its own stream, its authenticated principal (which
    /// overrides the session's), its headers (handed to handlers through
    /// [`RequestContext::headers`]).
    pub fn accept_via(&self, session: &Arc<Session>, frame: &[u8], via: &Via) -> Accepted {
        if frame.trim_ascii_start().first() == Some(&b'[') {
            return self.accept_batch(session, frame, via);
        }
        self.accept_one(session, frame, false, via)
    }

    /// Handles one frame and waits for its response: the simple entry point
    /// for transports that answer each message on its own (and for tests).
    pub async fn handle_frame(&self, session: &Arc<Session>, frame: &[u8]) -> Option<Vec<u8>> {
        self.accept(session, frame).resolve().await
    }

    /// [`Server::handle_frame`] with what the transport knows about the
    /// message (see [`Server::accept_via`]).
    pub async fn handle_frame_via(&self, session: &Arc<Session>, frame: &[u8], via: &Via) -> Option<Vec<u8>> {
        self.accept_via(session, frame, via).resolve().await
    }

    fn accept_batch(&self, session: &Arc<Session>, frame: &[u8], via: &Via) -> Accepted {
        let items: Vec<&RawValue> = match serde_json::from_slice(frame) {
            Ok(items) => items,
            Err(e) if e.is_data() => {
                return error_reply(None, ErrorObject::invalid_request("malformed batch"));
            }
            Err(e) => return error_reply(None, ErrorObject::parse_error(e)),
        };
        match session.negotiated_version() {
            Some(v) if v.allows_batches() => {}
            Some(v) => {
                return error_reply(
                    None,
                    ErrorObject::invalid_request(format!(
                        "JSON-RPC batches are accepted only under protocol revision 2025-03-26; this connection negotiated {v}: send one message per line"
                    )),
                );
            }
            None => {
                return error_reply(
                    None,
                    ErrorObject::invalid_request(
                        "JSON-RPC batches are accepted only after initialize negotiated 2025-03-26 (initialize itself must not be batched)",
                    ),
                );
            }
        }
        if items.is_empty() {
            return error_reply(None, ErrorObject::invalid_request("empty batch"));
        }
        let parts: Vec<Accepted> =
            items.iter().map(|raw| self.accept_one(session, raw.get().as_bytes(), true, via)).collect();
        Accepted::Pending(Box::pin(async move {
            let responses: Vec<Reply> =
                join_all(parts.into_iter().map(Accepted::reply)).await.into_iter().flatten().collect();
            (!responses.is_empty()).then(|| Reply::batch(&responses))
        }))
    }

    fn accept_one(&self, session: &Arc<Session>, frame: &[u8], in_batch: bool, via: &Via) -> Accepted {
        let message = match IncomingMessage::parse(frame) {
            Ok(m) => m,
            Err(e) => {
                tracing::debug!(error = %e, bytes = frame.len(), "unreadable message");
                return error_reply(None, e);
            }
        };
        self.accept_parsed(session, &message, None, in_batch, via)
    }

    /// [`Server::accept_via`] for one message the transport has already
    /// read, with the head of its params when it read that too (a transport
    /// that had to read the envelope and the `_meta` to route and check it
    /// need not have the dispatcher read them again). The JSON-RPC rules
    /// are applied here as for a frame.
    pub fn accept_message(
        &self,
        session: &Arc<Session>,
        message: &IncomingMessage<'_>,
        head: Option<&ParamsHead<'_>>,
        via: &Via,
    ) -> Accepted {
        self.accept_parsed(session, message, head, false, via)
    }

    fn accept_parsed(
        &self,
        session: &Arc<Session>,
        message: &IncomingMessage<'_>,
        head: Option<&ParamsHead<'_>>,
        in_batch: bool,
        via: &Via,
    ) -> Accepted {
        let kind = match message.kind() {
            Ok(k) => k,
            Err(e) => {
                // Address the error to the id when it can be read; a null or
                // malformed id gets `"id": null`.
                return error_reply(message.readable_id().as_ref(), e);
            }
        };
        match kind {
            MessageKind::Notification { method, params } => {
                self.on_notification(session, method, params);
                Accepted::Done(None)
            }
            // The core sends no requests to clients, so there is nothing to
            // match a response against; JSON-RPC forbids answering it.
            MessageKind::Response { id } => {
                let outcome = match (message.result, message.error) {
                    (Some(result), _) => serde_json::from_str::<Value>(result.get()).map_err(|e| {
                        ErrorObject::internal(format!("unreadable result from the client: {e}"))
                    }),
                    (None, Some(error)) => Err(serde_json::from_str::<ErrorObject>(error.get())
                        .unwrap_or_else(|_| {
                            ErrorObject::internal(format!(
                                "unreadable error from the client: {}",
                                error.get()
                            ))
                        })),
                    (None, None) => Err(ErrorObject::internal("empty response from the client")),
                };
                if !session.complete_request(&id, outcome) {
                    tracing::debug!(%id, "ignoring a response to no pending request");
                }
                Accepted::Done(None)
            }
            MessageKind::Request { id, method, params } => {
                self.accept_request(session, id, method, params, head, in_batch, via)
            }
        }
    }

    fn on_notification(&self, session: &Arc<Session>, method: &str, params: Option<&RawValue>) {
        self.handle_notification(session, method, params);
        if let Some(hook) = &self.core.notification_hook {
            (hook.0)(session, method);
        }
    }

    fn handle_notification(&self, session: &Session, method: &str, params: Option<&RawValue>) {
        match method {
            method::INITIALIZED => session.mark_ready(),
            method::CANCELLED => match parse_params::<CancelledParams>(params) {
                Ok(p) => {
                    let found = session.cancel(&p.request_id);
                    tracing::debug!(id = %p.request_id, found, reason = ?p.reason, "cancel");
                }
                // Malformed notifications are ignored: they are never answered.
                Err(e) => tracing::debug!(error = %e, "ignoring malformed notifications/cancelled"),
            },
            other => tracing::debug!(method = other, "ignoring notification"),
        }
    }

    /// A request: admitted through the lifecycle and the limits, then run
    /// and answered. Each stage either passes the request on or finishes it
    /// with its answer (a refusal, `initialize`, `ping`). `head` is the
    /// transport's read of the params, when it made one; otherwise they are
    /// read here (params the reader refuses have no `_meta`).
    #[allow(clippy::too_many_arguments)]
    fn accept_request(
        &self,
        session: &Arc<Session>,
        id: RequestId,
        method: &str,
        params: Option<&RawValue>,
        head: Option<&ParamsHead<'_>>,
        in_batch: bool,
        via: &Via,
    ) -> Accepted {
        tracing::debug!(%id, method, "request");
        let view = match head {
            Some(head) => head.meta,
            None => ParamsHead::read(params).unwrap_or_default().meta,
        };
        let meta = RequestMeta { view };
        // `_meta` is an object wherever it appears (every revision's schema,
        // `RequestParams._meta`): one check for every method and era.
        if meta.view.is_malformed() {
            return error_reply(Some(&id), ErrorObject::invalid_params("params._meta must be an object"));
        }
        let per_request = method == "server/discover" || meta.is_per_request();
        let request = Incoming { session, id, method, params, via, meta, per_request };
        self.admit_and_run(request, in_batch).unwrap_or_else(|finished| finished)
    }

    /// The stages of [`Server::accept_request`] in order; `Err` is the
    /// answer of the stage that finished the request.
    fn admit_and_run(&self, request: Incoming<'_>, in_batch: bool) -> Result<Accepted, Accepted> {
        let revision = self.admit_revision(&request, in_batch)?;
        let route = self.admit_route(&request, revision.version)?;
        self.admit_within_limits(&request, route)?;
        let principal = request.via.principal.clone().or_else(|| request.session.principal().cloned());
        let input = self.open_input_round(&request, route, principal.as_ref())?;
        let token = request.register_cancellation()?;
        let ctx = self.request_context(&request, revision, token.clone(), principal, input);
        Ok(self.run_and_reply(request, route, ctx, token))
    }

    /// Lifecycle admission: the revision the request is served under and
    /// what the client said about itself, from its `_meta` (2026-07-28) or
    /// from the session's handshake. `initialize` is answered here.
    fn admit_revision(&self, request: &Incoming<'_>, in_batch: bool) -> Result<Revision, Accepted> {
        if request.per_request {
            per_request_revision(request)
        } else {
            self.handshake_revision(request, in_batch)
        }
    }

    /// The session's negotiated revision; `initialize` itself is answered
    /// (or refused in a batch), and anything but `ping` before it refused.
    fn handshake_revision(&self, request: &Incoming<'_>, in_batch: bool) -> Result<Revision, Accepted> {
        let (session, id, method) = (request.session, &request.id, request.method);
        match method {
            "initialize" if session.is_stateless() => {
                return Err(request.refuse(ErrorObject::invalid_request(
                    "initialize opens a session, and this one is shared by independent 2026-07-28 requests",
                )));
            }
            "initialize" if in_batch => {
                return Err(
                    request.refuse(ErrorObject::invalid_request("initialize must not be part of a batch"))
                );
            }
            "initialize" => {
                return Err(Accepted::Done(Some(match self.core.initialize(session, request.params) {
                    Ok(result) => Reply::result(id, &result, false),
                    Err(e) => Reply::error(Some(id), &e),
                })));
            }
            _ => {}
        }
        match session.negotiated() {
            Some(n) => Ok(Revision {
                version: n.version,
                client_info: Some(n.client_info),
                client_capabilities: n.client_capabilities,
            }),
            None if method == "ping" => Ok(Revision {
                version: ProtocolVersion::LATEST_HANDSHAKE,
                client_info: None,
                client_capabilities: Default::default(),
            }),
            None => Err(request.refuse(ErrorObject::invalid_request(format!(
                "Server not initialized: send initialize before {method} (or use the 2026-07-28 per-request _meta)"
            )))),
        }
    }

    /// The request's route; a method not served here is `-32601`, and
    /// `ping` is answered on the spot.
    fn admit_route(&self, request: &Incoming<'_>, version: ProtocolVersion) -> Result<Route, Accepted> {
        let route = match self.route(request.method, version) {
            Some(r) => r,
            None => return Err(request.refuse(ErrorObject::method_not_found(request.method))),
        };
        if self.core.methods.entry(route).admission == Admission::AnswerEmpty {
            return Err(Accepted::Done(Some(Reply::result(&request.id, &Map::new(), false))));
        }
        Ok(route)
    }

    /// Limits: the session's requests in flight, and the caller's
    /// `tools/call` rate limit.
    fn admit_within_limits(&self, request: &Incoming<'_>, route: Route) -> Result<(), Accepted> {
        let (inner, session) = (&self.core, request.session);
        // Over the line transport the connection loop stops reading before
        // this refuses anything but an oversized batch (see session.rs).
        // A stateless session's requests came each alone on its connection.
        let cap = session.in_flight_cap(inner.options.max_in_flight);
        if !session.is_stateless() && session.in_flight() >= cap {
            return Err(request.refuse(crate::session::limits::too_many_in_flight(cap)));
        }
        if inner.methods.entry(route).admission == Admission::RateLimited {
            // A caller is its principal, or without one its connection (a
            // stateless request is a connection of its own: only the global
            // limit binds it).
            let caller = || match request.via.principal.as_ref().or(session.principal()) {
                Some(p) => Some(format!("principal:{}", p.subject)),
                None if session.is_stateless() => None,
                None => Some(format!("connection:{:p}", Arc::as_ptr(session))),
            };
            if let Err(e) = inner.limits.admit_tool_call(caller) {
                return Err(request.refuse(e));
            }
        }
        Ok(())
    }

    /// The multi round-trip state of a 2026-07-28 request of a method whose
    /// facts say it may ask for input (its result may be an
    /// `InputRequiredResult`, mrtr.mdx §Supported Requests); `requestState`
    /// is checked here.
    fn open_input_round(
        &self,
        request: &Incoming<'_>,
        route: Route,
        principal: Option<&Principal>,
    ) -> Result<Option<Arc<crate::input::InputRound>>, Accepted> {
        let asks_input = self.core.methods.entry(route).facts.is_some_and(|facts| facts.asks_input);
        if !(request.per_request && asks_input) {
            return Ok(None);
        }
        match crate::input::InputRound::open(
            request.method,
            request.params,
            principal.map(|p| p.subject.as_str()),
            self.core.request_states.load_full(),
            self.core.options.request_state_ttl,
        ) {
            Ok(round) => Ok(Some(Arc::new(round))),
            Err(e) => Err(request.refuse(e)),
        }
    }

    /// The handler's [`RequestContext`].
    fn request_context(
        &self,
        request: &Incoming<'_>,
        revision: Revision,
        cancel: CancellationToken,
        principal: Option<Principal>,
        input: Option<Arc<crate::input::InputRound>>,
    ) -> RequestContext {
        let inner = &self.core;
        let (session, per_request) = (request.session, request.per_request);
        RequestContext::new(ContextParts {
            id: request.id.clone(),
            version: revision.version,
            cancel,
            progress_token: request.meta.progress_token(),
            outbound: request.via.stream.as_ref().unwrap_or(session.outbound()).clone(),
            principal,
            client_info: revision.client_info,
            client_capabilities: revision.client_capabilities,
            log_level: if !inner.logging_enabled {
                None
            } else if per_request {
                request.meta.log_level().ok().flatten()
            } else {
                session.log_level().or(inner.options.default_log_level)
            },
            peer: (!per_request).then(|| Arc::clone(session)),
            trace: TraceContext::from_meta(&request.meta.view),
            meta: request.meta.raw_object(),
            headers: request.via.headers.clone(),
            input,
        })
    }

    /// Run and reply: the future that runs the handler, drops it when the
    /// request is cancelled, catches its panic, unregisters the request and
    /// serializes its reply once, inside the request's span.
    fn run_and_reply(
        &self,
        request: Incoming<'_>,
        route: Route,
        ctx: RequestContext,
        token: CancellationToken,
    ) -> Accepted {
        let (id, method, per_request) = (request.id, request.method, request.per_request);
        let params: Option<Box<RawValue>> = request.params.map(ToOwned::to_owned);
        let core = Arc::clone(&self.core);
        let session = Arc::clone(request.session);
        // Server middleware, when there is any, sees the method by name.
        let target = self.core.methods.entry(route).target();
        let layered = self.layered.as_ref().map(|stack| crate::server_layer::ThroughLayers {
            stack: RequestStack::clone(stack),
            method: Arc::from(method),
            target,
        });
        let span = request_span(method, &id, target, &ctx, params.as_deref());
        Accepted::Pending(Box::pin(tracing::Instrument::instrument(
            async move {
                let work = core.run_within_timeout(route, &session, &ctx, params, layered);
                let outcome = tokio::select! {
                    biased;
                    _ = token.cancelled() => None,
                    r = AssertUnwindSafe(work).catch_unwind() => Some(r),
                };
                ctx.finish();
                if !session.is_stateless() {
                    session.unregister(&id);
                }
                let outcome = outcome.map(|r| {
                    r.map(|result| crate::input::settle(ctx.input_round().map(Arc::as_ref), result))
                });
                record_outcome(outcome.as_ref());
                Some(core.reply_to(&id, route, per_request, &ctx, outcome?))
            },
            span,
        )))
    }

    /// What `method` is (its target param, whether it streams, may ask for
    /// input, listens), as its registry row says: a core method's facts, or
    /// those of an application method registered as a type
    /// ([`Method::typed`](crate::Method::typed)). `None` for an unknown
    /// method or one registered without facts. Transports read this, never
    /// a list of method names.
    pub fn method_facts(&self, method: &str) -> Option<switchboard_types::methods::MethodFacts> {
        self.core.methods.get(method)?.facts
    }

    /// True if `method` is served under `version` (what a transport checks
    /// before dispatching, e.g. to answer `404` in 2026-07-28).
    pub fn method_available(&self, method: &str, version: ProtocolVersion) -> bool {
        let rules = version.rules();
        if rules.removes(method) {
            return false;
        }
        (rules.era == Era::Handshake && method == "initialize") || self.route(method, version).is_some()
    }

    /// Looks a method up in the registry. Methods of primitives the server
    /// does not advertise are unknown (`-32601`), as are methods the
    /// revision's row removed or does not add.
    fn route(&self, method: &str, version: ProtocolVersion) -> Option<Route> {
        let inner = &self.core;
        inner.methods.lookup(method, version, |needs| inner.offers(needs))
    }
}

impl Core {
    /// The handler's work: through the server middleware when there is
    /// any, stopped at the handler timeout when there is one.
    async fn run_within_timeout(
        &self,
        route: Route,
        session: &Arc<Session>,
        ctx: &RequestContext,
        params: Option<Box<RawValue>>,
        layered: Option<crate::server_layer::ThroughLayers>,
    ) -> Result<Output, ErrorObject> {
        let run = async {
            match layered {
                None => self.run(route, session, ctx, params.as_deref()).await,
                Some(layered) => {
                    crate::server_layer::run_layered(layered, route, Arc::clone(session), ctx.clone(), params)
                        .await
                }
            }
        };
        match self.options.handler_timeout {
            None => run.await,
            Some(limit) => tokio::time::timeout(limit, run).await.unwrap_or_else(|_| {
                Err(ErrorObject::internal(format!(
                    "the request did not finish within {} s and was stopped (handler timeout)",
                    limit.as_secs_f64()
                )))
            }),
        }
    }

    /// The reply to how the handler ended: its result (decorated and given
    /// its cache hints in 2026-07-28), its error, or `-32603` for a panic;
    /// written within the response size cap.
    fn reply_to(
        &self,
        id: &RequestId,
        route: Route,
        per_request: bool,
        ctx: &RequestContext,
        ended: std::thread::Result<Result<Output, ErrorObject>>,
    ) -> Reply {
        let cap = self.options.max_response_size;
        match ended {
            Ok(Ok(output)) => {
                let cache = per_request.then(|| route_cache(self, route, ctx.principal().is_some()));
                self.encode_output(id, output, cache)
            }
            Ok(Err(error)) => Reply::error_within(id, &error, cap),
            Err(panic) => {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".into());
                tracing::error!(%id, panic = %what, "handler panicked");
                Reply::error(Some(id), &ErrorObject::internal("the handler panicked"))
            }
        }
    }

    /// The reply to a handler's result. `per_request_cache` is set for
    /// 2026-07-28 requests only (their results are decorated): what the
    /// route's results may be cached for.
    fn encode_output(&self, id: &RequestId, output: Output, per_request_cache: Option<RouteCache>) -> Reply {
        let tool_error = output.is_tool_error();
        let cap = self.options.max_response_size;
        match (output, per_request_cache) {
            (Output::Map(mut result), Some(cache)) => {
                self.decorate_per_request(&mut result, cache);
                Reply::result_within(id, &result, tool_error, cap)
            }
            (Output::Map(result), None) => Reply::result_within(id, &result, tool_error, cap),
            (Output::Raw(result), Some(cache)) => {
                Reply::raw_result_within(id, &self.decorate_per_request_raw(result, cache), cap)
            }
            (Output::Raw(result), None) => Reply::raw_result_within(id, &result, cap),
            (Output::InputRequired(mut result), _) => {
                self.decorate_as(&mut result, "input_required", None);
                Reply::result_within(id, &result, false, cap)
            }
            (Output::Task(mut result), _) => {
                self.decorate_as(&mut result, "task", None);
                Reply::result_within(id, &result, false, cap)
            }
        }
    }

    /// Runs the handler of `route`.
    pub(crate) async fn run(
        &self,
        route: Route,
        session: &Arc<Session>,
        ctx: &RequestContext,
        params: Option<&RawValue>,
    ) -> Result<Output, ErrorObject> {
        match &self.methods.entry(route).handler {
            Handler::Core(handler) => handler(self, session, ctx, params).await,
            Handler::App(handler) => {
                let handler = Arc::clone(handler);
                handler.call(parse_params(params)?, ctx.clone()).await.map(Output::Map)
            }
        }
    }
}

/// A request on its way through the stages of [`Server::accept_request`].
struct Incoming<'a> {
    session: &'a Arc<Session>,
    id: RequestId,
    method: &'a str,
    params: Option<&'a RawValue>,
    via: &'a Via,
    meta: RequestMeta<'a>,
    /// Served in the 2026-07-28 model (per-request `_meta`), not a session's.
    per_request: bool,
}

impl Incoming<'_> {
    /// Finishes the request with `error`.
    fn refuse(&self, error: ErrorObject) -> Accepted {
        error_reply(Some(&self.id), error)
    }

    /// Registers the request's cancellation token with its session before
    /// its future exists, so a `notifications/cancelled` right behind it
    /// finds it; a request id already in flight is refused.
    fn register_cancellation(&self) -> Result<CancellationToken, Accepted> {
        let token = CancellationToken::new();
        if self.session.is_stateless() {
            return Ok(token);
        }
        if !self.session.register(&self.id, &token) {
            let id = &self.id;
            return Err(self.refuse(ErrorObject::invalid_request(format!(
                "request id {id} is already in use by a request in flight"
            ))));
        }
        Ok(token)
    }
}

/// The revision a request is served under, and what its client said about
/// itself (per request, or at `initialize`).
struct Revision {
    version: ProtocolVersion,
    client_info: Option<switchboard_types::Implementation>,
    client_capabilities: switchboard_types::ClientCapabilities,
}

/// A 2026-07-28 request's revision and client from its `_meta`; an invalid
/// `_meta` (version, log level) or a method the revision removed is refused.
fn per_request_revision(request: &Incoming<'_>) -> Result<Revision, Accepted> {
    let (meta, method) = (&request.meta, request.method);
    let version = match meta.validate_per_request() {
        Ok(v) => v,
        Err(e) => return Err(request.refuse(e)),
    };
    // A method the revision removed is `-32601` (spec.md §b.1,
    // conformance `stateless.ts`).
    if version.rules().removes(method) {
        return Err(request.refuse(ErrorObject::method_not_found(method).with_data(serde_json::json!({
            "reason": format!("{method} does not exist in protocol revision {version}")
        }))));
    }
    if let Err(e) = meta.log_level() {
        return Err(request.refuse(e));
    }
    Ok(Revision { version, client_info: meta.client_info(), client_capabilities: meta.client_capabilities() })
}

/// The `mcp.request` span of one request (OpenTelemetry-style names): its
/// method and id, what it names (tool, prompt, resource URI), the caller's
/// principal, and (recorded when it ends) its outcome. With the `otel`
/// feature, the trace context of the request's `_meta` becomes its parent.
/// Disabled spans (the usual case without a subscriber at INFO) cost a check
/// and nothing else.
fn request_span(
    method: &str,
    id: &RequestId,
    target: Option<Target>,
    ctx: &RequestContext,
    params: Option<&RawValue>,
) -> tracing::Span {
    let span = tracing::info_span!(
        "mcp.request",
        mcp.method = method,
        mcp.id = %id,
        mcp.target = tracing::field::Empty,
        mcp.principal = tracing::field::Empty,
        mcp.outcome = tracing::field::Empty,
        mcp.error_code = tracing::field::Empty,
    );
    if span.is_disabled() {
        return span;
    }
    if let Some(principal) = ctx.principal() {
        span.record("mcp.principal", principal.subject.as_str());
    }
    if let Some(target) = target.and_then(|target| target_in(params, target)) {
        span.record("mcp.target", target.as_str());
    }
    #[cfg(feature = "otel")]
    if let Some(trace) = ctx.trace_context() {
        crate::trace_context::continue_trace(&span, trace);
    }
    span
}

/// Records how the current request ended on its span, and logs it at DEBUG.
fn record_outcome(outcome: Option<&std::thread::Result<Result<Output, ErrorObject>>>) {
    let span = tracing::Span::current();
    let (what, code) = match outcome {
        None => ("cancelled", None),
        Some(Err(_)) => ("panic", None),
        Some(Ok(Err(error))) => ("error", Some(error.code.0)),
        Some(Ok(Ok(output))) if output.is_tool_error() => ("tool_error", None),
        Some(Ok(Ok(_))) => ("ok", None),
    };
    if !span.is_disabled() {
        span.record("mcp.outcome", what);
        if let Some(code) = code {
            span.record("mcp.error_code", code);
        }
    }
    tracing::debug!(outcome = what, code, "request finished");
}

/// How long, and for whom, a route's results may be cached (when at all).
type RouteCache = Option<(std::time::Duration, switchboard_types::lifecycle::CacheScope)>;

fn route_cache(core: &Core, route: Route, authenticated: bool) -> RouteCache {
    use switchboard_types::lifecycle::CacheScope;
    let o = &core.options;
    // The registry row says which results are cacheable (2026-07-28
    // `server/utilities/caching.mdx`).
    // For an authenticated caller lists and reads depend on its scopes, so
    // they may be cached for that caller only; discovery never does.
    let scope = if authenticated { CacheScope::Private } else { CacheScope::Public };
    match core.methods.entry(route).cache? {
        CacheClass::Discovery => Some((o.discover_ttl, CacheScope::Public)),
        CacheClass::List => Some((o.list_ttl, scope)),
        CacheClass::Read => Some((o.read_ttl, scope)),
    }
}
