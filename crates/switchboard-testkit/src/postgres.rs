//! A real PostgreSQL server for tests: a fresh cluster in a temporary
//! directory, on a free loopback port, stopped and removed on drop.
//!
//! Tests of PostgreSQL-backed code run against the real server rather than
//! a mock, so read-only transactions, privileges, cancellation and types
//! behave as in production. Clients authenticate with `scram-sha-256` (not
//! `trust`), so password handling is exercised too.
//!
//! If PostgreSQL is missing and the tests run as root, Debian's
//! `postgresql` package is installed with `apt-get` once per machine
//! (concurrent test binaries wait for each other on a lock file); otherwise
//! the test panics saying how to install it. Tests never skip silently.
//!
//! `initdb` and `postgres` refuse to run as root: as root, the server runs
//! as the `postgres` system user when it exists, or as `switchboard-pg`
//! (created once). The cluster is made for speed (`fsync=off`,
//! `--no-sync`): it starts in about a second.
//!
//! ```no_run
//! let pg = switchboard_testkit::postgres::PostgresServer::start();
//! pg.create_role("reader", "secret", "LOGIN");
//! pg.create_database("shop");
//! pg.execute_in("shop", "CREATE TABLE t (id int); GRANT SELECT ON t TO reader");
//! let url = pg.url("reader", "secret", "shop"); // postgres://reader:secret@127.0.0.1:PORT/shop
//! assert_eq!(pg.query_in("shop", "SELECT count(*) FROM t"), "0");
//! # let _ = url;
//! ```

use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::apt;

/// How long a started server may take to accept connections.
const START_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a stopped server may take to exit before it is killed.
const STOP_TIMEOUT: Duration = Duration::from_secs(5);
/// The superuser's name in every test cluster.
pub const SUPERUSER: &str = "postgres";
/// The system user created to run the server when tests run as root and
/// there is no `postgres` user.
const SERVICE_USER: &str = "switchboard-pg";

/// A `postgres` server process on `127.0.0.1`, killed on drop (its data
/// directory removed).
#[derive(Debug)]
pub struct PostgresServer {
    bin: PathBuf,
    port: u16,
    password: String,
    dir: tempfile::TempDir,
    child: Option<Child>,
    tls: bool,
}

impl PostgresServer {
    /// Creates a fresh cluster (installing PostgreSQL first if needed and
    /// possible), starts it and waits until it accepts connections. Panics,
    /// saying why, if it cannot.
    pub fn start() -> PostgresServer {
        Self::start_with(false)
    }

    /// [`start`](Self::start), with TLS on (`ssl=on`, a certificate for
    /// `localhost` signed by a test authority, both made with `openssl`):
    /// clients may use `sslmode=require`; a verifying client trusts it only
    /// with [`ca_certificate`](Self::ca_certificate) as its root.
    pub fn start_with_tls() -> PostgresServer {
        Self::start_with(true)
    }

    fn start_with(tls: bool) -> PostgresServer {
        let bin = ensure_installed();
        let owner = server_user();
        let dir = tempfile::Builder::new()
            .prefix("switchboard-postgres-")
            .tempdir()
            .unwrap_or_else(|e| panic!("cannot create a temporary directory for postgres: {e}"));
        let password = fresh_password();
        let mut server = PostgresServer { bin, port: free_port(), password, dir, child: None, tls };
        server.init(owner.as_ref());
        if tls {
            server.make_certificate(owner.as_ref());
        }
        // Another process may take the free port before postgres binds it:
        // then try another.
        let mut attempts = 0;
        loop {
            attempts += 1;
            match server.spawn(owner.as_ref()) {
                Ok(()) => return server,
                Err(SpawnError::Exited(_)) if attempts < 3 => server.port = free_port(),
                Err(e) => panic!("{e}"),
            }
        }
    }

    /// The loopback port the server listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The superuser's password (user [`SUPERUSER`]).
    pub fn superuser_password(&self) -> &str {
        &self.password
    }

    /// `postgres://USER:PASSWORD@127.0.0.1:PORT/DB` (user and password
    /// percent-encoded).
    pub fn url(&self, user: &str, password: &str, db: &str) -> String {
        format!("postgres://{}:{}@127.0.0.1:{}/{}", encode(user), encode(password), self.port, encode(db))
    }

    /// The superuser's URL to the `postgres` database.
    pub fn superuser_url(&self) -> String {
        self.url(SUPERUSER, &self.password, "postgres")
    }

    /// The server process's id while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// The cluster's directory (data in `data/`, the log in `postgres.log`).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Runs `sql` (one or more statements) as the superuser in the
    /// `postgres` database. Panics with psql's message if it fails.
    pub fn execute(&self, sql: &str) {
        self.execute_in("postgres", sql);
    }

    /// Runs `sql` as the superuser in database `db`. Panics with psql's
    /// message if it fails.
    pub fn execute_in(&self, db: &str, sql: &str) {
        self.psql(db, sql);
    }

    /// Runs `sql` as the superuser in the `postgres` database and returns
    /// its rows as psql prints them unaligned (`|` between columns, one row
    /// a line, no header), trimmed.
    pub fn query(&self, sql: &str) -> String {
        self.query_in("postgres", sql)
    }

    /// [`query`](Self::query) in database `db`.
    pub fn query_in(&self, db: &str, sql: &str) -> String {
        self.psql(db, sql).trim().to_owned()
    }

    /// `CREATE DATABASE name`.
    pub fn create_database(&self, name: &str) {
        self.execute(&format!("CREATE DATABASE {}", quote_ident(name)));
    }

    /// `CREATE ROLE name PASSWORD 'password' attributes` (attributes such
    /// as `"LOGIN"` or `"LOGIN SUPERUSER"`).
    pub fn create_role(&self, name: &str, password: &str, attributes: &str) {
        self.execute(&format!(
            "CREATE ROLE {} {attributes} PASSWORD {}",
            quote_ident(name),
            quote_literal(password)
        ));
    }

    /// Stops the server (a fast shutdown, then a kill if it lingers).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            // SIGINT: "fast" shutdown, which ends sessions and exits.
            let _ = Command::new("kill").args(["-INT", &child.id().to_string()]).status();
            let deadline = Instant::now() + STOP_TIMEOUT;
            while Instant::now() < deadline {
                if child.try_wait().ok().flatten().is_some() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    fn psql(&self, db: &str, sql: &str) -> String {
        let output = Command::new(self.bin.join("psql"))
            .args(["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p"])
            .arg(self.port.to_string())
            .args(["-U", SUPERUSER, "-d", db, "-c", sql])
            .env("PGPASSWORD", &self.password)
            .env("PGCONNECT_TIMEOUT", "10")
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("cannot run psql: {e}"));
        if !output.status.success() {
            panic!(
                "psql failed on {sql:?} in database {db:?}: {}",
                String::from_utf8_lossy(&output.stderr).trim()
            );
        }
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// `initdb` with the superuser's password (scram-sha-256 for every
    /// connection, local ones included).
    fn init(&self, owner: Option<&Owner>) {
        let pwfile = self.dir.path().join("pwfile");
        std::fs::write(&pwfile, format!("{}\n", self.password))
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", pwfile.display()));
        if let Some(owner) = owner {
            chown(self.dir.path(), owner);
            chown(&pwfile, owner);
        }
        let data = self.dir.path().join("data");
        let mut command = Command::new(self.bin.join("initdb"));
        command
            .arg("-D")
            .arg(&data)
            .args(["-U", SUPERUSER, "--auth=scram-sha-256", "--encoding=UTF8", "--locale=C", "--no-sync"])
            .arg(format!("--pwfile={}", pwfile.display()))
            .stdin(Stdio::null());
        as_owner(&mut command, owner);
        let output = command.output().unwrap_or_else(|e| panic!("cannot run initdb: {e}"));
        let _ = std::fs::remove_file(&pwfile);
        if !output.status.success() {
            panic!(
                "initdb failed ({}): {}{}",
                output.status,
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }
    }

    /// A test certificate authority (`ca.crt`, see
    /// [`ca_certificate`](Self::ca_certificate)) and a server certificate
    /// it signed for the name `localhost` only (so a client checking the
    /// name against `127.0.0.1` refuses it), with its key readable by the
    /// server's user only, as postgres demands.
    fn make_certificate(&self, owner: Option<&Owner>) {
        let path = |name: &str| self.dir.path().join(name);
        let extensions = "subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\n\
                          keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n";
        std::fs::write(path("server.ext"), extensions)
            .unwrap_or_else(|e| panic!("cannot write the certificate extensions: {e}"));
        let steps: [Vec<std::ffi::OsString>; 3] = [
            os_args(&[
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "2",
                "-subj",
                "/CN=switchboard test CA",
            ])
            .into_iter()
            .chain(["-keyout".into(), path("ca.key").into(), "-out".into(), path("ca.crt").into()])
            .collect(),
            os_args(&["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost"])
                .into_iter()
                .chain([
                    "-keyout".into(),
                    path("server.key").into(),
                    "-out".into(),
                    path("server.csr").into(),
                ])
                .collect(),
            os_args(&["x509", "-req", "-days", "2", "-CAcreateserial"])
                .into_iter()
                .chain([
                    "-in".into(),
                    path("server.csr").into(),
                    "-CA".into(),
                    path("ca.crt").into(),
                    "-CAkey".into(),
                    path("ca.key").into(),
                    "-extfile".into(),
                    path("server.ext").into(),
                    "-out".into(),
                    path("server.crt").into(),
                ])
                .collect(),
        ];
        for args in steps {
            let output =
                Command::new("openssl").args(&args).stdin(Stdio::null()).output().unwrap_or_else(|e| {
                    panic!("cannot run openssl to make a test certificate (install openssl): {e}")
                });
            if !output.status.success() {
                panic!(
                    "openssl failed to make a test certificate: {}",
                    String::from_utf8_lossy(&output.stderr)
                );
            }
        }
        let _ = std::fs::set_permissions(path("server.key"), std::fs::Permissions::from_mode(0o600));
        if let Some(owner) = owner {
            chown(&path("server.crt"), owner);
            chown(&path("server.key"), owner);
        }
    }

    /// With [`start_with_tls`](Self::start_with_tls): the PEM file of the
    /// test certificate authority that signed the server's certificate
    /// (for `sslrootcert`).
    pub fn ca_certificate(&self) -> Option<PathBuf> {
        self.tls.then(|| self.dir.path().join("ca.crt"))
    }

    /// Runs the postmaster and waits until it logged that it is ready and
    /// its port accepts a connection.
    fn spawn(&mut self, owner: Option<&Owner>) -> Result<(), SpawnError> {
        let log = self.dir.path().join("postgres.log");
        let stdout =
            std::fs::File::create(&log).unwrap_or_else(|e| panic!("cannot create {}: {e}", log.display()));
        let stderr = stdout.try_clone().unwrap_or_else(|e| panic!("cannot reuse {}: {e}", log.display()));
        let port = self.port.to_string();
        let mut command = Command::new(self.bin.join("postgres"));
        command
            .arg("-D")
            .arg(self.dir.path().join("data"))
            .args(["-p", &port, "-k"])
            .arg(self.dir.path())
            .args([
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                "fsync=off",
                "-c",
                "synchronous_commit=off",
                "-c",
                "full_page_writes=off",
                "-c",
                "max_connections=100",
                "-c",
                "logging_collector=off",
            ])
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(stderr);
        if self.tls {
            command
                .args(["-c", "ssl=on", "-c"])
                .arg(format!("ssl_cert_file={}", self.dir.path().join("server.crt").display()))
                .arg("-c")
                .arg(format!("ssl_key_file={}", self.dir.path().join("server.key").display()));
        }
        as_owner(&mut command, owner);
        let child = command.spawn().unwrap_or_else(|e| panic!("cannot run postgres: {e}"));
        self.child = Some(child);
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            let output = std::fs::read_to_string(&log).unwrap_or_default();
            if output.contains("ready to accept connections") && accepts(self.port) {
                return Ok(());
            }
            let exited = self.child.as_mut().and_then(|c| c.try_wait().ok().flatten());
            if let Some(status) = exited {
                self.child = None;
                return Err(SpawnError::Exited(format!(
                    "postgres on port {port} exited ({status}) before accepting connections; its output:\n{output}"
                )));
            }
            if Instant::now() >= deadline {
                self.stop();
                return Err(SpawnError::TimedOut(format!(
                    "postgres on port {port} did not accept connections within {START_TIMEOUT:?}; its output:\n{output}"
                )));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for PostgresServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Why a postgres did not come up.
#[derive(Debug)]
enum SpawnError {
    /// It exited (the port was taken, say).
    Exited(String),
    /// It kept running without accepting connections.
    TimedOut(String),
}

impl std::fmt::Display for SpawnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpawnError::Exited(message) | SpawnError::TimedOut(message) => f.write_str(message),
        }
    }
}

/// The unprivileged user the server runs as (when the tests run as root).
#[derive(Debug, Clone)]
struct Owner {
    uid: u32,
    gid: u32,
}

/// Runs `command` as `owner` when there is one (`Command::uid`/`gid`: the
/// child execs the program directly, so killing it kills the server).
fn as_owner(command: &mut Command, owner: Option<&Owner>) {
    if let Some(owner) = owner {
        command.gid(owner.gid).uid(owner.uid);
    }
}

fn chown(path: &Path, owner: &Owner) {
    std::os::unix::fs::chown(path, Some(owner.uid), Some(owner.gid))
        .unwrap_or_else(|e| panic!("cannot give {} to uid {}: {e}", path.display(), owner.uid));
    if path.is_dir() {
        // tempfile makes the directory 0700; the owner needs it as its own.
        let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700));
    }
}

/// As root: the `postgres` user, or `switchboard-pg` (created once). Not
/// root: `None` (the server runs as the current user).
fn server_user() -> Option<Owner> {
    if !apt::is_root() {
        return None;
    }
    if let Some(owner) = lookup_user("postgres").or_else(|| lookup_user(SERVICE_USER)) {
        return Some(owner);
    }
    apt::with_lock(HOW_TO_INSTALL, || {
        if lookup_user(SERVICE_USER).is_none() {
            let _ = Command::new("useradd")
                .args(["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", SERVICE_USER])
                .stdin(Stdio::null())
                .status();
        }
    });
    Some(lookup_user(SERVICE_USER).unwrap_or_else(|| {
        panic!("cannot create the system user {SERVICE_USER} to run postgres as (postgres refuses root)")
    }))
}

fn lookup_user(name: &str) -> Option<Owner> {
    let id = |flag: &str| -> Option<u32> {
        let out = Command::new("id").args([flag, name]).stderr(Stdio::null()).output().ok()?;
        if !out.status.success() {
            return None;
        }
        String::from_utf8_lossy(&out.stdout).trim().parse().ok()
    };
    Some(Owner { uid: id("-u")?, gid: id("-g")? })
}

/// A password unlikely to be guessed by code under test (it is only for a
/// throwaway cluster on loopback).
fn fresh_password() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos(),
    );
    hasher.write_u32(std::process::id());
    format!("sb-{:016x}", hasher.finish())
}

/// True if something accepts a TCP connection on loopback `port`.
fn accepts(port: u16) -> bool {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    TcpStream::connect_timeout(&addr, Duration::from_millis(500)).is_ok()
}

/// A loopback port nobody listens on right now.
fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .unwrap_or_else(|e| panic!("cannot find a free loopback port: {e}"))
}

fn os_args(args: &[&str]) -> Vec<std::ffi::OsString> {
    args.iter().map(Into::into).collect()
}

/// `"name"` with embedded quotes doubled.
pub fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// `'text'` with embedded quotes doubled.
pub fn quote_literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// Percent-encodes everything but unreserved characters (for URL parts).
fn encode(part: &str) -> String {
    let mut out = String::new();
    for byte in part.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The directory holding `initdb` and `postgres`: the newest
/// `/usr/lib/postgresql/*/bin` (Debian), or `pg_config --bindir`.
fn find_bindir() -> Option<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_string_lossy().parse::<u32>().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").is_file().then_some((version, bin))
        })
        .collect();
    versions.sort();
    if let Some((_, bin)) = versions.pop() {
        return Some(bin);
    }
    let out = Command::new("pg_config").arg("--bindir").stderr(Stdio::null()).output().ok()?;
    let bin = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    (out.status.success() && bin.join("initdb").is_file() && bin.join("postgres").is_file()).then_some(bin)
}

const HOW_TO_INSTALL: &str = "PostgreSQL is needed by these tests and is not installed: \
     install it (Debian/Ubuntu: `sudo apt-get install -y postgresql`, macOS: `brew install postgresql`) \
     so that initdb and postgres are under /usr/lib/postgresql/*/bin or `pg_config --bindir`";

/// Finds PostgreSQL's binaries, installing them with apt-get (as root,
/// once per machine) if they are missing. Panics if they are still missing.
fn ensure_installed() -> PathBuf {
    apt::Package { name: "postgresql", how_to_install: HOW_TO_INSTALL, find: find_bindir }.ensure()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_with_passwords_and_runs_sql() {
        let started = Instant::now();
        let pg = PostgresServer::start();
        assert!(started.elapsed() < Duration::from_secs(20), "start took {:?}", started.elapsed());
        pg.create_role("reader", "it's secret", "LOGIN");
        pg.create_database("shop");
        pg.execute_in("shop", "CREATE TABLE t (id int); INSERT INTO t VALUES (1), (2)");
        assert_eq!(pg.query_in("shop", "SELECT count(*) FROM t"), "2");
        assert_eq!(pg.query("SELECT rolsuper FROM pg_roles WHERE rolname = 'reader'"), "f");
        // Password authentication, not trust: a wrong password is refused.
        let status = Command::new(pg.bin.join("psql"))
            .args([
                "-X",
                "-h",
                "127.0.0.1",
                "-p",
                &pg.port().to_string(),
                "-U",
                "reader",
                "-d",
                "shop",
                "-c",
                "SELECT 1",
            ])
            .env("PGPASSWORD", "wrong")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(!status.success());
        assert!(pg.url("reader", "it's secret", "shop").contains("it%27s%20secret"));
        let dir = pg.dir().to_path_buf();
        drop(pg);
        assert!(!dir.exists(), "the data directory is removed on drop");
    }
}
