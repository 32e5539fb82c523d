//! Storage of SSE events for resumption (`GET` + `Last-Event-ID`).
//!
//! Event ids are `{stream}.{seq}`: globally unique within a session and
//! naming the stream they came from (the 2025-11-25 SHOULD), so a resume
//! replays only that stream's later events and never another stream's or
//! another session's.

use std::collections::HashMap;
use std::sync::Mutex;

/// One stored SSE event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEvent {
    /// Its SSE id.
    pub id: String,
    /// The JSON-RPC message (empty for a priming event).
    pub data: Vec<u8>,
}

/// Where SSE events are kept for replay. The default keeps them in memory;
/// a shared implementation lets a client resume on another instance.
pub trait EventStore: Send + Sync + 'static {
    /// Stores an event of `stream` in `session` and returns its id.
    fn append(&self, session: &str, stream: &str, data: &[u8]) -> String;
    /// The stream `last_event_id` belongs to and its events after that id,
    /// if the id is one this session was given.
    fn replay_after(&self, session: &str, last_event_id: &str) -> Option<(String, Vec<StoredEvent>)>;
    /// Forgets everything of a session (it ended or expired).
    fn remove_session(&self, session: &str);
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

impl EventStore for InMemoryEventStore {
    fn append(&self, session: &str, stream: &str, data: &[u8]) -> String {
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

    fn replay_after(&self, session: &str, last_event_id: &str) -> Option<(String, Vec<StoredEvent>)> {
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

    fn remove_session(&self, session: &str) {
        self.sessions.lock().expect("event store lock poisoned").remove(session);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replays_only_later_events_of_the_same_stream_and_session() {
        let store = InMemoryEventStore::new(3);
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
}
