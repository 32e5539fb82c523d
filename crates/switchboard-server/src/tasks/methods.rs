//! `tasks/get`, `tasks/update`, `tasks/cancel`, `tasks/result` and
//! `tasks/list`: the Tasks extension's shapes for a per-request revision,
//! 2025-11-25's for a handshake-era one, over one store (`crate::tasks`).
//!
//! Each method is its own handler of its own row; which revisions have it
//! is the row's business (`dispatch/rows.rs`), so a handler only picks the
//! wire shape of the request's era. A handler reads its request through
//! [`TaskCaller`] rather than the request context itself, because the
//! context runs tasks (`RequestContext::start_task`) and so sits above
//! this area.
//!
//! Spec: `ext-tasks/specification/draft/tasks.md` (§tasks/get,
//! §tasks/update, §tasks/cancel, §Error Handling: `-32021` without the
//! extension) and `docs/specification/2025-11-25/basic/utilities/tasks.mdx`
//! (`-32601` for a client that did not declare `tasks`, so was not
//! offered them).

use std::sync::Arc;

use serde_json::{Map, Value, json};
use switchboard_types::methods::tasks::{TaskIdParams, UpdateTaskParams};
use switchboard_types::methods::{self as m, EmptyResult, Request};
use switchboard_types::pagination::PaginatedParams;
use switchboard_types::{ClientCapabilities, Era, ErrorObject};

use crate::params::Lazy;
use crate::session::Session;
use crate::task_wire::task_view;
use crate::tasks::{Tasks, declared, extension_required};

/// What the tasks methods read of their request: the era of its revision,
/// what its client declared, and who asks. The request context is one.
pub(crate) trait TaskCaller {
    fn era(&self) -> Era;
    /// The capabilities the client declared (`initialize`, or the request's
    /// `_meta` in a per-request revision).
    fn declared_capabilities(&self) -> &ClientCapabilities;
    /// The subject of the request's principal: tasks are visible to their
    /// owner only.
    fn owner(&self) -> Option<&str>;
}

/// The era whose shapes answer `M`, once the request's client may use
/// tasks in it: `-32601` for a 2025-11-25 client that did not declare the
/// `tasks` capability, `-32021` for a per-request one that did not declare
/// the extension. Checked before the params are read.
fn admitted<M: Request>(caller: &impl TaskCaller) -> Result<Era, ErrorObject> {
    let era = caller.era();
    let capabilities = caller.declared_capabilities();
    match era {
        Era::Handshake if capabilities.tasks.is_none() => Err(ErrorObject::method_not_found(M::FACTS.name)
            .with_data(json!({
                "reason": "tasks are offered to clients that declare the tasks capability in initialize"
            }))),
        Era::PerRequest if !declared(capabilities) => Err(extension_required(M::FACTS.name)),
        _ => Ok(era),
    }
}

/// `tasks/get`: the extension's `DetailedTask`, or 2025-11-25's `Task`.
pub(crate) async fn get(
    tasks: &Tasks,
    _: &Arc<Session>,
    caller: &impl TaskCaller,
    params: Lazy<'_, TaskIdParams>,
) -> Result<Map<String, Value>, ErrorObject> {
    let era = admitted::<m::GetTask>(caller)?;
    let detailed = tasks.get(&params.parse()?.task_id, caller.owner()).await?;
    Ok(match era {
        Era::Handshake => task_view(&detailed),
        Era::PerRequest => detailed,
    })
}

/// `tasks/update` (the extension): stores the answers to questions now
/// outstanding; an empty acknowledgement.
pub(crate) async fn update(
    tasks: &Tasks,
    _: &Arc<Session>,
    caller: &impl TaskCaller,
    params: Lazy<'_, UpdateTaskParams>,
) -> Result<EmptyResult, ErrorObject> {
    admitted::<m::UpdateTask>(caller)?;
    let params = params.parse()?;
    let Some(responses) = params.input_responses else {
        return Err(ErrorObject::invalid_params("tasks/update needs inputResponses (an object)"));
    };
    tasks.answer(&params.task_id, caller.owner(), responses).await?;
    Ok(Map::new())
}

/// `tasks/cancel`: the extension asks the task to stop and acknowledges
/// with an empty result; 2025-11-25 settles it as `cancelled` at once and
/// answers its `Task` (a terminal task is `-32602`).
pub(crate) async fn cancel(
    tasks: &Tasks,
    _: &Arc<Session>,
    caller: &impl TaskCaller,
    params: Lazy<'_, TaskIdParams>,
) -> Result<Map<String, Value>, ErrorObject> {
    let era = admitted::<m::CancelTask>(caller)?;
    let id = params.parse()?.task_id;
    match era {
        Era::Handshake => tasks.cancel_now(&id, caller.owner()).await,
        Era::PerRequest => tasks.cancel(&id, caller.owner()).await.map(|()| Map::new()),
    }
}

/// `tasks/result` (2025-11-25): blocks until the task is terminal, then
/// its tool result or the error it failed with.
pub(crate) async fn result(
    tasks: &Tasks,
    _: &Arc<Session>,
    caller: &impl TaskCaller,
    params: Lazy<'_, TaskIdParams>,
) -> Result<Map<String, Value>, ErrorObject> {
    admitted::<m::TaskResult>(caller)?;
    tasks.result(&params.parse()?.task_id, caller.owner()).await
}

/// `tasks/list` (2025-11-25): the caller's tasks, `page_size` at a time.
pub(crate) async fn list(
    (tasks, page_size): (&Tasks, usize),
    session: &Arc<Session>,
    caller: &impl TaskCaller,
    params: Lazy<'_, PaginatedParams>,
) -> Result<Map<String, Value>, ErrorObject> {
    admitted::<m::ListTasks>(caller)?;
    let cursor = params.parse()?.cursor;
    tasks.list(caller.owner(), session, cursor.as_deref(), page_size).await
}
