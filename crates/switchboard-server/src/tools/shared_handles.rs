//! Stateful-tool handles kept in a [`StateStore`], so a handle minted by
//! one instance resolves on every other (the scale-out form of
//! [`HandleStore`](crate::HandleStore)).
//!
//! The value is stored as JSON with its owner's subject under
//! `handle:{handle}`, with the store's time to live; each successful use
//! renews it when the store is sliding.
//!
//! [`SharedHandleStore::update`] is atomic across instances: it reads the
//! value, applies the change and writes the result with
//! [`StateStore::compare_and_set`] against what it read; when another
//! instance wrote in between, it reads again and applies the change to the
//! newer value (with a short jittered backoff, a bounded number of times).
//! Every write carries a fresh random revision, so after a failure whose
//! outcome is unknown (the store did not answer) a re-read tells whether
//! this write landed: if it did, the update succeeded; if the old value is
//! still there, it is tried again; otherwise the error says that the outcome
//! is unknown, distinct from a refusal.

use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::context::RequestContext;
use crate::store::{StateError, StateStore};
use crate::tools::handler::ToolError;

#[derive(serde::Serialize, serde::Deserialize)]
struct Stored<T> {
    owner: Option<String>,
    /// Random per write: tells this write's bytes from any other's.
    #[serde(default)]
    rev: u64,
    value: T,
}

/// Attempts of one update before giving up under contention.
const MAX_ATTEMPTS: u32 = 64;
/// The longest pause between two attempts.
const MAX_BACKOFF: Duration = Duration::from_millis(50);

/// Issues and resolves opaque handles to values of type `T`, kept in a
/// shared [`StateStore`].
pub struct SharedHandleStore<T> {
    kind: String,
    ttl: Duration,
    sliding: bool,
    hint: Option<String>,
    store: Arc<dyn StateStore>,
    _values: std::marker::PhantomData<fn(T) -> T>,
}

impl<T> std::fmt::Debug for SharedHandleStore<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedHandleStore")
            .field("kind", &self.kind)
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

impl<T: Serialize + DeserializeOwned + Send + 'static> SharedHandleStore<T> {
    /// Handles of `kind` (the handle prefix, used in messages) that live
    /// `ttl`, kept in `store`.
    pub fn new(kind: impl Into<String>, ttl: Duration, store: Arc<dyn StateStore>) -> Self {
        Self { kind: kind.into(), ttl, sliding: false, hint: None, store, _values: std::marker::PhantomData }
    }

    /// Each successful use extends the handle's life by `ttl` again.
    #[must_use]
    pub fn sliding(mut self) -> Self {
        self.sliding = true;
        self
    }

    /// What the model should do when a handle is gone (appended to errors).
    #[must_use]
    pub fn recovery_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// The time to live.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    fn key(handle: &str) -> String {
        format!("handle:{handle}")
    }

    /// Stores `value` under a new handle bound to the caller.
    pub async fn create(&self, ctx: &RequestContext, value: T) -> Result<String, ToolError> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes)
            .map_err(|e| ToolError::new(format!("no randomness for a handle: {e}")))?;
        let handle = format!("{}_{}", self.kind, URL_SAFE_NO_PAD.encode(bytes));
        self.write(ctx, &handle, value).await?;
        Ok(handle)
    }

    async fn write(&self, ctx: &RequestContext, handle: &str, value: T) -> Result<(), ToolError> {
        let bytes = self.encode(ctx, value)?;
        self.store.set(&Self::key(handle), bytes, self.ttl).await.map_err(unavailable)
    }

    /// The stored form of `value` for the caller, with a fresh revision.
    fn encode(&self, ctx: &RequestContext, value: T) -> Result<Vec<u8>, ToolError> {
        let mut rev = [0u8; 8];
        getrandom::fill(&mut rev).map_err(|e| ToolError::new(format!("no randomness: {e}")))?;
        let owner = ctx.principal().map(|p| p.subject.clone());
        let stored = Stored { owner, rev: u64::from_le_bytes(rev), value };
        serde_json::to_vec(&stored).map_err(|e| ToolError::new(format!("cannot store the value: {e}")))
    }

    /// The stored bytes and value behind a handle the caller owns.
    async fn load(&self, ctx: &RequestContext, handle: &str) -> Result<(Vec<u8>, T), ToolError> {
        let unknown = || self.error(format!("unknown {} handle {handle:?} (or expired)", self.kind));
        let Some(bytes) = self.store.get(&Self::key(handle)).await.map_err(unavailable)? else {
            return Err(unknown());
        };
        let stored: Stored<T> = serde_json::from_slice(&bytes).map_err(|_| unknown())?;
        if stored.owner.as_deref() != ctx.principal().map(|p| p.subject.as_str()) {
            // A foreign handle must not be confirmed to exist.
            return Err(unknown());
        }
        Ok((bytes, stored.value))
    }

    /// The value behind a handle the caller owns.
    pub async fn get(&self, ctx: &RequestContext, handle: &str) -> Result<T, ToolError> {
        let (_, value) = self.load(ctx, handle).await?;
        if self.sliding {
            self.store.touch(&Self::key(handle), self.ttl).await.map_err(unavailable)?;
        }
        Ok(value)
    }

    /// Applies `change` to the value atomically, on every instance: no
    /// concurrent update is lost. `change` may run more than once (each
    /// time on the newest value, when another writer came first), so it
    /// should only change the value. Returns what its last run returned.
    ///
    /// Errors: the handle is unknown, expired or another caller's; the store
    /// is unavailable (nothing was applied); the outcome is unknown (the
    /// store stopped answering after the write was sent: it may have been
    /// applied); or too many concurrent writers.
    pub async fn update<R>(
        &self,
        ctx: &RequestContext,
        handle: &str,
        mut change: impl FnMut(&mut T) -> R,
    ) -> Result<R, ToolError> {
        let key = Self::key(handle);
        let mut backoff = Duration::from_millis(1);
        for _ in 0..MAX_ATTEMPTS {
            let (before, mut value) = self.load(ctx, handle).await?;
            let out = change(&mut value);
            let after = self.encode(ctx, value)?;
            match self.store.compare_and_set(&key, Some(&before), after.clone(), self.ttl).await {
                Ok(true) => return Ok(out),
                Ok(false) => {}
                // Did this write land before the store stopped answering?
                Err(e) => match self.store.get(&key).await {
                    Ok(Some(now)) if now == after => return Ok(out),
                    Ok(Some(now)) if now == before => {}
                    Ok(None) => return Err(unavailable(e)),
                    Ok(Some(_)) | Err(_) => return Err(outcome_unknown(e)),
                },
            }
            tokio::time::sleep(jittered(backoff)).await;
            backoff = (backoff * 2).min(MAX_BACKOFF);
        }
        Err(ToolError::new(format!(
            "{} handle {handle:?}: too many concurrent updates; try again",
            self.kind
        )))
    }

    /// Removes a handle the caller owns; true if it was live.
    pub async fn remove(&self, ctx: &RequestContext, handle: &str) -> Result<bool, ToolError> {
        if self.get(ctx, handle).await.is_err() {
            return Ok(false);
        }
        self.store.delete(&Self::key(handle)).await.map_err(unavailable)
    }

    fn error(&self, what: String) -> ToolError {
        match &self.hint {
            Some(hint) => ToolError::new(format!("{what}; {hint}")),
            None => ToolError::new(what),
        }
    }
}

/// A store outage as the JSON-RPC error the client gets: nothing was
/// applied, so trying again is safe.
fn unavailable(e: StateError) -> ToolError {
    ToolError::protocol(crate::store::store_unavailable(&e, false))
}

/// A write whose outcome cannot be known: it may or may not have been
/// applied. Said as such, so a client does not blindly repeat a change
/// that is not safe to repeat.
fn outcome_unknown(e: StateError) -> ToolError {
    ToolError::protocol(crate::store::store_unavailable(&e, true))
}

/// `base` scaled by a random factor in [0.5, 1.5), so writers that
/// collided do not collide again in step.
fn jittered(base: Duration) -> Duration {
    let mut byte = [0u8; 1];
    let _ = getrandom::fill(&mut byte);
    base.mul_f64(0.5 + f64::from(byte[0]) / 256.0)
}
