//! The registries behind the four lists (tools, prompts, resources,
//! resource templates): validated, copy-on-write, paged with signed cursors.
//!
//! Readers (every list and every call) load an immutable snapshot through
//! `arc-swap` with no lock; writers build a new snapshot under a mutex,
//! publish it, and announce the change on the server's event bus, which
//! every connection listens to.
//!
//! Each item gets a sequence number when it is registered, and lists are in
//! registration order, so the order is deterministic and a cursor can name
//! "the last item I returned" by its number. Paging from a cursor is a binary
//! search plus the page: O(log n + page), whatever the list's length, and no
//! item that exists for the whole walk is skipped or repeated when others
//! come and go between pages.
//!
//! Cursors are opaque to clients and verifiable by the server: the list's
//! kind and the sequence number, authenticated with HMAC-SHA256 under the
//! server's cursor key. A tampered cursor, or one from another list, is
//! `-32602` (`docs/specification/<rev>/server/utilities/pagination.mdx`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use arc_swap::ArcSwap;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use mcp_types::ErrorObject;
use sha2::Sha256;

use crate::events::{EventBus, ListKind, ServerEvent};

/// One page of items and the cursor of the next page.
pub(crate) type Page<'a, T> = (&'a [Arc<Item<T>>], Option<String>);

/// One registered item and its registration number.
pub(crate) struct Item<T> {
    pub seq: u64,
    pub value: T,
}

/// An immutable view of one list.
pub(crate) struct Snapshot<T> {
    by_key: HashMap<String, Arc<Item<T>>>,
    ordered: Vec<Arc<Item<T>>>,
}

impl<T> Default for Snapshot<T> {
    fn default() -> Self {
        Self { by_key: HashMap::new(), ordered: Vec::new() }
    }
}

impl<T> Snapshot<T> {
    /// The item registered under `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&Arc<Item<T>>> {
        self.by_key.get(key)
    }

    /// Every item, in listing order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Arc<Item<T>>> {
        self.ordered.iter()
    }

    /// One page after `cursor` and the cursor of the next page.
    pub(crate) fn page(
        &self,
        cursor: Option<&str>,
        page_size: usize,
        codec: &CursorCodec,
        kind: ListKind,
    ) -> Result<Page<'_, T>, ErrorObject> {
        let start = match cursor {
            None => 0,
            Some(c) => {
                let after = codec.decode(kind, c)?;
                self.ordered.partition_point(|e| e.seq <= after)
            }
        };
        let rest = &self.ordered[start..];
        let page = &rest[..rest.len().min(page_size.max(1))];
        let next =
            if page.len() < rest.len() { page.last().map(|e| codec.encode(kind, e.seq)) } else { None };
        Ok((page, next))
    }
}

/// Why an item could not be added.
#[derive(Debug)]
pub(crate) struct Duplicate;

/// A live list.
pub(crate) struct Catalog<T> {
    kind: ListKind,
    snapshot: ArcSwap<Snapshot<T>>,
    seq: Mutex<u64>,
    events: EventBus,
}

impl<T> Catalog<T> {
    pub(crate) fn new(kind: ListKind, events: EventBus) -> Self {
        Self { kind, snapshot: ArcSwap::from_pointee(Snapshot::default()), seq: Mutex::new(0), events }
    }

    /// The current snapshot.
    pub(crate) fn load(&self) -> arc_swap::Guard<Arc<Snapshot<T>>> {
        self.snapshot.load()
    }

    /// Adds `value` under `key`, or replaces the item with that key when
    /// `replace` is set (keeping its place in the list); announces the change.
    pub(crate) fn insert(&self, key: String, value: T, replace: bool) -> Result<(), Duplicate> {
        let mut seq = self.seq.lock().expect("catalog lock poisoned");
        let current = self.snapshot.load_full();
        let mut by_key = current.by_key.clone();
        let mut ordered = current.ordered.clone();
        match by_key.get(&key) {
            Some(_) if !replace => return Err(Duplicate),
            Some(old) => {
                let item = Arc::new(Item { seq: old.seq, value });
                let pos = ordered.partition_point(|e| e.seq < old.seq);
                ordered[pos] = Arc::clone(&item);
                by_key.insert(key, item);
            }
            None => {
                *seq += 1;
                let item = Arc::new(Item { seq: *seq, value });
                ordered.push(Arc::clone(&item));
                by_key.insert(key, item);
            }
        }
        self.snapshot.store(Arc::new(Snapshot { by_key, ordered }));
        drop(seq);
        self.events.send(ServerEvent::ListChanged(self.kind));
        Ok(())
    }

    /// Removes the item under `key`; true if it existed.
    pub(crate) fn remove(&self, key: &str) -> bool {
        let guard = self.seq.lock().expect("catalog lock poisoned");
        let current = self.snapshot.load_full();
        let Some(old) = current.by_key.get(key) else { return false };
        let mut by_key = current.by_key.clone();
        let mut ordered = current.ordered.clone();
        let pos = ordered.partition_point(|e| e.seq < old.seq);
        ordered.remove(pos);
        by_key.remove(key);
        self.snapshot.store(Arc::new(Snapshot { by_key, ordered }));
        drop(guard);
        self.events.send(ServerEvent::ListChanged(self.kind));
        true
    }
}

/// Signs and checks pagination cursors.
#[derive(Clone)]
pub(crate) struct CursorCodec {
    key: [u8; 32],
}

const TAG_LEN: usize = 12;

impl CursorCodec {
    pub(crate) fn new(key: [u8; 32]) -> Self {
        Self { key }
    }

    fn tag(&self, body: &[u8]) -> [u8; TAG_LEN] {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.key).expect("HMAC takes any key length");
        mac.update(body);
        let full = mac.finalize().into_bytes();
        let mut tag = [0u8; TAG_LEN];
        tag.copy_from_slice(&full[..TAG_LEN]);
        tag
    }

    pub(crate) fn encode(&self, kind: ListKind, seq: u64) -> String {
        let mut bytes = Vec::with_capacity(1 + 8 + TAG_LEN);
        bytes.push(kind as u8);
        bytes.extend_from_slice(&seq.to_be_bytes());
        let tag = self.tag(&bytes);
        bytes.extend_from_slice(&tag);
        URL_SAFE_NO_PAD.encode(bytes)
    }

    pub(crate) fn decode(&self, kind: ListKind, cursor: &str) -> Result<u64, ErrorObject> {
        let bad = |why: &str| {
            ErrorObject::invalid_params(format!(
                "invalid cursor {cursor:?} for {}: {why}; pass the nextCursor of a previous {} result unchanged",
                kind.method(),
                kind.method()
            ))
        };
        let bytes = URL_SAFE_NO_PAD.decode(cursor).map_err(|_| bad("not a cursor this server issued"))?;
        if bytes.len() != 1 + 8 + TAG_LEN {
            return Err(bad("not a cursor this server issued"));
        }
        let (body, tag) = bytes.split_at(1 + 8);
        // Constant-time comparison through the MAC's own verifier.
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.key).expect("HMAC takes any key length");
        mac.update(body);
        if mac.verify_truncated_left(tag).is_err() {
            return Err(bad("it was altered or issued by another server"));
        }
        if body[0] != kind as u8 {
            return Err(bad("it belongs to another list"));
        }
        let mut seq = [0u8; 8];
        seq.copy_from_slice(&body[1..]);
        Ok(u64::from_be_bytes(seq))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_reject_tampering() {
        let codec = CursorCodec::new([7; 32]);
        let c = codec.encode(ListKind::Tools, 42);
        assert_eq!(codec.decode(ListKind::Tools, &c).unwrap(), 42);
        assert!(codec.decode(ListKind::Prompts, &c).is_err(), "foreign list");
        assert!(CursorCodec::new([8; 32]).decode(ListKind::Tools, &c).is_err(), "foreign server");
        let mut bytes = URL_SAFE_NO_PAD.decode(&c).unwrap();
        bytes[8] ^= 1;
        assert!(codec.decode(ListKind::Tools, &URL_SAFE_NO_PAD.encode(bytes)).is_err(), "tampered");
        for junk in ["", "!!", "abc", "dG9vbHM6NDI"] {
            assert!(codec.decode(ListKind::Tools, junk).is_err(), "{junk:?}");
        }
    }

    #[test]
    fn paging_is_stable_under_changes() {
        let codec = CursorCodec::new([1; 32]);
        let catalog: Catalog<u32> = Catalog::new(ListKind::Resources, EventBus::new(16));
        for i in 0..10 {
            catalog.insert(format!("r{i}"), i, false).unwrap();
        }
        assert!(catalog.insert("r3".into(), 99, false).is_err());
        let snap = catalog.load();
        let (page, next) = snap.page(None, 4, &codec, ListKind::Resources).unwrap();
        assert_eq!(page.iter().map(|i| i.value).collect::<Vec<_>>(), [0, 1, 2, 3]);
        drop(snap);
        // Remove an item already seen and one not yet seen; add one.
        assert!(catalog.remove("r1"));
        assert!(catalog.remove("r5"));
        catalog.insert("r10".into(), 10, false).unwrap();
        catalog.insert("r4".into(), 44, true).unwrap();
        let snap = catalog.load();
        let (page, next) = snap.page(next.as_deref(), 4, &codec, ListKind::Resources).unwrap();
        assert_eq!(page.iter().map(|i| i.value).collect::<Vec<_>>(), [44, 6, 7, 8]);
        let (page, next) = snap.page(next.as_deref(), 4, &codec, ListKind::Resources).unwrap();
        assert_eq!(page.iter().map(|i| i.value).collect::<Vec<_>>(), [9, 10]);
        assert!(next.is_none());
    }
}
