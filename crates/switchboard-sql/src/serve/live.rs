//! What every item of an open database reaches: the database itself with
//! its catalogue and described statements ([`Live`]), its state as the
//! supervisor keeps it ([`Slot`]), and the running server once attached
//! ([`Attached`]).

use std::sync::{Arc, Mutex, OnceLock};

use switchboard_server::Server;
use tokio::sync::Notify;

use crate::spec::Resolved;
use crate::{Catalog, Database};

use super::described::DescribedTool;

/// An open database with its catalogue and described statements.
#[derive(Debug)]
pub(crate) struct Live {
    /// The configuration it was opened with.
    pub resolved: Resolved,
    /// The engine's handle.
    pub db: Arc<dyn Database>,
    /// The exposed tables and views.
    pub catalog: Catalog,
    /// The schema's fingerprint when `catalog` was read.
    pub fingerprint: String,
    /// The `[[tools.sql]]` statements that described.
    pub tools: Vec<Arc<DescribedTool>>,
    /// The engine's notes, then the tools left out and why.
    pub notes: Vec<String>,
}

impl Live {
    /// The database's name.
    pub fn name(&self) -> &str {
        &self.resolved.spec.name
    }
}

/// One database's state, shared by its task, its resources and statuses.
#[derive(Debug)]
pub(crate) struct Slot {
    pub(super) state: Mutex<SlotState>,
    /// Wakes the task to check the fingerprint now (the file watcher saw
    /// an SQLite file change).
    pub(super) poke: Notify,
}

#[derive(Debug, Clone)]
pub(crate) enum SlotState {
    Connecting,
    Open(Arc<Live>),
    Down(String),
}

impl Slot {
    /// The open database, if it is open.
    pub fn live(&self) -> Option<Arc<Live>> {
        match &*self.state.lock().expect("slot lock poisoned") {
            SlotState::Open(live) => Some(Arc::clone(live)),
            _ => None,
        }
    }

    pub fn set(&self, state: SlotState) {
        *self.state.lock().expect("slot lock poisoned") = state;
    }

    pub fn get(&self) -> SlotState {
        self.state.lock().expect("slot lock poisoned").clone()
    }
}

/// What every item's handler reaches: the running server, once attached
/// (cursor signing, the state store for single-use confirmations).
#[derive(Debug, Clone, Default)]
pub(crate) struct Attached(pub(super) Arc<OnceLock<Server>>);

impl Attached {
    /// The server, or a message for the model when it is not attached yet.
    pub fn server(&self) -> Result<&Server, switchboard_server::ToolError> {
        self.0.get().ok_or_else(|| {
            switchboard_server::ToolError::new("the server is starting; try again in a moment")
        })
    }
}
