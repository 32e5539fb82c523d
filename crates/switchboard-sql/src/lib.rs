//! SQL databases as a source of an MCP server: the schema as resources,
//! statements from the configuration as typed tools, and an ad-hoc query
//! tool, with read-only enforced where it cannot be talked around.
//!
//! Every well-known database MCP server decided "read-only" by reading the
//! SQL text (a prefix, a regex, a parser) and every one of them was
//! bypassed (`COMMIT; DROP …`, writable CTEs, comment tricks, side-effecting
//! functions). Here the text is never the boundary:
//!
//! - **one statement per call, by the protocol**: PostgreSQL receives user
//!   SQL only through the extended protocol (one statement per Parse);
//!   SQLite prepares it and refuses a non-empty tail;
//! - **read-only by the engine, locked when the connection opens**:
//!   `default_transaction_read_only` in the PostgreSQL startup packet plus
//!   `BEGIN READ ONLY` per call; SQLite opened `SQLITE_OPEN_READ_ONLY` with
//!   `query_only` and an authorizer allow-list;
//! - **no session state survives a call**, and a privileged role is refused
//!   when the database opens.
//!
//! [`Database`] is what one engine offers; [`sqlite`] and [`postgres`]
//! implement it. The MCP side (tools, resources, cursors, confirmation)
//! is built on the trait alone.

mod catalog;
mod error;
mod exclude;
pub mod serve;
pub mod spec;
pub mod value;

#[cfg(feature = "postgres")]
pub mod postgres;
#[cfg(feature = "sqlite")]
pub mod sqlite;

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

pub use catalog::{Catalog, CatalogColumn, ForeignKey, Index, Table, TableKind};
pub use error::Error;
pub use exclude::Exclusions;

/// Which engine a [`Database`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// An SQLite file.
    Sqlite,
    /// A PostgreSQL server.
    Postgres,
}

/// What the configuration allows on a database (`access = "read"|"write"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    /// Reads only, enforced by the engine (the default).
    #[default]
    Read,
    /// Reads, and writes through [`Database::write`] (only for statements
    /// the configuration marks as writes).
    Write,
}

/// How a database is opened: what is shared by every engine.
#[derive(Debug, Clone)]
pub struct Options {
    /// What calls may do.
    pub access: Access,
    /// How long one statement may run before the engine stops it.
    pub statement_timeout: Duration,
    /// How long opening (connecting, checking the role) may take.
    pub connect_timeout: Duration,
    /// The schemas exposed (PostgreSQL); empty: the search path.
    pub schemas: Vec<String>,
    /// Tables and columns the model never sees, through any path.
    pub exclude: Exclusions,
    /// Serve a read database through a privileged role (superuser, or one
    /// that reads or writes server files or runs server programs).
    pub allow_privileged_role: bool,
    /// Connections kept open at most (PostgreSQL).
    pub pool_size: usize,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            access: Access::Read,
            statement_timeout: Duration::from_secs(5),
            connect_timeout: Duration::from_secs(10),
            schemas: Vec::new(),
            exclude: Exclusions::default(),
            allow_privileged_role: false,
            pool_size: 4,
        }
    }
}

/// The text of a statement and how its placeholders are written.
#[derive(Debug, Clone, Copy)]
pub struct Statement<'a> {
    /// The SQL text.
    pub sql: &'a str,
    /// Whether `:name` placeholders are bound.
    pub placeholders: Placeholders,
}

/// How a statement's parameters are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placeholders {
    /// `:name` placeholders, in a statement from the configuration (the
    /// engine binds each by name; PostgreSQL's are rewritten to `$n`, in
    /// text from the configuration only, never the model's).
    Named,
    /// None at all: the model's ad-hoc SQL. The text is sent as written;
    /// a statement that has a parameter is refused.
    None,
}

/// A statement prepared against the live database without running it.
#[derive(Debug, Clone, PartialEq)]
pub struct Described {
    /// Its parameters, by name, in order of first appearance.
    pub params: Vec<Param>,
    /// The columns of its result (empty for a statement without one).
    pub columns: Vec<Column>,
    /// The engine's own verdict on whether it may write, when it has one
    /// (SQLite's `sqlite3_stmt_readonly`); `None` when it cannot tell
    /// before running. For messages only: reads are enforced regardless.
    pub writes: Option<bool>,
}

/// One parameter of a described statement.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    /// Its name, without the `:`.
    pub name: String,
    /// The database's name of its type (`int8`, `text`; SQLite: empty when
    /// the engine cannot tell).
    pub sql_type: String,
    /// The JSON Schema of the JSON value a caller gives for it.
    pub schema: Value,
}

/// One column of a result.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// Its name as the database gives it (several columns may share one).
    pub name: String,
    /// The database's name of its type (SQLite: the declared type, or empty).
    pub sql_type: String,
    /// The JSON Schema of its values' JSON form (see [`value`]), `null` included.
    pub schema: Value,
}

/// One read call.
#[derive(Debug, Clone)]
pub struct Call<'a> {
    /// What to run.
    pub statement: Statement<'a>,
    /// The parameters' values by name, checked against their types.
    pub params: &'a Map<String, Value>,
    /// Rows to skip before the first one returned (a continuation).
    pub skip: u64,
    /// Rows returned at most; one more is fetched to know there are more.
    pub max_rows: u64,
    /// Bytes of JSON returned at most (the rows' serialized size).
    pub max_bytes: u64,
    /// Transaction-local settings for this call only (PostgreSQL
    /// `set_config(name, value, true)`: row-level security per end user).
    /// SQLite refuses any.
    pub settings: &'a [(String, String)],
    /// Cancelled by the client: the engine stops the statement.
    pub cancel: CancellationToken,
}

/// The rows a read call returned.
#[derive(Debug, Clone, PartialEq)]
pub struct Rows {
    /// The result's columns (shared: a statement run again answers with
    /// the same columns without copying them).
    pub columns: Arc<[Column]>,
    /// The rows, each one value per column, in the JSON form of [`value`].
    pub rows: Vec<Vec<Value>>,
    /// Whether more rows exist after these (a limit stopped the result).
    pub truncated: bool,
    /// The serialized size of `rows`.
    pub bytes: u64,
}

/// One write call: a statement the configuration marks as a write, on a
/// database opened with [`Access::Write`].
#[derive(Debug, Clone)]
pub struct WriteCall<'a> {
    /// What to run.
    pub statement: Statement<'a>,
    /// The parameters' values by name.
    pub params: &'a Map<String, Value>,
    /// Whether to commit.
    pub commit: Commit,
    /// Transaction-local settings, as for [`Call::settings`].
    pub settings: &'a [(String, String)],
    /// Cancelled by the client: the statement stops and nothing is written.
    pub cancel: CancellationToken,
}

/// When a write call commits. It always runs in a transaction; anything
/// else rolls back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Commit {
    /// Never: count the rows it would affect, then roll back.
    Never,
    /// When the affected rows are at most `max` (when set) and exactly
    /// `expect` (when set: the count a user confirmed).
    If {
        /// Affected rows allowed at most.
        max: Option<u64>,
        /// Affected rows the caller expects.
        expect: Option<u64>,
    },
}

/// What a write call did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    /// Rows the statement affected.
    pub affected: u64,
    /// Whether the transaction committed.
    pub committed: bool,
}

/// One open database: what every engine offers. Implementations keep read
/// calls read-only by the engine whatever the SQL says, and leave no
/// session state from one call to the next.
pub trait Database: Send + Sync + std::fmt::Debug {
    /// Which engine this is.
    fn engine(&self) -> Engine;

    /// What opening found worth telling the operator (write grants on
    /// exposed tables, say); empty when nothing.
    fn notes(&self) -> Vec<String>;

    /// The exposed tables and views, exclusions left out.
    fn catalog(&self) -> BoxFuture<'_, Result<Catalog, Error>>;

    /// A value that changes when the schema does (cheap: polled).
    fn fingerprint(&self) -> BoxFuture<'_, Result<String, Error>>;

    /// Prepares `statement` without running it.
    fn describe<'a>(&'a self, statement: Statement<'a>) -> BoxFuture<'a, Result<Described, Error>>;

    /// Runs one read call, read-only by the engine, within its limits.
    fn query<'a>(&'a self, call: Call<'a>) -> BoxFuture<'a, Result<Rows, Error>>;

    /// Runs one write call in a transaction ([`Error::ReadOnly`] on a
    /// database opened for reads).
    fn write<'a>(&'a self, call: WriteCall<'a>) -> BoxFuture<'a, Result<Written, Error>>;
}
