//! `mcpd`: a ready-to-run MCP server.
//!
//! This crate is the binary only; everything reusable lives in `mcp-server`
//! and `mcp-types`. `mcpd serve` speaks MCP over stdio with an embedded
//! default set of tools (see [`default_tools`]), so it works with no
//! configuration: `cargo run --release -p mcpd -- serve`.

mod default_resources;
mod default_tools;
mod fixtures;

use std::net::SocketAddr;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Parser, Subcommand, ValueEnum};
use mcp_server::{Server, ServerOptions};

/// A Model Context Protocol server.
#[derive(Debug, Parser)]
#[command(name = "mcpd", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Fixtures {
    /// The embedded default tools, resources and prompt.
    Default,
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
        /// What to serve: the embedded defaults, or the official conformance
        /// suite's fixtures.
        #[arg(long, value_enum, default_value_t = Fixtures::Default)]
        fixtures: Fixtures,
        /// Serve legacy HTTP clients without sessions (each request on its own).
        #[arg(long)]
        stateless: bool,
        /// Largest accepted message, in bytes.
        #[arg(long, default_value_t = 4 * 1024 * 1024)]
        max_message_size: usize,
        /// Items per page of every list.
        #[arg(long, default_value_t = 100)]
        page_size: usize,
    },
    /// Print the embedded tools' definitions as JSON and exit.
    Tools,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Logs go to stderr only: stdout carries nothing but MCP messages.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("MCPD_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
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
        Command::Serve { http, allow_hosts, sse, stateless, fixtures, max_message_size, page_size } => {
            let mut options = ServerOptions::default();
            options.max_message_size = max_message_size;
            options.page_size = page_size;
            let server = build_server(options, fixtures)?;
            // stdio runs on one thread: a message is read, dispatched and
            // answered without hopping between cores. HTTP uses every core.
            let runtime = match http {
                None => tokio::runtime::Builder::new_current_thread().enable_all().build(),
                Some(_) => tokio::runtime::Builder::new_multi_thread().enable_all().build(),
            }
            .context("starting the async runtime")?;
            match http {
                None => {
                    tracing::info!(version = env!("CARGO_PKG_VERSION"), "mcpd serving MCP on stdio");
                    runtime.block_on(server.serve_stdio()).context("serving stdio")?;
                }
                Some(addr) => {
                    if !addr.ip().is_loopback() && allow_hosts.is_empty() {
                        anyhow::bail!(
                            "{addr} is not a loopback address: name the host names clients will use with --allow-host \
                             (DNS-rebinding protection), or bind 127.0.0.1"
                        );
                    }
                    let mut http_options = mcp_http::HttpOptions::default();
                    http_options.allowed_hosts.extend(allow_hosts);
                    http_options.legacy_sessions = !stateless;
                    http_options.response_mode = match sse {
                        SseMode::Auto => mcp_http::ResponseMode::Auto,
                        SseMode::Always => mcp_http::ResponseMode::Sse,
                        SseMode::Never => mcp_http::ResponseMode::Json,
                    };
                    runtime.block_on(async move {
                        let listener = tokio::net::TcpListener::bind(addr)
                            .await
                            .with_context(|| format!("binding {addr}"))?;
                        let local = listener.local_addr()?;
                        // The one line on stdout in HTTP mode: where to connect.
                        println!("mcpd listening on http://{local}/mcp");
                        tracing::info!(%local, "mcpd serving MCP over Streamable HTTP");
                        mcp_http::serve_listener(server, listener, http_options, shutdown_signal())
                            .await
                            .context("serving HTTP")
                    })?;
                }
            }
            // Handlers may still hold blocking work; do not wait for it.
            runtime.shutdown_background();
            Ok(())
        }
        Command::Tools => {
            let server = build_server(ServerOptions::default(), Fixtures::Default)?;
            println!("{}", serde_json::to_string_pretty(&server.tools())?);
            Ok(())
        }
    }
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

fn build_server(options: ServerOptions, fixtures: Fixtures) -> anyhow::Result<Server> {
    match fixtures {
        Fixtures::Conformance => {
            let builder = Server::builder("mcpd-conformance", env!("CARGO_PKG_VERSION")).options(options);
            return fixtures::conformance(builder).build().context("building the conformance server");
        }
        Fixtures::Bench => {
            let builder = Server::builder("mcpd-bench", env!("CARGO_PKG_VERSION")).options(options);
            return fixtures::bench(builder).build().context("building the bench server");
        }
        Fixtures::Default => {}
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
    builder.build().context("building the server")
}
