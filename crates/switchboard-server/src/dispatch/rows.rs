//! The core's request methods as rows of the method registry: for each,
//! what the server must offer, which revisions have it, how its results may
//! be cached, how it is admitted, and the handler that answers it.
//!
//! Why a table: this is the one place that says which core methods exist
//! and what answers them. The builder registers these rows first, through
//! the same [`Registry::register`] as the application's methods, so an
//! application cannot take a core name, and the dispatcher, the middleware,
//! the request span and the cache hints read the row instead of matching
//! on names. Adding a core method is a [`MethodFacts`] row and a marker in
//! `switchboard-types`, a [`CoreMethod`] line and a row here, and a handler
//! in its area; `every_core_method_but_initialize_has_a_row` fails until
//! all exist.
//!
//! Why typed: a row names its method's marker once, and the compiler
//! checks the handler against it, as async-lsp's `Router::request::<R>`
//! does. The handler takes the marker's [`CoreMethod::View`] (parsed
//! before it runs, borrowed from the request where the type borrows, or
//! [`Lazy`]) and answers its [`CoreMethod::Answer`]; any error type that
//! converts into an [`ErrorObject`] is the JSON-RPC error. One generic
//! adapter, [`typed`], does the parsing and converting for every row.
//!
//! Why the row hands each handler its parts: a handler lives in its area's
//! folder (`tools/methods.rs`), and [`Core`] is composed of the areas, so a
//! handler that took `&Core` would import the module that imports it. The
//! row sits above both and projects the core into what the handler reads,
//! `|core| (&core.tools, &core.shared, &core.tasks)` for `tools/call`: its
//! area, the shared part and a lower area it needs. The projection is
//! references only, written inside the row's plain `fn`, so it boxes,
//! clones and counts nothing. Traits that each area defines and `Core`
//! implements would do the same with a trait per area and generic
//! handlers; the projection keeps what a handler reads in sight at its row.
//! `server/discover` describes the whole server, so its row hands it the
//! whole core.
//!
//! [`MethodFacts`]: switchboard_types::methods::MethodFacts

use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use switchboard_types::ErrorObject;
use switchboard_types::completion::CompleteParams;
use switchboard_types::logging::SetLevelParams;
use switchboard_types::methods::tasks::{TaskIdParams, UpdateTaskParams};
use switchboard_types::methods::{self as m, EmptyResult, Request};
use switchboard_types::notifications::EmptyParams;
use switchboard_types::pagination::PaginatedParams;
use switchboard_types::prompts::GetPromptParams;
use switchboard_types::resources::UriParams;
use switchboard_types::subscriptions::ListenParams;

use crate::context::RequestContext;
use crate::core::{Core, CoreHandler, Handler};
use crate::lifecycle::listen;
use crate::lifecycle::methods as lifecycle;
use crate::methods::Method;
use crate::output::Output;
use crate::params::{FromParams, Lazy};
use crate::prompts::methods as prompts;
use crate::registry::{Admission, CacheClass, Entry, Needs, Registry, Revisions, ScopedBy, Served};
use crate::resources::methods::{self as resources, ResourcesCore};
use crate::session::Session;
use crate::tasks::methods as tasks;
use crate::tools::methods as tools;

/// How the core's handler of a method reads its params and what it
/// answers: the server's side of the method's marker ([`Request`], whose
/// `Params` and `Result` are the wire types a client sends and reads).
pub(crate) trait CoreMethod: Request {
    /// The params as its handler takes them (`Request::Params` is what a
    /// client sends; this may borrow from it, or skip what the handler
    /// does not read).
    type View<'a>: FromParams<'a> + Send;
    /// What its handler answers: a result map the dispatcher may still
    /// decorate, or an [`Output`] (a list page written from cached JSON,
    /// a `tools/call` result that may be a task or ask for input).
    type Answer: Into<Output>;
}

/// `marker: params => answer;`, one [`CoreMethod`] each.
macro_rules! core_methods {
    ($($marker:ty: $params:ty => $answer:ty;)*) => {
        $(impl CoreMethod for $marker {
            type View<'a> = $params;
            type Answer = $answer;
        })*
    };
}

core_methods! {
    m::Ping: Lazy<'a, EmptyParams> => EmptyResult;
    m::Discover: Lazy<'a, EmptyParams> => Map<String, Value>;
    m::ListTools: PaginatedParams => Output;
    m::CallTool: tools::CallParams<'a> => Output;
    m::ListResources: PaginatedParams => Output;
    m::ListResourceTemplates: PaginatedParams => Output;
    m::ReadResource: UriParams => Map<String, Value>;
    m::Subscribe: UriParams => EmptyResult;
    m::Unsubscribe: UriParams => EmptyResult;
    m::ListPrompts: PaginatedParams => Output;
    m::GetPrompt: GetPromptParams => Map<String, Value>;
    m::Complete: CompleteParams => Map<String, Value>;
    m::Listen: Lazy<'a, ListenParams> => Map<String, Value>;
    m::SetLevel: SetLevelParams => EmptyResult;
    m::GetTask: Lazy<'a, TaskIdParams> => Map<String, Value>;
    m::UpdateTask: Lazy<'a, UpdateTaskParams> => EmptyResult;
    m::CancelTask: Lazy<'a, TaskIdParams> => Map<String, Value>;
    m::TaskResult: Lazy<'a, TaskIdParams> => Map<String, Value>;
    m::ListTasks: Lazy<'a, PaginatedParams> => Map<String, Value>;
}

/// The adapter of every core row: parses `M`'s params, runs `handler` on
/// the `parts` of the core its row hands it, and turns its answer into an
/// [`Output`] and its error into an [`ErrorObject`]. Monomorphised per row;
/// the one box is the future the registry's `fn` type returns, as before
/// typing. `parts` are references into the core (or a copy of a flag), so
/// handing them over clones nothing.
fn typed<'a, M, P, H, Fut, E>(
    parts: P,
    session: &'a Arc<Session>,
    ctx: &'a RequestContext,
    raw: Option<&'a RawValue>,
    handler: H,
) -> BoxFuture<'a, Result<Output, ErrorObject>>
where
    M: CoreMethod,
    P: Send + 'a,
    H: FnOnce(P, &'a Arc<Session>, &'a RequestContext, M::View<'a>) -> Fut + Send + 'a,
    Fut: Future<Output = Result<M::Answer, E>> + Send + 'a,
    E: Into<ErrorObject>,
{
    Box::pin(async move {
        let params = M::View::from_params(raw)?;
        match handler(parts, session, ctx, params).await {
            Ok(answer) => Ok(answer.into()),
            Err(error) => Err(error.into()),
        }
    })
}

/// `row!(Marker, needs, revisions, |core| parts, handler)` (or a function
/// `parts_of(core)` in place of the closure): the row of core
/// method `Marker`, answered by `handler` through [`typed`] with the `parts`
/// of the core it reads (its area, the shared part, a lower area it needs).
/// A macro because a registry row holds one plain `fn` type for all
/// methods: the closure it writes names the handler and the parts instead
/// of capturing them, so it is such a `fn`, and it names the marker once
/// for both the row and the adapter.
macro_rules! row {
    ($marker:ty, $needs:expr, $revisions:expr, |$core:ident| $parts:expr, $handler:path) => {
        entry::<$marker>($needs, $revisions, |$core, session, ctx, params| {
            typed::<$marker, _, _, _, _>($parts, session, ctx, params, $handler)
        })
    };
    ($marker:ty, $needs:expr, $revisions:expr, $parts_of:path, $handler:path) => {
        row!($marker, $needs, $revisions, |core| $parts_of(core), $handler)
    };
}

/// The registry of a server: the core's methods, then `application`'s.
/// A bad or reused name fails with [`crate::Error::InvalidMethod`].
pub(crate) fn registry(application: Vec<Method>) -> crate::Result<Registry<Handler>> {
    let mut registry = Registry::default();
    for entry in core_rows() {
        registry.register(entry).expect("the core registers each method once; qed");
    }
    for method in application {
        method.check()?;
        let entry = Entry {
            facts: method.facts,
            served: Served::Since(method.since),
            cache: method.cacheable.then_some(CacheClass::List),
            admission: Admission::Run,
            scoped_by: None,
            name: method.name.into(),
            handler: Handler::App(method.handler),
        };
        registry.register(entry).map_err(|duplicate| crate::Error::InvalidMethod {
            name: duplicate.0,
            reason: "the method is registered twice",
        })?;
    }
    Ok(registry)
}

/// The part of the core every resources method reads.
fn resources_of(core: &Core) -> ResourcesCore<'_> {
    core.resources.with_shared(&core.shared)
}

/// One core row: method `M` with its facts, answered by `handler` (see
/// [`row!`]).
fn entry<M: Request>(needs: Needs, revisions: Revisions, handler: CoreHandler) -> Entry<Handler> {
    Entry {
        name: M::FACTS.name.into(),
        facts: Some(M::FACTS),
        served: Served::Core(needs, revisions),
        cache: None,
        admission: Admission::Run,
        scoped_by: None,
        handler: Handler::Core(handler),
    }
}

impl Entry<Handler> {
    fn cached(mut self, class: CacheClass) -> Self {
        self.cache = Some(class);
        self
    }

    fn admitted(mut self, admission: Admission) -> Self {
        self.admission = admission;
        self
    }

    fn scoped_by(mut self, item: ScopedBy) -> Self {
        self.scoped_by = Some(item);
        self
    }
}

/// Every core method but `initialize` (the handshake itself, answered by
/// the lifecycle before routing).
fn core_rows() -> Vec<Entry<Handler>> {
    use CacheClass::{Discovery, List, Read};
    use Needs::*;
    use Revisions::{Added, AddedOrPerRequest, Base, PerRequest};
    vec![
        row!(m::Ping, Nothing, Base, |_core| (), lifecycle::ping).admitted(Admission::AnswerEmpty),
        row!(m::Discover, Nothing, Added, |core| core, lifecycle::discover).cached(Discovery),
        row!(m::ListTools, Tools, Base, |core| (&core.tools, &core.shared), tools::list_tools).cached(List),
        row!(m::CallTool, Tools, Base, |core| (&core.tools, &core.shared, &core.tasks), tools::call_tool)
            .admitted(Admission::RateLimited)
            .scoped_by(ScopedBy::Tool),
        row!(m::ListResources, Resources, Base, resources_of, resources::list_resources).cached(List),
        row!(m::ListResourceTemplates, Resources, Base, resources_of, resources::list_resource_templates)
            .cached(List),
        row!(m::ReadResource, Resources, Base, resources_of, resources::read_resource)
            .cached(Read)
            .scoped_by(ScopedBy::Resource),
        row!(m::Subscribe, Resources, Base, resources_of, resources::subscribe).scoped_by(ScopedBy::Resource),
        row!(m::Unsubscribe, Resources, Base, resources_of, resources::unsubscribe),
        row!(m::ListPrompts, Prompts, Base, |core| (&core.prompts, &core.shared), prompts::list_prompts)
            .cached(List),
        row!(m::GetPrompt, Prompts, Base, |core| &core.prompts, prompts::get_prompt)
            .scoped_by(ScopedBy::Prompt),
        row!(m::Complete, Completions, Base, |core| (&core.prompts, &core.resources), prompts::complete),
        row!(m::Listen, Nothing, Added, |core| (core.announced(), &*core.tasks), listen::listen),
        row!(m::SetLevel, Logging, Base, |_core| (), lifecycle::set_level),
        // 2025-11-25 adds tasks/get, /cancel, /result and /list; the Tasks
        // extension defines get, update and cancel for per-request revisions.
        row!(m::GetTask, Tasks, AddedOrPerRequest, |core| &*core.tasks, tasks::get),
        row!(m::UpdateTask, Tasks, PerRequest, |core| &*core.tasks, tasks::update),
        row!(m::CancelTask, Tasks, AddedOrPerRequest, |core| &*core.tasks, tasks::cancel),
        row!(m::TaskResult, Tasks, Added, |core| &*core.tasks, tasks::result),
        row!(m::ListTasks, Tasks, Added, |core| (&*core.tasks, core.shared.options.page_size), tasks::list),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_core_method_but_initialize_has_a_row() {
        let registry = registry(Vec::new()).expect("the core rows register");
        let mut rows: Vec<&str> = registry.entries().map(|entry| &*entry.name).collect();
        let mut built_in: Vec<&str> =
            m::BUILT_IN.iter().map(|facts| facts.name).filter(|name| *name != "initialize").collect();
        rows.sort_unstable();
        built_in.sort_unstable();
        assert_eq!(rows, built_in);
    }

    #[test]
    fn an_application_cannot_take_a_core_name_or_one_twice() {
        let method = |name: &str| {
            Method::new(name, |_params: serde_json::Value, _ctx: RequestContext| async { Ok(Map::new()) })
        };
        assert!(registry(vec![method("tools/call")]).is_err());
        assert!(registry(vec![method("x/y"), method("x/y")]).is_err());
        let registry = registry(vec![method("x/y")]).expect("a new name registers");
        assert!(registry.entries().any(|entry| &*entry.name == "x/y"));
    }
}
