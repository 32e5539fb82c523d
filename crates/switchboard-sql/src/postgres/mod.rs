//! PostgreSQL through `tokio-postgres`.
//!
//! Why this driver (see the databases reference, §8.2): its protocol is
//! explicit. `prepare`/`bind`/`query_portal` always use the extended
//! protocol, where the server takes exactly one statement per Parse, and
//! `simple_query`, the only multi-statement path, is never given user text
//! here. `prepare` describes a statement (parameter and column types)
//! without running it, which is how configured statements get exact
//! schemas. Its `CancelToken` sends a real server-side cancel. And it is a
//! small set of dependencies over the rustls we already carry.
//!
//! What holds, and where:
//!
//! - one statement per call: the extended protocol (`query.rs`);
//! - read-only: `default_transaction_read_only=on` in the startup packet
//!   (`connect.rs`) plus `BEGIN READ ONLY` per read, always rolled back;
//!   a write runs only through [`Database::write`] on a database opened
//!   with [`Access::Write`], in an explicit `READ WRITE` transaction;
//! - no session state survives a call: what is transactional is rolled
//!   back; after any ad-hoc (model-written) statement, an error, a cancel
//!   or a timeout the connection is closed rather than reset (`pool.rs`),
//!   which also ends prepared statements, session advisory locks and
//!   `LISTEN` (`DISCARD ALL` would break the driver's own cached
//!   statements); what a kept connection carries is the configured
//!   statements the engine prepared on it (`pool.rs`), so a typed call
//!   costs one round trip (see `query.rs`);
//! - privileged roles and readable excluded columns refuse to open (`role.rs`);
//! - values decoded from the binary format to one JSON form (`types.rs`).

mod catalog;
mod connect;
mod placeholders;
mod pool;
mod prepared;
mod query;
mod role;
mod types;

use std::collections::HashSet;
use std::sync::Mutex;

use futures::future::BoxFuture;

use self::pool::{Lease, Pool};
use crate::{
    Access, Call, Catalog, Database, Described, Engine, Error, Options, Placeholders, Rows, Statement,
    WriteCall, Written,
};

/// Configured statements remembered as large, at most (past it the set
/// starts over; a configuration has far fewer).
const MAX_LARGE: usize = 256;

/// An open PostgreSQL database: a pool of connections that are read-only
/// from their first byte, checked for a privileged role when opened.
pub struct Postgres {
    pool: Pool,
    /// Configured statements whose result once ran past a call's caps:
    /// read through a portal (rows fetched in chunks) rather than whole.
    large: Mutex<HashSet<String>>,
    options: Options,
    schemas: Vec<String>,
    notes: Vec<String>,
}

impl std::fmt::Debug for Postgres {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the configuration: it holds the password.
        f.debug_struct("Postgres")
            .field("schemas", &self.schemas)
            .field("access", &self.options.access)
            .finish()
    }
}

impl Postgres {
    /// Opens `url` (`postgres://…` or `key=value` form; `password`
    /// overrides one in the URL): connects once, checks the role, the
    /// exclusions and the write grants, within `options.connect_timeout`.
    pub async fn connect(url: &str, password: Option<&str>, options: &Options) -> Result<Postgres, Error> {
        let (config, tls) = connect::configure(url, password, options)?;
        let wait = options.connect_timeout + options.statement_timeout;
        let pool = Pool::new(config, tls, options.pool_size, wait);
        let opened = async {
            let mut lease = pool.acquire().await?;
            let client = lease.client();
            let privileged = role::check_privileges(client, options).await?;
            role::check_exclusions(client, options).await?;
            let schemas = role::exposed_schemas(client, options).await?;
            let mut notes: Vec<String> = privileged.into_iter().collect();
            if options.access == Access::Read {
                notes.extend(role::write_grants(client, &schemas).await?);
                notes.extend(role::other_connections(client).await?);
            }
            lease.release();
            Ok::<_, Error>((schemas, notes))
        };
        let (schemas, notes) =
            tokio::time::timeout(options.connect_timeout, opened).await.map_err(|_| {
                Error::Connect(format!(
                    "no answer within the connect timeout ({:?})",
                    options.connect_timeout
                ))
            })??;
        Ok(Postgres { pool, large: Mutex::default(), options: options.clone(), schemas, notes })
    }

    /// The schemas exposed (configured, or the search path's at open).
    pub fn schemas(&self) -> &[String] {
        &self.schemas
    }

    /// Whether `statement` may be read whole (one round trip): a configured
    /// statement whose result never ran past a call's caps.
    fn may_read_whole(&self, statement: Statement<'_>) -> bool {
        statement.placeholders == Placeholders::Named
            && !self.large.lock().unwrap_or_else(|e| e.into_inner()).contains(statement.sql)
    }

    /// Remembers that `statement`'s result ran past a call's caps.
    fn remember_large(&self, statement: Statement<'_>) {
        let mut large = self.large.lock().unwrap_or_else(|e| e.into_inner());
        if large.len() >= MAX_LARGE {
            large.clear();
        }
        large.insert(statement.sql.to_owned());
    }

    /// Returns a lease to the pool after a clean call on trusted text;
    /// closes its connection otherwise.
    fn finish(lease: Lease<'_>, clean: bool, placeholders: Placeholders) {
        if clean && placeholders == Placeholders::Named {
            lease.release();
        }
    }
}

impl Database for Postgres {
    fn engine(&self) -> Engine {
        Engine::Postgres
    }

    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }

    fn catalog(&self) -> BoxFuture<'_, Result<Catalog, Error>> {
        Box::pin(async move {
            let mut lease = self.pool.acquire().await?;
            let result = catalog::load(lease.client(), &self.schemas, &self.options.exclude).await;
            Self::finish(lease, result.is_ok(), Placeholders::Named);
            result
        })
    }

    fn fingerprint(&self) -> BoxFuture<'_, Result<String, Error>> {
        Box::pin(async move {
            let mut lease = self.pool.acquire().await?;
            let result = catalog::fingerprint(lease.client(), &self.schemas).await;
            Self::finish(lease, result.is_ok(), Placeholders::Named);
            result
        })
    }

    fn describe<'a>(&'a self, statement: Statement<'a>) -> BoxFuture<'a, Result<Described, Error>> {
        Box::pin(async move {
            let (sql, names) = query::text_of(statement)?;
            let mut lease = self.pool.acquire().await?;
            let result = query::describe(lease.client(), &sql, &names).await;
            // Describing runs nothing (Parse and Describe only): a clean
            // describe keeps the connection even for ad-hoc text.
            Self::finish(lease, result.is_ok(), Placeholders::Named);
            result
        })
    }

    fn query<'a>(&'a self, call: Call<'a>) -> BoxFuture<'a, Result<Rows, Error>> {
        Box::pin(async move {
            let mut retried = false;
            let whole = self.may_read_whole(call.statement);
            loop {
                let mut lease = self.pool.acquire().await?;
                let token = lease.cancel_token();
                lease.set_busy(true);
                let (client, prepared) = lease.parts();
                let work = query::read(client, prepared, call.statement, &call, whole);
                let result = query::guarded(
                    work,
                    &call.cancel,
                    &token,
                    self.pool.tls(),
                    self.options.statement_timeout,
                )
                .await;
                // A whole-result read stopped at a cap leaves the statement
                // sending: the lease stays busy, so dropping it cancels the
                // statement and closes the connection.
                let stopped = matches!(result, Ok((_, false)));
                lease.set_busy(stopped);
                if stopped {
                    self.remember_large(call.statement);
                }
                // A pooled connection the server ended while it was idle
                // (a restart, an idle timeout) fails the call before it
                // ran; a read is safe to run once more on a fresh one.
                let stale = result.is_err() && lease.reused() && lease.client().is_closed();
                if stale && !retried && !call.cancel.is_cancelled() {
                    retried = true;
                    continue;
                }
                Self::finish(lease, result.is_ok() && !stopped, call.statement.placeholders);
                return result.map(|(rows, _)| rows);
            }
        })
    }

    fn write<'a>(&'a self, call: WriteCall<'a>) -> BoxFuture<'a, Result<Written, Error>> {
        Box::pin(async move {
            if self.options.access != Access::Write {
                return Err(Error::ReadOnly);
            }
            let (sql, names) = query::text_of(call.statement)?;
            let mut lease = self.pool.acquire().await?;
            let token = lease.cancel_token();
            lease.set_busy(true);
            let (client, prepared) = lease.parts();
            let work = query::write(client, prepared, &sql, &names, &call);
            let result =
                query::guarded(work, &call.cancel, &token, self.pool.tls(), self.options.statement_timeout)
                    .await;
            lease.set_busy(false);
            // A refused count rolled back cleanly: the connection is fine.
            let clean = matches!(result, Ok(_) | Err(Error::TooManyRows { .. } | Error::CountChanged { .. }));
            Self::finish(lease, clean, call.statement.placeholders);
            result
        })
    }
}
