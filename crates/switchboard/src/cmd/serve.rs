//! `switchboard serve`: builds the server (project folder or fixtures), its
//! shared state, metrics and transport, and runs it until its input ends
//! or a signal arrives (SIGTERM, SIGINT, SIGHUP: see [`crate::shutdown`];
//! the child processes of command tools are killed then).
//!
//! Run by hand in a terminal, a stdio server would otherwise sit silent and
//! look hung: [`banner`] says on stderr what is served and how to stop.
//! stdout stays the protocol's (stdio) or carries the one line naming the
//! address bound (HTTP, real port included), so scripts and tests can ask
//! for port 0.

use std::io::IsTerminal as _;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use switchboard_server::state::{MemoryStore, StateStore};
use switchboard_server::{Server, ServerOptions};

use crate::listen::ListenAddr;
use crate::project::Project;
use crate::shutdown::{Stop, Terminated};
use crate::{
    Fixtures, ProjectArgs, SseMode, default_resources, default_tools, exit, fixtures, live, report, roots,
};

/// How long serving waits for the upstreams' first connection attempts.
const UPSTREAM_GRACE: Duration = Duration::from_secs(5);

/// How long serving waits for the first scan of the served files (and
/// the watches on its folders) before answering a host: a project of a few
/// thousand files is indexed and watched in that time, so its first
/// `tools/list` already has the tools found by the scan (zero-config
/// databases) and an edit made right after `initialize` is seen. A larger
/// folder is served at once: a list or a completion asked during the scan
/// waits for it, and the tools it finds are announced with `list_changed`.
const FIRST_SCAN_GRACE: Duration = Duration::from_millis(100);
/// The same wait when a person ran `serve` in a terminal: longer, so the
/// banner counts the files.
const FIRST_SCAN_GRACE_IN_A_TERMINAL: Duration = Duration::from_millis(500);

/// What `switchboard serve` was asked to do.
#[derive(Debug)]
pub(crate) struct ServeArgs {
    pub http: Option<ListenAddr>,
    pub allow_hosts: Vec<String>,
    pub allow_origins: Vec<String>,
    pub sse: SseMode,
    pub stateless: bool,
    pub fixtures: Option<Fixtures>,
    pub max_message_size: Option<usize>,
    pub page_size: usize,
    pub metrics: bool,
    pub state: Option<String>,
    pub project: ProjectArgs,
}

/// The state every instance shares: in memory for one process, or a Redis
/// server for several behind one address.
struct Shared {
    store: Arc<dyn StateStore>,
    /// Whether other processes share it (then sessions, events and the
    /// cursor key go through it too).
    distributed: bool,
}

async fn connect_state(url: Option<&str>) -> anyhow::Result<Shared> {
    match url {
        None | Some("memory") | Some("memory://") => {
            Ok(Shared { store: MemoryStore::new(), distributed: false })
        }
        Some(url) if url.starts_with("redis://") || url.starts_with("rediss://") => {
            // Connects in the background: an instance starts (and serves
            // what needs no shared state, with /readyz at 503) while Redis
            // is down, and serves shared state as soon as it is back.
            let store = switchboard_state_redis::RedisStore::start(url, "switchboard")
                .with_context(|| format!("the state store at {}", redacted(url)))?;
            Ok(Shared { store, distributed: true })
        }
        Some(other) => {
            Err(exit::usage(anyhow::anyhow!("--state takes memory or a redis:// URL, not {other:?}")))
        }
    }
}

/// How long starting waits for the shared state store before it serves
/// without it.
const STARTUP_WAIT: Duration = Duration::from_secs(2);

/// The cursor key every instance shares, tried with backoff for up to
/// `wait` (`None` when the store did not answer in time).
async fn shared_cursor_key(store: &Arc<dyn StateStore>, wait: Duration) -> Option<[u8; 32]> {
    let deadline = tokio::time::Instant::now().checked_add(wait);
    let mut delay = Duration::from_millis(50);
    loop {
        match switchboard_server::state::shared_secret(store.as_ref(), "cursor").await {
            Ok(key) => return Some(key),
            Err(e) if deadline.is_some_and(|d| tokio::time::Instant::now() + delay > d) => {
                tracing::warn!(error = %e, "starting without the state store; retrying in the background");
                eprintln!(
                    "switchboard: the state store does not answer ({e}); serving without it until it does"
                );
                return None;
            }
            Err(_) => {}
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(Duration::from_secs(2));
    }
}

/// What `/readyz` adds: the upstreams' states (see
/// `crate::upstreams::readiness`) when there are upstreams, and the
/// databases' (`"databases"`, `"databasesNotOpen"`) when there are
/// databases. `/readyz` stays 200 while they are down: they are isolated,
/// not a reason to take the server out of rotation.
fn readiness(
    gateway: Option<switchboard_proxy::Gateway>,
    databases: switchboard_sql::serve::Databases,
) -> switchboard_http::Readiness {
    let upstreams = gateway.map(crate::upstreams::readiness);
    switchboard_http::Readiness(Arc::new(move || {
        let mut body = upstreams.as_ref().map_or_else(|| serde_json::json!({}), |u| (u.0)());
        let statuses = databases.statuses();
        if !statuses.is_empty() {
            let not_open: Vec<&str> = statuses
                .iter()
                .filter(|s| s.state != switchboard_sql::serve::DatabaseState::Open)
                .map(|s| s.name.as_str())
                .collect();
            body["databases"] = statuses.iter().map(crate::databases::status_json).collect();
            body["databasesNotOpen"] = serde_json::json!(not_open);
        }
        body
    }))
}

/// `url` without its credentials (`redis://***@host:port`), for messages.
fn redacted(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => format!("{}***{}", &url[..scheme + 3], &url[at..]),
        _ => url.to_owned(),
    }
}

pub(crate) fn run(args: ServeArgs) -> anyhow::Result<()> {
    // stdio runs on one thread: a message is read, dispatched and answered
    // without hopping between cores. HTTP uses every core.
    let runtime = match args.http {
        None => tokio::runtime::Builder::new_current_thread().enable_all().build(),
        Some(_) => tokio::runtime::Builder::new_multi_thread().enable_all().build(),
    }
    .context("starting the async runtime")?;
    let shared = runtime.block_on(connect_state(args.state.as_deref()))?;
    let mut options = ServerOptions::default();
    options.page_size = args.page_size;
    // Every instance signs cursors with the same key: read it now if the
    // store answers soon, else adopt it once the store is back.
    let cursor_key =
        shared.distributed.then(|| runtime.block_on(shared_cursor_key(&shared.store, STARTUP_WAIT)));
    options.cursor_key = cursor_key.flatten();
    let mut http_options = switchboard_http::HttpOptions::default();
    if shared.distributed {
        http_options.state = Some(Arc::clone(&shared.store));
    }
    // Metrics are counted by a server layer and read at /metrics.
    let mut metrics = args.metrics.then(switchboard_metrics::Metrics::new);
    let decorate = |builder: switchboard_server::ServerBuilder,
                    metrics: Option<&Arc<switchboard_metrics::Metrics>>| {
        let builder = with_metrics(builder, metrics);
        if shared.distributed { builder.state(Arc::clone(&shared.store)) } else { builder }
    };
    let _guard = runtime.enter();
    // Over stdio with no folder and no --config, the client's roots say what
    // to serve (see `roots`).
    let follows_roots = args.fixtures.is_none()
        && args.http.is_none()
        && args.project.dir.is_none()
        && args.project.config.is_none();
    let roots_start = follows_roots.then(roots::Start::new).transpose()?;
    let (notices, noticed) = tokio::sync::mpsc::unbounded_channel();
    let (server, live, what) = match args.fixtures {
        Some(fixtures) => {
            // The `[limits]` of a configuration named with --config bind
            // the fixtures too; without one they keep the library's.
            if let Some(config) = &args.project.config {
                let dir = config.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
                let config = switchboard_config::Config::load(dir, Some(config)).map_err(report)?;
                options = crate::network::server_options(&config.limits, options);
            }
            if let Some(max) = args.max_message_size {
                options.max_message_size = max;
            }
            let builder = fixture_builder(options, fixtures, Arc::clone(&shared.store));
            let what = format!("the {} fixtures", fixtures_name(fixtures));
            let server = decorate(builder, metrics.as_ref()).build().context("building the server")?;
            if matches!(fixtures, Fixtures::Conformance) {
                fixtures::attach(&server);
            }
            (server, None, what)
        }
        None => {
            let source = match &roots_start {
                Some(start) => start.source.clone(),
                None => args.project.source("serve")?,
            };
            let what = match &roots_start {
                Some(start) if start.refused.is_some() => "the client's roots (none yet)".to_owned(),
                Some(_) => format!("{} until the client names its roots", source.dir.display()),
                None => source.dir.display().to_string(),
            };
            let mut loaded = Project::load(&source.dir, source.config.as_deref()).map_err(report)?;
            if let Some(max) = args.max_message_size {
                loaded.config.limits.max_message_size = max;
            }
            http_options.allowed_hosts.extend(loaded.config.http.allowed_hosts.iter().cloned());
            http_options.auth = loaded.auth.clone();
            if metrics.is_none() && loaded.config.http.metrics {
                metrics = Some(switchboard_metrics::Metrics::new());
            }
            // Databases open in the background; the first lists wait a
            // little for them (one that is down or slow joins later, with
            // list_changed, as upstreams do).
            loaded.start_databases();
            runtime.block_on(loaded.wait_databases(Some(UPSTREAM_GRACE)));
            let server = loaded.serve(options, |b| {
                let b = decorate(b, metrics.as_ref());
                if roots_start.is_some() { b.on_client_notification(roots::hook(notices)) } else { b }
            })?;
            // Upstreams connect in the background; the first lists wait a
            // little for them (one that is down or slow joins later, with
            // list_changed).
            loaded.start_upstreams();
            let gateway = loaded.gateway.clone().filter(|_| !loaded.upstreams.is_empty());
            if let Some(gateway) = &gateway {
                runtime.block_on(gateway.wait_attempted(UPSTREAM_GRACE));
            }
            // Databases too (zero-config ones join after the scan: the
            // answer reads them live).
            http_options.readiness = Some(readiness(gateway, loaded.databases.clone()));
            (server, Some((loaded, source)), what)
        }
    };
    if cursor_key.is_some_and(|k| k.is_none()) {
        let (server, store) = (server.clone(), Arc::clone(&shared.store));
        runtime.spawn(async move {
            let key = shared_cursor_key(&store, Duration::MAX).await.expect("waits until the store answers");
            server.set_cursor_key(key);
            tracing::info!("the state store answers: cursors are signed with the shared key");
        });
    }
    // Ends stdio serving when a client without roots meets a refused
    // working folder (`roots::follow`).
    let mut refusal: Option<tokio::sync::oneshot::Receiver<anyhow::Error>> = None;
    http_options.metrics = metrics.map(metrics_text);
    http_options.max_body = server.options().max_message_size;
    // The files are listed from their index (not registered): counted apart.
    let mut listed_files = None;
    if let Some((loaded, source)) = live {
        listed_files = loaded.files.clone();
        let (scanned, first_scan) = tokio::sync::oneshot::channel();
        let retarget = roots_start.as_ref().map(|start| {
            let (retarget, retargeted) = tokio::sync::mpsc::channel(4);
            let (fatal, fatal_rx) = tokio::sync::oneshot::channel();
            let empty = start.empty.path().to_path_buf();
            let named = Arc::clone(&start.named);
            runtime.spawn(roots::follow(noticed, retarget, empty, start.refused.clone(), named, fatal));
            refusal = Some(fatal_rx);
            retargeted
        });
        runtime.spawn(live::run(server.clone(), loaded, source, scanned, retarget));
        // A large folder must not hold up `initialize` (see FIRST_SCAN_GRACE).
        let grace =
            if std::io::stdin().is_terminal() { FIRST_SCAN_GRACE_IN_A_TERMINAL } else { FIRST_SCAN_GRACE };
        let _ = runtime.block_on(tokio::time::timeout(grace, first_scan));
    }
    // From here a signal kills the tools' processes and stops the server
    // (without handlers, it would kill switchboard at once and leave them running).
    let stop = Stop::listen();
    let mut served = Served::new(what, &server);
    served.resources += listed_files.map_or(0, |f| f.len());
    let result = match args.http {
        None => {
            tracing::info!(version = env!("CARGO_PKG_VERSION"), "switchboard serving MCP on stdio");
            show_banner(&served, None);
            runtime.block_on(stop.run(serve_stdio(&server, roots_start.as_ref(), refusal)))
        }
        Some(listen) => {
            let http = HttpArgs {
                listen,
                allow_hosts: args.allow_hosts,
                allow_origins: args.allow_origins,
                sse: args.sse,
                stateless: args.stateless,
            };
            runtime.block_on(serve_http(server, http, http_options, served, stop))
        }
    };
    // Handlers may still hold blocking work; do not wait for it.
    drop(_guard);
    runtime.shutdown_background();
    result
}

/// Serves stdio until the client goes away; when following a client's
/// roots, ends with the refusal of the working folder if a client without
/// roots arrived (`refusal`) or none ever named roots (`Start::at_end`).
async fn serve_stdio(
    server: &Server,
    roots_start: Option<&roots::Start>,
    refusal: Option<tokio::sync::oneshot::Receiver<anyhow::Error>>,
) -> anyhow::Result<()> {
    let refused = async {
        match refusal {
            Some(refusal) => match refusal.await {
                Ok(error) => error,
                // The follower ended without refusing.
                Err(_) => std::future::pending().await,
            },
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        served = server.serve_stdio() => {
            served.context("serving stdio")?;
            roots_start.map_or(Ok(()), roots::Start::at_end)
        }
        refused = refused => Err(refused),
    }
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

/// The fixtures' name as `--fixtures` takes it.
fn fixtures_name(fixtures: Fixtures) -> String {
    use clap::ValueEnum as _;
    fixtures.to_possible_value().map_or_else(|| format!("{fixtures:?}"), |v| v.get_name().to_owned())
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

pub(crate) fn metrics_text(
    metrics: std::sync::Arc<switchboard_metrics::Metrics>,
) -> switchboard_http::MetricsText {
    switchboard_http::MetricsText(std::sync::Arc::new(move || metrics.render()))
}

/// A server builder over built-in fixtures (the demo's baskets live in `state`).
pub(crate) fn fixture_builder(
    options: ServerOptions,
    fixtures: Fixtures,
    state: Arc<dyn StateStore>,
) -> switchboard_server::ServerBuilder {
    match fixtures {
        Fixtures::Conformance => {
            let builder =
                Server::builder("switchboard-conformance", env!("CARGO_PKG_VERSION")).options(options);
            // With the skills of the suite's sep-2640-skills-* scenarios.
            return crate::skills::fixture(fixtures::conformance(builder));
        }
        Fixtures::Bench => {
            let builder = Server::builder("switchboard-bench", env!("CARGO_PKG_VERSION")).options(options);
            return fixtures::bench(builder);
        }
        Fixtures::Demo => {}
    }
    let mut builder = Server::builder("switchboard", env!("CARGO_PKG_VERSION"))
        .title("switchboard")
        .description("A ready-to-run MCP server")
        .instructions(
            "switchboard's default tools: echo, add, word_count, countdown (reports progress, can be cancelled), \
             and a shopping basket kept under a handle (create_basket, add_item, view_basket). \
             Resources: switchboard://server/info, switchboard://server/guide and switchboard://tools/{name}. \
             Prompt: code_review.",
        )
        .enable_logging()
        .options(options);
    let tools = default_tools::all(state);
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
    builder
}

#[cfg(test)]
mod tests {
    use super::{Served, banner, redacted};

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

    #[test]
    fn credentials_never_reach_messages() {
        assert_eq!(redacted("redis://user:secret@10.0.0.5:6379/0"), "redis://***@10.0.0.5:6379/0");
        assert_eq!(redacted("rediss://:p@ss@host"), "rediss://***@host");
        assert_eq!(redacted("redis://127.0.0.1:6379"), "redis://127.0.0.1:6379");
    }
}
