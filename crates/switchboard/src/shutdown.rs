//! Stopping on a signal without leaving child processes behind.
//!
//! Command tools and stdio upstreams run in process groups registered with
//! `switchboard-process`. [`Stop::listen`] takes over SIGTERM, SIGINT and SIGHUP
//! (what MCP hosts and terminals send when they close): on one, every
//! registered group is killed at once, and whoever serves is told to stop
//! ([`Stop::run`] for stdio and `switchboard call`, [`Stop::signalled`] as the
//! HTTP server's graceful shutdown). The command then ends with a
//! [`Terminated`] error, which `main` turns into exit status 128 + the
//! signal's number, as a shell reports a process killed by that signal.
//! `main` also kills whatever is left when any command ends, so stdin EOF
//! (the client went away) and errors leave nothing running either.

use std::future::Future;

use switchboard_process::Signal;
use tokio::sync::watch;

/// The command was stopped by this signal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Terminated(pub Signal);

impl std::fmt::Display for Terminated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "stopped by {}", self.0)
    }
}

impl std::error::Error for Terminated {}

impl Terminated {
    /// The exit status after the signal: 128 + its number (143 for
    /// SIGTERM, 130 for SIGINT, 129 for SIGHUP), the shell's convention.
    pub(crate) fn exit_code(self) -> u8 {
        u8::try_from(128 + self.0 as i32).unwrap_or(u8::MAX)
    }
}

/// Whether a stopping signal arrived (and which). Cheap to clone.
#[derive(Debug, Clone)]
pub(crate) struct Stop(watch::Receiver<Option<Signal>>);

impl Stop {
    /// Handles SIGTERM, SIGINT and SIGHUP from now on: on the first, kills
    /// every child process group and wakes every waiter. Must be called
    /// inside the Tokio runtime that will serve.
    pub(crate) fn listen() -> Self {
        let (tx, rx) = watch::channel(None);
        // The handlers are installed here, before anything is spawned.
        let terminated = switchboard_process::terminated();
        tokio::spawn(async move {
            let signal = terminated.await;
            tracing::info!(%signal, "stopping: killing every child process");
            switchboard_process::kill_all();
            let _ = tx.send(Some(signal));
        });
        Self(rx)
    }

    /// The signal received so far, if any.
    pub(crate) fn received(&self) -> Option<Signal> {
        *self.0.borrow()
    }

    /// Completes once a signal arrived and the child processes were killed.
    pub(crate) async fn signalled(mut self) -> Signal {
        // (Copied out at once: the borrow must not live across an await.)
        let received = self.0.wait_for(Option::is_some).await.ok().and_then(|signal| *signal);
        match received {
            Some(signal) => signal,
            // The listener is gone only with the runtime: wait forever.
            None => std::future::pending().await,
        }
    }

    /// Runs `work` until it ends, or a signal arrives: then `work` is
    /// dropped and the result is a [`Terminated`] error.
    pub(crate) async fn run<T>(self, work: impl Future<Output = anyhow::Result<T>>) -> anyhow::Result<T> {
        tokio::select! {
            biased;
            signal = self.signalled() => Err(Terminated(signal).into()),
            result = work => result,
        }
    }
}
