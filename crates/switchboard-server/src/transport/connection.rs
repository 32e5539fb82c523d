//! The connection loop of a [`Transport`]: what
//! [`Server::serve`](crate::Server::serve) runs for stdio and every other
//! line transport.
//!
//! One task reads frames in order and hands each to the dispatcher
//! ([`Server::accept`]). Notifications, responses to the server's own
//! requests and protocol errors are finished there, in arrival order. A
//! request that reaches a handler runs as its own task, so a slow handler
//! never holds up the next line. One writer task owns the output.
//!
//! **Backpressure, not refusal.** A client may pipeline any number of
//! requests on the one stream. At most `max_in_flight` of them run at once
//! (the window, [`limits::Window`]). While the window is full the loop keeps
//! reading, so a `notifications/cancelled` for a running request, or the
//! answer to a server-to-client request a handler waits for, still gets
//! through; the requests it reads meanwhile are accepted (registered, so a
//! cancellation finds them too) but wait in a queue as long as the window,
//! and start in order as places free. Only when that queue is full does the
//! loop stop reading: the client's writes then fill the OS pipe and block,
//! which is the backpressure. A place frees when a request's reply is in
//! the outbound queue, so a client that stops reading its responses stops
//! the server reading its requests. Refusing the excess with `-32029`, as
//! this loop once did, turned a burst into errors a client could only retry
//! blindly; `-32029` stays for rate limits, and for HTTP, where each request
//! arrives on its own.
//!
//! What this bounds: per connection, at most `2 × max_in_flight` requests
//! held (each at most `max_message_size`), the reader's buffer, and
//! `outbound_queue` messages waiting to be written. A 2025-03-26 batch is
//! one frame: it takes one place and its requests run together; items
//! beyond what the session may hold are refused with `-32029`, since one
//! frame cannot be half read.
//!
//! What it costs: a notification sent behind more than the window's and
//! the queue's worth of unfinished requests is read only when enough of them
//! finish. A client that fills the window with requests that end only when
//! cancelled (or that wait for its answers), then queues a full window more,
//! must wait for them; `ServerOptions::handler_timeout` bounds that wait.
//!
//! On end of input the loop stops reading, lets requests in flight and
//! queued finish for `ServerOptions::shutdown_grace`, cancels the rest,
//! flushes and returns.

use std::collections::VecDeque;
use std::ops::ControlFlow;
use std::sync::Arc;

use futures::future::BoxFuture;
use switchboard_types::ErrorObject;
use switchboard_types::jsonrpc::encode_error;
use tokio::sync::{broadcast, mpsc};
use tokio::task::JoinSet;

use super::{Frame, FrameReader, FrameWriter, Transport};
use crate::dispatch::Accepted;
use crate::dispatch::admit::Dispatch;
use crate::error::Result;
use crate::session::caller::Outbound;
use crate::session::caller::Via;
use crate::session::limits;
use crate::session::{Announced, Session};

/// A request accepted by the dispatcher, not yet answered.
type Reply = BoxFuture<'static, Option<crate::Reply>>;

/// The requests of one connection: those running, and those read while
/// the window was full, waiting for a place.
struct Requests {
    window: limits::Window,
    running: JoinSet<()>,
    waiting: VecDeque<Reply>,
    outbound: Outbound,
}

impl Requests {
    fn new(window: limits::Window, outbound: Outbound) -> Self {
        Self { window, running: JoinSet::new(), waiting: VecDeque::new(), outbound }
    }

    /// Starts `reply` if the window has a place, else queues it.
    fn push(&mut self, reply: Reply) {
        if self.running.len() < self.window.running {
            self.spawn(reply);
        } else {
            self.waiting.push_back(reply);
        }
    }

    /// Runs `reply` and queues its answer; the task (its place in the
    /// window) ends once the answer is in the outbound queue.
    fn spawn(&mut self, reply: Reply) {
        let outbound = self.outbound.clone();
        self.running.spawn(async move {
            if let Some(reply) = reply.await {
                let _ = outbound.send(reply.into_bytes()).await;
            }
        });
    }

    /// Fills free places with waiting requests, oldest first.
    fn start_waiting(&mut self) {
        while self.running.len() < self.window.running {
            let Some(reply) = self.waiting.pop_front() else { return };
            self.spawn(reply);
        }
    }

    /// Whether the loop may read another frame: the queue has room.
    fn can_read(&self) -> bool {
        self.waiting.len() < self.window.queued
    }

    /// Waits for one running request to finish, then starts the next.
    /// Pending forever when nothing runs (a `select!` branch guards that).
    async fn finish_one(&mut self) {
        let _ = self.running.join_next().await;
        self.start_waiting();
    }

    fn is_idle(&self) -> bool {
        self.running.is_empty() && self.waiting.is_empty()
    }

    fn len(&self) -> usize {
        self.running.len() + self.waiting.len()
    }

    /// Runs everything running and waiting to its end.
    async fn drain(&mut self) {
        while !self.is_idle() {
            self.start_waiting();
            let _ = self.running.join_next().await;
        }
    }

    /// Drops the waiting requests and aborts the running ones.
    async fn abort(&mut self) {
        self.waiting.clear();
        self.running.shutdown().await;
    }
}

/// Serves one connection until its input ends (see the module docs).
pub(crate) async fn serve<T: Transport>(server: Dispatch<'_>, transport: T) -> Result<()> {
    let options = &server.core.shared.options;
    let (mut reader, writer) = transport.split();
    let (tx, rx) = mpsc::channel::<Vec<u8>>(options.outbound_queue.max(1));
    let writer_task = tokio::spawn(write_loop(writer, rx));
    let session = Arc::new(Session::new(tx.clone(), None));
    let window = limits::Window::for_max_in_flight(options.max_in_flight);
    session.set_in_flight_cap(window.capacity());
    let mut requests = Requests::new(window, tx.clone());
    let mut events = server.core.shared.events.subscribe();
    let announced = server.core.announced();
    let read_result = loop {
        // A batch may hold more registered requests than it takes places.
        let readable = requests.can_read() && session.in_flight() < window.capacity();
        tokio::select! {
            frame = reader.next_frame(), if readable => match frame {
                Ok(Some(frame)) => {
                    if on_frame(server, &session, &mut requests, &tx, frame).await.is_break() {
                        break Ok(());
                    }
                }
                Ok(None) => break Ok(()),
                Err(e) => break Err(e),
            },
            event = events.recv() => on_event(&session, event, announced).await,
            () = requests.finish_one(), if !requests.running.is_empty() => {}
        }
    };
    finish(server, &session, &mut requests).await;
    drop(session);
    drop(requests);
    drop(tx);
    let write_result = writer_task.await.unwrap_or(Ok(()));
    read_result?;
    write_result?;
    Ok(())
}

/// Dispatches one frame; `Break` when the output is gone.
async fn on_frame(
    server: Dispatch<'_>,
    session: &Arc<Session>,
    requests: &mut Requests,
    tx: &Outbound,
    frame: Frame,
) -> ControlFlow<()> {
    let reply = match frame {
        Frame::Message(bytes) => match server.accept_via(session, &bytes, &Via::default()) {
            Accepted::Done(reply) => reply.map(crate::Reply::into_bytes),
            Accepted::Pending(reply) => {
                requests.push(reply);
                None
            }
        },
        Frame::TooLarge { limit } => Some(encode_error(
            None,
            &ErrorObject::invalid_request(format!(
                "message larger than the {limit}-byte limit was discarded"
            )),
        )),
    };
    if let Some(bytes) = reply
        && tx.send(bytes).await.is_err()
    {
        return ControlFlow::Break(());
    }
    ControlFlow::Continue(())
}

/// Delivers one server event (list changes, resource updates) to the client.
async fn on_event(
    session: &Session,
    event: std::result::Result<crate::session::events::ServerEvent, broadcast::error::RecvError>,
    announced: Announced,
) {
    match event {
        Ok(event) => session.deliver(&event, announced).await,
        // Missed some events: announce everything that may have changed.
        Err(broadcast::error::RecvError::Lagged(_)) => session.deliver_missed(announced).await,
        Err(broadcast::error::RecvError::Closed) => {}
    }
}

/// Input ended: listen streams finish with their result, and the other
/// requests, running or waiting, may finish within the grace period.
async fn finish(server: Dispatch<'_>, session: &Session, requests: &mut Requests) {
    session.close();
    let grace = server.core.shared.options.shutdown_grace;
    if tokio::time::timeout(grace, requests.drain()).await.is_err() {
        tracing::warn!(
            remaining = requests.len(),
            ?grace,
            "cancelling requests still running after input closed"
        );
        session.cancel_all();
        requests.abort().await;
    }
}

async fn write_loop<W: FrameWriter>(mut writer: W, mut rx: mpsc::Receiver<Vec<u8>>) -> std::io::Result<()> {
    while let Some(frame) = rx.recv().await {
        writer.write_frame(&frame).await?;
        // Flush only when nothing else is waiting, so bursts share a syscall.
        while let Ok(more) = rx.try_recv() {
            writer.write_frame(&more).await?;
        }
        writer.flush().await?;
    }
    writer.flush().await
}
