//! The Debian packages tests need (Redis, PostgreSQL, …), found where they
//! are installed or installed with `apt-get` as root, once per machine.
//!
//! Test binaries run in parallel and each may find a package missing, but
//! dpkg takes one installation at a time: every installation, of any
//! package, holds one lock file ([`with_lock`]), and a waiting process
//! looks again for what it needs once it has the lock. Without root the
//! tests fail with a message that says what to install; they never skip.

use std::io::Write as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Lock file serializing installations (and user creation) across
/// concurrent test binaries.
const LOCK: &str = "/tmp/switchboard-testkit-apt.lock";
/// How long to wait for another process's installation (Chromium and its
/// libraries are a few hundred MB).
const WAIT: Duration = Duration::from_secs(1200);

/// A package a test needs: how to find what it installs, and what to tell
/// a person when it cannot be installed here.
pub(crate) struct Package<T> {
    /// The Debian package (`redis-server`, `postgresql`).
    pub name: &'static str,
    /// What to install, on which systems, where it is looked for.
    pub how_to_install: &'static str,
    /// Where it is installed, if it is.
    pub find: fn() -> Option<T>,
}

impl<T> Package<T> {
    /// What [`Package::find`] finds, installing the package first if it is
    /// missing (as root, once per machine). Panics if it is still missing.
    pub(crate) fn ensure(&self) -> T {
        if let Some(found) = (self.find)() {
            return found;
        }
        let how = self.how_to_install;
        if !is_root() {
            panic!("{how} (not running as root, so not installing it automatically)");
        }
        // Another process may have installed it while this one waited.
        let installed = with_lock(how, || (self.find)().is_some() || self.install());
        (self.find)().filter(|_| installed).unwrap_or_else(|| {
            panic!("{how} (apt-get install -y {} failed; see its output above)", self.name)
        })
    }

    /// `apt-get install -y NAME`, after `apt-get update` if the first try
    /// fails (package lists missing or stale). True if it succeeded.
    fn install(&self) -> bool {
        eprintln!("switchboard-testkit: {} is missing; installing it with apt-get", self.name);
        let install = || {
            Command::new("apt-get")
                // Wait for an apt run outside the tests instead of failing
                // on dpkg's lock.
                .args(["-o", "DPkg::Lock::Timeout=600", "install", "-y", "-q", self.name])
                .env("DEBIAN_FRONTEND", "noninteractive")
                .stdin(Stdio::null())
                .status()
                .is_ok_and(|status| status.success())
        };
        if install() {
            return true;
        }
        let updated = Command::new("apt-get")
            .args(["-o", "DPkg::Lock::Timeout=600", "update", "-q"])
            .stdin(Stdio::null())
            .status()
            .is_ok_and(|status| status.success());
        updated && install()
    }
}

/// Whether this process runs as root.
pub(crate) fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| out.status.success() && String::from_utf8_lossy(&out.stdout).trim() == "0")
}

/// Runs `f` holding [`LOCK`], waiting for another holder (or taking over a
/// lock left behind by a process that died). `how` starts the message of a
/// panic when the wait is too long.
pub(crate) fn with_lock<T>(how: &str, f: impl FnOnce() -> T) -> T {
    let deadline = Instant::now() + WAIT;
    loop {
        match std::fs::OpenOptions::new().write(true).create_new(true).open(LOCK) {
            Ok(mut lock) => {
                let _ = writeln!(lock, "{}", std::process::id());
                let result = f();
                let _ = std::fs::remove_file(LOCK);
                return result;
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let stale = std::fs::metadata(LOCK)
                    .and_then(|m| m.modified())
                    .is_ok_and(|modified| modified.elapsed().is_ok_and(|age| age > WAIT));
                if stale {
                    let _ = std::fs::remove_file(LOCK);
                }
                if Instant::now() >= deadline {
                    panic!("{how} (waited {WAIT:?} for another installation, holding {LOCK})");
                }
                std::thread::sleep(Duration::from_millis(500));
            }
            Err(e) => panic!("{how} (cannot create {LOCK}: {e})"),
        }
    }
}
