//! How far a typed read through [`Database::query`] is from a bare
//! tokio-postgres loop running the same query (the engine's share of the
//! #29 benchmark target).
//!
//! Both run `SELECT … FROM orders WHERE customer = <key> ORDER BY id`
//! (10 rows per key) against a fresh `PostgresServer`: (a) on one
//! tokio-postgres client per caller with a prepared statement made once,
//! decoding every value; (b) through [`Postgres`] with
//! [`Placeholders::Named`] and a pool of one connection per caller. Each
//! runs for a fixed time with 1 and 4 concurrent callers, three times; the
//! median calls/s and the ratio (b)/(a) are printed. Where `taskset` exists
//! the server is pinned to CPU 0; run the bench itself on the other core:
//!
//! ```text
//! taskset -c 1 cargo run --release -p switchboard-sql --example pg_bench [SECONDS]
//! ```
//!
//! Measured (2 shared cores, load ~7 from parallel builds, so noisy;
//! 3 s runs): before the engine kept statements prepared, ratio 0.17 (1
//! caller) and 0.16 (4); with configured statements prepared once per
//! connection, 0.38 and 0.35; with a cached configured read in one round
//! trip, 0.53 to 0.59 (1) and 0.49 to 0.54 (4).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Map, json};
use switchboard_sql::postgres::Postgres;
use switchboard_sql::{Call, Database, Options, Placeholders, Statement};
use switchboard_testkit::postgres::PostgresServer;
use tokio_util::sync::CancellationToken;

const PASSWORD: &str = "bench";
const CUSTOMERS: i32 = 1000;
const BARE_SQL: &str = "SELECT id, customer, item, qty, note FROM orders WHERE customer = $1 ORDER BY id";
const NAMED_SQL: &str =
    "SELECT id, customer, item, qty, note FROM orders WHERE customer = :customer ORDER BY id";
const RUNS: usize = 3;

fn main() -> anyhow::Result<()> {
    let seconds: f64 = std::env::args().nth(1).map_or(Ok(2.0), |s| s.parse())?;
    let window = Duration::from_secs_f64(seconds.clamp(0.2, 60.0));
    let pg = PostgresServer::start();
    pin_server(&pg);
    pg.create_role("bench", PASSWORD, "LOGIN");
    pg.create_database("bench");
    pg.execute_in(
        "bench",
        &format!(
            "CREATE TABLE orders (id serial PRIMARY KEY, customer int NOT NULL, item text NOT NULL,
                                  qty int NOT NULL, note text);
             INSERT INTO orders (customer, item, qty, note)
               SELECT c, 'item-' || n, n, CASE WHEN n % 3 = 0 THEN NULL ELSE 'note ' || c END
               FROM generate_series(1, {CUSTOMERS}) c, generate_series(1, 10) n;
             CREATE INDEX ON orders (customer);
             ANALYZE orders;
             GRANT SELECT ON orders TO bench;"
        ),
    );
    let url = pg.url("bench", PASSWORD, "bench");
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    println!("{window:?} per run, median of {RUNS}; calls/s");
    for callers in [1, 4] {
        let mut bare = Vec::new();
        let mut engine = Vec::new();
        for _ in 0..RUNS {
            bare.push(runtime.block_on(bare_loop(&url, callers, window))?);
            engine.push(runtime.block_on(engine_loop(&url, callers, window))?);
        }
        let (bare, engine) = (median(bare), median(engine));
        println!(
            "callers {callers}: bare tokio-postgres {bare:.0}, Database::query {engine:.0}, ratio {:.2}",
            engine / bare
        );
    }
    Ok(())
}

/// Pins the postmaster (and so every backend it forks) to CPU 0.
fn pin_server(pg: &PostgresServer) {
    let pid = std::fs::read_to_string(pg.dir().join("data/postmaster.pid"))
        .ok()
        .and_then(|text| text.lines().next().map(str::to_owned));
    let Some(pid) = pid else { return };
    let pinned = std::process::Command::new("taskset")
        .args(["-apc", "0", &pid])
        .output()
        .is_ok_and(|out| out.status.success());
    println!("postgres {}pinned to CPU 0", if pinned { "" } else { "not " });
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// (a): one client and one prepared statement per caller.
async fn bare_loop(url: &str, callers: usize, window: Duration) -> anyhow::Result<f64> {
    let done = Arc::new(AtomicU64::new(0));
    let deadline = Instant::now() + window;
    let mut tasks = Vec::new();
    for caller in 0..callers {
        let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await?;
        tokio::spawn(connection);
        let done = done.clone();
        tasks.push(tokio::spawn(async move {
            let statement = client.prepare(BARE_SQL).await?;
            let mut key = caller as i32;
            while Instant::now() < deadline {
                key = key % CUSTOMERS + 1;
                let rows = client.query(&statement, &[&key]).await?;
                let mut seen = 0usize;
                for row in &rows {
                    let id: i32 = row.get(0);
                    let customer: i32 = row.get(1);
                    let item: &str = row.get(2);
                    let qty: i32 = row.get(3);
                    let note: Option<&str> = row.get(4);
                    seen += usize::from(id > 0 && customer == key && !item.is_empty() && qty > 0)
                        + usize::from(note.is_some());
                }
                anyhow::ensure!(rows.len() == 10 && seen >= 10, "10 rows per key");
                done.fetch_add(1, Ordering::Relaxed);
            }
            Ok::<_, anyhow::Error>(())
        }));
    }
    let start = Instant::now();
    for task in tasks {
        task.await??;
    }
    Ok(done.load(Ordering::Relaxed) as f64 / start.elapsed().as_secs_f64())
}

/// (b): typed calls through the engine, a pool of one connection per caller.
async fn engine_loop(url: &str, callers: usize, window: Duration) -> anyhow::Result<f64> {
    let options = Options { pool_size: callers, ..Options::default() };
    let db = Arc::new(Postgres::connect(url, None, &options).await?);
    let done = Arc::new(AtomicU64::new(0));
    let deadline = Instant::now() + window;
    let mut tasks = Vec::new();
    for caller in 0..callers {
        let (db, done) = (db.clone(), done.clone());
        tasks.push(tokio::spawn(async move {
            let mut key = caller as i64;
            let mut params = Map::new();
            while Instant::now() < deadline {
                key = key % i64::from(CUSTOMERS) + 1;
                params.insert("customer".into(), json!(key));
                let rows = db
                    .query(Call {
                        statement: Statement { sql: NAMED_SQL, placeholders: Placeholders::Named },
                        params: &params,
                        skip: 0,
                        max_rows: 100,
                        max_bytes: 1 << 20,
                        settings: &[],
                        cancel: CancellationToken::new(),
                    })
                    .await?;
                anyhow::ensure!(rows.rows.len() == 10 && rows.rows[0][1] == key, "10 rows per key");
                done.fetch_add(1, Ordering::Relaxed);
            }
            Ok::<_, anyhow::Error>(())
        }));
    }
    let start = Instant::now();
    for task in tasks {
        task.await??;
    }
    Ok(done.load(Ordering::Relaxed) as f64 / start.elapsed().as_secs_f64())
}
