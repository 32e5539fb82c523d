//! A real Chromium for tests that render in a browser (MCP Apps views).
//!
//! Tests drive the browser themselves (puppeteer-core pointed at
//! [`executable`]); this module only makes sure there is one. If no
//! Chromium or Chrome is found and the tests run as root, Debian's
//! `chromium` package is installed with `apt-get` once per machine
//! (concurrent test binaries wait for each other on a lock file, and apt
//! waits for a concurrent Redis or PostgreSQL install on dpkg's own lock);
//! otherwise the test panics saying how to install it. Tests never skip
//! silently. No browser build is downloaded from anywhere else: the one
//! used is the distribution's.
//!
//! ```no_run
//! let chromium = switchboard_testkit::chromium::executable();
//! // e.g. PUPPETEER_EXECUTABLE_PATH=/usr/bin/chromium node driver.mjs
//! # let _ = chromium;
//! ```

use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Lock file serializing installation across concurrent test binaries.
const INSTALL_LOCK: &str = "/tmp/switchboard-chromium-install.lock";
/// How long to wait for another process's installation (Chromium and its
/// libraries are a few hundred MB).
const INSTALL_WAIT: Duration = Duration::from_secs(1200);
/// The names a Chromium or Chrome binary goes by on `PATH`.
const NAMES: [&str; 4] = ["chromium", "chromium-browser", "google-chrome-stable", "google-chrome"];
/// Where Debian's package puts the binary (found even without `PATH`).
const DEBIAN_BINARY: &str = "/usr/bin/chromium";

const HOW_TO_INSTALL: &str = "Chromium is needed by these tests and is not installed: \
     install it (Debian: `sudo apt-get install -y chromium`, Ubuntu: `sudo snap install chromium`, \
     macOS: `brew install --cask chromium`) or set SWITCHBOARD_CHROMIUM to a Chromium or Chrome binary";

/// The Chromium (or Chrome) binary to run: `SWITCHBOARD_CHROMIUM` if set,
/// else one on `PATH`, else `/usr/bin/chromium`, installing Debian's
/// `chromium` with apt-get first (as root, once per machine) if none is
/// there. Panics, saying how to install it, if there is still none.
pub fn executable() -> PathBuf {
    if let Some(chosen) = std::env::var_os("SWITCHBOARD_CHROMIUM") {
        let chosen = PathBuf::from(chosen);
        assert!(chosen.is_file(), "SWITCHBOARD_CHROMIUM names {}, which is not a file", chosen.display());
        return chosen;
    }
    if let Some(binary) = find_binary() {
        return binary;
    }
    if !is_root() {
        panic!("{HOW_TO_INSTALL} (not running as root, so not installing it automatically)");
    }
    with_install_lock(|| {
        // Another process may have finished installing just before we took
        // the lock.
        let installed = find_binary().is_some() || apt_install();
        find_binary().filter(|_| installed)
    })
    .unwrap_or_else(|| panic!("{HOW_TO_INSTALL} (apt-get install -y chromium failed; see its output above)"))
}

/// A Chromium or Chrome binary on `PATH`, or Debian's.
fn find_binary() -> Option<PathBuf> {
    let dirs: Vec<PathBuf> =
        std::env::var_os("PATH").map(|paths| std::env::split_paths(&paths).collect()).unwrap_or_default();
    let on_path = dirs.iter().flat_map(|dir| NAMES.iter().map(move |name| dir.join(name)));
    on_path.chain([PathBuf::from(DEBIAN_BINARY)]).find(|path| path.is_file())
}

/// Runs `f` holding [`INSTALL_LOCK`]; if another process holds it, waits
/// for it to finish (and returns what is installed then), taking over a
/// lock left behind by a process that died.
fn with_install_lock(f: impl FnOnce() -> Option<PathBuf>) -> Option<PathBuf> {
    let deadline = Instant::now() + INSTALL_WAIT;
    loop {
        match std::fs::OpenOptions::new().write(true).create_new(true).open(INSTALL_LOCK) {
            Ok(mut lock) => {
                let _ = writeln!(lock, "{}", std::process::id());
                let result = f();
                let _ = std::fs::remove_file(INSTALL_LOCK);
                return result;
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                if let Some(binary) = find_binary() {
                    return Some(binary);
                }
                let stale = std::fs::metadata(INSTALL_LOCK)
                    .and_then(|m| m.modified())
                    .is_ok_and(|modified| modified.elapsed().is_ok_and(|age| age > INSTALL_WAIT));
                if stale {
                    let _ = std::fs::remove_file(INSTALL_LOCK);
                }
                if Instant::now() >= deadline {
                    panic!(
                        "{HOW_TO_INSTALL} (waited {INSTALL_WAIT:?} for another installation, holding {INSTALL_LOCK})"
                    );
                }
                std::thread::sleep(Duration::from_millis(500));
            }
            Err(e) => panic!("{HOW_TO_INSTALL} (cannot create {INSTALL_LOCK}: {e})"),
        }
    }
}

/// `apt-get install -y chromium`, after `apt-get update` if the first try
/// fails (package lists missing or stale). True if it succeeded.
fn apt_install() -> bool {
    eprintln!("switchboard-testkit: Chromium is missing; installing Debian's chromium with apt-get");
    let install = || {
        Command::new("apt-get")
            // Wait for another apt (a Redis or PostgreSQL install of a
            // concurrent test binary) instead of failing on dpkg's lock.
            .args(["-o", "DPkg::Lock::Timeout=600", "install", "-y", "-q", "chromium"])
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

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| out.status.success() && String::from_utf8_lossy(&out.stdout).trim() == "0")
}
