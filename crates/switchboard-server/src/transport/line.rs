//! Newline-delimited JSON framing (the stdio transport of every revision:
//! `docs/specification/<rev>/basic/transports.mdx` §stdio).
//!
//! Lines are read with a hard size limit: once a line passes the limit the
//! reader stops buffering it, skips to the next newline and reports
//! [`Frame::TooLarge`], so a hostile peer cannot grow memory without bound.
//! A trailing `\r` is removed and blank lines are skipped.

use std::io;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, BufWriter};

use super::{Frame, FrameReader, FrameWriter, StdinStream, StdoutStream, Transport};

/// Newline-delimited JSON over any byte stream.
#[derive(Debug)]
pub struct LineTransport<R, W> {
    reader: R,
    writer: W,
    limit: usize,
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// Frames `reader`/`writer`, refusing lines longer than `limit` bytes.
    pub fn new(reader: R, writer: W, limit: usize) -> Self {
        Self { reader, writer, limit }
    }
}

/// The process's stdin and stdout; must be called inside a Tokio runtime.
/// Pipes and sockets are read and written on the runtime's thread
/// ([`StdinStream`]).
pub fn stdio(limit: usize) -> LineTransport<StdinStream, StdoutStream> {
    LineTransport::new(StdinStream::new(), StdoutStream::new(), limit)
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
                inner: BufReader::with_capacity(64 * 1024, self.reader),
                limit: self.limit,
                line: Vec::new(),
                oversized: false,
            },
            LineWriter { inner: BufWriter::with_capacity(64 * 1024, self.writer) },
        )
    }
}

/// Reading half of a [`LineTransport`].
#[derive(Debug)]
pub struct LineReader<R> {
    inner: BufReader<R>,
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
            let buf = self.inner.fill_buf().await?;
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
            self.inner.consume(used);
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
}

impl<W: AsyncWrite + Unpin + Send + 'static> FrameWriter for LineWriter<W> {
    async fn write_frame(&mut self, frame: &[u8]) -> io::Result<()> {
        // serde_json never writes a raw newline inside a message, so the
        // newline is always a frame boundary.
        self.inner.write_all(frame).await?;
        self.inner.write_all(b"\n").await
    }

    async fn flush(&mut self) -> io::Result<()> {
        self.inner.flush().await
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
