//! `switchboard proxy`: fronts another MCP server (a command over stdio, or a
//! Streamable HTTP URL) and serves what it offers over stdio or HTTP, with
//! everything switchboard adds: every protocol revision (an old client can use a
//! new upstream and the reverse), the HTTP transport for a stdio-only
//! server, rate limits, authorization from `--config`, metrics.
//!
//! A stdio upstream runs in a process group of its own, killed (with
//! whatever it started) on SIGTERM, SIGINT or SIGHUP and when switchboard ends.

use anyhow::Context as _;
use switchboard_proxy::{Proxy, Upstream};
use switchboard_server::{Server, ServerOptions};

use crate::listen::ListenAddr;
use crate::serve::{HttpArgs, Served, show_banner};
use crate::shutdown::Stop;

/// What `switchboard proxy` was asked to do.
#[derive(Debug)]
pub(crate) struct ProxyArgs {
    pub url: Option<String>,
    pub command: Vec<String>,
    pub prefix: Option<String>,
    pub http: Option<ListenAddr>,
    pub allow_hosts: Vec<String>,
    pub metrics: bool,
}

pub(crate) fn run(args: ProxyArgs) -> anyhow::Result<()> {
    let runtime = match args.http {
        None => tokio::runtime::Builder::new_current_thread().enable_all().build(),
        Some(_) => tokio::runtime::Builder::new_multi_thread().enable_all().build(),
    }
    .context("starting the async runtime")?;
    let result = runtime.block_on(async {
        // Before the upstream starts: a signal kills it and stops the proxy.
        let stop = Stop::listen();
        serve(args, stop).await
    });
    runtime.shutdown_background();
    result
}

async fn serve(args: ProxyArgs, stop: Stop) -> anyhow::Result<()> {
    // Until it serves, a signal simply ends the proxy (the upstream may
    // never answer the handshake); then each transport stops in its way.
    let (server, metrics) = stop.clone().run(connect(&args)).await?;
    let served = Served::new(format!("the upstream {}", server.info().name), &server);
    match args.http {
        None => {
            show_banner(&served, None);
            stop.run(async { server.serve_stdio().await.context("serving stdio") }).await
        }
        Some(listen) => {
            let mut options = switchboard_http::HttpOptions::default();
            options.metrics = metrics.map(crate::serve::metrics_text);
            let http = HttpArgs {
                listen,
                allow_hosts: args.allow_hosts,
                sse: crate::SseMode::Auto,
                stateless: false,
            };
            crate::serve::serve_http(server, http, options, served, stop).await
        }
    }
}

/// Starts or reaches the upstream and builds the server that fronts it.
async fn connect(
    args: &ProxyArgs,
) -> anyhow::Result<(Server, Option<std::sync::Arc<switchboard_metrics::Metrics>>)> {
    let upstream = match (&args.url, args.command.split_first()) {
        (Some(url), None) => Upstream::http(url)?,
        (None, Some((program, rest))) => Upstream::spawn(program, rest)?,
        (Some(_), Some(_)) => {
            return Err(crate::exit::usage(anyhow::anyhow!(
                "give the upstream either as --url or as a command after --, not both"
            )));
        }
        (None, None) => {
            return Err(crate::exit::usage(anyhow::anyhow!(
                "name the upstream server: `switchboard proxy -- COMMAND ARGS…` (stdio) or \
                 `switchboard proxy --url URL` (HTTP)"
            )));
        }
    };
    let proxy =
        Proxy::connect(upstream, args.prefix.clone()).await.context("connecting to the upstream server")?;
    let info = proxy.upstream_info().clone();
    tracing::info!(upstream = %info.name, version = %info.version, "proxying");
    let mut builder =
        Server::builder(info.name.clone(), info.version.clone()).options(ServerOptions::default());
    if let Some(title) = &info.title {
        builder = builder.title(title.clone());
    }
    if let Some(instructions) = proxy.instructions() {
        builder = builder.instructions(instructions.to_owned());
    }
    let metrics = args.metrics.then(switchboard_metrics::Metrics::new);
    builder = crate::serve::with_metrics(builder, metrics.as_ref());
    let server = proxy.register(builder).await.context("listing what the upstream server offers")?.build()?;
    proxy.follow(server.clone());
    Ok((server, metrics))
}
