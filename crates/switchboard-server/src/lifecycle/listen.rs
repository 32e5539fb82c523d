//! `subscriptions/listen` (2026-07-28): an opt-in notification stream.
//!
//! Spec: `docs/specification/2026-07-28/basic/patterns/subscriptions.mdx`.
//! The request stays open. Its first message is
//! `notifications/subscriptions/acknowledged` with the accepted subset of the
//! filter (types the server does not offer are left out); after that, only
//! the notifications the filter asked for follow, each tagged with
//! `_meta["io.modelcontextprotocol/subscriptionId"]` = the listen request's
//! id. The client ends it with `notifications/cancelled` (stdio), after which
//! nothing more is sent for it; when the server closes the connection it
//! answers the request with its result (the SHOULD of the subscriptions
//! page; the cancellation page says a cancelled request gets no answer, which
//! the subscriptions page overrides for listen streams).
//! With the Tasks extension declared, `notifications.taskIds` subscribes to
//! `notifications/tasks` for the caller's own tasks (`ext-tasks`
//! `specification/draft/tasks.md` §Task Status Notifications).

use std::sync::Arc;

use serde_json::{Map, Value, json};
use switchboard_types::jsonrpc::encode_notification;
use switchboard_types::meta::SUBSCRIPTION_ID;
use switchboard_types::notifications::method;
use switchboard_types::subscriptions::{ListenParams, SubscriptionFilter};
use switchboard_types::{ErrorObject, RequestId};

use crate::context::RequestContext;
use crate::params::Lazy;
use crate::resources::uri::validate_uri;
use crate::session::{Announced, Session};
use crate::tasks::Tasks;

/// Removes the listen registration however the request ends (answered,
/// cancelled, or dropped with the connection).
struct ListenGuard {
    session: Arc<Session>,
    id: RequestId,
}

impl Drop for ListenGuard {
    fn drop(&mut self) {
        self.session.remove_listen(&self.id);
    }
}

/// At most this many task ids are considered per listen request (each is
/// a read of the state store).
const MAX_TASK_IDS: usize = 256;

fn subscription_meta(id: &RequestId) -> Value {
    let mut meta = Map::new();
    meta.insert(SUBSCRIPTION_ID.into(), serde_json::to_value(id).expect("ids serialize; qed"));
    Value::Object(meta)
}

pub(crate) async fn listen(
    (announced, tasks): (Announced, &Tasks),
    session: &Arc<Session>,
    ctx: &RequestContext,
    params: Lazy<'_, ListenParams>,
) -> Result<Map<String, Value>, ErrorObject> {
    if session.is_stateless() {
        // Its events would reach every request of the shared session.
        return Err(ErrorObject::internal(
            "subscriptions/listen needs a session of its own, not the transport's shared stateless one",
        ));
    }
    let params = params.parse()?;
    let requested = params.notifications;
    // Task notifications need the Tasks extension on this request
    // (`tasks.md` §Task Status Notifications: MUST be `-32021`). The
    // acknowledgement agrees to the ids of tasks this caller owns (any
    // other id is, to it, no task at all); each status change of those
    // is sent as `notifications/tasks` with the full `DetailedTask`,
    // from whichever instance made it (the event bus).
    if requested.task_ids.is_some() && !crate::tasks::declared(ctx.client_capabilities()) {
        return Err(crate::tasks::extension_required("task status notifications"));
    }
    let task_ids = match &requested.task_ids {
        Some(ids) => Some(owned_tasks(tasks, ids, ctx).await),
        None => None,
    };
    let subscriptions = match requested.resource_subscriptions {
        Some(uris) if announced.resources && !uris.is_empty() => {
            for uri in &uris {
                validate_uri(uri).map_err(|reason| {
                    ErrorObject::invalid_params(format!("invalid resource URI {uri:?}: {reason}"))
                        .with_data(json!({"uri": uri}))
                })?;
            }
            Some(uris)
        }
        _ => None,
    };
    let accepted = SubscriptionFilter {
        tools_list_changed: (requested.tools_list_changed == Some(true) && announced.tools).then_some(true),
        prompts_list_changed: (requested.prompts_list_changed == Some(true) && announced.prompts)
            .then_some(true),
        resources_list_changed: (requested.resources_list_changed == Some(true) && announced.resources)
            .then_some(true),
        resource_subscriptions: subscriptions,
        task_ids,
    };
    let id = ctx.request_id().clone();
    let mut ack = match serde_json::to_value(ListenParams { notifications: accepted.clone() }) {
        Ok(Value::Object(map)) => map,
        _ => return Err(ErrorObject::internal("the acknowledgement does not serialize")),
    };
    ack.insert("_meta".into(), subscription_meta(&id));
    // The acknowledgement is queued before the stream is registered, so
    // it is the first message carrying this subscription id.
    if session
        .outbound()
        .send(encode_notification(method::SUBSCRIPTIONS_ACKNOWLEDGED, Some(&ack)))
        .await
        .is_err()
    {
        return Err(ErrorObject::internal("the connection closed"));
    }
    session.add_listen(id.clone(), accepted);
    let _guard = ListenGuard { session: Arc::clone(session), id: id.clone() };
    session.closing().await;
    let mut result = Map::new();
    result.insert("_meta".into(), subscription_meta(&id));
    Ok(result)
}

/// The ids among `ids` (the first [`MAX_TASK_IDS`]) of tasks the
/// request's caller owns, each once.
async fn owned_tasks(tasks: &Tasks, ids: &[String], ctx: &RequestContext) -> Vec<String> {
    let principal = ctx.principal().map(|p| p.subject.as_str());
    let mut owned: Vec<String> = Vec::new();
    for id in ids.iter().take(MAX_TASK_IDS) {
        if !owned.contains(id) && tasks.get(id, principal).await.is_ok() {
            owned.push(id.clone());
        }
    }
    owned
}
