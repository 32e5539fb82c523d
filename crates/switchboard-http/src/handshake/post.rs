//! A POST on a handshake-era session: JSON or an SSE stream of its own,
//! stored for resumption; `initialize` opens the session.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use switchboard_types::ErrorObject;
use tokio::sync::{broadcast, mpsc, oneshot};

use super::sessions::{admit, open_or_find, with_session_header};
use super::shared::{Change, changes_of, save, share, unavailable};
use crate::app::{App, HandshakeSession, LIVE_CAPACITY, Live};
use crate::caller::Caller;
use crate::event_store::EventStore;
use crate::options::ResponseMode;
use crate::peek::Body;
use crate::security::{error_response, json_response, reply_response};
use crate::sse;

/// Whether a POST is answered as SSE: in `auto` mode when one of its
/// messages, each given as its method and whether it has a progress token,
/// asks for progress or is of a method whose facts say it streams (it may
/// send messages before its response: `tools/call`'s logs and live
/// questions).
pub(super) fn wants_sse<'m>(
    mode: ResponseMode,
    server: &switchboard_server::Server,
    mut messages: impl Iterator<Item = (Option<&'m str>, bool)>,
) -> bool {
    match mode {
        ResponseMode::Sse => true,
        ResponseMode::Json => false,
        ResponseMode::Auto => messages.any(|(method, progress)| {
            let facts = method.and_then(|method| server.method_facts(method));
            progress || facts.is_some_and(|facts| facts.streams)
        }),
    }
}

/// A POST on a session (opened here by an `initialize` without a session
/// header). `peeked` is the body's classification (see
/// [`peek`](crate::peek)): a body that is no valid JSON-RPC message never
/// gets here, and whether a batch is taken is decided there too.
pub(super) async fn post(
    app: App,
    headers: &HeaderMap,
    body: Bytes,
    peeked: Body,
    caller: Caller,
) -> Response {
    let value: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(e) => return error_response(StatusCode::BAD_REQUEST, None, ErrorObject::parse_error(e)),
    };
    let messages: Vec<&Value> = match &value {
        Value::Array(items) => items.iter().collect(),
        other => vec![other],
    };
    let (hs, created) = match open_or_find(&app, headers, &peeked, &caller).await {
        Ok(found) => found,
        Err(refusal) => return refusal,
    };
    // Only computed with a store: what other instances must learn.
    let changes = if app.state.is_some() { changes_of(&messages) } else { Vec::new() };
    let request = Post { app: &app, hs: &hs, body: &body, caller: &caller };
    if !peeked.has_requests() {
        request.answer_without_requests(&changes).await
    } else if peeked.is_initialize() {
        request.answer_initialize(created).await
    } else if !wants_sse(
        app.options.response_mode,
        &app.server,
        messages.iter().map(|m| (m["method"].as_str(), m["params"]["_meta"].get("progressToken").is_some())),
    ) {
        request.answer_json(&changes).await
    } else {
        request.answer_sse(changes).await
    }
}

/// One POST on a session, between finding the session and answering.
struct Post<'a> {
    app: &'a App,
    hs: &'a Arc<HandshakeSession>,
    body: &'a Bytes,
    caller: &'a Caller,
}

impl Post<'_> {
    /// Notifications and responses only: `202` (or `400` with the errors).
    async fn answer_without_requests(&self, changes: &[Change]) -> Response {
        let Post { app, hs, body, caller } = *self;
        let reply = app.server.handle_frame_via(&hs.session, body, &caller.via(None)).await;
        if let Err(e) = share(app, hs, changes).await {
            return unavailable(&e);
        }
        without_requests(reply)
    }

    /// `initialize`: answered with JSON and the new session's id. A failed
    /// handshake ends a session created for it; with a store, the new
    /// session's record is written before it is announced.
    async fn answer_initialize(&self, created: bool) -> Response {
        let Post { app, hs, body, caller } = *self;
        let reply =
            app.server.handle_frame_via(&hs.session, body, &caller.via(None)).await.unwrap_or_default();
        let ok = hs.session.negotiated_version().is_some();
        if created && !ok {
            if let Some(s) = app.sessions.remove(&hs.id) {
                s.end(app.store.as_ref()).await;
            }
            return json_response(StatusCode::OK, reply);
        }
        if created
            && let Some(state) = &app.state
            && let Err(e) = save(app, state.as_ref(), hs).await
        {
            if let Some(s) = app.sessions.remove(&hs.id) {
                s.drop_local();
            }
            return unavailable(&e);
        }
        if created
            && let Some(state) = &app.state
            && let Err(refusal) = admit(app, state.as_ref(), &hs.id).await
        {
            if let Some(s) = app.sessions.remove(&hs.id) {
                s.drop_local();
            }
            return refusal;
        }
        with_session_header(json_response(StatusCode::OK, reply), &hs.id)
    }

    /// Requests answered with one JSON body.
    async fn answer_json(&self, changes: &[Change]) -> Response {
        let Post { app, hs, body, caller } = *self;
        let reply = app.server.accept_via(&hs.session, body, &caller.via(None)).reply().await;
        if let Err(e) = share(app, hs, changes).await {
            return unavailable(&e);
        }
        with_session_header(reply_response(StatusCode::OK, reply), &hs.id)
    }

    /// Requests answered with an SSE stream of their own, stored for
    /// resumption (primed first when the revision asks for it).
    async fn answer_sse(&self, changes: Vec<Change>) -> Response {
        let Post { app, hs, body, caller } = *self;
        // SSE: request-scoped messages and the response go on this POST's stream.
        let (req_tx, req_rx) = mpsc::channel::<Vec<u8>>(256);
        let accepted = app.server.accept_via(&hs.session, body, &caller.via(Some(&req_tx)));
        drop(req_tx);
        let (final_tx, final_rx) = oneshot::channel::<Option<Vec<u8>>>();
        let share_after = (!changes.is_empty()).then(|| (app.clone(), Arc::clone(hs)));
        tokio::spawn(async move {
            let out = accepted.resolve().await;
            if let Some((app, hs)) = share_after
                && let Err(e) = share(&app, &hs, &changes).await
            {
                tracing::warn!(session = %hs.id, error = %e, "session change not shared");
            }
            let _ = final_tx.send(out);
        });
        let stream_id = format!("p{}{}", app.instance, hs.next_stream.fetch_add(1, Ordering::Relaxed));
        let (primary_tx, primary_rx) = mpsc::channel::<Bytes>(256);
        let (live_tx, _) = broadcast::channel::<Live>(LIVE_CAPACITY);
        hs.live.lock().expect("session lock poisoned").insert(stream_id.clone(), live_tx.clone());
        let priming = app.options.sse_priming
            && hs.session.negotiated_version().is_some_and(|v| v.rules().http.sse_priming);
        if priming {
            // Without a stored id there is nothing to resume from: no priming.
            match app.store.append(&hs.id, &stream_id, b"").await {
                Ok(id) => {
                    let _ = primary_tx.try_send(sse::priming(id, app.options.sse_retry));
                }
                Err(e) => tracing::warn!(session = %hs.id, error = %e, "priming event not stored"),
            }
        }
        let stream = StreamPump { store: Arc::clone(&app.store), hs: Arc::clone(hs), stream_id, live_tx };
        stream.spawn(req_rx, final_rx, primary_tx);
        let stream =
            futures::stream::unfold(primary_rx, |mut rx| async move { rx.recv().await.map(|e| (e, rx)) });
        sse::response(stream, app.options.keep_alive, Some(&hs.id))
    }
}

/// Moves one POST's messages onto its SSE stream, storing each as an event.
struct StreamPump {
    store: Arc<dyn EventStore>,
    hs: Arc<HandshakeSession>,
    stream_id: String,
    live_tx: broadcast::Sender<Live>,
}

impl StreamPump {
    /// Runs the pump: request-scoped messages as they come, then the
    /// response, then the stream's end.
    fn spawn(
        self,
        req_rx: mpsc::Receiver<Vec<u8>>,
        final_rx: oneshot::Receiver<Option<Vec<u8>>>,
        primary_tx: mpsc::Sender<Bytes>,
    ) {
        let StreamPump { store, hs, stream_id, live_tx } = self;
        let session_id = hs.id.clone();
        // The pump runs to completion whether or not the client stays: a
        // disconnect is not a cancellation in these revisions, and everything
        // is stored for a resume.
        tokio::spawn(async move {
            let mut req_rx = req_rx;
            let mut final_rx = final_rx;
            let emit = async |data: Vec<u8>| match store.append(&session_id, &stream_id, &data).await {
                Ok(id) => {
                    let _ = live_tx.send(Live::Event(id.clone(), data.clone()));
                    sse::event(Some(id), &data)
                }
                Err(e) => {
                    // Delivered, but not resumable.
                    tracing::warn!(session = %session_id, error = %e, "event not stored");
                    let _ = live_tx.send(Live::Unstored(data.clone()));
                    sse::event(None, &data)
                }
            };
            loop {
                tokio::select! {
                    biased;
                    Some(message) = req_rx.recv() => {
                        let _ = primary_tx.send(emit(message).await).await;
                    }
                    out = &mut final_rx => {
                        while let Ok(message) = req_rx.try_recv() {
                            let _ = primary_tx.send(emit(message).await).await;
                        }
                        if let Ok(Some(reply)) = out {
                            let _ = primary_tx.send(emit(reply).await).await;
                        }
                        break;
                    }
                }
            }
            let _ = live_tx.send(Live::End);
            hs.live.lock().expect("session lock poisoned").remove(&stream_id);
        });
    }
}

/// The answer to a body without requests (notifications, responses, a
/// 2025-03-26 batch of them): `202`, or `400` with the errors when the
/// dispatcher refused some of it ("If the server cannot accept the input,
/// it MUST return an HTTP error status code").
pub(super) fn without_requests(reply: Option<Vec<u8>>) -> Response {
    match reply {
        None => StatusCode::ACCEPTED.into_response(),
        Some(reply) => json_response(StatusCode::BAD_REQUEST, reply),
    }
}
