//! The server's state, composed: identity, options, event bus, cursor and
//! request-state codecs, the catalogs of tools, prompts and resources, the
//! task registry, limits and the method registry. Request handlers read it
//! through `&Core`; [`Server`](crate::Server) holds it behind an `Arc` with
//! the server's middleware stack.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use futures::future::BoxFuture;
use serde_json::Value;
use serde_json::value::RawValue;
use switchboard_types::{ErrorObject, Implementation};

use crate::catalog::{Catalog, CursorCodec};
use crate::context::RequestContext;
use crate::error::{Error, Result};
use crate::extensions::OfferedExtension;
use crate::methods::MethodHandler;
use crate::options::ServerOptions;
use crate::output::Output;
use crate::prompts::Prompt;
use crate::prompts::entry::PromptEntry;
use crate::registry::{Needs, Registry};
use crate::resources::entry::{ResourceEntry, TemplateEntry};
use crate::resources::source::ResourceSource;
use crate::resources::{Resource, ResourceTemplate};
use crate::session::events::EventBus;
use crate::session::{Announced, Session};
use crate::tools::Tool;
use crate::tools::entry::ToolEntry;

pub(crate) struct Core {
    pub info: Implementation,
    /// `info` pre-rendered for 2026-07-28 results' `_meta`.
    pub per_request_info: Value,
    pub instructions: Option<String>,
    pub options: ServerOptions,
    pub events: EventBus,
    /// Swappable: an instance started during a state-store outage adopts
    /// the shared key once the store answers ([`Server::set_cursor_key`](crate::Server::set_cursor_key)).
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
    pub limits: crate::session::limits::Limiters,
    /// Resources listed and read on demand, after the registered ones.
    pub sources: Vec<Arc<dyn ResourceSource>>,
    /// Some prompt or template has a completer (so `completions` is offered).
    pub has_completers: AtomicBool,
    /// Extensions offered in the capabilities (SEP-2133), checked, in the
    /// order added.
    pub extensions: Vec<OfferedExtension>,
    /// The Tasks extension's store and runner.
    pub tasks: Arc<crate::tasks::Tasks>,
    /// Whether the Tasks extension is offered (so `tasks/*` exist).
    pub tasks_offered: bool,
    /// Every method the server answers: the core's and the application's
    /// ([`ServerBuilder::method`](crate::ServerBuilder::method)), one row each.
    pub methods: Registry<Handler>,
    /// Told of every client notification after the core handled it
    /// ([`ServerBuilder::on_client_notification`](crate::ServerBuilder::on_client_notification)).
    pub notification_hook: Option<crate::session::NotificationHook>,
}

/// A core method's row handler: the server's state, the request's session,
/// context and raw params in, the method's output out. Each is the one
/// generic adapter of `dispatch/rows.rs` (`typed`) for its method, which
/// parses the params its marker's handler takes and converts its answer
/// and error; a plain `fn`, so a row holds no boxed closure.
pub(crate) type CoreHandler = for<'a> fn(
    &'a Core,
    &'a Arc<Session>,
    &'a RequestContext,
    Option<&'a RawValue>,
) -> BoxFuture<'a, std::result::Result<Output, ErrorObject>>;

/// What answers a method of the [`Registry`].
pub(crate) enum Handler {
    /// A core method (`dispatch/rows.rs`).
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

impl Core {
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
