//! `DELETE` on a handshake-era session: the client ends it.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use super::sessions::lookup;
use super::shared::{CHANNEL, SessionChange, record_key, unavailable};
use crate::app::App;
use crate::caller::Caller;

/// `DELETE`: ends the session (on every instance, with a state store).
pub(crate) async fn delete(app: App, caller: Caller) -> Response {
    let headers = caller.headers();
    let hs = match lookup(&app, &headers, &caller).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    // With a store, deleting the record ends the session on every instance
    // (their next request finds it gone).
    if let Some(state) = &app.state {
        if let Err(e) = state.delete(&record_key(&hs.id)).await {
            return unavailable(&e);
        }
        // Best effort: the others would otherwise notice at their next request.
        let ended = SessionChange { ended: true, ..SessionChange::new(&hs.id) };
        let bytes = serde_json::to_vec(&ended).expect("changes serialize; qed");
        if let Err(e) = state.publish(CHANNEL, bytes).await {
            tracing::warn!(session = %hs.id, error = %e, "session end not published");
        }
    }
    if let Some(s) = app.sessions.remove(&hs.id) {
        s.end(app.store.as_ref()).await;
    } else {
        // Already dropped locally: still forget its shared events.
        hs.end(app.store.as_ref()).await;
    }
    StatusCode::OK.into_response()
}
