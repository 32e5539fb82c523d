//! Opening a connection with every lock in place before the first call:
//! the open flags, the limits, the defensive settings, `query_only` and the
//! authorizer. A connection is only ever handed out fully guarded.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::limits::Limit;
use rusqlite::{Connection, OpenFlags};

use super::authorizer::{Guard, Mode, Sealed};
use super::excluded::Excluded;
use crate::{Column, Error};

/// The longest text or blob a statement may build or read (64 MiB):
/// `zeroblob`, `printf` and `group_concat` cannot grow a value past it.
const MAX_VALUE_LENGTH: i32 = 64 << 20;
/// The longest SQL text accepted (1 MiB).
const MAX_SQL_LENGTH: i32 = 1 << 20;
/// The longest LIKE or GLOB pattern, in bytes (SQLite's default is 50,000).
/// The matcher recurses once per wildcard and its time grows with their
/// number; a pattern a person writes is a few dozen bytes, so 1,000 keeps
/// both small (at most a few hundred frames) while no real search notices.
/// The limit holds wherever the pattern comes from: a literal, an
/// expression, or a bound parameter.
const MAX_LIKE_PATTERN_LENGTH: i32 = 1000;
/// How deeply an expression may nest (SQLite's default, set here so a
/// build with another default changes nothing): the parser and code
/// generator recurse once per level, and [`super::worker::STACK_SIZE`] is
/// measured against this depth (`tests/sqlite.rs::deep_patterns_and_expressions_fail_alone_and_the_database_serves_on`).
const MAX_EXPR_DEPTH: i32 = 1000;

/// Prepared statements a connection keeps for reuse (see `run::prepare_reused`).
pub(super) const STATEMENT_CACHE: usize = 32;

/// Which file a connection opened: a file replaced under the same name is
/// another file, and its connections are reopened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct FileIdentity {
    device: u64,
    inode: u64,
}

impl std::fmt::Display for FileIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:x}:{:x}", self.device, self.inode)
    }
}

/// The identity of the file at `path` now.
pub(super) fn identity(path: &Path) -> Result<FileIdentity, Error> {
    let metadata = std::fs::metadata(path).map_err(|e| Error::Connect(format!("{}: {e}", path.display())))?;
    Ok(file_identity(&metadata))
}

#[cfg(unix)]
fn file_identity(metadata: &std::fs::Metadata) -> FileIdentity {
    use std::os::unix::fs::MetadataExt;
    FileIdentity { device: metadata.dev(), inode: metadata.ino() }
}

#[cfg(not(unix))]
fn file_identity(metadata: &std::fs::Metadata) -> FileIdentity {
    // Without inodes, the creation time tells a replaced file apart.
    let created = metadata
        .created()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as u64);
    FileIdentity { device: metadata.len(), inode: created }
}

/// The path SQLite is given: absolute, so it can never be read as a
/// `file:` URI (the bundled SQLite is built with URI filenames on); a
/// name that is one is refused outright.
pub(super) fn database_path(path: &Path) -> Result<PathBuf, Error> {
    let text = path.to_string_lossy();
    if text.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("file:")) {
        return Err(Error::Connect(
            "URI filenames are not accepted; name the database file by its path".into(),
        ));
    }
    std::path::absolute(path).map_err(|e| Error::Connect(format!("{}: {e}", path.display())))
}

/// One guarded connection and the file it opened.
#[derive(Debug)]
pub(super) struct Conn {
    pub(super) connection: Connection,
    pub(super) guard: Arc<Guard>,
    pub(super) identity: FileIdentity,
    /// The SQL texts this connection has already prepared and found to be
    /// one statement alone (see `run::prepare_reused`), each with the
    /// columns of its last result.
    pub(super) reused: RefCell<HashMap<String, Arc<[Column]>>>,
}

/// Whether a connection reads only or also writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    Reader,
    Writer,
}

/// Opens `path` (already made absolute by [`database_path`]) for `role`.
pub(super) fn open(path: &Path, role: Role, exclude: &Excluded, busy: Duration) -> Result<Conn, Error> {
    let connect = |e: rusqlite::Error| Error::Connect(format!("{}: {e}", path.display()));
    let identity = identity(path)?;
    let access = match role {
        Role::Reader => OpenFlags::SQLITE_OPEN_READ_ONLY,
        Role::Writer => OpenFlags::SQLITE_OPEN_READ_WRITE,
    };
    // No SQLITE_OPEN_CREATE (a missing file is an error, never created) and
    // no SQLITE_OPEN_URI; NO_MUTEX: a connection is used by one thread at a time.
    let mut connection =
        Connection::open_with_flags(path, access | OpenFlags::SQLITE_OPEN_NO_MUTEX).map_err(connect)?;
    connection.set_limit(Limit::SQLITE_LIMIT_ATTACHED, 0).map_err(connect)?;
    connection.set_limit(Limit::SQLITE_LIMIT_LENGTH, MAX_VALUE_LENGTH).map_err(connect)?;
    connection.set_limit(Limit::SQLITE_LIMIT_SQL_LENGTH, MAX_SQL_LENGTH).map_err(connect)?;
    connection
        .set_limit(Limit::SQLITE_LIMIT_LIKE_PATTERN_LENGTH, MAX_LIKE_PATTERN_LENGTH)
        .map_err(connect)?;
    connection.set_limit(Limit::SQLITE_LIMIT_EXPR_DEPTH, MAX_EXPR_DEPTH).map_err(connect)?;
    // Defensive: no writable_schema, no raw page writes; an untrusted
    // schema cannot call functions with side effects from views or triggers.
    connection.set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true).map_err(connect)?;
    connection.set_db_config(DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false).map_err(connect)?;
    // One plan per statement whatever values are bound: otherwise binding
    // new values to a statement whose plan looked at them (STAT4 is
    // compiled in) makes SQLite prepare it again at every run, which cost
    // a sixth of the server's CPU per call with the statement reused.
    connection.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true).map_err(connect)?;
    if role == Role::Reader {
        connection.pragma_update(None, "query_only", true).map_err(connect)?;
    }
    connection.busy_timeout(busy).map_err(connect)?;
    let guard = Arc::new(Guard::new(exclude.clone()));
    let hook = Arc::clone(&guard);
    connection
        .authorizer(Some(move |context: rusqlite::hooks::AuthContext<'_>| hook.authorize(context)))
        .map_err(connect)?;
    // Reading the schema version proves the file is a database now rather
    // than at the first call.
    guard.enter(Mode::Internal);
    connection.query_row("PRAGMA schema_version", [], |row| row.get::<_, i64>(0)).map_err(connect)?;
    connection.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    let conn = Conn { connection, guard, identity, reused: RefCell::new(HashMap::new()) };
    seal(&conn)?;
    Ok(conn)
}

/// Brings the connection's sealed tables and columns (see [`Sealed`]) up to the
/// schema's current version: while anything is excluded, every virtual
/// table and its storage; nothing to do when nothing is excluded.
/// Called at every checkout, so a virtual table created since is sealed
/// before a call can read it.
pub(super) fn seal(conn: &Conn) -> Result<(), Error> {
    if conn.guard.exclude().is_empty() {
        return Ok(());
    }
    let failed = |e: rusqlite::Error| Error::Execute(format!("reading the schema: {e}"));
    conn.guard.enter(Mode::Internal);
    let db = &conn.connection;
    let version: i64 = db.query_row("PRAGMA schema_version", [], |row| row.get(0)).map_err(failed)?;
    if conn.guard.sealed_at() == Some(version) {
        return Ok(());
    }
    let mut list = db
        .prepare("SELECT name, type FROM pragma_table_list WHERE schema = 'main' AND type IN ('table', 'shadow', 'virtual')")
        .map_err(failed)?;
    let relations: Vec<(String, String)> = list
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .map_err(failed)?
        .collect::<Result<_, _>>()
        .map_err(failed)?;
    let mut xinfo = db.prepare("SELECT name, hidden FROM pragma_table_xinfo(?1, 'main')").map_err(failed)?;
    let (mut tables, mut columns) = (Vec::new(), Vec::new());
    for (table, kind) in relations {
        // Every virtual table, not only one with an excluded column by
        // name: its module may index any table's data under any column
        // name (an external-content FTS index over `customers` answers a
        // prefix search on `ssn` while reading none of `customers`).
        if kind == "shadow" || kind == "virtual" {
            tables.push(table);
            continue;
        }
        let all: Vec<(String, i64)> = xinfo
            .query_map([&table], |row| Ok((row.get(0)?, row.get(1)?)))
            .map_err(failed)?
            .collect::<Result<_, _>>()
            .map_err(failed)?;
        if !all.iter().any(|(column, _)| conn.guard.exclude().column(&table, column)) {
            continue;
        }
        // Generated columns (hidden 2 and 3) may be computed from the
        // excluded one, and reading them is not reported as reading it.
        let generated = all.into_iter().filter(|(_, hidden)| *hidden == 2 || *hidden == 3);
        columns.extend(generated.map(|(column, _)| (table.clone(), column)));
    }
    conn.guard.seal(Sealed { schema_version: Some(version), tables, columns });
    Ok(())
}
