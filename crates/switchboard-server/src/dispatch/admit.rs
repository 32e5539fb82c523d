//! Admission: from one frame to a refusal, an answer given on the spot, or
//! a request admitted to run.
//!
//! The stages, in order, each passing the request on or finishing it with
//! its answer: the envelope (JSON, one message or a 2025-03-26 batch, the
//! JSON-RPC rules), `_meta` an object, the era from `_meta`, the lifecycle
//! (the handshake's negotiated revision, or 2026-07-28's required `_meta`,
//! its version, methods the revision removed), the route (`-32601` for a
//! method not served), the limits, the multi round-trip state, and the
//! cancellation token. For a 2026-07-28 request the spec fixes the order
//! (the 2026-07-28 Streamable HTTP page (`basic/transports/streamable-http`): required `_meta` → transport metadata against the body →
//! version → method → `Mcp-Param-*` → handling); a transport that checks
//! its own copy of the request (HTTP's mirrored headers) hands in an
//! [`AdmissionCheck`], called at steps 5 and 8 of that order, so each rule
//! exists once and is refused with one message.

use std::sync::Arc;

use futures::future::join_all;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use switchboard_types::head::{ParamsHead, json_str};
use switchboard_types::jsonrpc::MessageKind;
use switchboard_types::methods::Target;
use switchboard_types::notifications::{CancelledParams, method};
use switchboard_types::{Era, ErrorCode, ErrorObject, IncomingMessage, ProtocolVersion, RequestId};
use tokio_util::sync::CancellationToken;

use super::run::{Admitted, run_and_reply};
use super::{Accepted, error_reply};
use crate::context::{ContextParts, RequestContext};
use crate::core::Core;
use crate::dispatch::layers::RequestStack;
use crate::dispatch::reply::Reply;
use crate::lifecycle::RequestMeta;
use crate::params::parse_params;
use crate::registry::{Admission, Route};
use crate::session::Session;
use crate::session::caller::{Principal, Via};
use crate::trace_context::TraceContext;

/// A transport's own checks of a 2026-07-28 request, called by the
/// dispatcher at their place in its admission order (the 2026-07-28 Streamable HTTP page (`basic/transports/streamable-http`)), with
/// what the dispatcher has read of the request. The dispatcher owns the
/// rules of the body (required `_meta`, version, method); a check compares
/// the transport's copy of the request with them (HTTP: `MCP-Protocol-Version`,
/// `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`) and refuses with the error the
/// client gets, such as `-32020` HeaderMismatch.
///
/// Pass one with `Server::accept_message_checked` for messages the
/// transport serves in the 2026-07-28 model: such a request is held to the
/// per-request `_meta` rules even when its `_meta` has no version at all.
/// Admission is synchronous, so a check is only borrowed for it.
pub trait AdmissionCheck {
    /// Step 5: the transport's metadata against the body, once the
    /// required `_meta` is there and before its version is checked:
    /// `method`, what the request names (`params.name`, `params.uri` or
    /// `params.taskId`, as the method's facts say), and the
    /// `io.modelcontextprotocol/protocolVersion` the body carries.
    fn check_metadata(&self, method: &str, target: Option<&str>, version: &str) -> Result<(), ErrorObject>;

    /// Step 8: a `tools/call` of a tool that mirrors arguments into the
    /// transport (`x-mcp-header`), once the method is known to be served:
    /// the tool's input schema and the call's raw `arguments`.
    fn check_arguments(&self, input_schema: &Value, arguments: Option<&RawValue>) -> Result<(), ErrorObject>;
}

/// The dispatcher of one server, borrowed for the admission of one frame:
/// its core and, when it has middleware, its tower stack.
#[derive(Clone, Copy)]
pub(crate) struct Dispatch<'a> {
    pub core: &'a Arc<Core>,
    pub layered: Option<&'a Arc<RequestStack>>,
}

impl Dispatch<'_> {
    /// Handles one frame (a message or a 2025-03-26 batch) from `session`,
    /// with what the transport knows about it.
    pub(crate) fn accept_via(&self, session: &Arc<Session>, frame: &[u8], via: &Via) -> Accepted {
        if frame.trim_ascii_start().first() == Some(&b'[') {
            return self.accept_batch(session, frame, via);
        }
        self.accept_one(session, frame, false, via)
    }

    /// One message the transport has already read, with the head of its
    /// params when it read that too, and the transport's own checks when it
    /// has any (a 2026-07-28 transport's). The JSON-RPC rules are applied
    /// here as for a frame.
    pub(crate) fn accept_message(
        &self,
        session: &Arc<Session>,
        message: &IncomingMessage<'_>,
        head: Option<&ParamsHead<'_>>,
        via: &Via,
        check: Option<&dyn AdmissionCheck>,
    ) -> Accepted {
        self.accept_parsed(session, message, head, false, via, check)
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
        self.accept_parsed(session, &message, None, in_batch, via, None)
    }

    fn accept_parsed(
        &self,
        session: &Arc<Session>,
        message: &IncomingMessage<'_>,
        head: Option<&ParamsHead<'_>>,
        in_batch: bool,
        via: &Via,
        check: Option<&dyn AdmissionCheck>,
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
                let arrival = Arrival { session, via, in_batch, check };
                self.accept_request(arrival, id, method, params, head)
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
    fn accept_request(
        &self,
        arrival: Arrival<'_>,
        id: RequestId,
        method: &str,
        params: Option<&RawValue>,
        head: Option<&ParamsHead<'_>>,
    ) -> Accepted {
        tracing::debug!(%id, method, "request");
        let head = match head {
            Some(head) => *head,
            None => ParamsHead::read(params).unwrap_or_default(),
        };
        let meta = RequestMeta { view: head.meta };
        // `_meta` is an object wherever it appears (every revision's schema,
        // `RequestParams._meta`): one check for every method and era.
        if meta.view.is_malformed() {
            return error_reply(Some(&id), ErrorObject::invalid_params("params._meta must be an object"));
        }
        // A transport's check comes with messages it serves in the
        // 2026-07-28 model only: they are per-request with or without a
        // version in their `_meta`.
        let per_request = arrival.check.is_some() || method == "server/discover" || meta.is_per_request();
        let Arrival { session, via, in_batch, check } = arrival;
        let request = Incoming { session, id, method, params, via, head, meta, per_request, check };
        self.admit_and_run(request, in_batch).unwrap_or_else(|finished| finished)
    }

    /// The stages of [`Dispatch::accept_request`] in order; `Err` is the
    /// answer of the stage that finished the request.
    fn admit_and_run(&self, request: Incoming<'_>, in_batch: bool) -> Result<Accepted, Accepted> {
        let revision = self.admit_revision(&request, in_batch)?;
        let route = self.admit_route(&request, revision.version)?;
        self.admit_mirrored_arguments(&request)?;
        request.admit_log_level()?;
        self.admit_within_limits(&request, route)?;
        let principal = request.via.principal.clone().or_else(|| request.session.principal().cloned());
        let input = self.open_input_round(&request, route, principal.as_ref())?;
        let token = request.register_cancellation()?;
        let ctx = request_context(self.core, &request, revision, token.clone(), principal, input);
        let Incoming { session, id, method, params, per_request, .. } = request;
        let admitted = Admitted { session, id, method, params, route, per_request };
        Ok(run_and_reply(self.core, self.layered, admitted, ctx, token))
    }

    /// Lifecycle admission: the revision the request is served under and
    /// what the client said about itself, from its `_meta` (2026-07-28) or
    /// from the session's handshake. `initialize` is answered here.
    fn admit_revision(&self, request: &Incoming<'_>, in_batch: bool) -> Result<Revision, Accepted> {
        if request.per_request {
            self.per_request_revision(request)
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
        let cap = session.in_flight_cap(inner.shared.options.max_in_flight);
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
            if let Err(e) = inner.tools.limits.admit_tool_call(caller) {
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
            self.core.shared.request_states.load_full(),
            self.core.shared.options.request_state_ttl,
        ) {
            Ok(round) => Ok(Some(Arc::new(round))),
            Err(e) => Err(request.refuse(e)),
        }
    }

    /// What `method` is (its target param, whether it streams, may ask for
    /// input, listens), as its registry row says: a core method's facts, or
    /// those of an application method registered as a type
    /// ([`Method::typed`](crate::Method::typed)). `None` for an unknown
    /// method or one registered without facts. Transports read this, never
    /// a list of method names.
    pub(crate) fn method_facts(&self, method: &str) -> Option<switchboard_types::methods::MethodFacts> {
        self.core.methods.get(method)?.facts
    }

    /// True if `method` is served under `version` (what a transport checks
    /// before dispatching, e.g. to answer `404` in 2026-07-28).
    pub(crate) fn method_available(&self, method: &str, version: ProtocolVersion) -> bool {
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

/// Where a message came from: its session, what its transport knows of
/// it, whether it came in a batch, and the transport's own checks.
struct Arrival<'a> {
    session: &'a Arc<Session>,
    via: &'a Via,
    in_batch: bool,
    check: Option<&'a dyn AdmissionCheck>,
}

/// A request on its way through the stages of [`Dispatch::accept_request`].
struct Incoming<'a> {
    session: &'a Arc<Session>,
    id: RequestId,
    method: &'a str,
    params: Option<&'a RawValue>,
    via: &'a Via,
    /// The borrowed read of its params: what it names, its `_meta`.
    head: ParamsHead<'a>,
    meta: RequestMeta<'a>,
    /// Served in the 2026-07-28 model (per-request `_meta`), not a session's.
    per_request: bool,
    /// The transport's own checks (2026-07-28 HTTP's headers).
    check: Option<&'a dyn AdmissionCheck>,
}

impl Incoming<'_> {
    /// Finishes the request with `error`.
    fn refuse(&self, error: ErrorObject) -> Accepted {
        error_reply(Some(&self.id), error)
    }

    /// A 2026-07-28 request's log level, when it gives one, must be a
    /// level (`-32602`). Checked once the method is known to be served,
    /// after the transport's checks (the 2026-07-28 Streamable HTTP page (`basic/transports/streamable-http`): handling comes last).
    fn admit_log_level(&self) -> Result<(), Accepted> {
        if !self.per_request {
            return Ok(());
        }
        self.meta.log_level().map(drop).map_err(|e| self.refuse(e))
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

/// The handler's [`RequestContext`].
fn request_context(
    core: &Core,
    request: &Incoming<'_>,
    revision: Revision,
    cancel: CancellationToken,
    principal: Option<Principal>,
    input: Option<Arc<crate::input::InputRound>>,
) -> RequestContext {
    let inner = core;
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
            session.log_level().or(inner.shared.options.default_log_level)
        },
        peer: (!per_request).then(|| Arc::clone(session)),
        trace: TraceContext::from_meta(&request.meta.view),
        meta: request.meta.raw_object(),
        headers: request.via.headers.clone(),
        input,
    })
}

impl Dispatch<'_> {
    /// A 2026-07-28 request's revision and client from its `_meta`, in the
    /// spec's order: the required `_meta` (`-32602`), the transport's
    /// metadata against the body (its [`AdmissionCheck`]), the version
    /// (`-32022`), and `-32601` for a method the revision removed.
    fn per_request_revision(&self, request: &Incoming<'_>) -> Result<Revision, Accepted> {
        let (meta, method) = (&request.meta, request.method);
        // The lifecycle applies the `_meta` rules in one go: `-32602` for a
        // required member missing, `-32022` for a version not served per
        // request. The transport's metadata is checked between the two.
        let validated = match meta.validate_per_request() {
            Err(e) if e.code != ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => return Err(request.refuse(e)),
            validated => validated,
        };
        if let Some(check) = request.check {
            self.check_metadata(request, check)?;
        }
        let version = validated.map_err(|e| request.refuse(e))?;
        // A method the revision removed is `-32601` (`basic/versioning`
        // of 2026-07-28, conformance `stateless.ts`).
        if version.rules().removes(method) {
            return Err(request.refuse(ErrorObject::method_not_found(method).with_data(serde_json::json!({
                "reason": format!("{method} does not exist in protocol revision {version}")
            }))));
        }
        Ok(Revision {
            version,
            client_info: meta.client_info(),
            client_capabilities: meta.client_capabilities(),
        })
    }

    /// Step 5: the transport's check of its metadata against what the body
    /// says: the method, what it names (a fact of the method), the version
    /// as sent (present: the required `_meta` was checked before).
    fn check_metadata(&self, request: &Incoming<'_>, check: &dyn AdmissionCheck) -> Result<(), Accepted> {
        let facts = self.method_facts(request.method);
        let target = facts.and_then(|facts| facts.target).and_then(|target| {
            let head = &request.head;
            json_str(match target {
                Target::Name => head.name,
                Target::Uri => head.uri,
                Target::TaskId => head.task_id,
            })
        });
        let version = json_str(request.meta.view.protocol_version).unwrap_or_default();
        check.check_metadata(request.method, target.as_deref(), &version).map_err(|e| request.refuse(e))
    }

    /// Step 8: a `tools/call` of a tool that mirrors arguments into the
    /// transport, checked by the transport against the call's arguments.
    fn admit_mirrored_arguments(&self, request: &Incoming<'_>) -> Result<(), Accepted> {
        let Some(check) = request.check else { return Ok(()) };
        if request.method != "tools/call" {
            return Ok(());
        }
        let name = json_str(request.head.name).unwrap_or_default();
        let arguments = request.head.arguments;
        match self.core.tools.with_mirrored_schema(&name, |schema| check.check_arguments(schema, arguments)) {
            Some(Err(e)) => Err(request.refuse(e)),
            _ => Ok(()),
        }
    }
}
