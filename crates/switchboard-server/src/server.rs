//! [`Server`], the handle an application keeps: its state ([`Core`]) and
//! its middleware stack, and its whole API: building it, serving a
//! transport, the dispatcher's entry points, registering, removing and
//! switching items one at a time or in bulk, announcing changes, the
//! scopes a caller lacks, sessions and their events. The only `impl Server`.

use std::sync::Arc;

use serde_json::Value;
use switchboard_types::head::ParamsHead;
use switchboard_types::methods::MethodFacts;
use switchboard_types::{Implementation, IncomingMessage, ProtocolVersion};
use tokio::sync::broadcast;

use crate::builder::ServerBuilder;
use crate::catalog::CursorCodec;
use crate::core::Core;
use crate::dispatch::admit::Dispatch;
use crate::dispatch::layers::RequestStack;
use crate::dispatch::{Accepted, AdmissionCheck};
use crate::error::Result;
use crate::options::ServerOptions;
use crate::prompts::Prompt;
use crate::registry::ScopedBy;
use crate::resources::area::Resources;
use crate::resources::{Resource, ResourceTemplate};
use crate::session::Session;
use crate::session::caller::{Outbound, Principal, Via};
use crate::session::events::{ListKind, ServerEvent};
use crate::tools::Tool;
use crate::tools::area::Tools;

/// An MCP server. Cheap to clone: clones share registries and options.
#[derive(Clone)]
pub struct Server {
    pub(crate) core: Arc<Core>,
    /// The dispatcher inside the server's tower layers (none without
    /// layers). Held here, not in [`Core`]: its innermost service holds the
    /// core.
    pub(crate) layered: Option<Arc<RequestStack>>,
}

impl Server {
    /// Starts building a server that calls itself `name` `version`.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder::new(name, version)
    }

    /// Serves one connection until its input ends: reads its requests,
    /// at most [`ServerOptions::max_in_flight`](crate::ServerOptions::max_in_flight) running at once, and stops
    /// reading while they and as many queued behind them are unanswered
    /// (backpressure; see `transport/connection.rs`).
    pub async fn serve<T: crate::transport::Transport>(&self, transport: T) -> Result<()> {
        crate::transport::serve(self.dispatch(), transport).await
    }

    /// Serves the process's stdin and stdout (newline-delimited JSON).
    pub async fn serve_stdio(&self) -> Result<()> {
        self.serve(crate::transport::stdio(self.core.shared.options.max_message_size)).await
    }
}

impl ServerBuilder {
    /// Builds the server. Fails on a bad or duplicate name, URI or
    /// extension identifier, an item without a handler, a schema that
    /// does not compile, or an MCP Apps view that breaks its rules (see
    /// [`Error::InvalidUiResource`](crate::Error::InvalidUiResource) and
    /// [`Error::InvalidToolUi`](crate::Error::InvalidToolUi)).
    pub fn build(self) -> Result<Server> {
        let (core, layered) = self.assemble()?;
        Ok(Server { core, layered })
    }
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("info", &self.core.shared.info).finish_non_exhaustive()
    }
}

/// What an authenticated caller may see and use.
///
/// Tools, prompts, resources and templates may require OAuth scopes
/// (`requires_scopes`). For a caller with a [`Principal`] the lists show
/// only what its scopes allow (and are then `cacheScope: private`), and
/// using something hidden is the same error as using something that does
/// not exist. Transports that authenticate (HTTP with bearer tokens) ask
/// [`Server::missing_scopes`] first, to answer `403` with
/// `error="insufficient_scope"` and the scopes to request, as the
/// authorization spec's scope challenge describes
/// (`docs/specification/2025-11-25/basic/authorization.mdx` §Scope
/// Challenge Handling). Without a principal (stdio, or HTTP without
/// authorization) nothing is restricted.
impl Server {
    /// The scopes a request needs that `principal` lacks: `Some(required)`
    /// (all the scopes the named tool, prompt or resource requires) when a
    /// `tools/call`, `prompts/get`, `resources/read` or
    /// `resources/subscribe` names something `principal` may not use;
    /// `None` otherwise (including for unknown names, which the
    /// dispatcher answers as usual).
    pub fn missing_scopes(
        &self,
        principal: &Principal,
        method: &str,
        params: Option<&Value>,
    ) -> Option<Vec<String>> {
        // The method's row says whose scopes it needs; its facts, which
        // param names that item.
        let entry = self.core.methods.get(method)?;
        let scoped_by = entry.scoped_by?;
        let target = params?.get(entry.target()?.param())?.as_str()?;
        let required: Vec<String> = match scoped_by {
            ScopedBy::Tool => self.core.tools.catalog.load().get(target)?.value.scopes.to_vec(),
            ScopedBy::Prompt => self.core.prompts.catalog.load().get(target)?.value.scopes.to_vec(),
            ScopedBy::Resource => {
                let uri = target;
                match self.core.resources.catalog.load().get(uri) {
                    Some(item) => item.value.scopes.to_vec(),
                    None => {
                        let templates = self.core.resources.templates.load();
                        let item = templates.iter().find(|t| t.value.template.matches(uri).is_some())?;
                        item.value.scopes.to_vec()
                    }
                }
            }
        };
        (!principal.has_scopes(&required)).then_some(required)
    }
}

// Changing many registrations at once, with one announcement.
//
// A file watcher that saw forty files change, or a configuration reload
// that rebuilt every tool, should not send forty `list_changed`
// notifications, nor any when nothing a client can see changed. These
// methods publish one new snapshot per list and announce it once, only
// when the visible list changed (`notifications/*/list_changed` in
// `docs/specification/<rev>/server/{tools,prompts,resources}.mdx`).

impl Server {
    /// Adds or replaces every resource of `upserts` and removes the URIs in
    /// `removals`, in one step. Clients hear one `resources/list_changed` if
    /// a resource came or went, and `resources/updated` for each replaced
    /// resource they subscribed to. Nothing changes if a resource is invalid.
    pub fn update_resources(&self, upserts: Vec<Resource>, removals: &[String]) -> Result<()> {
        let entries = Resources::entries(upserts)?;
        let replaced =
            self.core.resources.catalog.apply(entries, removals, |added, removed| added || removed);
        for uri in replaced {
            self.notify_resource_updated(uri);
        }
        Ok(())
    }

    /// Makes the tool list exactly `tools` (tools already registered keep
    /// their place). Announces `tools/list_changed` only if a tool came,
    /// went, or changed its definition; handlers are replaced either way.
    /// Returns whether it announced. Nothing changes if a tool is invalid.
    pub fn replace_tools(&self, tools: Vec<Tool>) -> Result<bool> {
        Ok(self.core.tools.catalog.replace_all(Tools::entries(tools)?, |old, new| old.def != new.def))
    }

    /// Makes the prompt list exactly `prompts`, like [`Server::replace_tools`].
    pub fn replace_prompts(&self, prompts: Vec<Prompt>) -> Result<bool> {
        Ok(self
            .core
            .prompts
            .catalog
            .replace_all(self.core.prompts.entries(prompts)?, |old, new| old.def != new.def))
    }

    /// Makes the resource-template list exactly `templates`, like
    /// [`Server::replace_tools`].
    pub fn replace_resource_templates(&self, templates: Vec<ResourceTemplate>) -> Result<bool> {
        Ok(self
            .core
            .resources
            .templates
            .replace_all(self.core.resources.template_entries(templates)?, |old, new| old.def != new.def))
    }

    /// Adds or replaces (in place) every tool of `upserts` and removes the
    /// names in `removals`, leaving every other tool as it is, in one step
    /// (a gateway that owns part of the list). Announces
    /// `tools/list_changed` once if a tool came, went or changed its
    /// definition; returns whether it announced. Nothing changes if a tool
    /// is invalid.
    pub fn update_tools(&self, upserts: Vec<Tool>, removals: &[String]) -> Result<bool> {
        Ok(self.core.tools.catalog.upsert(Tools::entries(upserts)?, removals, |old, new| old.def != new.def))
    }

    /// [`Server::update_tools`] for prompts.
    pub fn update_prompts(&self, upserts: Vec<Prompt>, removals: &[String]) -> Result<bool> {
        Ok(self
            .core
            .prompts
            .catalog
            .upsert(self.core.prompts.entries(upserts)?, removals, |old, new| old.def != new.def))
    }

    /// [`Server::update_tools`] for resource templates (keyed by their
    /// template text).
    pub fn update_resource_templates(
        &self,
        upserts: Vec<ResourceTemplate>,
        removals: &[String],
    ) -> Result<bool> {
        let entries = self.core.resources.template_entries(upserts)?;
        Ok(self.core.resources.templates.upsert(entries, removals, |old, new| old.def != new.def))
    }

    /// The registered prompts' definitions, in listing order.
    pub fn prompts(&self) -> Vec<switchboard_types::Prompt> {
        self.core.prompts.catalog.load().iter().map(|e| e.value.def.clone()).collect()
    }

    /// The registered resources' definitions, in listing order.
    pub fn resources(&self) -> Vec<switchboard_types::resources::Resource> {
        self.core.resources.catalog.load().iter().map(|e| e.value.def.clone()).collect()
    }

    /// Every resource `resources/list` shows, in listing order: the
    /// registered ones, then each [`ResourceSource`](crate::ResourceSource)'s
    /// (all of them rendered: for printing a project's listing, not for a
    /// request path).
    pub fn listed_resources(&self) -> Vec<switchboard_types::resources::Resource> {
        let mut all = self.resources();
        for source in &self.core.resources.sources {
            all.extend(source.list(0..source.len()));
        }
        all
    }

    /// The registered resource templates' definitions, in listing order.
    pub fn resource_templates(&self) -> Vec<switchboard_types::resources::ResourceTemplate> {
        self.core.resources.templates.load().iter().map(|e| e.value.def.clone()).collect()
    }
}

impl Server {
    /// The server's identity.
    pub fn info(&self) -> &Implementation {
        &self.core.shared.info
    }

    /// The options in force.
    pub fn options(&self) -> &ServerOptions {
        &self.core.shared.options
    }

    /// Signs pagination cursors and 2026-07-28 `requestState` values with
    /// `key` from now on (those signed with the previous key are refused
    /// with `-32602`, and the client starts the list or request again).
    /// For instances that started while the shared state
    /// store was unreachable and learn the shared key later
    /// ([`shared_secret`](crate::store::shared_secret)).
    pub fn set_cursor_key(&self, key: [u8; 32]) {
        self.core.shared.cursors.store(std::sync::Arc::new(CursorCodec::new(key)));
        self.core.shared.request_states.store(std::sync::Arc::new(crate::input::StateCodec::new(key)));
    }

    /// An HMAC-SHA256 tag of `data` under a key derived from the server's
    /// cursor key (so every instance sharing that key accepts it, and it
    /// follows [`Server::set_cursor_key`]): for tokens an application hands
    /// to clients and must get back unaltered, like continuation cursors.
    /// Distinct from the keys of list cursors and `requestState`.
    pub fn sign(&self, data: &[u8]) -> [u8; 32] {
        self.core.shared.cursors.load().application_tag(data)
    }

    /// Whether `tag` is [`Server::sign`]'s tag of `data` (constant time).
    pub fn verify(&self, data: &[u8], tag: &[u8]) -> bool {
        self.core.shared.cursors.load().verify_application_tag(data, tag)
    }

    /// The server's state store: the shared one given to
    /// [`ServerBuilder::state`](crate::ServerBuilder::state), or this
    /// process's memory store. For single-use claims across instances
    /// ([`StateStore::set_if_absent`](crate::state::StateStore::set_if_absent)).
    pub fn state_store(&self) -> Arc<dyn crate::store::StateStore> {
        self.core.tasks.store()
    }

    /// Registers a tool at run time. Connected clients are told with
    /// `notifications/tools/list_changed` (handshake-era clients after their
    /// handshake; 2026-07-28 clients on listen streams that asked for it).
    pub fn add_tool(&self, tool: Tool) -> Result<()> {
        self.core.tools.add(tool)
    }

    /// Removes a tool at run time; true if it existed. Announced like
    /// [`Server::add_tool`].
    pub fn remove_tool(&self, name: &str) -> bool {
        self.core.tools.catalog.remove(name)
    }

    /// The registered tools' definitions, in listing order.
    pub fn tools(&self) -> Vec<switchboard_types::Tool> {
        self.core.tools.catalog.load().iter().map(|e| e.value.def.clone()).collect()
    }

    /// One tool's definition.
    pub fn tool_definition(&self, name: &str) -> Option<switchboard_types::Tool> {
        self.core.tools.catalog.load().get(name).map(|e| e.value.def.clone())
    }

    /// Runs `check` on the input schema of tool `name` when that schema
    /// mirrors arguments into `Mcp-Param-*` headers (`x-mcp-header`,
    /// 2026-07-28); `None` when there is no such tool or nothing is
    /// mirrored. Nothing is cloned: the HTTP transport calls this on every
    /// `tools/call`.
    pub fn with_mirrored_schema<R>(&self, name: &str, check: impl FnOnce(&Value) -> R) -> Option<R> {
        self.core.tools.with_mirrored_schema(name, check)
    }

    /// Registers a prompt at run time (announced with `prompts/list_changed`).
    pub fn add_prompt(&self, prompt: Prompt) -> Result<()> {
        self.core.prompts.add(prompt)
    }

    /// Removes a prompt; true if it existed.
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.core.prompts.catalog.remove(name)
    }

    /// Registers a resource at run time (announced with `resources/list_changed`).
    pub fn add_resource(&self, resource: Resource) -> Result<()> {
        self.core.resources.add(resource, false)
    }

    /// Registers or replaces the resource with this URI, keeping its place in
    /// the list, and tells subscribers it was updated.
    pub fn upsert_resource(&self, resource: Resource) -> Result<()> {
        let uri = resource.def.uri.clone();
        self.core.resources.add(resource, true)?;
        self.notify_resource_updated(uri);
        Ok(())
    }

    /// Removes a resource; true if it existed.
    pub fn remove_resource(&self, uri: &str) -> bool {
        self.core.resources.catalog.remove(uri)
    }

    /// Registers a resource template at run time.
    pub fn add_resource_template(&self, template: ResourceTemplate) -> Result<()> {
        self.core.resources.add_template(template)
    }

    /// Removes a resource template (by its template text); true if it existed.
    pub fn remove_resource_template(&self, uri_template: &str) -> bool {
        self.core.resources.templates.remove(uri_template)
    }

    /// Switches a registration off or on at run time, by its key: a tool's or
    /// prompt's name, a resource's URI, a template's text. A disabled item
    /// stays registered (its key stays taken) but is not listed, called,
    /// read or completed, exactly as if it were absent; clients are told
    /// with the list's `list_changed`. The switch is by key: it holds when
    /// the item is registered again (as a hot reload does), and may be set
    /// before the item exists. Returns whether an item is registered under
    /// `key`.
    ///
    /// ```
    /// # use switchboard_server::{ListKind, Server, Tool, RequestContext};
    /// let server = Server::builder("s", "1")
    ///     .tool(Tool::new("deploy").raw_handler(|_, _: RequestContext| async { Ok(Default::default()) }))
    ///     .build()
    ///     .unwrap();
    /// assert!(server.set_enabled(ListKind::Tools, "deploy", false));
    /// assert!(server.tools().is_empty());
    /// server.set_enabled(ListKind::Tools, "deploy", true);
    /// assert_eq!(server.tools().len(), 1);
    /// ```
    pub fn set_enabled(&self, kind: ListKind, key: &str, enabled: bool) -> bool {
        match kind {
            ListKind::Tools => self.core.tools.catalog.set_enabled(key, enabled),
            ListKind::Prompts => self.core.prompts.catalog.set_enabled(key, enabled),
            ListKind::Resources => self.core.resources.catalog.set_enabled(key, enabled),
            ListKind::ResourceTemplates => self.core.resources.templates.set_enabled(key, enabled),
        }
    }

    /// Whether `key` is switched on in that list (see [`Server::set_enabled`];
    /// true for keys never switched off, registered or not).
    pub fn is_enabled(&self, kind: ListKind, key: &str) -> bool {
        match kind {
            ListKind::Tools => self.core.tools.catalog.is_enabled(key),
            ListKind::Prompts => self.core.prompts.catalog.is_enabled(key),
            ListKind::Resources => self.core.resources.catalog.is_enabled(key),
            ListKind::ResourceTemplates => self.core.resources.templates.is_enabled(key),
        }
    }

    /// Announces that the resource at `uri` changed. Every connection whose
    /// client subscribed to it (handshake-era `resources/subscribe`, or a
    /// 2026-07-28 listen stream naming it) receives
    /// `notifications/resources/updated`.
    /// Call it from anywhere: a file watcher, a database trigger, a handler.
    pub fn notify_resource_updated(&self, uri: impl Into<String>) {
        self.core.shared.events.send(ServerEvent::ResourceUpdated(uri.into()));
    }

    /// Sends a log message (`notifications/message`) to every connected
    /// client whose session asked for this level or a more severe one
    /// (`logging/setLevel`, else the server's default), when the server
    /// offers logging. For events of the server itself, not of one request
    /// (a configuration reload that failed); 2026-07-28 requests, which
    /// have no session, get log messages only about themselves. Local to
    /// this instance. Keep secrets and personal data out of `data`.
    pub fn log_to_clients(
        &self,
        level: switchboard_types::logging::LoggingLevel,
        logger: Option<&str>,
        data: Value,
    ) {
        let logger = logger.map(str::to_owned);
        self.core.shared.events.send(ServerEvent::Log(crate::session::events::LogEvent {
            level,
            logger,
            data,
        }));
    }

    /// Announces that a list changed without going through the registries
    /// (for lists whose contents a handler computes).
    pub fn notify_list_changed(&self, kind: ListKind) {
        self.core.shared.events.send(ServerEvent::ListChanged(kind));
    }

    /// Delivers one event to a session's client (what the connection loop
    /// does for each event; transports with their own loop call it).
    pub async fn deliver(&self, session: &Session, event: &ServerEvent) {
        session.deliver(event, self.core.announced()).await
    }

    /// Tells a session's client about everything that may have changed,
    /// after its event receiver lagged.
    pub async fn deliver_missed(&self, session: &Session) {
        session.deliver_missed(self.core.announced()).await
    }

    /// Delivers every event the server publishes to `session` until the
    /// event bus closes: what a transport without its own connection loop
    /// spawns per session (and aborts when the session ends). Subscribes
    /// before returning the future, so no event published after the call is
    /// missed.
    pub fn forward_events(
        &self,
        session: Arc<Session>,
    ) -> impl std::future::Future<Output = ()> + Send + 'static {
        let server = self.clone();
        let mut events = self.core.shared.events.subscribe();
        async move {
            loop {
                match events.recv().await {
                    Ok(event) => server.deliver(&session, &event).await,
                    Err(broadcast::error::RecvError::Lagged(_)) => server.deliver_missed(&session).await,
                    Err(broadcast::error::RecvError::Closed) => return,
                }
            }
        }
    }

    /// Receives every event the server publishes (for transports and tests).
    pub fn subscribe_events(&self) -> broadcast::Receiver<ServerEvent> {
        self.core.shared.events.subscribe_channel()
    }

    /// A new session whose outgoing messages go to `outbound`. Transports
    /// call this once per connection.
    pub fn new_session(&self, outbound: Outbound, principal: Option<Principal>) -> Arc<Session> {
        Arc::new(Session::new(outbound, principal))
    }

    /// A session for independent 2026-07-28 requests, to share among all of
    /// them (stateless HTTP builds one per server, not one per request).
    /// Pass each request's own stream and principal in its
    /// [`Via`](crate::Via). Handshake-era requests, `initialize` and
    /// `subscriptions/listen` need a session of their own
    /// ([`Server::new_session`]) and are refused on it.
    pub fn stateless_session(&self) -> Arc<Session> {
        Arc::new(Session::stateless())
    }
}

// The dispatcher's entry points (`dispatch/`): thin wrappers over
// `Dispatch`, which borrows the core and the middleware stack.
impl Server {
    fn dispatch(&self) -> Dispatch<'_> {
        Dispatch { core: &self.core, layered: self.layered.as_ref() }
    }

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
    /// [`RequestContext::headers`](crate::RequestContext::headers)).
    pub fn accept_via(&self, session: &Arc<Session>, frame: &[u8], via: &Via) -> Accepted {
        self.dispatch().accept_via(session, frame, via)
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
        self.dispatch().accept_message(session, message, head, via, None)
    }

    /// [`Server::accept_message`] for a message the transport serves in the
    /// 2026-07-28 model, with the transport's own checks (its copy of the
    /// request's metadata against the body), which the dispatcher calls at
    /// their place in its admission order. The request is held to the
    /// per-request `_meta` rules.
    pub fn accept_message_checked(
        &self,
        session: &Arc<Session>,
        message: &IncomingMessage<'_>,
        head: Option<&ParamsHead<'_>>,
        via: &Via,
        check: &dyn AdmissionCheck,
    ) -> Accepted {
        self.dispatch().accept_message(session, message, head, via, Some(check))
    }

    /// What `method` is (its target param, whether it streams, may ask for
    /// input, listens), as its registry row says: a core method's facts, or
    /// those of an application method registered as a type
    /// ([`Method::typed`](crate::Method::typed)). `None` for an unknown
    /// method or one registered without facts. Transports read this, never
    /// a list of method names.
    pub fn method_facts(&self, method: &str) -> Option<MethodFacts> {
        self.dispatch().method_facts(method)
    }

    /// True if `method` is served under `version` (what a transport checks
    /// before dispatching, e.g. to answer `404` in 2026-07-28).
    pub fn method_available(&self, method: &str, version: ProtocolVersion) -> bool {
        self.dispatch().method_available(method, version)
    }
}
