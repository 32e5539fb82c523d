//! Running calls: describe, read, write.
//!
//! User SQL reaches the server only through the extended protocol
//! (Parse/Bind/Execute), which takes exactly one statement, so
//! `COMMIT; DROP …` is a syntax error, never two commands. Every read runs
//! inside `BEGIN READ ONLY` (on top of `default_transaction_read_only` in
//! the startup packet) and is always rolled back. A call's transaction-local
//! settings are bound parameters of `set_config(name, value, true)`.
//!
//! Reading stops at `skip + max_rows + 1` rows or `max_bytes` (rows sized
//! as the objects the MCP layer sends, keys included): a query of twenty
//! million rows answers with the first page, in flat memory (rows are read
//! one at a time as they arrive, and the driver reads the socket only as
//! fast as rows are taken). Through a portal fetched in chunks the rest is
//! never sent; a configured statement read whole (below) has its statement
//! cancelled instead. A row whose binary form alone cannot fit `max_bytes`
//! stops the result before it is decoded; the driver still holds that one
//! row as the server sent it (PostgreSQL caps a field at 1 GB).
//!
//! What a read costs, in round trips to the server (the driver sends each
//! request when it is first polled and the server answers them in order,
//! so requests issued before awaiting share one round trip):
//!
//! - a configured statement already prepared on the connection: **one**.
//!   `BEGIN READ ONLY`, the call's `set_config` settings, Bind/Execute of
//!   the whole result and `ROLLBACK` are sent together ([`read_whole`]);
//!   the caps stop the reading, and a result that runs past them has its
//!   statement cancelled and its connection closed, and that statement is
//!   read through a portal from then on;
//! - otherwise (the first call on a connection, ad-hoc text, a
//!   continuation, a statement known to be large): `BEGIN READ ONLY`; the
//!   Parse/Describe (configured statements: once per connection); the
//!   settings and Bind of a portal together; Execute per chunk of rows
//!   (so the rest of a large result is never sent); `ROLLBACK` sent
//!   without waiting (the connection runs it before anything later).
//!
//! A configured statement's columns are described and checked once per
//! connection, not per call. A bare loop of prepared-statement queries
//! costs one round trip too: what remains between the two is the server
//! running `BEGIN` and `ROLLBACK`, and the JSON values.
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
use std::pin::pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use futures::TryStreamExt;
use futures::future;
use serde_json::{Map, Value};
use tokio_postgres::error::SqlState;
use tokio_postgres::types::ToSql;
use tokio_postgres::{CancelToken, Client, Statement as PgStatement, Transaction};
use tokio_util::sync::CancellationToken;

use super::connect::{self, Tls};
use super::placeholders;
use super::prepared::{Prepared, Ready};
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

/// How a read failed: a cached statement whose result type changed since
/// it was prepared (the schema changed) is prepared again once.
enum Failure {
    ResultChanged(Error),
    Other(Error),
}

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        Failure::Other(error)
    }
}

/// One read call, in a read-only transaction that is rolled back. Answers
/// the rows and whether the connection is clean to lend again (false when
/// a whole-result read stopped at a cap with the rest still coming: the
/// caller then cancels the statement and closes the connection).
///
/// A configured statement is prepared once per connection (kept in
/// `prepared`); ad-hoc text is prepared per call and never kept. A
/// configured statement already prepared runs in one round trip when
/// `whole` (see [`read_whole`]), else through a portal.
pub(crate) async fn read(
    client: &mut Client,
    prepared: &mut Prepared,
    statement: Statement<'_>,
    call: &Call<'_>,
    whole: bool,
) -> Result<(Rows, bool), Error> {
    let configured = statement.placeholders == Placeholders::Named;
    let mut replanned = false;
    loop {
        let cached = if configured { prepared.get(statement.sql) } else { None };
        if let Some(ready) = cached.filter(|_| whole && call.skip == 0) {
            let set_config = set_config_for(client, prepared, call.settings).await?;
            match read_whole(client, set_config, &ready, call).await {
                Ok(read) => return Ok(read),
                Err(Failure::ResultChanged(_)) if !replanned => {
                    prepared.forget(statement.sql);
                    replanned = true;
                    continue;
                }
                Err(Failure::ResultChanged(error) | Failure::Other(error)) => return Err(error),
            }
        }
        let tx = client.build_transaction().read_only(true).start().await.map_err(execute_error)?;
        let cached = if configured { prepared.get(statement.sql) } else { None };
        let from_cache = cached.is_some();
        let ready = match cached {
            Some(ready) => ready,
            None => {
                let ready = Arc::new(prepare_ready(&tx, statement).await?);
                if configured {
                    prepared.insert(statement.sql, ready.clone());
                }
                ready
            }
        };
        let set_config = set_config_for(tx.client(), prepared, call.settings).await?;
        match fetch(&tx, set_config, &ready, call).await {
            Ok(rows) => {
                // Dropping the transaction sends ROLLBACK without waiting
                // for its answer: the connection runs it before anything
                // the next call sends, and a broken connection is never
                // lent again (a call on it fails before it runs).
                drop(tx);
                return Ok((rows, true));
            }
            Err(Failure::ResultChanged(_)) if from_cache && !replanned => {
                drop(tx);
                prepared.forget(statement.sql);
                replanned = true;
            }
            Err(Failure::ResultChanged(error) | Failure::Other(error)) => return Err(error),
        }
    }
}

/// A read in one round trip: `BEGIN READ ONLY`, the settings, Bind and
/// Execute of the whole result, and `ROLLBACK` are all sent before any
/// answer is awaited. The server runs them in order, so the statement
/// runs only inside the read-only transaction, after its settings (a
/// failed `BEGIN` or setting fails the call; a failed setting aborts the
/// transaction, so the statement does not run), and is always rolled back.
///
/// The whole result is asked for, so the caps stop the reading, not the
/// sending: when a cap is reached with rows still coming, the answer is
/// the rows so far and "not clean", and the caller cancels the statement
/// and closes the connection (and reads that statement through a portal
/// from then on).
async fn read_whole(
    client: &Client,
    set_config: Option<&PgStatement>,
    ready: &Ready,
    call: &Call<'_>,
) -> Result<(Rows, bool), Failure> {
    let params = encode_params(&ready.statement, &ready.names, call.params)?;
    let mut begin = pin!(future::maybe_done(client.batch_execute("BEGIN READ ONLY")));
    let mut settings = pin!(future::maybe_done(apply_settings(client, set_config, call.settings)));
    let mut rows = pin!(future::maybe_done(read_stream(client, ready, &params, call)));
    let mut rollback = pin!(client.batch_execute("ROLLBACK"));
    let mut rollback_sent = false;
    future::poll_fn(|cx| {
        // In this order every time: the first poll of each sends its request.
        let begun = begin.as_mut().poll(cx).is_ready();
        let set = settings.as_mut().poll(cx).is_ready();
        let read = rows.as_mut().poll(cx).is_ready();
        if !rollback_sent {
            // Its first poll sends it; its answer is not awaited (below).
            rollback_sent = true;
            // A ROLLBACK that cannot be sent means the connection is
            // closed: the server ends the transaction, and the pool never
            // lends the connection again.
            let _ = rollback.as_mut().poll(cx);
        }
        if begun && set && read { Poll::Ready(()) } else { Poll::Pending }
    })
    .await;
    // The ROLLBACK is sent, and its answer is not awaited, as a portal
    // read's is not (see `read`): the connection runs it before anything a
    // later call sends, so the next call on this connection begins after
    // it; a connection that broke meanwhile is never lent again (a call on
    // it fails before it runs). Not waiting saves the call a wake-up.
    if let Some(Err(e)) = begin.as_mut().take_output() {
        return Err(Failure::Other(execute_error(e)));
    }
    settings.as_mut().take_output().unwrap_or(Ok(()))?;
    rows.as_mut().take_output().unwrap_or_else(|| Err(Failure::Other(Error::Execute("no answer".into()))))
}

/// Binds and executes `ready` for its whole result and reads it up to the
/// call's caps: the rows, and whether the result ended (the connection is
/// clean) rather than a cap stopping the reading.
async fn read_stream(
    client: &Client,
    ready: &Ready,
    params: &[Encoded],
    call: &Call<'_>,
) -> Result<(Rows, bool), Failure> {
    let names = &ready.names;
    let stream =
        client.query_raw(&ready.statement, refs(params)).await.map_err(|e| bind_failure(e, names))?;
    let mut stream = pin!(stream);
    let mut collected = Collected::new(call, &ready.columns);
    while let Some(row) = stream.try_next().await.map_err(execute_error)? {
        if !collected.take(&row, &ready.columns)? {
            return Ok((collected.into_rows(&ready.columns), false));
        }
    }
    Ok((collected.into_rows(&ready.columns), true))
}

/// Rows taken within a call's caps (`skip`, `max_rows`, `max_bytes`).
struct Collected {
    /// The bytes of one row object's keys (the column names).
    keys: u64,
    skip: u64,
    max_rows: u64,
    max_bytes: u64,
    seen: u64,
    rows: Vec<Vec<Value>>,
    bytes: u64,
    truncated: bool,
}

impl Collected {
    fn new(call: &Call<'_>, columns: &[Column]) -> Collected {
        Collected {
            keys: crate::value::object_keys_size(columns.iter().map(|c| c.name.as_str())),
            skip: call.skip,
            max_rows: call.max_rows,
            max_bytes: call.max_bytes,
            seen: 0,
            rows: Vec::new(),
            bytes: 2,
            truncated: false,
        }
    }

    /// Takes one more row of the result; false once a cap stops the result
    /// (the row is not taken and `truncated` is set).
    fn take(&mut self, row: &tokio_postgres::Row, columns: &[Column]) -> Result<bool, Error> {
        self.seen += 1;
        if self.seen <= self.skip {
            return Ok(true);
        }
        if self.rows.len() as u64 >= self.max_rows {
            self.truncated = true;
            return Ok(false);
        }
        // As serialized inside the `rows` array: an object of the columns'
        // keys and values, and a comma before it.
        let framing = self.keys + row.len().saturating_sub(1) as u64 + 2 + u64::from(!self.rows.is_empty());
        // A row whose binary form alone cannot fit stops the result before
        // any of it is decoded (`repeat('x', 900000000)`).
        if self.bytes + wire_size(row) / types::WIRE_PER_JSON_BYTE + framing > self.max_bytes {
            self.truncated = true;
            return Ok(false);
        }
        let values = decode_row(row, columns)?;
        let size = values.iter().map(crate::value::size).sum::<u64>() + framing;
        if self.bytes + size > self.max_bytes {
            self.truncated = true;
            return Ok(false);
        }
        self.bytes += size;
        self.rows.push(values);
        Ok(true)
    }

    fn into_rows(self, columns: &Arc<[Column]>) -> Rows {
        Rows { columns: Arc::clone(columns), rows: self.rows, truncated: self.truncated, bytes: self.bytes }
    }
}

/// The bytes a row's values took on the wire, without decoding them.
fn wire_size(row: &tokio_postgres::Row) -> u64 {
    (0..row.len()).map(|i| row.try_get::<_, types::WireSize>(i).map_or(0, |size| size.0)).sum()
}

/// A Bind error: a cached statement whose result type changed, or [`bind_error`].
fn bind_failure(e: tokio_postgres::Error, names: &[String]) -> Failure {
    if e.code() == Some(&SqlState::FEATURE_NOT_SUPPORTED) {
        Failure::ResultChanged(execute_error(e))
    } else {
        Failure::Other(bind_error(e, names))
    }
}

/// Prepares `statement` (inside the caller's read-only transaction) and
/// describes what its calls need.
async fn prepare_ready(tx: &Transaction<'_>, statement: Statement<'_>) -> Result<Ready, Error> {
    let (sql, names) = text_of(statement)?;
    let stmt = tx.prepare(&sql).await.map_err(prepare_error)?;
    check_param_count(&stmt, &names)?;
    types::check_decodable(stmt.columns())?;
    let columns = columns_of(&stmt).into();
    Ok(Ready { statement: stmt, names, columns })
}

/// Binds and runs `ready` in `tx`, after the call's settings (sent in the
/// same round trip as the Bind: the server applies them first, and a
/// failed one aborts the transaction, so the statement never runs
/// without them).
async fn fetch(
    tx: &Transaction<'_>,
    set_config: Option<&PgStatement>,
    ready: &Ready,
    call: &Call<'_>,
) -> Result<Rows, Failure> {
    let names = &ready.names;
    let params = encode_params(&ready.statement, names, call.params)?;
    let params = refs(&params);
    let settings = apply_settings(tx.client(), set_config, call.settings);
    let bind = tx.bind(&ready.statement, &params);
    let (settings, bind) = futures::join!(settings, bind);
    settings?;
    let portal = bind.map_err(|e| bind_failure(e, names))?;

    let wanted = call.skip.saturating_add(call.max_rows).saturating_add(1);
    let mut collected = Collected::new(call, &ready.columns);
    'fetch: loop {
        let ask = wanted.saturating_sub(collected.seen).clamp(1, CHUNK);
        // Rows one at a time as they arrive (not the chunk collected): a
        // result stopped early holds no more than the row it stopped at.
        let stream = tx.query_portal_raw(&portal, ask as i32).await.map_err(execute_error)?;
        let mut stream = pin!(stream);
        let mut in_chunk: u64 = 0;
        while let Some(row) = stream.try_next().await.map_err(execute_error)? {
            in_chunk += 1;
            if !collected.take(&row, &ready.columns)? {
                break 'fetch;
            }
        }
        if in_chunk < ask {
            break;
        }
    }
    Ok(collected.into_rows(&ready.columns))
}

/// One write call, in a read-write transaction committed per `call.commit`.
pub(crate) async fn write(
    client: &mut Client,
    prepared: &mut Prepared,
    sql: &str,
    names: &[String],
    call: &WriteCall<'_>,
) -> Result<Written, Error> {
    let tx = client.build_transaction().read_only(false).start().await.map_err(execute_error)?;
    let set_config = set_config_for(tx.client(), prepared, call.settings).await?;
    apply_settings(tx.client(), set_config, call.settings).await?;
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

/// Transaction-local settings, as bound parameters (never text).
const SET_CONFIG: &str = "SELECT set_config($1, $2, true)";

/// Applies `settings` in `tx`, in order, every one sent before any
/// answer is awaited (each future sends its request when first polled, and
/// they are first polled in order).
async fn apply_settings(
    client: &Client,
    set_config: Option<&PgStatement>,
    settings: &[(String, String)],
) -> Result<(), Error> {
    if settings.is_empty() {
        return Ok(());
    }
    let Some(set_config) = set_config else {
        return Err(Error::Execute("call settings need set_config prepared first".into()));
    };
    let mut each: Vec<_> = settings
        .iter()
        .map(|(name, value)| {
            Box::pin(future::maybe_done(async move {
                client
                    .execute(set_config, &[name, value])
                    .await
                    .map_err(|e| Error::Execute(format!("setting {name}: {}", message_of(&e))))
            }))
        })
        .collect();
    future::poll_fn(|cx| {
        let mut pending = false;
        for one in &mut each {
            pending |= one.as_mut().poll(cx).is_pending();
        }
        if pending { Poll::Pending } else { Poll::Ready(()) }
    })
    .await;
    for one in &mut each {
        if let Some(Err(error)) = one.as_mut().take_output() {
            return Err(error);
        }
    }
    Ok(())
}

/// The `set_config` statement of `prepared`, prepared in `tx` first when
/// the call has settings and the connection has none yet.
async fn set_config_for<'p>(
    client: &Client,
    prepared: &'p mut Prepared,
    settings: &[(String, String)],
) -> Result<Option<&'p PgStatement>, Error> {
    if !settings.is_empty() && prepared.set_config().is_none() {
        // Parse and Describe only: nothing runs.
        prepared.set_set_config(client.prepare(SET_CONFIG).await.map_err(prepare_error)?);
    }
    Ok(prepared.set_config())
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
