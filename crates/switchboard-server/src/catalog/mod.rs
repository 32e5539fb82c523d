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
//! "the last item I returned" by its number. The snapshot keeps items in
//! persistent maps (`imbl`: a B-tree by number, a HAMT by key), so paging
//! from a cursor is a tree seek plus the page, O(log n + page), and adding
//! or removing one item copies O(log n) nodes instead of the whole list: a
//! million resources cost the same per page as a hundred. No item that
//! exists for the whole walk is skipped or repeated when others come and go
//! between pages.
//!
//! Any item can be switched off and on again by key ([`Catalog::set_enabled`]):
//! a disabled item stays registered but is neither listed nor found, and a
//! name stays disabled when it is registered again (a switch, not a removal).
//!
//! Cursors are opaque to clients and verifiable by the server: the list's
//! kind and the sequence number, authenticated with HMAC-SHA256 under the
//! server's cursor key. A tampered cursor, or one from another list, is
//! `-32602` (`docs/specification/<rev>/server/utilities/pagination.mdx`).

mod cursor;

use std::ops::Bound;
use std::sync::{Arc, Mutex};

use arc_swap::ArcSwap;
use switchboard_types::ErrorObject;

use crate::session::events::{EventBus, ListKind, ServerEvent};

pub(crate) use cursor::CursorCodec;

/// One page of items and the cursor of the next page.
pub(crate) type Page<T> = (Vec<Arc<Item<T>>>, Option<String>);

/// One registered item and its registration number.
pub(crate) struct Item<T> {
    pub seq: u64,
    pub value: T,
}

/// An immutable view of one list.
pub(crate) struct Snapshot<T> {
    by_key: imbl::HashMap<String, Arc<Item<T>>>,
    ordered: imbl::OrdMap<u64, Arc<Item<T>>>,
    /// Keys switched off, registered or not.
    disabled_keys: imbl::HashSet<String>,
    /// The sequence numbers of the registered items among them (numbers are
    /// never reused, so one left behind by a removal matches nothing).
    disabled_seqs: imbl::OrdSet<u64>,
}

impl<T> Clone for Snapshot<T> {
    fn clone(&self) -> Self {
        Self {
            by_key: self.by_key.clone(),
            ordered: self.ordered.clone(),
            disabled_keys: self.disabled_keys.clone(),
            disabled_seqs: self.disabled_seqs.clone(),
        }
    }
}

impl<T> Default for Snapshot<T> {
    fn default() -> Self {
        Self {
            by_key: imbl::HashMap::new(),
            ordered: imbl::OrdMap::new(),
            disabled_keys: imbl::HashSet::new(),
            disabled_seqs: imbl::OrdSet::new(),
        }
    }
}

impl<T> Snapshot<T> {
    /// The enabled item registered under `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&Arc<Item<T>>> {
        let item = self.by_key.get(key)?;
        self.is_enabled(item.seq).then_some(item)
    }

    fn is_enabled(&self, seq: u64) -> bool {
        self.disabled_seqs.is_empty() || !self.disabled_seqs.contains(&seq)
    }

    /// Every enabled item, in listing order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Arc<Item<T>>> {
        self.ordered.values().filter(|item| self.is_enabled(item.seq))
    }

    /// One page after `cursor` and the cursor of the next page.
    #[cfg(test)]
    pub(crate) fn page(
        &self,
        cursor: Option<&str>,
        page_size: usize,
        codec: &CursorCodec,
        kind: ListKind,
    ) -> Result<Page<T>, ErrorObject> {
        self.page_of(cursor, page_size, codec, kind, |_| true)
    }

    /// Like [`Snapshot::page`], counting only the items `keep` accepts
    /// (what the caller may see).
    pub(crate) fn page_of(
        &self,
        cursor: Option<&str>,
        page_size: usize,
        codec: &CursorCodec,
        kind: ListKind,
        keep: impl Fn(&T) -> bool,
    ) -> Result<Page<T>, ErrorObject> {
        let after = match cursor {
            None => Bound::Unbounded,
            Some(c) => Bound::Excluded(codec.decode(kind, c)?),
        };
        let mut rest = self
            .ordered
            .range((after, Bound::Unbounded))
            .map(|(_, item)| item)
            .filter(|item| self.is_enabled(item.seq) && keep(&item.value));
        let page: Vec<Arc<Item<T>>> = rest.by_ref().take(page_size.max(1)).cloned().collect();
        let more = rest.next().is_some();
        let next = if more { page.last().map(|e| codec.encode(kind, e.seq)) } else { None };
        Ok((page, next))
    }

    fn put(&mut self, key: String, item: Arc<Item<T>>) {
        if !self.disabled_keys.is_empty() && self.disabled_keys.contains(&key) {
            self.disabled_seqs.insert(item.seq);
        }
        self.ordered.insert(item.seq, Arc::clone(&item));
        self.by_key.insert(key, item);
    }
}

/// Why an item could not be added: this key is taken.
#[derive(Debug)]
pub(crate) struct Duplicate(pub String);

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
        self.insert_many(vec![(key, value)], replace)
    }

    /// Adds several items at once, announcing one change. Nothing is added
    /// if any key is taken (and `replace` is not set) or repeats.
    pub(crate) fn insert_many(&self, items: Vec<(String, T)>, replace: bool) -> Result<(), Duplicate> {
        let mut seq = self.seq.lock().expect("catalog lock poisoned");
        let mut next = Snapshot::clone(&self.snapshot.load());
        let mut counter = *seq;
        for (key, value) in items {
            let seq_for = match next.by_key.get(&key) {
                Some(_) if !replace => return Err(Duplicate(key)),
                Some(old) => old.seq,
                None => {
                    counter += 1;
                    counter
                }
            };
            next.put(key, Arc::new(Item { seq: seq_for, value }));
        }
        *seq = counter;
        self.snapshot.store(Arc::new(next));
        drop(seq);
        self.events.send(ServerEvent::ListChanged(self.kind));
        Ok(())
    }

    /// Switches the item under `key` off or on; a key not registered yet is
    /// remembered and applies when it is. Announces the change when a
    /// registered item appears or disappears. Returns whether an item is
    /// registered under `key`.
    pub(crate) fn set_enabled(&self, key: &str, enabled: bool) -> bool {
        let guard = self.seq.lock().expect("catalog lock poisoned");
        let mut next = Snapshot::clone(&self.snapshot.load());
        let was_enabled = !next.disabled_keys.contains(key);
        if enabled {
            next.disabled_keys.remove(key);
        } else {
            next.disabled_keys.insert(key.to_owned());
        }
        let item_seq = next.by_key.get(key).map(|item| item.seq);
        if let Some(seq) = item_seq {
            if enabled {
                next.disabled_seqs.remove(&seq);
            } else {
                next.disabled_seqs.insert(seq);
            }
        }
        self.snapshot.store(Arc::new(next));
        drop(guard);
        if item_seq.is_some() && was_enabled != enabled {
            self.events.send(ServerEvent::ListChanged(self.kind));
        }
        item_seq.is_some()
    }

    /// Whether `key` is switched on (true for keys never switched off).
    pub(crate) fn is_enabled(&self, key: &str) -> bool {
        !self.snapshot.load().disabled_keys.contains(key)
    }

    /// Removes the item under `key`; true if it existed.
    pub(crate) fn remove(&self, key: &str) -> bool {
        let guard = self.seq.lock().expect("catalog lock poisoned");
        let mut next = Snapshot::clone(&self.snapshot.load());
        let Some(old) = next.by_key.remove(key) else { return false };
        next.ordered.remove(&old.seq);
        self.snapshot.store(Arc::new(next));
        drop(guard);
        self.events.send(ServerEvent::ListChanged(self.kind));
        true
    }
}

impl<T> Catalog<T> {
    /// Adds or replaces (in place) every item of `upserts` and removes every
    /// key of `removals`, publishing one snapshot. Announces one change when
    /// `announce` says the visible list changed. Returns the keys that were
    /// replaced (they existed before).
    pub(crate) fn apply(
        &self,
        upserts: Vec<(String, T)>,
        removals: &[String],
        announce: impl FnOnce(bool, bool) -> bool,
    ) -> Vec<String> {
        let mut seq = self.seq.lock().expect("catalog lock poisoned");
        let mut next = Snapshot::clone(&self.snapshot.load());
        let mut counter = *seq;
        let mut replaced = Vec::new();
        let mut added = false;
        let mut removed = false;
        for key in removals {
            if let Some(old) = next.by_key.remove(key.as_str()) {
                next.ordered.remove(&old.seq);
                removed = true;
            }
        }
        for (key, value) in upserts {
            let seq_for = match next.by_key.get(&key) {
                Some(old) => {
                    replaced.push(key.clone());
                    old.seq
                }
                None => {
                    added = true;
                    counter += 1;
                    counter
                }
            };
            next.put(key, Arc::new(Item { seq: seq_for, value }));
        }
        *seq = counter;
        self.snapshot.store(Arc::new(next));
        drop(seq);
        if announce(added, removed) {
            self.events.send(ServerEvent::ListChanged(self.kind));
        }
        replaced
    }

    /// Upserts `entries` and removes `removals` in one step; announces once
    /// if an item came, went, or `differs` from the one it replaces.
    /// Returns whether it announced.
    pub(crate) fn upsert(
        &self,
        entries: Vec<(String, T)>,
        removals: &[String],
        differs: impl Fn(&T, &T) -> bool,
    ) -> bool {
        let changed = {
            let current = self.load();
            entries.iter().any(|(k, e)| current.get(k).is_some_and(|old| differs(&old.value, e)))
        };
        let mut announced = false;
        self.apply(entries, removals, |added, removed| {
            announced = added || removed || changed;
            announced
        });
        announced
    }

    /// Makes the list exactly `items` (in this order for new keys; keys
    /// already present keep their place), publishing one snapshot. Announces
    /// a change only if a key came or went or `differs` says an existing
    /// item's visible definition changed. Returns whether it announced.
    pub(crate) fn replace_all(&self, items: Vec<(String, T)>, differs: impl Fn(&T, &T) -> bool) -> bool {
        let mut seq = self.seq.lock().expect("catalog lock poisoned");
        let current = self.snapshot.load_full();
        let mut next = Snapshot::<T> { disabled_keys: current.disabled_keys.clone(), ..Snapshot::default() };
        let mut counter = *seq;
        let mut changed = false;
        for (key, value) in items {
            let seq_for = match current.by_key.get(&key) {
                Some(old) => {
                    changed |= differs(&old.value, &value);
                    old.seq
                }
                None => {
                    changed = true;
                    counter += 1;
                    counter
                }
            };
            if next.by_key.contains_key(&key) {
                // A repeated key: the last one wins, in the first one's place.
                if let Some(old) = next.by_key.get(&key) {
                    let seq_for = old.seq;
                    next.put(key, Arc::new(Item { seq: seq_for, value }));
                }
                continue;
            }
            next.put(key, Arc::new(Item { seq: seq_for, value }));
        }
        changed |= current.by_key.keys().any(|k| !next.by_key.contains_key(k));
        *seq = counter;
        self.snapshot.store(Arc::new(next));
        drop(seq);
        if changed {
            self.events.send(ServerEvent::ListChanged(self.kind));
        }
        changed
    }
}

/// Prepares every item of a bulk change, keyed by `key`: fails on the
/// first item that does not prepare, then with `duplicate(key)` on the
/// first key that appears twice (a bulk change names each item once).
pub(crate) fn prepare_all<I, T>(
    items: Vec<I>,
    prepare: impl Fn(I) -> crate::error::Result<T>,
    key: impl Fn(&T) -> &str,
    duplicate: impl Fn(String) -> crate::error::Error,
) -> crate::error::Result<Vec<(String, T)>> {
    let mut entries = Vec::with_capacity(items.len());
    for item in items {
        let entry = prepare(item)?;
        entries.push((key(&entry).to_owned(), entry));
    }
    let mut seen = std::collections::HashSet::new();
    for (key, _) in &entries {
        if !seen.insert(key.as_str()) {
            return Err(duplicate(key.clone()));
        }
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disabled_items_are_neither_listed_nor_found_and_keep_their_place() {
        let codec = CursorCodec::new([1; 32]);
        let events = EventBus::new(16);
        let mut changes = events.subscribe();
        let catalog: Catalog<u32> = Catalog::new(ListKind::Tools, events);
        for i in 0..5 {
            catalog.insert(format!("t{i}"), i, false).unwrap();
        }
        while changes.try_recv().is_ok() {}
        assert!(catalog.set_enabled("t2", false));
        assert!(changes.try_recv().is_ok(), "switching off announces");
        assert!(catalog.set_enabled("t2", false));
        assert!(changes.try_recv().is_err(), "switching off twice announces once");
        let snap = catalog.load();
        assert!(snap.get("t2").is_none());
        assert_eq!(snap.iter().map(|i| i.value).collect::<Vec<_>>(), [0, 1, 3, 4]);
        let (page, next) = snap.page(None, 2, &codec, ListKind::Tools).unwrap();
        assert_eq!(page.iter().map(|i| i.value).collect::<Vec<_>>(), [0, 1]);
        let (page, _) = snap.page(next.as_deref(), 2, &codec, ListKind::Tools).unwrap();
        assert_eq!(page.iter().map(|i| i.value).collect::<Vec<_>>(), [3, 4], "a page skips it");
        drop(snap);
        // Still registered: its name is taken, and replacing it keeps it off.
        assert!(catalog.insert("t2".into(), 22, false).is_err());
        catalog.insert("t2".into(), 22, true).unwrap();
        assert!(catalog.load().get("t2").is_none());
        assert!(catalog.set_enabled("t2", true));
        assert_eq!(
            catalog.load().iter().map(|i| i.value).collect::<Vec<_>>(),
            [0, 1, 22, 3, 4],
            "same place"
        );
        // A name switched off before it exists applies when it is registered.
        assert!(!catalog.set_enabled("later", false));
        assert!(!catalog.is_enabled("later"));
        catalog.insert("later".into(), 9, false).unwrap();
        assert!(catalog.load().get("later").is_none());
        assert!(catalog.remove("later"));
        catalog.insert("later".into(), 10, false).unwrap();
        assert!(catalog.load().get("later").is_none(), "the switch is by name");
        catalog.replace_all(vec![("later".into(), 11)], |a, b| a != b);
        assert!(catalog.load().get("later").is_none(), "and survives a wholesale replacement");
        assert!(catalog.set_enabled("later", true));
        assert_eq!(catalog.load().get("later").map(|i| i.value), Some(11));
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
