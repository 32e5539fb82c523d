//! Handshake-era sessions shared by several instances through a state store
//! ([`HttpOptions::state`](crate::HttpOptions::state)): the session record
//! (`session:{id}`), writing and merging it, and the `sessions` channel on
//! which instances tell each other about changes to a session (readiness,
//! subscriptions, log level, its end). Rebuilding a session another
//! instance created from its record is `sessions.rs`'s (`restore`). The
//! in-memory path (no store) never touches this file.

use std::collections::BTreeSet;

use axum::response::Response;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use switchboard_server::SessionSnapshot;
use switchboard_server::state::{StateError, StateStore};

use crate::app::App;
use crate::app::{HandshakeSession, Sessions};

/// The shared record of a session: `session:{id}` in the state store.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Record {
    #[serde(flatten)]
    pub(crate) snapshot: SessionSnapshot,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) principal: Option<RecordPrincipal>,
}

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct RecordPrincipal {
    pub(crate) subject: String,
    scopes: BTreeSet<String>,
}

/// A change to a session that the instances serving it apply to their
/// copies (published on [`CHANNEL`]).
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SessionChange {
    pub(crate) session: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) uri: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subscribed: Option<bool>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) ready: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) log_level: Option<switchboard_server::types::logging::LoggingLevel>,
    /// The session was deleted: drop the local copy now (closing its GET
    /// stream) rather than at its next request.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) ended: bool,
}

impl SessionChange {
    pub(crate) fn new(session: &str) -> Self {
        Self {
            session: session.to_owned(),
            uri: None,
            subscribed: None,
            ready: false,
            log_level: None,
            ended: false,
        }
    }
}

/// The pub/sub channel of [`SessionChange`]s.
pub(crate) const CHANNEL: &str = "sessions";

pub(crate) fn record_key(id: &str) -> String {
    format!("session:{id}")
}

/// `503` with a JSON-RPC error saying the state store is unavailable.
pub(crate) fn unavailable(e: &StateError) -> Response {
    let error = switchboard_server::state::store_unavailable(e, false);
    crate::security::outage_response(switchboard_types::jsonrpc::encode_error(None, &error))
}

/// A random tag for this instance's stream ids (no `.`: ids are `stream.seq`).
pub(crate) fn instance_tag() -> String {
    let mut bytes = [0u8; 6];
    getrandom::fill(&mut bytes).expect("the operating system's random source is available");
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Applies the [`SessionChange`]s published by every instance to the local
/// copies of their sessions.
pub(crate) fn spawn_listener(sessions: std::sync::Weak<Sessions>, state: &dyn StateStore) {
    let Ok(handle) = tokio::runtime::Handle::try_current() else { return };
    // Subscribed now, so no change published after the first session is missed.
    let mut changes = state.subscribe(CHANNEL);
    handle.spawn(async move {
        while let Some(message) = changes.next().await {
            let Some(sessions) = sessions.upgrade() else { return };
            let Ok(change) = serde_json::from_slice::<SessionChange>(&message) else {
                tracing::debug!("ignoring a malformed session change");
                continue;
            };
            if change.ended {
                if let Some(s) = sessions.remove(&change.session) {
                    s.drop_local();
                }
                continue;
            }
            let Some(hs) = sessions.get(&change.session) else { continue };
            if change.ready {
                hs.session.mark_ready();
            }
            if let (Some(uri), Some(subscribed)) = (&change.uri, change.subscribed) {
                hs.session.set_subscribed(uri, subscribed);
            }
            if let Some(level) = change.log_level {
                hs.session.set_log_level(level);
            }
        }
    });
}

/// Drops the local copy of a session that ended elsewhere.
pub(crate) fn forget_local(app: &App, id: &str) {
    if let Some(s) = app.sessions.remove(id) {
        s.drop_local();
    }
}

/// Writes a session's record (after `initialize` and after changes).
pub(crate) async fn save(app: &App, state: &dyn StateStore, hs: &HandshakeSession) -> Result<(), StateError> {
    let Some(snapshot) = hs.session.snapshot() else { return Ok(()) };
    let principal = hs
        .session
        .principal()
        .map(|p| RecordPrincipal { subject: p.subject.clone(), scopes: p.scopes.clone() });
    let record = serde_json::to_vec(&Record { snapshot, principal }).expect("records serialize; qed");
    state.set(&record_key(&hs.id), record, app.options.session_idle_timeout).await
}

/// Attempts of one merge before giving up under contention.
const MERGE_ATTEMPTS: u32 = 32;

/// Applies `changes` (with their new values from `snapshot`, this
/// instance's copy) to the stored record by compare-and-set: two instances
/// changing one session at the same moment (each subscribing to a
/// resource) both land, where writing the whole local copy would let the
/// later writer drop the earlier change. A record that is gone (the
/// session ended or expired) is not brought back.
async fn merge(
    app: &App,
    state: &dyn StateStore,
    id: &str,
    snapshot: &SessionSnapshot,
    changes: &[Change],
) -> Result<(), StateError> {
    let key = record_key(id);
    let mut backoff = std::time::Duration::from_millis(1);
    for _ in 0..MERGE_ATTEMPTS {
        let Some(before) = state.get(&key).await? else { return Ok(()) };
        let mut record: Record = serde_json::from_slice(&before)
            .map_err(|e| StateError(format!("unreadable session record {key}: {e}")))?;
        for change in changes {
            change.apply(snapshot, &mut record.snapshot);
        }
        let after = serde_json::to_vec(&record).expect("records serialize; qed");
        if state.compare_and_set(&key, Some(&before), after, app.options.session_idle_timeout).await? {
            return Ok(());
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(std::time::Duration::from_millis(50));
    }
    Err(StateError(format!("{key}: too many concurrent changes; try again")))
}

/// What a message changes in a session that other instances must learn.
#[derive(Debug, Clone)]
pub(crate) enum Change {
    Ready,
    Subscription(String),
    LogLevel,
}

impl Change {
    /// Copies what this change touched from `from` (the changed local
    /// copy) into `into` (the stored record), leaving the rest as stored.
    fn apply(&self, from: &SessionSnapshot, into: &mut SessionSnapshot) {
        match self {
            Change::Ready => into.ready = from.ready,
            Change::LogLevel => into.log_level = from.log_level,
            Change::Subscription(uri) => {
                let subscribed = from.subscriptions.contains(uri);
                into.subscriptions.retain(|u| u != uri);
                if subscribed {
                    into.subscriptions.push(uri.clone());
                }
            }
        }
    }
}

pub(crate) fn changes_of(messages: &[&Value]) -> Vec<Change> {
    messages
        .iter()
        .filter_map(|m| match m["method"].as_str()? {
            "notifications/initialized" => Some(Change::Ready),
            "resources/subscribe" | "resources/unsubscribe" => {
                Some(Change::Subscription(m["params"]["uri"].as_str()?.to_owned()))
            }
            "logging/setLevel" => Some(Change::LogLevel),
            _ => None,
        })
        .collect()
}

/// After messages that changed the session: saves its record and tells the
/// other instances.
pub(crate) async fn share(app: &App, hs: &HandshakeSession, changes: &[Change]) -> Result<(), StateError> {
    let (Some(state), false) = (&app.state, changes.is_empty()) else { return Ok(()) };
    let Some(snapshot) = hs.session.snapshot() else { return Ok(()) };
    merge(app, state.as_ref(), &hs.id, &snapshot, changes).await?;
    for change in changes {
        let mut message = SessionChange::new(&hs.id);
        match change {
            Change::Ready => message.ready = snapshot.ready,
            Change::Subscription(uri) => {
                message.subscribed = Some(snapshot.subscriptions.contains(uri));
                message.uri = Some(uri.clone());
            }
            Change::LogLevel => message.log_level = snapshot.log_level,
        }
        let bytes = serde_json::to_vec(&message).expect("changes serialize; qed");
        state.publish(CHANNEL, bytes).await?;
    }
    Ok(())
}
