//! Looking for the next request a moment before the thread sleeps.
//!
//! A client that sends its next request as soon as it has read the last
//! answer (a `resources/list` walk, page after page) finds the server's
//! thread asleep in the kernel, and every request pays for waking it. The
//! stdio transport looks for the next line for a moment first
//! (`switchboard_server::transport::LineTransport::poll_before_sleep`);
//! this is the same for HTTP, once for the whole runtime rather than per
//! connection: for [`HttpOptions::poll_before_sleep`] after any connection
//! last read or wrote, one task yields again and again, and each yield makes
//! the single-threaded runtime's reactor ask the kernel what is ready
//! without sleeping. Whatever is ready runs before the task's next turn, so
//! the looking only fills time the thread would otherwise sleep through:
//! under load it takes nothing from the connections, and when the traffic
//! stops it stops one window later.
//!
//! Only on the single-threaded runtime (`switchboard serve --http` held to
//! one CPU): on the work-stealing runtime the reactor belongs to whichever
//! worker parks on it, so a yielding task would keep a worker awake without
//! making anyone look sooner.
//!
//! [`HttpOptions::poll_before_sleep`]: crate::HttpOptions::poll_before_sleep

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::runtime::{Handle, RuntimeFlavor};
use tokio::sync::Notify;

/// The polling task of one accept loop; stops it when dropped.
#[derive(Debug)]
pub(crate) struct PollBeforeSleep {
    traffic: Arc<Traffic>,
    task: tokio::task::JoinHandle<()>,
}

impl PollBeforeSleep {
    /// Starts looking for `window` after each read or write of a connection
    /// [`watch`](Self::watch)ed, when the current runtime is the
    /// single-threaded one and `window` is not zero; `None` otherwise.
    pub(crate) fn start(window: Duration) -> Option<Self> {
        if window.is_zero() || Handle::current().runtime_flavor() != RuntimeFlavor::CurrentThread {
            return None;
        }
        let traffic =
            Arc::new(Traffic { since: Instant::now(), last: AtomicU64::new(0), wake: Notify::new() });
        let task = tokio::spawn(look_after_traffic(Arc::clone(&traffic), window));
        Some(Self { traffic, task })
    }

    /// `io`, telling this poller of each read and write that moves bytes.
    pub(crate) fn watch<S>(this: Option<&Self>, io: S) -> Watched<S> {
        Watched { io, traffic: this.map(|poll| Arc::clone(&poll.traffic)) }
    }
}

impl Drop for PollBeforeSleep {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// When a watched connection last moved bytes.
#[derive(Debug)]
struct Traffic {
    since: Instant,
    /// Nanoseconds from `since` to the last read or write.
    last: AtomicU64,
    /// Wakes the polling task when it waits for traffic.
    wake: Notify,
}

impl Traffic {
    fn moved(&self) {
        self.last.store(nanos(self.since.elapsed()), Ordering::Relaxed);
        // Stores a permit when the task is still looking: it then takes one
        // more turn, sees the window, and waits again.
        self.wake.notify_one();
    }

    fn quiet_for(&self) -> Duration {
        let last = Duration::from_nanos(self.last.load(Ordering::Relaxed));
        self.since.elapsed().saturating_sub(last)
    }
}

fn nanos(elapsed: Duration) -> u64 {
    u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX)
}

/// Yields until no connection has moved bytes for `window`, then waits for
/// the next traffic; forever (aborted with its [`PollBeforeSleep`]).
async fn look_after_traffic(traffic: Arc<Traffic>, window: Duration) {
    loop {
        traffic.wake.notified().await;
        while traffic.quiet_for() < window {
            tokio::task::yield_now().await;
        }
    }
}

/// A connection's socket that reports its traffic to a [`PollBeforeSleep`]
/// (or to nothing, when none runs).
#[derive(Debug)]
pub(crate) struct Watched<S> {
    io: S,
    traffic: Option<Arc<Traffic>>,
}

impl<S> Watched<S> {
    fn moved<T>(&self, done: &Poll<io::Result<T>>, bytes: impl FnOnce(&T) -> bool) {
        if let (Some(traffic), Poll::Ready(Ok(done))) = (&self.traffic, done)
            && bytes(done)
        {
            traffic.moved();
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Watched<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let read = Pin::new(&mut self.io).poll_read(cx, buf);
        let after = buf.filled().len();
        self.moved(&read, |()| after > before);
        read
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Watched<S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.io).poll_write(cx, buf);
        self.moved(&written, |n| *n > 0);
        written
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        self.moved(&written, |n| *n > 0);
        written
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    fn parks() -> u64 {
        Handle::current().metrics().worker_park_count(0)
    }

    #[test]
    fn http_looks_for_200_microseconds_unless_the_variable_says_otherwise() {
        assert_eq!(crate::POLL_BEFORE_SLEEP, Duration::from_micros(200));
        assert_eq!(crate::HttpOptions::default().poll_before_sleep, crate::POLL_BEFORE_SLEEP);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_work_stealing_runtime_never_polls() {
        assert!(PollBeforeSleep::start(Duration::from_millis(1)).is_none());
    }

    #[tokio::test]
    async fn a_zero_window_never_polls() {
        assert!(PollBeforeSleep::start(Duration::ZERO).is_none());
    }

    #[tokio::test]
    async fn after_traffic_the_thread_stays_awake_for_the_window_then_sleeps() {
        // Long enough that the steps within it finish inside it on a slow
        // machine too.
        let window = Duration::from_secs(2);
        let poll = PollBeforeSleep::start(window).expect("single-threaded runtime");
        let (near, far) = tokio::io::duplex(64);
        let mut near = PollBeforeSleep::watch(Some(&poll), near);
        let mut far = far;

        // No traffic yet: a timer is waited for asleep.
        let before = parks();
        tokio::time::sleep(Duration::from_millis(5)).await;
        assert!(parks() > before, "idle, the thread sleeps");

        // A write starts the window: until it passes, the thread waits for
        // a timer, and for the peer's bytes, without sleeping.
        near.write_all(b"ping").await.unwrap();
        let before = parks();
        tokio::time::sleep(Duration::from_millis(20)).await;
        let mut four = [0; 4];
        far.read_exact(&mut four).await.unwrap();
        far.write_all(b"pong").await.unwrap();
        near.read_exact(&mut four).await.unwrap();
        assert_eq!(&four, b"pong");
        assert_eq!(parks(), before, "within the window the thread never slept");

        // The read moved bytes too; once the window has passed after it,
        // the thread sleeps again.
        tokio::time::sleep(window + Duration::from_millis(50)).await;
        let before = parks();
        tokio::time::sleep(Duration::from_millis(5)).await;
        assert!(parks() > before, "a window after the last traffic, the thread sleeps again");
    }

    #[tokio::test]
    async fn dropping_the_poller_stops_its_task_and_unwatched_sockets_still_work() {
        let poll = PollBeforeSleep::start(Duration::from_secs(60)).expect("single-threaded runtime");
        let (near, mut far) = tokio::io::duplex(64);
        let mut near = PollBeforeSleep::watch(Some(&poll), near);
        near.write_all(b"x").await.unwrap();
        drop(poll);
        tokio::task::yield_now().await;
        let before = parks();
        tokio::time::sleep(Duration::from_millis(5)).await;
        assert!(parks() > before, "no task is left looking");

        let (plain, mut peer) = tokio::io::duplex(64);
        let mut plain = PollBeforeSleep::watch(None, plain);
        plain.write_all(b"y").await.unwrap();
        let mut one = [0; 1];
        peer.read_exact(&mut one).await.unwrap();
        assert_eq!(&one, b"y");
        far.read_exact(&mut one).await.unwrap();
        assert_eq!(&one, b"x");
    }
}
