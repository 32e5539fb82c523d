//! SQLite: a file opened read-only, kept read-only by the engine.
//!
//! Every read runs on a connection opened `SQLITE_OPEN_READ_ONLY` with
//! `query_only`, `SQLITE_LIMIT_ATTACHED = 0`, defensive mode and an
//! untrusted schema, and an authorizer allow-list (module `authorizer`) that
//! denies every action that is not a read, a pure function or a reading
//! pragma, and every read of an excluded table or column. A statement is
//! prepared alone: a tail after it is refused before anything runs. A
//! progress handler stops a statement at the timeout or when the caller
//! cancels. The SQL text is never inspected to decide anything.
//!
//! SQLite blocks, so every call runs on one of the pool's own threads
//! (`worker`, with a stack deep enough for SQLite's recursions) with a
//! connection of a small pool; the async side only waits. A write
//! database has one more connection, read-write, used only by
//! [`Database::write`], under the same authorizer (writes of non-excluded
//! tables allowed, still no ATTACH, PRAGMA writes, VACUUM or DDL).
//!
//! What holds, and the test (in `tests/sqlite.rs` unless named) that shows it:
//! - one statement per call, whatever hides the second (comments, `;` in
//!   literals): `stacked_statements_are_refused_and_nothing_runs`;
//! - no write, DDL, transaction control or VACUUM on a read database, also
//!   inside a CTE or EXPLAIN: `writes_ddl_and_transaction_control_are_refused_on_a_read_database`;
//! - no ATTACH, no `VACUUM INTO` (no file appears): `attach_and_vacuum_into_create_no_file`;
//! - no pragma with a value (`query_only = 0`, `writable_schema`), no
//!   `load_extension`: `pragma_writes_and_load_extension_are_refused`;
//! - each layer holds without the `readonly()` assertion, and the open
//!   flags and limits without the authorizer:
//!   `sqlite::tests::the_layers_under_the_readonly_assertion_hold_alone`;
//! - an endless statement stops at the timeout or on cancel, promptly:
//!   `an_endless_recursive_cte_is_stopped_by_the_timeout`,
//!   `an_endless_recursive_cte_is_stopped_by_cancel_promptly`;
//! - a 20-million-row result is capped promptly with flat memory:
//!   `a_twenty_million_row_result_is_capped_promptly_with_flat_memory`;
//! - no statement crashes the server (SQLite's recursions stay inside the
//!   threads' stack: `worker`, the limits in `open.rs`):
//!   `deep_patterns_and_expressions_fail_alone_and_the_database_serves_on`;
//! - an excluded column or table cannot be read (`SELECT *` included: the
//!   query is refused, naming the column, rather than silently nulled), nor
//!   the schema text that names it, nor through a view or a virtual table:
//!   `excluded_columns_and_tables_are_refused_in_ad_hoc_sql`,
//!   `virtual_tables_and_their_storage_cannot_go_around_an_exclusion`
//!   (every virtual table is sealed while anything is excluded:
//!   `an_external_content_index_cannot_go_around_an_exclusion`),
//!   nor through `ANALYZE`'s index samples or a generated column computed
//!   from it, nor as `rowid`: `index_samples_and_generated_columns_do_not_leak_an_excluded_column`,
//!   `an_excluded_key_column_is_not_readable_as_rowid`;
//! - parameters are typed data, never SQL:
//!   `named_parameters_are_bound_as_typed_data_never_as_sql`;
//! - a write commits only within `max` and the confirmed count, rows
//!   changed by its triggers and foreign-key actions counted:
//!   `writes_commit_within_their_limits_and_roll_back_otherwise`,
//!   `row_limits_count_rows_changed_by_cascades_and_triggers`;
//! - reads a text filter would break keep working: `legitimate_reads_work`.

mod authorizer;
mod catalog;
mod excluded;
mod open;
mod params;
mod run;
mod types;
mod worker;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;

use self::authorizer::Mode;
use self::open::{Conn, Role};
use crate::{
    Access, Call, Catalog, Database, Described, Engine, Error, Options, Rows, Statement, WriteCall, Written,
};

/// The first 16 bytes of every SQLite database file.
const HEADER: &[u8; 16] = b"SQLite format 3\0";

/// Whether `path` is an SQLite database, by its header. The size is
/// checked first (at least 512 bytes and a multiple of 512, as every
/// database's page size is) so that a folder scan opens few files.
pub fn is_sqlite_file(path: &Path) -> bool {
    let Ok(metadata) = std::fs::metadata(path) else { return false };
    if !metadata.is_file() || metadata.len() < 512 || metadata.len() % 512 != 0 {
        return false;
    }
    let mut header = [0u8; 16];
    std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut header)).is_ok() && &header == HEADER
}

/// An SQLite database file.
#[derive(Debug)]
pub struct Sqlite {
    options: Options,
    readers: Arc<Pool>,
    writer: Option<Arc<Pool>>,
}

impl Sqlite {
    /// Opens the database at `path` (which must exist: it is never
    /// created) and checks it is one. With [`Access::Write`], the file is
    /// also opened read-write for [`Database::write`]. This does file
    /// I/O: from async code, call it on a blocking thread.
    pub fn open(path: &Path, options: &Options) -> Result<Sqlite, Error> {
        let path = open::database_path(path)?;
        let readers = Pool::new(path.clone(), Role::Reader, options, options.pool_size.max(1));
        readers.checkin(readers.checkout()?);
        let writer = match options.access {
            Access::Read => None,
            Access::Write => {
                let writer = Pool::new(path, Role::Writer, options, 1);
                writer.checkin(writer.checkout()?);
                Some(writer)
            }
        };
        Ok(Sqlite { options: options.clone(), readers, writer })
    }

    /// The pool a statement of `mode` is described on.
    fn describer(&self) -> (&Arc<Pool>, Mode) {
        match &self.writer {
            Some(writer) => (writer, Mode::Write),
            None => (&self.readers, Mode::Read),
        }
    }
}

impl Database for Sqlite {
    fn engine(&self) -> Engine {
        Engine::Sqlite
    }

    fn notes(&self) -> Vec<String> {
        Vec::new()
    }

    fn catalog(&self) -> BoxFuture<'_, Result<Catalog, Error>> {
        self.readers.run(|conn| catalog::read(conn)).boxed()
    }

    fn fingerprint(&self) -> BoxFuture<'_, Result<String, Error>> {
        self.readers
            .run(|conn| {
                conn.guard.enter(Mode::Internal);
                let version: i64 = conn
                    .connection
                    .query_row("PRAGMA schema_version", [], |row| row.get(0))
                    .map_err(|e| Error::Execute(e.to_string()))?;
                Ok(format!("{}:{version}", conn.identity))
            })
            .boxed()
    }

    fn describe<'a>(&'a self, statement: Statement<'a>) -> BoxFuture<'a, Result<Described, Error>> {
        let (pool, mode) = self.describer();
        let sql = statement.sql.to_owned();
        let placeholders = statement.placeholders;
        pool.run(move |conn| run::describe(conn, mode, &sql, placeholders)).boxed()
    }

    fn query<'a>(&'a self, call: Call<'a>) -> BoxFuture<'a, Result<Rows, Error>> {
        async move {
            if !call.settings.is_empty() {
                return Err(Error::Refused(
                    "SQLite has no session settings; remove `session` from this database".into(),
                ));
            }
            // Dropping this future (the caller gave up) stops the statement too.
            let cancel = call.cancel.child_token();
            let _stop_on_drop = cancel.clone().drop_guard();
            let stop = run::Stop::new(self.options.statement_timeout, cancel);
            let owned = run::ReadCall {
                sql: call.statement.sql.to_owned(),
                placeholders: call.statement.placeholders,
                params: call.params.clone(),
                skip: call.skip,
                max_rows: call.max_rows,
                max_bytes: call.max_bytes,
            };
            self.readers.run(move |conn| run::query(conn, &owned, &stop)).await
        }
        .boxed()
    }

    fn write<'a>(&'a self, call: WriteCall<'a>) -> BoxFuture<'a, Result<Written, Error>> {
        async move {
            let Some(writer) = &self.writer else { return Err(Error::ReadOnly) };
            if !call.settings.is_empty() {
                return Err(Error::Refused(
                    "SQLite has no session settings; remove `session` from this database".into(),
                ));
            }
            let cancel = call.cancel.child_token();
            let _stop_on_drop = cancel.clone().drop_guard();
            let stop = run::Stop::new(self.options.statement_timeout, cancel);
            let owned = run::WriteCall {
                sql: call.statement.sql.to_owned(),
                placeholders: call.statement.placeholders,
                params: call.params.clone(),
                commit: call.commit,
            };
            writer.run(move |conn| run::write(conn, &owned, &stop)).await
        }
        .boxed()
    }
}

/// Guarded connections to one file, opened on demand up to a bound, each
/// used by one of the pool's threads ([`worker`]) at a time. A connection
/// to a file since replaced under the same name is dropped rather than reused.
#[derive(Debug)]
struct Pool {
    path: PathBuf,
    role: Role,
    exclude: excluded::Excluded,
    busy: Duration,
    idle: Mutex<Vec<Conn>>,
    workers: worker::Workers,
}

impl Pool {
    fn new(path: PathBuf, role: Role, options: &Options, size: usize) -> Arc<Self> {
        Arc::new(Self {
            path,
            role,
            exclude: excluded::Excluded::new(&options.exclude),
            // Waiting for a writer's lock counts against the statement's time.
            busy: options.statement_timeout,
            idle: Mutex::new(Vec::new()),
            workers: worker::Workers::new(
                match role {
                    Role::Reader => "sqlite-read",
                    Role::Writer => "sqlite-write",
                },
                size,
            ),
        })
    }

    /// Runs `work` on a connection, on one of the pool's threads, once one is free.
    async fn run<T, F>(self: &Arc<Self>, work: F) -> Result<T, Error>
    where
        T: Send + 'static,
        F: FnOnce(&mut Conn) -> Result<T, Error> + Send + 'static,
    {
        let pool = Arc::clone(self);
        self.workers
            .run(move || {
                let mut conn = pool.checkout()?;
                let result = work(&mut conn);
                pool.checkin(conn);
                result
            })
            .await?
    }

    /// An idle connection to the file as it is now, or a new one.
    fn checkout(&self) -> Result<Conn, Error> {
        let now = open::identity(&self.path)?;
        if let Ok(mut idle) = self.idle.lock() {
            while let Some(conn) = idle.pop() {
                if conn.identity == now {
                    drop(idle);
                    open::seal(&conn)?;
                    return Ok(conn);
                }
            }
        }
        open::open(&self.path, self.role, &self.exclude, self.busy)
    }

    /// Returns a connection for reuse, unless it was left in a transaction.
    fn checkin(&self, conn: Conn) {
        if conn.connection.is_autocommit()
            && let Ok(mut idle) = self.idle.lock()
        {
            idle.push(conn);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::authorizer::Mode;
    use super::excluded::Excluded;
    use super::open::{Role, open};
    use std::time::Duration;

    /// The `readonly()` assertion is not what stops a write: with it out of
    /// the way (the statements run directly on a guarded connection), the
    /// read-only open, `query_only`, the attach limit and the authorizer
    /// still hold, each on its own.
    #[test]
    fn the_layers_under_the_readonly_assertion_hold_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.db");
        let setup = rusqlite::Connection::open(&path).unwrap();
        setup.execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);").unwrap();
        drop(setup);
        let copy = dir.path().join("copy.db");
        let mut reader = open(&path, Role::Reader, &Excluded::default(), Duration::from_secs(1)).unwrap();
        for sql in [format!("VACUUM INTO '{}'", copy.display()), "VACUUM".into(), "DELETE FROM t".into()] {
            reader.guard.enter(Mode::Read);
            assert!(reader.connection.execute_batch(&sql).is_err(), "{sql}");
        }
        // Without the authorizer at all, the open flags and limits still refuse.
        reader
            .connection
            .authorizer(None::<fn(rusqlite::hooks::AuthContext<'_>) -> rusqlite::hooks::Authorization>)
            .unwrap();
        for sql in [
            format!("VACUUM INTO '{}'", copy.display()),
            format!("ATTACH '{}' AS c", copy.display()),
            "DELETE FROM t".into(),
            "PRAGMA user_version = 5".into(),
        ] {
            assert!(reader.connection.execute_batch(&sql).is_err(), "{sql}");
        }
        let check = rusqlite::Connection::open(&path).unwrap();
        let rows: i64 = check.query_row("SELECT count(*) FROM t", [], |r| r.get(0)).unwrap();
        let version: i64 = check.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
        assert_eq!((rows, version), (1, 0));
        assert!(!copy.exists());
    }
}
