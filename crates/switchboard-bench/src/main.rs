//! `switchboard-bench`: runs switchboard, a bare ceiling and any peer servers under the
//! same load, one after the other on this machine, and prints medians and
//! ratios as a Markdown table.
//!
//! ```text
//! cargo build --release -p switchboard -p switchboard-bench
//! target/release/switchboard-bench --duration 5 --reps 3 [--peer rmcp=/path/to/rmcp-peer]
//! ```
//!
//! Workloads (each bounded by `--duration` and by a request count):
//! - **http**: `tools/call` echo over stateless Streamable HTTP with
//!   `--connections` keep-alive connections, twice: as a handshake-revision
//!   client without a session, and at 2026-07-28 (per-request `_meta`,
//!   `Mcp-Method`/`Mcp-Name` headers); requests/s and server CPU µs per
//!   request (from `/proc/PID/stat`).
//! - **stdio**: `tools/call` echo with `--window` requests in flight on one
//!   pipe; messages/s and CPU µs per message.
//! - **list**: `resources/list` over stdio from the first page to the last
//!   (the bench fixtures' 10,000 items in pages of 100), 5 sweeps per
//!   process; milliseconds per sweep. The ceiling answers from pages
//!   rendered in advance, so its sweep is this harness's floor: round trips
//!   and the client's own parsing.
//!   `switchboard-bench list --sweeps 100` runs this workload alone, with enough
//!   sweeps per process for a precise server CPU figure, servers taking
//!   turns.
//! - **cold start**: spawn → `initialize` answered over stdio, median of 10.
//! - **RSS after initialize** (`/proc/PID/status` VmRSS).
//! - **folder** (`switchboard-bench folder --sizes 10000,100000`, alone):
//!   `serve DIR` on generated trees of that many files; see `folder.rs`.
//! - **db** (`switchboard-bench db [--dbhub COMMAND]`, alone): a typed
//!   `tools/call` returning 10 rows by key from one SQLite file, over stdio
//!   and HTTP, against DBHub and a bare rusqlite loop; see `db.rs`.
//!   `--engine postgres`: the same on a real PostgreSQL started for the
//!   run, against DBHub and a bare tokio-postgres loop; see `db_postgres.rs`.
//!
//! Servers: `switchboard` (`serve --fixtures bench`, `--http ADDR --stateless --sse
//! never`), the **ceiling** (this binary's hidden `ceiling-http` and
//! `ceiling-stdio`: parse the JSON-RPC request with serde_json and answer
//! the echo result, nothing else), and each `--peer NAME=PROGRAM`, run as
//! `PROGRAM stdio` and `PROGRAM http PORT stateless` (the convention of the
//! shared harness's peers). Everything listens on 127.0.0.1 only.
//!
//! Pinning (the shared harness's method): with two or more CPUs and
//! `taskset` on the machine, servers run on CPU 1 (`taskset -c 1`) and the
//! tool re-executes itself on CPU 0 with a single-threaded runtime, so
//! server and load never compete for a core. `--no-pin` lets both float.
//!
//! Timings live here, never in tests: this machine is shared and noisy, so
//! take medians of several repetitions and compare ratios from one run.

mod ceiling;
mod ceiling_postgres;
mod db;
mod db_postgres;
mod folder;
mod load;
mod proc_stat;
mod report;
mod scale;

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use clap::{Parser, Subcommand};

/// Load tests of MCP servers, side by side.
#[derive(Debug, Parser)]
#[command(name = "switchboard-bench")]
struct Cli {
    #[command(subcommand)]
    command: Option<Internal>,
    /// Seconds per measurement window.
    #[arg(global = true, long, default_value_t = 5)]
    duration: u64,
    /// Repetitions (medians are reported).
    #[arg(global = true, long, default_value_t = 3)]
    reps: usize,
    /// HTTP connections.
    #[arg(global = true, long, default_value_t = 16)]
    connections: usize,
    /// stdio requests in flight.
    #[arg(long, default_value_t = 64)]
    window: usize,
    /// The switchboard binary (default: target/release/switchboard next to this one).
    #[arg(global = true, long)]
    switchboard: Option<PathBuf>,
    /// A peer server, NAME=PROGRAM (run as `PROGRAM stdio` and `PROGRAM http PORT stateless`).
    #[arg(global = true, long = "peer", value_name = "NAME=PROGRAM")]
    peers: Vec<String>,
    /// Let servers and the load generator float over every CPU.
    #[arg(global = true, long)]
    no_pin: bool,
}

/// Set when this process was re-executed on CPU 0.
const PINNED_ENV: &str = "MCP_BENCH_PINNED";

/// The argv prefix that starts a server on its own CPU (empty unpinned).
static SERVER_PREFIX: OnceLock<Vec<String>> = OnceLock::new();

pub(crate) fn server_prefix() -> &'static [String] {
    SERVER_PREFIX.get().map_or(&[], Vec::as_slice)
}

/// Whether this machine can pin: two CPUs and a `taskset` that works.
fn can_pin() -> bool {
    std::thread::available_parallelism().is_ok_and(|n| n.get() >= 2)
        && std::process::Command::new("taskset")
            .args(["-c", "0", "true"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
}

#[derive(Debug, Subcommand)]
enum Internal {
    /// (internal) The bare HTTP ceiling on 127.0.0.1:PORT (0: any).
    #[command(hide = true)]
    CeilingHttp { port: u16 },
    /// (internal) The bare stdio ceiling.
    #[command(hide = true)]
    CeilingStdio,
    /// (internal) The pipelined PostgreSQL ceiling, its database URL in
    /// `SWITCHBOARD_BENCH_PG_URL`; prints its sample as JSON.
    #[command(hide = true)]
    CeilingPostgres {
        #[arg(long)]
        seconds: f64,
        #[arg(long)]
        in_flight: usize,
        #[arg(long)]
        connections: usize,
    },
    /// `resources/list` walks only: every server walks the whole list
    /// `--sweeps` times per process, `--reps` processes, servers taking
    /// turns; median sweep time and server CPU per sweep and per page.
    List {
        /// Sweeps per server process.
        #[arg(long, default_value_t = 100)]
        sweeps: usize,
    },
    /// The database workload: a typed `tools/call` returning 10 rows by
    /// key from one SQLite file (or, `--engine postgres`, a PostgreSQL
    /// started for the run), over stdio and HTTP, against DBHub and a bare
    /// rusqlite (tokio-postgres) loop, the ceiling.
    Db {
        /// How to start DBHub 1.4.0, as a command line (`NODE PATH/dist/index.js`,
        /// Node ≥ 22.5); without it, DBHub is left out.
        #[arg(long, value_name = "COMMAND")]
        dbhub: Option<String>,
        /// Also send a query of this many rows (20000000: the issue's) to
        /// each server's ad-hoc SQL tool and report the time to the answer
        /// and the peak memory growth (a peer may use gigabytes).
        #[arg(long, value_name = "ROWS")]
        huge: Option<u64>,
        /// The database: one SQLite file, or a real PostgreSQL started for
        /// the run (a fresh cluster, read by a SELECT-only role).
        #[arg(long, value_enum, default_value = "sqlite")]
        engine: Engine,
    },
    /// N switchboard instances sharing a Redis (`--state`), connections spread
    /// over them: stateless and session `tools/call` throughput.
    /// A very large served folder (`serve DIR`, stdio): start-up, first
    /// correct page, memory, a saved file and a `.gitignore` edit
    /// announced, full pagination, and `search` against `rg`.
    Folder {
        /// Tree sizes (served files), each generated in a temporary folder.
        #[arg(long, value_delimiter = ',', default_value = "10000,100000")]
        sizes: Vec<usize>,
    },
    ScaleOut {
        /// The Redis every instance shares (a running server).
        #[arg(long)]
        redis: String,
        /// Instance counts to measure.
        #[arg(long, value_delimiter = ',', default_value = "1,3")]
        instances: Vec<usize>,
    },
}

/// The database engine of the `db` workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Engine {
    Sqlite,
    Postgres,
}

/// How to start one server.
#[derive(Debug, Clone)]
pub(crate) struct Contender {
    pub name: String,
    /// Whether it serves the bench fixtures' resource list (the ceiling does not).
    pub lists: bool,
    pub stdio: Vec<String>,
    /// argv for HTTP; `{port}` is replaced by a free port.
    pub http: Vec<String>,
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Some(Internal::CeilingHttp { port }) => return ceiling::http(port),
        Some(Internal::CeilingStdio) => return ceiling::stdio(),
        Some(Internal::CeilingPostgres { seconds, in_flight, connections }) => {
            return ceiling_postgres::main(seconds, in_flight, connections);
        }
        Some(
            Internal::ScaleOut { .. } | Internal::List { .. } | Internal::Db { .. } | Internal::Folder { .. },
        )
        | None => {}
    }
    let me = std::env::current_exe()?;
    let scale_out = matches!(cli.command, Some(Internal::ScaleOut { .. }));
    let pinned = !cli.no_pin && !scale_out && (std::env::var_os(PINNED_ENV).is_some() || can_pin());
    if pinned && std::env::var_os(PINNED_ENV).is_none() {
        // Re-run this very command on CPU 0; its children are placed on CPU 1.
        let status = std::process::Command::new("taskset")
            .args(["-c", "0"])
            .arg(&me)
            .args(std::env::args_os().skip(1))
            .env(PINNED_ENV, "1")
            .status()?;
        std::process::exit(status.code().unwrap_or(1));
    }
    if pinned {
        let _ = SERVER_PREFIX.set(vec!["taskset".into(), "-c".into(), "1".into()]);
    }
    let switchboard = match &cli.switchboard {
        Some(p) => p.clone(),
        None => me.with_file_name("switchboard"),
    };
    anyhow::ensure!(
        switchboard.exists(),
        "{} not found: build it (cargo build --release -p switchboard) or pass --switchboard",
        switchboard.display()
    );
    let exe = |p: &std::path::Path| p.display().to_string();
    let mut contenders = vec![
        Contender {
            name: "ceiling".into(),
            lists: true,
            stdio: vec![exe(&me), "ceiling-stdio".into()],
            http: vec![exe(&me), "ceiling-http".into(), "{port}".into()],
        },
        Contender {
            name: "switchboard".into(),
            lists: true,
            stdio: vec![exe(&switchboard), "serve".into(), "--fixtures".into(), "bench".into()],
            http: vec![
                exe(&switchboard),
                "serve".into(),
                "--fixtures".into(),
                "bench".into(),
                "--stateless".into(),
                "--sse".into(),
                "never".into(),
                "--http".into(),
                "127.0.0.1:{port}".into(),
            ],
        },
    ];
    for peer in &cli.peers {
        let (name, program) =
            peer.split_once('=').ok_or_else(|| anyhow::anyhow!("--peer takes NAME=PROGRAM, got {peer:?}"))?;
        contenders.push(Contender {
            name: name.into(),
            lists: true,
            stdio: vec![program.into(), "stdio".into()],
            http: vec![program.into(), "http".into(), "{port}".into(), "stateless".into()],
        });
    }
    if let Some(Internal::ScaleOut { redis, instances }) = &cli.command {
        // Several server processes share the CPUs: no pinning here.
        let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
        let window = Duration::from_secs(cli.duration.max(1));
        let table = runtime.block_on(scale::run(
            &switchboard.display().to_string(),
            redis,
            instances,
            cli.connections,
            window,
            cli.reps,
        ))?;
        println!("{table}");
        return Ok(());
    }
    // Pinned to one CPU, more threads would only take turns on it.
    let runtime = if pinned {
        tokio::runtime::Builder::new_current_thread().enable_all().build()?
    } else {
        tokio::runtime::Builder::new_multi_thread().enable_all().build()?
    };
    eprintln!(
        "{}",
        if pinned { "pinned: servers on CPU 1, load on CPU 0" } else { "not pinned: everything floats" }
    );
    if let Some(Internal::List { sweeps }) = cli.command {
        let rows = runtime.block_on(load::list_only(&contenders, cli.reps.max(1), sweeps.max(1)))?;
        // The bench fixtures' page size.
        println!("{}", report::list_markdown(&rows, 100));
        return Ok(());
    }
    if let Some(Internal::Folder { sizes }) = &cli.command {
        let table = runtime.block_on(folder::run(&switchboard, sizes, cli.reps.max(1)))?;
        println!("{table}");
        println!(
            "\n{}",
            if pinned { "Server and rg pinned to CPU 1, client to CPU 0." } else { "Not pinned." }
        );
        return Ok(());
    }
    let window = Duration::from_secs(cli.duration.max(1));
    if let Some(Internal::Db { dbhub, huge, engine }) = &cli.command {
        let run = db::DbRun {
            switchboard: &switchboard,
            dbhub: dbhub.as_deref(),
            window,
            reps: cli.reps.max(1),
            connections: cli.connections,
            in_flight: cli.window,
            huge: *huge,
        };
        let table = match engine {
            Engine::Sqlite => runtime.block_on(db::run(run))?,
            Engine::Postgres => runtime.block_on(db_postgres::run(run))?,
        };
        println!("{table}");
        println!(
            "\n{}",
            if pinned { "Servers pinned to CPU 1, load generator to CPU 0." } else { "Not pinned." }
        );
        return Ok(());
    }
    let table =
        runtime.block_on(load::run_all(&contenders, window, cli.reps.max(1), cli.connections, cli.window))?;
    println!("{}", report::markdown(&table, &contenders, cli.connections, cli.window));
    println!(
        "\n{}",
        if pinned { "Servers pinned to CPU 1, load generator to CPU 0." } else { "Not pinned." }
    );
    Ok(())
}
