//! `switchboard-bench db --engine postgres`: the database workload of
//! issue #29 (a typed `tools/call` returning 10 rows by key) on a real
//! PostgreSQL, the same fixture and table as the SQLite run (`db.rs`):
//!
//! - a fresh cluster from `switchboard_testkit::postgres::PostgresServer`
//!   (`fsync=off`: the workload only reads), loaded as the superuser with
//!   10,000 customers × 10 orders indexed by `customer_id`, and a
//!   least-privilege role that may only `SELECT` the table and log in;
//! - **switchboard** serving it as a `[[databases]]` entry whose password
//!   comes from `password_env`, set in the `[server] env_file` (never in
//!   `switchboard.toml`, which refuses one), with the same
//!   `[[tools.sql]]` tool, over stdio and HTTP;
//! - **DBHub** with a `postgres://` DSN (its only way to take a password)
//!   and the same custom tool (`$1` placeholder), over stdio and HTTP;
//! - the **bare loop**, the ceiling: tokio-postgres in this process, the
//!   same prepared statement, each row made a JSON object and the result
//!   serialized, one query at a time.
//!
//! Where PostgreSQL runs: when the bench pins (two CPUs and `taskset`), the
//! postmaster and the processes it has started are moved to CPU 1 before
//! any client connects, so every backend (forked from the postmaster)
//! shares CPU 1 with the MCP server, and the load generator (or the bare
//! loop) has CPU 0 alone: the server side of every contender, database
//! included, gets the same one core. CPU µs per call counts the MCP
//! server's process only (the bare loop: this process), not the backend's;
//! PostgreSQL's own CPU per call is measured apart, in windows of their
//! own ([`postgres_share`]), from the postmaster's `/proc` counters.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use switchboard_testkit::postgres::PostgresServer;

use crate::db::{CUSTOMERS, DbRun, MAX_QUERIES, ORDERS_PER_CUSTOMER, SQL, TOOL, key, positional_sql};
use crate::load::{Dialect, Sample, http_throughput, stdio_throughput};
use crate::proc_stat::{children_cpu_seconds, cpu_seconds};

/// The database the fixture lives in.
const DATABASE: &str = "bench";
/// The least-privilege role every contender reads as.
const READER: &str = "bench_reader";
/// The variable switchboard reads the reader's password from.
const PASSWORD_ENV: &str = "BENCH_DB_PASSWORD";

/// The query of the memory check (`rows` rows), sent to the ad-hoc tool.
fn huge_sql(rows: u64) -> String {
    format!("SELECT x, 'row number ' || x AS label FROM generate_series(1, {rows}) AS x")
}

/// The orders table, filled by `generate_series` with the rows the SQLite
/// fixture writes one by one (`created_at` is text there, so text here).
fn fixture_sql() -> String {
    let orders = CUSTOMERS * ORDERS_PER_CUSTOMER;
    format!(
        "CREATE TABLE orders (id bigint PRIMARY KEY, customer_id bigint NOT NULL, total double precision NOT NULL,
                              status text NOT NULL, note text NOT NULL, created_at text NOT NULL);
         INSERT INTO orders (id, customer_id, total, status, note, created_at)
         SELECT g, (g - 1) / {ORDERS_PER_CUSTOMER} + 1, (g % 1000) / 10.0,
                (ARRAY['open', 'paid', 'shipped'])[g % 3 + 1], 'order-' || g,
                format('2026-%s-%sT10:%s:00Z', lpad((g % 12 + 1)::text, 2, '0'),
                       lpad((g % 28 + 1)::text, 2, '0'), lpad((g % 60)::text, 2, '0'))
         FROM generate_series(1, {orders}::bigint) AS g;
         CREATE INDEX orders_by_customer ON orders (customer_id);
         ANALYZE orders;
         GRANT SELECT ON orders TO {READER};"
    )
}

/// A password of letters and digits, fresh for this run.
fn fresh_password() -> String {
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    format!("r{:x}{nanos:x}", std::process::id())
}

/// Starts the cluster, loads the fixture, creates the reader and writes
/// `switchboard.toml`, its `env_file` and `dbhub.toml` in `dir`. Returns
/// the server and the reader's URL (password included) for the bare loop.
fn start(dir: &Path) -> anyhow::Result<(PostgresServer, String)> {
    let pg = PostgresServer::start();
    let password = fresh_password();
    pg.create_role(READER, &password, "LOGIN");
    pg.create_database(DATABASE);
    pg.execute_in(DATABASE, &fixture_sql());
    let rows = pg.query_in(DATABASE, "SELECT count(*) FROM orders");
    anyhow::ensure!(rows == (CUSTOMERS * ORDERS_PER_CUSTOMER).to_string(), "the fixture holds {rows} orders");
    std::fs::write(dir.join(".switchboard.env"), format!("{PASSWORD_ENV}={password}\n"))?;
    std::fs::write(
        dir.join("switchboard.toml"),
        format!(
            "[server]\nenv_file = \".switchboard.env\"\n\n\
             [limits]\ntool_calls_per_minute = 0\n\n\
             [[databases]]\nname = \"{DATABASE}\"\nurl = \"postgres://{READER}@127.0.0.1:{}/{DATABASE}\"\n\
             password_env = \"{PASSWORD_ENV}\"\n\n\
             [[tools.sql]]\nname = \"{TOOL}\"\ndatabase = \"{DATABASE}\"\n\
             description = \"The orders of one customer.\"\nsql = \"{SQL}\"\n\
             params.customer_id = {{ description = \"The customer's id\" }}\n",
            pg.port()
        ),
    )?;
    let url = pg.url(READER, &password, DATABASE);
    std::fs::write(
        dir.join("dbhub.toml"),
        format!(
            "[[sources]]\nid = \"{DATABASE}\"\ndsn = \"{url}?sslmode=disable\"\n\n\
             [[tools]]\nname = \"{TOOL}\"\nsource = \"{DATABASE}\"\n\
             description = \"The orders of one customer.\"\nstatement = \"{}\"\nreadonly = true\n\n\
             [[tools.parameters]]\nname = \"customer_id\"\ntype = \"integer\"\ndescription = \"The customer's id\"\n\n\
             [[tools]]\nname = \"execute_sql\"\nsource = \"{DATABASE}\"\nreadonly = true\n",
            positional_sql("$1")
        ),
    )?;
    Ok((pg, url))
}

/// Moves the postmaster (all its threads) and the processes it has
/// started to CPU 1, where the MCP servers run, when the bench pins.
/// Says where PostgreSQL runs.
fn place_postgres(pg: &PostgresServer) -> String {
    if crate::server_prefix().is_empty() {
        return "PostgreSQL not pinned.".into();
    }
    let Some(pid) = pg.pid() else { return "PostgreSQL not pinned (no pid).".into() };
    let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
    let pin = |process: &str| {
        std::process::Command::new("taskset")
            .args(["-a", "-p", "-c", "1", process])
            .stdout(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if !pin(&pid.to_string()) {
        return "PostgreSQL not pinned (taskset refused its postmaster): it floats.".into();
    }
    let moved = children.split_whitespace().filter(|child| pin(child)).count();
    format!(
        "PostgreSQL (the postmaster, the {moved} process(es) it had started, and every backend forked after) pinned to CPU 1 with the MCP server."
    )
}

/// The CPU seconds PostgreSQL has used so far: the postmaster's own, what
/// its ended children used (reaped into its counters), and what each child
/// still running has used. A backend that ends between two readings moves
/// from the last term to the second, so a difference stays whole.
fn postgres_cpu_seconds(postmaster: u32) -> f64 {
    let own = cpu_seconds(postmaster).unwrap_or(0.0) + children_cpu_seconds(postmaster).unwrap_or(0.0);
    let children =
        std::fs::read_to_string(format!("/proc/{postmaster}/task/{postmaster}/children")).unwrap_or_default();
    own + children.split_whitespace().filter_map(|pid| pid.parse().ok()).filter_map(cpu_seconds).sum::<f64>()
}

/// PostgreSQL's CPU µs per call, measured in windows of their own: a
/// switchboard server over stdio and over HTTP at 2026-07-28, and the bare
/// loop; medians of `run.reps` windows. What one call costs the database
/// beside what it costs the MCP server (in the table's CPU column).
async fn postgres_share(run: &DbRun<'_>, dir: &Path, postmaster: u32, url: &str) -> anyhow::Result<String> {
    let switchboard = crate::db::contenders(run.switchboard, dir, None).remove(0);
    let workload = crate::db::workload();
    let mut stdio = Vec::new();
    let mut http = Vec::new();
    let mut bare = Vec::new();
    let per_call = |before: f64, sample: &Sample, window: Duration| {
        let calls = sample.per_second * window.as_secs_f64();
        (postgres_cpu_seconds(postmaster) - before) * 1e6 / calls.max(1.0)
    };
    for rep in 0..run.reps {
        eprintln!("PostgreSQL's CPU per call, repetition {}/{}", rep + 1, run.reps);
        let before = postgres_cpu_seconds(postmaster);
        let sample = stdio_throughput(&switchboard, run.window, run.in_flight, &workload).await?;
        stdio.push(per_call(before, &sample, run.window));
        let before = postgres_cpu_seconds(postmaster);
        let sample =
            http_throughput(&switchboard, run.window, run.connections, Dialect::PerRequest, &workload)
                .await?;
        http.push(per_call(before, &sample, run.window));
        let before = postgres_cpu_seconds(postmaster);
        let sample = bare_loop(url, run.window, MAX_QUERIES).await?;
        bare.push(per_call(before, &sample, run.window));
    }
    Ok(format!(
        "PostgreSQL's own CPU per call (all its processes, windows of their own, medians): switchboard \
         stdio {:.1} µs, HTTP 2026-07-28 {:.1} µs; the bare loop {:.1} µs.",
        crate::report::median(stdio),
        crate::report::median(http),
        crate::report::median(bare)
    ))
}

/// The ceiling: the same prepared statement through tokio-postgres for
/// `window`, one query at a time, each result made JSON objects and
/// serialized. Queries per second and this process's CPU µs each.
async fn bare_loop(url: &str, window: Duration, limit: u64) -> anyhow::Result<Sample> {
    let (client, connection) =
        tokio_postgres::connect(url, tokio_postgres::NoTls).await.context("the bare loop's connection")?;
    let driver = tokio::spawn(connection);
    let statement = client.prepare(&positional_sql("$1")).await?;
    let cpu_before = cpu_seconds(std::process::id()).unwrap_or(0.0);
    let started = Instant::now();
    let mut done = 0u64;
    let mut bytes = 0usize;
    while started.elapsed() < window && done < limit {
        let customer = key(done) as i64;
        let rows = client.query(&statement, &[&customer]).await?;
        let out = rows.iter().map(crate::ceiling_postgres::row_object).collect::<anyhow::Result<Vec<_>>>()?;
        anyhow::ensure!(out.len() == ORDERS_PER_CUSTOMER as usize, "key {customer} gave {} rows", out.len());
        bytes += serde_json::to_vec(&out)?.len();
        done += 1;
    }
    let elapsed = started.elapsed().as_secs_f64();
    let cpu = cpu_seconds(std::process::id()).unwrap_or(0.0) - cpu_before;
    drop(client);
    let _ = driver.await;
    anyhow::ensure!(done > 0 && bytes > 0, "the bare loop ran no query");
    Ok(Sample { per_second: done as f64 / elapsed, cpu_us: cpu * 1e6 / done as f64 })
}

/// Runs the workload on every contender against PostgreSQL and returns
/// the Markdown table, with a line saying where PostgreSQL ran.
pub(crate) async fn run(run: DbRun<'_>) -> anyhow::Result<String> {
    let dir = run.scratch_dir("db-postgres")?;
    // dbhub.toml and the env_file hold the reader's password: this user's only.
    std::fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o700))?;
    let setup_dir = dir.clone();
    let (pg, url) = tokio::task::spawn_blocking(move || start(&setup_dir)).await??;
    let placement = place_postgres(&pg);
    eprintln!("{placement}");
    let measured = run.measure_servers(&dir, huge_sql).await;
    let mut bare = Vec::new();
    let mut pipelined = Vec::new();
    let mut share = None;
    if measured.is_ok() {
        for rep in 0..run.reps {
            eprintln!("bare tokio-postgres loop, repetition {}/{}", rep + 1, run.reps);
            bare.push(bare_loop(&url, run.window, MAX_QUERIES).await?);
            eprintln!("pipelined tokio-postgres ceiling, repetition {}/{}", rep + 1, run.reps);
            pipelined.push(crate::ceiling_postgres::measure(&url, run.window, run.in_flight).await?);
        }
        if let Some(postmaster) = pg.pid() {
            share = Some(postgres_share(&run, &dir, postmaster, &url).await?);
        }
    }
    drop(pg);
    let _ = std::fs::remove_dir_all(&dir);
    let (rows, huge_rows) = measured?;
    let pipelined_name = format!(
        "pipelined tokio-postgres ({} in flight over {} connections, on the servers' CPU)",
        run.in_flight,
        crate::ceiling_postgres::CONNECTIONS
    );
    let mut table = run.table(
        &rows,
        &huge_rows,
        &[
            ("bare tokio-postgres loop (one query at a time, on the load's CPU)", bare),
            (&pipelined_name, pipelined),
        ],
    );
    table.push_str(&format!("\n{placement}\n"));
    if let Some(share) = share {
        table.push_str(&format!("\n{share}\n"));
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_postgres_fixture_answers_ten_rows_per_key_to_the_reader_and_both_ceilings_run() {
        let dir = tempfile_dir();
        let (pg, url) = start(&dir).unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let sample = runtime.block_on(bare_loop(&url, Duration::from_secs(5), 200)).unwrap();
        assert!(sample.per_second > 0.0);
        // The pipelined ceiling: several queries in flight on each of two
        // connections, every answer checked to be the key's ten rows.
        let sample = runtime
            .block_on(crate::ceiling_postgres::pipelined(&url, Duration::from_secs(5), 8, 2, 200))
            .unwrap();
        assert!(sample.per_second > 0.0);
        let config = std::fs::read_to_string(dir.join("switchboard.toml")).unwrap();
        assert!(!config.contains(&url), "the password is in switchboard.toml");
        let dbhub = std::fs::read_to_string(dir.join("dbhub.toml")).unwrap();
        assert!(dbhub.contains("customer_id = $1 ORDER BY id"));
        // The reader may only read.
        let written = runtime.block_on(async {
            let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.unwrap();
            tokio::spawn(connection);
            client.execute("DELETE FROM orders", &[]).await
        });
        assert!(written.is_err(), "the reader deleted rows");
        assert_eq!(pg.query_in(DATABASE, "SELECT count(*) FROM orders"), "100000");
        drop(pg);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn tempfile_dir() -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("switchboard-bench-db-postgres-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}
