//! The core's request methods as rows of the method registry: for each,
//! what the server must offer, which revisions have it, how its results may
//! be cached, how it is admitted, and the handler that answers it.
//!
//! Why a table: this is the one place that says which core methods exist
//! and what answers them. The builder registers these rows first, through
//! the same [`Registry::register`] as the application's methods, so an
//! application cannot take a core name, and the dispatcher, the middleware,
//! the request span and the cache hints read the row instead of matching
//! on names. Adding a core method is a [`MethodFacts`] row in
//! `switchboard-types`, a handler in its primitive's `dispatch/*.rs` and a
//! row here; `every_core_method_but_initialize_has_a_row` fails until all
//! three exist.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::Map;
use serde_json::value::RawValue;
use switchboard_types::methods::{self as m, Request};
use switchboard_types::{Era, ErrorObject};

use crate::context::RequestContext;
use crate::core::{Core, CoreHandler, Handler};
use crate::methods::Method;
use crate::output::Output;
use crate::params::parse_params;
use crate::registry::{Admission, CacheClass, Entry, Needs, Registry, Revisions, ScopedBy, Served};
use crate::session::Session;

/// A core handler's raw params.
type Params<'a> = Option<&'a RawValue>;

/// What a core handler returns.
type Answer<'a> = BoxFuture<'a, Result<Output, ErrorObject>>;

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

/// One core row: method `M` with its facts.
fn row<M: Request>(needs: Needs, revisions: Revisions, handler: CoreHandler) -> Entry<Handler> {
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
        row::<m::Ping>(Nothing, Base, ping).admitted(Admission::AnswerEmpty),
        row::<m::Discover>(Nothing, Added, discover).cached(Discovery),
        row::<m::ListTools>(Tools, Base, list_tools).cached(List),
        row::<m::CallTool>(Tools, Base, call_tool).admitted(Admission::RateLimited).scoped_by(ScopedBy::Tool),
        row::<m::ListResources>(Resources, Base, list_resources).cached(List),
        row::<m::ListResourceTemplates>(Resources, Base, list_templates).cached(List),
        row::<m::ReadResource>(Resources, Base, read_resource).cached(Read).scoped_by(ScopedBy::Resource),
        row::<m::Subscribe>(Resources, Base, subscribe).scoped_by(ScopedBy::Resource),
        row::<m::Unsubscribe>(Resources, Base, unsubscribe),
        row::<m::ListPrompts>(Prompts, Base, list_prompts).cached(List),
        row::<m::GetPrompt>(Prompts, Base, get_prompt).scoped_by(ScopedBy::Prompt),
        row::<m::Complete>(Completions, Base, complete),
        row::<m::Listen>(Nothing, Added, listen),
        row::<m::SetLevel>(Logging, Base, set_level),
        // 2025-11-25 adds tasks/get, /cancel, /result and /list; the Tasks
        // extension defines get, update and cancel for per-request revisions.
        row::<m::GetTask>(Tasks, AddedOrPerRequest, get_task),
        row::<m::UpdateTask>(Tasks, PerRequest, update_task),
        row::<m::CancelTask>(Tasks, AddedOrPerRequest, cancel_task),
        row::<m::TaskResult>(Tasks, Added, task_result),
        row::<m::ListTasks>(Tasks, Added, list_tasks),
    ]
}

// Each handler adapts `&Core` to its method's function in the method's
// module; boxed because a registry row holds one `fn` type for all.

fn ping<'a>(_: &'a Core, _: &'a Arc<Session>, _: &'a RequestContext, _: Params<'a>) -> Answer<'a> {
    Box::pin(async { Ok(Output::Map(Map::new())) })
}

fn discover<'a>(core: &'a Core, _: &'a Arc<Session>, _: &'a RequestContext, _: Params<'a>) -> Answer<'a> {
    Box::pin(async move { core.discover().map(Output::Map) })
}

fn list_tools<'a>(
    core: &'a Core,
    _: &'a Arc<Session>,
    ctx: &'a RequestContext,
    params: Params<'a>,
) -> Answer<'a> {
    Box::pin(async move { crate::dispatch::tools::list_tools(core, ctx, params) })
}

fn call_tool<'a>(
    core: &'a Core,
    _: &'a Arc<Session>,
    ctx: &'a RequestContext,
    params: Params<'a>,
) -> Answer<'a> {
    Box::pin(crate::dispatch::tools::call_tool(core, ctx, params))
}

fn list_resources<'a>(
    core: &'a Core,
    _: &'a Arc<Session>,
    ctx: &'a RequestContext,
    params: Params<'a>,
) -> Answer<'a> {
    Box::pin(async move { crate::dispatch::resources::list_resources(core, ctx, params) })
}

fn list_templates<'a>(
    core: &'a Core,
    _: &'a Arc<Session>,
    ctx: &'a RequestContext,
    params: Params<'a>,
) -> Answer<'a> {
    Box::pin(async move { crate::dispatch::resources::list_resource_templates(core, ctx, params) })
}

fn read_resource<'a>(
    core: &'a Core,
    _: &'a Arc<Session>,
    ctx: &'a RequestContext,
    params: Params<'a>,
) -> Answer<'a> {
    Box::pin(
        async move { crate::dispatch::resources::read_resource(core, ctx, params).await.map(Output::Map) },
    )
}

fn subscribe<'a>(
    core: &'a Core,
    session: &'a Arc<Session>,
    ctx: &'a RequestContext,
    params: Params<'a>,
) -> Answer<'a> {
    Box::pin(async move {
        crate::dispatch::resources::subscribe(core, session, ctx, params, true).map(Output::Map)
    })
}

fn unsubscribe<'a>(
    core: &'a Core,
    session: &'a Arc<Session>,
    ctx: &'a RequestContext,
    params: Params<'a>,
) -> Answer<'a> {
    Box::pin(async move {
        crate::dispatch::resources::subscribe(core, session, ctx, params, false).map(Output::Map)
    })
}

fn list_prompts<'a>(
    core: &'a Core,
    _: &'a Arc<Session>,
    ctx: &'a RequestContext,
    params: Params<'a>,
) -> Answer<'a> {
    Box::pin(async move { crate::dispatch::prompts::list_prompts(core, ctx, params) })
}

fn get_prompt<'a>(
    core: &'a Core,
    _: &'a Arc<Session>,
    ctx: &'a RequestContext,
    params: Params<'a>,
) -> Answer<'a> {
    Box::pin(async move { crate::dispatch::prompts::get_prompt(core, ctx, params).await.map(Output::Map) })
}

fn complete<'a>(
    core: &'a Core,
    _: &'a Arc<Session>,
    ctx: &'a RequestContext,
    params: Params<'a>,
) -> Answer<'a> {
    Box::pin(async move { crate::dispatch::prompts::complete(core, ctx, params).await.map(Output::Map) })
}

fn listen<'a>(
    core: &'a Core,
    session: &'a Arc<Session>,
    ctx: &'a RequestContext,
    params: Params<'a>,
) -> Answer<'a> {
    Box::pin(
        async move { crate::dispatch::listen::listen(core, session, ctx, params).await.map(Output::Map) },
    )
}

fn set_level<'a>(
    _: &'a Core,
    session: &'a Arc<Session>,
    _: &'a RequestContext,
    params: Params<'a>,
) -> Answer<'a> {
    Box::pin(async move {
        let p: switchboard_types::logging::SetLevelParams = parse_params(params)?;
        session.set_log_level(p.level);
        Ok(Output::Map(Map::new()))
    })
}

fn get_task<'a>(
    core: &'a Core,
    session: &'a Arc<Session>,
    ctx: &'a RequestContext,
    params: Params<'a>,
) -> Answer<'a> {
    Box::pin(task_method(core, "tasks/get", session, ctx, params))
}

fn update_task<'a>(
    core: &'a Core,
    session: &'a Arc<Session>,
    ctx: &'a RequestContext,
    params: Params<'a>,
) -> Answer<'a> {
    Box::pin(task_method(core, "tasks/update", session, ctx, params))
}

fn cancel_task<'a>(
    core: &'a Core,
    session: &'a Arc<Session>,
    ctx: &'a RequestContext,
    params: Params<'a>,
) -> Answer<'a> {
    Box::pin(task_method(core, "tasks/cancel", session, ctx, params))
}

fn task_result<'a>(
    core: &'a Core,
    session: &'a Arc<Session>,
    ctx: &'a RequestContext,
    params: Params<'a>,
) -> Answer<'a> {
    Box::pin(task_method(core, "tasks/result", session, ctx, params))
}

fn list_tasks<'a>(
    core: &'a Core,
    session: &'a Arc<Session>,
    ctx: &'a RequestContext,
    params: Params<'a>,
) -> Answer<'a> {
    Box::pin(task_method(core, "tasks/list", session, ctx, params))
}

/// A `tasks/*` method: the 2025-11-25 wire shapes for a handshake-era
/// request, the Tasks extension's for a per-request one, over one store.
async fn task_method(
    core: &Core,
    method: &str,
    session: &Session,
    ctx: &RequestContext,
    params: Option<&RawValue>,
) -> Result<Output, ErrorObject> {
    let tasks = &core.tasks;
    let caller = crate::tasks::TaskCaller {
        capabilities: ctx.client_capabilities(),
        principal: ctx.principal().map(|p| p.subject.as_str()),
    };
    let result = match ctx.protocol_version().era() {
        Era::Handshake => {
            let page = core.options.page_size;
            crate::tasks::v2025_11_25::serve(tasks, method, &caller, session, params, page).await
        }
        Era::PerRequest => crate::tasks::serve(tasks, method, &caller, params).await,
    };
    result.map(Output::Map)
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
