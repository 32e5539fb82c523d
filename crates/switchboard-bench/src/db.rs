//! `switchboard-bench db`: a typed `tools/call` returning 10 rows by key,
//! the database workload of issue #29, on one SQLite file:
//!
//! - **switchboard** serving the file with a `[[tools.sql]]` tool
//!   (`orders_of_customer`, `:customer_id` typed by the database), over
//!   stdio and over HTTP at 2026-07-28 (stateless);
//! - **DBHub** (`--dbhub "NODE …/@bytebase/dbhub/dist/index.js"`, 1.4.0
//!   needs Node ≥ 22.5) with a custom tool of the same name and the same
//!   query (`?` placeholder, its SQLite style), over stdio and HTTP;
//! - the **bare loop**, the ceiling: rusqlite in this process, the same
//!   prepared (cached) statement, each row made a JSON object and the
//!   result serialized, nothing else.
//!
//! Every contender's answer to key 1 is checked first to hold the ten
//! rows (each row's `note` is unique). Keys rotate over the customers so
//! no answer is served from a cache of the previous one.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use serde_json::{Map, Value, json};
use tokio::io::AsyncWriteExt;

use crate::Contender;
use crate::load::{Dialect, Sample, Workload, http_throughput, initialized, stdio_throughput};
use crate::proc_stat::{cpu_seconds, peak_rss_kb, rss_kb};
use crate::report::median;

/// Customers in the fixture, each with [`ORDERS_PER_CUSTOMER`] orders.
pub(crate) const CUSTOMERS: u64 = 10_000;
pub(crate) const ORDERS_PER_CUSTOMER: u64 = 10;
pub(crate) const TOOL: &str = "orders_of_customer";
/// The query, with switchboard's named placeholder.
pub(crate) const SQL: &str = "SELECT id, customer_id, total, status, note, created_at FROM orders WHERE customer_id = :customer_id ORDER BY id";
/// [`SQL`] with an engine's positional placeholder (`$1`, `?1`, `?`) in
/// place of switchboard's named one, for the clients that take only those.
pub(crate) fn positional_sql(placeholder: &str) -> String {
    SQL.replace(":customer_id", placeholder)
}

/// The query of the memory check (`rows` rows), sent to the ad-hoc tool.
fn huge_sql(rows: u64) -> String {
    format!(
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < {rows}) \
         SELECT x, 'row number ' || x AS label FROM c"
    )
}
/// How long the 20-million-row query may take before it counts as not answered.
const HUGE_TIMEOUT: Duration = Duration::from_secs(300);
/// Bare-loop iterations at most per window.
pub(crate) const MAX_QUERIES: u64 = 50_000_000;

/// The key of request `id`.
pub(crate) fn key(id: u64) -> u64 {
    id % CUSTOMERS + 1
}

pub(crate) fn workload() -> Workload {
    Workload { tool: TOOL.into(), arguments: Arc::new(|id| json!({"customer_id": key(id)})) }
}

/// Writes `bench.db` (100,000 orders, indexed by customer), the
/// `switchboard.toml` that serves it and DBHub's `dbhub.toml`, in `dir`.
pub(crate) fn fixture(dir: &Path) -> anyhow::Result<PathBuf> {
    let path = dir.join("bench.db");
    let _ = std::fs::remove_file(&path);
    let mut db = rusqlite::Connection::open(&path)?;
    db.execute_batch(
        "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, total REAL NOT NULL,
                              status TEXT NOT NULL, note TEXT NOT NULL, created_at TEXT NOT NULL);",
    )?;
    let tx = db.transaction()?;
    {
        let mut insert = tx.prepare(
            "INSERT INTO orders (id, customer_id, total, status, note, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?;
        for id in 1..=CUSTOMERS * ORDERS_PER_CUSTOMER {
            let customer = (id - 1) / ORDERS_PER_CUSTOMER + 1;
            let status = ["open", "paid", "shipped"][(id % 3) as usize];
            let created = format!("2026-{:02}-{:02}T10:{:02}:00Z", id % 12 + 1, id % 28 + 1, id % 60);
            insert.execute(rusqlite::params![
                id as i64,
                customer as i64,
                (id % 1000) as f64 / 10.0,
                status,
                format!("order-{id}"),
                created
            ])?;
        }
    }
    tx.commit()?;
    db.execute_batch("CREATE INDEX orders_by_customer ON orders(customer_id); ANALYZE;")?;
    std::fs::write(
        dir.join("switchboard.toml"),
        format!(
            "[limits]\ntool_calls_per_minute = 0\n\n[[databases]]\nname = \"bench\"\npath = \"bench.db\"\n\n[[tools.sql]]\nname = \"{TOOL}\"\ndatabase = \"bench\"\n\
             description = \"The orders of one customer.\"\nsql = \"{SQL}\"\n\
             params.customer_id = {{ description = \"The customer's id\" }}\n"
        ),
    )?;
    std::fs::write(
        dir.join("dbhub.toml"),
        format!(
            "[[sources]]\nid = \"bench\"\ndsn = \"sqlite://{}\"\n\n[[tools]]\nname = \"{TOOL}\"\nsource = \"bench\"\n\
             description = \"The orders of one customer.\"\nstatement = \"{}\"\nreadonly = true\n\n\
             [[tools.parameters]]\nname = \"customer_id\"\ntype = \"integer\"\ndescription = \"The customer's id\"\n\n\
             [[tools]]\nname = \"execute_sql\"\nsource = \"bench\"\nreadonly = true\n",
            path.display(),
            positional_sql("?")
        ),
    )?;
    Ok(path)
}

/// The ceiling: the same query through rusqlite for `window`, each result
/// made JSON objects and serialized. Queries per second and CPU µs each.
pub(crate) fn bare_loop(path: &Path, window: Duration, limit: u64) -> anyhow::Result<Sample> {
    let db = rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let sql = positional_sql("?1");
    let cpu_before = cpu_seconds(std::process::id()).unwrap_or(0.0);
    let started = Instant::now();
    let mut done = 0u64;
    let mut bytes = 0usize;
    while started.elapsed() < window && done < limit {
        let mut statement = db.prepare_cached(&sql)?;
        let names: Vec<String> = statement.column_names().map(str::to_owned).collect();
        let mut rows = statement.query([key(done) as i64])?;
        let mut out = Vec::with_capacity(ORDERS_PER_CUSTOMER as usize);
        while let Some(row) = rows.next()? {
            let mut object = Map::with_capacity(names.len());
            for (i, name) in names.iter().enumerate() {
                let value = match row.get_ref(i)? {
                    rusqlite::types::ValueRef::Null => Value::Null,
                    rusqlite::types::ValueRef::Integer(n) => json!(n),
                    rusqlite::types::ValueRef::Real(f) => json!(f),
                    rusqlite::types::ValueRef::Text(t) => {
                        Value::String(String::from_utf8_lossy(t).into_owned())
                    }
                    rusqlite::types::ValueRef::Blob(b) => json!(b.len()),
                };
                object.insert(name.clone(), value);
            }
            out.push(Value::Object(object));
        }
        anyhow::ensure!(
            out.len() == ORDERS_PER_CUSTOMER as usize,
            "key {} gave {} rows",
            key(done),
            out.len()
        );
        bytes += serde_json::to_vec(&out)?.len();
        done += 1;
    }
    let elapsed = started.elapsed().as_secs_f64();
    let cpu = cpu_seconds(std::process::id()).unwrap_or(0.0) - cpu_before;
    anyhow::ensure!(done > 0 && bytes > 0, "the bare loop ran no query");
    Ok(Sample { per_second: done as f64 / elapsed, cpu_us: cpu * 1e6 / done as f64 })
}

/// Calls the tool once over stdio for key 1 and checks the answer holds
/// its ten rows: the contender serves the same query.
pub(crate) async fn check_answer(c: &Contender) -> anyhow::Result<()> {
    let (mut child, _, mut lines) = initialized(c).await?;
    let mut stdin = child.stdin.take().context("stdin")?;
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": TOOL, "arguments": {"customer_id": 1}}});
    stdin.write_all(format!("{request}\n").as_bytes()).await?;
    stdin.flush().await?;
    let line = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
        .await??
        .context("the server closed stdout")?;
    anyhow::ensure!(crate::load::succeeded(line.as_bytes()), "{}: the call failed: {line}", c.name);
    let expected: Vec<u64> = (1..=ORDERS_PER_CUSTOMER).collect();
    anyhow::ensure!(notes(&line) == expected, "{}: not the ten rows of customer 1: {line}", c.name);
    drop(stdin);
    drop(child);
    Ok(())
}

/// The order numbers of every `order-N` note in `text`, sorted, once each.
fn notes(text: &str) -> Vec<u64> {
    let mut found: Vec<u64> = text
        .match_indices("order-")
        .filter_map(|(at, tag)| {
            let digits: String = text[at + tag.len()..].chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
        .collect();
    found.sort_unstable();
    found.dedup();
    found
}

/// What the 20-million-row query cost one server.
#[derive(Debug, Clone)]
pub(crate) struct Huge {
    name: String,
    /// Milliseconds to the answer (None: no answer within [`HUGE_TIMEOUT`]).
    ms: Option<f64>,
    /// Peak resident memory over the resident memory before the call, MB.
    growth_mb: f64,
    /// The first 200 characters of the answer.
    answer: String,
}

/// Sends the 20-million-row query to the contender's ad-hoc SQL tool (the
/// one named `…_query` or `execute_sql…` in `tools/list`) over stdio, and
/// measures the time to the answer and the peak memory growth.
pub(crate) async fn huge_result(c: &Contender, sql: &str) -> anyhow::Result<Huge> {
    let (mut child, _, mut lines) = initialized(c).await?;
    let pid = child.id().context("no pid")?;
    let mut stdin = child.stdin.take().context("stdin")?;
    let mut next = async |request: Value, timeout: Duration| -> anyhow::Result<Option<String>> {
        stdin.write_all(format!("{request}\n").as_bytes()).await?;
        stdin.flush().await?;
        match tokio::time::timeout(timeout, lines.next_line()).await {
            Ok(line) => Ok(line?),
            Err(_) => Ok(None),
        }
    };
    let list = next(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}), Duration::from_secs(20))
        .await?
        .context("no tools/list answer")?;
    let list: Value = serde_json::from_str(&list)?;
    let tool = list["result"]["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str())
        .find(|n| n.ends_with("_query") || n.starts_with("execute_sql"))
        .context("no ad-hoc SQL tool")?
        .to_owned();
    let before = rss_kb(pid).unwrap_or(0);
    let started = Instant::now();
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": tool, "arguments": {"sql": sql}}});
    let answer = next(call, HUGE_TIMEOUT).await?;
    let ms = answer.as_ref().map(|_| started.elapsed().as_secs_f64() * 1e3);
    let peak = peak_rss_kb(pid).unwrap_or(0);
    drop(stdin);
    drop(child);
    Ok(Huge {
        name: c.name.clone(),
        ms,
        growth_mb: peak.saturating_sub(before) as f64 / 1024.0,
        answer: answer.unwrap_or_default().chars().take(200).collect(),
    })
}

/// One contender's medians.
#[derive(Debug, Clone, Default)]
pub(crate) struct DbRow {
    pub name: String,
    pub stdio: Sample,
    pub http_2026: Option<Sample>,
    pub http_handshake: Option<Sample>,
}

/// What the `db` subcommand was asked to measure, for either engine.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DbRun<'a> {
    /// The switchboard binary.
    pub switchboard: &'a Path,
    /// DBHub's command line, when it is measured too.
    pub dbhub: Option<&'a str>,
    /// The length of one measured window.
    pub window: Duration,
    /// Repetitions; the table shows medians.
    pub reps: usize,
    /// HTTP connections.
    pub connections: usize,
    /// stdio messages in flight.
    pub in_flight: usize,
    /// Rows of the one huge ad-hoc query, when it is measured.
    pub huge: Option<u64>,
}

impl DbRun<'_> {
    /// A fresh scratch folder for the run's fixture and configurations.
    pub fn scratch_dir(&self, engine: &str) -> anyhow::Result<PathBuf> {
        let dir = std::env::temp_dir().join(format!("switchboard-bench-{engine}-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        Ok(dir)
    }

    /// The servers serving `dir`, measured; the huge query (when asked
    /// for) is the engine's `huge_sql`.
    pub async fn measure_servers(
        &self,
        dir: &Path,
        huge_sql: fn(u64) -> String,
    ) -> anyhow::Result<(Vec<DbRow>, Vec<Huge>)> {
        let contenders = contenders(self.switchboard, dir, self.dbhub);
        let huge = self.huge.map(|n| (n, huge_sql(n)));
        measure_servers(&contenders, huge.as_ref(), self.window, self.reps, self.connections, self.in_flight)
            .await
    }

    /// The Markdown table: the servers' medians beside each ceiling's
    /// (its name and samples), then the huge query's when it ran.
    pub fn table(&self, rows: &[DbRow], huge_rows: &[Huge], ceilings: &[(&str, Vec<Sample>)]) -> String {
        let ceilings: Vec<(&str, Sample)> =
            ceilings.iter().map(|(name, samples)| (*name, medians(samples).unwrap_or_default())).collect();
        let mut table = markdown(rows, &ceilings, self.connections, self.in_flight);
        if let Some(n) = self.huge {
            table.push_str(&huge_markdown(huge_rows, n));
        }
        table
    }
}

/// Runs the workload on every contender and returns the Markdown table.
pub(crate) async fn run(run: DbRun<'_>) -> anyhow::Result<String> {
    let dir = run.scratch_dir("db")?;
    let path = fixture(&dir)?;
    let (rows, huge_rows) = run.measure_servers(&dir, huge_sql).await?;
    let mut bare = Vec::new();
    for rep in 0..run.reps {
        eprintln!("bare rusqlite loop, repetition {}/{}", rep + 1, run.reps);
        let (path, window) = (path.clone(), run.window);
        bare.push(tokio::task::spawn_blocking(move || bare_loop(&path, window, MAX_QUERIES)).await??);
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(run.table(&rows, &huge_rows, &[("bare rusqlite loop (one thread, the ceiling)", bare)]))
}

/// switchboard serving `dir` (its `switchboard.toml`) over stdio and
/// stateless HTTP, and DBHub (when given) with `dir/dbhub.toml`.
pub(crate) fn contenders(switchboard: &Path, dir: &Path, dbhub: Option<&str>) -> Vec<Contender> {
    let folder = dir.display().to_string();
    let sb = switchboard.display().to_string();
    let mut contenders = vec![Contender {
        name: "switchboard".into(),
        lists: false,
        stdio: vec![sb.clone(), "serve".into(), folder.clone()],
        http: [&sb, "serve", &folder, "--stateless", "--sse", "never", "--http", "127.0.0.1:{port}"]
            .map(str::to_owned)
            .to_vec(),
    }];
    if let Some(dbhub) = dbhub {
        let prefix: Vec<String> = dbhub.split_whitespace().map(str::to_owned).collect();
        let config = dir.join("dbhub.toml").display().to_string();
        let with =
            |args: &[&str]| prefix.iter().cloned().chain(args.iter().map(|a| (*a).to_owned())).collect();
        contenders.push(Contender {
            name: "DBHub 1.4.0".into(),
            lists: false,
            stdio: with(&["--transport", "stdio", "--config", &config]),
            http: with(&["--transport", "http", "--port", "{port}", "--config", &config]),
        });
    }
    contenders
}

/// Checks each contender's answer, sends it the `huge` query (rows, SQL)
/// when asked, then measures the workload over stdio and HTTP in both
/// eras, `reps` times: each contender's medians and huge-query costs.
pub(crate) async fn measure_servers(
    contenders: &[Contender],
    huge: Option<&(u64, String)>,
    window: Duration,
    reps: usize,
    connections: usize,
    in_flight: usize,
) -> anyhow::Result<(Vec<DbRow>, Vec<Huge>)> {
    let workload = workload();
    let mut rows = Vec::new();
    let mut huge_rows = Vec::new();
    for c in contenders {
        // A server that cannot serve the workload (a switchboard built
        // without databases, say) is left out with the reason, not the run.
        if let Err(e) = check_answer(c).await {
            eprintln!("{} left out: its answer to key 1: {e:#}", c.name);
            continue;
        }
        if let Some((n, sql)) = huge {
            eprintln!("{}: the {n}-row query", c.name);
            match huge_result(c, sql).await {
                Ok(h) => huge_rows.push(h),
                Err(e) => eprintln!("{}: the {n}-row query failed: {e:#}", c.name),
            }
        }
        let mut stdio = Vec::new();
        let mut http_2026 = Vec::new();
        let mut http_handshake = Vec::new();
        for rep in 0..reps {
            eprintln!("{}: database workload, repetition {}/{reps}", c.name, rep + 1);
            stdio.push(
                stdio_throughput(c, window, in_flight, &workload)
                    .await
                    .with_context(|| format!("{} over stdio", c.name))?,
            );
            // A server that does not speak 2026-07-28 is measured at its
            // handshake revision only (and the table says so).
            match http_throughput(c, window, connections, Dialect::PerRequest, &workload).await {
                Ok(sample) => http_2026.push(sample),
                Err(e) => eprintln!("{}: HTTP at 2026-07-28 failed: {e:#}", c.name),
            }
            match http_throughput(c, window, connections, Dialect::Handshake, &workload).await {
                Ok(sample) => http_handshake.push(sample),
                Err(e) => eprintln!("{}: HTTP at the handshake revision failed: {e:#}", c.name),
            }
        }
        rows.push(DbRow {
            name: c.name.clone(),
            stdio: medians(&stdio).unwrap_or_default(),
            http_2026: medians(&http_2026),
            http_handshake: medians(&http_handshake),
        });
    }
    Ok((rows, huge_rows))
}

pub(crate) fn medians(samples: &[Sample]) -> Option<Sample> {
    (!samples.is_empty()).then(|| Sample {
        per_second: median(samples.iter().map(|s| s.per_second).collect()),
        cpu_us: median(samples.iter().map(|s| s.cpu_us).collect()),
    })
}

fn cell(sample: Option<Sample>) -> String {
    sample.map_or_else(|| "– | –".into(), |s| format!("{:.0} | {:.1}", s.per_second, s.cpu_us))
}

fn ratio(a: Option<Sample>, b: Option<Sample>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b.per_second > 0.0 => format!("{:.2}×", a.per_second / b.per_second),
        _ => "–".into(),
    }
}

/// The servers' table, a row per ceiling (name, median sample) after
/// theirs, and switchboard's ratios to every other row.
pub(crate) fn markdown(
    rows: &[DbRow],
    ceilings: &[(&str, Sample)],
    connections: usize,
    in_flight: usize,
) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| server | stdio calls/s (W={in_flight}) | CPU µs/call | HTTP calls/s, 2026-07-28 (C={connections}) | CPU µs/call | HTTP calls/s, handshake revision | CPU µs/call |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|");
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            r.name,
            cell(Some(r.stdio)),
            cell(r.http_2026),
            cell(r.http_handshake)
        );
    }
    for (name, ceiling) in ceilings {
        let _ = writeln!(out, "| {name} | {} | – | – | – | – |", cell(Some(*ceiling)));
    }
    if let Some(sb) = rows.iter().find(|r| r.name == "switchboard") {
        let _ = writeln!(out, "\n| switchboard ÷ | stdio | HTTP 2026-07-28 | HTTP handshake revision |");
        let _ = writeln!(out, "|---|---|---|---|");
        for other in rows.iter().filter(|r| r.name != "switchboard") {
            // DBHub's best HTTP figure, whichever revision it answered.
            let other_http = other.http_2026.or(other.http_handshake);
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |",
                other.name,
                ratio(Some(sb.stdio), Some(other.stdio)),
                ratio(sb.http_2026, other_http),
                ratio(sb.http_handshake, other.http_handshake)
            );
        }
        for (name, ceiling) in ceilings {
            let _ = writeln!(
                out,
                "| {name} | {} | {} | – |",
                ratio(Some(sb.stdio), Some(*ceiling)),
                ratio(sb.http_2026, Some(*ceiling))
            );
        }
    }
    out
}

pub(crate) fn huge_markdown(rows: &[Huge], n: u64) -> String {
    use std::fmt::Write as _;
    let mut out = format!(
        "\n| server | {n}-row query through the ad-hoc tool: ms to the answer | peak RSS growth MB | the answer begins |\n|---|---|---|---|\n",
    );
    for h in rows {
        let ms = h
            .ms
            .map_or_else(|| format!("no answer in {} s", HUGE_TIMEOUT.as_secs()), |ms| format!("{ms:.0}"));
        let answer = h.answer.replace('|', "\\|");
        let _ = writeln!(out, "| {} | {ms} | {:.1} | `{answer}` |", h.name, h.growth_mb);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fixture_answers_ten_rows_per_key_and_the_bare_loop_runs() {
        let dir = std::env::temp_dir().join(format!("switchboard-bench-db-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = fixture(&dir).unwrap();
        let sample = bare_loop(&path, Duration::from_secs(5), 200).unwrap();
        assert!(sample.per_second > 0.0);
        let config = std::fs::read_to_string(dir.join("dbhub.toml")).unwrap();
        assert!(config.contains("customer_id = ? ORDER BY id"));
        assert_eq!(notes("[\"order-3\",\"order-1\", order-2 order-1]"), [1, 2, 3]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
