//! A [`StateStore`] on Redis, for several `switchboard-server` instances behind one
//! address.
//!
//! # Why
//!
//! [`MemoryStore`](switchboard_server::state::MemoryStore) keeps server state
//! (stateful-tool handles, legacy HTTP sessions and their event logs, the
//! cursor key, the change-notification bus) inside one process. Once a load
//! balancer spreads clients over several instances, every instance must see
//! the same state: [`RedisStore`] keeps it in one Redis server, with exactly
//! the same semantics as the memory store (the tests run one suite of
//! assertions against both).
//!
//! # How
//!
//! ```no_run
//! # async fn demo() -> Result<(), switchboard_server::state::StateError> {
//! use std::time::Duration;
//! use switchboard_server::state::StateStore;
//! use switchboard_state_redis::RedisStore;
//!
//! let store = RedisStore::connect("redis://127.0.0.1:6379", "switchboard-prod").await?;
//! store.set("greeting", b"hi".to_vec(), Duration::from_secs(60)).await?;
//! assert_eq!(store.get("greeting").await?, Some(b"hi".to_vec()));
//! # Ok(()) }
//! ```
//!
//! Hand the `Arc<RedisStore>` to `ServerBuilder::state` (and to the HTTP
//! transport) on every instance, with the same URL and namespace.
//!
//! * Commands go through one [`ConnectionManager`], which reconnects by
//!   itself; a command that may safely run twice (every one but `append`
//!   and `publish`) is sent once more when the first attempt failed on the
//!   connection, so the first request after Redis returns succeeds. Every command is bounded in time: while Redis is unreachable
//!   each operation fails within a few seconds with a [`StateError`] naming
//!   the operation, and succeeds again once Redis is back.
//! * Every Redis key starts with `{namespace}:`, so deployments sharing a
//!   server do not see each other. Inside a namespace, values live at
//!   `{namespace}:v:{key}`, logs at `{namespace}:log:{key}` (a list of
//!   `seq:value` entries) with their counter at `{namespace}:seq:{key}`, so
//!   a value and a log may share a key as in the memory store.
//! * Values use `SET … PX`; [`set_if_absent`](StateStore::set_if_absent) is
//!   `SET NX PX`, [`compare_and_set`](StateStore::compare_and_set) a Lua
//!   script (compare with `GET`, then `SET … PX`, atomic in Redis), [`touch`](StateStore::touch) `PEXPIRE`, [`delete`](StateStore::delete)
//!   `DEL`. Appending to a log (counter, push, trim, expiry) and the
//!   operations that span a value and a log run as Lua scripts, so each is
//!   atomic.
//! * [`admit`](StateStore::admit) (how `max_sessions` holds across
//!   instances) is a Redis set `{namespace}:set:{key}` changed by one Lua
//!   script: a member is added while fewer than `max` members are live, a
//!   member being live while its value (a session's record) exists; when
//!   full, a random sample of members is checked and the dead removed.
//! * [`publish`](StateStore::publish) appends to a capped Redis stream,
//!   `{namespace}:stream:{channel}` (`XADD … MAXLEN ~ 10000`, the newest
//!   messages kept for a day after the last one), numbering each message
//!   from the counter `{namespace}:streamseq:{channel}` in the same Lua
//!   script. Each [`subscribe`](StateStore::subscribe) runs a task with its
//!   own connection that reads the stream (`XREAD BLOCK`) from the last
//!   message it saw and forwards to the returned stream; when the
//!   connection is lost it reconnects with backoff (100 ms doubling to
//!   2 s) and reads on from where it stopped, so messages published
//!   meanwhile still arrive, in order. The stream ends when the store is
//!   dropped (or its receiver is).
//! * Where that cannot close the gap, the loss is reported, never silent
//!   ([`subscribe_with_gaps`](StateStore::subscribe_with_gaps) yields
//!   [`Delivery::Gap`]): when the numbers of two successive messages are
//!   not consecutive (the stream was trimmed past the subscriber, or
//!   expired), and when Redis was restarted (its `run_id` changed, so it
//!   may have lost messages: the subscriber then starts again from the
//!   stream's end). The `run_id` rather than an epoch key, because a Redis
//!   restored from an older snapshot brings an epoch key back but not the
//!   newest messages; where `INFO` is refused, every reconnection counts as
//!   a restart. A subscription whose first connection failed reports a
//!   gap once it is made.
//!   [`RedisStore::subscribe_ready`] waits until the subscription reads,
//!   for callers that must not miss the next message.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use futures::future::BoxFuture;
use futures::stream::BoxStream;
use redis::aio::{ConnectionManager, ConnectionManagerConfig, MultiplexedConnection};
use redis::{AsyncConnectionConfig, Client, Script, Value};
use switchboard_server::state::{ADMIT_SAMPLE, Delivery, LogEntries, StateError, StateStore};
use tokio::sync::{mpsc, watch};

/// Longest time one operation may take before it fails with a
/// [`StateError`], whatever the connection is doing.
pub const OPERATION_TIMEOUT: Duration = Duration::from_secs(3);
/// How long Redis may take to answer one command.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(2);
/// How long establishing one connection may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(1);
/// First pause before a lost subscription connects again.
const RESUBSCRIBE_MIN_DELAY: Duration = Duration::from_millis(100);
/// Longest pause between two subscription attempts.
const RESUBSCRIBE_MAX_DELAY: Duration = Duration::from_secs(2);
/// Messages buffered per subscription before the reader stops reading
/// (the stream keeps the rest).
const SUBSCRIPTION_BUFFER: usize = 256;
/// Messages a channel's stream keeps by default (at least; `MAXLEN ~`
/// trims whole blocks): how far a subscriber may fall behind, or how many
/// messages a disconnected one may miss, before it is told of a gap.
pub const STREAM_MAX_LEN: usize = 10_000;
/// How long a channel's stream and counter live after the last publish.
const STREAM_TTL: Duration = Duration::from_secs(24 * 3600);
/// How long one `XREAD` waits for a message before asking again.
const READ_BLOCK: Duration = Duration::from_secs(1);
/// Messages one `XREAD` returns at most.
const READ_COUNT: usize = 512;

/// Publishes to a channel's stream. KEYS: stream, counter. ARGV: message,
/// max length, ttl in ms. Returns the message's number.
const PUBLISH: &str = r"
local n = redis.call('INCR', KEYS[2])
redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 'n', n, 'm', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return n
";

/// Where a new subscriber starts: the id and number of the stream's last
/// message. KEYS: stream, counter. Returns {id, number} ("0-0" and the
/// counter when the stream is empty).
const STREAM_END: &str = r"
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local n = redis.call('GET', KEYS[2]) or '0'
if last[1] then return {last[1][1], n} end
return {'0-0', n}
";

/// Appends to a log atomically. KEYS: log list, counter. ARGV: value,
/// max_len (decimal, at least 1), ttl in ms.
const APPEND: &str = r"
local seq = redis.call('INCR', KEYS[2])
redis.call('RPUSH', KEYS[1], string.format('%d:', seq) .. ARGV[1])
redis.call('LTRIM', KEYS[1], '-' .. ARGV[2], -1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return seq
";

/// Removes a value and a log. KEYS: value, log list, counter. Returns 1 if
/// either existed.
const DELETE: &str = r"
local value = redis.call('DEL', KEYS[1])
local log = redis.call('DEL', KEYS[2])
redis.call('DEL', KEYS[3])
if value + log > 0 then return 1 end
return 0
";

/// Renews a value's time to live or else a log's. KEYS: value, log list,
/// counter. ARGV: ttl in ms. Returns 1 if something was renewed.
const TOUCH: &str = r"
if redis.call('PEXPIRE', KEYS[1], ARGV[1]) == 1 then return 1 end
if redis.call('PEXPIRE', KEYS[2], ARGV[1]) == 1 then
  redis.call('PEXPIRE', KEYS[3], ARGV[1])
  return 1
end
return 0
";

/// Compare-and-set. KEYS: value. ARGV: "1" and the expected value, or "0"
/// and "" for "absent"; the new value; ttl in ms. Returns 1 if replaced.
const COMPARE_AND_SET: &str = r"
local current = redis.call('GET', KEYS[1])
if ARGV[1] == '1' then
  if current ~= ARGV[2] then return 0 end
elseif current then
  return 0
end
redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
return 1
";

/// Admits a member into a bounded set. KEYS: the set. ARGV: member, max,
/// the full key prefix of the members' liveness values, ttl in ms, how
/// many members to check when full. Returns 1 if the member is in the set.
/// (Reads liveness keys not named in KEYS: fine on one Redis server, the
/// deployment this store is for.)
const ADMIT: &str = r"
local set, member, max = KEYS[1], ARGV[1], tonumber(ARGV[2])
if redis.call('SISMEMBER', set, member) == 1 then
  redis.call('PEXPIRE', set, ARGV[4])
  return 1
end
if redis.call('SCARD', set) >= max then
  for _, m in ipairs(redis.call('SRANDMEMBER', set, ARGV[5])) do
    if redis.call('EXISTS', ARGV[3] .. m) == 0 then redis.call('SREM', set, m) end
  end
  if redis.call('SCARD', set) >= max then return 0 end
end
redis.call('SADD', set, member)
redis.call('PEXPIRE', set, ARGV[4])
return 1
";

/// The [`StateStore`] on Redis. See the [crate docs](crate).
pub struct RedisStore {
    client: Client,
    /// The managed connection, once the first one was made ([`RedisStore::start`]
    /// makes it in the background).
    conn: Arc<tokio::sync::OnceCell<ConnectionManager>>,
    /// Why the first connection has not been made yet.
    connecting: Arc<std::sync::Mutex<String>>,
    namespace: String,
    append: Script,
    delete: Script,
    touch: Script,
    compare_and_set: Script,
    publish: Script,
    admit: Script,
    /// Messages each channel's stream keeps ([`STREAM_MAX_LEN`] unless set).
    stream_max_len: std::sync::atomic::AtomicUsize,
    /// Dropped with the store, which ends every subscription task.
    _alive: watch::Sender<()>,
    alive: watch::Receiver<()>,
}

impl fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisStore")
            .field("server", &self.client.get_connection_info().addr().to_string())
            .field("namespace", &self.namespace)
            .finish_non_exhaustive()
    }
}

impl RedisStore {
    /// Connects to the Redis server at `url` (`redis://host:port[/db]`),
    /// keeping every key under `{namespace}:`. Fails if the URL is invalid
    /// or the first connection cannot be made; later connection losses are
    /// repaired by themselves.
    pub async fn connect(url: &str, namespace: &str) -> Result<Arc<RedisStore>, StateError> {
        let store = Self::unconnected(url, namespace)?;
        let conn = establish(&store.client).await.map_err(|e| StateError(format!("redis connect: {e}")))?;
        let _ = store.conn.set(conn);
        Ok(store)
    }

    /// Like [`RedisStore::connect`], but does not wait for Redis: the first
    /// connection is made in the background, retried with backoff (100 ms
    /// doubling to 2 s) until it succeeds or the store is dropped.
    /// Meanwhile every operation fails at once with a [`StateError`] saying
    /// so. For a server that must start, and serve what needs no shared
    /// state, while Redis is down. Fails only for an invalid URL.
    pub fn start(url: &str, namespace: &str) -> Result<Arc<RedisStore>, StateError> {
        let store = Self::unconnected(url, namespace)?;
        let (client, cell, why, mut alive) = (
            store.client.clone(),
            Arc::clone(&store.conn),
            Arc::clone(&store.connecting),
            store.alive.clone(),
        );
        tokio::spawn(async move {
            let mut delay = RESUBSCRIBE_MIN_DELAY;
            loop {
                match establish(&client).await {
                    Ok(conn) => {
                        let _ = cell.set(conn);
                        return;
                    }
                    Err(e) => *why.lock().unwrap_or_else(|p| p.into_inner()) = e,
                }
                tokio::select! {
                    _ = tokio::time::sleep(delay) => {}
                    _ = alive.changed() => return,
                }
                delay = (delay * 2).min(RESUBSCRIBE_MAX_DELAY);
            }
        });
        Ok(store)
    }

    /// Whether the first connection was made (the store may still be
    /// briefly unreachable later; operations then fail and recover).
    pub fn is_connected(&self) -> bool {
        self.conn.initialized()
    }

    fn unconnected(url: &str, namespace: &str) -> Result<Arc<RedisStore>, StateError> {
        let shown = redacted(url);
        let client = Client::open(url)
            .map_err(|e| StateError(format!("redis connect: invalid url {shown:?}: {e}")))?;
        let (alive_tx, alive) = watch::channel(());
        Ok(Arc::new(RedisStore {
            client,
            conn: Arc::new(tokio::sync::OnceCell::new()),
            connecting: Arc::new(std::sync::Mutex::new(format!("connecting to {shown}"))),
            namespace: namespace.to_owned(),
            append: Script::new(APPEND),
            delete: Script::new(DELETE),
            touch: Script::new(TOUCH),
            compare_and_set: Script::new(COMPARE_AND_SET),
            publish: Script::new(PUBLISH),
            admit: Script::new(ADMIT),
            stream_max_len: std::sync::atomic::AtomicUsize::new(STREAM_MAX_LEN),
            _alive: alive_tx,
            alive,
        }))
    }

    /// The managed connection, or the reason there is none yet.
    fn conn(&self) -> redis::RedisResult<ConnectionManager> {
        self.conn.get().cloned().ok_or_else(|| {
            let why = self.connecting.lock().unwrap_or_else(|p| p.into_inner()).clone();
            redis::RedisError::from(std::io::Error::new(
                std::io::ErrorKind::NotConnected,
                format!("not connected yet, retrying in the background ({why})"),
            ))
        })
    }

    /// Sets how many messages each channel's stream keeps from now on (at
    /// least 1; [`STREAM_MAX_LEN`] by default): more lets a subscriber be
    /// disconnected longer before it is told of a gap, at the price of
    /// Redis memory.
    pub fn set_stream_max_len(&self, max_len: usize) {
        self.stream_max_len.store(max_len.max(1), std::sync::atomic::Ordering::Relaxed);
    }

    /// The namespace every key of this store lives under.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// Like [`StateStore::subscribe`], but returns only once the
    /// subscription reads, so every message published afterwards is
    /// delivered. Fails if that first connection cannot be made; after that
    /// the stream reconnects by itself like any other.
    pub async fn subscribe_ready(&self, channel: &str) -> Result<BoxStream<'static, Vec<u8>>, StateError> {
        Ok(only_messages(self.subscribe_with_gaps_ready(channel).await?))
    }

    /// [`subscribe_ready`](RedisStore::subscribe_ready) that reports gaps
    /// like [`StateStore::subscribe_with_gaps`].
    pub async fn subscribe_with_gaps_ready(
        &self,
        channel: &str,
    ) -> Result<BoxStream<'static, Delivery>, StateError> {
        let keys = self.stream_keys(channel);
        let first = tokio::time::timeout(OPERATION_TIMEOUT * 2, open_reader(&self.client, &keys, None))
            .await
            .unwrap_or_else(|_| Err(timed_out("subscription")))
            .map_err(|e| StateError(format!("redis subscribe {channel}: {e}")))?;
        Ok(self.spawn_subscription(keys, Some(first)))
    }

    /// Runs `cmd` on a clone of the managed connection.
    fn query<T: redis::FromRedisValue>(
        &self,
        cmd: &redis::Cmd,
    ) -> impl Future<Output = redis::RedisResult<T>> {
        let conn = self.conn();
        let cmd = cmd.clone();
        async move { cmd.query_async(&mut conn?).await }
    }

    /// Runs a script invocation on a clone of the managed connection.
    fn invoke<'s, T: redis::FromRedisValue>(
        &self,
        invocation: &'s redis::ScriptInvocation<'_>,
    ) -> impl Future<Output = redis::RedisResult<T>> + 's {
        let conn = self.conn();
        async move { invocation.invoke_async(&mut conn?).await }
    }

    fn value_key(&self, key: &str) -> String {
        format!("{}:v:{key}", self.namespace)
    }

    fn log_keys(&self, key: &str) -> (String, String) {
        (format!("{}:log:{key}", self.namespace), format!("{}:seq:{key}", self.namespace))
    }

    fn stream_keys(&self, channel: &str) -> StreamKeys {
        StreamKeys {
            stream: format!("{}:stream:{channel}", self.namespace),
            counter: format!("{}:streamseq:{channel}", self.namespace),
        }
    }

    fn spawn_subscription(&self, keys: StreamKeys, first: Option<Reader>) -> BoxStream<'static, Delivery> {
        let (tx, rx) = mpsc::channel(SUBSCRIPTION_BUFFER);
        let task = forward(self.client.clone(), keys, first, tx, self.alive.clone());
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(task);
            }
            // No runtime here: start forwarding when the stream is first
            // polled, which happens inside one.
            Err(_) => {
                let start = futures::stream::once(async move {
                    tokio::spawn(task);
                })
                .filter_map(|()| std::future::ready(None));
                return Box::pin(start.chain(receiver_stream(rx)));
            }
        }
        Box::pin(receiver_stream(rx))
    }
}

fn receiver_stream(rx: mpsc::Receiver<Delivery>) -> impl futures::Stream<Item = Delivery> + Send + 'static {
    futures::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|message| (message, rx)) })
}

/// `url` without its credentials (`redis://user:secret@host` becomes
/// `redis://***@host`), for error messages.
fn redacted(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_owned() };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{scheme}://***{}", &rest[at..]),
        None => url.to_owned(),
    }
}

/// Makes the managed connection (bounded in time).
async fn establish(client: &Client) -> Result<ConnectionManager, String> {
    let config = ConnectionManagerConfig::new()
        .set_response_timeout(Some(RESPONSE_TIMEOUT))
        .set_connection_timeout(Some(CONNECT_TIMEOUT))
        .set_number_of_retries(1)
        .set_min_delay(Duration::from_millis(100))
        .set_max_delay(Duration::from_millis(500));
    let shown = redacted(&client.get_connection_info().addr().to_string());
    match tokio::time::timeout(
        OPERATION_TIMEOUT * 2,
        ConnectionManager::new_with_config(client.clone(), config),
    )
    .await
    {
        Ok(Ok(conn)) => Ok(conn),
        Ok(Err(e)) => Err(format!("{shown}: {e}")),
        Err(_) => Err(format!("{shown}: timed out")),
    }
}

/// Runs `op` bounded by [`OPERATION_TIMEOUT`], naming `what` in its error.
async fn bounded<T>(
    what: impl FnOnce() -> String,
    op: impl Future<Output = redis::RedisResult<T>>,
) -> Result<T, StateError> {
    match tokio::time::timeout(OPERATION_TIMEOUT, op).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => Err(StateError(format!("redis {}: {e}", what()))),
        Err(_) => Err(StateError(format!("redis {}: timed out after {OPERATION_TIMEOUT:?}", what()))),
    }
}

/// Runs an idempotent command bounded like [`bounded`], and once more when
/// the first attempt failed on the connection: after Redis comes back the
/// connection manager reports the stale failure once before it reconnects,
/// and a client must not see that blip. Only for commands that may safely
/// run twice (reads, renewals, plain writes of one value, compare-and-set,
/// whose callers recognise their own earlier write).
async fn idempotent<T, Fut>(what: impl Fn() -> String, mut op: impl FnMut() -> Fut) -> Result<T, StateError>
where
    Fut: Future<Output = redis::RedisResult<T>>,
{
    match tokio::time::timeout(OPERATION_TIMEOUT, op()).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) if e.is_io_error() || e.is_connection_dropped() || e.is_connection_refusal() => {
            tracing::debug!(error = %e, "redis {}: retrying once on a fresh connection", what());
            bounded(what, op()).await
        }
        Ok(Err(e)) => Err(StateError(format!("redis {}: {e}", what()))),
        Err(_) => Err(StateError(format!("redis {}: timed out after {OPERATION_TIMEOUT:?}", what()))),
    }
}

/// A time to live in whole milliseconds, as Redis wants it: at least 1
/// (Redis refuses 0) and far below its overflow limit.
fn ttl_ms(ttl: Duration) -> u64 {
    const CENTURY_MS: u128 = 100 * 365 * 24 * 3600 * 1000;
    ttl.as_millis().clamp(1, CENTURY_MS) as u64
}

/// Splits a log entry stored as `seq:value`.
fn parse_entry(raw: &[u8]) -> Option<(u64, Vec<u8>)> {
    let colon = raw.iter().position(|&b| b == b':')?;
    let seq = std::str::from_utf8(&raw[..colon]).ok()?.parse().ok()?;
    Some((seq, raw[colon + 1..].to_vec()))
}

/// The messages of a subscription, gaps left out (what plain
/// [`StateStore::subscribe`] promises).
fn only_messages(deliveries: BoxStream<'static, Delivery>) -> BoxStream<'static, Vec<u8>> {
    Box::pin(deliveries.filter_map(|delivery| {
        std::future::ready(match delivery {
            Delivery::Message(message) => Some(message),
            Delivery::Gap => None,
        })
    }))
}

fn timed_out(what: &str) -> redis::RedisError {
    redis::RedisError::from(std::io::Error::new(std::io::ErrorKind::TimedOut, format!("{what} timed out")))
}

/// The Redis keys of one channel.
#[derive(Debug, Clone)]
struct StreamKeys {
    stream: String,
    counter: String,
}

/// Where a subscription has read up to.
#[derive(Debug, Clone)]
struct Position {
    /// The `run_id` of the Redis server the position is in (`None`: it
    /// would not say, so every reconnection counts as a restart).
    server: Option<String>,
    /// The id of the last message seen (`0-0`: none yet).
    last_id: String,
    /// The number of the last message seen.
    last_n: u64,
}

/// A subscription's connection and its position.
struct Reader {
    conn: MultiplexedConnection,
    position: Position,
    /// Whether messages may have been lost before `position` (Redis
    /// restarted since the position was taken).
    gap: bool,
}

/// Connects for reading a channel: continues from `previous` when it is in
/// the same Redis server's lifetime, else starts at the stream's end and
/// says a gap may lie before it.
async fn open_reader(
    client: &Client,
    keys: &StreamKeys,
    previous: Option<Position>,
) -> redis::RedisResult<Reader> {
    // No response timeout: XREAD BLOCK waits; every command here is bounded
    // by the caller's timeout instead.
    let config =
        AsyncConnectionConfig::new().set_connection_timeout(Some(CONNECT_TIMEOUT)).set_response_timeout(None);
    let mut conn = client.get_multiplexed_async_connection_with_config(&config).await?;
    let server = server_run_id(&mut conn).await;
    let restarted = previous.is_some();
    if let Some(position) = previous
        && position.server.is_some()
        && position.server == server
    {
        return Ok(Reader { conn, position, gap: false });
    }
    let (last_id, last_n): (String, String) =
        Script::new(STREAM_END).key(&keys.stream).key(&keys.counter).invoke_async(&mut conn).await?;
    let last_n = last_n.parse().unwrap_or(0);
    Ok(Reader { conn, position: Position { server, last_id, last_n }, gap: restarted })
}

/// The Redis server's `run_id` (new at every start), if `INFO` answers.
async fn server_run_id(conn: &mut MultiplexedConnection) -> Option<String> {
    let info: String = redis::cmd("INFO").arg("server").query_async(conn).await.ok()?;
    info.lines().find_map(|line| line.strip_prefix("run_id:")).map(|id| id.trim().to_owned())
}

/// One message read from a stream.
#[derive(Debug, Clone, PartialEq)]
struct StreamEntry {
    id: String,
    /// Its number, if it has a valid one.
    n: Option<u64>,
    message: Vec<u8>,
}

/// The entries of an `XREAD` reply for one stream (`Nil`: none yet), in
/// RESP2 (arrays) or RESP3 (a map) form.
fn read_entries(reply: Value) -> Option<Vec<StreamEntry>> {
    let streams = match reply {
        Value::Nil => return Some(Vec::new()),
        Value::Array(streams) => streams
            .into_iter()
            .map(|stream| match stream {
                Value::Array(mut pair) if pair.len() == 2 => pair.pop(),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?,
        Value::Map(streams) => streams.into_iter().map(|(_, entries)| entries).collect(),
        _ => return None,
    };
    let mut entries = Vec::new();
    for stream in streams {
        let Value::Array(items) = stream else { return None };
        for item in items {
            entries.push(stream_entry(item)?);
        }
    }
    Some(entries)
}

fn stream_entry(item: Value) -> Option<StreamEntry> {
    let Value::Array(parts) = item else { return None };
    let [id, Value::Array(fields)] = <[Value; 2]>::try_from(parts).ok()? else { return None };
    let id = bytes_of(id).and_then(|b| String::from_utf8(b).ok())?;
    let (mut n, mut message) = (None, Vec::new());
    let mut fields = fields.into_iter();
    while let (Some(name), Some(value)) = (fields.next(), fields.next()) {
        match bytes_of(name).as_deref() {
            Some(b"n") => n = bytes_of(value).and_then(|b| std::str::from_utf8(&b).ok()?.parse().ok()),
            Some(b"m") => message = bytes_of(value)?,
            _ => {}
        }
    }
    Some(StreamEntry { id, n, message })
}

fn bytes_of(value: Value) -> Option<Vec<u8>> {
    match value {
        Value::BulkString(bytes) => Some(bytes),
        Value::SimpleString(text) => Some(text.into_bytes()),
        Value::Int(n) => Some(n.to_string().into_bytes()),
        _ => None,
    }
}

/// Forwards the messages of a channel's stream to `tx`, reconnecting and
/// reading on after every connection loss, until `tx`'s receiver or the
/// store (`alive`'s sender) is dropped. Reports a gap wherever messages
/// may be missing.
async fn forward(
    client: Client,
    keys: StreamKeys,
    mut first: Option<Reader>,
    tx: mpsc::Sender<Delivery>,
    mut alive: watch::Receiver<()>,
) {
    let mut position: Option<Position> = None;
    // A subscription that could not start at once may have missed what
    // was published meanwhile.
    let mut owe_gap = false;
    let mut delay = RESUBSCRIBE_MIN_DELAY;
    loop {
        let reader = match first.take() {
            Some(reader) => Some(reader),
            None => {
                let attempt = tokio::time::timeout(
                    OPERATION_TIMEOUT * 2,
                    open_reader(&client, &keys, position.clone()),
                );
                tokio::select! {
                    result = attempt => result.ok().and_then(Result::ok),
                    _ = alive.changed() => return,
                    _ = tx.closed() => return,
                }
            }
        };
        let Some(mut reader) = reader else {
            owe_gap |= position.is_none();
            tokio::select! {
                _ = tokio::time::sleep(delay) => {}
                _ = alive.changed() => return,
                _ = tx.closed() => return,
            }
            delay = (delay * 2).min(RESUBSCRIBE_MAX_DELAY);
            continue;
        };
        delay = RESUBSCRIBE_MIN_DELAY;
        if (reader.gap || std::mem::take(&mut owe_gap)) && tx.send(Delivery::Gap).await.is_err() {
            return;
        }
        let ended = read_on(&mut reader, &keys, &tx, &mut alive).await;
        position = Some(reader.position);
        if ended {
            return;
        }
        // The connection is gone: try again at once (it may be a brief
        // blip), then back off.
    }
}

/// Reads `reader`'s stream until its connection fails (false) or the
/// subscription ends (true).
async fn read_on(
    reader: &mut Reader,
    keys: &StreamKeys,
    tx: &mpsc::Sender<Delivery>,
    alive: &mut watch::Receiver<()>,
) -> bool {
    let block_ms = u64::try_from(READ_BLOCK.as_millis()).unwrap_or(u64::MAX);
    loop {
        let cmd = redis::cmd("XREAD")
            .arg("COUNT")
            .arg(READ_COUNT)
            .arg("BLOCK")
            .arg(block_ms)
            .arg("STREAMS")
            .arg(&keys.stream)
            .arg(&reader.position.last_id)
            .clone();
        let read =
            tokio::time::timeout(READ_BLOCK + RESPONSE_TIMEOUT, cmd.query_async::<Value>(&mut reader.conn));
        let reply = tokio::select! {
            reply = read => reply,
            _ = alive.changed() => return true,
            _ = tx.closed() => return true,
        };
        let Ok(Ok(reply)) = reply else { return false };
        let Some(entries) = read_entries(reply) else {
            tracing::warn!(stream = %keys.stream, "an unreadable XREAD reply: reading again from the last message");
            return false;
        };
        for entry in entries {
            let position = &mut reader.position;
            let follows = entry.n == Some(position.last_n + 1);
            if !follows && tx.send(Delivery::Gap).await.is_err() {
                return true;
            }
            position.last_id = entry.id;
            position.last_n = entry.n.unwrap_or(0);
            if tx.send(Delivery::Message(entry.message)).await.is_err() {
                return true;
            }
        }
    }
}

impl StateStore for RedisStore {
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Vec<u8>>, StateError>> {
        Box::pin(async move {
            let cmd = redis::cmd("GET").arg(self.value_key(key)).clone();
            idempotent(|| format!("get {key}"), || self.query(&cmd)).await
        })
    }

    fn set<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StateError>> {
        Box::pin(async move {
            let cmd =
                redis::cmd("SET").arg(self.value_key(key)).arg(value).arg("PX").arg(ttl_ms(ttl)).clone();
            idempotent(|| format!("set {key}"), || self.query::<Value>(&cmd)).await?;
            Ok(())
        })
    }

    fn set_if_absent<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, StateError>> {
        Box::pin(async move {
            let cmd = redis::cmd("SET")
                .arg(self.value_key(key))
                .arg(value)
                .arg("NX")
                .arg("PX")
                .arg(ttl_ms(ttl))
                .clone();
            let reply = idempotent(|| format!("set_if_absent {key}"), || self.query::<Value>(&cmd)).await?;
            Ok(!matches!(reply, Value::Nil))
        })
    }

    fn compare_and_set<'a>(
        &'a self,
        key: &'a str,
        expected: Option<&'a [u8]>,
        value: Vec<u8>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, StateError>> {
        Box::pin(async move {
            let mut invocation = self.compare_and_set.key(self.value_key(key));
            match expected {
                Some(expected) => invocation.arg("1").arg(expected),
                None => invocation.arg("0").arg(""),
            };
            invocation.arg(value).arg(ttl_ms(ttl));
            let replaced: i64 =
                idempotent(|| format!("compare_and_set {key}"), || self.invoke(&invocation)).await?;
            Ok(replaced == 1)
        })
    }

    fn delete<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<bool, StateError>> {
        Box::pin(async move {
            let (log, seq) = self.log_keys(key);
            let mut invocation = self.delete.key(self.value_key(key));
            invocation.key(log).key(seq);
            let removed: i64 = idempotent(|| format!("delete {key}"), || self.invoke(&invocation)).await?;
            Ok(removed == 1)
        })
    }

    fn touch<'a>(&'a self, key: &'a str, ttl: Duration) -> BoxFuture<'a, Result<bool, StateError>> {
        Box::pin(async move {
            let (log, seq) = self.log_keys(key);
            let mut invocation = self.touch.key(self.value_key(key));
            invocation.key(log).key(seq).arg(ttl_ms(ttl));
            let renewed: i64 = idempotent(|| format!("touch {key}"), || self.invoke(&invocation)).await?;
            Ok(renewed == 1)
        })
    }

    fn append<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        max_len: usize,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<u64, StateError>> {
        Box::pin(async move {
            let mut conn = self.conn().map_err(|e| StateError(format!("redis append {key}: {e}")))?;
            let (log, seq) = self.log_keys(key);
            let max_len = max_len.clamp(1, i64::MAX as usize);
            let mut invocation = self.append.key(log);
            invocation.key(seq).arg(value).arg(max_len).arg(ttl_ms(ttl));
            bounded(|| format!("append {key}"), invocation.invoke_async(&mut conn)).await
        })
    }

    fn read_after<'a>(&'a self, key: &'a str, after: u64) -> BoxFuture<'a, Result<LogEntries, StateError>> {
        Box::pin(async move {
            let (log, _) = self.log_keys(key);
            let cmd = redis::cmd("LRANGE").arg(log).arg(0).arg(-1).clone();
            let raw: Vec<Vec<u8>> = idempotent(|| format!("read_after {key}"), || self.query(&cmd)).await?;
            let mut entries = Vec::with_capacity(raw.len());
            for item in raw {
                let (seq, value) = parse_entry(&item)
                    .ok_or_else(|| StateError(format!("redis read_after {key}: malformed log entry")))?;
                if seq > after {
                    entries.push((seq, value));
                }
            }
            Ok(entries)
        })
    }

    fn publish<'a>(&'a self, channel: &'a str, message: Vec<u8>) -> BoxFuture<'a, Result<(), StateError>> {
        Box::pin(async move {
            let mut conn = self.conn().map_err(|e| StateError(format!("redis publish {channel}: {e}")))?;
            let keys = self.stream_keys(channel);
            let mut invocation = self.publish.key(keys.stream);
            invocation
                .key(keys.counter)
                .arg(message)
                .arg(self.stream_max_len.load(std::sync::atomic::Ordering::Relaxed))
                .arg(ttl_ms(STREAM_TTL));
            bounded(|| format!("publish {channel}"), invocation.invoke_async::<u64>(&mut conn)).await?;
            Ok(())
        })
    }

    fn subscribe(&self, channel: &str) -> BoxStream<'static, Vec<u8>> {
        only_messages(self.subscribe_with_gaps(channel))
    }

    /// A Redis set (`{namespace}:set:{key}`), admitted to by one Lua
    /// script; when full, up to [`ADMIT_SAMPLE`] random members are checked.
    fn admit<'a>(
        &'a self,
        key: &'a str,
        member: &'a str,
        max: usize,
        alive_prefix: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, StateError>> {
        Box::pin(async move {
            let mut invocation = self.admit.key(format!("{}:set:{key}", self.namespace));
            invocation
                .arg(member)
                .arg(max)
                .arg(self.value_key(alive_prefix))
                .arg(ttl_ms(ttl))
                .arg(ADMIT_SAMPLE);
            let admitted: i64 = idempotent(|| format!("admit {key}"), || self.invoke(&invocation)).await?;
            Ok(admitted == 1)
        })
    }

    fn subscribe_with_gaps(&self, channel: &str) -> BoxStream<'static, Delivery> {
        self.spawn_subscription(self.stream_keys(channel), None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_parse_with_colons_in_values() {
        assert_eq!(parse_entry(b"12:a:b"), Some((12, b"a:b".to_vec())));
        assert_eq!(parse_entry(b"3:"), Some((3, Vec::new())));
        assert_eq!(parse_entry(b"x:1"), None);
        assert_eq!(parse_entry(b"nocolon"), None);
    }

    #[test]
    fn credentials_stay_out_of_errors() {
        assert_eq!(redacted("redis://:secret@127.0.0.1:6379/2"), "redis://***@127.0.0.1:6379/2");
        assert_eq!(redacted("rediss://user:p@ss@host"), "rediss://***@host");
        assert_eq!(redacted("redis://127.0.0.1:6379"), "redis://127.0.0.1:6379");
        assert_eq!(redacted("not a url"), "not a url");
    }

    fn entry(id: &str, n: &str, message: &[u8]) -> Value {
        let field = |b: &[u8]| Value::BulkString(b.to_vec());
        Value::Array(vec![
            field(id.as_bytes()),
            Value::Array(vec![field(b"n"), field(n.as_bytes()), field(b"m"), field(message)]),
        ])
    }

    #[test]
    fn xread_replies_parse_in_both_protocols() {
        let entries = vec![entry("1-0", "7", b"a"), entry("1-1", "x", b"b:c")];
        let resp2 = Value::Array(vec![Value::Array(vec![
            Value::BulkString(b"ns:stream:c".to_vec()),
            Value::Array(entries.clone()),
        ])]);
        let resp3 = Value::Map(vec![(Value::BulkString(b"ns:stream:c".to_vec()), Value::Array(entries))]);
        let expected = vec![
            StreamEntry { id: "1-0".into(), n: Some(7), message: b"a".to_vec() },
            StreamEntry { id: "1-1".into(), n: None, message: b"b:c".to_vec() },
        ];
        assert_eq!(read_entries(resp2), Some(expected.clone()));
        assert_eq!(read_entries(resp3), Some(expected));
        assert_eq!(read_entries(Value::Nil), Some(Vec::new()), "nothing yet");
        assert_eq!(read_entries(Value::Int(3)), None, "not a reply to XREAD");
    }

    #[test]
    fn ttls_are_whole_positive_milliseconds() {
        assert_eq!(ttl_ms(Duration::ZERO), 1);
        assert_eq!(ttl_ms(Duration::from_micros(1500)), 1);
        assert_eq!(ttl_ms(Duration::from_millis(200)), 200);
        assert!(ttl_ms(Duration::MAX) < i64::MAX as u64);
    }
}
