//! `mcpd`: a ready-to-run MCP server.
//!
//! `mcpd serve [DIR]` turns a project folder into an MCP server over stdio
//! (or Streamable HTTP with `--http`), driven by `DIR/mcpd.toml` or, with
//! none, an embedded default that serves the folder read-only (see
//! `mcpd-config`). Changes on disk and edits of the configuration apply
//! live ([`live`]). `mcpd check`, `mcpd list` and `mcpd call` inspect the
//! same project ([`commands`]). `--fixtures` serves built-in demonstration,
//! conformance or benchmark fixtures instead. Everything reusable lives in
//! the library crates.

mod commands;
mod default_resources;
mod default_tools;
mod fixtures;
mod live;
mod network;
mod project;
mod proxy;
mod telemetry;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Parser, Subcommand, ValueEnum};
use mcp_server::{Server, ServerOptions};
use project::Project;

/// A Model Context Protocol server.
#[derive(Debug, Parser)]
#[command(name = "mcpd", version, about)]
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
    /// The configuration file (default: DIR/mcpd.toml, else the embedded
    /// default, which serves DIR read-only).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The folder to serve (default: the configuration file's folder with
    /// --config, else the current folder). Relative paths in the
    /// configuration resolve against it.
    #[arg(value_name = "DIR")]
    dir: Option<PathBuf>,
}

impl ProjectArgs {
    fn source(&self) -> anyhow::Result<live::Source> {
        let dir = match (&self.dir, &self.config) {
            (Some(dir), _) => dir.clone(),
            (None, Some(config)) => {
                config.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf()
            }
            (None, None) => PathBuf::from("."),
        };
        let dir = dir.canonicalize().with_context(|| format!("the folder to serve, {}", dir.display()))?;
        let config = match &self.config {
            Some(c) => {
                Some(c.canonicalize().with_context(|| format!("the configuration file {}", c.display()))?)
            }
            None => None,
        };
        Ok(live::Source { dir, config })
    }
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve MCP over stdio (newline-delimited JSON on stdin/stdout; logs on
    /// stderr), or over Streamable HTTP with --http.
    Serve {
        /// Serve Streamable HTTP on this address (e.g. 127.0.0.1:8080) at /mcp
        /// instead of stdio. Binding a non-loopback address needs --allow-host.
        #[arg(long, value_name = "ADDR")]
        http: Option<SocketAddr>,
        /// Extra host names accepted in Host/Origin headers (DNS-rebinding
        /// protection allows only loopback names by default).
        #[arg(long = "allow-host", value_name = "HOST")]
        allow_hosts: Vec<String>,
        /// How HTTP requests are answered: SSE when the request can produce
        /// messages before its response (auto), always SSE, or always JSON.
        #[arg(long, value_enum, default_value_t = SseMode::Auto)]
        sse: SseMode,
        /// Serve built-in fixtures instead of a project folder.
        #[arg(long, value_enum)]
        fixtures: Option<Fixtures>,
        /// Serve legacy HTTP clients without sessions (each request on its own).
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
        #[command(flatten)]
        project: ProjectArgs,
    },
    /// Check a configuration and everything it names; print every problem
    /// as file:line:column: message.
    Check {
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
    /// Front another MCP server: serve its tools, prompts and resources over
    /// stdio or HTTP, at every protocol revision, with mcpd's limits and
    /// metrics. `mcpd proxy -- COMMAND ARGS…` starts a stdio server;
    /// `mcpd proxy --url URL` speaks to a Streamable HTTP one.
    Proxy {
        /// The upstream's Streamable HTTP endpoint (instead of a command).
        #[arg(long)]
        url: Option<String>,
        /// Prefix for re-exported tool and prompt names (`PREFIX_name`).
        #[arg(long)]
        prefix: Option<String>,
        /// Serve Streamable HTTP on this address instead of stdio.
        #[arg(long, value_name = "ADDR")]
        http: Option<SocketAddr>,
        /// Extra host names accepted in Host/Origin headers.
        #[arg(long = "allow-host", value_name = "HOST")]
        allow_hosts: Vec<String>,
        /// Serve GET /metrics over HTTP.
        #[arg(long)]
        metrics: bool,
        /// The upstream command and its arguments (after `--`).
        #[arg(last = true, value_name = "COMMAND")]
        command: Vec<String>,
    },
    /// Run one tool locally and print its result as JSON (exit status 1 if
    /// the result is an error).
    Call {
        /// The tool's name.
        tool: String,
        /// The arguments, a JSON object.
        #[arg(long, default_value = "{}")]
        args: String,
        #[command(flatten)]
        project: ProjectArgs,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Logs go to stderr only: stdout carries nothing but MCP messages.
    let _telemetry = telemetry::init();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // A closed stdout just means the client went away.
            if e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) {
                return ExitCode::SUCCESS;
            }
            eprintln!("mcpd: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Serve {
            http,
            allow_hosts,
            sse,
            stateless,
            fixtures,
            max_message_size,
            page_size,
            metrics,
            project,
        } => {
            let mut options = ServerOptions::default();
            options.page_size = page_size;
            let mut http_options = mcp_http::HttpOptions::default();
            // Metrics are counted by a server layer and read at /metrics.
            let mut metrics = metrics.then(mcp_metrics::Metrics::new);
            let (server, live) = match fixtures {
                Some(fixtures) => {
                    if let Some(max) = max_message_size {
                        options.max_message_size = max;
                    }
                    (build_fixtures(options, fixtures, metrics.as_ref())?, None)
                }
                None => {
                    let source = project.source()?;
                    let mut loaded = Project::load(&source.dir, source.config.as_deref()).map_err(report)?;
                    let mut config = loaded.config.clone();
                    if let Some(max) = max_message_size {
                        config.limits.max_message_size = max;
                    }
                    loaded.config = config;
                    http_options.allowed_hosts.extend(loaded.config.http.allowed_hosts.iter().cloned());
                    http_options.auth = loaded.auth.clone();
                    if metrics.is_none() && loaded.config.http.metrics {
                        metrics = Some(mcp_metrics::Metrics::new());
                    }
                    let server = loaded.serve(options, |b| with_metrics(b, metrics.as_ref()))?;
                    (server, Some((loaded, source)))
                }
            };
            http_options.metrics = metrics.map(metrics_text);
            http_options.max_body = server.options().max_message_size;
            // stdio runs on one thread: a message is read, dispatched and
            // answered without hopping between cores. HTTP uses every core.
            let runtime = match http {
                None => tokio::runtime::Builder::new_current_thread().enable_all().build(),
                Some(_) => tokio::runtime::Builder::new_multi_thread().enable_all().build(),
            }
            .context("starting the async runtime")?;
            if let Some((loaded, source)) = live {
                runtime.spawn(live::run(server.clone(), loaded, source));
            }
            match http {
                None => {
                    tracing::info!(version = env!("CARGO_PKG_VERSION"), "mcpd serving MCP on stdio");
                    runtime.block_on(server.serve_stdio()).context("serving stdio")?;
                }
                Some(addr) => {
                    runtime.block_on(serve_http(server, addr, http_options, allow_hosts, sse, stateless))?
                }
            }
            // Handlers may still hold blocking work; do not wait for it.
            runtime.shutdown_background();
            Ok(())
        }
        Command::Check { project } => commands::check(&project.source()?),
        Command::List { json, fixtures: Some(fixtures), .. } => {
            commands::print_listing(&build_fixtures(ServerOptions::default(), fixtures, None)?, json)
        }
        Command::List { json, fixtures: None, project } => commands::list(&project.source()?, json),
        Command::Call { tool, args, project } => commands::call(&project.source()?, &tool, &args),
        Command::Proxy { url, prefix, http, allow_hosts, metrics, command } => {
            proxy::run(proxy::ProxyArgs { url, command, prefix, http, allow_hosts, metrics })
        }
    }
}

/// Turns configuration problems into one error, printing each on stderr.
pub(crate) fn report(problems: Vec<mcpd_config::Problem>) -> anyhow::Error {
    let cwd = std::env::current_dir().ok().and_then(|d| d.canonicalize().ok()).unwrap_or_default();
    for problem in &problems {
        eprintln!("{}", problem.clone().relative_to(&cwd));
    }
    let s = if problems.len() == 1 { "" } else { "s" };
    anyhow::anyhow!("{} problem{s} in the configuration (`mcpd check` lists them)", problems.len())
}

pub(crate) async fn serve_http(
    server: Server,
    addr: SocketAddr,
    mut http_options: mcp_http::HttpOptions,
    allow_hosts: Vec<String>,
    sse: SseMode,
    stateless: bool,
) -> anyhow::Result<()> {
    if !addr.ip().is_loopback() && allow_hosts.is_empty() && http_options.allowed_hosts.len() <= 3 {
        anyhow::bail!(
            "{addr} is not a loopback address: name the host names clients will use with --allow-host \
             (DNS-rebinding protection), or bind 127.0.0.1"
        );
    }
    if !addr.ip().is_loopback() && http_options.auth.is_none() {
        tracing::warn!(
            %addr,
            "serving a non-loopback address without authorization: anyone who can reach it can call every tool; \
             configure [http.auth] in mcpd.toml"
        );
        eprintln!("mcpd: warning: {addr} is served without authorization ([http.auth] in mcpd.toml)");
    }
    http_options.allowed_hosts.extend(allow_hosts);
    http_options.legacy_sessions = !stateless;
    http_options.response_mode = match sse {
        SseMode::Auto => mcp_http::ResponseMode::Auto,
        SseMode::Always => mcp_http::ResponseMode::Sse,
        SseMode::Never => mcp_http::ResponseMode::Json,
    };
    let listener = tokio::net::TcpListener::bind(addr).await.with_context(|| format!("binding {addr}"))?;
    let local = listener.local_addr()?;
    // The one line on stdout in HTTP mode: where to connect.
    println!("mcpd listening on http://{local}/mcp");
    tracing::info!(%local, "mcpd serving MCP over Streamable HTTP");
    mcp_http::serve_listener(server, listener, http_options, shutdown_signal()).await.context("serving HTTP")
}

/// Completes on Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
}

/// `builder` with the metrics layer, when metrics are on.
pub(crate) fn with_metrics(
    builder: mcp_server::ServerBuilder,
    metrics: Option<&std::sync::Arc<mcp_metrics::Metrics>>,
) -> mcp_server::ServerBuilder {
    match metrics {
        Some(metrics) => builder.layer(metrics.layer()),
        None => builder,
    }
}

pub(crate) fn metrics_text(metrics: std::sync::Arc<mcp_metrics::Metrics>) -> mcp_http::MetricsText {
    mcp_http::MetricsText(std::sync::Arc::new(move || metrics.render()))
}

/// A server over built-in fixtures.
fn build_fixtures(
    options: ServerOptions,
    fixtures: Fixtures,
    metrics: Option<&std::sync::Arc<mcp_metrics::Metrics>>,
) -> anyhow::Result<Server> {
    match fixtures {
        Fixtures::Conformance => {
            let builder = Server::builder("mcpd-conformance", env!("CARGO_PKG_VERSION")).options(options);
            return with_metrics(fixtures::conformance(builder), metrics)
                .build()
                .context("building the conformance server");
        }
        Fixtures::Bench => {
            let builder = Server::builder("mcpd-bench", env!("CARGO_PKG_VERSION")).options(options);
            return with_metrics(fixtures::bench(builder), metrics)
                .build()
                .context("building the bench server");
        }
        Fixtures::Demo => {}
    }
    let mut builder = Server::builder("mcpd", env!("CARGO_PKG_VERSION"))
        .title("mcpd")
        .description("A ready-to-run MCP server")
        .instructions(
            "mcpd's default tools: echo, add, word_count, countdown (reports progress, can be cancelled), \
             and a shopping basket kept under a handle (create_basket, add_item, view_basket). \
             Resources: mcpd://server/info, mcpd://server/guide and mcpd://tools/{name}. \
             Prompt: code_review.",
        )
        .enable_logging()
        .options(options);
    let tools = default_tools::all();
    let definitions: Vec<_> = tools.iter().map(|t| t.definition().clone()).collect();
    let names: Vec<String> = definitions.iter().map(|t| t.name.clone()).collect();
    for tool in tools {
        builder = builder.tool(tool);
    }
    for resource in default_resources::resources(&names) {
        builder = builder.resource(resource);
    }
    builder = builder.resource_template(default_resources::tool_template(definitions));
    builder = builder.prompt(default_resources::code_review());
    with_metrics(builder, metrics).build().context("building the server")
}
