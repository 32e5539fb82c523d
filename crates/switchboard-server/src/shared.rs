//! What the areas share: the server's identity, its options, the event bus,
//! and the codecs that sign cursors and request state under the server's
//! key. The handlers of several areas read these (every list method pages
//! with the cursor codec and the page size, `tools/call` reads the argument
//! mode and the task time to live), so they are one struct that reads no
//! area, handed to a handler beside its own area's state.

use serde_json::Value;
use switchboard_types::Implementation;

use crate::catalog::CursorCodec;
use crate::input::StateCodec;
use crate::options::ServerOptions;
use crate::session::events::EventBus;

pub(crate) struct Shared {
    pub info: Implementation,
    /// `info` pre-rendered for 2026-07-28 results' `_meta`.
    pub per_request_info: Value,
    pub instructions: Option<String>,
    pub options: ServerOptions,
    pub events: EventBus,
    /// Swappable: an instance started during a state-store outage adopts
    /// the shared key once the store answers ([`Server::set_cursor_key`](crate::Server::set_cursor_key)).
    pub cursors: arc_swap::ArcSwap<CursorCodec>,
    /// Signs 2026-07-28 `requestState` values, under a key derived from the
    /// same server key (swapped with it).
    pub request_states: arc_swap::ArcSwap<StateCodec>,
}
