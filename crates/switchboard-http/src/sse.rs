//! Server-sent events, written by hand.
//!
//! Hand-written (rather than axum's `Sse`) because MCP needs one thing
//! axum's encoder drops: a priming event whose `data` is present and empty
//! (2025-11-25 §SSE polling). The framing is trivial: JSON-RPC messages
//! never contain a raw newline, so each one is a single `data:` line.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use futures::Stream;

/// One SSE event carrying a serialized JSON-RPC message.
pub(crate) fn event(id: Option<String>, data: &[u8]) -> Bytes {
    let mut out = Vec::with_capacity(data.len() + 32);
    if let Some(id) = id {
        out.extend_from_slice(b"id: ");
        out.extend_from_slice(id.as_bytes());
        out.push(b'\n');
    }
    out.extend_from_slice(b"data: ");
    out.extend_from_slice(data);
    out.extend_from_slice(b"\n\n");
    Bytes::from(out)
}

/// A priming event: an id, the reconnection delay, and empty data.
pub(crate) fn priming(id: String, retry: Duration) -> Bytes {
    Bytes::from(format!("id: {id}\nretry: {}\ndata: \n\n", retry.as_millis()))
}

/// Wraps an event stream with keep-alive comments while it is idle.
struct KeepAlive<S> {
    inner: Pin<Box<S>>,
    tick: tokio::time::Interval,
}

impl<S: Stream<Item = Bytes>> Stream for KeepAlive<S> {
    type Item = Result<Bytes, std::convert::Infallible>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        match self.inner.as_mut().poll_next(cx) {
            Poll::Ready(Some(bytes)) => {
                self.tick.reset();
                Poll::Ready(Some(Ok(bytes)))
            }
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => match self.tick.poll_tick(cx) {
                Poll::Ready(_) => Poll::Ready(Some(Ok(Bytes::from_static(b":\n\n")))),
                Poll::Pending => Poll::Pending,
            },
        }
    }
}

/// An SSE response: `text/event-stream`, no caching, `X-Accel-Buffering:
/// no` (the 2026-07-28 SHOULD, harmless everywhere), keep-alive comments.
pub(crate) fn response<S>(stream: S, keep_alive: Duration, session_id: Option<&str>) -> Response
where
    S: Stream<Item = Bytes> + Send + 'static,
{
    let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + keep_alive, keep_alive);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let body = Body::from_stream(KeepAlive { inner: Box::pin(stream), tick });
    let mut response = Response::new(body);
    *response.status_mut() = StatusCode::OK;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    if let Some(id) = session_id.and_then(|id| HeaderValue::from_str(id).ok()) {
        headers.insert("mcp-session-id", id);
    }
    response
}
