//! The workloads: HTTP and stdio throughput, cold start, memory.

use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};

use crate::Contender;
use crate::proc_stat::{cpu_seconds, rss_kb};
use crate::report::{ListRow, Row, median};

/// Requests sent at most per window, whatever the duration.
const MAX_REQUESTS: u64 = 20_000_000;
const COLD_STARTS: usize = 10;

/// Sweeps over the whole resource list per server process.
const LIST_SWEEPS: usize = 5;
/// The most pages one sweep follows (a server that never ends its list
/// must not hold the tool forever).
const MAX_PAGES: usize = 10_000;

/// One measurement: work per second and server CPU µs per unit of work.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Sample {
    pub per_second: f64,
    pub cpu_us: f64,
}

/// Every workload for every contender, `reps` times; medians.
pub(crate) async fn run_all(
    contenders: &[Contender],
    window: Duration,
    reps: usize,
    connections: usize,
    in_flight: usize,
) -> anyhow::Result<Vec<Row>> {
    let mut rows = Vec::new();
    for c in contenders {
        let mut http = Vec::new();
        let mut http_2026 = Vec::new();
        let mut stdio = Vec::new();
        for rep in 0..reps {
            eprintln!("{}: repetition {}/{reps}", c.name, rep + 1);
            http.push(
                http_throughput(c, window, connections, Dialect::Handshake, &Workload::echo())
                    .await
                    .with_context(|| format!("{} over HTTP", c.name))?,
            );
            http_2026.push(
                http_throughput(c, window, connections, Dialect::PerRequest, &Workload::echo())
                    .await
                    .with_context(|| format!("{} over HTTP at 2026-07-28", c.name))?,
            );
            stdio.push(
                stdio_throughput(c, window, in_flight, &Workload::echo())
                    .await
                    .with_context(|| format!("{} over stdio", c.name))?,
            );
        }
        let mut sweeps = Vec::new();
        let mut sweep_cpu = Vec::new();
        let mut items = 0;
        for _ in 0..if c.lists { reps } else { 0 } {
            let (ms, n, cpu) =
                list_sweeps(c, LIST_SWEEPS).await.with_context(|| format!("{} resources/list", c.name))?;
            sweeps.extend(ms);
            sweep_cpu.push(cpu);
            items = n;
        }
        let mut cold = Vec::new();
        let mut rss = Vec::new();
        for _ in 0..COLD_STARTS {
            let (ms, kb) = cold_start(c).await.with_context(|| format!("{} cold start", c.name))?;
            cold.push(ms);
            rss.push(kb as f64);
        }
        rows.push(Row {
            name: c.name.clone(),
            http_rps: median(http.iter().map(|s| s.per_second).collect()),
            http_cpu_us: median(http.iter().map(|s| s.cpu_us).collect()),
            http_2026_rps: median(http_2026.iter().map(|s| s.per_second).collect()),
            http_2026_cpu_us: median(http_2026.iter().map(|s| s.cpu_us).collect()),
            stdio_mps: median(stdio.iter().map(|s| s.per_second).collect()),
            stdio_cpu_us: median(stdio.iter().map(|s| s.cpu_us).collect()),
            list_ms: median(sweeps),
            list_cpu_ms: median(sweep_cpu),
            list_items: items,
            cold_ms: median(cold),
            rss_mb: median(rss) / 1024.0,
        });
    }
    Ok(rows)
}

/// Starts `argv` (on the servers' CPU when pinned), `{port}` replaced.
pub(crate) fn spawn(argv: &[String], port: Option<u16>) -> anyhow::Result<Child> {
    let argv: Vec<String> = crate::server_prefix()
        .iter()
        .chain(argv)
        .map(|a| match port {
            Some(p) => a.replace("{port}", &p.to_string()),
            None => a.clone(),
        })
        .collect();
    let mut command = Command::new(&argv[0]);
    command
        .args(&argv[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        // `MCP_BENCH_SERVER_STDERR=1` shows what servers log (to find why one fails).
        .stderr(if std::env::var_os("MCP_BENCH_SERVER_STDERR").is_some() {
            Stdio::inherit()
        } else {
            Stdio::null()
        })
        .kill_on_drop(true);
    command.spawn().with_context(|| format!("starting {}", argv.join(" ")))
}

pub(crate) fn free_port() -> anyhow::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Waits (at most 20 s) until something accepts connections on `port`.
pub(crate) async fn wait_listening(port: u16) -> anyhow::Result<()> {
    let started = Instant::now();
    while tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_err() {
        anyhow::ensure!(
            started.elapsed() < Duration::from_secs(20),
            "the server did not listen on port {port}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(())
}

/// An HTTP/1.1 client connection to 127.0.0.1:`port`, with TCP_NODELAY.
pub(crate) type Sender = hyper::client::conn::http1::SendRequest<Full<Bytes>>;

pub(crate) async fn connect(port: u16) -> anyhow::Result<Sender> {
    let tcp = tokio::net::TcpStream::connect(("127.0.0.1", port)).await?;
    tcp.set_nodelay(true)?;
    let (sender, conn) = hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(tcp)).await?;
    tokio::spawn(conn);
    Ok(sender)
}

/// How an HTTP workload's requests state their revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// A handshake revision's `tools/call` without a session (2025-06-18
    /// header): a sessionless legacy server's path.
    Handshake,
    /// 2026-07-28: `_meta` with the version and capabilities in every
    /// request, and the `Mcp-Method` / `Mcp-Name` headers.
    PerRequest,
}

/// The `tools/call` a throughput workload repeats: which tool, and its
/// arguments for the request with a given id.
#[derive(Clone)]
pub(crate) struct Workload {
    pub tool: String,
    pub arguments: Arc<dyn Fn(u64) -> serde_json::Value + Send + Sync>,
}

impl std::fmt::Debug for Workload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workload").field("tool", &self.tool).finish_non_exhaustive()
    }
}

impl Workload {
    /// The echo tool every bench server has.
    pub(crate) fn echo() -> Self {
        Self { tool: "echo".into(), arguments: Arc::new(|_| json!({"message": "hello"})) }
    }

    /// The request with `id`, one line.
    pub(crate) fn request(&self, id: u64, dialect: Dialect) -> Vec<u8> {
        call_request(id, dialect, &self.tool, (self.arguments)(id))
    }
}

/// Whether an answer is a successful result (a tool error is not).
pub(crate) fn succeeded(body: &[u8]) -> bool {
    let has = |needle: &[u8]| body.windows(needle.len()).any(|w| w == needle);
    has(b"\"result\"") && !has(b"\"isError\":true") && !has(b"\"isError\": true")
}

fn call_request(id: u64, dialect: Dialect, tool: &str, arguments: serde_json::Value) -> Vec<u8> {
    let mut params = json!({"name": tool, "arguments": arguments});
    if dialect == Dialect::PerRequest {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "switchboard-bench", "version": "1"}
        });
    }
    let mut bytes =
        serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}))
            .expect("JSON serializes");
    bytes.push(b'\n');
    bytes
}

pub(crate) async fn http_throughput(
    c: &Contender,
    window: Duration,
    connections: usize,
    dialect: Dialect,
    workload: &Workload,
) -> anyhow::Result<Sample> {
    let port = free_port()?;
    let child = spawn(&c.http, Some(port))?;
    let pid = child.id().context("no pid")?;
    wait_listening(port).await?;
    let ok = Arc::new(AtomicU64::new(0));
    let errors = Arc::new(AtomicU64::new(0));
    let first_error: Arc<std::sync::Mutex<Option<String>>> = Arc::default();
    let cpu_before = cpu_seconds(pid).unwrap_or(0.0);
    let deadline = Instant::now() + window;
    let mut tasks = Vec::new();
    for _ in 0..connections.max(1) {
        let (ok, errors) = (Arc::clone(&ok), Arc::clone(&errors));
        let first_error = Arc::clone(&first_error);
        let workload = workload.clone();
        tasks.push(tokio::spawn(async move {
            let mut sender = connect(port).await?;
            let mut id = 0u64;
            while Instant::now() < deadline && ok.load(Ordering::Relaxed) < MAX_REQUESTS {
                id += 1;
                // Origin-form, as clients send it (a server built on
                // Node's SDK takes an absolute-form target for a path).
                let request = hyper::Request::post("/mcp")
                    .header("host", format!("127.0.0.1:{port}"))
                    .header("content-type", "application/json")
                    .header("accept", "application/json, text/event-stream");
                let request = match dialect {
                    Dialect::Handshake => request.header("mcp-protocol-version", "2025-06-18"),
                    Dialect::PerRequest => request
                        .header("mcp-protocol-version", "2026-07-28")
                        .header("mcp-method", "tools/call")
                        .header("mcp-name", workload.tool.as_str()),
                };
                let request = request.body(Full::new(Bytes::from(workload.request(id, dialect))))?;
                let response = sender.send_request(request).await?;
                let status = response.status();
                let body = response.into_body().collect().await?.to_bytes();
                if status.is_success() && succeeded(&body) {
                    ok.fetch_add(1, Ordering::Relaxed);
                } else {
                    errors.fetch_add(1, Ordering::Relaxed);
                    if let Ok(mut first) = first_error.lock() {
                        let text = String::from_utf8_lossy(&body[..body.len().min(300)]).into_owned();
                        first.get_or_insert(format!("{status}: {text}"));
                    }
                }
            }
            anyhow::Ok(())
        }));
    }
    for task in tasks {
        task.await??;
    }
    let cpu = cpu_seconds(pid).unwrap_or(0.0) - cpu_before;
    drop(child);
    let done = ok.load(Ordering::Relaxed);
    let first = first_error.lock().ok().and_then(|f| f.clone()).unwrap_or_default();
    anyhow::ensure!(
        done > 0,
        "no successful responses ({} errors; the first: {first})",
        errors.load(Ordering::Relaxed)
    );
    Ok(Sample { per_second: done as f64 / window.as_secs_f64(), cpu_us: cpu * 1e6 / done as f64 })
}

/// Starts a stdio server and completes `initialize`; returns it and the
/// time from spawn to the initialize answer.
pub(crate) async fn initialized(
    c: &Contender,
) -> anyhow::Result<(Child, Duration, tokio::io::Lines<BufReader<tokio::process::ChildStdout>>)> {
    let started = Instant::now();
    let mut child = spawn(&c.stdio, None)?;
    let mut stdin = child.stdin.take().context("stdin")?;
    let mut lines = BufReader::new(child.stdout.take().context("stdout")?).lines();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "switchboard-bench", "version": "1"}}});
    stdin.write_all(format!("{init}\n").as_bytes()).await?;
    stdin.flush().await?;
    let line =
        tokio::time::timeout(Duration::from_secs(20), lines.next_line()).await??.context("no answer")?;
    let elapsed = started.elapsed();
    anyhow::ensure!(line.contains("\"result\""), "initialize failed: {line}");
    stdin.write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n").await?;
    stdin.flush().await?;
    child.stdin = Some(stdin);
    Ok((child, elapsed, lines))
}

async fn cold_start(c: &Contender) -> anyhow::Result<(f64, u64)> {
    let (child, elapsed, _lines) = initialized(c).await?;
    let rss = rss_kb(child.id().context("no pid")?).unwrap_or(0);
    drop(child);
    Ok((elapsed.as_secs_f64() * 1e3, rss))
}

pub(crate) async fn stdio_throughput(
    c: &Contender,
    window: Duration,
    in_flight: usize,
    workload: &Workload,
) -> anyhow::Result<Sample> {
    let (mut child, _, mut lines) = initialized(c).await?;
    let pid = child.id().context("no pid")?;
    let mut stdin = child.stdin.take().context("stdin")?;
    let permits = Arc::new(tokio::sync::Semaphore::new(in_flight.max(1)));
    let answered = Arc::new(AtomicU64::new(0));
    let cpu_before = cpu_seconds(pid).unwrap_or(0.0);
    let deadline = Instant::now() + window;
    let writer = {
        let permits = Arc::clone(&permits);
        let workload = workload.clone();
        tokio::spawn(async move {
            let mut id = 1u64;
            while Instant::now() < deadline && id < MAX_REQUESTS {
                let permit = permits.acquire().await?;
                permit.forget();
                stdin.write_all(&workload.request(id, Dialect::Handshake)).await?;
                if permits.available_permits() == 0 {
                    stdin.flush().await?;
                }
                id += 1;
            }
            stdin.flush().await?;
            anyhow::Ok(stdin)
        })
    };
    let mut sent_done = false;
    while Instant::now() < deadline || !sent_done {
        let Ok(line) = tokio::time::timeout(Duration::from_secs(10), lines.next_line()).await else { break };
        let Some(line) = line? else { break };
        if succeeded(line.as_bytes()) {
            answered.fetch_add(1, Ordering::Relaxed);
        }
        permits.add_permits(1);
        if Instant::now() >= deadline {
            sent_done = writer.is_finished();
            if permits.available_permits() >= in_flight {
                break;
            }
        }
    }
    let cpu = cpu_seconds(pid).unwrap_or(0.0) - cpu_before;
    let stdin = writer.await??;
    drop(stdin);
    drop(child);
    let done = answered.load(Ordering::Relaxed);
    anyhow::ensure!(done > 0, "no answers over stdio");
    Ok(Sample { per_second: done as f64 / window.as_secs_f64(), cpu_us: cpu * 1e6 / done as f64 })
}

/// `resources/list` walks alone, `sweeps` per server process, `reps`
/// processes per contender, contenders taking turns (so a noisy spell
/// hits all of them): per contender, the median sweep and the median
/// server CPU per sweep. With many sweeps per process the CPU figure is
/// precise despite `/proc`'s 10 ms ticks.
pub(crate) async fn list_only(
    contenders: &[Contender],
    reps: usize,
    sweeps: usize,
) -> anyhow::Result<Vec<ListRow>> {
    let listing: Vec<&Contender> = contenders.iter().filter(|c| c.lists).collect();
    let mut walls = vec![Vec::new(); listing.len()];
    let mut cpus = vec![Vec::new(); listing.len()];
    let mut items = vec![0; listing.len()];
    for rep in 0..reps {
        for (i, c) in listing.iter().enumerate() {
            eprintln!("{}: resources/list, {sweeps} sweeps, repetition {}/{reps}", c.name, rep + 1);
            let (ms, n, cpu) =
                list_sweeps(c, sweeps).await.with_context(|| format!("{} resources/list", c.name))?;
            walls[i].extend(ms);
            cpus[i].push(cpu);
            items[i] = n;
        }
    }
    Ok(listing
        .iter()
        .enumerate()
        .map(|(i, c)| ListRow {
            name: c.name.clone(),
            sweep_ms: median(std::mem::take(&mut walls[i])),
            cpu_ms: median(std::mem::take(&mut cpus[i])),
            items: items[i],
        })
        .collect())
}

/// `resources/list` over stdio, following `nextCursor` from the first page
/// to the last, `sweeps` times in one process: the milliseconds of each
/// sweep, the number of items one sweep saw and the server's CPU
/// milliseconds per sweep. Every request waits for its answer (a client
/// cannot ask for page n+1 before it has page n's cursor), so this is
/// latency-bound, as a real client's walk is.
async fn list_sweeps(c: &Contender, sweeps: usize) -> anyhow::Result<(Vec<f64>, usize, f64)> {
    let (mut child, _, mut lines) = initialized(c).await?;
    let pid = child.id().context("no pid")?;
    let mut stdin = child.stdin.take().context("stdin")?;
    let cpu_before = cpu_seconds(pid).unwrap_or(0.0);
    let mut times = Vec::new();
    let mut items = 0;
    let mut id = 1u64;
    for _ in 0..sweeps {
        let started = Instant::now();
        let mut cursor: Option<String> = None;
        let mut seen = 0;
        for _ in 0..MAX_PAGES {
            let params = match &cursor {
                Some(c) => json!({ "cursor": c }),
                None => json!({}),
            };
            let request = json!({"jsonrpc": "2.0", "id": id, "method": "resources/list", "params": params});
            id += 1;
            stdin.write_all(format!("{request}\n").as_bytes()).await?;
            stdin.flush().await?;
            let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
                .await??
                .context("the server closed stdout")?;
            let answer: serde_json::Value = serde_json::from_str(&line)?;
            let result = answer.get("result").with_context(|| format!("resources/list failed: {line}"))?;
            seen += result["resources"].as_array().map_or(0, Vec::len);
            cursor = result.get("nextCursor").and_then(|c| c.as_str()).map(str::to_owned);
            if cursor.is_none() {
                break;
            }
        }
        anyhow::ensure!(cursor.is_none(), "the list did not end within {MAX_PAGES} pages");
        times.push(started.elapsed().as_secs_f64() * 1e3);
        items = seen;
    }
    let cpu_ms = (cpu_seconds(pid).unwrap_or(0.0) - cpu_before) * 1e3 / sweeps.max(1) as f64;
    drop(stdin);
    drop(child);
    Ok((times, items, cpu_ms))
}
