//! [`MemoryStore`]: the in-process state store a single instance uses by
//! default, with the same expiry rules as a shared one.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use futures::stream::BoxStream;
use tokio::sync::broadcast;
use tokio::time::Instant;

use super::{Delivery, LogEntries, StateError, StateStore};

/// The in-process [`StateStore`]: what a single instance uses, with the
/// same expiry rules as a shared one.
#[derive(Debug, Default)]
pub struct MemoryStore {
    inner: Mutex<Memory>,
}

#[derive(Debug, Default)]
struct Memory {
    values: HashMap<String, (Vec<u8>, Instant)>,
    logs: HashMap<String, Log>,
    channels: HashMap<String, broadcast::Sender<Vec<u8>>>,
    /// Operations since the last sweep of expired entries.
    since_sweep: usize,
}

#[derive(Debug, Default)]
struct Log {
    last: u64,
    entries: VecDeque<(u64, Vec<u8>)>,
    expires: Option<Instant>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    fn with<R>(&self, f: impl FnOnce(&mut Memory, Instant) -> R) -> R {
        let mut memory = self.inner.lock().expect("state lock poisoned");
        let now = Instant::now();
        memory.since_sweep += 1;
        if memory.since_sweep >= 1024 {
            memory.since_sweep = 0;
            memory.values.retain(|_, (_, expires)| *expires > now);
            memory.logs.retain(|_, log| log.expires.is_none_or(|e| e > now));
        }
        f(&mut memory, now)
    }
}

fn ready<'a, T: Send + 'a>(value: T) -> BoxFuture<'a, T> {
    Box::pin(std::future::ready(value))
}

impl StateStore for MemoryStore {
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Vec<u8>>, StateError>> {
        ready(Ok(self.with(|m, now| match m.values.get(key) {
            Some((value, expires)) if *expires > now => Some(value.clone()),
            _ => None,
        })))
    }

    fn set<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StateError>> {
        self.with(|m, now| m.values.insert(key.to_owned(), (value, now + ttl)));
        ready(Ok(()))
    }

    fn set_if_absent<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, StateError>> {
        ready(Ok(self.with(|m, now| {
            if m.values.get(key).is_some_and(|(_, expires)| *expires > now) {
                return false;
            }
            m.values.insert(key.to_owned(), (value, now + ttl));
            true
        })))
    }

    fn compare_and_set<'a>(
        &'a self,
        key: &'a str,
        expected: Option<&'a [u8]>,
        value: Vec<u8>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, StateError>> {
        ready(Ok(self.with(|m, now| {
            let current = m.values.get(key).filter(|(_, expires)| *expires > now).map(|(v, _)| v.as_slice());
            if current != expected {
                return false;
            }
            m.values.insert(key.to_owned(), (value, now + ttl));
            true
        })))
    }

    fn delete<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<bool, StateError>> {
        ready(Ok(self.with(|m, now| {
            let value = m.values.remove(key).is_some_and(|(_, expires)| expires > now);
            let log = m.logs.remove(key).is_some_and(|l| l.expires.is_none_or(|e| e > now));
            value || log
        })))
    }

    fn touch<'a>(&'a self, key: &'a str, ttl: Duration) -> BoxFuture<'a, Result<bool, StateError>> {
        ready(Ok(self.with(|m, now| {
            if let Some((_, expires)) = m.values.get_mut(key).filter(|(_, e)| *e > now) {
                *expires = now + ttl;
                return true;
            }
            if let Some(log) = m.logs.get_mut(key).filter(|l| l.expires.is_none_or(|e| e > now)) {
                log.expires = Some(now + ttl);
                return true;
            }
            false
        })))
    }

    fn append<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        max_len: usize,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<u64, StateError>> {
        ready(Ok(self.with(|m, now| {
            let log = m.logs.entry(key.to_owned()).or_default();
            if log.expires.is_some_and(|e| e <= now) {
                *log = Log::default();
            }
            log.last += 1;
            log.entries.push_back((log.last, value));
            while log.entries.len() > max_len.max(1) {
                log.entries.pop_front();
            }
            log.expires = Some(now + ttl);
            log.last
        })))
    }

    fn read_after<'a>(&'a self, key: &'a str, after: u64) -> BoxFuture<'a, Result<LogEntries, StateError>> {
        ready(Ok(self.with(|m, now| match m.logs.get(key) {
            Some(log) if log.expires.is_none_or(|e| e > now) => {
                log.entries.iter().filter(|(seq, _)| *seq > after).cloned().collect()
            }
            _ => Vec::new(),
        })))
    }

    fn publish<'a>(&'a self, channel: &'a str, message: Vec<u8>) -> BoxFuture<'a, Result<(), StateError>> {
        self.with(|m, _| {
            if let Some(tx) = m.channels.get(channel) {
                let _ = tx.send(message);
            }
        });
        ready(Ok(()))
    }

    fn subscribe(&self, channel: &str) -> BoxStream<'static, Vec<u8>> {
        let deliveries = self.subscribe_with_gaps(channel);
        Box::pin(futures::StreamExt::filter_map(deliveries, |delivery| {
            std::future::ready(match delivery {
                Delivery::Message(message) => Some(message),
                Delivery::Gap => None,
            })
        }))
    }

    /// A subscriber that fell more than the channel's capacity behind
    /// gets [`Delivery::Gap`] where it lost messages.
    fn subscribe_with_gaps(&self, channel: &str) -> BoxStream<'static, Delivery> {
        let rx = self.with(|m, _| {
            m.channels
                .entry(channel.to_owned())
                .or_insert_with(|| broadcast::channel(MEMORY_CHANNEL_CAPACITY).0)
                .subscribe()
        });
        Box::pin(futures::stream::unfold(rx, |mut rx| async move {
            match rx.recv().await {
                Ok(message) => Some((Delivery::Message(message), rx)),
                Err(broadcast::error::RecvError::Lagged(_)) => Some((Delivery::Gap, rx)),
                Err(broadcast::error::RecvError::Closed) => None,
            }
        }))
    }
}

/// Messages a [`MemoryStore`] channel holds for its slowest subscriber.
const MEMORY_CHANNEL_CAPACITY: usize = 4096;
