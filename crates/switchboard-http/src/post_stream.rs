//! The SSE answer of one POST that stands alone: a 2026-07-28 request, or
//! a handshake-era request without a session. Its request-scoped messages
//! (progress, logs) as they come, then its response; a listen stream also
//! gets the server's events. Closing the stream aborts the request.
//!
//! Both transports' stand-alone POSTs answer this way; neither may hold a
//! reader of the request's queue that never reads (a handler would stall on
//! a full queue). A handshake-era request with a session is answered on the
//! session's resumable streams instead (`handshake/post.rs`).

use std::collections::VecDeque;

use axum::response::Response;
use switchboard_server::Reply;
use tokio::sync::{mpsc, oneshot};
use tokio::task::AbortHandle;

use crate::app::App;
use crate::sse;

struct AbortOnDrop(Vec<AbortHandle>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        // Closing the response stream cancels the request (2026-07-28 MUST).
        for h in &self.0 {
            h.abort();
        }
    }
}

/// Feeds an SSE response: request-scoped messages as they come, then, once
/// the handler answered, whatever was still queued and the response.
struct Pump {
    rx: mpsc::Receiver<Vec<u8>>,
    final_rx: Option<oneshot::Receiver<Option<Vec<u8>>>>,
    queued: VecDeque<Vec<u8>>,
    _guard: AbortOnDrop,
    _session: std::sync::Arc<switchboard_server::Session>,
}

impl Pump {
    async fn next(&mut self) -> Option<Vec<u8>> {
        if let Some(message) = self.queued.pop_front() {
            return Some(message);
        }
        let final_rx = self.final_rx.as_mut()?;
        tokio::select! {
            biased;
            Some(message) = self.rx.recv() => Some(message),
            out = final_rx => {
                self.final_rx = None;
                while let Ok(message) = self.rx.try_recv() {
                    self.queued.push_back(message);
                }
                if let Ok(Some(reply)) = out {
                    self.queued.push_back(reply);
                }
                self.queued.pop_front()
            }
        }
    }
}

/// The answer as an SSE stream: request-scoped messages, then the
/// response; a listen stream also gets the server's events. Closing the
/// stream aborts the request.
pub(crate) fn stream_answer(
    app: &App,
    session: std::sync::Arc<switchboard_server::Session>,
    rx: mpsc::Receiver<Vec<u8>>,
    fut: futures::future::BoxFuture<'static, Option<Reply>>,
    listen: bool,
) -> Response {
    let (final_tx, final_rx) = oneshot::channel::<Option<Vec<u8>>>();
    let task = tokio::spawn(async move {
        let _ = final_tx.send(fut.await.map(Reply::into_bytes));
    });
    let mut handles = vec![task.abort_handle()];
    if listen {
        let forwarder = tokio::spawn(app.server.forward_events(std::sync::Arc::clone(&session)));
        handles.push(forwarder.abort_handle());
    }
    let state = Pump {
        rx,
        final_rx: Some(final_rx),
        queued: VecDeque::new(),
        _guard: AbortOnDrop(handles),
        _session: session,
    };
    let stream = futures::stream::unfold(state, |mut pump| async move {
        let next = pump.next().await?;
        Some((sse::event(None, &next), pump))
    });
    sse::response(stream, app.options.keep_alive, None)
}
