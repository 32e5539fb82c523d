//! A small pool of connections, written here rather than taken from
//! deadpool-postgres because its whole value is its return policy, which is
//! ours: a connection comes back only when the call ended cleanly on a
//! statement from the configuration. After an error, a cancel, a timeout or
//! any ad-hoc (model-written) statement the connection is closed, so
//! nothing a session can hold (prepared statements, advisory locks,
//! `LISTEN`, settings made outside a transaction) outlives the call. A
//! lease dropped mid-statement (the caller went away) asks the server to
//! cancel it. At most `pool_size` connections exist at once; idle ones are
//! kept, and checked for being closed, before reuse.
//!
//! Each connection carries the statements from the configuration already
//! prepared on it ([`Prepared`](super::prepared::Prepared)): they are the driver's own session state,
//! made from trusted text only, and they end with the connection.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_postgres::{CancelToken, Client, Config};

use super::connect::{self, Tls};
use super::prepared::Prepared;
use crate::Error;

/// Open connections, at most `size` at once.
#[derive(Debug)]
pub(crate) struct Pool {
    config: Config,
    tls: Tls,
    idle: Mutex<Vec<Conn>>,
    permits: Arc<Semaphore>,
    /// How long a call waits for a free connection.
    wait: Duration,
}

impl Pool {
    pub(crate) fn new(config: Config, tls: Tls, size: usize, wait: Duration) -> Pool {
        Pool {
            config,
            tls,
            idle: Mutex::new(Vec::new()),
            permits: Arc::new(Semaphore::new(size.max(1))),
            wait,
        }
    }

    pub(crate) fn tls(&self) -> &Tls {
        &self.tls
    }

    /// A connection: an idle one, or a new one.
    pub(crate) async fn acquire(&self) -> Result<Lease<'_>, Error> {
        let permit = tokio::time::timeout(self.wait, self.permits.clone().acquire_owned())
            .await
            .map_err(|_| {
                Error::Execute(format!("every connection stayed busy for {:?}; try again", self.wait))
            })?
            .map_err(|_| Error::Execute("the pool is closed".into()))?;
        let idle = {
            let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
            std::iter::from_fn(|| idle.pop()).find(|conn| !conn.client.is_closed())
        };
        let reused = idle.is_some();
        let conn = match idle {
            Some(conn) => conn,
            None => {
                Conn { client: connect::open(&self.config, &self.tls).await?, prepared: Prepared::default() }
            }
        };
        let cancel = conn.client.cancel_token();
        Ok(Lease { pool: self, conn: Some(conn), cancel, busy: false, reused, _permit: permit })
    }
}

/// One open connection and what is prepared on it.
#[derive(Debug)]
struct Conn {
    client: Client,
    prepared: Prepared,
}

/// One connection lent to one call. [`Lease::release`] returns it; dropped
/// otherwise, it is closed (after a cancel request if a statement was
/// running).
pub(crate) struct Lease<'a> {
    pool: &'a Pool,
    conn: Option<Conn>,
    cancel: CancelToken,
    busy: bool,
    /// Whether the connection was idle in the pool (not opened for this call).
    reused: bool,
    _permit: OwnedSemaphorePermit,
}

impl std::fmt::Debug for Lease<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lease").field("busy", &self.busy).finish_non_exhaustive()
    }
}

impl Lease<'_> {
    pub(crate) fn client(&mut self) -> &mut Client {
        self.parts().0
    }

    /// The client and the statements prepared on its connection.
    pub(crate) fn parts(&mut self) -> (&mut Client, &mut Prepared) {
        let conn = self.conn.as_mut().expect("a lease holds its connection until released");
        (&mut conn.client, &mut conn.prepared)
    }

    pub(crate) fn cancel_token(&self) -> CancelToken {
        self.cancel.clone()
    }

    /// Whether the connection was idle in the pool before this call.
    pub(crate) fn reused(&self) -> bool {
        self.reused
    }

    /// Marks a statement as running (dropping the lease then cancels it) or done.
    pub(crate) fn set_busy(&mut self, busy: bool) {
        self.busy = busy;
    }

    /// Returns the connection for reuse.
    pub(crate) fn release(mut self) {
        if let Some(conn) = self.conn.take().filter(|c| !c.client.is_closed()) {
            self.pool.idle.lock().unwrap_or_else(|e| e.into_inner()).push(conn);
        }
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        if self.busy && self.conn.is_some() {
            let token = self.cancel.clone();
            let tls = self.pool.tls.clone();
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(async move { connect::cancel(&token, &tls).await });
            }
        }
    }
}
