//! The command line, defined once: the clap definition of every subcommand
//! and its arguments ([`args`]), the `--http` address and `--allow-origin`
//! values ([`listen`]), and the shell completions ([`complete`]) and manual
//! page ([`man`]) generated from the same definition, so neither can drift
//! from the parser.

pub(crate) mod args;
pub(crate) mod complete;
pub(crate) mod listen;
pub(crate) mod man;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::exit;
pub(crate) use args::{BundleArgs, Fixtures, ProjectArgs, ProxyArgs, ServeArgs, SseMode, parse_arguments};

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
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Serve MCP over stdio (newline-delimited JSON on stdin/stdout; logs on
    /// stderr), or over Streamable HTTP with --http.
    ///
    /// Over stdio, an MCP host starts `switchboard serve` for you; run by hand
    /// in a terminal, it prints one line on stderr saying what it serves and
    /// waits for a client on stdin (Ctrl-C stops it).
    Serve(ServeArgs),
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
    Proxy(ProxyArgs),
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
        #[arg(long, default_value = "{}", value_parser = parse_arguments)]
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
    Bundle(BundleArgs),
}

/// The command line of this process, parsed (a usage error ends the process
/// with clap's message and exit status 2).
pub(crate) fn parse() -> Cli {
    Cli::parse()
}
