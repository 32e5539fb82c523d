//! Serving a built server over a transport until it ends: Streamable HTTP
//! on an address (`serve --http`, `proxy --http`), and the banner that tells
//! a person in a terminal what is served. What `serve` and `proxy` share,
//! the runtime they run on included.
//!
//! Run by hand in a terminal, a stdio server would otherwise sit silent and
//! look hung: [`banner`] says on stderr what is served and how to stop.
//! stdout stays the protocol's (stdio) or carries the one line naming the
//! address bound (HTTP, real port included), so scripts and tests can ask
//! for port 0.

use std::io::IsTerminal as _;
use std::net::SocketAddr;

use anyhow::Context as _;
use switchboard_server::Server;

use crate::cli::SseMode;
use crate::cli::listen::ListenAddr;
use crate::exit;
use crate::shutdown::{Stop, Terminated};

/// The runtime `serve` and `proxy` run on. stdio runs on one thread: a
/// message is read, dispatched and answered without hopping between cores.
/// HTTP uses every core the process may run on ([`multi_threaded`]).
pub(crate) fn runtime(http: bool) -> std::io::Result<tokio::runtime::Runtime> {
    let cpus = || std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    if multi_threaded(http, cpus) {
        tokio::runtime::Builder::new_multi_thread().enable_all().build()
    } else {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    }
}

/// Whether to serve on the work-stealing runtime: HTTP on more than one
/// CPU (`cpus`: the process's affinity and its cgroup's quota, as the
/// standard library reads them). A process held to one core (`taskset`, a
/// container's single CPU) serves HTTP on the single-threaded runtime,
/// which runs the same tasks without the cross-thread bookkeeping one
/// worker never needs (measured: 22% less server CPU per 2026-07-28
/// request, README "Performance"). stdio never asks: reading the cgroup
/// files would be start-up work before the first answer.
fn multi_threaded(http: bool, cpus: impl FnOnce() -> usize) -> bool {
    http && cpus() > 1
}

/// How `--http` serves.
#[derive(Debug)]
pub(crate) struct HttpArgs {
    pub listen: ListenAddr,
    pub allow_hosts: Vec<String>,
    pub allow_origins: Vec<String>,
    pub sse: SseMode,
    pub stateless: bool,
}

/// Resolves and binds `http.listen` (a failure of either is exit status
/// 4), prints the address bound on stdout, and serves until a signal.
pub(crate) async fn serve_http(
    server: Server,
    http: HttpArgs,
    mut http_options: switchboard_http::HttpOptions,
    served: Served,
    stop: Stop,
) -> anyhow::Result<()> {
    let HttpArgs { listen, allow_hosts, allow_origins, sse, stateless } = http;
    let addr = resolve(&listen).await?;
    if !addr.ip().is_loopback() && allow_hosts.is_empty() && http_options.allowed_hosts.len() <= 3 {
        let given = match &listen {
            ListenAddr::Addr(_) => String::new(),
            ListenAddr::Name { host, .. } => {
                format!(" (--http {listen} resolves to it; e.g. --allow-host {host})")
            }
        };
        return Err(exit::usage(anyhow::anyhow!(
            "{addr} is not a loopback address: name the host names clients will use with --allow-host \
             (DNS-rebinding protection){given}, or bind 127.0.0.1"
        )));
    }
    if !addr.ip().is_loopback() && http_options.auth.is_none() {
        tracing::warn!(
            %addr,
            "serving a non-loopback address without authorization: anyone who can reach it can call every tool; \
             configure [http.auth] in switchboard.toml"
        );
        eprintln!(
            "switchboard: warning: {addr} is served without authorization ([http.auth] in switchboard.toml)"
        );
    }
    http_options.allowed_hosts.extend(allow_hosts);
    http_options.allowed_origins.extend(allow_origins);
    http_options.legacy_sessions = !stateless;
    http_options.response_mode = match sse {
        SseMode::Auto => switchboard_http::ResponseMode::Auto,
        SseMode::Always => switchboard_http::ResponseMode::Sse,
        SseMode::Never => switchboard_http::ResponseMode::Json,
    };
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("binding {addr} (--http {listen})"))
        .map_err(exit::io)?;
    let local = listener.local_addr().map_err(exit::io)?;
    let url = format!("http://{local}/mcp");
    // The one line on stdout in HTTP mode: where to connect (the port
    // bound, also when 0 was asked for).
    println!("switchboard listening on {url}");
    tracing::info!(%local, "switchboard serving MCP over Streamable HTTP");
    show_banner(&served, Some(&url));
    // On SIGTERM, SIGINT or SIGHUP the child processes are killed first
    // (so requests waiting on them end), then the server stops gracefully.
    let signalled = stop.clone().signalled();
    switchboard_http::serve_listener(server, listener, http_options, async move {
        signalled.await;
    })
    .await
    .context("serving HTTP")?;
    match stop.received() {
        Some(signal) => Err(Terminated(signal).into()),
        None => Ok(()),
    }
}

/// `listen`'s address; a name is resolved off the async threads. A name
/// that does not resolve is an I/O failure (4).
async fn resolve(listen: &ListenAddr) -> anyhow::Result<SocketAddr> {
    let listen = listen.clone();
    tokio::task::spawn_blocking(move || listen.resolve())
        .await
        .context("resolving the --http address")
        .and_then(|resolved| resolved)
        .map_err(exit::io)
}

/// What a server offers, for the banner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Served {
    /// The folder, `the demo fixtures`, `the upstream NAME`.
    pub what: String,
    pub tools: usize,
    pub prompts: usize,
    pub resources: usize,
}

impl Served {
    /// Counts what `server` offers now.
    pub(crate) fn new(what: String, server: &Server) -> Self {
        Self {
            what,
            tools: server.tools().len(),
            prompts: server.prompts().len(),
            resources: server.resources().len(),
        }
    }
}

/// The banner when `stdin_is_terminal` (a person ran switchboard; a host
/// gives it a pipe): one line saying what is served and how to stop. Over
/// stdio it also says that a host starts switchboard, since typing MCP by
/// hand is rarely what was meant; over HTTP, where (`url`).
pub(crate) fn banner(stdin_is_terminal: bool, served: &Served, url: Option<&str>) -> Option<String> {
    if !stdin_is_terminal {
        return None;
    }
    let plural = |n: usize, one: &str| if n == 1 { format!("1 {one}") } else { format!("{n} {one}s") };
    let counts = format!(
        "{}, {}, {}",
        plural(served.tools, "tool"),
        plural(served.prompts, "prompt"),
        plural(served.resources, "resource")
    );
    let how = match url {
        None => {
            "over stdio, waiting for an MCP client on stdin (a host starts switchboard for you: see README)"
                .to_owned()
        }
        Some(url) => format!("at {url}"),
    };
    Some(format!("switchboard: serving {} ({counts}) {how}; Ctrl-C stops", served.what))
}

/// Prints [`banner`] on stderr when stdin is a terminal.
pub(crate) fn show_banner(served: &Served, url: Option<&str>) {
    if let Some(line) = banner(std::io::stdin().is_terminal(), served, url) {
        eprintln!("{line}");
    }
}

/// `builder` with the metrics layer, when metrics are on.
pub(crate) fn with_metrics(
    builder: switchboard_server::ServerBuilder,
    metrics: Option<&std::sync::Arc<switchboard_metrics::Metrics>>,
) -> switchboard_server::ServerBuilder {
    match metrics {
        Some(metrics) => builder.layer(metrics.layer()),
        None => builder,
    }
}

/// The `/metrics` text of `metrics`, for the HTTP transport.
pub(crate) fn metrics_text(
    metrics: std::sync::Arc<switchboard_metrics::Metrics>,
) -> switchboard_http::MetricsText {
    switchboard_http::MetricsText(std::sync::Arc::new(move || metrics.render()))
}

#[cfg(test)]
mod tests {
    use super::{Served, banner, multi_threaded};

    #[test]
    fn http_uses_every_core_and_a_process_held_to_one_core_runs_on_one_thread() {
        assert!(multi_threaded(true, || 2));
        assert!(!multi_threaded(true, || 1));
        assert!(!multi_threaded(false, || unreachable!("stdio never reads the CPU count")));
    }

    fn served() -> Served {
        Served { what: "/src/app".into(), tools: 2, prompts: 1, resources: 0 }
    }

    #[test]
    fn the_banner_shows_only_when_stdin_is_a_terminal() {
        // A host starts switchboard with pipes: nothing on its stderr.
        assert_eq!(banner(false, &served(), None), None);
        assert_eq!(banner(false, &served(), Some("http://127.0.0.1:8080/mcp")), None);
        assert_eq!(
            banner(true, &served(), None).as_deref(),
            Some(
                "switchboard: serving /src/app (2 tools, 1 prompt, 0 resources) over stdio, waiting for an \
                 MCP client on stdin (a host starts switchboard for you: see README); Ctrl-C stops"
            )
        );
        assert_eq!(
            banner(true, &served(), Some("http://127.0.0.1:8080/mcp")).as_deref(),
            Some(
                "switchboard: serving /src/app (2 tools, 1 prompt, 0 resources) at http://127.0.0.1:8080/mcp; Ctrl-C stops"
            )
        );
    }
}
