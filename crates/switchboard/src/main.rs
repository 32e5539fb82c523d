//! `switchboard`: a ready-to-run MCP server.
//!
//! `switchboard serve [DIR]` turns a project folder into an MCP server over stdio
//! (or Streamable HTTP with `--http`), driven by `DIR/switchboard.toml` or, with
//! none, an embedded default that serves the folder read-only (see
//! `switchboard-config`). Changes on disk and edits of the configuration apply
//! live ([`live`]). `switchboard check`, `switchboard list` and `switchboard call` inspect the
//! same project ([`commands`]); `switchboard init` writes a starter configuration
//! ([`init`]); `switchboard completions` and `switchboard man` are generated from
//! this file's one clap definition, so they cannot drift from the parser.
//! `--fixtures` serves built-in demonstration, conformance or benchmark
//! fixtures instead. Every failure ends with an exit status of its own
//! ([`exit`]). Everything reusable lives in the library crates.

mod cli;
mod cmd;
mod exit;
mod fixtures;
mod project;
mod shutdown;
mod telemetry;

use cli::listen;
use cmd::{bundle, call as commands, check, init, proxy, serve};
use fixtures::{demo_resources as default_resources, demo_tools as default_tools};
use project::{apps, databases, live, network, roots, sandbox, secrets, skills, upstreams};

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Parser, Subcommand, ValueEnum};
use switchboard_server::ServerOptions;

use crate::listen::ListenAddr;

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

/// A Model Context Protocol server: serves a project folder's files, git
/// history, prompts and tools to MCP hosts over stdio or Streamable HTTP.
///
/// An MCP host (Claude Desktop, Claude Code, VS Code, Cursor, ...) starts
/// `switchboard serve DIR` for you and talks to it over stdin/stdout; see the
/// README for each host's configuration. By hand: `switchboard init` writes a
/// starter switchboard.toml, `switchboard check` validates it, `switchboard list`
/// shows what is served and `switchboard call TOOL` runs one tool.
#[derive(Debug, Parser)]
#[command(name = "switchboard", version, after_help = exit::HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Fixtures {
    /// Demonstration tools (echo, add, countdown, a basket under a handle), resources and a prompt.
    Demo,
    /// The MCP conformance suite's fixture tools, resources and prompts.
    Conformance,
    /// The shared performance harness's fixtures (echo, add, 10,000 resources, greet).
    Bench,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum SseMode {
    /// SSE for tools/call, progress, logging and listen streams; JSON otherwise.
    Auto,
    /// Always SSE.
    Always,
    /// Always JSON.
    Never,
}

/// Which project to serve.
#[derive(Debug, Clone, clap::Args)]
struct ProjectArgs {
    /// The configuration file (default: DIR/switchboard.toml, else the embedded
    /// default, which serves DIR read-only).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The folder to serve (default: the configuration file's folder with
    /// --config, else the current folder, unless that is / or the home
    /// folder; `serve` over stdio serves the roots of a client that
    /// declares them). Relative paths in the configuration resolve against it.
    #[arg(value_name = "DIR")]
    dir: Option<PathBuf>,
}

impl ProjectArgs {
    /// The folder and configuration file `switchboard COMMAND` works on
    /// (`command` is named in the refusal's example).
    ///
    /// With neither a folder nor `--config`, the current folder is used,
    /// except `/` or the home folder: MCP hosts often start servers there,
    /// and serving (scanning, watching, running tools in) all of it is never
    /// what was meant. A folder named explicitly is used as given.
    fn source(&self, command: &str) -> anyhow::Result<live::Source> {
        let dir = match (&self.dir, &self.config) {
            (Some(dir), _) => dir.clone(),
            (None, Some(config)) => {
                config.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf()
            }
            (None, None) => PathBuf::from("."),
        };
        // A folder that cannot be read is an I/O failure (4); a --config
        // file that is not there is a configuration problem (3).
        let dir = dir
            .canonicalize()
            .with_context(|| format!("the folder to serve, {}", dir.display()))
            .map_err(exit::io)?;
        if self.dir.is_none() && self.config.is_none() {
            refuse_implicit_folder(&dir, command).map_err(exit::usage)?;
        }
        let config = match &self.config {
            Some(c) => Some(
                c.canonicalize()
                    .with_context(|| format!("the configuration file {}", c.display()))
                    .map_err(exit::config)?,
            ),
            None => None,
        };
        Ok(live::Source { dir, config, roots: Vec::new() })
    }
}

/// Fails when `dir`, the current folder used because no folder was named,
/// is one [`unservable_folder`] refuses.
fn refuse_implicit_folder(dir: &Path, command: &str) -> anyhow::Result<()> {
    let Some(what) = unservable_folder(dir) else { return Ok(()) };
    anyhow::bail!(
        "no folder to serve was named and the current folder, {}, is {what}; \
         name the project folder, e.g. `switchboard {command} /path/to/project`",
        dir.display()
    )
}

/// What `dir` (canonical) is when it is never served unless named on the
/// command line: the file system's root, the home folder (`$HOME`) or a
/// folder that holds it. The one rule for the working folder of a host
/// that started switchboard without a folder, and for a client's roots.
pub(crate) fn unservable_folder(dir: &Path) -> Option<&'static str> {
    let home =
        std::env::var_os("HOME").filter(|h| !h.is_empty()).and_then(|h| PathBuf::from(h).canonicalize().ok());
    if dir.parent().is_none() {
        Some("the root folder")
    } else if home.as_deref() == Some(dir) {
        Some("the home folder")
    } else if home.is_some_and(|home| home.starts_with(dir)) {
        Some("a folder that holds the home folder")
    } else {
        None
    }
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve MCP over stdio (newline-delimited JSON on stdin/stdout; logs on
    /// stderr), or over Streamable HTTP with --http.
    ///
    /// Over stdio, an MCP host starts `switchboard serve` for you; run by hand
    /// in a terminal, it prints one line on stderr saying what it serves and
    /// waits for a client on stdin (Ctrl-C stops it).
    Serve {
        /// Serve Streamable HTTP at /mcp instead of stdio: PORT (on
        /// 127.0.0.1), HOST:PORT (a name, resolved at start) or IP:PORT, e.g.
        /// 8080, localhost:8080, [::1]:8080. Port 0 picks a free port; the
        /// address bound is printed on stdout (`switchboard listening on
        /// http://ADDR/mcp`). GET /healthz and /readyz answer there too.
        /// Binding a non-loopback address needs --allow-host.
        #[arg(long, value_name = "ADDR", value_parser = ListenAddr::parse)]
        http: Option<ListenAddr>,
        /// Extra host names accepted in Host/Origin headers (DNS-rebinding
        /// protection allows only loopback names by default).
        #[arg(long = "allow-host", value_name = "HOST")]
        allow_hosts: Vec<String>,
        /// A browser origin (scheme://host[:port], e.g. https://app.example.com)
        /// whose pages may call the HTTP endpoint: CORS preflights are answered
        /// and responses carry Access-Control-Allow-Origin for it. Repeatable;
        /// none by default (no CORS headers).
        #[arg(long = "allow-origin", value_name = "ORIGIN", value_parser = listen::parse_origin)]
        allow_origins: Vec<String>,
        /// How HTTP requests are answered: SSE when the request can produce
        /// messages before its response (auto), always SSE, or always JSON.
        #[arg(long, value_enum, default_value_t = SseMode::Auto)]
        sse: SseMode,
        /// Serve built-in fixtures instead of a project folder.
        #[arg(long, value_enum)]
        fixtures: Option<Fixtures>,
        /// Serve handshake-era HTTP clients (2024-11-05 to 2025-11-25) without
        /// sessions: each request on its own (with `--sse auto`, SSE only for a
        /// request with a progress token).
        #[arg(long)]
        stateless: bool,
        /// Largest accepted message, in bytes (default: [limits]
        /// max_message_size, 4 MiB).
        #[arg(long)]
        max_message_size: Option<usize>,
        /// Items per page of every list.
        #[arg(long, default_value_t = 100)]
        page_size: usize,
        /// Serve GET /metrics over HTTP: Prometheus request counts, errors and
        /// latencies per method and per tool (also `[http] metrics = true`).
        #[arg(long)]
        metrics: bool,
        /// Where shared state lives: `memory` (this process, the default) or
        /// a Redis URL (`redis://127.0.0.1:6379`) shared by several switchboard
        /// instances behind one address: sessions, SSE events, handles,
        /// notifications and the cursor key.
        #[arg(long, value_name = "URL")]
        state: Option<String>,
        #[command(flatten)]
        project: ProjectArgs,
    },
    /// Check a configuration and everything it names; print every problem
    /// as file:line:column: message.
    Check {
        /// Print the problems as JSON (for editors and CI).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        project: ProjectArgs,
    },
    /// Print what would be served: tools, prompts, resource templates, resources.
    List {
        /// Print JSON (the definitions as clients see them).
        #[arg(long)]
        json: bool,
        /// List built-in fixtures instead of a project folder.
        #[arg(long, value_enum)]
        fixtures: Option<Fixtures>,
        #[command(flatten)]
        project: ProjectArgs,
    },
    /// Front another MCP server (a command over stdio, or a URL) and serve
    /// what it offers over stdio or HTTP.
    ///
    /// Every protocol revision is served whatever the upstream speaks, with
    /// switchboard's limits and metrics. `switchboard proxy -- COMMAND ARGS…`
    /// starts a stdio server (killed with switchboard); `switchboard proxy
    /// --url URL` speaks to a Streamable HTTP one.
    Proxy {
        /// The upstream's Streamable HTTP endpoint (instead of a command).
        #[arg(long)]
        url: Option<String>,
        /// Prefix for re-exported tool and prompt names (`PREFIX_name`).
        #[arg(long)]
        prefix: Option<String>,
        /// Serve Streamable HTTP at /mcp instead of stdio: PORT, HOST:PORT or
        /// IP:PORT, as for `serve --http`.
        #[arg(long, value_name = "ADDR", value_parser = ListenAddr::parse)]
        http: Option<ListenAddr>,
        /// Extra host names accepted in Host/Origin headers.
        #[arg(long = "allow-host", value_name = "HOST")]
        allow_hosts: Vec<String>,
        /// A browser origin whose pages may call the HTTP endpoint (CORS), as
        /// for `serve --allow-origin`.
        #[arg(long = "allow-origin", value_name = "ORIGIN", value_parser = listen::parse_origin)]
        allow_origins: Vec<String>,
        /// Serve GET /metrics over HTTP.
        #[arg(long)]
        metrics: bool,
        /// The upstream command and its arguments (after `--`).
        #[arg(last = true, value_name = "COMMAND")]
        command: Vec<String>,
    },
    /// Run one tool in process and print its result: text as text,
    /// structured content as indented JSON (--json: the whole result).
    ///
    /// Progress the tool reports is shown on stderr as it arrives (a bar on
    /// a terminal, else one `progress DONE/TOTAL: message` line each); stdout
    /// carries the result alone. The exit status says how it went (below).
    #[command(after_help = exit::HELP)]
    Call {
        /// The tool's name (`switchboard list` names them).
        tool: String,
        /// The arguments, a JSON object, e.g. '{"path": "README.md"}'.
        #[arg(long, default_value = "{}", value_parser = commands::parse_arguments)]
        args: serde_json::Value,
        /// Print the whole result as JSON, as the server sent it.
        #[arg(long)]
        json: bool,
        /// Call a tool of the built-in fixtures instead of a project folder
        /// (the demo's countdown reports progress).
        #[arg(long, value_enum, conflicts_with_all = ["dir", "config"])]
        fixtures: Option<Fixtures>,
        #[command(flatten)]
        project: ProjectArgs,
    },
    /// Write a commented starter switchboard.toml into DIR.
    ///
    /// As written it serves what no file at all serves; every other key is
    /// there, commented out, with its default. An existing file is left
    /// alone (exit status 4) unless --force.
    Init {
        /// The project folder (default: the current folder).
        #[arg(value_name = "DIR", default_value = ".")]
        dir: PathBuf,
        /// Replace an existing switchboard.toml (without it, an existing file
        /// is left alone and the exit status is 4).
        #[arg(long)]
        force: bool,
    },
    /// Print a shell completion script on stdout.
    ///
    /// e.g. `switchboard completions bash >
    /// ~/.local/share/bash-completion/completions/switchboard`, or for zsh a
    /// file `_switchboard` in a folder of $fpath.
    Completions {
        /// The shell to complete in.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the JSON Schema of switchboard.toml on stdout, for editors.
    ///
    /// `switchboard schema > switchboard.schema.json`, then a first line
    /// `#:schema ./switchboard.schema.json` in switchboard.toml (taplo, Even
    /// Better TOML).
    Schema,
    /// Print the manual page (roff) on stdout: `switchboard man | man -l -`.
    Man,
    /// Build an MCP Bundle (.mcpb) of this binary for one-click install in
    /// hosts such as Claude Desktop, and with --url the MCP Registry's
    /// server.json entry for it.
    ///
    /// The bundle holds manifest.json and this binary; installing it asks
    /// for the folder to serve and runs `switchboard serve FOLDER`. It is
    /// for the platform this binary was built for (build the release binary
    /// first: `cargo build --release`, then `target/release/switchboard
    /// bundle`).
    Bundle {
        /// Where to write the bundle.
        #[arg(long, value_name = "FILE", default_value = "switchboard.mcpb")]
        out: PathBuf,
        /// The URL the bundle will be downloaded from once published (a
        /// release asset): also write server.json (registryType mcpb, with
        /// the bundle's fileSha256).
        #[arg(long, value_name = "URL", requires = "registry_name")]
        url: Option<String>,
        /// The server's name in the registry (reverse DNS of a namespace you
        /// own, e.g. io.github.OWNER/switchboard).
        /// Needed with --url.
        #[arg(long, value_name = "NAME", requires = "url")]
        registry_name: Option<String>,
        /// Where to write server.json (default: beside the bundle).
        #[arg(long, value_name = "FILE", requires = "url")]
        server_json: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    // Started as the sandbox launcher of a command tool (hidden
    // subcommand `__sandbox-exec`): Landlock restricts the calling thread,
    // so this comes before any runtime or thread starts. It becomes the
    // program, or returns the exit status of its failure.
    if let Some(code) = switchboard_sandbox::launch_if_asked() {
        return ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    let cli = Cli::parse();
    // Logs go to stderr only: stdout carries nothing but MCP messages.
    let _telemetry = telemetry::init();
    let result = run(cli);
    // However the command ended (a signal, stdin closed, an error), no
    // child process outlives switchboard: kill every group still registered.
    switchboard_process::kill_all();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // Stopped by a signal: exit with 128 + its number (143 for SIGTERM).
            if let Some(stopped) = e.downcast_ref::<shutdown::Terminated>() {
                return ExitCode::from(stopped.exit_code());
            }
            // A closed stdout just means the client went away.
            if e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) {
                return ExitCode::SUCCESS;
            }
            eprintln!("switchboard: {e:#}");
            exit::code_of(&e).into()
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Serve {
            http,
            allow_hosts,
            allow_origins,
            sse,
            stateless,
            fixtures,
            max_message_size,
            page_size,
            metrics,
            state,
            project,
        } => serve::run(serve::ServeArgs {
            http,
            allow_hosts,
            allow_origins,
            sse,
            stateless,
            fixtures,
            max_message_size,
            page_size,
            metrics,
            state,
            project,
        }),
        Command::Check { json, project } => match project.source("check") {
            Ok(source) => check::run(&source, json),
            // No folder or configuration file to check: with --json, still
            // one document on stdout, then the same exit status.
            Err(error) if json => check::print_unchecked(error),
            Err(error) => Err(error),
        },
        Command::List { json, fixtures: Some(fixtures), .. } => {
            let server = serve::fixture_builder(
                ServerOptions::default(),
                fixtures,
                switchboard_server::state::MemoryStore::new(),
            )
            .build()
            .context("building the server")?;
            commands::print_listing(
                &commands::Listing {
                    server: &server,
                    skills: &[],
                    upstreams: None,
                    sandbox: None,
                    left_out: &[],
                    databases: &[],
                },
                json,
            )
        }
        Command::List { json, fixtures: None, project } => commands::list(&project.source("list")?, json),
        Command::Call { tool, args, json, fixtures: Some(fixtures), .. } => {
            commands::call_fixtures(fixtures, &tool, args, json)
        }
        Command::Call { tool, args, json, fixtures: None, project } => {
            commands::call(&project.source("call TOOL")?, &tool, args, json)
        }
        Command::Init { dir, force } => init::run(&dir, force),
        Command::Completions { shell } => {
            commands::completions(shell, &mut <Cli as clap::CommandFactory>::command())
        }
        Command::Schema => check::print_schema(),
        Command::Man => commands::man(<Cli as clap::CommandFactory>::command()),
        Command::Bundle { out, url, registry_name, server_json } => {
            bundle::run(&bundle::BundleArgs { out, url, registry_name, server_json })
        }
        Command::Proxy { url, prefix, http, allow_hosts, allow_origins, metrics, command } => {
            proxy::run(proxy::ProxyArgs { url, command, prefix, http, allow_hosts, allow_origins, metrics })
        }
    }
}

/// Turns configuration problems into one error, printing each on stderr.
pub(crate) fn report(problems: Vec<switchboard_config::Problem>) -> anyhow::Error {
    let cwd = std::env::current_dir().ok().and_then(|d| d.canonicalize().ok()).unwrap_or_default();
    for problem in &problems {
        eprintln!("{}", problem.clone().relative_to(&cwd));
    }
    let s = if problems.len() == 1 { "" } else { "s" };
    exit::config(anyhow::anyhow!(
        "{} problem{s} in the configuration (`switchboard check` lists them)",
        problems.len()
    ))
}
