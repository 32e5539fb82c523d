//! A real `redis-server` for tests: started on a free loopback port with a
//! private data directory, stopped on drop.
//!
//! Tests of Redis-backed code run against the real server rather than a
//! mock, so expiry, scripts, pub/sub and reconnection behave as in
//! production. If `redis-server` is missing and the tests run as root, it
//! is installed with `apt-get` once per machine (concurrent test binaries
//! wait for each other on a lock file); otherwise the test panics saying
//! how to install it. Tests never skip silently.
//!
//! ```no_run
//! let mut redis = switchboard_testkit::redis::RedisServer::start();
//! let url = redis.url(); // redis://127.0.0.1:PORT
//! redis.restart(); // same port and data directory: data survives (AOF)
//! # let _ = url;
//! ```

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::apt;

/// How long a started server may take to answer `PING`.
const START_TIMEOUT: Duration = Duration::from_secs(10);

/// A `redis-server` child process on `127.0.0.1`, killed on drop.
#[derive(Debug)]
pub struct RedisServer {
    binary: PathBuf,
    port: u16,
    dir: tempfile::TempDir,
    child: Option<Child>,
}

impl RedisServer {
    /// Starts a fresh server (installing `redis-server` first if needed and
    /// possible) and waits until it answers `PING`. Panics, saying why, if
    /// it cannot.
    pub fn start() -> RedisServer {
        let binary = ensure_installed();
        let dir = tempfile::Builder::new()
            .prefix("switchboard-redis-")
            .tempdir()
            .unwrap_or_else(|e| panic!("cannot create a temporary directory for redis-server: {e}"));
        let mut server = RedisServer { binary, port: free_port(), dir, child: None };
        // Another process may take the free port before redis-server binds
        // it: then try another.
        let mut attempts = 0;
        loop {
            attempts += 1;
            match server.spawn() {
                Ok(()) => return server,
                Err(SpawnError::Exited(_)) if attempts < 3 => server.port = free_port(),
                Err(e) => panic!("{e}"),
            }
        }
    }

    /// `redis://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// The loopback port the server listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The server process's id while it runs (to pause it with `SIGSTOP`,
    /// say), `None` after [`stop`](Self::stop).
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// The server's data directory (its append-only file is there).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Kills the server and waits for it to exit. Clients see their
    /// connections dropped; the data directory is kept.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Stops the server, then starts it again on the same port and data
    /// directory: what was written before (and fsynced to the append-only
    /// file) is there again.
    pub fn restart(&mut self) {
        self.stop();
        if let Err(e) = self.spawn() {
            panic!("{e}");
        }
    }

    /// Runs redis-server and waits until it answers: it is ready once it
    /// logged that it accepts connections (so it bound the port itself) and
    /// answers `PING`.
    fn spawn(&mut self) -> Result<(), SpawnError> {
        let log = self.dir.path().join("redis.log");
        let stdout =
            std::fs::File::create(&log).unwrap_or_else(|e| panic!("cannot create {}: {e}", log.display()));
        let stderr = stdout.try_clone().unwrap_or_else(|e| panic!("cannot reuse {}: {e}", log.display()));
        let port = self.port.to_string();
        let child = Command::new(&self.binary)
            .args(["--port", &port, "--bind", "127.0.0.1", "--dir"])
            .arg(self.dir.path())
            .args(["--save", "", "--appendonly", "yes", "--appendfsync", "always", "--daemonize", "no"])
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(stderr)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", self.binary.display()));
        self.child = Some(child);
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            let output = std::fs::read_to_string(&log).unwrap_or_default();
            if output.contains("Ready to accept connections") && ping(self.port) {
                return Ok(());
            }
            let exited = self.child.as_mut().and_then(|c| c.try_wait().ok().flatten());
            if let Some(status) = exited {
                self.child = None;
                return Err(SpawnError::Exited(format!(
                    "redis-server on port {port} exited ({status}) before answering; its output:\n{output}"
                )));
            }
            if Instant::now() >= deadline {
                self.stop();
                return Err(SpawnError::TimedOut(format!(
                    "redis-server on port {port} did not answer PING within {START_TIMEOUT:?}; its output:\n{output}"
                )));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// Why a redis-server did not come up.
#[derive(Debug)]
enum SpawnError {
    /// It exited (the port was taken, say).
    Exited(String),
    /// It kept running without answering.
    TimedOut(String),
}

impl std::fmt::Display for SpawnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpawnError::Exited(message) | SpawnError::TimedOut(message) => f.write_str(message),
        }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// True if a Redis server on `port` answers `PING` with `+PONG`.
fn ping(port: u16) -> bool {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let Ok(mut stream) = TcpStream::connect_timeout(&addr, Duration::from_millis(500)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
    let _ = stream.set_write_timeout(Some(Duration::from_millis(500)));
    if stream.write_all(b"*1\r\n$4\r\nPING\r\n").is_err() {
        return false;
    }
    let mut reply = [0u8; 7];
    stream.read_exact(&mut reply).is_ok() && &reply == b"+PONG\r\n"
}

/// A loopback port nobody listens on right now.
fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .unwrap_or_else(|e| panic!("cannot find a free loopback port: {e}"))
}

/// The `redis-server` binary: on `PATH`, or `/usr/bin/redis-server`.
fn find_binary() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
        .map(|dir| dir.join("redis-server"));
    on_path.chain([PathBuf::from("/usr/bin/redis-server")]).find(|path| path.is_file())
}

const HOW_TO_INSTALL: &str = "redis-server is needed by these tests and is not installed: \
     install it (Debian/Ubuntu: `sudo apt-get install -y redis-server`, macOS: `brew install redis`) \
     or put it on PATH";

/// Finds `redis-server`, installing it with apt-get (as root, once per
/// machine) if it is missing. Panics if it is still missing.
fn ensure_installed() -> PathBuf {
    apt::Package { name: "redis-server", how_to_install: HOW_TO_INSTALL, find: find_binary }.ensure()
}
