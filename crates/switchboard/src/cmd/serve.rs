//! `switchboard serve`: builds the server (project folder or fixtures), its
//! shared state, metrics and transport options (`build_server`), and
//! serves it over stdio or HTTP (`serve_transport`) until its input ends
//! or a signal arrives (SIGTERM, SIGINT, SIGHUP: see [`crate::shutdown`];
//! the child processes of command tools are killed then).

use std::io::IsTerminal as _;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use switchboard_files::FileResources;
use switchboard_metrics::Metrics;
use switchboard_server::state::{MemoryStore, StateStore};
use switchboard_server::{Server, ServerBuilder, ServerOptions};
use tokio::runtime::Runtime;
use tokio::sync::{mpsc, oneshot};

use crate::cli::{Fixtures, ServeArgs};
use crate::exit;
use crate::output::report;
use crate::project::{Project, Source, live, network, roots};
use crate::shutdown::Stop;
use crate::transport::{self, HttpArgs, Served, show_banner};

/// How long serving waits for the upstreams' first connection attempts.
const UPSTREAM_GRACE: Duration = Duration::from_secs(5);

/// How long serving waits for the first scan of the served files when a
/// person ran `serve` in a terminal, so the banner counts the files. A
/// host (stdin not a terminal) is answered at once: the scan watches each
/// folder as it walks into it, so an edit made right after `initialize`
/// is not missed, and a list or a completion asked during the scan waits
/// for it; the tools the scan finds (zero-config databases) are announced
/// with `list_changed`.
const FIRST_SCAN_GRACE_IN_A_TERMINAL: Duration = Duration::from_millis(500);

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
/// `crate::project::upstreams::readiness`) when there are upstreams, and the
/// databases' (`"databases"`, `"databasesNotOpen"`) when there are
/// databases. `/readyz` stays 200 while they are down: they are isolated,
/// not a reason to take the server out of rotation.
fn readiness(
    gateway: Option<switchboard_proxy::Gateway>,
    databases: switchboard_sql::serve::Databases,
) -> switchboard_http::Readiness {
    let upstreams = gateway.map(crate::project::upstreams::readiness);
    switchboard_http::Readiness(Arc::new(move || {
        let mut body = upstreams.as_ref().map_or_else(|| serde_json::json!({}), |u| (u.0)());
        let statuses = databases.statuses();
        if !statuses.is_empty() {
            let not_open: Vec<&str> = statuses
                .iter()
                .filter(|s| s.state != switchboard_sql::serve::DatabaseState::Open)
                .map(|s| s.name.as_str())
                .collect();
            body["databases"] = statuses.iter().map(crate::project::databases::status_json).collect();
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

/// The options the server and its HTTP transport are built with.
struct Options {
    server: ServerOptions,
    http: switchboard_http::HttpOptions,
    /// Counted by a server layer and read at /metrics, when on.
    metrics: Option<Arc<Metrics>>,
}

/// A built server and what serving it needs.
struct Built {
    server: Server,
    http: switchboard_http::HttpOptions,
    /// What is served, for the banner: a folder, `the demo fixtures`.
    what: String,
    /// The served files: listed from their index (not registered), so
    /// counted apart.
    listed_files: Option<FileResources>,
    /// Following a client's roots (stdio with no folder and no --config).
    roots_start: Option<roots::Start>,
    /// Ends stdio serving when a client without roots meets a refused
    /// working folder (`roots::follow`).
    refusal: Option<oneshot::Receiver<anyhow::Error>>,
}

/// `switchboard serve`: builds the server, then serves it until its input
/// ends or a signal arrives.
pub(crate) fn run(args: ServeArgs) -> anyhow::Result<()> {
    let runtime = transport::runtime(args.http.is_some()).context("starting the async runtime")?;
    let shared = runtime.block_on(connect_state(args.state.as_deref()))?;
    // Every instance signs cursors with the same key: read it now if the
    // store answers soon, else adopt it once the store is back.
    let cursor_key =
        shared.distributed.then(|| runtime.block_on(shared_cursor_key(&shared.store, STARTUP_WAIT)));
    let _guard = runtime.enter();
    let result = build_server(&runtime, &args, &shared, cursor_key)
        .and_then(|built| serve_transport(&runtime, built, args));
    // Handlers may still hold blocking work; do not wait for it.
    drop(_guard);
    runtime.shutdown_background();
    result
}

/// Builds the server `args` ask for, with the shared state and metrics,
/// and starts keeping a project's server in step with the disk (waiting
/// a little for the first scan).
fn build_server(
    runtime: &Runtime,
    args: &ServeArgs,
    shared: &Shared,
    cursor_key: Option<Option<[u8; 32]>>,
) -> anyhow::Result<Built> {
    let mut options = Options {
        server: ServerOptions::default(),
        http: switchboard_http::HttpOptions::default(),
        metrics: args.metrics.then(Metrics::new),
    };
    options.server.page_size = args.page_size;
    options.server.cursor_key = cursor_key.flatten();
    if shared.distributed {
        options.http.state = Some(Arc::clone(&shared.store));
    }
    // Over stdio with no folder and no --config, the client's roots say what
    // to serve (see `roots`).
    let follows_roots = args.fixtures.is_none()
        && args.http.is_none()
        && args.project.dir.is_none()
        && args.project.config.is_none();
    let roots_start = follows_roots.then(roots::Start::new).transpose()?;
    let (notices, noticed) = mpsc::unbounded_channel();
    let (server, live, what) = match args.fixtures {
        Some(fixtures) => {
            let (server, what) = fixtures_server(args, fixtures, &mut options, shared)?;
            (server, None, what)
        }
        None => {
            let (server, loaded, source, what) =
                project_server(runtime, args, &mut options, shared, roots_start.as_ref(), notices)?;
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
    let mut http = options.http;
    http.metrics = options.metrics.map(transport::metrics_text);
    http.max_body = server.options().max_message_size;
    let mut built = Built { server, http, what, listed_files: None, roots_start, refusal: None };
    if let Some((loaded, source)) = live {
        start_live(runtime, &mut built, loaded, source, noticed);
    }
    Ok(built)
}

/// The server of the built-in fixtures. The `[limits]` of a configuration
/// named with --config bind the fixtures too; without one they keep the
/// library's.
fn fixtures_server(
    args: &ServeArgs,
    fixtures: Fixtures,
    options: &mut Options,
    shared: &Shared,
) -> anyhow::Result<(Server, String)> {
    if let Some(config) = &args.project.config {
        let dir = config.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let config = switchboard_config::Config::load(dir, Some(config)).map_err(report)?;
        options.server = network::server_options(&config.limits, std::mem::take(&mut options.server));
    }
    if let Some(max) = args.max_message_size {
        options.server.max_message_size = max;
    }
    let builder =
        crate::fixtures::builder(std::mem::take(&mut options.server), fixtures, Arc::clone(&shared.store));
    let what = format!("the {} fixtures", crate::fixtures::name(fixtures));
    let server =
        decorate(builder, options.metrics.as_ref(), shared).build().context("building the server")?;
    if matches!(fixtures, Fixtures::Conformance) {
        crate::fixtures::attach(&server);
    }
    Ok((server, what))
}

/// The project's server: the folder named (or, following a client's roots,
/// the working folder until it names them), its databases and upstreams
/// given a grace to join, and `/readyz` reporting them.
fn project_server(
    runtime: &Runtime,
    args: &ServeArgs,
    options: &mut Options,
    shared: &Shared,
    roots_start: Option<&roots::Start>,
    notices: mpsc::UnboundedSender<roots::Notice>,
) -> anyhow::Result<(Server, Project, Source, String)> {
    let source = match roots_start {
        Some(start) => start.source.clone(),
        None => args.project.source("serve")?,
    };
    let what = match roots_start {
        Some(start) if start.refused.is_some() => "the client's roots (none yet)".to_owned(),
        Some(_) => format!("{} until the client names its roots", source.dir.display()),
        None => source.dir.display().to_string(),
    };
    let mut loaded = Project::load(&source.dir, source.config.as_deref()).map_err(report)?;
    if let Some(max) = args.max_message_size {
        loaded.config.limits.max_message_size = max;
    }
    options.http.allowed_hosts.extend(loaded.config.http.allowed_hosts.iter().cloned());
    options.http.auth = loaded.auth.clone();
    if options.metrics.is_none() && loaded.config.http.metrics {
        options.metrics = Some(Metrics::new());
    }
    // Databases open in the background; the first lists wait a
    // little for them (one that is down or slow joins later, with
    // list_changed, as upstreams do).
    loaded.start_databases();
    runtime.block_on(loaded.wait_databases(Some(UPSTREAM_GRACE)));
    let server = loaded.serve(std::mem::take(&mut options.server), |b| {
        let b = decorate(b, options.metrics.as_ref(), shared);
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
    options.http.readiness = Some(readiness(gateway, loaded.databases.clone()));
    Ok((server, loaded, source, what))
}

/// `builder` with the metrics layer, when metrics are on, and the shared
/// state store, when other processes share it.
fn decorate(builder: ServerBuilder, metrics: Option<&Arc<Metrics>>, shared: &Shared) -> ServerBuilder {
    let builder = transport::with_metrics(builder, metrics);
    if shared.distributed { builder.state(Arc::clone(&shared.store)) } else { builder }
}

/// Starts the live-reload loop of a project's server (and, following a
/// client's roots, the loop that switches to them), then waits a little
/// for the first scan in a terminal (see [`FIRST_SCAN_GRACE_IN_A_TERMINAL`]).
fn start_live(
    runtime: &Runtime,
    built: &mut Built,
    loaded: Project,
    source: Source,
    noticed: mpsc::UnboundedReceiver<roots::Notice>,
) {
    built.listed_files = loaded.files.clone();
    let (scanned, first_scan) = oneshot::channel();
    let retarget = built.roots_start.as_ref().map(|start| {
        let (retarget, retargeted) = mpsc::channel(4);
        let (fatal, fatal_rx) = oneshot::channel();
        let empty = start.empty.path().to_path_buf();
        let named = Arc::clone(&start.named);
        runtime.spawn(roots::follow(noticed, retarget, empty, start.refused.clone(), named, fatal));
        built.refusal = Some(fatal_rx);
        retargeted
    });
    runtime.spawn(live::run(built.server.clone(), loaded, source, scanned, retarget));
    // A folder, large or not, does not hold up a host's `initialize` (see
    // FIRST_SCAN_GRACE_IN_A_TERMINAL).
    if std::io::stdin().is_terminal() {
        let _ = runtime.block_on(tokio::time::timeout(FIRST_SCAN_GRACE_IN_A_TERMINAL, first_scan));
    }
}

/// Serves the built server over stdio, or over HTTP with `--http`, until
/// the client goes away or a signal arrives.
fn serve_transport(runtime: &Runtime, built: Built, args: ServeArgs) -> anyhow::Result<()> {
    // From here a signal kills the tools' processes and stops the server
    // (without handlers, it would kill switchboard at once and leave them running).
    let stop = Stop::listen();
    let Built { server, http: http_options, what, listed_files, roots_start, refusal } = built;
    let mut served = Served::new(what, &server);
    served.resources += listed_files.map_or(0, |f| f.len());
    match args.http {
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
            runtime.block_on(transport::serve_http(server, http, http_options, served, stop))
        }
    }
}

/// Serves stdio until the client goes away; when following a client's
/// roots, ends with the refusal of the working folder if a client without
/// roots arrived (`refusal`) or none ever named roots (`Start::at_end`).
async fn serve_stdio(
    server: &Server,
    roots_start: Option<&roots::Start>,
    refusal: Option<oneshot::Receiver<anyhow::Error>>,
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

#[cfg(test)]
mod tests {
    use super::redacted;

    #[test]
    fn credentials_never_reach_messages() {
        assert_eq!(redacted("redis://user:secret@10.0.0.5:6379/0"), "redis://***@10.0.0.5:6379/0");
        assert_eq!(redacted("rediss://:p@ss@host"), "rediss://***@host");
        assert_eq!(redacted("redis://127.0.0.1:6379"), "redis://127.0.0.1:6379");
    }
}
