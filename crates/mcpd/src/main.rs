//! `mcpd`: a ready-to-run MCP server.
//!
//! This crate is the binary only; everything reusable lives in `mcp-server`
//! and `mcp-types`. `mcpd serve` speaks MCP over stdio with an embedded
//! default set of tools (see [`default_tools`]), so it works with no
//! configuration: `cargo run --release -p mcpd -- serve`.

mod default_resources;
mod default_tools;

use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Parser, Subcommand};
use mcp_server::{Server, ServerOptions};

/// A Model Context Protocol server.
#[derive(Debug, Parser)]
#[command(name = "mcpd", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve MCP over stdio (newline-delimited JSON on stdin/stdout; logs on stderr).
    Serve {
        /// Largest accepted message, in bytes.
        #[arg(long, default_value_t = 4 * 1024 * 1024)]
        max_message_size: usize,
        /// Tools per page of tools/list.
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
        Command::Serve { max_message_size, page_size } => {
            let mut options = ServerOptions::default();
            options.max_message_size = max_message_size;
            options.page_size = page_size;
            let server = build_server(options)?;
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .context("starting the async runtime")?;
            tracing::info!(version = env!("CARGO_PKG_VERSION"), "mcpd serving MCP on stdio");
            runtime.block_on(server.serve_stdio()).context("serving stdio")?;
            // Handlers may still hold blocking work; do not wait for it.
            runtime.shutdown_background();
            Ok(())
        }
        Command::Tools => {
            let server = build_server(ServerOptions::default())?;
            println!("{}", serde_json::to_string_pretty(&server.tools())?);
            Ok(())
        }
    }
}

fn build_server(options: ServerOptions) -> anyhow::Result<Server> {
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
