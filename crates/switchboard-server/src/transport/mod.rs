//! The seam between the dispatcher and a byte stream.
//!
//! A [`Transport`] splits into a [`FrameReader`] that yields one message at a
//! time and a [`FrameWriter`] that writes one at a time; the connection loop
//! (`connection.rs`, run by [`Server::serve`](crate::Server::serve)) does
//! the rest, with backpressure: it stops reading while the requests it holds
//! fill its window and queue. stdio and the in-memory pipe of
//! `switchboard-testkit` are both [`LineTransport`]s (newline-delimited JSON
//! over any `AsyncRead`/`AsyncWrite`). Transports
//! with their own request/response shape (HTTP) skip this trait and call
//! [`Server::accept`](crate::Server::accept) per message instead.

mod connection;
mod hold;
mod line;
mod stdio;

use std::future::Future;
use std::io;

pub(crate) use connection::serve;

pub use hold::PROGRESS_HOLD;
pub use line::{LineReader, LineTransport, LineWriter, POLL_BEFORE_SLEEP, poll_window, stdio};
pub use stdio::{StdinStream, StdoutStream};

/// One unit read from a transport.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// One message (or 2025-03-26 batch), without its delimiter.
    Message(Vec<u8>),
    /// A message longer than the limit was skipped without being buffered.
    TooLarge {
        /// The limit that was exceeded, in bytes.
        limit: usize,
    },
}

/// Reads frames.
pub trait FrameReader: Send + 'static {
    /// The next frame; `Ok(None)` at end of input.
    fn next_frame(&mut self) -> impl Future<Output = io::Result<Option<Frame>>> + Send;
}

/// Writes frames.
pub trait FrameWriter: Send + 'static {
    /// Writes one message (the writer adds any delimiter).
    fn write_frame(&mut self, frame: &[u8]) -> impl Future<Output = io::Result<()>> + Send;
    /// Pushes buffered output to the peer.
    fn flush(&mut self) -> impl Future<Output = io::Result<()>> + Send;
}

/// A bidirectional message stream.
pub trait Transport: Send + 'static {
    /// Its reading half.
    type Reader: FrameReader;
    /// Its writing half.
    type Writer: FrameWriter;
    /// Splits into halves that run on different tasks.
    fn split(self) -> (Self::Reader, Self::Writer);
}
