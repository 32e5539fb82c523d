//! Child processes that never outlive the program that started them.
//!
//! A program started for a command tool, or a stdio upstream server, may
//! start children of its own (`sh -c 'sleep 300 &'`). Killing the direct
//! child is not enough, and when switchboard itself is stopped (its host closes
//! and sends SIGTERM, a terminal sends SIGINT or SIGHUP) nothing would
//! kill them at all: they would keep running, orphaned. This crate is the
//! one place that prevents that:
//!
//! - [`spawn`] starts a [`tokio::process::Command`] in a new process group
//!   (`process_group(0)`: the group id is the child's pid) and records the
//!   group in a process-wide registry;
//! - the returned [`Group`] kills the whole group (SIGKILL) when dropped or
//!   [`Group::kill`]ed, and forgets it; [`Group::release`] forgets it
//!   without a kill, once the leader was reaped and its id may be reused;
//! - [`kill_all`] ends every registered group (SIGTERM, then SIGKILL a
//!   second later) and refuses later spawns: a binary calls it when it
//!   stops, whatever the reason;
//! - [`terminated`] completes on SIGTERM, SIGINT or SIGHUP, so a binary can
//!   call [`kill_all`] and exit (by convention with status 128 + the
//!   signal's number) instead of dying at once and leaving the groups
//!   behind.
//!
//! What cannot be covered from here: SIGKILL to switchboard itself, and a child
//! that moves itself to another group or session (`setsid`).

use std::collections::BTreeSet;
use std::io;
use std::sync::{Mutex, MutexGuard};

use nix::sys::signal::killpg;
use nix::unistd::Pid;
use tokio::process::{Child, Command};

pub use nix::sys::signal::Signal;

/// The live process groups of this process, by id (the leader's pid).
#[derive(Debug)]
struct Registry {
    groups: BTreeSet<i32>,
    /// Set by [`kill_all`]: the process is stopping, nothing new may start.
    closed: bool,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry { groups: BTreeSet::new(), closed: false });

fn registry() -> MutexGuard<'static, Registry> {
    // Nothing can leave the set half-updated: a poisoned lock is still good.
    REGISTRY.lock().unwrap_or_else(|p| p.into_inner())
}

/// A registered process group. Dropping it kills the group (SIGKILL to
/// every process in it) unless it was [released](Group::release) or
/// killed already.
#[derive(Debug)]
#[must_use = "dropping the guard kills the process group at once"]
pub struct Group {
    pgid: Option<Pid>,
}

impl Group {
    /// The group's id (the leader's pid), while it is registered.
    pub fn id(&self) -> Option<u32> {
        self.pgid.and_then(|p| u32::try_from(p.as_raw()).ok())
    }

    /// Kills every process of the group now and forgets the group. Does
    /// nothing when it is no longer registered (released, or killed by
    /// [`kill_all`]).
    pub fn kill(&mut self) {
        if let Some(pgid) = self.pgid.take()
            && registry().groups.remove(&pgid.as_raw())
        {
            // The group may be gone already; nothing else to do then.
            let _ = killpg(pgid, Signal::SIGKILL);
        }
    }

    /// Forgets the group without killing it. Call this once the leader was
    /// reaped (`wait` returned): from then on its id may be reused by an
    /// unrelated process group, which must never be signalled.
    pub fn release(&mut self) {
        if let Some(pgid) = self.pgid.take() {
            registry().groups.remove(&pgid.as_raw());
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Starts `command` as the leader of a new process group and registers
/// the group. The child is yours as usual (stdio, `wait`, `kill_on_drop`);
/// the [`Group`] kills it and everything it started when dropped.
///
/// Fails like [`Command::spawn`], or with [`io::ErrorKind::Other`] once
/// [`kill_all`] was called.
pub fn spawn(command: &mut Command) -> io::Result<(Child, Group)> {
    command.process_group(0);
    // Spawning under the lock: `kill_all` cannot run between the start of
    // the child and its registration, so no group escapes it.
    let mut registry = registry();
    if registry.closed {
        return Err(io::Error::other("the process is shutting down: no new program may start"));
    }
    let child = command.spawn()?;
    let pgid = child.id().and_then(|id| i32::try_from(id).ok()).map(Pid::from_raw);
    if let Some(pgid) = pgid {
        registry.groups.insert(pgid.as_raw());
    }
    Ok((child, Group { pgid }))
}

/// How long [`kill_all`] lets the groups end after SIGTERM before SIGKILL.
const TERM_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// Ends every registered process group and refuses any later [`spawn`]:
/// SIGTERM first, so a child that is itself a server (a switchboard proxied
/// over stdio) can end its own children, then SIGKILL to any group still
/// alive after a second. For a binary that is stopping: call it before
/// exiting, after a signal or when its input ended. Blocks for at most
/// that second. Returns how many groups it signalled.
pub fn kill_all() -> usize {
    let mut registry = registry();
    registry.closed = true;
    let groups = std::mem::take(&mut registry.groups);
    drop(registry);
    for &pgid in &groups {
        let _ = killpg(Pid::from_raw(pgid), Signal::SIGTERM);
    }
    // A group is gone when no process is left to signal.
    let alive = |pgid: i32| killpg(Pid::from_raw(pgid), None).is_ok();
    let deadline = std::time::Instant::now() + TERM_GRACE;
    while groups.iter().any(|&g| alive(g)) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    for &pgid in &groups {
        let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
    }
    if !groups.is_empty() {
        tracing::debug!(groups = groups.len(), "ended the remaining child process groups");
    }
    groups.len()
}

/// How many process groups are registered now.
pub fn live_groups() -> usize {
    registry().groups.len()
}

/// A future that completes when the process receives SIGTERM, SIGINT or
/// SIGHUP, with the signal.
///
/// The handlers are installed when this is called (it must be called
/// inside a Tokio runtime), not when the future is first polled: a signal
/// that arrives in between is not lost. From then on these signals no
/// longer stop the process by themselves; the caller decides, typically
/// [`kill_all`], then exit with status 128 + the signal's number. A signal
/// whose handler cannot be installed keeps its default action, and the
/// future waits for the others.
///
/// # Panics
///
/// Outside a Tokio runtime.
pub fn terminated() -> impl Future<Output = Signal> + Send + 'static {
    use tokio::signal::unix::{SignalKind, signal};
    let listen = |kind: SignalKind, which: Signal| {
        let stream = signal(kind)
            .inspect_err(|e| tracing::warn!(signal = %which, error = %e, "cannot handle the signal"));
        async move {
            match stream {
                Ok(mut stream) => {
                    stream.recv().await;
                    which
                }
                Err(_) => std::future::pending().await,
            }
        }
    };
    let term = listen(SignalKind::terminate(), Signal::SIGTERM);
    let int = listen(SignalKind::interrupt(), Signal::SIGINT);
    let hup = listen(SignalKind::hangup(), Signal::SIGHUP);
    async move {
        tokio::select! {
            s = term => s,
            s = int => s,
            s = hup => s,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::process::Stdio;
    use std::time::{Duration, Instant};

    use tokio::io::AsyncBufReadExt;

    use super::*;

    /// Whether `pid` is gone (or a zombie nobody reaped yet).
    pub(crate) fn is_dead(pid: &str) -> bool {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => true,
            Ok(stat) => stat.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z')),
        }
    }

    async fn wait_dead(pid: &str) -> bool {
        let deadline = Instant::now() + Duration::from_secs(5);
        while !is_dead(pid) {
            if Instant::now() > deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        true
    }

    /// A shell in its own group whose background `sleep` (a grandchild)
    /// prints its pid first.
    async fn shell_with_grandchild() -> (Child, Group, String) {
        let mut command = Command::new("sh");
        command.args(["-c", "sleep 30 & echo $!; wait"]).stdout(Stdio::piped()).kill_on_drop(true);
        let (mut child, group) = spawn(&mut command).unwrap();
        let stdout = child.stdout.take().unwrap();
        let line = tokio::io::BufReader::new(stdout).lines().next_line().await.unwrap().unwrap();
        (child, group, line.trim().to_owned())
    }

    #[tokio::test]
    async fn dropping_the_guard_kills_the_whole_group() {
        let (child, group, grandchild) = shell_with_grandchild().await;
        let id = group.id().unwrap();
        assert_eq!(id, child.id().unwrap(), "the child leads its own group");
        assert!(registry().groups.contains(&(id as i32)));
        drop(group);
        assert!(!registry().groups.contains(&(id as i32)));
        assert!(wait_dead(&grandchild).await, "grandchild {grandchild} survived");
    }

    #[tokio::test]
    async fn a_released_group_is_forgotten_not_killed() {
        let (mut child, mut group, grandchild) = shell_with_grandchild().await;
        let id = group.id().unwrap() as i32;
        group.release();
        assert!(!registry().groups.contains(&id));
        drop(group);
        assert!(!is_dead(&grandchild), "release must not kill");
        // Clean up by hand.
        let _ = killpg(Pid::from_raw(id), Signal::SIGKILL);
        let _ = child.wait().await;
        assert!(wait_dead(&grandchild).await);
    }
}
