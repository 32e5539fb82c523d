//! The state store: [`StateStore`], the key-value, log and pub/sub
//! abstraction behind every piece of server state that instances must
//! share; its errors; [`MemoryStore`], the in-process default; and
//! [`shared_secret`]. Published as `switchboard_server::state`.

mod memory;

use std::fmt;
use std::time::Duration;

use futures::future::BoxFuture;
use futures::stream::BoxStream;

pub use memory::MemoryStore;

/// Why the state store could not answer. Callers turn it into a clear
/// error for their client (`-32603` "state store unavailable: …", HTTP
/// `503`), never into a panic; the store recovers by itself.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("state store unavailable: {0}")]
pub struct StateError(pub String);

/// How long a client should wait before retrying a request refused for a
/// store outage (`Retry-After` over HTTP, `data.retryAfterMs` in the error).
pub const STORE_RETRY_AFTER: Duration = Duration::from_secs(1);

/// The one answer to a request that cannot proceed because the state store
/// is unavailable: `-32603` with `data.stateStore = "unavailable"` and
/// `data.retryAfterMs`. Every path builds it here, and a transport
/// recognises it with [`is_store_unavailable`] (HTTP answers `503` with
/// `Retry-After`). With `outcome_unknown`, the store stopped answering
/// after a write was sent: it may have been applied (`data.outcome =
/// "unknown"`), which the message says too.
pub fn store_unavailable(error: &StateError, outcome_unknown: bool) -> switchboard_types::ErrorObject {
    let (message, outcome) = if outcome_unknown {
        (
            format!(
                "{error}; the change may or may not have been applied (outcome unknown): read the value \
                 before repeating a change that is not safe to repeat"
            ),
            "unknown",
        )
    } else {
        (format!("{error}; nothing was changed; try again shortly"), "not-applied")
    };
    let retry_ms = u64::try_from(STORE_RETRY_AFTER.as_millis()).unwrap_or(u64::MAX);
    switchboard_types::ErrorObject::internal(message).with_data(serde_json::json!({
        "stateStore": "unavailable",
        "outcome": outcome,
        "retryAfterMs": retry_ms,
    }))
}

/// Whether `error` is the [`store_unavailable`] answer.
pub fn is_store_unavailable(error: &switchboard_types::ErrorObject) -> bool {
    error.code == switchboard_types::ErrorCode::INTERNAL_ERROR
        && error.data.as_ref().and_then(|d| d.get("stateStore")).and_then(|v| v.as_str())
            == Some("unavailable")
}

/// Log entries: sequence number and value, oldest first.
pub type LogEntries = Vec<(u64, Vec<u8>)>;

/// One item of a subscription that says when it lost messages
/// ([`StateStore::subscribe_with_gaps`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delivery {
    /// A message, in publication order.
    Message(Vec<u8>),
    /// Messages may have been lost just before this point (the subscriber
    /// fell behind, or was disconnected longer than the store keeps
    /// messages, or the store lost them): the subscriber must assume that
    /// anything those messages could have said did happen.
    Gap,
}

/// The storage operations shared server state needs. All are atomic per
/// key; `ttl` is always given, so every entry expires unless renewed.
pub trait StateStore: Send + Sync + fmt::Debug + 'static {
    /// The value at `key`, if present and not expired.
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Vec<u8>>, StateError>>;
    /// Stores `value` at `key` for `ttl`, replacing any value.
    fn set<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StateError>>;
    /// Stores `value` only if `key` is absent; true if it was stored.
    fn set_if_absent<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, StateError>>;
    /// Replaces the value at `key` by `value` (for `ttl`) only if it is
    /// exactly `expected` now (`None`: absent or expired), in one atomic
    /// step; true if it was replaced. The primitive of every
    /// read-modify-write of shared state: read, change, compare-and-set,
    /// and read again when someone else wrote in between.
    fn compare_and_set<'a>(
        &'a self,
        key: &'a str,
        expected: Option<&'a [u8]>,
        value: Vec<u8>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, StateError>>;
    /// Removes `key`; true if it existed.
    fn delete<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<bool, StateError>>;
    /// Renews `key`'s time to live; false if it is absent.
    fn touch<'a>(&'a self, key: &'a str, ttl: Duration) -> BoxFuture<'a, Result<bool, StateError>>;
    /// Appends `value` to the log at `key` (created if absent), keeping at
    /// most `max_len` newest entries and renewing its time to live. Returns
    /// the entry's sequence number: 1 for the first, increasing by one.
    fn append<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        max_len: usize,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<u64, StateError>>;
    /// The log entries at `key` with a sequence number above `after`, oldest
    /// first (entries trimmed away are gone).
    fn read_after<'a>(&'a self, key: &'a str, after: u64) -> BoxFuture<'a, Result<LogEntries, StateError>>;
    /// Sends `message` to every subscriber of `channel`, on every instance.
    fn publish<'a>(&'a self, channel: &'a str, message: Vec<u8>) -> BoxFuture<'a, Result<(), StateError>>;
    /// The messages published on `channel` from now on, in publication
    /// order per publisher. The stream outlives connection losses (it
    /// resubscribes), and ends only when the store is dropped.
    fn subscribe(&self, channel: &str) -> BoxStream<'static, Vec<u8>>;
    /// Like [`subscribe`](StateStore::subscribe), but a loss of messages is
    /// never silent: where messages may be missing, the stream yields
    /// [`Delivery::Gap`] before the next message. What the event bus
    /// listens with, so a client is told what may have changed rather than
    /// nothing. The default reports no gap, for a store that cannot lose
    /// messages (or cannot tell).
    fn subscribe_with_gaps(&self, channel: &str) -> BoxStream<'static, Delivery> {
        Box::pin(futures::StreamExt::map(self.subscribe(channel), Delivery::Message))
    }
    /// Adds `member` to the bounded set at `key` unless it already counts
    /// `max` live members, in one atomic step; true if `member` is in the
    /// set now. A member is live while the value `{alive_prefix}{member}`
    /// exists, so one whose value expired (its holder crashed, say) stops
    /// counting by itself: the set is pruned of such members when it is
    /// full (a shared store may check a bounded sample per call; at least
    /// [`ADMIT_SAMPLE`]). The set lives for `ttl` after the last admission.
    /// What `max_sessions` across instances is counted with.
    ///
    /// The default keeps the set as a value, updated with
    /// [`compare_and_set`](StateStore::compare_and_set).
    fn admit<'a>(
        &'a self,
        key: &'a str,
        member: &'a str,
        max: usize,
        alive_prefix: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, StateError>> {
        Box::pin(admit_with_compare_and_set(self, key, member, max, alive_prefix, ttl))
    }
}

/// How many members [`StateStore::admit`] checks at least when the set is
/// full.
pub const ADMIT_SAMPLE: usize = 256;

/// [`StateStore::admit`] on any store: the set is the value at `key`, its
/// members one a line.
async fn admit_with_compare_and_set<S: StateStore + ?Sized>(
    store: &S,
    key: &str,
    member: &str,
    max: usize,
    alive_prefix: &str,
    ttl: Duration,
) -> Result<bool, StateError> {
    const ATTEMPTS: usize = 64;
    for _ in 0..ATTEMPTS {
        let current = store.get(key).await?;
        let text = current.as_deref().map(String::from_utf8_lossy).unwrap_or_default();
        let mut members: Vec<&str> = text.lines().filter(|m| !m.is_empty()).collect();
        if members.contains(&member) {
            store.touch(key, ttl).await?;
            return Ok(true);
        }
        if members.len() >= max {
            let mut alive = Vec::with_capacity(members.len());
            for m in members {
                if store.get(&format!("{alive_prefix}{m}")).await?.is_some() {
                    alive.push(m);
                }
            }
            members = alive;
            if members.len() >= max {
                return Ok(false);
            }
        }
        members.push(member);
        let next = members.join("\n").into_bytes();
        if store.compare_and_set(key, current.as_deref(), next, ttl).await? {
            return Ok(true);
        }
    }
    Err(StateError(format!("admit {key}: still contended after {ATTEMPTS} attempts")))
}

/// A 32-byte secret shared by every instance using `store` (created by the
/// first to ask, kept for a year and renewed on each start): what
/// instances behind one address sign their pagination cursors with, so a
/// cursor from one is accepted by the others (`ServerOptions::cursor_key`).
pub async fn shared_secret(store: &dyn StateStore, name: &str) -> Result<[u8; 32], StateError> {
    const YEAR: Duration = Duration::from_secs(365 * 24 * 3600);
    let key = format!("secret:{name}");
    let mut fresh = [0u8; 32];
    getrandom::fill(&mut fresh).map_err(|e| StateError(format!("no randomness: {e}")))?;
    store.set_if_absent(&key, fresh.to_vec(), YEAR).await?;
    let stored = store.get(&key).await?.ok_or_else(|| StateError(format!("{key} vanished")))?;
    store.touch(&key, YEAR).await?;
    stored.try_into().map_err(|_| StateError(format!("{key} is not 32 bytes")))
}
