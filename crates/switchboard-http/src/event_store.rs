//! Storage of SSE events for resumption (`GET` + `Last-Event-ID`).
//!
//! Event ids are `{stream}.{seq}`: globally unique within a session and
//! naming the stream they came from (the 2025-11-25 SHOULD), so a resume
//! replays only that stream's later events and never another stream's or
//! another session's.
//!
//! [`InMemoryEventStore`] serves one process; [`StateEventStore`] keeps the
//! events in a [`StateStore`] so a client resumes on any instance.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use switchboard_server::state::{StateError, StateStore};

/// One stored SSE event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEvent {
    /// Its SSE id.
    pub id: String,
    /// The JSON-RPC message (empty for a priming event).
    pub data: Vec<u8>,
}

/// What [`EventStore::replay_after`] answers: the stream the id belongs to
/// and its later events, or `None` if the id is not one this session was
/// given (or its stream is gone).
pub type Replay = Option<(String, Vec<StoredEvent>)>;

/// Where SSE events are kept for replay. The default keeps them in memory;
/// a shared implementation ([`StateEventStore`]) lets a client resume on
/// another instance. The methods are asynchronous so an implementation may
/// use the network; a [`StateError`] is reported to the client as `503`
/// (or, for an event being sent, the event goes out without an id).
pub trait EventStore: Send + Sync + 'static {
    /// Stores an event of `stream` in `session` and returns its id.
    fn append<'a>(
        &'a self,
        session: &'a str,
        stream: &'a str,
        data: &'a [u8],
    ) -> BoxFuture<'a, Result<String, StateError>>;
    /// The stream `last_event_id` belongs to and its events after that id,
    /// if the id is one this session was given.
    fn replay_after<'a>(
        &'a self,
        session: &'a str,
        last_event_id: &'a str,
    ) -> BoxFuture<'a, Result<Replay, StateError>>;
    /// Forgets everything of a session (it ended or expired).
    fn remove_session<'a>(&'a self, session: &'a str) -> BoxFuture<'a, Result<(), StateError>>;
}

fn ready<'a, T: Send + 'a>(value: T) -> BoxFuture<'a, T> {
    Box::pin(std::future::ready(value))
}

/// An in-memory [`EventStore`] keeping at most `per_stream` events per
/// stream (oldest dropped first), so memory stays bounded.
#[derive(Debug)]
pub struct InMemoryEventStore {
    per_stream: usize,
    sessions: Mutex<HashMap<String, HashMap<String, StreamLog>>>,
}

#[derive(Debug, Default)]
struct StreamLog {
    next: u64,
    events: std::collections::VecDeque<(u64, Vec<u8>)>,
}

impl Default for InMemoryEventStore {
    fn default() -> Self {
        Self::new(1024)
    }
}

impl InMemoryEventStore {
    /// A store keeping `per_stream` events per stream.
    pub fn new(per_stream: usize) -> Self {
        Self { per_stream: per_stream.max(1), sessions: Mutex::new(HashMap::new()) }
    }
}

fn parse_id(id: &str) -> Option<(&str, u64)> {
    let (stream, seq) = id.rsplit_once('.')?;
    Some((stream, seq.parse().ok()?))
}

impl InMemoryEventStore {
    fn append_now(&self, session: &str, stream: &str, data: &[u8]) -> String {
        let mut sessions = self.sessions.lock().expect("event store lock poisoned");
        let log = sessions.entry(session.to_owned()).or_default().entry(stream.to_owned()).or_default();
        let seq = log.next;
        log.next += 1;
        log.events.push_back((seq, data.to_vec()));
        while log.events.len() > self.per_stream {
            log.events.pop_front();
        }
        format!("{stream}.{seq}")
    }

    fn replay_now(&self, session: &str, last_event_id: &str) -> Replay {
        let (stream, after) = parse_id(last_event_id)?;
        let sessions = self.sessions.lock().expect("event store lock poisoned");
        let log = sessions.get(session)?.get(stream)?;
        if after >= log.next {
            return None;
        }
        let events = log
            .events
            .iter()
            .filter(|(seq, _)| *seq > after)
            .map(|(seq, data)| StoredEvent { id: format!("{stream}.{seq}"), data: data.clone() })
            .collect();
        Some((stream.to_owned(), events))
    }
}

impl EventStore for InMemoryEventStore {
    fn append<'a>(
        &'a self,
        session: &'a str,
        stream: &'a str,
        data: &'a [u8],
    ) -> BoxFuture<'a, Result<String, StateError>> {
        ready(Ok(self.append_now(session, stream, data)))
    }

    fn replay_after<'a>(
        &'a self,
        session: &'a str,
        last_event_id: &'a str,
    ) -> BoxFuture<'a, Result<Replay, StateError>> {
        ready(Ok(self.replay_now(session, last_event_id)))
    }

    fn remove_session<'a>(&'a self, session: &'a str) -> BoxFuture<'a, Result<(), StateError>> {
        self.sessions.lock().expect("event store lock poisoned").remove(session);
        ready(Ok(()))
    }
}

/// An [`EventStore`] over a [`StateStore`]'s logs, shared by every instance
/// using the same store: the events of stream `s` of session `x` are the
/// log `events:x:s` (at most `per_stream` newest, expiring `ttl` after the
/// last append), and an event's id is `s.{n}` with `n` the log's sequence
/// number. The streams of a session are listed in the log `events:x` so
/// [`remove_session`](EventStore::remove_session) finds them on any
/// instance. Stream names must be unique per session across instances
/// (`switchboard-http` gives each instance's request streams a random tag).
#[derive(Debug)]
pub struct StateEventStore {
    state: Arc<dyn StateStore>,
    per_stream: usize,
    ttl: Duration,
    /// Streams this instance already listed in `events:{session}`.
    listed: Mutex<HashSet<(String, String)>>,
}

/// Most streams listed per session (older ones are then not removed with
/// the session, but still expire).
const MAX_STREAMS: usize = 4096;

/// Most (session, stream) pairs remembered as listed.
const MAX_LISTED: usize = 65_536;

impl StateEventStore {
    /// Events of `state`, `per_stream` kept per stream, each log expiring
    /// `ttl` after its last append (use the session idle timeout).
    pub fn new(state: Arc<dyn StateStore>, per_stream: usize, ttl: Duration) -> Self {
        Self { state, per_stream: per_stream.max(1), ttl, listed: Mutex::new(HashSet::new()) }
    }
}

fn log_key(session: &str, stream: &str) -> String {
    format!("events:{session}:{stream}")
}

impl EventStore for StateEventStore {
    fn append<'a>(
        &'a self,
        session: &'a str,
        stream: &'a str,
        data: &'a [u8],
    ) -> BoxFuture<'a, Result<String, StateError>> {
        Box::pin(async move {
            let pair = (session.to_owned(), stream.to_owned());
            let first = !self.listed.lock().expect("event store lock poisoned").contains(&pair);
            if first {
                let index = format!("events:{session}");
                self.state.append(&index, stream.as_bytes().to_vec(), MAX_STREAMS, self.ttl).await?;
                let mut listed = self.listed.lock().expect("event store lock poisoned");
                // Sessions that ended elsewhere or expired are never removed
                // here: start over now and then (listing twice is harmless).
                if listed.len() >= MAX_LISTED {
                    listed.clear();
                }
                listed.insert(pair);
            }
            let seq = self
                .state
                .append(&log_key(session, stream), data.to_vec(), self.per_stream, self.ttl)
                .await?;
            Ok(format!("{stream}.{seq}"))
        })
    }

    fn replay_after<'a>(
        &'a self,
        session: &'a str,
        last_event_id: &'a str,
    ) -> BoxFuture<'a, Result<Replay, StateError>> {
        Box::pin(async move {
            let Some((stream, after)) = parse_id(last_event_id) else { return Ok(None) };
            if after == 0 {
                return Ok(None); // log sequence numbers start at 1
            }
            // Read from the id itself: an empty answer means the id was
            // never issued (or the stream is gone); a first entry past it
            // means older entries were trimmed, which is still a valid id.
            let entries = self.state.read_after(&log_key(session, stream), after - 1).await?;
            if entries.is_empty() {
                return Ok(None);
            }
            let events = entries
                .into_iter()
                .filter(|(seq, _)| *seq > after)
                .map(|(seq, data)| StoredEvent { id: format!("{stream}.{seq}"), data })
                .collect();
            Ok(Some((stream.to_owned(), events)))
        })
    }

    fn remove_session<'a>(&'a self, session: &'a str) -> BoxFuture<'a, Result<(), StateError>> {
        Box::pin(async move {
            let index = format!("events:{session}");
            for (_, stream) in self.state.read_after(&index, 0).await? {
                let stream = String::from_utf8_lossy(&stream).into_owned();
                self.state.delete(&log_key(session, &stream)).await?;
            }
            self.state.delete(&index).await?;
            self.listed.lock().expect("event store lock poisoned").retain(|(s, _)| s != session);
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replays_only_later_events_of_the_same_stream_and_session() {
        let store = InMemoryEventStore::new(3);
        let store = Blocking(&store);
        let a0 = store.append("s1", "a", b"0");
        store.append("s1", "b", b"x");
        store.append("s1", "a", b"1");
        store.append("s1", "a", b"2");
        let (stream, events) = store.replay_after("s1", &a0).unwrap();
        assert_eq!(stream, "a");
        assert_eq!(events.iter().map(|e| e.data.clone()).collect::<Vec<_>>(), [b"1".to_vec(), b"2".to_vec()]);
        assert!(store.replay_after("s2", &a0).is_none(), "another session");
        assert!(store.replay_after("s1", "a.99").is_none(), "never issued");
        assert!(store.replay_after("s1", "garbage").is_none());
        store.append("s1", "a", b"3");
        store.append("s1", "a", b"4");
        let (_, events) = store.replay_after("s1", &a0).unwrap();
        assert_eq!(events.len(), 3, "bounded per stream");
        store.remove_session("s1");
        assert!(store.replay_after("s1", &a0).is_none());
    }

    /// Drives a ready-made store's futures to completion, for brevity.
    struct Blocking<'a, S: EventStore>(&'a S);

    impl<S: EventStore> Blocking<'_, S> {
        fn append(&self, session: &str, stream: &str, data: &[u8]) -> String {
            futures::executor::block_on(self.0.append(session, stream, data)).unwrap()
        }
        fn replay_after(&self, session: &str, id: &str) -> Replay {
            futures::executor::block_on(self.0.replay_after(session, id)).unwrap()
        }
        fn remove_session(&self, session: &str) {
            futures::executor::block_on(self.0.remove_session(session)).unwrap()
        }
    }

    #[test]
    fn the_state_store_keeps_events_for_every_instance() {
        let state: Arc<dyn StateStore> = switchboard_server::state::MemoryStore::new();
        let (a, b) = (
            StateEventStore::new(Arc::clone(&state), 3, Duration::from_secs(60)),
            StateEventStore::new(Arc::clone(&state), 3, Duration::from_secs(60)),
        );
        let (a, b) = (Blocking(&a), Blocking(&b));
        let a1 = a.append("s1", "pA0", b"0");
        assert_eq!(a1, "pA0.1");
        b.append("s1", "pB0", b"x");
        a.append("s1", "pA0", b"1");
        a.append("s1", "pA0", b"2");
        let (stream, events) = b.replay_after("s1", &a1).unwrap();
        assert_eq!(stream, "pA0");
        assert_eq!(events.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(), ["pA0.2", "pA0.3"]);
        let (_, events) = b.replay_after("s1", "pA0.3").unwrap();
        assert!(events.is_empty(), "the last id is valid and has nothing after it");
        assert!(b.replay_after("s2", &a1).is_none(), "another session");
        assert!(b.replay_after("s1", "pA0.99").is_none(), "never issued");
        assert!(b.replay_after("s1", "garbage").is_none());
        a.append("s1", "pA0", b"3");
        a.append("s1", "pA0", b"4");
        let (_, events) = b.replay_after("s1", &a1).unwrap();
        assert_eq!(events.len(), 3, "bounded per stream");
        b.remove_session("s1");
        assert!(a.replay_after("s1", &a1).is_none(), "removed from any instance");
        assert!(a.replay_after("s1", "pB0.1").is_none());
    }
}
