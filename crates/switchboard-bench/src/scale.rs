//! `switchboard-bench scale-out`: N switchboard instances sharing one Redis (`--state`),
//! each of the C connections pinned to instance `i % N` (what a
//! round-robin balancer does per connection), for two workloads:
//! stateless `tools/call` (no shared state touched) and `tools/call` in a
//! legacy session (each request checks and renews the session in Redis,
//! and the session was created on another instance than most of its
//! requests land on). Prints requests/s and the server CPU per request
//! summed over every instance (Redis's own CPU not included). The
//! stateless workload speaks 2026-07-28 (no session), the session one
//! 2025-11-25.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use serde_json::json;

use crate::load::{Sender, connect, free_port, spawn, wait_listening};
use crate::proc_stat::cpu_seconds;
use crate::report::median;

/// Requests sent at most per window, whatever the duration.
const MAX_REQUESTS: u64 = 20_000_000;

struct Running {
    _children: Vec<tokio::process::Child>,
    pids: Vec<u32>,
    ports: Vec<u16>,
}

async fn start(switchboard: &str, redis: &str, n: usize) -> anyhow::Result<Running> {
    let mut children = Vec::new();
    let mut pids = Vec::new();
    let mut ports = Vec::new();
    for _ in 0..n {
        let port = free_port()?;
        let argv: Vec<String> =
            [switchboard, "serve", "--fixtures", "bench", "--state", redis, "--sse", "never", "--http"]
                .into_iter()
                .map(str::to_owned)
                .chain([format!("127.0.0.1:{port}")])
                .collect();
        let child = spawn(&argv, None)?;
        pids.push(child.id().context("no pid")?);
        children.push(child);
        ports.push(port);
    }
    for port in &ports {
        wait_listening(*port).await?;
    }
    Ok(Running { _children: children, pids, ports })
}

async fn post(
    sender: &mut Sender,
    port: u16,
    body: serde_json::Value,
    session: Option<&str>,
) -> anyhow::Result<(hyper::StatusCode, Option<String>, Bytes)> {
    let modern = body["params"]["_meta"].get("io.modelcontextprotocol/protocolVersion").is_some();
    let mut request = hyper::Request::post(format!("http://127.0.0.1:{port}/mcp"))
        .header("host", format!("127.0.0.1:{port}"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", if modern { "2026-07-28" } else { "2025-11-25" });
    if modern {
        // 2026-07-28 mirrors the method and the tool name in headers.
        request = request.header("mcp-method", "tools/call").header("mcp-name", "echo");
    }
    if let Some(s) = session {
        request = request.header("mcp-session-id", s);
    }
    let response = sender.send_request(request.body(Full::new(Bytes::from(body.to_string())))?).await?;
    let status = response.status();
    let id = response.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_owned);
    Ok((status, id, response.into_body().collect().await?.to_bytes()))
}

/// One window of load: requests/s and CPU µs per request over all instances.
async fn window(
    running: &Running,
    connections: usize,
    window: Duration,
    sessions: bool,
) -> anyhow::Result<(f64, f64)> {
    let ok = Arc::new(AtomicU64::new(0));
    let n = running.ports.len();
    // With sessions, every connection's session is created on the next
    // instance over, so most requests land where the session was not made.
    let mut prepared = Vec::new();
    for c in 0..connections.max(1) {
        let port = running.ports[c % n];
        let mut sender = connect(port).await?;
        let session = if sessions {
            let other = running.ports[(c + 1) % n];
            let mut setup = connect(other).await?;
            let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "scale", "version": "1"}}});
            let (status, id, _) = post(&mut setup, other, init, None).await?;
            anyhow::ensure!(status.is_success(), "initialize: {status}");
            let id = id.context("no session id")?;
            let (status, _, _) = post(
                &mut sender,
                port,
                json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                Some(&id),
            )
            .await?;
            anyhow::ensure!(status.as_u16() == 202, "initialized on another instance: {status}");
            Some(id)
        } else {
            None
        };
        prepared.push((sender, port, session));
    }
    let cpu_before: f64 = running.pids.iter().filter_map(|p| cpu_seconds(*p)).sum();
    let deadline = Instant::now() + window;
    let mut tasks = Vec::new();
    for (mut sender, port, session) in prepared {
        let ok = Arc::clone(&ok);
        tasks.push(tokio::spawn(async move {
            let mut id = 1u64;
            while Instant::now() < deadline && ok.load(Ordering::Relaxed) < MAX_REQUESTS {
                id += 1;
                let mut call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                    "params": {"name": "echo", "arguments": {"message": "hello"}}});
                if session.is_none() {
                    // Without a session: the stateless 2026-07-28 model.
                    call["params"]["_meta"] = json!({
                        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                        "io.modelcontextprotocol/clientCapabilities": {}
                    });
                }
                let (status, _, body) = post(&mut sender, port, call, session.as_deref()).await?;
                anyhow::ensure!(
                    status.is_success() && body.windows(8).any(|w| w == b"\"result\""),
                    "failed: {status}"
                );
                ok.fetch_add(1, Ordering::Relaxed);
            }
            anyhow::Ok(())
        }));
    }
    for task in tasks {
        task.await??;
    }
    let cpu: f64 = running.pids.iter().filter_map(|p| cpu_seconds(*p)).sum::<f64>() - cpu_before;
    let done = ok.load(Ordering::Relaxed).max(1);
    Ok((done as f64 / window.as_secs_f64(), cpu * 1e6 / done as f64))
}

/// Runs both workloads for each instance count and prints a table.
pub(crate) async fn run(
    switchboard: &str,
    redis: &str,
    counts: &[usize],
    connections: usize,
    duration: Duration,
    reps: usize,
) -> anyhow::Result<String> {
    let mut out = format!(
        "| instances | stateless tools/call req/s (C={connections}) | CPU µs/req | session tools/call req/s | CPU µs/req |\n|---|---|---|---|---|\n"
    );
    for &n in counts {
        let mut stateless = Vec::new();
        let mut session = Vec::new();
        for rep in 0..reps.max(1) {
            eprintln!("{n} instance(s): repetition {}/{reps}", rep + 1);
            let running = start(switchboard, redis, n.max(1)).await?;
            stateless.push(window(&running, connections, duration, false).await?);
            session.push(window(&running, connections, duration, true).await?);
        }
        let m = |v: &[(f64, f64)], f: fn(&(f64, f64)) -> f64| median(v.iter().map(f).collect());
        out.push_str(&format!(
            "| {n} | {:.0} | {:.1} | {:.0} | {:.1} |\n",
            m(&stateless, |s| s.0),
            m(&stateless, |s| s.1),
            m(&session, |s| s.0),
            m(&session, |s| s.1)
        ));
    }
    Ok(out)
}
