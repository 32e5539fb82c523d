//! The 2025-11-25 tasks (`docs/specification/2025-11-25/basic/utilities/tasks.mdx`,
//! `schema/2025-11-25/schema.ts` `Task`, `CreateTaskResult`): every way they
//! differ on the wire from the extension, over the same records.

use super::*;
use crate::task_wire::task_view;
use switchboard_types::meta::RELATED_TASK;

fn related(id: &str) -> Value {
    json!({"taskId": id})
}

/// A question of a 2025-11-25 task: the task shows `input_required`
/// while live requests, tagged with the related-task `_meta` (§Input
/// Required Status), go to the client on its connection's own stream
/// (the request that created the task was answered long ago); then it
/// is `working` again. Bounded by the task's cancellation and its time
/// to live (the runner's timeout).
pub(super) async fn ask_live(
    run: &TaskRun,
    session: &Arc<Session>,
    questions: Vec<(String, InputRequest)>,
) -> Result<BTreeMap<String, Value>, InputError> {
    run.tasks
        .update(&run.id, |r| {
            if r.is_terminal() {
                return false;
            }
            r.status = "input_required".into();
            r.status_message = Some("waiting for the client's input".into());
            true
        })
        .await
        .map_err(InputError::Failed)?;
    let asked = questions.iter().map(|(key, q)| async move {
        let mut params = q.params().clone();
        if let Value::Object(map) = &mut params {
            let meta = map.entry("_meta").or_insert_with(|| json!({}));
            if let Value::Object(meta) = meta {
                meta.insert(RELATED_TASK.into(), related(&run.id));
            }
        }
        let answer = tokio::select! {
            r = session.request_client(session.outbound(), q.method(), params) => r,
            _ = run.cancel.cancelled() => Err(ErrorObject::internal("the task was cancelled")),
        };
        (key.clone(), answer)
    });
    let answers = futures::future::join_all(asked).await;
    run.tasks
        .update(&run.id, |r| {
            if r.status != "input_required" {
                return false;
            }
            r.status = "working".into();
            r.status_message = None;
            true
        })
        .await
        .map_err(InputError::Failed)?;
    let mut out = BTreeMap::new();
    for (key, answer) in answers {
        out.insert(key, answer.map_err(InputError::Failed)?);
    }
    Ok(out)
}

impl Tasks {
    /// 2025-11-25 `tasks/cancel`: the task is `cancelled` before the
    /// answer (the handler is stopped here, or by the instance running
    /// it at its next look at the store); a terminal task is `-32602`.
    pub(crate) async fn cancel_now(
        &self,
        id: &str,
        principal: Option<&str>,
    ) -> Result<Map<String, Value>, ErrorObject> {
        let (_, before) = self.visible(id, principal).await?;
        let written = self
            .update(id, |r| {
                if r.is_terminal() {
                    return false;
                }
                r.status = "cancelled".into();
                r.status_message = Some("The task was cancelled by request.".into());
                r.cancel_requested = true;
                r.input_requests.clear();
                true
            })
            .await?;
        let Some(record) = written else {
            let now = self.load(id).await?.map_or(before, |(_, r)| r);
            let status = task_view(&now.wire())["status"].clone();
            return Err(ErrorObject::invalid_params(format!(
                "Cannot cancel task: already in terminal status {status}"
            )));
        };
        if let Some(running) = self.running.lock().expect("tasks lock poisoned").get(id) {
            running.cancel.cancel();
        }
        Ok(task_view(&record.wire()))
    }

    /// Waits until the task is terminal (§Result Retrieval: `tasks/result`
    /// blocks). Bounded: a task runs at most its time to live, so the
    /// wait gives up a little after that.
    async fn wait_terminal(&self, id: &str, principal: Option<&str>) -> Result<Record, ErrorObject> {
        let waiting = async {
            loop {
                let wake = self.wake(id);
                let notified = wake.as_ref().map(|w| w.notified());
                tokio::pin!(notified);
                if let Some(n) = notified.as_mut().as_pin_mut() {
                    n.enable();
                }
                let (_, record) = self.visible(id, principal).await?;
                if record.is_terminal() {
                    return Ok(record);
                }
                let woken = async {
                    match notified.as_mut().as_pin_mut() {
                        Some(n) => n.await,
                        None => std::future::pending().await,
                    }
                };
                tokio::select! {
                    _ = woken => {}
                    _ = tokio::time::sleep(self.poll) => {}
                }
            }
        };
        tokio::time::timeout(self.ttl + self.poll * 4, waiting)
            .await
            .unwrap_or_else(|_| Err(ErrorObject::internal(format!("task {id:?} did not finish in time"))))
    }

    /// 2025-11-25 `tasks/list`: the caller's tasks (its principal's,
    /// or without one its connection's), oldest first, `page` at a
    /// time; the cursor is the position in the owner's log.
    pub(crate) async fn list(
        &self,
        principal: Option<&str>,
        session: &Session,
        cursor: Option<&str>,
        page: usize,
    ) -> Result<Map<String, Value>, ErrorObject> {
        let after = match cursor {
            None => 0,
            Some(c) => c
                .strip_prefix("t")
                .and_then(|n| n.parse::<u64>().ok())
                .ok_or_else(|| ErrorObject::invalid_params(format!("invalid tasks/list cursor {c:?}")))?,
        };
        let log = owner_log(principal, Some(session)).expect("a connection is an owner; qed");
        let entries = self.store.read_after(&log, after).await.map_err(|e| store_unavailable(&e, false))?;
        let mut tasks = Vec::new();
        let mut next = None;
        for (seq, id) in entries {
            if tasks.len() == page.max(1) {
                next = Some(format!("t{after_last}", after_last = seq - 1));
                break;
            }
            let Ok(id) = String::from_utf8(id) else { continue };
            if let Ok(Some((_, record))) = self.load(&id).await
                && record.principal.as_deref() == principal
            {
                tasks.push(Value::Object(task_view(&record.wire())));
            }
        }
        let mut result = Map::from_iter([("tasks".to_owned(), Value::Array(tasks))]);
        if let Some(next) = next {
            result.insert("nextCursor".into(), Value::String(next));
        }
        Ok(result)
    }
}

impl Tasks {
    /// 2025-11-25 `tasks/result`: once the task is terminal, its tool
    /// result tagged with the related task, the JSON-RPC error it
    /// failed with, or `-32602` for a cancelled task (it has no result).
    pub(crate) async fn result(
        &self,
        id: &str,
        principal: Option<&str>,
    ) -> Result<Map<String, Value>, ErrorObject> {
        let record = self.wait_terminal(id, principal).await?;
        match record.status.as_str() {
            "completed" => {
                let mut result = match record.result {
                    Some(Value::Object(map)) => map,
                    _ => Map::new(),
                };
                let meta = result.entry("_meta").or_insert_with(|| json!({}));
                if let Value::Object(meta) = meta {
                    meta.insert(RELATED_TASK.into(), related(&record.id));
                }
                Ok(result)
            }
            "failed" => Err(record
                .error
                .and_then(|e| serde_json::from_value::<ErrorObject>(e).ok())
                .unwrap_or_else(|| ErrorObject::internal("the task failed"))),
            _ => Err(ErrorObject::invalid_params(format!(
                "task {:?} was cancelled: it has no result",
                record.id
            ))),
        }
    }
}
