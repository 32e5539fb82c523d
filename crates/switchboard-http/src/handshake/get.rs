//! `GET` on a handshake-era session: its standalone stream (list changes,
//! resource updates, request messages of JSON-answered requests), and
//! resuming any of its streams from `Last-Event-ID`.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::body::Bytes;
use axum::http::StatusCode;
use axum::response::Response;
use switchboard_types::ErrorObject;
use tokio::sync::broadcast;

use super::sessions::lookup;
use super::shared::unavailable;
use crate::app::{App, HandshakeSession, Live};
use crate::caller::Caller;
use crate::event_store::{EventStore, StoredEvent};
use crate::security::{error_response, method_not_allowed};
use crate::sse;

/// Follows a live stream; when the reader falls behind the live channel,
/// catches up from the event store, so a slow reader loses nothing the
/// store still holds.
struct Follow {
    /// The live channel, if the stream is still running.
    rx: Option<broadcast::Receiver<Live>>,
    store: Arc<dyn EventStore>,
    session: String,
    last: Option<String>,
    backlog: VecDeque<StoredEvent>,
    _guard: Option<GetGuard>,
}

impl Follow {
    async fn next(&mut self) -> Option<Bytes> {
        loop {
            if let Some(e) = self.backlog.pop_front() {
                self.last = Some(e.id.clone());
                return Some(sse::event(Some(e.id), &e.data));
            }
            let rx = self.rx.as_mut()?;
            match rx.recv().await {
                Ok(Live::Event(id, data)) => {
                    if let Some(last) = &self.last
                        && !is_after(&id, last)
                    {
                        continue; // already sent while catching up
                    }
                    self.last = Some(id.clone());
                    return Some(sse::event(Some(id), &data));
                }
                Ok(Live::Unstored(data)) => return Some(sse::event(None, &data)),
                Ok(Live::End) | Err(broadcast::error::RecvError::Closed) => return None,
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    if let Some(last) = &self.last
                        && let Ok(Some((_, missed))) = self.store.replay_after(&self.session, last).await
                    {
                        self.backlog.extend(missed.into_iter().filter(|e| !e.data.is_empty()));
                    }
                }
            }
        }
    }
}

/// True if event id `a` comes after `b` on the same stream (`stream.seq`).
fn is_after(a: &str, b: &str) -> bool {
    let seq = |id: &str| id.rsplit_once('.').and_then(|(_, n)| n.parse::<u64>().ok());
    match (seq(a), seq(b)) {
        (Some(x), Some(y)) => x > y,
        _ => true,
    }
}

/// Clears the "GET stream open" flag when the stream goes away.
struct GetGuard(Arc<AtomicBool>);

impl Drop for GetGuard {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// `GET`: the session's standalone stream, or with `Last-Event-ID` the
/// replay of a stream (and, while it runs, the rest of it).
pub(crate) async fn get(app: App, caller: Caller) -> Response {
    let headers = caller.headers();
    if !app.options.enable_get_stream {
        return method_not_allowed();
    }
    let accepts_sse = headers
        .get(axum::http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_none_or(|v| v.contains("text/event-stream") || v.contains("*/*"));
    if !accepts_sse {
        return error_response(
            StatusCode::NOT_ACCEPTABLE,
            None,
            ErrorObject::invalid_request("GET opens an SSE stream: Accept must include text/event-stream"),
        );
    }
    let hs = match lookup(&app, &headers, &caller).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    hs.touch();
    if let Some(last) = headers.get("last-event-id").and_then(|v| v.to_str().ok()) {
        return resume(&app, &hs, last.trim()).await;
    }
    if hs.get_open.swap(true, Ordering::AcqRel) {
        return error_response(
            StatusCode::CONFLICT,
            None,
            ErrorObject::invalid_request("this session already has an open GET stream"),
        );
    }
    let guard = GetGuard(Arc::clone(&hs.get_open));
    let Some(rx) = hs.live.lock().expect("session lock poisoned").get("g").map(|tx| tx.subscribe()) else {
        return error_response(
            StatusCode::NOT_FOUND,
            None,
            ErrorObject::invalid_request("the session has ended"),
        );
    };
    let follow = Follow {
        rx: Some(rx),
        store: Arc::clone(&app.store),
        session: hs.id.clone(),
        last: None,
        backlog: VecDeque::new(),
        _guard: Some(guard),
    };
    let stream = futures::stream::unfold(follow, |mut follow| async move {
        let event = follow.next().await?;
        Some((event, follow))
    });
    sse::response(stream, app.options.keep_alive, Some(&hs.id))
}

/// Replays a stream after `last` and, if it is still running, follows it.
async fn resume(app: &App, hs: &Arc<HandshakeSession>, last: &str) -> Response {
    // Subscribe before reading the store, so nothing falls in between.
    let live = hs
        .live
        .lock()
        .expect("session lock poisoned")
        .iter()
        .find_map(|(stream, tx)| last.starts_with(&format!("{stream}.")).then(|| tx.subscribe()));
    let replay = match app.store.replay_after(&hs.id, last).await {
        Ok(replay) => replay,
        Err(e) => return unavailable(&e),
    };
    let Some((_, stored)) = replay else {
        return error_response(
            StatusCode::NOT_FOUND,
            None,
            ErrorObject::invalid_request("unknown Last-Event-ID for this session"),
        );
    };
    let follow = Follow {
        rx: live,
        store: Arc::clone(&app.store),
        session: hs.id.clone(),
        last: Some(last.to_owned()),
        backlog: stored.into_iter().filter(|e| !e.data.is_empty()).collect(),
        _guard: None,
    };
    let stream = futures::stream::unfold(follow, |mut follow| async move {
        let event = follow.next().await?;
        Some((event, follow))
    });
    sse::response(stream, app.options.keep_alive, Some(&hs.id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event_store::InMemoryEventStore;

    #[tokio::test]
    async fn a_lagging_reader_catches_up_from_the_store() {
        let store: Arc<dyn EventStore> = Arc::new(InMemoryEventStore::default());
        let (tx, rx) = broadcast::channel::<Live>(2);
        let mut follow = Follow {
            rx: Some(rx),
            store: Arc::clone(&store),
            session: "s".into(),
            last: None,
            backlog: Default::default(),
            _guard: None,
        };
        let first = store.append("s", "g", b"0").await.unwrap();
        tx.send(Live::Event(first, b"0".to_vec())).unwrap();
        assert_eq!(follow.next().await.unwrap(), sse::event(Some("g.0".into()), b"0"));
        // Ten more events while the reader is away: the channel keeps two.
        for i in 1..=10u8 {
            let data = vec![b'0' + i % 10];
            let id = store.append("s", "g", &data).await.unwrap();
            let _ = tx.send(Live::Event(id, data));
        }
        tx.send(Live::End).unwrap();
        let mut seen = Vec::new();
        while let Some(event) = follow.next().await {
            seen.push(String::from_utf8(event.to_vec()).unwrap());
        }
        let ids: Vec<String> =
            seen.iter().map(|e| e.lines().next().unwrap().trim_start_matches("id: ").to_owned()).collect();
        let expected: Vec<String> = (1..=10).map(|i| format!("g.{i}")).collect();
        assert_eq!(ids, expected, "every event once, in order");
    }
}
