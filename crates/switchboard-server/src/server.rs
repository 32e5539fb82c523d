//! The server's state ([`ServerInner`]: registries, options, event bus,
//! task registry, limits) and its run-time API on [`Server`]: registering,
//! removing and switching items, announcing changes, sessions and their
//! events.
//!
//! Why its own module: everything that serves requests (`dispatch.rs`, the
//! `*_methods.rs` modules, `lifecycle.rs`, the transports) works on this
//! state, so it sits below all of them. Building a server is
//! `builder.rs`'s; serving a transport ([`Server::serve`]: the connection
//! loop of `transport/connection.rs`) is the `transport` module's.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use futures::future::BoxFuture;
use serde_json::Value;
use serde_json::value::RawValue;
use switchboard_types::{ErrorObject, Implementation};
use tokio::sync::broadcast;

use crate::caller::{Outbound, Principal};
use crate::catalog::{Catalog, CursorCodec};
use crate::context::RequestContext;
use crate::error::{Error, Result};
use crate::events::{EventBus, ListKind, ServerEvent};
use crate::extensions::OfferedExtension;
use crate::methods::MethodHandler;
use crate::options::ServerOptions;
use crate::output::Output;
use crate::prompt::Prompt;
use crate::prompt_entry::PromptEntry;
use crate::registry::{Needs, Registry};
use crate::resource::{Resource, ResourceTemplate};
use crate::resource_entry::{ResourceEntry, TemplateEntry};
use crate::resource_source::ResourceSource;
use crate::session::{Announced, Session};
use crate::tool::Tool;
use crate::tool_entry::ToolEntry;

pub(crate) struct ServerInner {
    pub info: Implementation,
    /// `info` pre-rendered for 2026-07-28 results' `_meta`.
    pub per_request_info: Value,
    pub instructions: Option<String>,
    pub options: ServerOptions,
    pub events: EventBus,
    /// Swappable: an instance started during a state-store outage adopts
    /// the shared key once the store answers ([`Server::set_cursor_key`]).
    pub cursors: arc_swap::ArcSwap<CursorCodec>,
    /// Signs 2026-07-28 `requestState` values, under a key derived from the
    /// same server key (swapped with it).
    pub request_states: arc_swap::ArcSwap<crate::input::StateCodec>,
    pub tools: Catalog<ToolEntry>,
    pub prompts: Catalog<PromptEntry>,
    pub resources: Catalog<ResourceEntry>,
    pub templates: Catalog<TemplateEntry>,
    pub tools_enabled: bool,
    pub prompts_enabled: bool,
    pub resources_enabled: bool,
    pub logging_enabled: bool,
    /// Rate limits on tools/call.
    pub limits: crate::limits::Limiters,
    /// Resources listed and read on demand, after the registered ones.
    pub sources: Vec<Arc<dyn ResourceSource>>,
    /// Some prompt or template has a completer (so `completions` is offered).
    pub has_completers: AtomicBool,
    /// The dispatcher inside the server's tower layers (none without layers).
    pub layered: Option<crate::middleware::RequestStack>,
    /// Extensions offered in the capabilities (SEP-2133), checked, in the
    /// order added.
    pub extensions: Vec<OfferedExtension>,
    /// The Tasks extension's store and runner.
    pub tasks: Arc<crate::tasks::Tasks>,
    /// Whether the Tasks extension is offered (so `tasks/*` exist).
    pub tasks_offered: bool,
    /// Every method the server answers: the core's and the application's
    /// ([`ServerBuilder::method`]), one row each.
    pub methods: Registry<Handler>,
    /// Told of every client notification after the core handled it
    /// ([`ServerBuilder::on_client_notification`]).
    pub notification_hook: Option<crate::session::NotificationHook>,
}

/// A core method's handler: the server, the request's session, context and
/// raw params in, the method's output out.
pub(crate) type CoreHandler = for<'a> fn(
    &'a Server,
    &'a Arc<Session>,
    &'a RequestContext,
    Option<&'a RawValue>,
) -> BoxFuture<'a, std::result::Result<Output, ErrorObject>>;

/// What answers a method of the [`Registry`].
pub(crate) enum Handler {
    /// A core method (`core_methods.rs`).
    Core(CoreHandler),
    /// An application's [`Method`](crate::Method): params as a value in,
    /// a result object out.
    App(Arc<dyn MethodHandler>),
}

impl std::fmt::Debug for Handler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Handler::Core(_) => "Core",
            Handler::App(_) => "App",
        })
    }
}

impl ServerInner {
    pub(crate) fn announced(&self) -> Announced {
        Announced {
            tools: self.tools_enabled,
            prompts: self.prompts_enabled,
            resources: self.resources_enabled,
            logging: self.logging_enabled,
            default_log_level: self.options.default_log_level,
        }
    }

    pub(crate) fn completions_enabled(&self) -> bool {
        self.has_completers.load(Ordering::Acquire)
    }

    /// Whether the server offers what a core method `needs`.
    pub(crate) fn offers(&self, needs: Needs) -> bool {
        match needs {
            Needs::Nothing => true,
            Needs::Tools => self.tools_enabled,
            Needs::Resources => self.resources_enabled,
            Needs::Prompts => self.prompts_enabled,
            Needs::Completions => self.completions_enabled(),
            Needs::Logging => self.logging_enabled,
            Needs::Tasks => self.tasks_offered,
        }
    }

    pub(crate) fn add_tool(&self, tool: Tool) -> Result<()> {
        let entry = ToolEntry::prepare(tool)?;
        let name = entry.def.name.clone();
        self.tools.insert(name.clone(), entry, false).map_err(|_| Error::DuplicateTool(name))
    }

    pub(crate) fn add_prompt(&self, prompt: Prompt) -> Result<()> {
        let entry = PromptEntry::prepare(prompt)?;
        let name = entry.def.name.clone();
        let completers = !entry.completers.is_empty();
        self.prompts.insert(name.clone(), entry, false).map_err(|_| Error::DuplicatePrompt(name))?;
        if completers {
            self.has_completers.store(true, Ordering::Release);
        }
        Ok(())
    }

    pub(crate) fn add_resource(&self, resource: Resource, replace: bool) -> Result<()> {
        let entry = ResourceEntry::prepare(resource)?;
        let uri = entry.def.uri.clone();
        self.resources.insert(uri.clone(), entry, replace).map_err(|_| Error::DuplicateResource(uri))
    }

    pub(crate) fn add_template(&self, template: ResourceTemplate) -> Result<()> {
        let entry = TemplateEntry::prepare(template)?;
        let key = entry.def.uri_template.clone();
        let completers = !entry.completers.is_empty();
        self.templates.insert(key.clone(), entry, false).map_err(|_| Error::DuplicateResource(key))?;
        if completers {
            self.has_completers.store(true, Ordering::Release);
        }
        Ok(())
    }
}

/// An MCP server. Cheap to clone: clones share registries and options.
#[derive(Clone)]
pub struct Server {
    pub(crate) inner: Arc<ServerInner>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("info", &self.inner.info).finish_non_exhaustive()
    }
}

impl Server {
    /// The server's identity.
    pub fn info(&self) -> &Implementation {
        &self.inner.info
    }

    /// The options in force.
    pub fn options(&self) -> &ServerOptions {
        &self.inner.options
    }

    /// Signs pagination cursors and 2026-07-28 `requestState` values with
    /// `key` from now on (those signed with the previous key are refused
    /// with `-32602`, and the client starts the list or request again).
    /// For instances that started while the shared state
    /// store was unreachable and learn the shared key later
    /// ([`shared_secret`](crate::store::shared_secret)).
    pub fn set_cursor_key(&self, key: [u8; 32]) {
        self.inner.cursors.store(std::sync::Arc::new(CursorCodec::new(key)));
        self.inner.request_states.store(std::sync::Arc::new(crate::input::StateCodec::new(key)));
    }

    /// An HMAC-SHA256 tag of `data` under a key derived from the server's
    /// cursor key (so every instance sharing that key accepts it, and it
    /// follows [`Server::set_cursor_key`]): for tokens an application hands
    /// to clients and must get back unaltered, like continuation cursors.
    /// Distinct from the keys of list cursors and `requestState`.
    pub fn sign(&self, data: &[u8]) -> [u8; 32] {
        self.inner.cursors.load().application_tag(data)
    }

    /// Whether `tag` is [`Server::sign`]'s tag of `data` (constant time).
    pub fn verify(&self, data: &[u8], tag: &[u8]) -> bool {
        self.inner.cursors.load().verify_application_tag(data, tag)
    }

    /// The server's state store: the shared one given to
    /// [`ServerBuilder::state`](crate::ServerBuilder::state), or this
    /// process's memory store. For single-use claims across instances
    /// ([`StateStore::set_if_absent`](crate::state::StateStore::set_if_absent)).
    pub fn state_store(&self) -> Arc<dyn crate::store::StateStore> {
        self.inner.tasks.store()
    }

    /// Registers a tool at run time. Connected clients are told with
    /// `notifications/tools/list_changed` (handshake-era clients after their
    /// handshake; 2026-07-28 clients on listen streams that asked for it).
    pub fn add_tool(&self, tool: Tool) -> Result<()> {
        self.inner.add_tool(tool)
    }

    /// Removes a tool at run time; true if it existed. Announced like
    /// [`Server::add_tool`].
    pub fn remove_tool(&self, name: &str) -> bool {
        self.inner.tools.remove(name)
    }

    /// The registered tools' definitions, in listing order.
    pub fn tools(&self) -> Vec<switchboard_types::Tool> {
        self.inner.tools.load().iter().map(|e| e.value.def.clone()).collect()
    }

    /// One tool's definition.
    pub fn tool_definition(&self, name: &str) -> Option<switchboard_types::Tool> {
        self.inner.tools.load().get(name).map(|e| e.value.def.clone())
    }

    /// Runs `check` on the input schema of tool `name` when that schema
    /// mirrors arguments into `Mcp-Param-*` headers (`x-mcp-header`,
    /// 2026-07-28); `None` when there is no such tool or nothing is
    /// mirrored. Nothing is cloned: the HTTP transport calls this on every
    /// `tools/call`.
    pub fn with_mirrored_schema<R>(&self, name: &str, check: impl FnOnce(&Value) -> R) -> Option<R> {
        let tools = self.inner.tools.load();
        let entry = &tools.get(name)?.value;
        entry.mirrors_headers.then(|| check(&entry.def.input_schema))
    }

    /// Registers a prompt at run time (announced with `prompts/list_changed`).
    pub fn add_prompt(&self, prompt: Prompt) -> Result<()> {
        self.inner.add_prompt(prompt)
    }

    /// Removes a prompt; true if it existed.
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.inner.prompts.remove(name)
    }

    /// Registers a resource at run time (announced with `resources/list_changed`).
    pub fn add_resource(&self, resource: Resource) -> Result<()> {
        self.inner.add_resource(resource, false)
    }

    /// Registers or replaces the resource with this URI, keeping its place in
    /// the list, and tells subscribers it was updated.
    pub fn upsert_resource(&self, resource: Resource) -> Result<()> {
        let uri = resource.def.uri.clone();
        self.inner.add_resource(resource, true)?;
        self.notify_resource_updated(uri);
        Ok(())
    }

    /// Removes a resource; true if it existed.
    pub fn remove_resource(&self, uri: &str) -> bool {
        self.inner.resources.remove(uri)
    }

    /// Registers a resource template at run time.
    pub fn add_resource_template(&self, template: ResourceTemplate) -> Result<()> {
        self.inner.add_template(template)
    }

    /// Removes a resource template (by its template text); true if it existed.
    pub fn remove_resource_template(&self, uri_template: &str) -> bool {
        self.inner.templates.remove(uri_template)
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
            ListKind::Tools => self.inner.tools.set_enabled(key, enabled),
            ListKind::Prompts => self.inner.prompts.set_enabled(key, enabled),
            ListKind::Resources => self.inner.resources.set_enabled(key, enabled),
            ListKind::ResourceTemplates => self.inner.templates.set_enabled(key, enabled),
        }
    }

    /// Whether `key` is switched on in that list (see [`Server::set_enabled`];
    /// true for keys never switched off, registered or not).
    pub fn is_enabled(&self, kind: ListKind, key: &str) -> bool {
        match kind {
            ListKind::Tools => self.inner.tools.is_enabled(key),
            ListKind::Prompts => self.inner.prompts.is_enabled(key),
            ListKind::Resources => self.inner.resources.is_enabled(key),
            ListKind::ResourceTemplates => self.inner.templates.is_enabled(key),
        }
    }

    /// Announces that the resource at `uri` changed. Every connection whose
    /// client subscribed to it (handshake-era `resources/subscribe`, or a
    /// 2026-07-28 listen stream naming it) receives
    /// `notifications/resources/updated`.
    /// Call it from anywhere: a file watcher, a database trigger, a handler.
    pub fn notify_resource_updated(&self, uri: impl Into<String>) {
        self.inner.events.send(ServerEvent::ResourceUpdated(uri.into()));
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
        self.inner.events.send(ServerEvent::Log(crate::events::LogEvent { level, logger, data }));
    }

    /// Announces that a list changed without going through the registries
    /// (for lists whose contents a handler computes).
    pub fn notify_list_changed(&self, kind: ListKind) {
        self.inner.events.send(ServerEvent::ListChanged(kind));
    }

    /// Delivers one event to a session's client (what the connection loop
    /// does for each event; transports with their own loop call it).
    pub async fn deliver(&self, session: &Session, event: &ServerEvent) {
        session.deliver(event, self.inner.announced()).await
    }

    /// Tells a session's client about everything that may have changed,
    /// after its event receiver lagged.
    pub async fn deliver_missed(&self, session: &Session) {
        session.deliver_missed(self.inner.announced()).await
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
        let mut events = self.inner.events.subscribe();
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
        self.inner.events.subscribe()
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
