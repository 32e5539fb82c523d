//! The server: its registries and options, and [`Server::serve`], which
//! hands one transport to the connection loop (`transport/connection.rs`:
//! frames read in order, requests run as their own tasks, backpressure
//! while `max_in_flight` are running and as many more are queued, and a
//! grace period for requests in flight when input ends).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::Value;
use switchboard_types::Implementation;
use switchboard_types::content::Icon;
use tokio::sync::broadcast;

use crate::caller::{Outbound, Principal};
use crate::catalog::{Catalog, CursorCodec};
use crate::error::{Error, Result};
use crate::events::{EventBus, ListKind, ServerEvent};
use crate::lifecycle::OfferedExtension;
use crate::options::ServerOptions;
use crate::prompt::Prompt;
use crate::prompts_methods::PromptEntry;
use crate::resource::{Resource, ResourceTemplate};
use crate::resource_source::ResourceSource;
use crate::resources_methods::{ResourceEntry, TemplateEntry};
use crate::session::{Announced, Session};
use crate::tool::Tool;
use crate::tools_methods::ToolEntry;
use crate::transport::Transport;

pub(crate) struct ServerInner {
    pub info: Implementation,
    /// `info` pre-rendered for 2026-07-28 results' `_meta`.
    pub modern_info: Value,
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
    /// Methods the application added ([`ServerBuilder::method`]), checked.
    pub methods: Vec<crate::methods::Method>,
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

    fn add_tool(&self, tool: Tool) -> Result<()> {
        let entry = ToolEntry::prepare(tool)?;
        let name = entry.def.name.clone();
        self.tools.insert(name.clone(), entry, false).map_err(|_| Error::DuplicateTool(name))
    }

    fn add_prompt(&self, prompt: Prompt) -> Result<()> {
        let entry = PromptEntry::prepare(prompt)?;
        let name = entry.def.name.clone();
        let completers = !entry.completers.is_empty();
        self.prompts.insert(name.clone(), entry, false).map_err(|_| Error::DuplicatePrompt(name))?;
        if completers {
            self.has_completers.store(true, Ordering::Release);
        }
        Ok(())
    }

    fn add_resource(&self, resource: Resource, replace: bool) -> Result<()> {
        let entry = ResourceEntry::prepare(resource)?;
        let uri = entry.def.uri.clone();
        self.resources.insert(uri.clone(), entry, replace).map_err(|_| Error::DuplicateResource(uri))
    }

    fn add_template(&self, template: ResourceTemplate) -> Result<()> {
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

/// Builds a [`Server`].
#[derive(Debug)]
#[must_use]
pub struct ServerBuilder {
    info: Implementation,
    instructions: Option<String>,
    options: ServerOptions,
    tools: Vec<Tool>,
    prompts: Vec<Prompt>,
    resources: Vec<Resource>,
    templates: Vec<ResourceTemplate>,
    sources: Vec<Arc<dyn ResourceSource>>,
    tools_enabled: bool,
    prompts_enabled: bool,
    resources_enabled: bool,
    logging_enabled: bool,
    layers: Vec<crate::middleware::PendingServerLayer>,
    state: Option<Arc<dyn crate::store::StateStore>>,
    extensions: Vec<OfferedExtension>,
    methods: Vec<crate::methods::Method>,
}

impl ServerBuilder {
    /// Shares this server's change notifications with every other instance
    /// using `store` (e.g. `switchboard-state-redis` for several processes behind
    /// one address): `resources/updated` and `list_changed` published on
    /// any instance reach the clients of all, in order per instance. The
    /// channel is named after the server (`events:{name}`).
    pub fn state(mut self, store: Arc<dyn crate::store::StateStore>) -> Self {
        self.state = Some(store);
        self
    }

    /// Mounts everything `other` registered into this server: its tools
    /// and prompts renamed `{prefix}_{name}`, its resources, templates,
    /// resource sources, extension offers and methods as they are (URIs and
    /// extension identifiers carry their own namespace; one both servers
    /// register is a duplicate when the server is built). The
    /// mounted tools keep their own tool layers and scopes; `other`'s
    /// identity, options and server layers are not carried over (this
    /// server's apply to everything it serves).
    ///
    /// ```
    /// # use switchboard_server::{RequestContext, Server, Tool, NoArgs};
    /// let weather = Server::builder("weather", "1")
    ///     .tool(Tool::new("forecast").handler(|_: NoArgs, _: RequestContext| async { Ok("sunny") }));
    /// let server = Server::builder("hub", "1").mount("weather", weather).build().unwrap();
    /// assert_eq!(server.tools()[0].name, "weather_forecast");
    /// ```
    pub fn mount(mut self, prefix: &str, other: ServerBuilder) -> Self {
        for mut tool in other.tools {
            tool.def.name = format!("{prefix}_{}", tool.def.name);
            self.tools.push(tool);
        }
        for mut prompt in other.prompts {
            prompt.def.name = format!("{prefix}_{}", prompt.def.name);
            self.prompts.push(prompt);
        }
        self.resources.extend(other.resources);
        self.templates.extend(other.templates);
        self.sources.extend(other.sources);
        self.extensions.extend(other.extensions);
        self.methods.extend(other.methods);
        self.tools_enabled |= other.tools_enabled;
        self.prompts_enabled |= other.prompts_enabled;
        self.resources_enabled |= other.resources_enabled;
        self.logging_enabled |= other.logging_enabled;
        self
    }

    /// Wraps every request the server answers in a [tower] layer (the
    /// last one added is outermost): logging, timeouts, concurrency limits,
    /// authorization checks, metrics. Its service takes a
    /// [`middleware::Request`](crate::middleware::Request) (method, params,
    /// context) and returns an opaque
    /// [`middleware::Response`](crate::middleware::Response); an
    /// [`ErrorObject`](switchboard_types::ErrorObject) error is answered as that JSON-RPC error. See
    /// [`middleware`](crate::middleware). Requests that never reach a
    /// method (`initialize`, `ping`, protocol errors) bypass layers.
    ///
    /// [tower]: https://docs.rs/tower
    pub fn layer<L>(mut self, layer: L) -> Self
    where
        L: tower::Layer<crate::middleware::RequestStack> + Send + Sync + 'static,
        L::Service: tower::Service<crate::middleware::Request, Response = crate::middleware::Response>
            + Clone
            + Send
            + Sync
            + 'static,
        <L::Service as tower::Service<crate::middleware::Request>>::Error: Into<crate::middleware::BoxError>,
        <L::Service as tower::Service<crate::middleware::Request>>::Future: Send + 'static,
    {
        self.layers.push(crate::middleware::pending_server_layer(layer));
        self
    }

    /// Display name (2025-06-18 and later clients).
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.info.title = Some(title.into());
        self
    }

    /// Description (2025-11-25 and later clients).
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.info.description = Some(description.into());
        self
    }

    /// Home page (2025-11-25 and later clients).
    pub fn website_url(mut self, url: impl Into<String>) -> Self {
        self.info.website_url = Some(url.into());
        self
    }

    /// Adds an icon (2025-11-25 and later clients).
    pub fn icon(mut self, icon: Icon) -> Self {
        self.info.icons.get_or_insert_with(Vec::new).push(icon);
        self
    }

    /// Instructions for the model, returned by `initialize` and `server/discover`.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Replaces the options.
    pub fn options(mut self, options: ServerOptions) -> Self {
        self.options = options;
        self
    }

    /// Registers a tool (checked when [`ServerBuilder::build`] runs).
    pub fn tool(mut self, tool: Tool) -> Self {
        self.tools.push(tool);
        self
    }

    /// Advertises the `tools` capability even with no tool registered yet,
    /// for servers that add tools at run time.
    pub fn enable_tools(mut self) -> Self {
        self.tools_enabled = true;
        self
    }

    /// Registers a prompt.
    pub fn prompt(mut self, prompt: Prompt) -> Self {
        self.prompts.push(prompt);
        self
    }

    /// Registers a resource.
    pub fn resource(mut self, resource: Resource) -> Self {
        self.resources.push(resource);
        self
    }

    /// Adds resources listed and read on demand (see [`ResourceSource`]),
    /// listed after the registered resources, in the order added.
    pub fn resource_source(mut self, source: Arc<dyn ResourceSource>) -> Self {
        self.sources.push(source);
        self
    }

    /// Registers a resource template.
    pub fn resource_template(mut self, template: ResourceTemplate) -> Self {
        self.templates.push(template);
        self
    }

    /// Advertises `prompts` even with none registered yet.
    pub fn enable_prompts(mut self) -> Self {
        self.prompts_enabled = true;
        self
    }

    /// Offers logging: the `logging` capability, `logging/setLevel`, and
    /// `notifications/message` from [`RequestContext::log`](crate::RequestContext::log).
    pub fn enable_logging(mut self) -> Self {
        self.logging_enabled = true;
        self
    }

    /// Advertises `resources` even with none registered yet.
    pub fn enable_resources(mut self) -> Self {
        self.resources_enabled = true;
        self
    }

    /// Offers extension `id` (SEP-2133) with `settings`, a JSON object whose
    /// schema the extension defines (`{}` for none): the server advertises
    /// it in `capabilities.extensions` of its `initialize` result (every
    /// legacy revision) and of its `server/discover` result (2026-07-28).
    /// Extensions are off unless offered.
    ///
    /// `id` is `{vendor-prefix}/{extension-name}`, spelled like a `_meta`
    /// key with a mandatory prefix (a reversed domain you control, e.g.
    /// `com.example/widgets`; `io.modelcontextprotocol/…` for official
    /// extensions). A bad identifier, settings that are not an object, or
    /// an identifier offered twice make [`ServerBuilder::build`] fail.
    ///
    /// What the client declared reaches handlers as
    /// [`ClientCapabilities::extension`](switchboard_types::ClientCapabilities::extension)
    /// on [`RequestContext::client_capabilities`](crate::RequestContext::client_capabilities);
    /// SEP-2133 asks the server to fall back to core behaviour, or refuse
    /// with an error, when the client did not declare an extension.
    ///
    /// Spec: `seps/2133-extensions.md` §Negotiation;
    /// `docs/specification/2026-07-28/basic/versioning.mdx` §Extension
    /// Negotiation.
    ///
    /// ```
    /// # use switchboard_server::Server;
    /// let server = Server::builder("widgets", "1")
    ///     .extension("com.example/widgets", serde_json::json!({"themes": ["dark"]}))
    ///     .build();
    /// assert!(server.is_ok());
    /// let bad = Server::builder("widgets", "1").extension("widgets", serde_json::json!({})).build();
    /// assert!(bad.is_err(), "the vendor prefix is mandatory");
    /// ```
    pub fn extension(self, id: impl Into<String>, settings: Value) -> Self {
        self.offer_extension(id.into(), settings, None)
    }

    /// [`ServerBuilder::extension`] for an extension that exists only from
    /// revision `first` on: clients of older revisions are not told about
    /// it. The Tasks extension (`io.modelcontextprotocol/tasks`, whose
    /// results rely on 2026-07-28's `resultType`) is offered with `first` =
    /// [`ProtocolVersion::V2026_07_28`](switchboard_types::ProtocolVersion::V2026_07_28),
    /// so it appears in `server/discover` only.
    pub fn extension_since(
        self,
        id: impl Into<String>,
        settings: Value,
        first: switchboard_types::ProtocolVersion,
    ) -> Self {
        self.offer_extension(id.into(), settings, Some(first))
    }

    /// Answers requests for `method`, a method the core does not define
    /// (an extension's, e.g. `skills/list`); see [`Method`](crate::Method).
    /// A name the core uses, or one added twice, makes
    /// [`ServerBuilder::build`] fail.
    pub fn method(mut self, method: crate::methods::Method) -> Self {
        self.methods.push(method);
        self
    }

    fn offer_extension(
        mut self,
        id: String,
        settings: Value,
        since: Option<switchboard_types::ProtocolVersion>,
    ) -> Self {
        self.extensions.push(OfferedExtension { id, settings, since });
        self
    }

    /// Builds the server. Fails on a bad or duplicate name, URI or
    /// extension identifier, an item without a handler, or a schema that
    /// does not compile.
    pub fn build(mut self) -> Result<Server> {
        self = self.with_tasks_extension_if_needed();
        let tasks_offered = self.extensions.iter().any(|e| e.id == crate::tasks::TASKS_EXTENSION);
        OfferedExtension::check_all(&self.extensions)?;
        crate::methods::Method::check_all(&self.methods)?;
        let (events, tasks) = self.events_and_tasks();
        let key = self.cursor_key();
        let modern_info = serde_json::to_value(&self.info).expect("Implementation serializes; qed");
        let limits =
            crate::limits::Limiters::new(self.options.tool_rate_per_caller, self.options.tool_rate_global);
        let inner = ServerInner {
            info: self.info,
            modern_info,
            instructions: self.instructions,
            cursors: arc_swap::ArcSwap::from_pointee(CursorCodec::new(key)),
            request_states: arc_swap::ArcSwap::from_pointee(crate::input::StateCodec::new(key)),
            tools: Catalog::new(ListKind::Tools, events.clone()),
            prompts: Catalog::new(ListKind::Prompts, events.clone()),
            resources: Catalog::new(ListKind::Resources, events.clone()),
            templates: Catalog::new(ListKind::ResourceTemplates, events.clone()),
            events,
            options: self.options,
            tools_enabled: self.tools_enabled || !self.tools.is_empty(),
            prompts_enabled: self.prompts_enabled || !self.prompts.is_empty(),
            resources_enabled: self.resources_enabled
                || !self.resources.is_empty()
                || !self.templates.is_empty()
                || !self.sources.is_empty(),
            logging_enabled: self.logging_enabled,
            has_completers: AtomicBool::new(false),
            layered: None,
            sources: self.sources,
            limits,
            extensions: self.extensions,
            methods: self.methods,
            tasks,
            tasks_offered,
        };
        inner.add_registered(self.tools, self.prompts, self.resources, self.templates)?;
        inner.events.go_live();
        let layers = self.layers;
        let inner = Arc::new_cyclic(|weak| {
            let mut inner = inner;
            inner.layered = crate::middleware::server_stack(weak.clone(), layers);
            inner
        });
        Ok(Server { inner })
    }

    /// The builder, offering the Tasks extension if a tool needs it.
    fn with_tasks_extension_if_needed(self) -> Self {
        // A task-capable tool makes the server offer the Tasks extension
        // (2026-07-28 only: its results rely on `resultType`).
        let task_tools = self.tools.iter().any(|t| t.task_support != crate::tasks::TaskSupport::Forbidden);
        if task_tools && !self.extensions.iter().any(|e| e.id == crate::tasks::TASKS_EXTENSION) {
            return self.extension_since(
                crate::tasks::TASKS_EXTENSION,
                Value::Object(Default::default()),
                switchboard_types::ProtocolVersion::V2026_07_28,
            );
        }
        self
    }

    /// The server's event bus and task registry: in the state store when
    /// there is one (shared between instances), in memory otherwise.
    fn events_and_tasks(&self) -> (EventBus, Arc<crate::tasks::Tasks>) {
        let events = match &self.state {
            Some(store) => EventBus::shared(
                self.options.event_capacity,
                Arc::clone(store),
                format!("events:{}", self.info.name),
            ),
            None => EventBus::new(self.options.event_capacity),
        };
        let task_store: Arc<dyn crate::store::StateStore> = match &self.state {
            Some(store) => Arc::clone(store),
            None => crate::store::MemoryStore::new(),
        };
        let tasks = Arc::new(crate::tasks::Tasks::new(
            task_store,
            events.clone(),
            self.options.task_ttl,
            self.options.task_poll_interval,
        ));
        (events, tasks)
    }

    /// The key that signs cursors and request states: the configured one,
    /// or a random one for this process.
    fn cursor_key(&self) -> [u8; 32] {
        match self.options.cursor_key {
            Some(key) => key,
            None => {
                let mut key = [0u8; 32];
                getrandom::fill(&mut key).expect("the operating system's random source is available");
                key
            }
        }
    }
}

impl ServerInner {
    /// Registers the builder's tools, prompts, resources and templates.
    fn add_registered(
        &self,
        tools: Vec<Tool>,
        prompts: Vec<Prompt>,
        resources: Vec<Resource>,
        templates: Vec<ResourceTemplate>,
    ) -> Result<()> {
        for tool in tools {
            self.add_tool(tool)?;
        }
        for prompt in prompts {
            self.add_prompt(prompt)?;
        }
        // Resources come in bulk (thousands, for some servers): one snapshot.
        let mut entries = Vec::with_capacity(resources.len());
        for resource in resources {
            let entry = ResourceEntry::prepare(resource)?;
            entries.push((entry.def.uri.clone(), entry));
        }
        if let Err(duplicate) = self.resources.insert_many(entries, false) {
            return Err(Error::DuplicateResource(duplicate.0));
        }
        for template in templates {
            self.add_template(template)?;
        }
        Ok(())
    }
}

impl Server {
    /// Starts building a server that calls itself `name` `version`.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder {
            info: Implementation::new(name, version),
            instructions: None,
            options: ServerOptions::default(),
            tools: Vec::new(),
            prompts: Vec::new(),
            resources: Vec::new(),
            templates: Vec::new(),
            sources: Vec::new(),
            tools_enabled: false,
            prompts_enabled: false,
            resources_enabled: false,
            logging_enabled: false,
            layers: Vec::new(),
            state: None,
            extensions: Vec::new(),
            methods: Vec::new(),
        }
    }

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

    /// Registers a tool at run time. Connected clients are told with
    /// `notifications/tools/list_changed` (legacy clients after their
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
    /// client subscribed to it (legacy `resources/subscribe`, or a 2026-07-28
    /// listen stream naming it) receives `notifications/resources/updated`.
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

    /// Serves one connection until its input ends: reads its requests,
    /// at most [`ServerOptions::max_in_flight`] running at once, and stops
    /// reading while they and as many queued behind them are unanswered
    /// (backpressure; see `transport/connection.rs`).
    pub async fn serve<T: Transport>(&self, transport: T) -> Result<()> {
        crate::transport::serve(self, transport).await
    }

    /// Serves the process's stdin and stdout (newline-delimited JSON).
    pub async fn serve_stdio(&self) -> Result<()> {
        self.serve(crate::transport::stdio(self.inner.options.max_message_size)).await
    }
}
