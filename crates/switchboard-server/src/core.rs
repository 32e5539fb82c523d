//! The server's state: the states the areas own (tools, prompts, resources,
//! the task registry), what several of them read ([`Shared`]), the offered
//! extensions and the method registry. A core method's handler
//! reads only the parts its row hands it (`dispatch/rows.rs`), never all of
//! `Core`; [`Server`](crate::Server) holds it behind an `Arc` with the
//! server's middleware stack.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::value::RawValue;
use switchboard_types::ErrorObject;

use crate::context::RequestContext;
use crate::extensions::OfferedExtension;
use crate::methods::MethodHandler;
use crate::output::Output;
use crate::prompts::area::Prompts;
use crate::registry::{Needs, Registry};
use crate::resources::area::Resources;
use crate::session::{Announced, Session};
use crate::shared::Shared;
use crate::tools::area::Tools;

pub(crate) struct Core {
    /// What the handlers of several areas read.
    pub shared: Shared,
    pub tools: Tools,
    pub prompts: Prompts,
    pub resources: Resources,
    /// The Tasks extension's store and runner.
    pub tasks: Arc<crate::tasks::Tasks>,
    pub logging_enabled: bool,
    /// Extensions offered in the capabilities (SEP-2133), checked, in the
    /// order added.
    pub extensions: Vec<OfferedExtension>,
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
/// hands its handler the parts of the core it reads, parses the params the
/// handler takes and converts its answer and error; a plain `fn`, so a row
/// holds no boxed closure.
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
            tools: self.tools.enabled,
            prompts: self.prompts.enabled,
            resources: self.resources.enabled,
            logging: self.logging_enabled,
            default_log_level: self.shared.options.default_log_level,
        }
    }

    pub(crate) fn completions_enabled(&self) -> bool {
        self.prompts.completers.is_set() || self.resources.completers.is_set()
    }

    /// Whether the server offers what a core method `needs`.
    pub(crate) fn offers(&self, needs: Needs) -> bool {
        match needs {
            Needs::Nothing => true,
            Needs::Tools => self.tools.enabled,
            Needs::Resources => self.resources.enabled,
            Needs::Prompts => self.prompts.enabled,
            Needs::Completions => self.completions_enabled(),
            Needs::Logging => self.logging_enabled,
            Needs::Tasks => self.tasks.offered(),
        }
    }
}
