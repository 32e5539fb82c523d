//! The client requests in flight to one upstream, and what the upstream
//! sends about them: progress, and its questions to its client
//! (`elicitation/create`, `sampling/createMessage`, `roots/list`), passed on
//! to the client whose call they belong to, at that client's revision.
//!
//! Every client request the proxy forwards is a [`Call`] while it runs
//! upstream, under the upstream request id (which is also the progress
//! token sent upstream). Progress is queued on the call as the upstream
//! client reads it, so the forwarding handler relays it before the answer
//! that followed it.
//!
//! A question from the upstream is asked through the call's
//! [`RequestContext::input`], so the server's one input mechanism decides
//! how it reaches the client:
//!
//! - **Handshake-era client**: a live request to it; its answer goes back
//!   to the upstream, which carries on.
//! - **2026-07-28 client** (multi round-trip requests): the client cannot
//!   be asked in the middle of a request. The question becomes pending, the
//!   call gives up (the upstream request is cancelled) and the client's
//!   request ends with an `InputRequiredResult`. The client's retry runs the
//!   forwarding handler again, which makes the upstream call again; when the
//!   upstream asks the same question, its key (the question's
//!   [`InputRequest::fingerprint`] and how often it was asked before in this
//!   call) finds the client's answer, and the upstream carries on. An
//!   upstream tool that asks questions therefore runs again from the top on
//!   each round, as handlers of the server itself do.
//!
//! Which call a question belongs to: over HTTP, a question that arrives on
//! the stream answering one of our requests belongs to that request. Over
//! stdio nothing in the protocol says, so a question is passed on only
//! while exactly one call is in flight to that upstream; otherwise it is
//! refused rather than shown to a client it may not belong to.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use switchboard_server::types::ErrorCode;
use switchboard_server::{ErrorObject, InputError, InputRequest, RequestContext};
use tokio::sync::{Notify, mpsc, watch};

use crate::UpstreamRequest;

/// How long a call that waits for its client's input lets the upstream go
/// on asking before it gives up: questions asked together (one upstream
/// `inputs` call sends them at once) then end up in one
/// `InputRequiredResult` instead of one round each. A question that comes
/// later costs one more round, not a wrong answer.
const GATHER: Duration = Duration::from_millis(50);

/// The client requests in flight to one upstream, by upstream request id.
#[derive(Default)]
pub(crate) struct Calls {
    by_id: Mutex<HashMap<i64, Arc<Call>>>,
}

/// One client request being served upstream.
pub(crate) struct Call {
    /// The client request's context: its progress, cancellation and input.
    pub(crate) ctx: RequestContext,
    /// How often each question (by fingerprint) was asked during this call.
    asked: Mutex<HashMap<String, u32>>,
    /// Signalled when a question waits for a 2026-07-28 client's next round.
    awaiting_client: Notify,
    /// The upstream's progress notifications for this call, in order.
    progress: mpsc::UnboundedSender<Value>,
    /// Becomes `true` when the forwarding ends.
    ended: watch::Sender<bool>,
}

/// Removes its call from [`Calls`] when the forwarding ends, however it ends.
pub(crate) struct Registered<'a> {
    calls: &'a Calls,
    id: i64,
    pub(crate) call: Arc<Call>,
    /// The call's progress, as the upstream sent it.
    pub(crate) progress: mpsc::UnboundedReceiver<Value>,
}

impl Drop for Registered<'_> {
    fn drop(&mut self) {
        self.calls.lock().remove(&self.id);
        self.call.ended.send_replace(true);
    }
}

impl Calls {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<i64, Arc<Call>>> {
        self.by_id.lock().expect("calls lock")
    }

    /// Registers the client request `ctx` as upstream request `id`.
    pub(crate) fn open(&self, id: i64, ctx: RequestContext) -> Registered<'_> {
        let (progress, queued) = mpsc::unbounded_channel();
        let call = Arc::new(Call {
            ctx,
            asked: Mutex::default(),
            awaiting_client: Notify::new(),
            progress,
            ended: watch::channel(false).0,
        });
        self.lock().insert(id, Arc::clone(&call));
        Registered { calls: self, id, call, progress: queued }
    }

    /// Queues the params of an upstream `notifications/progress` on the
    /// call whose token it names (progress of no call is dropped).
    pub(crate) fn progress(&self, params: Value) {
        let Some(token) = params.get("progressToken").and_then(Value::as_i64) else { return };
        if let Some(call) = self.lock().get(&token) {
            let _ = call.progress.send(params);
        }
    }

    /// The call a question belongs to (see the module docs).
    fn owner(&self, related: Option<i64>) -> Result<Arc<Call>, &'static str> {
        let calls = self.lock();
        match related {
            Some(id) => calls.get(&id).cloned().ok_or("the request it belongs to is over"),
            None => match calls.len() {
                1 => Ok(calls.values().next().cloned().expect("one call")),
                0 => Err("no client request is in progress through this proxy"),
                _ => Err(
                    "several client requests are in progress and nothing says which one the question belongs to",
                ),
            },
        }
    }

    /// Answers one of the upstream's requests by asking the client of the
    /// call it belongs to.
    pub(crate) async fn relay(&self, request: UpstreamRequest) -> Result<Value, ErrorObject> {
        let method = request.method;
        let Some(question) = InputRequest::from_request(&method, request.params) else {
            return Err(ErrorObject::method_not_found(&method));
        };
        let call = self.owner(request.related).map_err(|why| {
            tracing::warn!(method, why, "an upstream question was refused");
            ErrorObject::internal(format!("{method} cannot be passed on: {why}"))
        })?;
        if !call.ctx.can_ask(&question) {
            return Err(undeclared(&method, question.capability()));
        }
        let key = call.key(&question);
        match call.ctx.input(&key, question).await {
            Ok(answer) => Ok(answer),
            Err(InputError::Pending) => {
                // The upstream hears nothing until its call is given up: an
                // upstream tool that went on without the answer would
                // finish the call, and the client would never be asked.
                let mut ended = call.ended.subscribe();
                call.awaiting_client.notify_one();
                let _ = ended.wait_for(|ended| *ended).await;
                Err(ErrorObject::internal(
                    "the client is asked; the request will be made again with its answer",
                ))
            }
            Err(InputError::NotDeclared { capability }) => Err(undeclared(&method, capability)),
            Err(InputError::Failed(error)) => Err(error),
        }
    }
}

impl Call {
    /// The key of `question` within this call: the same on every replay
    /// of the call, distinct when the same question is asked again.
    fn key(&self, question: &InputRequest) -> String {
        let fingerprint = question.fingerprint();
        let mut asked = self.asked.lock().expect("asked lock");
        let count = asked.entry(fingerprint.clone()).or_insert(0);
        let key = format!("upstream.{fingerprint}.{count}");
        *count += 1;
        key
    }

    /// Completes once a question of this call waits for the client's next
    /// round, after letting questions asked with it arrive too.
    pub(crate) async fn awaiting_client(&self) {
        self.awaiting_client.notified().await;
        tokio::time::sleep(GATHER).await;
    }
}

/// Relays one upstream progress notification's params to the call's client.
pub(crate) async fn relay_progress(ctx: &RequestContext, params: &Value) {
    if let Some(value) = params["progress"].as_f64() {
        ctx.progress(value, params["total"].as_f64(), params["message"].as_str()).await;
    }
}

/// The error the upstream gets for a question the client cannot answer.
fn undeclared(method: &str, capability: &str) -> ErrorObject {
    let reason = format!("the client of this request did not declare the {capability} capability");
    ErrorObject::new(ErrorCode::METHOD_NOT_FOUND, format!("{method} cannot be passed on: {reason}"))
        .with_data(json!({ "reason": reason }))
}
