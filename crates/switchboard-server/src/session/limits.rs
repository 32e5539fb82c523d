//! Limits that keep one caller from exhausting the server: a rate limit
//! on `tools/call` per caller and for everyone together, a cap on requests
//! in flight per connection, and a time limit per handler.
//!
//! The spec asks servers to rate-limit tool invocations
//! (`docs/specification/<rev>/server/tools.mdx` §Security Considerations).
//! Refusals are JSON-RPC errors with code `-32029` and `data.retryAfterMs`
//! where a wait helps, so a client (or a model) knows when to try again.
//! A caller is its authenticated principal's subject, or, without one,
//! its connection (session).
//!
//! Requests in flight are refused with `-32029` only where each request
//! arrives on its own (HTTP): a refused POST costs the client one retry.
//! Over a line transport (stdio) a client pipelines requests on one stream,
//! and refusing the excess would turn a burst into errors, so the
//! connection loop applies backpressure instead ([`Window`]): it stops
//! reading. `-32029` stays the answer to rate limits on every transport.

use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::{Clock, MonotonicClock};
use governor::state::keyed::DashMapStateStore;
use governor::state::{InMemoryState, NotKeyed};
use governor::{Quota, RateLimiter};
use serde_json::json;
use switchboard_types::{ErrorCode, ErrorObject};

/// A token bucket: `per_minute` sustained, up to `burst` at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    /// Calls allowed per minute on average.
    pub per_minute: u32,
    /// Calls allowed back to back before the rate applies.
    pub burst: u32,
}

impl RateLimit {
    fn quota(self) -> Quota {
        let per_minute = NonZeroU32::new(self.per_minute.max(1)).expect("at least 1; qed");
        let burst = NonZeroU32::new(self.burst.max(1)).expect("at least 1; qed");
        Quota::per_minute(per_minute).allow_burst(burst)
    }
}

/// The clock of the limiters: `std::time::Instant`. governor's default
/// (quanta's TSC clock) calibrates itself when the first limiter is made,
/// spinning for about 10 ms, which was most of a served folder's start-up
/// (measured with `perf record` on `serve DIR`); a token bucket refilled
/// per minute gains nothing from a faster clock.
type LimiterClock = MonotonicClock;
/// A budget per caller, by name.
type PerCallerLimiter = RateLimiter<String, DashMapStateStore<String>, LimiterClock>;
/// One budget for everyone.
type GlobalLimiter = RateLimiter<NotKeyed, InMemoryState, LimiterClock>;

/// The limiters of one server.
pub(crate) struct Limiters {
    per_caller: Option<(RateLimit, PerCallerLimiter)>,
    global: Option<(RateLimit, GlobalLimiter)>,
    checks: std::sync::atomic::AtomicU64,
}

impl Limiters {
    pub fn new(per_caller: Option<RateLimit>, global: Option<RateLimit>) -> Self {
        Self {
            per_caller: per_caller
                .map(|l| (l, RateLimiter::dashmap_with_clock(l.quota(), LimiterClock::default()))),
            global: global.map(|l| (l, RateLimiter::direct_with_clock(l.quota(), LimiterClock::default()))),
            checks: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// Takes one `tools/call` from the caller's budget and the global one.
    /// `caller` names the caller (`None`: a caller with no budget of its
    /// own, bound by the global one only); it is called only when there is
    /// a per-caller limit (most servers have none, and the name is a string
    /// built per request).
    pub fn admit_tool_call(&self, caller: impl FnOnce() -> Option<String>) -> Result<(), ErrorObject> {
        if let Some((limit, limiter)) = &self.per_caller {
            // Forget idle callers now and then, so the table stays small.
            if self.checks.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % 4096 == 4095 {
                limiter.retain_recent();
            }
            if let Some(caller) = caller()
                && let Err(not_until) = limiter.check_key(&caller)
            {
                let wait = not_until.wait_time_from(limiter.clock().now());
                return Err(refused(
                    format!("rate limit: at most {} tool calls per minute per caller", limit.per_minute),
                    wait,
                ));
            }
        }
        if let Some((limit, limiter)) = &self.global
            && let Err(not_until) = limiter.check()
        {
            let wait = not_until.wait_time_from(limiter.clock().now());
            return Err(refused(
                format!("rate limit: this server takes at most {} tool calls per minute", limit.per_minute),
                wait,
            ));
        }
        Ok(())
    }
}

fn refused(what: String, wait: Duration) -> ErrorObject {
    let ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX).max(1);
    ErrorObject::new(ErrorCode::RATE_LIMITED, format!("{what}; retry in {:.1} s", ms as f64 / 1000.0))
        .with_data(json!({"retryAfterMs": ms}))
}

/// How many requests a line connection runs at once and how many more it
/// reads ahead and holds, registered but not started, before it stops
/// reading (`transport/connection.rs`).
///
/// The queue is as long as the window: long enough that the notifications
/// a client sends while the window is full (`notifications/cancelled`,
/// answers to the server's own requests) are read behind up to `running`
/// more requests, short enough that a connection holds at most
/// `2 × max_in_flight` requests (each at most `max_message_size`) plus the
/// reader's buffer, whatever the client sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Window {
    /// Requests whose handlers run at once (`max_in_flight`, at least 1).
    pub running: usize,
    /// Requests read and held beyond those before reading stops.
    pub queued: usize,
}

impl Window {
    /// The window of a server whose `max_in_flight` is `max_in_flight`.
    pub(crate) fn for_max_in_flight(max_in_flight: usize) -> Self {
        let running = max_in_flight.max(1);
        Self { running, queued: running }
    }

    /// Requests a connection holds at most: its session's in-flight cap.
    pub(crate) fn capacity(self) -> usize {
        self.running + self.queued
    }
}

/// Too many requests in flight on one connection.
pub(crate) fn too_many_in_flight(limit: usize) -> ErrorObject {
    ErrorObject::new(
        ErrorCode::RATE_LIMITED,
        format!("{limit} requests are already in flight on this connection; wait for some to finish"),
    )
    .with_data(json!({"maxInFlight": limit}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_holds_as_many_waiting_requests_as_running_ones() {
        let w = Window::for_max_in_flight(256);
        assert_eq!((w.running, w.queued, w.capacity()), (256, 256, 512));
        // A zero option still lets requests run, one at a time.
        let w = Window::for_max_in_flight(0);
        assert_eq!((w.running, w.queued), (1, 1));
    }

    #[test]
    fn per_caller_budgets_are_separate_and_global_is_shared() {
        let l = Limiters::new(Some(RateLimit { per_minute: 60, burst: 2 }), None);
        assert!(l.admit_tool_call(|| Some("a".into())).is_ok());
        assert!(l.admit_tool_call(|| Some("a".into())).is_ok());
        let e = l.admit_tool_call(|| Some("a".into())).unwrap_err();
        assert_eq!(e.code, ErrorCode::RATE_LIMITED);
        assert!(e.message.contains("per caller"), "{}", e.message);
        assert!(e.data.unwrap()["retryAfterMs"].as_u64().unwrap() > 0);
        assert!(l.admit_tool_call(|| Some("b".into())).is_ok(), "another caller has its own budget");

        let g = Limiters::new(None, Some(RateLimit { per_minute: 60, burst: 3 }));
        for caller in ["a", "b", "c"] {
            assert!(g.admit_tool_call(|| Some(caller.into())).is_ok());
        }
        assert!(g.admit_tool_call(|| Some("d".into())).unwrap_err().message.contains("this server"));
    }
}
