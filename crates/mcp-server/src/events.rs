//! The server's event bus: list changes and resource updates, published from
//! anywhere in the application and delivered to every open connection.
//!
//! A bounded `tokio::sync::broadcast` channel carries events to each
//! connection's loop. A connection that falls behind far enough to miss
//! events is told so by the channel, and then over-approximates: it sends
//! every `list_changed` it may send and `resources/updated` for every URI its
//! client subscribed to, so an acknowledged change is never silently lost.

use tokio::sync::broadcast;

/// Which list changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ListKind {
    /// `tools/list`.
    Tools = 1,
    /// `prompts/list`.
    Prompts = 2,
    /// `resources/list`.
    Resources = 3,
    /// `resources/templates/list`.
    ResourceTemplates = 4,
}

impl ListKind {
    /// The list method.
    pub fn method(self) -> &'static str {
        match self {
            ListKind::Tools => "tools/list",
            ListKind::Prompts => "prompts/list",
            ListKind::Resources => "resources/list",
            ListKind::ResourceTemplates => "resources/templates/list",
        }
    }

    /// The notification announcing a change of this list.
    pub fn notification(self) -> &'static str {
        use mcp_types::notifications::method;
        match self {
            ListKind::Tools => method::TOOLS_LIST_CHANGED,
            ListKind::Prompts => method::PROMPTS_LIST_CHANGED,
            ListKind::Resources | ListKind::ResourceTemplates => method::RESOURCES_LIST_CHANGED,
        }
    }
}

/// Something every connection may need to tell its client.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerEvent {
    /// A list changed.
    ListChanged(ListKind),
    /// The resource at this URI changed.
    ResourceUpdated(String),
}

/// The sending side, shared by the registries and the public API.
#[derive(Debug, Clone)]
pub(crate) struct EventBus {
    tx: broadcast::Sender<ServerEvent>,
}

impl EventBus {
    pub(crate) fn new(capacity: usize) -> Self {
        Self { tx: broadcast::channel(capacity.max(1)).0 }
    }

    /// Publishes an event; nobody listening is fine.
    pub(crate) fn send(&self, event: ServerEvent) {
        let _ = self.tx.send(event);
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<ServerEvent> {
        self.tx.subscribe()
    }
}
