//! Stateful-tool handles kept in a [`StateStore`], so a handle minted by
//! one instance resolves on every other (the scale-out form of
//! [`HandleStore`](crate::HandleStore)).
//!
//! The value is stored as JSON with its owner's subject under
//! `handle:{handle}`, with the store's time to live; each successful use
//! renews it when the store is sliding. [`SharedHandleStore::update`] loads
//! the value, lets the caller change it and writes it back: concurrent
//! updates of one handle are last-writer-wins, which suits handles a single
//! conversation drives.

use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::context::RequestContext;
use crate::state::{StateError, StateStore};
use crate::tool::ToolError;

#[derive(serde::Serialize, serde::Deserialize)]
struct Stored<T> {
    owner: Option<String>,
    value: T,
}

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
        let stored = Stored { owner: ctx.principal().map(|p| p.subject.clone()), value };
        let bytes = serde_json::to_vec(&stored)
            .map_err(|e| ToolError::new(format!("cannot store the value: {e}")))?;
        self.store.set(&Self::key(handle), bytes, self.ttl).await.map_err(unavailable)
    }

    /// The value behind a handle the caller owns.
    pub async fn get(&self, ctx: &RequestContext, handle: &str) -> Result<T, ToolError> {
        let key = Self::key(handle);
        let unknown = || self.error(format!("unknown {} handle {handle:?} (or expired)", self.kind));
        let Some(bytes) = self.store.get(&key).await.map_err(unavailable)? else { return Err(unknown()) };
        let stored: Stored<T> = serde_json::from_slice(&bytes).map_err(|_| unknown())?;
        if stored.owner.as_deref() != ctx.principal().map(|p| p.subject.as_str()) {
            // A foreign handle must not be confirmed to exist.
            return Err(unknown());
        }
        if self.sliding {
            self.store.touch(&key, self.ttl).await.map_err(unavailable)?;
        }
        Ok(stored.value)
    }

    /// Loads the value, applies `change` and stores the result; returns
    /// what `change` returned.
    pub async fn update<R>(
        &self,
        ctx: &RequestContext,
        handle: &str,
        change: impl FnOnce(&mut T) -> R,
    ) -> Result<R, ToolError> {
        let mut value = self.get(ctx, handle).await?;
        let out = change(&mut value);
        self.write(ctx, handle, value).await?;
        Ok(out)
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

/// A store outage as the JSON-RPC error the client gets (`-32603`).
fn unavailable(e: StateError) -> ToolError {
    ToolError::protocol(mcp_types::ErrorObject::internal(format!("{e}; try again shortly")))
}
