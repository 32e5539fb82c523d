//! Stateful tools through explicit handles (the `create_basket` /
//! `add_item` pattern).
//!
//! MCP has no protocol-level session in 2026-07-28, so state lives under a
//! server-minted handle that the model passes back as an ordinary argument
//! (`docs/specification/2026-07-28/server/tools.mdx` §Stateful Tools,
//! SEP-2567). A [`HandleStore`] mints handles with 128 bits from the
//! operating system's CSPRNG, gives each a time to live, binds it to the
//! caller's [`Principal`](crate::Principal) when there is one, and turns an
//! unknown, expired or foreign handle into a [`ToolError`] whose message tells
//! the model how to recover.
//!
//! ```
//! use std::time::Duration;
//! use switchboard_server::{HandleStore, RequestContext, RequestId};
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let baskets: HandleStore<Vec<String>> =
//!     HandleStore::new("basket", Duration::from_secs(1800)).recovery_hint("call create_basket");
//! let ctx = RequestContext::detached(RequestId::Number(1));
//! let id = baskets.create(&ctx, Vec::new());
//! baskets.get(&ctx, &id).unwrap().lock().await.push("apple".into());
//! assert!(baskets.get(&ctx, "basket_forged").is_err());
//! # }
//! ```

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use tokio::time::Instant;

use crate::context::RequestContext;
use crate::session::caller::Principal;
use crate::tools::handler::ToolError;

struct Entry<T> {
    value: Arc<tokio::sync::Mutex<T>>,
    owner: Option<Principal>,
    expires: Instant,
}

/// Issues and resolves opaque handles to values of type `T`.
pub struct HandleStore<T> {
    kind: String,
    ttl: Duration,
    sliding: bool,
    hint: Option<String>,
    entries: Mutex<Entries<T>>,
}

struct Entries<T> {
    map: HashMap<String, Entry<T>>,
    /// When expired entries were last swept (a sweep walks every entry, so
    /// it runs at most once per quarter of the time to live).
    last_sweep: Instant,
}

impl<T> std::fmt::Debug for HandleStore<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HandleStore")
            .field("kind", &self.kind)
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

impl<T: Send + 'static> HandleStore<T> {
    /// A store for handles of `kind` (used as the handle prefix and in error
    /// messages) that live `ttl` after creation.
    pub fn new(kind: impl Into<String>, ttl: Duration) -> Self {
        Self {
            kind: kind.into(),
            ttl,
            sliding: false,
            hint: None,
            entries: Mutex::new(Entries { map: HashMap::new(), last_sweep: Instant::now() }),
        }
    }

    /// Each successful use extends the handle's life by `ttl` again.
    #[must_use]
    pub fn sliding(mut self) -> Self {
        self.sliding = true;
        self
    }

    /// What the model should do when a handle is gone, appended to the error
    /// (e.g. `"call create_basket to start a new basket"`).
    #[must_use]
    pub fn recovery_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// The time to live, to state in the creating tool's description.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// Stores `value` and returns its new handle, bound to the caller.
    pub fn create(&self, ctx: &RequestContext, value: T) -> String {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).expect("the operating system's random source is available");
        let handle = format!("{}_{}", self.kind, URL_SAFE_NO_PAD.encode(bytes));
        let now = Instant::now();
        let mut entries = self.entries.lock().expect("handle store lock poisoned");
        // Sweep entries that expired more than one ttl ago; the recently
        // expired stay so their error can say "expired" rather than "unknown".
        if now.duration_since(entries.last_sweep) >= self.ttl / 4 {
            let ttl = self.ttl;
            entries.map.retain(|_, e| e.expires + ttl > now);
            entries.last_sweep = now;
        }
        entries.map.insert(
            handle.clone(),
            Entry {
                value: Arc::new(tokio::sync::Mutex::new(value)),
                owner: ctx.principal().cloned(),
                expires: now + self.ttl,
            },
        );
        handle
    }

    /// Resolves a handle for the caller.
    pub fn get(&self, ctx: &RequestContext, handle: &str) -> Result<Arc<tokio::sync::Mutex<T>>, ToolError> {
        let now = Instant::now();
        let mut entries = self.entries.lock().expect("handle store lock poisoned");
        let Some(entry) = entries.map.get_mut(handle) else {
            return Err(self.error(format!("unknown {} handle {handle:?}", self.kind)));
        };
        if entry.owner.as_ref().map(|p| &p.subject) != ctx.principal().map(|p| &p.subject) {
            // Same message as unknown: a foreign handle must not be confirmed to exist.
            return Err(self.error(format!("unknown {} handle {handle:?}", self.kind)));
        }
        if entry.expires <= now {
            return Err(self.error(format!(
                "{} handle {handle:?} has expired (handles live {} s)",
                self.kind,
                self.ttl.as_secs()
            )));
        }
        if self.sliding {
            entry.expires = now + self.ttl;
        }
        Ok(Arc::clone(&entry.value))
    }

    /// Applies `change` to the value behind a handle the caller owns, under
    /// its lock: concurrent updates of one handle never lose each other.
    /// The same call as [`SharedHandleStore::update`](crate::tools::shared_handles::SharedHandleStore::update),
    /// so a tool moves between one process and several without change.
    pub async fn update<R>(
        &self,
        ctx: &RequestContext,
        handle: &str,
        change: impl FnOnce(&mut T) -> R,
    ) -> Result<R, ToolError> {
        let value = self.get(ctx, handle)?;
        let mut value = value.lock().await;
        Ok(change(&mut value))
    }

    /// Removes a handle the caller owns; true if it was live.
    pub fn remove(&self, ctx: &RequestContext, handle: &str) -> bool {
        let mut entries = self.entries.lock().expect("handle store lock poisoned");
        match entries.map.get(handle) {
            Some(e)
                if e.owner.as_ref().map(|p| &p.subject) == ctx.principal().map(|p| &p.subject)
                    && e.expires > Instant::now() =>
            {
                entries.map.remove(handle);
                true
            }
            _ => false,
        }
    }

    /// Live handles in the store (expired ones not yet swept excluded).
    pub fn len(&self) -> usize {
        let now = Instant::now();
        self.entries
            .lock()
            .expect("handle store lock poisoned")
            .map
            .values()
            .filter(|e| e.expires > now)
            .count()
    }

    /// True when no live handle exists.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn error(&self, what: String) -> ToolError {
        match &self.hint {
            Some(hint) => ToolError::new(format!("{what}; {hint}")),
            None => ToolError::new(what),
        }
    }
}
