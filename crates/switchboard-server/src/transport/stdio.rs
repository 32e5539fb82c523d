//! The process's stdin and stdout, read and written on the runtime's own
//! thread when they are pipes or sockets.
//!
//! `tokio::io::stdin()` and `stdout()` do every read and write on a thread
//! of the blocking pool and hand the bytes over to the runtime thread: two
//! thread switches per request and its answer (and, with free-floating
//! threads, a hop between cores). A client that waits for each answer before
//! it sends the next request (a paginated list walk) pays those switches on
//! every round trip. When stdin and stdout are pipes or sockets, as they are
//! under every MCP client, they are switched to non-blocking mode and
//! registered with the runtime's reactor instead, so the thread that runs the
//! dispatcher also reads and writes (what libuv does for Node's stdio pipes).
//!
//! Files and terminals keep tokio's blocking-pool streams: epoll refuses
//! regular files, and a terminal's non-blocking flag would also be the
//! shell's. The original flags are put back when the stream is dropped.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The process's stdin (see the module docs).
#[derive(Debug)]
pub struct StdinStream(Input);

/// The process's stdout (see the module docs).
#[derive(Debug)]
pub struct StdoutStream(Output);

#[derive(Debug)]
enum Input {
    #[cfg(unix)]
    Reactor(reactor::Reactor),
    Blocking(tokio::io::Stdin),
}

#[derive(Debug)]
enum Output {
    #[cfg(unix)]
    Reactor(reactor::Reactor),
    Blocking(tokio::io::Stdout),
}

impl StdinStream {
    /// Stdin; must be called inside a Tokio runtime with I/O enabled.
    pub fn new() -> Self {
        #[cfg(unix)]
        if let Some(pipe) = reactor::Reactor::open(std::os::fd::AsFd::as_fd(&std::io::stdin()), true) {
            return Self(Input::Reactor(pipe));
        }
        Self(Input::Blocking(tokio::io::stdin()))
    }
}

impl StdoutStream {
    /// Stdout; must be called inside a Tokio runtime with I/O enabled.
    pub fn new() -> Self {
        #[cfg(unix)]
        if let Some(pipe) = reactor::Reactor::open(std::os::fd::AsFd::as_fd(&std::io::stdout()), false) {
            return Self(Output::Reactor(pipe));
        }
        Self(Output::Blocking(tokio::io::stdout()))
    }
}

impl Default for StdinStream {
    fn default() -> Self {
        Self::new()
    }
}

impl Default for StdoutStream {
    fn default() -> Self {
        Self::new()
    }
}

impl AsyncRead for StdinStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match &mut self.0 {
            #[cfg(unix)]
            Input::Reactor(pipe) => pipe.poll_read(cx, buf),
            Input::Blocking(stdin) => Pin::new(stdin).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for StdoutStream {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        match &mut self.0 {
            #[cfg(unix)]
            Output::Reactor(pipe) => pipe.poll_write(cx, data),
            Output::Blocking(stdout) => Pin::new(stdout).poll_write(cx, data),
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.0 {
            // Nothing is buffered: every write went to the kernel.
            #[cfg(unix)]
            Output::Reactor(_) => Poll::Ready(Ok(())),
            Output::Blocking(stdout) => Pin::new(stdout).poll_flush(cx),
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.0 {
            #[cfg(unix)]
            Output::Reactor(_) => Poll::Ready(Ok(())),
            Output::Blocking(stdout) => Pin::new(stdout).poll_shutdown(cx),
        }
    }
}

#[cfg(unix)]
mod reactor {
    use std::io;
    use std::os::fd::{AsFd, BorrowedFd};
    use std::pin::Pin;
    use std::sync::OnceLock;
    use std::task::{Context, Poll};

    use nix::fcntl::{FcntlArg, OFlag, fcntl};
    use nix::sys::stat::{SFlag, fstat};
    use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
    use tokio::net::UnixStream;
    use tokio::net::unix::pipe;

    /// A duplicate of stdin or stdout (dropping it never closes the
    /// original), non-blocking and registered with the runtime's reactor.
    #[derive(Debug)]
    pub(super) struct Reactor {
        io: Io,
        /// The file status flags before `O_NONBLOCK` was added.
        original_flags: OFlag,
    }

    #[derive(Debug)]
    enum Io {
        /// Pipes: what most clients spawn a server with.
        Reader(pipe::Receiver),
        Writer(pipe::Sender),
        /// Socket pairs: what libuv (so Node clients) spawns with.
        Socket(UnixStream),
    }

    impl Reactor {
        /// `fd` is stdin when `reading`, else stdout. `None` when it is
        /// neither a pipe nor a socket, or anything fails (the caller then
        /// uses tokio's blocking-pool stream).
        pub(super) fn open(fd: BorrowedFd<'_>, reading: bool) -> Option<Self> {
            let kind = SFlag::from_bits_truncate(fstat(fd).ok()?.st_mode) & SFlag::S_IFMT;
            if kind != SFlag::S_IFIFO && kind != SFlag::S_IFSOCK {
                return None;
            }
            let original_flags = found_flags()[usize::from(!reading)]?;
            let owned = fd.try_clone_to_owned().ok()?;
            let io = if kind == SFlag::S_IFIFO {
                // Both set O_NONBLOCK themselves.
                if reading {
                    pipe::Receiver::from_owned_fd(owned).map(Io::Reader)
                } else {
                    pipe::Sender::from_owned_fd(owned).map(Io::Writer)
                }
            } else {
                let socket = std::os::unix::net::UnixStream::from(owned);
                socket.set_nonblocking(true).and_then(|()| UnixStream::from_std(socket)).map(Io::Socket)
            };
            match io {
                Ok(io) => Some(Self { io, original_flags }),
                Err(_) => {
                    let _ = fcntl(fd, FcntlArg::F_SETFL(original_flags));
                    None
                }
            }
        }

        fn fd(&self) -> BorrowedFd<'_> {
            match &self.io {
                Io::Reader(r) => r.as_fd(),
                Io::Writer(w) => w.as_fd(),
                Io::Socket(s) => s.as_fd(),
            }
        }

        pub(super) fn poll_read(
            &mut self,
            cx: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            match &mut self.io {
                Io::Reader(r) => Pin::new(r).poll_read(cx, buf),
                Io::Socket(s) => Pin::new(s).poll_read(cx, buf),
                Io::Writer(_) => Poll::Ready(Err(io::ErrorKind::Unsupported.into())),
            }
        }

        pub(super) fn poll_write(&mut self, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
            match &mut self.io {
                Io::Writer(w) => Pin::new(w).poll_write(cx, data),
                Io::Socket(s) => Pin::new(s).poll_write(cx, data),
                Io::Reader(_) => Poll::Ready(Err(io::ErrorKind::Unsupported.into())),
            }
        }
    }

    /// The flags of stdin and stdout as the process found them, read once
    /// before either is changed: the two may be one open file description
    /// (a socket pair hands the same socket to both), and the flags read
    /// for the second after the first went non-blocking would be wrong.
    fn found_flags() -> [Option<OFlag>; 2] {
        static FOUND: OnceLock<[Option<OFlag>; 2]> = OnceLock::new();
        *FOUND.get_or_init(|| {
            let flags = |fd: BorrowedFd<'_>| fcntl(fd, FcntlArg::F_GETFL).ok().map(OFlag::from_bits_retain);
            [flags(std::io::stdin().as_fd()), flags(std::io::stdout().as_fd())]
        })
    }

    impl Drop for Reactor {
        fn drop(&mut self) {
            // The flag lives on the open file description, which the parent
            // (or a shell pipeline) may share: leave it as it was found.
            let _ = fcntl(self.fd(), FcntlArg::F_SETFL(self.original_flags));
        }
    }
}
