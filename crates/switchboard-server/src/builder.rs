//! Building a server: [`ServerBuilder`] collects tools, prompts, resources,
//! options, layers and extensions, and [`ServerBuilder::build`] checks
//! them and assembles the [`Server`](crate::Server).

use std::sync::Arc;

use serde_json::Value;
use switchboard_types::Implementation;
use switchboard_types::content::Icon;

use crate::catalog::{Catalog, CursorCodec};
use crate::completion::CompleterFlag;
use crate::core::Core;
use crate::dispatch::layers::RequestStack;
use crate::error::{Error, Result};
use crate::extensions::OfferedExtension;
use crate::options::ServerOptions;
use crate::prompts::Prompt;
use crate::prompts::area::Prompts;
use crate::resources::area::Resources;
use crate::resources::entry::ResourceEntry;
use crate::resources::source::ResourceSource;
use crate::resources::{Resource, ResourceTemplate};
use crate::session::events::{EventBus, ListKind};
use crate::shared::Shared;
use crate::tools::Tool;
use crate::tools::area::Tools;

/// Builds a [`Server`](crate::Server).
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
    layers: Vec<crate::dispatch::layers::PendingServerLayer>,
    state: Option<Arc<dyn crate::store::StateStore>>,
    extensions: Vec<OfferedExtension>,
    methods: Vec<crate::methods::Method>,
    notification_hook: Option<crate::session::NotificationHook>,
}

impl ServerBuilder {
    /// Calls `hook` with every notification a client sends (its session and
    /// method), after the core handled it: `notifications/initialized` once
    /// the session is ready, and the ones the core ignores, such as
    /// `notifications/roots/list_changed`. It runs on the connection's
    /// reading path, so it must return at once (spawn the work). An
    /// application that follows the client's roots asks for them from here
    /// with [`Session::request_client_now`](crate::Session::request_client_now).
    pub fn on_client_notification(
        mut self,
        hook: impl Fn(&Arc<crate::Session>, &str) + Send + Sync + 'static,
    ) -> Self {
        self.notification_hook = Some(crate::session::NotificationHook(Arc::new(hook)));
        self
    }

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
        L: tower::Layer<crate::dispatch::layers::RequestStack> + Send + Sync + 'static,
        L::Service: tower::Service<crate::dispatch::layers::Request, Response = crate::dispatch::layers::Response>
            + Clone
            + Send
            + Sync
            + 'static,
        <L::Service as tower::Service<crate::dispatch::layers::Request>>::Error:
            Into<crate::tools::layer::BoxError>,
        <L::Service as tower::Service<crate::dispatch::layers::Request>>::Future: Send + 'static,
    {
        self.layers.push(crate::dispatch::layers::pending_server_layer(layer));
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

    /// Offers the MCP Apps extension (`io.modelcontextprotocol/ui`, settings
    /// `{}`) even with no view registered yet, for servers that add views
    /// at run time (a folder of views, live reload). Registering a view
    /// ([`Resource::ui`](crate::Resource::ui)) or a tool linked to one on
    /// the builder offers it without this call.
    pub fn enable_apps(self) -> Self {
        if self.extensions.iter().any(|e| e.id == switchboard_types::apps::EXTENSION) {
            return self;
        }
        self.extension(switchboard_types::apps::EXTENSION, Value::Object(Default::default()))
    }

    /// Offers extension `id` (SEP-2133) with `settings`, a JSON object whose
    /// schema the extension defines (`{}` for none): the server advertises
    /// it in `capabilities.extensions` of its `initialize` result (every
    /// handshake-era revision) and of its `server/discover` result (2026-07-28).
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

    /// Checks what was collected and assembles the server's core and its
    /// middleware stack ([`ServerBuilder::build`](crate::ServerBuilder::build)
    /// wraps them).
    pub(crate) fn assemble(mut self) -> Result<(Arc<Core>, Option<Arc<RequestStack>>)> {
        self = self.with_tasks_extension_if_needed().with_ui_extension_if_needed();
        crate::tools::view_links::check_links(&self.tools, &self.resources, &self.templates, &self.sources)?;
        let tasks_offered = self.extensions.iter().any(|e| e.id == crate::tasks::TASKS_EXTENSION);
        OfferedExtension::check_all(&self.extensions)?;
        let methods = crate::dispatch::rows::registry(std::mem::take(&mut self.methods))?;
        let (events, tasks) = self.events_and_tasks(tasks_offered);
        let key = self.cursor_key();
        let per_request_info = serde_json::to_value(&self.info).expect("Implementation serializes; qed");
        let limits = crate::session::limits::Limiters::new(
            self.options.tool_rate_per_caller,
            self.options.tool_rate_global,
        );
        let core = Core {
            tools: Tools {
                catalog: Catalog::new(ListKind::Tools, events.clone()),
                enabled: self.tools_enabled || !self.tools.is_empty(),
                limits,
            },
            prompts: Prompts {
                catalog: Catalog::new(ListKind::Prompts, events.clone()),
                enabled: self.prompts_enabled || !self.prompts.is_empty(),
                completers: CompleterFlag::default(),
            },
            resources: Resources {
                catalog: Catalog::new(ListKind::Resources, events.clone()),
                templates: Catalog::new(ListKind::ResourceTemplates, events.clone()),
                enabled: self.resources_enabled
                    || !self.resources.is_empty()
                    || !self.templates.is_empty()
                    || !self.sources.is_empty(),
                sources: self.sources,
                completers: CompleterFlag::default(),
            },
            shared: Shared {
                info: self.info,
                per_request_info,
                instructions: self.instructions,
                cursors: arc_swap::ArcSwap::from_pointee(CursorCodec::new(key)),
                request_states: arc_swap::ArcSwap::from_pointee(crate::input::StateCodec::new(key)),
                events,
                options: self.options,
            },
            logging_enabled: self.logging_enabled,
            extensions: self.extensions,
            methods,
            tasks,
            notification_hook: self.notification_hook,
        };
        core.add_registered(self.tools, self.prompts, self.resources, self.templates)?;
        core.shared.events.go_live();
        let core = Arc::new(core);
        let layered = crate::dispatch::layers::server_stack(Arc::clone(&core), self.layers).map(Arc::new);
        Ok((core, layered))
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

    /// The builder, offering the MCP Apps extension (`io.modelcontextprotocol/ui`,
    /// settings `{}`, every revision) when a view or a tool linked to one
    /// is registered and the extension is not offered already.
    fn with_ui_extension_if_needed(self) -> Self {
        if crate::tools::view_links::uses_apps(&self.tools, &self.resources, &self.templates) {
            return self.enable_apps();
        }
        self
    }

    /// The server's event bus and task registry: in the state store when
    /// there is one (shared between instances), in memory otherwise.
    fn events_and_tasks(&self, tasks_offered: bool) -> (EventBus, Arc<crate::tasks::Tasks>) {
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
            tasks_offered,
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

impl Core {
    /// Registers the builder's tools, prompts, resources and templates.
    fn add_registered(
        &self,
        tools: Vec<Tool>,
        prompts: Vec<Prompt>,
        resources: Vec<Resource>,
        templates: Vec<ResourceTemplate>,
    ) -> Result<()> {
        for tool in tools {
            self.tools.add(tool)?;
        }
        for prompt in prompts {
            self.prompts.add(prompt)?;
        }
        // Resources come in bulk (thousands, for some servers): one snapshot.
        let mut entries = Vec::with_capacity(resources.len());
        for resource in resources {
            let entry = ResourceEntry::prepare(resource)?;
            entries.push((entry.def.uri.clone(), entry));
        }
        if let Err(duplicate) = self.resources.catalog.insert_many(entries, false) {
            return Err(Error::DuplicateResource(duplicate.0));
        }
        for template in templates {
            self.resources.add_template(template)?;
        }
        Ok(())
    }
}

impl ServerBuilder {
    /// An empty builder of a server that calls itself `name` `version`
    /// ([`Server::builder`](crate::Server::builder)).
    pub(crate) fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
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
            notification_hook: None,
        }
    }
}
