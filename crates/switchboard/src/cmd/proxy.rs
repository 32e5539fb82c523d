//! `switchboard proxy`: fronts another MCP server (a command over stdio, or a
//! Streamable HTTP URL) and serves what it offers over stdio or HTTP, with
//! everything switchboard adds: every protocol revision (an old client can use a
//! new upstream and the reverse), the HTTP transport for a stdio-only
//! server, rate limits, authorization from `--config`, metrics.
//!
//! A stdio upstream runs in a process group of its own, killed (with
//! whatever it started) on SIGTERM, SIGINT or SIGHUP and when switchboard ends.

use anyhow::Context as _;
use switchboard_proxy::{Gateway, Mount, Proxy, Transport, Upstream, UpstreamConfig};
use switchboard_server::{Server, ServerOptions};

use crate::cli::{ProxyArgs, SseMode};
use crate::shutdown::Stop;
use crate::transport::{self, HttpArgs, Served, show_banner};

pub(crate) fn run(args: ProxyArgs) -> anyhow::Result<()> {
    let runtime = transport::runtime(args.http.is_some()).context("starting the async runtime")?;
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
    // The gateway supervises the upstream for as long as this serves.
    let (server, metrics, _gateway) = stop.clone().run(connect(&args)).await?;
    let served = Served::new(format!("the upstream {}", server.info().name), &server);
    match args.http {
        None => {
            show_banner(&served, None);
            stop.run(async { server.serve_stdio().await.context("serving stdio") }).await
        }
        Some(listen) => {
            let mut options = switchboard_http::HttpOptions::default();
            options.metrics = metrics.map(transport::metrics_text);
            let http = HttpArgs {
                listen,
                allow_hosts: args.allow_hosts,
                allow_origins: args.allow_origins,
                sse: SseMode::Auto,
                stateless: false,
            };
            transport::serve_http(server, http, options, served, stop).await
        }
    }
}

/// Starts or reaches the upstream and builds the server that fronts it:
/// one upstream of the same gateway `serve` runs for `[[upstreams]]`
/// (reconnected with backoff when it goes away), connected once first so
/// the server can take its name, version and instructions.
async fn connect(
    args: &ProxyArgs,
) -> anyhow::Result<(Server, Option<std::sync::Arc<switchboard_metrics::Metrics>>, Gateway)> {
    let transport = match (&args.url, args.command.split_first()) {
        (Some(url), None) => Transport::Http { url: url.clone(), headers: Vec::new() },
        (None, Some((program, rest))) => Transport::Command {
            program: program.clone(),
            args: rest.to_vec(),
            // The command line's upstream gets switchboard's environment, as before.
            env: std::env::vars().collect(),
            cwd: None,
        },
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
    let mut config = UpstreamConfig::new("upstream", transport);
    config.mount = Mount { prefix: args.prefix.clone(), ..Mount::default() };
    let upstream = match &config.transport {
        Transport::Http { url, .. } => Upstream::http(url)?,
        Transport::Command { program, args, .. } => Upstream::spawn(program, args)?,
    };
    let proxy = Proxy::connect_mounted(upstream, config.mount.clone())
        .await
        .context("connecting to the upstream server")?;
    let info = proxy.upstream_info().clone();
    tracing::info!(upstream = %info.name, version = %info.version, "proxying");
    config.name.clone_from(&info.name);
    let mut builder = Server::builder(info.name.clone(), info.version.clone())
        .options(ServerOptions::default())
        .enable_tools()
        .enable_prompts()
        .enable_resources();
    if let Some(title) = &info.title {
        builder = builder.title(title.clone());
    }
    if let Some(instructions) = proxy.instructions() {
        builder = builder.instructions(instructions.to_owned());
    }
    // The upstream's views are relayed: offer MCP Apps as it does.
    if proxy.offers_extension(switchboard_server::apps::EXTENSION) {
        builder = builder.enable_apps();
    }
    let metrics = args.metrics.then(switchboard_metrics::Metrics::new);
    builder = transport::with_metrics(builder, metrics.as_ref());
    let server = builder.build()?;
    let gateway = Gateway::new(server.clone());
    gateway.adopt(config, proxy);
    // The first lists are complete before the first client asks.
    gateway.wait_attempted(std::time::Duration::from_secs(30)).await;
    Ok((server, metrics, gateway))
}
