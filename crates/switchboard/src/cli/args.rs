//! The argument groups of the subcommands and the values they take: what
//! `serve`, `proxy` and `bundle` are asked to do, which project a command
//! works on, and the fixtures and SSE modes to choose from.

// The `///` comments here are the help text clap prints as written: brackets
// (`[::1]:8080`, `[limits]`) and bare URLs in them are for a terminal, not
// rustdoc links.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::bare_urls)]

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::ValueEnum;
use serde_json::Value;

use super::listen::{self, ListenAddr};
use crate::exit;
use crate::project::{Source, unservable_folder};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Fixtures {
    /// Demonstration tools (echo, add, countdown, a basket under a handle), resources and a prompt.
    Demo,
    /// The MCP conformance suite's fixture tools, resources and prompts.
    Conformance,
    /// The shared performance harness's fixtures (echo, add, 10,000 resources, greet).
    Bench,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SseMode {
    /// SSE for tools/call, progress, logging and listen streams; JSON otherwise.
    Auto,
    /// Always SSE.
    Always,
    /// Always JSON.
    Never,
}

/// Which project to serve.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct ProjectArgs {
    /// The configuration file (default: DIR/switchboard.toml, else the embedded
    /// default, which serves DIR read-only).
    #[arg(long, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,
    /// The folder to serve (default: the configuration file's folder with
    /// --config, else the current folder, unless that is / or the home
    /// folder; `serve` over stdio serves the roots of a client that
    /// declares them). Relative paths in the configuration resolve against it.
    #[arg(value_name = "DIR")]
    pub(crate) dir: Option<PathBuf>,
}

impl ProjectArgs {
    /// The folder and configuration file `switchboard COMMAND` works on
    /// (`command` is named in the refusal's example).
    ///
    /// With neither a folder nor `--config`, the current folder is used,
    /// except `/` or the home folder: MCP hosts often start servers there,
    /// and serving (scanning, watching, running tools in) all of it is never
    /// what was meant. A folder named explicitly is used as given.
    pub(crate) fn source(&self, command: &str) -> anyhow::Result<Source> {
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
        Ok(Source { dir, config, roots: Vec::new() })
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

/// What `switchboard serve` was asked to do.
#[derive(Debug, clap::Args)]
pub(crate) struct ServeArgs {
    /// Serve Streamable HTTP at /mcp instead of stdio: PORT (on
    /// 127.0.0.1), HOST:PORT (a name, resolved at start) or IP:PORT, e.g.
    /// 8080, localhost:8080, [::1]:8080. Port 0 picks a free port; the
    /// address bound is printed on stdout (`switchboard listening on
    /// http://ADDR/mcp`). GET /healthz and /readyz answer there too.
    /// Binding a non-loopback address needs --allow-host.
    #[arg(long, value_name = "ADDR", value_parser = ListenAddr::parse)]
    pub(crate) http: Option<ListenAddr>,
    /// Extra host names accepted in Host/Origin headers (DNS-rebinding
    /// protection allows only loopback names by default).
    #[arg(long = "allow-host", value_name = "HOST")]
    pub(crate) allow_hosts: Vec<String>,
    /// A browser origin (scheme://host[:port], e.g. https://app.example.com)
    /// whose pages may call the HTTP endpoint: CORS preflights are answered
    /// and responses carry Access-Control-Allow-Origin for it. Repeatable;
    /// none by default (no CORS headers).
    #[arg(long = "allow-origin", value_name = "ORIGIN", value_parser = listen::parse_origin)]
    pub(crate) allow_origins: Vec<String>,
    /// How HTTP requests are answered: SSE when the request can produce
    /// messages before its response (auto), always SSE, or always JSON.
    #[arg(long, value_enum, default_value_t = SseMode::Auto)]
    pub(crate) sse: SseMode,
    /// Serve built-in fixtures instead of a project folder.
    #[arg(long, value_enum)]
    pub(crate) fixtures: Option<Fixtures>,
    /// Serve handshake-era HTTP clients (2024-11-05 to 2025-11-25) without
    /// sessions: each request on its own (with `--sse auto`, SSE only for a
    /// request with a progress token).
    #[arg(long)]
    pub(crate) stateless: bool,
    /// Largest accepted message, in bytes (default: [limits]
    /// max_message_size, 4 MiB).
    #[arg(long)]
    pub(crate) max_message_size: Option<usize>,
    /// Items per page of every list.
    #[arg(long, default_value_t = 100)]
    pub(crate) page_size: usize,
    /// Serve GET /metrics over HTTP: Prometheus request counts, errors and
    /// latencies per method and per tool (also `[http] metrics = true`).
    #[arg(long)]
    pub(crate) metrics: bool,
    /// Where shared state lives: `memory` (this process, the default) or
    /// a Redis URL (`redis://127.0.0.1:6379`) shared by several switchboard
    /// instances behind one address: sessions, SSE events, handles,
    /// notifications and the cursor key.
    #[arg(long, value_name = "URL")]
    pub(crate) state: Option<String>,
    #[command(flatten)]
    pub(crate) project: ProjectArgs,
}

/// What `switchboard proxy` was asked to do.
#[derive(Debug, clap::Args)]
pub(crate) struct ProxyArgs {
    /// The upstream's Streamable HTTP endpoint (instead of a command).
    #[arg(long)]
    pub(crate) url: Option<String>,
    /// Prefix for re-exported tool and prompt names (`PREFIX_name`).
    #[arg(long)]
    pub(crate) prefix: Option<String>,
    /// Serve Streamable HTTP at /mcp instead of stdio: PORT, HOST:PORT or
    /// IP:PORT, as for `serve --http`.
    #[arg(long, value_name = "ADDR", value_parser = ListenAddr::parse)]
    pub(crate) http: Option<ListenAddr>,
    /// Extra host names accepted in Host/Origin headers.
    #[arg(long = "allow-host", value_name = "HOST")]
    pub(crate) allow_hosts: Vec<String>,
    /// A browser origin whose pages may call the HTTP endpoint (CORS), as
    /// for `serve --allow-origin`.
    #[arg(long = "allow-origin", value_name = "ORIGIN", value_parser = listen::parse_origin)]
    pub(crate) allow_origins: Vec<String>,
    /// Serve GET /metrics over HTTP.
    #[arg(long)]
    pub(crate) metrics: bool,
    /// The upstream command and its arguments (after `--`).
    #[arg(last = true, value_name = "COMMAND")]
    pub(crate) command: Vec<String>,
}

/// What `switchboard bundle` was asked for.
#[derive(Debug, clap::Args)]
pub(crate) struct BundleArgs {
    /// Where to write the bundle.
    #[arg(long, value_name = "FILE", default_value = "switchboard.mcpb")]
    pub(crate) out: PathBuf,
    /// The URL the bundle will be downloaded from once published (a
    /// release asset): also write server.json (registryType mcpb, with
    /// the bundle's fileSha256).
    #[arg(long, value_name = "URL", requires = "registry_name")]
    pub(crate) url: Option<String>,
    /// The server's name in the registry (reverse DNS of a namespace you
    /// own, e.g. io.github.OWNER/switchboard).
    /// Needed with --url.
    #[arg(long, value_name = "NAME", requires = "url")]
    pub(crate) registry_name: Option<String>,
    /// Where to write server.json (default: beside the bundle).
    #[arg(long, value_name = "FILE", requires = "url")]
    pub(crate) server_json: Option<PathBuf>,
}

/// `--args`: a JSON object (clap's value parser, so a bad value is a
/// usage error, exit status 2).
pub(crate) fn parse_arguments(text: &str) -> Result<Value, String> {
    let arguments: Value =
        serde_json::from_str(text).map_err(|e| format!("--args is not valid JSON: {e}"))?;
    if !arguments.is_object() {
        return Err("--args must be a JSON object, like '{\"path\": \"README.md\"}'".to_owned());
    }
    Ok(arguments)
}
