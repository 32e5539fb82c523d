//! Running one statement on a guarded connection (on a blocking thread):
//! prepared alone (a non-empty tail is refused before anything runs),
//! bound by name, stopped by the timeout or the caller through the
//! progress handler, and its rows streamed into the caps.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, Instant};

use rusqlite::fallible_iterator::FallibleIterator;
use rusqlite::{Batch, ErrorCode};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::authorizer::{Guard, Mode};
use super::open::Conn;
use super::params;
use super::types;
use crate::{Column, Commit, Described, Error, Param, Placeholders, Rows, Written};

/// Virtual machine steps between two looks at the clock and the cancel
/// token: about a tenth of a millisecond of work.
const PROGRESS_STEPS: i32 = 1000;

/// What stops a running statement, and which of the two did.
#[derive(Debug)]
pub(super) struct Stop {
    deadline: Instant,
    timeout: Duration,
    cancel: CancellationToken,
    reason: AtomicU8,
}

const STOPPED_BY_TIMEOUT: u8 = 1;
const STOPPED_BY_CANCEL: u8 = 2;

impl Stop {
    pub(super) fn new(timeout: Duration, cancel: CancellationToken) -> Arc<Self> {
        Arc::new(Self { deadline: Instant::now() + timeout, timeout, cancel, reason: AtomicU8::new(0) })
    }

    fn should_stop(&self) -> bool {
        let reason = if self.cancel.is_cancelled() {
            STOPPED_BY_CANCEL
        } else if Instant::now() >= self.deadline {
            STOPPED_BY_TIMEOUT
        } else {
            return false;
        };
        self.reason.store(reason, Ordering::SeqCst);
        true
    }

    fn error(&self) -> Option<Error> {
        match self.reason.load(Ordering::SeqCst) {
            STOPPED_BY_CANCEL => Some(Error::Cancelled),
            STOPPED_BY_TIMEOUT => Some(Error::Timeout(duration_text(self.timeout))),
            _ => None,
        }
    }
}

/// `5s`, `1500ms`: how a timeout is written in messages.
fn duration_text(d: Duration) -> String {
    if d.subsec_millis() == 0 { format!("{}s", d.as_secs()) } else { format!("{}ms", d.as_millis()) }
}

/// Whether an error happened preparing the statement or running it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Prepare,
    Run,
}

/// The crate's error for a driver error: a denial names what the
/// authorizer refused, an interrupt says who stopped it.
fn error(e: rusqlite::Error, guard: &Guard, stop: Option<&Stop>, phase: Phase) -> Error {
    let (code, message) = match &e {
        rusqlite::Error::SqliteFailure(code, message) => (Some(code.code), message.clone()),
        rusqlite::Error::SqlInputError { error, msg, .. } => (Some(error.code), Some(msg.clone())),
        rusqlite::Error::MultipleStatement => return Error::MultipleStatements,
        _ => (None, None),
    };
    let message = message.unwrap_or_else(|| e.to_string());
    if let Some(reason) = guard.take_refusal() {
        return Error::Refused(reason);
    }
    match code {
        Some(ErrorCode::OperationInterrupted) => {
            stop.and_then(Stop::error).unwrap_or(Error::Execute(message))
        }
        Some(ErrorCode::AuthorizationForStatementDenied) => Error::Refused(message),
        Some(ErrorCode::ReadOnly) => Error::Refused(format!("the database is opened read-only ({message})")),
        _ if phase == Phase::Prepare => Error::Prepare(message),
        _ => Error::Execute(message),
    }
}

/// Prepares the one statement of `sql`. Text after it that is more than
/// whitespace and comments is refused, whatever it is, before anything runs.
fn prepare_one<'c>(conn: &'c Conn, sql: &str) -> Result<rusqlite::Statement<'c>, Error> {
    conn.guard.preparing(true);
    let prepared = prepare_alone(conn, sql);
    conn.guard.preparing(false);
    prepared
}

fn prepare_alone<'c>(conn: &'c Conn, sql: &str) -> Result<rusqlite::Statement<'c>, Error> {
    let mut batch = Batch::new(&conn.connection, sql);
    let first = match batch.next() {
        Ok(Some(statement)) => statement,
        Ok(None) => return Err(Error::Prepare("the statement is empty".into())),
        Err(e) => return Err(error(e, &conn.guard, None, Phase::Prepare)),
    };
    match batch.next() {
        Ok(None) => Ok(first),
        Ok(Some(_)) | Err(_) => {
            conn.guard.take_refusal();
            Err(Error::MultipleStatements)
        }
    }
}

/// The parameter names of a prepared statement, without the `:`, in order.
fn param_names(
    statement: &rusqlite::Statement<'_>,
    placeholders: Placeholders,
) -> Result<Vec<String>, Error> {
    let count = statement.parameter_count();
    if placeholders == Placeholders::None && count > 0 {
        return Err(Error::Param {
            name: statement.parameter_name(1).unwrap_or("?").to_owned(),
            message: "ad-hoc SQL takes no parameters: write the values into the statement as literals".into(),
        });
    }
    (1..=count)
        .map(|index| match statement.parameter_name(index) {
            Some(name) if name.starts_with(':') && name.len() > 1 => Ok(name[1..].to_owned()),
            other => Err(Error::Param {
                name: other.unwrap_or("?").to_owned(),
                message: "write parameters as :name (positional ?, @name and $name are not used)".into(),
            }),
        })
        .collect()
}

/// Binds every parameter by name from the call's JSON arguments.
fn bind(
    statement: &mut rusqlite::Statement<'_>,
    placeholders: Placeholders,
    params: &Map<String, Value>,
) -> Result<(), Error> {
    for (index, name) in param_names(statement, placeholders)?.into_iter().enumerate() {
        let Some(value) = params.get(&name) else {
            return Err(Error::Param { name, message: "missing: the statement needs a value for it".into() });
        };
        let value = types::to_sql(&name, value)?;
        statement
            .raw_bind_parameter(index + 1, value)
            .map_err(|e| Error::Param { name: name.clone(), message: e.to_string() })?;
    }
    Ok(())
}

/// The result columns of a prepared statement.
fn columns(statement: &rusqlite::Statement<'_>) -> Vec<Column> {
    statement
        .columns()
        .map(|c| Column {
            name: c.name().to_owned(),
            sql_type: c.decl_type().unwrap_or_default().to_owned(),
            schema: types::column_schema(c.decl_type()),
        })
        .collect()
}

/// The result columns of a statement that has run: `previous` (shared,
/// nothing built) while its names and declared types are still those.
fn columns_since(statement: &rusqlite::Statement<'_>, previous: Option<&Arc<[Column]>>) -> Arc<[Column]> {
    if let Some(previous) = previous
        && previous.len() == statement.column_count()
        && statement.columns().zip(previous.iter()).all(|(now, then)| {
            now.name() == then.name && now.decl_type().unwrap_or_default() == then.sql_type
        })
    {
        return Arc::clone(previous);
    }
    columns(statement).into()
}

/// Runs `work` with the progress handler watching `stop`, and removes it
/// afterwards (so the connection's own statements are never interrupted).
fn watched<T>(
    conn: &mut Conn,
    stop: &Arc<Stop>,
    work: impl FnOnce(&Conn) -> Result<T, Error>,
) -> Result<T, Error> {
    let watcher = Arc::clone(stop);
    let install = conn.connection.progress_handler(PROGRESS_STEPS, Some(move || watcher.should_stop()));
    install.map_err(|e| Error::Execute(e.to_string()))?;
    let result = work(conn);
    let removed = conn.connection.progress_handler(0, None::<fn() -> bool>);
    removed.map_err(|e| Error::Execute(e.to_string()))?;
    result
}

/// A statement as prepared on `conn` in `mode`, not run.
pub(super) fn describe(
    conn: &Conn,
    mode: Mode,
    sql: &str,
    placeholders: Placeholders,
) -> Result<Described, Error> {
    conn.guard.enter(mode);
    let statement = prepare_one(conn, sql)?;
    let names = param_names(&statement, placeholders)?;
    let types = if names.is_empty() { Vec::new() } else { params::infer(conn, sql, names.len()) };
    let params = names
        .into_iter()
        .zip(types)
        .map(|(name, (sql_type, schema))| Param { name, sql_type, schema })
        .collect();
    Ok(Described { params, columns: columns(&statement), writes: Some(!statement.readonly()) })
}

/// The owned parts of a read call, sent to the blocking thread.
#[derive(Debug)]
pub(super) struct ReadCall {
    pub(super) sql: String,
    pub(super) placeholders: Placeholders,
    pub(super) params: Map<String, Value>,
    pub(super) skip: u64,
    pub(super) max_rows: u64,
    pub(super) max_bytes: u64,
}

/// Runs a read call on a read-only connection.
pub(super) fn query(conn: &mut Conn, call: &ReadCall, stop: &Arc<Stop>) -> Result<Rows, Error> {
    conn.guard.enter(Mode::Read);
    watched(conn, stop, |conn| {
        if conn.guard.exclude().is_empty() {
            let mut statement = prepare_reused(conn, &call.sql)?;
            let previous = conn.reused.borrow().get(&call.sql).cloned();
            let rows = read_rows(conn, &mut statement, call, stop, previous.as_ref())?;
            if let Some(last) = conn.reused.borrow_mut().get_mut(&call.sql) {
                *last = Arc::clone(&rows.columns);
            }
            Ok(rows)
        } else {
            read_rows(conn, &mut prepare_one(conn, &call.sql)?, call, stop, None)
        }
    })
}

/// The statement of `sql` from the connection's cache of prepared
/// statements, prepared (and kept) when it is not there yet.
///
/// A text is first prepared through [`prepare_one`] once per connection,
/// so a tail after the statement is refused exactly as on every other
/// path. Reusing a prepared statement skips the authorizer, which SQLite
/// consults while preparing: that holds because a reader connection only
/// ever prepares a call's statement in [`Mode::Read`], and when the schema
/// changes SQLite prepares the statement again, under the authorizer in
/// the same mode, before it runs. The exception is sealing (tables denied
/// only while a call's own statement is *prepared*, see
/// `authorizer::Sealed`), which a re-preparation in the middle of a run
/// would not apply: so statements are reused only while nothing is excluded.
///
/// Measured with `switchboard-bench db`: preparing was an eighth of the
/// server's CPU per call (`sqlite3RunParser`, `yy_reduce`, `sqlite3Select`).
fn prepare_reused<'c>(conn: &'c Conn, sql: &str) -> Result<rusqlite::CachedStatement<'c>, Error> {
    if !conn.reused.borrow().contains_key(sql) {
        drop(prepare_one(conn, sql)?);
        let mut reused = conn.reused.borrow_mut();
        if reused.len() >= super::open::STATEMENT_CACHE {
            reused.clear();
        }
        reused.insert(sql.to_owned(), Arc::from([]));
    }
    conn.guard.preparing(true);
    let prepared = conn.connection.prepare_cached(sql);
    conn.guard.preparing(false);
    prepared.map_err(|e| error(e, &conn.guard, None, Phase::Prepare))
}

/// Binds a prepared read statement and streams its rows into the caps.
/// The columns are read once it has run: a reused statement is prepared
/// again by its first step when the schema changed, and may then have others.
fn read_rows(
    conn: &Conn,
    statement: &mut rusqlite::Statement<'_>,
    call: &ReadCall,
    stop: &Arc<Stop>,
    previous: Option<&Arc<[Column]>>,
) -> Result<Rows, Error> {
    if !statement.readonly() {
        return Err(Error::Refused("the statement writes; this call only reads".into()));
    }
    bind(statement, call.placeholders, &call.params)?;
    let (rows, truncated, bytes) =
        stream(statement, call).map_err(|e| error(e, &conn.guard, Some(stop), Phase::Run))?;
    Ok(Rows { columns: columns_since(statement, previous), rows, truncated, bytes })
}

/// Steps through the result: skips `skip` rows, keeps rows while they fit
/// `max_rows` and `max_bytes`, and stops at the first that does not (so
/// memory holds at most what is returned, whatever the result's size).
fn stream(
    statement: &mut rusqlite::Statement<'_>,
    call: &ReadCall,
) -> rusqlite::Result<(Vec<Vec<Value>>, bool, u64)> {
    let mut rows = statement.raw_query();
    let mut kept: Vec<Vec<Value>> = Vec::new();
    let mut skipped = 0u64;
    let mut bytes = 2u64; // the brackets of the array of rows
    // The width and the names' size, read at the first row (once stepping
    // has prepared a reused statement again if the schema changed). Each
    // row is sent as an object: its column names count against
    // `max_bytes` as much as its values (a thousand long names and tiny
    // values would otherwise pass the cap many times over).
    let mut shape: Option<(usize, u64)> = None;
    while let Some(row) = rows.next()? {
        let (width, keys) = *shape.get_or_insert_with(|| {
            let statement = row.as_ref();
            (statement.column_count(), crate::value::object_keys_size(statement.column_names()))
        });
        if skipped < call.skip {
            skipped += 1;
            continue;
        }
        if kept.len() as u64 >= call.max_rows {
            return Ok((kept, true, bytes));
        }
        let separator = u64::from(!kept.is_empty());
        // A row whose raw values alone pass the cap stops the result before
        // any of it is copied into JSON (a 60 MB blob is never encoded).
        let at_least: u64 =
            keys + (0..width).map(|i| types::json_size_at_least(row.get_ref_unwrap(i))).sum::<u64>();
        if bytes + separator + at_least > call.max_bytes {
            return Ok((kept, true, bytes));
        }
        let values: Vec<Value> = (0..width).map(|i| types::to_json(row.get_ref_unwrap(i))).collect();
        let size = keys + crate::value::size(values.as_slice()) + separator;
        if bytes + size > call.max_bytes {
            return Ok((kept, true, bytes));
        }
        bytes += size;
        kept.push(values);
    }
    Ok((kept, false, bytes))
}

/// The owned parts of a write call.
#[derive(Debug)]
pub(super) struct WriteCall {
    pub(super) sql: String,
    pub(super) placeholders: Placeholders,
    pub(super) params: Map<String, Value>,
    pub(super) commit: Commit,
}

/// Runs a write call in a transaction on the read-write connection, and
/// commits only when the count allows it.
pub(super) fn write(conn: &mut Conn, call: &WriteCall, stop: &Arc<Stop>) -> Result<Written, Error> {
    conn.guard.enter(Mode::Internal);
    conn.connection.execute_batch("BEGIN IMMEDIATE").map_err(|e| error(e, &conn.guard, None, Phase::Run))?;
    conn.guard.enter(Mode::Write);
    let affected = watched(conn, stop, |conn| {
        let mut statement = prepare_one(conn, &call.sql)?;
        bind(&mut statement, call.placeholders, &call.params)?;
        // Every row the statement changed, the rows its triggers and
        // foreign-key actions (ON DELETE CASCADE, SET NULL) changed
        // included: `changes()` counts only the statement's own table,
        // `total_changes()` counts trigger programs too (and a statement
        // that writes nothing counts none).
        let before = conn.connection.total_changes();
        let mut rows = statement.raw_query();
        // RETURNING rows are not returned by a write call; step through them.
        while rows.next().map_err(|e| error(e, &conn.guard, Some(stop), Phase::Run))?.is_some() {}
        drop(rows);
        Ok(conn.connection.total_changes().saturating_sub(before))
    });
    conn.guard.enter(Mode::Internal);
    let verdict = affected.and_then(|affected| match call.commit {
        Commit::Never => Ok((affected, false)),
        Commit::If { max: Some(max), .. } if affected > max => Err(Error::TooManyRows { affected, max }),
        Commit::If { expect: Some(expected), .. } if affected != expected => {
            Err(Error::CountChanged { expected, affected })
        }
        Commit::If { .. } => Ok((affected, true)),
    });
    let end = if matches!(verdict, Ok((_, true))) { "COMMIT" } else { "ROLLBACK" };
    let ended = conn.connection.execute_batch(end).map_err(|e| error(e, &conn.guard, None, Phase::Run));
    if ended.is_err() && !conn.connection.is_autocommit() {
        // A failed COMMIT leaves the transaction open: end it, nothing written.
        let _ = conn.connection.execute_batch("ROLLBACK");
    }
    let (affected, committed) = verdict?;
    ended?;
    Ok(Written { affected, committed })
}
