//! Holds a message back for a moment after a progress notification, so a
//! client that reads both in one chunk cannot lose the progress.
//!
//! Why: the official TypeScript SDK clients (`@modelcontextprotocol/sdk`
//! 1.x and `@modelcontextprotocol/client` 2.x) parse every line of one read
//! of their stdio pipe in a row. They run a notification's handler on a
//! later microtask but handle a response at once, and handling the response
//! of a `tools/call` removes that request's progress handler. So when the
//! last `notifications/progress` of a request and its response arrive in
//! the same read, the progress callback never sees that notification (the
//! SDK reports "unknown token" instead). Measured with
//! `clients/progress.mjs`: the progress 100 of the conformance fixture
//! `test_tool_with_progress` was lost on 20 of 20 calls, with both SDKs,
//! before this hold existed. Two reads are processed in order, microtasks
//! included, so the fix is to keep the two out of one read.
//!
//! What: after a progress notification has gone out, the next message that
//! is not itself progress (the response, in the case above) waits until
//! [`PROGRESS_HOLD`] has passed since that notification was handed to the
//! kernel, which gives the client time to read the notification on its own.
//! Progress after progress is never held, so frequent progress is not
//! throttled, and nothing is held when no progress went out recently.
//!
//! Why a time and not a proof that the client has read: the bytes still
//! unread in a Unix socket (what Node spawns its children with) can only be
//! asked for with the `SIOCOUTQ` ioctl, which needs `unsafe`, forbidden in
//! this workspace; a `ping` round trip would prove it but the 2026-07-28
//! revision has no server-to-client requests. The hold is bounded, costs a
//! response that follows progress at most [`PROGRESS_HOLD`], and costs
//! nothing else: checking whether a message is progress compares a
//! fixed prefix of the bytes this crate itself serialized.
//!
//! Over Streamable HTTP the SDKs await each SSE event separately, which
//! lets the notification's handler run first, so only the line transport
//! holds.

use std::time::Duration;

use tokio::time::Instant;

/// How long a message after a progress notification waits, counted from
/// when the notification was flushed. Long enough for a busy client to be
/// scheduled and read its pipe, short next to the work that reports
/// progress.
pub const PROGRESS_HOLD: Duration = Duration::from_millis(10);

/// How every progress notification starts: `encode_notification` writes
/// `jsonrpc` then `method`, and every progress goes through
/// [`RequestContext::progress`](crate::RequestContext::progress).
const PROGRESS_PREFIX: &[u8] = br#"{"jsonrpc":"2.0","method":"notifications/progress""#;

/// Whether `frame` is a progress notification.
pub(crate) fn is_progress(frame: &[u8]) -> bool {
    frame.starts_with(PROGRESS_PREFIX)
}

/// Where the last progress notification is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    /// None since the last hold: nothing to wait for.
    Clear,
    /// Written into the buffer, not flushed yet.
    Buffered,
    /// Flushed at this instant.
    Flushed(Instant),
}

/// What the writer must do before writing a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Before {
    /// Write it.
    Write,
    /// Flush the buffered progress, then [`ProgressHold::wait`].
    FlushThenWait,
    /// [`ProgressHold::wait`], then write.
    Wait,
}

/// The hold's state, kept by a writer (see the module docs).
#[derive(Debug)]
pub(crate) struct ProgressHold {
    hold: Duration,
    mark: Mark,
}

impl ProgressHold {
    /// Holds non-progress messages for `hold` after progress.
    pub(crate) fn new(hold: Duration) -> Self {
        Self { hold, mark: Mark::Clear }
    }

    /// What to do before writing `frame`.
    pub(crate) fn before(&self, frame: &[u8]) -> Before {
        match self.mark {
            Mark::Clear => Before::Write,
            _ if is_progress(frame) => Before::Write,
            Mark::Buffered => Before::FlushThenWait,
            Mark::Flushed(_) => Before::Wait,
        }
    }

    /// `frame` was written into the buffer.
    pub(crate) fn written(&mut self, frame: &[u8]) {
        if is_progress(frame) {
            self.mark = Mark::Buffered;
        }
    }

    /// The buffer was flushed to the kernel.
    pub(crate) fn flushed(&mut self) {
        if self.mark == Mark::Buffered {
            self.mark = Mark::Flushed(Instant::now());
        }
    }

    /// Sleeps out the rest of the hold (the progress must be flushed), then
    /// clears it.
    pub(crate) async fn wait(&mut self) {
        if let Mark::Flushed(at) = self.mark {
            tokio::time::sleep_until(at + self.hold).await;
        }
        self.mark = Mark::Clear;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROGRESS: &[u8] =
        br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":100}}"#;
    const RESPONSE: &[u8] = br#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
    const LOG: &[u8] = br#"{"jsonrpc":"2.0","method":"notifications/message","params":{}}"#;

    #[test]
    fn recognises_the_progress_this_crate_serializes() {
        let params = serde_json::json!({"progressToken": 1, "progress": 1.0});
        let bytes = switchboard_types::jsonrpc::encode_notification("notifications/progress", Some(&params));
        assert!(is_progress(&bytes));
        assert!(!is_progress(RESPONSE));
        assert!(!is_progress(LOG));
    }

    #[test]
    fn nothing_is_held_without_progress() {
        let mut hold = ProgressHold::new(Duration::from_secs(1));
        for frame in [RESPONSE, LOG, RESPONSE] {
            assert_eq!(hold.before(frame), Before::Write);
            hold.written(frame);
            hold.flushed();
        }
    }

    #[test]
    fn progress_after_progress_is_never_held() {
        let mut hold = ProgressHold::new(Duration::from_secs(1));
        hold.written(PROGRESS);
        assert_eq!(hold.before(PROGRESS), Before::Write);
        hold.flushed();
        assert_eq!(hold.before(PROGRESS), Before::Write);
    }

    #[test]
    fn a_response_in_the_same_batch_as_progress_flushes_it_first() {
        let mut hold = ProgressHold::new(Duration::from_secs(1));
        hold.written(PROGRESS);
        assert_eq!(hold.before(RESPONSE), Before::FlushThenWait);
        hold.flushed();
        assert_eq!(hold.before(RESPONSE), Before::Wait);
    }

    #[tokio::test(start_paused = true)]
    async fn the_wait_lasts_the_hold_from_the_flush_then_clears() {
        let mut hold = ProgressHold::new(Duration::from_millis(10));
        hold.written(PROGRESS);
        hold.flushed();
        let flushed = Instant::now();
        tokio::time::advance(Duration::from_millis(4)).await;
        hold.wait().await;
        assert_eq!(Instant::now() - flushed, Duration::from_millis(10));
        assert_eq!(hold.before(RESPONSE), Before::Write);
        // Once the hold has passed, waiting costs nothing.
        hold.written(PROGRESS);
        hold.flushed();
        tokio::time::advance(Duration::from_millis(50)).await;
        let before = Instant::now();
        hold.wait().await;
        assert_eq!(Instant::now(), before);
    }
}
