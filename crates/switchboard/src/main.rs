//! `switchboard`: a ready-to-run MCP server.
//!
//! `switchboard serve [DIR]` turns a project folder into an MCP server over
//! stdio (or Streamable HTTP with `--http`), driven by `DIR/switchboard.toml`
//! or, with none, an embedded default that serves the folder read-only (see
//! `switchboard-config`). This file parses the command line ([`cli`]) and
//! hands it to the one file of its subcommand ([`cmd`]); a project and its
//! live reload are [`project`], the built-in `--fixtures` are [`fixtures`],
//! and every failure ends with an exit status of its own ([`exit`]).
//! Everything reusable lives in the library crates.

mod cli;
mod cmd;
mod exit;
mod fixtures;
mod output;
mod project;
mod shutdown;
mod telemetry;
mod transport;

use std::process::ExitCode;

use crate::cli::{Cli, Command};

/// mimalloc instead of the system allocator. Measured with callgrind on a
/// 2026-07-28 HTTP `tools/call` (`serve --fixtures bench`, 3,000 keep-alive
/// requests): glibc's `malloc`/`free` were about 32k of the 114k
/// instructions each request costs, most of them small short-lived
/// allocations (parsed JSON, headers, the reply) that mimalloc serves from
/// thread-local free lists. Only the binary chooses: the library crates
/// leave the allocator to the application that embeds them.
///
/// Version 2 of mimalloc, not 3 (the crate's `v2` feature): 3.x keeps the
/// pages a burst of work freed for a second before it returns them, and
/// only when it next allocates, so `serve .` on this repository held the
/// first scan's garbage after `initialize` (27 MB anonymous memory, against
/// 15 MB with a 10 ms delay, 2.x's default). Options cannot be set from
/// here without `unsafe`, which the workspace forbids.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // Started as the sandbox launcher of a command tool (hidden
    // subcommand `__sandbox-exec`): Landlock restricts the calling thread,
    // so this comes before any runtime or thread starts. It becomes the
    // program, or returns the exit status of its failure.
    if let Some(code) = switchboard_sandbox::launch_if_asked() {
        return ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    let cli = cli::parse();
    // Logs go to stderr only: stdout carries nothing but MCP messages.
    let _telemetry = telemetry::init();
    let result = run(cli);
    // However the command ended (a signal, stdin closed, an error), no
    // child process outlives switchboard: kill every group still registered.
    switchboard_process::kill_all();
    exit::status(result)
}

/// Runs the subcommand asked for.
fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Serve(args) => cmd::serve::run(args),
        Command::Check { json, project } => cmd::check::run(&project, json),
        Command::List { json, fixtures, project } => cmd::list::run(fixtures, &project, json),
        Command::Call { tool, args, json, fixtures, project } => {
            cmd::call::run(fixtures, &project, &tool, args, json)
        }
        Command::Init { dir, force } => cmd::init::run(&dir, force),
        Command::Completions { shell } => cmd::completions::run(shell),
        Command::Schema => cmd::schema::run(),
        Command::Man => cmd::man::run(),
        Command::Bundle(args) => cmd::bundle::run(&args),
        Command::Proxy(args) => cmd::proxy::run(args),
    }
}
