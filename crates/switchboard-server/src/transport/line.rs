//! Newline-delimited JSON framing (the stdio transport of every revision:
//! `docs/specification/<rev>/basic/transports.mdx` §stdio).
//!
//! Lines are read with a hard size limit: once a line passes the limit the
//! reader stops buffering it, skips to the next newline and reports
//! [`Frame::TooLarge`], so a hostile peer cannot grow memory without bound.
//! A trailing `\r` is removed and blank lines are skipped.
//!
//! The process's stdio ([`stdio`]) holds a message back for a moment after
//! a progress notification (see the `hold` module): clients built on the
//! official TypeScript SDK otherwise lose the last progress of a request
//! whose response arrives in the same read.
//!
//! The process's stdio also looks for the client's next message for a
//! moment before the thread goes to sleep ([`LineTransport::poll_before_sleep`]).

use std::io;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufWriter};

use super::hold::{Before, PROGRESS_HOLD, ProgressHold};
use super::{Frame, FrameReader, FrameWriter, StdinStream, StdoutStream, Transport};

/// Newline-delimited JSON over any byte stream.
#[derive(Debug)]
pub struct LineTransport<R, W> {
    reader: R,
    writer: W,
    limit: usize,
    progress_hold: Option<Duration>,
    poll_before_sleep: Option<Duration>,
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// Frames `reader`/`writer`, refusing lines longer than `limit` bytes.
    pub fn new(reader: R, writer: W, limit: usize) -> Self {
        Self { reader, writer, limit, progress_hold: None, poll_before_sleep: None }
    }

    /// Once everything read is taken, keeps looking for the peer's next
    /// bytes for up to `window` (letting every other task run between two
    /// looks) before the runtime's thread waits for them in the kernel.
    ///
    /// Why: a client that sends its next request as soon as it has the
    /// answer (a paginated list walk) otherwise finds the server's thread
    /// asleep every time, and each round trip pays for waking it: on the
    /// machine of the README's measurements, most of a page's wall time.
    /// What it costs: up to `window` of CPU after each message the client
    /// does not follow up at once; nothing while the client is idle longer.
    /// [`stdio`] uses [`POLL_BEFORE_SLEEP`].
    pub fn poll_before_sleep(mut self, window: Duration) -> Self {
        self.poll_before_sleep = Some(window);
        self
    }

    /// Makes a message that follows a progress notification wait until
    /// `hold` has passed since the notification was flushed (progress after
    /// progress never waits). [`stdio`] does this with
    /// [`PROGRESS_HOLD`](super::PROGRESS_HOLD); use it for any stream whose
    /// client may be built on the TypeScript SDK (see the `hold` module).
    pub fn hold_after_progress(mut self, hold: Duration) -> Self {
        self.progress_hold = Some(hold);
        self
    }
}

/// The process's stdin and stdout; must be called inside a Tokio runtime.
/// Pipes and sockets are read and written on the runtime's thread
/// ([`StdinStream`]), and a message after progress waits
/// [`PROGRESS_HOLD`](super::PROGRESS_HOLD) ([`LineTransport::hold_after_progress`]).
pub fn stdio(limit: usize) -> LineTransport<StdinStream, StdoutStream> {
    LineTransport::new(StdinStream::new(), StdoutStream::new(), limit)
        .hold_after_progress(PROGRESS_HOLD)
        .poll_before_sleep(poll_window("SWITCHBOARD_STDIO_POLL_US", POLL_BEFORE_SLEEP))
}

/// How long the process's stdio looks for the client's next message before
/// its thread sleeps ([`LineTransport::poll_before_sleep`]), unless
/// `SWITCHBOARD_STDIO_POLL_US` says otherwise (`0` turns it off).
pub const POLL_BEFORE_SLEEP: Duration = Duration::from_micros(100);

/// The window the environment `variable` asks for, in microseconds (`0`
/// turns looking off); `default` when unset or not a number. The one reader
/// of the stdio and HTTP windows' variables.
pub fn poll_window(variable: &str, default: Duration) -> Duration {
    poll_window_from(std::env::var(variable).ok().as_deref(), default)
}

/// The window a variable's value asks for, in microseconds; `default` when
/// unset or not a number.
fn poll_window_from(micros: Option<&str>, default: Duration) -> Duration {
    micros.and_then(|v| v.trim().parse().ok()).map_or(default, Duration::from_micros)
}

impl<R, W> Transport for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Reader = LineReader<R>;
    type Writer = LineWriter<W>;

    fn split(self) -> (Self::Reader, Self::Writer) {
        (
            LineReader {
                inner: self.reader,
                buffer: ReadBuffer::default(),
                poll_before_sleep: self.poll_before_sleep,
                limit: self.limit,
                line: Vec::new(),
                oversized: false,
            },
            LineWriter {
                inner: BufWriter::with_capacity(64 * 1024, self.writer),
                hold: self.progress_hold.map(ProgressHold::new),
            },
        )
    }
}

/// How many bytes one read from the peer may bring: a page of a list or a
/// tool call's arguments in one system call.
const READ_CHUNK: usize = 64 * 1024;

/// Bytes read from the peer and not yet taken as lines. Its memory is
/// reserved, never zeroed: tokio's `BufReader` writes zeros over its whole
/// buffer when it is made, which made 64 KB of a stdio server's resident
/// memory before the first message (a fifth of its heap after `initialize`);
/// here only the pages a read fills are touched.
#[derive(Debug, Default)]
struct ReadBuffer {
    bytes: Vec<u8>,
    /// Where the bytes not yet taken start.
    start: usize,
}

impl ReadBuffer {
    fn unread(&self) -> &[u8] {
        &self.bytes[self.start..]
    }

    fn consume(&mut self, used: usize) {
        self.start += used;
    }

    /// Reads what the peer has sent, at most [`READ_CHUNK`] bytes, once
    /// everything before was taken; `Ok(0)` at the end of input. With a
    /// `poll_window`, looks without waiting until it passes, yielding to the
    /// runtime between looks (its reactor then asks the kernel what is
    /// ready, without sleeping), before it waits.
    async fn fill<R: AsyncRead + Unpin>(
        &mut self,
        reader: &mut R,
        poll_window: Option<Duration>,
    ) -> io::Result<usize> {
        debug_assert!(self.unread().is_empty());
        self.bytes.clear();
        self.start = 0;
        self.bytes.reserve_exact(READ_CHUNK);
        // `read_buf` reads into the `Vec`'s spare capacity, uninitialized;
        // the buffer is empty here, so its capacity is all of it. A read
        // that is not ready reads nothing, so dropping it loses nothing.
        if let Some(window) = poll_window {
            let until = std::time::Instant::now() + window;
            while std::time::Instant::now() < until {
                if let Some(read) = futures::FutureExt::now_or_never(reader.read_buf(&mut self.bytes)) {
                    return read;
                }
                tokio::task::yield_now().await;
            }
        }
        reader.read_buf(&mut self.bytes).await
    }
}

/// Reading half of a [`LineTransport`].
#[derive(Debug)]
pub struct LineReader<R> {
    inner: R,
    buffer: ReadBuffer,
    /// Set by [`LineTransport::poll_before_sleep`].
    poll_before_sleep: Option<Duration>,
    limit: usize,
    /// The line read so far. Kept here, not in a local, so that dropping a
    /// `next_frame` future (the connection loop `select!`s on it) loses no
    /// bytes: reading is cancellation-safe.
    line: Vec<u8>,
    oversized: bool,
}

impl<R: AsyncRead + Unpin + Send + 'static> LineReader<R> {
    async fn read_line(&mut self) -> io::Result<Option<Frame>> {
        loop {
            if self.buffer.unread().is_empty() {
                self.buffer.fill(&mut self.inner, self.poll_before_sleep).await?;
            }
            let buf = self.buffer.unread();
            if buf.is_empty() {
                // EOF: a last line without a newline still counts.
                let line = std::mem::take(&mut self.line);
                if std::mem::take(&mut self.oversized) {
                    return Ok(Some(Frame::TooLarge { limit: self.limit }));
                }
                return Ok(if line.is_empty() { None } else { Some(Frame::Message(line)) });
            }
            let (chunk, used) = match memchr_newline(buf) {
                Some(i) => (&buf[..i], i + 1),
                None => (buf, buf.len()),
            };
            let found_newline = used > chunk.len();
            if !self.oversized {
                if self.line.len() + chunk.len() > self.limit {
                    self.oversized = true;
                    self.line = Vec::new();
                } else {
                    self.line.extend_from_slice(chunk);
                }
            }
            self.buffer.consume(used);
            if found_newline {
                let line = std::mem::take(&mut self.line);
                if std::mem::take(&mut self.oversized) {
                    return Ok(Some(Frame::TooLarge { limit: self.limit }));
                }
                return Ok(Some(Frame::Message(line)));
            }
        }
    }
}

fn memchr_newline(buf: &[u8]) -> Option<usize> {
    buf.iter().position(|&b| b == b'\n')
}

impl<R: AsyncRead + Unpin + Send + 'static> FrameReader for LineReader<R> {
    async fn next_frame(&mut self) -> io::Result<Option<Frame>> {
        loop {
            match self.read_line().await? {
                Some(Frame::Message(mut line)) => {
                    if line.last() == Some(&b'\r') {
                        line.pop();
                    }
                    if line.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    return Ok(Some(Frame::Message(line)));
                }
                other => return Ok(other),
            }
        }
    }
}

/// Writing half of a [`LineTransport`].
#[derive(Debug)]
pub struct LineWriter<W> {
    inner: BufWriter<W>,
    /// Set by [`LineTransport::hold_after_progress`].
    hold: Option<ProgressHold>,
}

impl<W: AsyncWrite + Unpin + Send + 'static> LineWriter<W> {
    /// Keeps `frame` out of the client's read of an earlier progress
    /// notification (see the `hold` module).
    async fn hold_before(&mut self, frame: &[u8]) -> io::Result<()> {
        let Some(hold) = &mut self.hold else { return Ok(()) };
        match hold.before(frame) {
            Before::Write => return Ok(()),
            Before::FlushThenWait => {
                self.inner.flush().await?;
                hold.flushed();
            }
            Before::Wait => {}
        }
        hold.wait().await;
        Ok(())
    }
}

impl<W: AsyncWrite + Unpin + Send + 'static> FrameWriter for LineWriter<W> {
    async fn write_frame(&mut self, frame: &[u8]) -> io::Result<()> {
        self.hold_before(frame).await?;
        // serde_json never writes a raw newline inside a message, so the
        // newline is always a frame boundary.
        self.inner.write_all(frame).await?;
        self.inner.write_all(b"\n").await?;
        if let Some(hold) = &mut self.hold {
            hold.written(frame);
        }
        Ok(())
    }

    async fn flush(&mut self) -> io::Result<()> {
        self.inner.flush().await?;
        if let Some(hold) = &mut self.hold {
            hold.flushed();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn frames(input: &[u8], limit: usize) -> Vec<Frame> {
        let (reader, _) =
            LineTransport::new(std::io::Cursor::new(input.to_vec()), tokio::io::sink(), limit).split();
        let mut reader = reader;
        let mut out = Vec::new();
        while let Some(f) = reader.next_frame().await.unwrap() {
            out.push(f);
        }
        out
    }

    #[tokio::test]
    async fn splits_lines_and_skips_blank_ones() {
        let got = frames(b"a\r\n\n  \nbb\nlast", 10).await;
        assert_eq!(
            got,
            vec![
                Frame::Message(b"a".to_vec()),
                Frame::Message(b"bb".to_vec()),
                Frame::Message(b"last".to_vec())
            ]
        );
    }

    #[test]
    fn the_poll_window_is_100_microseconds_unless_the_variable_says_otherwise() {
        let default = POLL_BEFORE_SLEEP;
        assert_eq!(poll_window_from(None, default), POLL_BEFORE_SLEEP);
        assert_eq!(POLL_BEFORE_SLEEP, Duration::from_micros(100));
        assert_eq!(poll_window_from(Some("0"), default), Duration::ZERO, "0 turns it off");
        assert_eq!(poll_window_from(Some(" 250 "), default), Duration::from_micros(250));
        assert_eq!(poll_window_from(Some("fast"), default), POLL_BEFORE_SLEEP);
        assert_eq!(poll_window_from(None, Duration::from_micros(7)), Duration::from_micros(7));
    }

    #[tokio::test]
    async fn a_zero_window_never_polls_and_still_reads() {
        let (mut reader, _writer) =
            LineTransport::new(std::io::Cursor::new(b"one\n".to_vec()), tokio::io::sink(), 100)
                .poll_before_sleep(Duration::ZERO)
                .split();
        assert_eq!(reader.next_frame().await.unwrap(), Some(Frame::Message(b"one".to_vec())));
        assert_eq!(reader.next_frame().await.unwrap(), None);
    }

    #[tokio::test]
    async fn a_reader_that_polls_before_sleeping_reads_what_comes_during_and_after_the_window() {
        let (client, server) = tokio::io::duplex(1024);
        let (mut reader, _writer) = LineTransport::new(server, tokio::io::sink(), 1000)
            .poll_before_sleep(Duration::from_millis(5))
            .split();
        let sender = tokio::spawn(async move {
            let mut client = client;
            client.write_all(b"first\n").await.unwrap();
            // Within the window, then long after it.
            tokio::task::yield_now().await;
            client.write_all(b"second\n").await.unwrap();
            tokio::time::sleep(Duration::from_millis(30)).await;
            client.write_all(b"third").await.unwrap();
        });
        for line in ["first", "second", "third"] {
            assert_eq!(reader.next_frame().await.unwrap(), Some(Frame::Message(line.as_bytes().to_vec())));
        }
        sender.await.unwrap();
        assert_eq!(reader.next_frame().await.unwrap(), None, "the end of input ends it");
    }

    #[tokio::test]
    async fn oversized_lines_are_skipped_whole() {
        let mut input = vec![b'x'; 200_000];
        input.extend_from_slice(b"\nok\n");
        let got = frames(&input, 1000).await;
        assert_eq!(got, vec![Frame::TooLarge { limit: 1000 }, Frame::Message(b"ok".to_vec())]);
        // Exactly at the limit is fine.
        let got = frames(b"12345\n", 5).await;
        assert_eq!(got, vec![Frame::Message(b"12345".to_vec())]);
    }
}

#[cfg(test)]
mod hold_tests {
    use tokio::io::AsyncReadExt;
    use tokio::time::Instant;

    use super::*;

    const PROGRESS: &[u8] =
        br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":100}}"#;
    const RESPONSE: &[u8] = br#"{"jsonrpc":"2.0","id":1,"result":{}}"#;

    /// Writes progress and its response as one batch (what the connection
    /// loop does when both are queued); the time the batch took, and what
    /// the peer could read before the response was written.
    async fn progress_then_response(
        transport: LineTransport<tokio::io::Empty, tokio::io::DuplexStream>,
        peer: &mut tokio::io::DuplexStream,
    ) -> (Duration, Vec<u8>) {
        let (_, mut writer) = transport.split();
        let started = Instant::now();
        writer.write_frame(PROGRESS).await.unwrap();
        let written = tokio::spawn(async move {
            writer.write_frame(RESPONSE).await.unwrap();
            writer.flush().await.unwrap();
            Instant::now()
        });
        tokio::task::yield_now().await;
        let mut early = vec![0; 4096];
        let n = tokio::time::timeout(Duration::from_millis(1), peer.read(&mut early))
            .await
            .unwrap_or(Ok(0))
            .unwrap();
        early.truncate(n);
        (written.await.unwrap() - started, early)
    }

    #[tokio::test(start_paused = true)]
    async fn a_response_after_progress_waits_out_the_hold_after_the_progress_went_out() {
        let (server, mut peer) = tokio::io::duplex(64 * 1024);
        let transport = LineTransport::new(tokio::io::empty(), server, 1024)
            .hold_after_progress(Duration::from_millis(10));
        let (took, early) = progress_then_response(transport, &mut peer).await;
        assert_eq!(took, Duration::from_millis(10));
        assert_eq!(early, [PROGRESS, b"\n"].concat(), "the progress goes out on its own, first");
        let mut rest = vec![0; 4096];
        let n = peer.read(&mut rest).await.unwrap();
        assert_eq!(&rest[..n], [RESPONSE, b"\n"].concat());
    }

    #[tokio::test(start_paused = true)]
    async fn without_the_hold_nothing_waits() {
        let (server, mut peer) = tokio::io::duplex(64 * 1024);
        let transport = LineTransport::new(tokio::io::empty(), server, 1024);
        let (took, early) = progress_then_response(transport, &mut peer).await;
        assert_eq!(took, Duration::ZERO);
        assert_eq!(early, [PROGRESS, b"\n", RESPONSE, b"\n"].concat());
    }
}
