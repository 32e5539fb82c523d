//! `mcp-bench`: runs mcpd, a bare ceiling and any peer servers under the
//! same load, one after the other on this machine, and prints medians and
//! ratios as a Markdown table.
//!
//! ```text
//! cargo build --release -p mcpd -p mcp-bench
//! target/release/mcp-bench --duration 5 --reps 3 [--peer rmcp=/path/to/rmcp-peer]
//! ```
//!
//! Workloads (each bounded by `--duration` and by a request count):
//! - **http**: `tools/call` echo over stateless Streamable HTTP with
//!   `--connections` keep-alive connections; requests/s and server CPU µs
//!   per request (from `/proc/PID/stat`).
//! - **stdio**: `tools/call` echo with `--window` requests in flight on one
//!   pipe; messages/s and CPU µs per message.
//! - **cold start**: spawn → `initialize` answered over stdio, median of 10.
//! - **RSS after initialize** (`/proc/PID/status` VmRSS).
//!
//! Servers: `mcpd` (`serve --fixtures bench`, `--http ADDR --stateless --sse
//! never`), the **ceiling** (this binary's hidden `ceiling-http` and
//! `ceiling-stdio`: parse the JSON-RPC request with serde_json and answer
//! the echo result, nothing else), and each `--peer NAME=PROGRAM`, run as
//! `PROGRAM stdio` and `PROGRAM http PORT stateless` (the convention of the
//! shared harness's peers). Everything listens on 127.0.0.1 only.
//! Timings live here, never in tests: this machine is shared and noisy, so
//! take medians of several repetitions and compare ratios from one run.

mod ceiling;
mod load;
mod proc_stat;
mod report;

use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, Subcommand};

/// Load tests of MCP servers, side by side.
#[derive(Debug, Parser)]
#[command(name = "mcp-bench")]
struct Cli {
    #[command(subcommand)]
    command: Option<Internal>,
    /// Seconds per measurement window.
    #[arg(long, default_value_t = 5)]
    duration: u64,
    /// Repetitions (medians are reported).
    #[arg(long, default_value_t = 3)]
    reps: usize,
    /// HTTP connections.
    #[arg(long, default_value_t = 16)]
    connections: usize,
    /// stdio requests in flight.
    #[arg(long, default_value_t = 64)]
    window: usize,
    /// The mcpd binary (default: target/release/mcpd next to this one).
    #[arg(long)]
    mcpd: Option<PathBuf>,
    /// A peer server, NAME=PROGRAM (run as `PROGRAM stdio` and `PROGRAM http PORT stateless`).
    #[arg(long = "peer", value_name = "NAME=PROGRAM")]
    peers: Vec<String>,
}

#[derive(Debug, Subcommand)]
enum Internal {
    /// (internal) The bare HTTP ceiling on 127.0.0.1:PORT (0: any).
    #[command(hide = true)]
    CeilingHttp { port: u16 },
    /// (internal) The bare stdio ceiling.
    #[command(hide = true)]
    CeilingStdio,
}

/// How to start one server.
#[derive(Debug, Clone)]
pub(crate) struct Contender {
    pub name: String,
    pub stdio: Vec<String>,
    /// argv for HTTP; `{port}` is replaced by a free port.
    pub http: Vec<String>,
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Some(Internal::CeilingHttp { port }) => return ceiling::http(port),
        Some(Internal::CeilingStdio) => return ceiling::stdio(),
        None => {}
    }
    let me = std::env::current_exe()?;
    let mcpd = match &cli.mcpd {
        Some(p) => p.clone(),
        None => me.with_file_name("mcpd"),
    };
    anyhow::ensure!(
        mcpd.exists(),
        "{} not found: build it (cargo build --release -p mcpd) or pass --mcpd",
        mcpd.display()
    );
    let exe = |p: &std::path::Path| p.display().to_string();
    let mut contenders = vec![
        Contender {
            name: "ceiling".into(),
            stdio: vec![exe(&me), "ceiling-stdio".into()],
            http: vec![exe(&me), "ceiling-http".into(), "{port}".into()],
        },
        Contender {
            name: "mcpd".into(),
            stdio: vec![exe(&mcpd), "serve".into(), "--fixtures".into(), "bench".into()],
            http: vec![
                exe(&mcpd),
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
            stdio: vec![program.into(), "stdio".into()],
            http: vec![program.into(), "http".into(), "{port}".into(), "stateless".into()],
        });
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let window = Duration::from_secs(cli.duration.max(1));
    let table =
        runtime.block_on(load::run_all(&contenders, window, cli.reps.max(1), cli.connections, cli.window))?;
    println!("{}", report::markdown(&table, &contenders, cli.connections, cli.window));
    Ok(())
}
