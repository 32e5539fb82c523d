//! Where state that must outlive one process, or be seen by several, is
//! kept: one small key-value, log and pub/sub abstraction ([`StateStore`])
//! behind every piece of server state that instances behind a load balancer
//! must share — stateful-tool handles ([`SharedHandleStore`]),
//! handshake-era HTTP sessions and their SSE event logs (`switchboard-http`), the cursor key
//! ([`shared_secret`]), and the change-notification bus
//! ([`ServerBuilder::state`](crate::ServerBuilder::state): resource updates
//! and list changes published on one instance reach the clients of all).
//!
//! [`MemoryStore`] is the default: one process, no configuration, entries
//! expire like everywhere else. `switchboard-state-redis` implements the same trait
//! on Redis for several instances. Every entry has a time to live, so
//! nothing leaks when a client just goes away.
//!
//! Keys are plain strings; implementations may prefix them (a namespace per
//! deployment). Values are bytes: callers choose their encoding (JSON here).
//!
//! (A facade: the store is defined in `store.rs`, low in the crate, and
//! [`SharedHandleStore`] in `shared_handles.rs`, above the request context;
//! this module only gathers them under their public path.)

pub use crate::store::{
    ADMIT_SAMPLE, Delivery, LogEntries, MemoryStore, STORE_RETRY_AFTER, StateError, StateStore,
    is_store_unavailable, shared_secret, store_unavailable,
};
pub use crate::tools::shared_handles::SharedHandleStore;
