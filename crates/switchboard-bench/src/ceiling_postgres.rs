//! The pipelined PostgreSQL ceiling: what a server that did nothing but
//! the query could reach on the MCP server's own core.
//!
//! The bare loop of `db_postgres.rs` runs one query at a time in the bench
//! process, on the load generator's CPU: it measures the driver's latency,
//! not a server's throughput (a server with 64 calls in flight overtakes
//! it on a quiet machine), and its client's CPU is not on the core the
//! database and the servers share. This ceiling is the server-shaped
//! version: started as a server is (`taskset -c 1`, a current-thread
//! runtime), the same number of calls in flight as the load generator
//! sends, spread over as many connections as switchboard's pool keeps
//! (each connection pipelines its queries), the same prepared statement,
//! each row made a JSON object and the result serialized. Its rate is the
//! most any MCP server could answer on that core with the database beside
//! it; switchboard's calls per second divided by it is the share a server
//! keeps after the protocol.
//!
//! The URL (with the reader's password) comes in an environment variable,
//! never on a command line other processes can read.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use serde_json::{Map, Value, json};
use tokio_postgres::types::Type;

use crate::db::{MAX_QUERIES, ORDERS_PER_CUSTOMER, key, positional_sql};
use crate::load::Sample;
use crate::proc_stat::cpu_seconds;

/// The variable the ceiling's process reads the database URL from.
pub(crate) const URL_ENV: &str = "SWITCHBOARD_BENCH_PG_URL";

/// switchboard's default PostgreSQL pool (`pool_size`), the connections
/// the ceiling spreads its queries over.
pub(crate) const CONNECTIONS: usize = 4;

/// One row as a JSON object, by the column types the fixture uses (both
/// PostgreSQL ceilings make their rows so).
pub(crate) fn row_object(row: &tokio_postgres::Row) -> anyhow::Result<Value> {
    let mut object = Map::with_capacity(row.len());
    for (i, column) in row.columns().iter().enumerate() {
        let value = match *column.type_() {
            Type::INT8 => json!(row.try_get::<_, Option<i64>>(i)?),
            Type::INT4 => json!(row.try_get::<_, Option<i32>>(i)?),
            Type::FLOAT8 => json!(row.try_get::<_, Option<f64>>(i)?),
            _ => json!(row.try_get::<_, Option<String>>(i)?),
        };
        object.insert(column.name().to_owned(), value);
    }
    Ok(Value::Object(object))
}

/// The `ceiling-postgres` subcommand: runs the ceiling for `seconds` with
/// `in_flight` queries outstanding and prints its [`Sample`] as JSON.
pub(crate) fn main(seconds: f64, in_flight: usize, connections: usize) -> anyhow::Result<()> {
    let url = std::env::var(URL_ENV).with_context(|| format!("{URL_ENV} is not set"))?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let window = Duration::from_secs_f64(seconds);
    let sample =
        runtime.block_on(pipelined(&url, window, in_flight.max(1), connections.max(1), MAX_QUERIES))?;
    println!("{}", json!({"per_second": sample.per_second, "cpu_us": sample.cpu_us}));
    Ok(())
}

/// `in_flight` workers, each querying on connection `worker % connections`
/// until the window ends or `limit` queries were issued.
pub(crate) async fn pipelined(
    url: &str,
    window: Duration,
    in_flight: usize,
    connections: usize,
    limit: u64,
) -> anyhow::Result<Sample> {
    let mut clients = Vec::with_capacity(connections);
    for _ in 0..connections {
        let (client, connection) =
            tokio_postgres::connect(url, tokio_postgres::NoTls).await.context("the ceiling's connection")?;
        tokio::spawn(connection);
        let statement = client.prepare(&positional_sql("$1")).await?;
        clients.push((client, statement));
    }
    let clients = Arc::new(clients);
    let issued = Arc::new(AtomicU64::new(0));
    let cpu_before = cpu_seconds(std::process::id()).unwrap_or(0.0);
    let started = Instant::now();
    let mut workers = tokio::task::JoinSet::new();
    for worker in 0..in_flight {
        let (clients, issued) = (Arc::clone(&clients), Arc::clone(&issued));
        workers.spawn(async move {
            let (client, statement) = &clients[worker % clients.len()];
            let mut done = 0u64;
            let mut bytes = 0usize;
            while started.elapsed() < window {
                let n = issued.fetch_add(1, Ordering::Relaxed);
                if n >= limit {
                    break;
                }
                let customer = key(n) as i64;
                let rows = client.query(statement, &[&customer]).await?;
                let out = rows.iter().map(row_object).collect::<anyhow::Result<Vec<_>>>()?;
                anyhow::ensure!(
                    out.len() == ORDERS_PER_CUSTOMER as usize,
                    "key {customer} gave {} rows",
                    out.len()
                );
                bytes += serde_json::to_vec(&out)?.len();
                done += 1;
            }
            anyhow::Ok((done, bytes))
        });
    }
    let (mut done, mut bytes) = (0u64, 0usize);
    while let Some(worker) = workers.join_next().await {
        let (d, b) = worker??;
        done += d;
        bytes += b;
    }
    let elapsed = started.elapsed().as_secs_f64();
    let cpu = cpu_seconds(std::process::id()).unwrap_or(0.0) - cpu_before;
    anyhow::ensure!(done > 0 && bytes > 0, "the ceiling ran no query");
    Ok(Sample { per_second: done as f64 / elapsed, cpu_us: cpu * 1e6 / done as f64 })
}

/// Runs the ceiling as a server runs (the server prefix: CPU 1 when the
/// bench pins) for `window` and reads its sample.
pub(crate) async fn measure(url: &str, window: Duration, in_flight: usize) -> anyhow::Result<Sample> {
    let me = std::env::current_exe()?;
    let prefix = crate::server_prefix();
    let mut argv: Vec<String> = prefix.to_vec();
    argv.push(me.display().to_string());
    argv.extend([
        "ceiling-postgres".into(),
        "--seconds".into(),
        window.as_secs_f64().to_string(),
        "--in-flight".into(),
        in_flight.to_string(),
        "--connections".into(),
        CONNECTIONS.to_string(),
    ]);
    let output = tokio::time::timeout(
        window + Duration::from_secs(30),
        tokio::process::Command::new(&argv[0]).args(&argv[1..]).env(URL_ENV, url).kill_on_drop(true).output(),
    )
    .await
    .context("the pipelined ceiling did not finish")??;
    anyhow::ensure!(
        output.status.success(),
        "the pipelined ceiling failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let answer: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    let field = |name: &str| answer[name].as_f64().with_context(|| format!("no {name} in {answer}"));
    Ok(Sample { per_second: field("per_second")?, cpu_us: field("cpu_us")? })
}
