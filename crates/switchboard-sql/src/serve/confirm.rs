//! Writes: `[[tools.sql]]` with `access = "write"`, in a transaction that
//! rolls back past `max_affected_rows`, and with `confirm = "always"`
//! only after the user accepted.
//!
//! The confirmation: a dry run (`Commit::Never`) counts the rows; the user
//! is asked with an elicitation showing the statement, the values and the
//! count (a live request in the handshake revisions; an `input_required`
//! round in 2026-07-28, whose signed `requestState` carries the count and
//! a random nonce that also names the question, so an answer cannot be
//! sent before the question was seen); on accept, the nonce is claimed in the server's state
//! store (`set_if_absent`, shared by every instance) before the write runs
//! with `expect: Some(count)`. A replayed `requestState` finds its nonce
//! claimed and writes nothing; a count that changed since the user saw it
//! rolls back. A client that cannot be asked gets an `isError` and nothing
//! is written.

use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Map, Value, json};
use switchboard_server::{CallToolResult, InputRequest, RequestContext, ToolError};

use crate::spec::Confirm;
use crate::{Commit, WriteCall, Written};

use super::described::DescribedTool;
use super::live::{Attached, Live};
use super::result;
use super::run;

/// Where the first round keeps the nonce and the count.
const NONCE: &str = "sql.confirm.nonce";
const COUNT: &str = "sql.confirm.count";
/// How long a used confirmation is remembered (longer than any
/// `requestState` lives).
const CLAIM_TTL: Duration = Duration::from_secs(24 * 3600);
/// Longest rendering of one value in the question.
const MAX_VALUE_CHARS: usize = 500;

/// Runs a write call of `described`.
pub(crate) async fn write(
    live: &Live,
    described: &DescribedTool,
    attached: &Attached,
    params: &Map<String, Value>,
    ctx: &RequestContext,
) -> Result<CallToolResult, ToolError> {
    let max = described.spec.max_affected_rows;
    match described.spec.confirm {
        Confirm::Never => commit(live, described, params, Commit::If { max, expect: None }, ctx).await,
        Confirm::Always => confirmed(live, described, attached, params, ctx).await,
    }
}

/// Asks first, then writes exactly once.
async fn confirmed(
    live: &Live,
    described: &DescribedTool,
    attached: &Attached,
    params: &Map<String, Value>,
    ctx: &RequestContext,
) -> Result<CallToolResult, ToolError> {
    if !ctx.can_ask(&InputRequest::elicit("", json!({"type": "object"}))) {
        return Err(ToolError::new(
            "this tool writes only after the user confirms, and this client cannot ask its user (it declares no elicitation support); nothing was written",
        ));
    }
    let (nonce, count) = match (ctx.recall(NONCE), ctx.recall(COUNT).and_then(|c| c.as_u64())) {
        (Some(Value::String(nonce)), Some(count)) => (nonce, count),
        _ => {
            let count = dry_run(live, described, params, ctx).await?;
            let nonce = new_nonce()?;
            ctx.remember(NONCE, Value::String(nonce.clone()));
            ctx.remember(COUNT, Value::from(count));
            (nonce, count)
        }
    };
    let schema = json!({
        "type": "object",
        "properties": {"confirm": {"type": "boolean", "title": "Write this change", "default": false}},
        "required": ["confirm"]
    });
    // The question is keyed by the nonce, which the client learns only from
    // this server's own `input_required` answer: an answer sent with the
    // first request (the statement, values and count never shown to the
    // user) matches nothing and is asked again.
    let key = format!("confirm-{nonce}");
    let answer = ctx.elicit(&key, &question(live, described, params, count), schema).await?;
    let accepted = answer.get("action").and_then(Value::as_str) == Some("accept")
        && answer.pointer("/content/confirm") == Some(&Value::Bool(true));
    if !accepted {
        let text =
            format!("The user did not confirm; nothing was written (it would have affected {count} rows).");
        return Ok(written_result(live.name(), text, Written { affected: count, committed: false }));
    }
    let store = attached.server()?.state_store();
    let claimed = store
        .set_if_absent(&format!("switchboard-sql:confirmation:{nonce}"), b"used".to_vec(), CLAIM_TTL)
        .await
        .map_err(|e| ToolError::new(format!("{e}; nothing was written; try again shortly")))?;
    if !claimed {
        return Err(ToolError::new(
            "this confirmation was already used, so nothing was written; call the tool again to ask the user anew",
        ));
    }
    commit(
        live,
        described,
        params,
        Commit::If { max: described.spec.max_affected_rows, expect: Some(count) },
        ctx,
    )
    .await
}

/// Counts the rows the write would affect, writing nothing; more than
/// `max_affected_rows` is an error at once.
async fn dry_run(
    live: &Live,
    described: &DescribedTool,
    params: &Map<String, Value>,
    ctx: &RequestContext,
) -> Result<u64, ToolError> {
    let written = execute(live, described, params, Commit::Never, ctx).await?;
    if let Some(max) = described.spec.max_affected_rows
        && written.affected > max
    {
        let error = crate::Error::TooManyRows { affected: written.affected, max };
        return Err(ToolError::new(run::advice(live.name(), &error)));
    }
    Ok(written.affected)
}

/// Runs the write with `commit` and answers with what it did.
async fn commit(
    live: &Live,
    described: &DescribedTool,
    params: &Map<String, Value>,
    commit: Commit,
    ctx: &RequestContext,
) -> Result<CallToolResult, ToolError> {
    let written = execute(live, described, params, commit, ctx).await?;
    let text = if written.committed {
        format!("Wrote the change: {} rows affected.", written.affected)
    } else {
        format!("Nothing was written ({} rows would have been affected).", written.affected)
    };
    Ok(written_result(live.name(), text, written))
}

async fn execute(
    live: &Live,
    described: &DescribedTool,
    params: &Map<String, Value>,
    commit: Commit,
    ctx: &RequestContext,
) -> Result<Written, ToolError> {
    let settings = run::settings(&live.resolved.spec, ctx)?;
    let call = WriteCall {
        statement: described.statement(),
        params,
        commit,
        settings: &settings,
        cancel: ctx.cancellation_token(),
    };
    live.db.write(call).await.map_err(|e| ToolError::new(run::advice(live.name(), &e)))
}

/// A write's result: text, `{affectedRows, committed}`, the database's `_meta`.
fn written_result(database: &str, text: String, written: Written) -> CallToolResult {
    let mut result = CallToolResult::text(text);
    result.structured_content =
        Some(json!({"affectedRows": written.affected, "committed": written.committed}));
    result.meta = Some(result::meta(database));
    result
}

/// What the user is shown: the tool, the statement, the values, the count.
fn question(live: &Live, described: &DescribedTool, params: &Map<String, Value>, count: u64) -> String {
    let values: Vec<String> = params
        .iter()
        .map(|(name, value)| {
            let mut shown: String = value.to_string().chars().take(MAX_VALUE_CHARS).collect();
            if shown.len() < value.to_string().len() {
                shown.push('…');
            }
            format!("  :{name} = {shown}")
        })
        .collect();
    format!(
        "The tool {tool} asks to write to the database {db}.\n\nStatement:\n{sql}\n\nValues:\n{values}\n\nRows it affects now: {count}.\nAccept to write this change; decline to write nothing.",
        tool = described.spec.name,
        db = live.name(),
        sql = described.spec.sql.trim(),
        values = if values.is_empty() { "  (none)".to_owned() } else { values.join("\n") },
    )
}

/// 128 random bits, URL-safe.
fn new_nonce() -> Result<String, ToolError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|e| ToolError::new(format!("no randomness for the confirmation: {e}")))?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}
