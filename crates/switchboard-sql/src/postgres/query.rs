//! Running calls: describe, read, write.
//!
//! User SQL reaches the server only through the extended protocol
//! (Parse/Bind/Execute), which takes exactly one statement, so
//! `COMMIT; DROP …` is a syntax error, never two commands. Every read runs
//! inside `BEGIN READ ONLY` (on top of `default_transaction_read_only` in
//! the startup packet) and is always rolled back. A call's transaction-local
//! settings are bound parameters of `set_config(name, value, true)`.
//!
//! Results come through a portal fetched in chunks, and fetching stops at
//! `skip + max_rows + 1` rows or `max_bytes`: a query of twenty million rows
//! answers with the first page, in flat memory, and the rest is never sent.
//!
//! A cancel from the caller sends PostgreSQL's cancel request (the backend
//! stops the statement) and answers [`Error::Cancelled`]; the server's own
//! `statement_timeout` answers [`Error::Timeout`]; a client-side deadline a
//! little later backs it up. Either way the connection is closed, not reused.
//!
//! A write's count is every row it changed, those its triggers and
//! foreign-key actions changed included (the command tag counts only the
//! statement's own): two reads of the transaction's own statistics around
//! the statement, two more round trips on a write, none on a read.

use std::future::Future;
use std::time::Duration;

use serde_json::{Map, Value};
use tokio_postgres::error::SqlState;
use tokio_postgres::types::ToSql;
use tokio_postgres::{CancelToken, Client, Statement as PgStatement, Transaction};
use tokio_util::sync::CancellationToken;

use super::connect::{self, Tls};
use super::placeholders;
use super::types::{self, Cell, Encoded};
use crate::{
    Call, Column, Commit, Described, Error, Param, Placeholders, Rows, Statement, WriteCall, Written,
};

/// Rows fetched from the portal at a time, at most.
const CHUNK: u64 = 500;
/// How long to wait for the statement to stop after a cancel request.
const CANCEL_WAIT: Duration = Duration::from_secs(5);
/// How much later than `statement_timeout` the client gives up on a call.
const DEADLINE_GRACE: Duration = Duration::from_secs(1);

/// The text to prepare and the parameter names of `$1`, `$2`, ….
pub(crate) fn text_of(statement: Statement<'_>) -> Result<(String, Vec<String>), Error> {
    match statement.placeholders {
        Placeholders::None => Ok((statement.sql.to_owned(), Vec::new())),
        Placeholders::Named => {
            let rewritten = placeholders::rewrite(statement.sql)?;
            Ok((rewritten.sql, rewritten.names))
        }
    }
}

/// Prepares inside a read-only transaction (rolled back): the parameters
/// and columns, nothing run.
pub(crate) async fn describe(client: &mut Client, sql: &str, names: &[String]) -> Result<Described, Error> {
    let tx = client.build_transaction().read_only(true).start().await.map_err(execute_error)?;
    let stmt = tx.prepare(sql).await.map_err(prepare_error)?;
    check_param_count(&stmt, names)?;
    let params = stmt
        .params()
        .iter()
        .zip(names)
        .map(|(ty, name)| Param {
            name: name.clone(),
            sql_type: ty.name().to_owned(),
            schema: types::param_schema(ty),
        })
        .collect();
    let columns = columns_of(&stmt);
    drop(stmt);
    tx.rollback().await.map_err(execute_error)?;
    Ok(Described { params, columns, writes: None })
}

/// One read call, in a read-only transaction that is rolled back.
pub(crate) async fn read(
    client: &mut Client,
    sql: &str,
    names: &[String],
    call: &Call<'_>,
) -> Result<Rows, Error> {
    let tx = client.build_transaction().read_only(true).start().await.map_err(execute_error)?;
    apply_settings(&tx, call.settings).await?;
    let stmt = tx.prepare(sql).await.map_err(prepare_error)?;
    check_param_count(&stmt, names)?;
    types::check_decodable(stmt.columns())?;
    let params = encode_params(&stmt, names, call.params)?;
    let columns = columns_of(&stmt);
    let portal = tx.bind(&stmt, &refs(&params)).await.map_err(|e| bind_error(e, names))?;

    let wanted = call.skip.saturating_add(call.max_rows).saturating_add(1);
    let mut seen: u64 = 0;
    let mut rows = Vec::new();
    let mut bytes: u64 = 2;
    let mut truncated = false;
    'fetch: loop {
        let ask = wanted.saturating_sub(seen).clamp(1, CHUNK);
        let chunk = tx.query_portal(&portal, ask as i32).await.map_err(execute_error)?;
        let exhausted = (chunk.len() as u64) < ask;
        for row in chunk {
            seen += 1;
            if seen <= call.skip {
                continue;
            }
            if rows.len() as u64 >= call.max_rows {
                truncated = true;
                break 'fetch;
            }
            let values = decode_row(&row, &columns)?;
            // As serialized inside the `rows` array: `[a,b]`, and a comma before it.
            let size = values.iter().map(crate::value::size).sum::<u64>()
                + values.len().saturating_sub(1) as u64
                + 2
                + u64::from(!rows.is_empty());
            if bytes + size > call.max_bytes {
                truncated = true;
                break 'fetch;
            }
            bytes += size;
            rows.push(values);
        }
        if exhausted {
            break;
        }
    }
    drop(portal);
    tx.rollback().await.map_err(execute_error)?;
    Ok(Rows { columns, rows, truncated, bytes })
}

/// One write call, in a read-write transaction committed per `call.commit`.
pub(crate) async fn write(
    client: &mut Client,
    sql: &str,
    names: &[String],
    call: &WriteCall<'_>,
) -> Result<Written, Error> {
    let tx = client.build_transaction().read_only(false).start().await.map_err(execute_error)?;
    apply_settings(&tx, call.settings).await?;
    let stmt = tx.prepare(sql).await.map_err(prepare_error)?;
    check_param_count(&stmt, names)?;
    let params = encode_params(&stmt, names, call.params)?;
    let before = rows_changed_in_transaction(&tx).await?;
    let own = tx.execute(&stmt, &refs(&params)).await.map_err(|e| bind_error(e, names))?;
    let after = rows_changed_in_transaction(&tx).await?;
    // The command tag counts the statement's own rows only; the
    // transaction's counters also count what its triggers and foreign-key
    // actions (ON DELETE CASCADE) changed. Never less than the tag, should
    // the counters be off (`track_counts`).
    let affected = own.max(after.saturating_sub(before));
    let refusal = match call.commit {
        Commit::Never => None,
        Commit::If { max: Some(max), .. } if affected > max => Some(Error::TooManyRows { affected, max }),
        Commit::If { expect: Some(expected), .. } if affected != expected => {
            Some(Error::CountChanged { expected, affected })
        }
        Commit::If { .. } => {
            tx.commit().await.map_err(execute_error)?;
            return Ok(Written { affected, committed: true });
        }
    };
    tx.rollback().await.map_err(execute_error)?;
    match refusal {
        Some(error) => Err(error),
        None => Ok(Written { affected, committed: false }),
    }
}

/// The rows inserted, updated and deleted so far in this transaction, in
/// every table but the system's (PostgreSQL's per-transaction statistics,
/// read live from the backend: a row changed by a trigger or a cascade
/// counts too, each change once). Readable by any role.
async fn rows_changed_in_transaction(tx: &Transaction<'_>) -> Result<u64, Error> {
    let row = tx
        .query_one(
            "SELECT COALESCE(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::int8 FROM pg_stat_xact_user_tables",
            &[],
        )
        .await
        .map_err(execute_error)?;
    let changed: i64 = row.try_get(0).map_err(execute_error)?;
    Ok(u64::try_from(changed).unwrap_or(0))
}

/// Runs `work` until it ends, the caller cancels, or the deadline passes;
/// the latter two send a cancel request and wait (bounded) for the
/// statement to stop.
pub(crate) async fn guarded<T>(
    work: impl Future<Output = Result<T, Error>>,
    cancel: &CancellationToken,
    token: &CancelToken,
    tls: &Tls,
    statement_timeout: Duration,
) -> Result<T, Error> {
    tokio::pin!(work);
    let stopped = tokio::select! {
        result = &mut work => {
            return result.map_err(|e| match e {
                Error::Timeout(_) => Error::Timeout(format!("{statement_timeout:?}")),
                other => other,
            });
        }
        () = cancel.cancelled() => Error::Cancelled,
        () = tokio::time::sleep(statement_timeout + DEADLINE_GRACE) => Error::Timeout(format!("{statement_timeout:?}")),
    };
    connect::cancel(token, tls).await;
    let _ = tokio::time::timeout(CANCEL_WAIT, &mut work).await;
    Err(stopped)
}

async fn apply_settings(tx: &Transaction<'_>, settings: &[(String, String)]) -> Result<(), Error> {
    for (name, value) in settings {
        tx.execute("SELECT set_config($1, $2, true)", &[name, value])
            .await
            .map_err(|e| Error::Execute(format!("setting {name}: {}", message_of(&e))))?;
    }
    Ok(())
}

fn check_param_count(stmt: &PgStatement, names: &[String]) -> Result<(), Error> {
    if stmt.params().len() == names.len() {
        return Ok(());
    }
    Err(Error::Prepare(if names.is_empty() {
        "the statement has $n parameters; an ad-hoc query takes none: write the values into the SQL".into()
    } else {
        format!("the statement has {} parameters but names {}", stmt.params().len(), names.len())
    }))
}

fn columns_of(stmt: &PgStatement) -> Vec<Column> {
    stmt.columns()
        .iter()
        .map(|c| Column {
            name: c.name().to_owned(),
            sql_type: c.type_().name().to_owned(),
            schema: types::schema(c.type_()),
        })
        .collect()
}

fn encode_params(
    stmt: &PgStatement,
    names: &[String],
    given: &Map<String, Value>,
) -> Result<Vec<Encoded>, Error> {
    stmt.params()
        .iter()
        .zip(names)
        .map(|(ty, name)| {
            let value = given.get(name).ok_or_else(|| Error::Param {
                name: name.clone(),
                message: format!("missing (a {}; null for NULL)", ty.name()),
            })?;
            types::encode_param(ty, value).map_err(|message| Error::Param { name: name.clone(), message })
        })
        .collect()
}

fn refs(params: &[Encoded]) -> Vec<&(dyn ToSql + Sync)> {
    params.iter().map(|p| p as &(dyn ToSql + Sync)).collect()
}

fn decode_row(row: &tokio_postgres::Row, columns: &[Column]) -> Result<Vec<Value>, Error> {
    (0..row.len())
        .map(|i| {
            row.try_get::<_, Cell>(i).map(|cell| cell.0).map_err(|e| {
                let name = columns.get(i).map_or("?", |c| c.name.as_str());
                Error::Execute(format!("column {name:?}: {e}; cast it with ::text"))
            })
        })
        .collect()
}

/// The server's message, with its detail and hint when it gives them.
fn message_of(e: &tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => {
            let mut message = db.message().to_owned();
            if let Some(detail) = db.detail() {
                message.push_str(&format!(" ({detail})"));
            }
            if let Some(hint) = db.hint() {
                message.push_str(&format!(" Hint: {hint}"));
            }
            message
        }
        None => e.to_string(),
    }
}

fn prepare_error(e: tokio_postgres::Error) -> Error {
    match e.code() {
        Some(code) if *code == SqlState::INSUFFICIENT_PRIVILEGE => Error::Refused(message_of(&e)),
        _ if e.as_db_error().is_some() => Error::Prepare(message_of(&e)),
        _ => Error::Execute(message_of(&e)),
    }
}

/// Errors while running: the engine's refusals are [`Error::Refused`]; a
/// `statement_timeout` is [`Error::Timeout`] (a cancel we sent never gets
/// here: [`guarded`] answers [`Error::Cancelled`] itself).
pub(crate) fn execute_error(e: tokio_postgres::Error) -> Error {
    match e.code() {
        Some(code)
            if *code == SqlState::READ_ONLY_SQL_TRANSACTION || *code == SqlState::INSUFFICIENT_PRIVILEGE =>
        {
            Error::Refused(message_of(&e))
        }
        // 57014 is any cancel; the server says which (a cancel we sent is
        // answered by `guarded` before this is looked at).
        Some(code) if *code == SqlState::QUERY_CANCELED && message_of(&e).contains("statement timeout") => {
            Error::Timeout(message_of(&e))
        }
        _ => Error::Execute(message_of(&e)),
    }
}

/// Errors at Bind: a value the server's input function rejects (class 22)
/// is the parameter's fault, named when one parameter can be meant.
fn bind_error(e: tokio_postgres::Error, names: &[String]) -> Error {
    // invalid_text_representation, invalid_datetime_format, datetime_field_overflow
    let input_error = e.code().is_some_and(|code| matches!(code.code(), "22P02" | "22007" | "22008"));
    if input_error && !names.is_empty() {
        return Error::Param { name: names.join(", "), message: message_of(&e) };
    }
    execute_error(e)
}
