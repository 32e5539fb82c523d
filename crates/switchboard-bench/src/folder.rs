//! `switchboard-bench folder --sizes 10000,100000[,1000000]`: what a very
//! large served folder costs `switchboard serve DIR` over stdio.
//!
//! Per size, a tree is generated in a temporary folder (removed after):
//! packages of 1,000 small `.rs` files each, every package with a
//! `.gitignore` that hides its `target/` and `*.log` (ignored files are
//! written too, so the rules have something to do). Then, per repetition,
//! a fresh server is started on it and the run reports:
//!
//! - the time from spawn to the `initialize` answer;
//! - the time from spawn to the first *correct* `resources/list` page
//!   (full, every item a served file; an empty or short page is retried
//!   every 5 ms, and counted as wrong in the "first list" column);
//! - full pagination (every page, pages of 100) and its item count;
//! - steady RSS (after pagination and a quiet second) and peak RSS (VmHWM);
//! - one saved file → `notifications/resources/updated` (subscribed):
//!   latency and the server's CPU for it (from `/proc/PID/stat`, 10 ms
//!   ticks, so the median of several saves over their total);
//! - a `.gitignore` edit that hides a folder → `list_changed`, latency, and
//!   whether the list then holds exactly the files still served;
//! - the `search` tool for a literal found in one file, against `rg -F`
//!   (Debian's ripgrep) on the same tree, both pinned to the servers' CPU.
//!
//! Timings are medians of `--reps` server processes; the machine is shared,
//! so compare columns of one run.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};

use crate::load::spawn;
use crate::proc_stat::{cpu_seconds, peak_rss_kb, rss_kb};
use crate::report::median;

/// Files per generated package.
const PER_PACKAGE: usize = 1_000;
/// Files per folder inside a package.
const PER_DIR: usize = 100;
/// The largest tree generated (files served).
const MAX_FILES: usize = 2_000_000;
/// The literal `search` looks for (written into one file).
const NEEDLE: &str = "needle_7f3a9c_unique";
/// How long any one wait lasts at most.
const WAIT: Duration = Duration::from_secs(120);
/// Saves measured per repetition.
const SAVES: usize = 5;

/// One size's medians.
#[derive(Debug, Default)]
struct Row {
    files: usize,
    init_ms: f64,
    first_page_ms: f64,
    first_list_wrong: usize,
    pagination_ms: f64,
    listed: usize,
    steady_mb: f64,
    peak_mb: f64,
    save_ms: f64,
    save_cpu_ms: f64,
    gitignore_ms: f64,
    gitignore_correct: bool,
    search_ms: f64,
    rg_ms: f64,
}

/// Generates each tree, measures it `reps` times, and returns the table.
pub(crate) async fn run(switchboard: &Path, sizes: &[usize], reps: usize) -> anyhow::Result<String> {
    let mut rows = Vec::new();
    for &size in sizes {
        let size = size.clamp(PER_PACKAGE, MAX_FILES);
        let dir =
            std::env::temp_dir().join(format!("switchboard-bench-folder-{}-{size}", std::process::id()));
        let _cleanup = Cleanup(dir.clone());
        eprintln!("folder: generating {size} files in {}", dir.display());
        let tree = generate(&dir, size)?;
        let mut samples = Vec::new();
        for rep in 0..reps.max(1) {
            eprintln!("folder: {size} files, repetition {}/{reps}", rep + 1);
            samples.push(measure(switchboard, &tree).await.with_context(|| format!("{size} files"))?);
            tree.restore()?;
        }
        rows.push(medians(size, &samples));
    }
    Ok(markdown(&rows))
}

/// Removes the generated tree when dropped (also on errors).
struct Cleanup(PathBuf);

impl Drop for Cleanup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A generated tree and what it serves.
struct Tree {
    dir: PathBuf,
    files: usize,
    /// The file saved in the "saved file" measurement (served path).
    saved: String,
    /// The `.gitignore` edited, what it held, and the files the edit hides.
    gitignore: PathBuf,
    gitignore_text: String,
    hidden_by_edit: usize,
}

impl Tree {
    /// Puts back what a measurement changed.
    fn restore(&self) -> anyhow::Result<()> {
        std::fs::write(&self.gitignore, &self.gitignore_text)?;
        Ok(())
    }
}

fn generate(dir: &Path, files: usize) -> anyhow::Result<Tree> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join(".gitignore"), "/scratch/\n")?;
    std::fs::create_dir_all(dir.join("scratch"))?;
    std::fs::write(dir.join("scratch/ignored.txt"), "ignored at the root\n")?;
    let packages = files.div_ceil(PER_PACKAGE);
    let mut written = 0;
    let gitignore_text = "target/\n*.log\n".to_owned();
    for p in 0..packages {
        let package = dir.join(format!("pkg{p:04}"));
        std::fs::create_dir_all(package.join("target"))?;
        std::fs::write(package.join(".gitignore"), &gitignore_text)?;
        for i in 0..10 {
            std::fs::write(package.join(format!("target/out{i}.o")), b"\x7fELF ignored")?;
        }
        std::fs::write(package.join("build.log"), "ignored log\n")?;
        let mut d = 0;
        while d * PER_DIR < PER_PACKAGE && written < files {
            let folder = package.join(format!("src/d{d:02}"));
            std::fs::create_dir_all(&folder)?;
            for f in 0..PER_DIR.min(files - written) {
                let n = written;
                let needle = if n == files / 2 { NEEDLE } else { "" };
                std::fs::write(
                    folder.join(format!("f{f:03}.rs")),
                    format!("// file {n} {needle}\npub fn f{n}() -> usize {{\n    {n}\n}}\n"),
                )?;
                written += 1;
            }
            d += 1;
        }
    }
    let hidden_by_edit = PER_DIR.min(files);
    Ok(Tree {
        dir: dir.to_path_buf(),
        files: written,
        saved: "pkg0000/src/d00/f000.rs".into(),
        gitignore: dir.join("pkg0000/.gitignore"),
        gitignore_text,
        hidden_by_edit,
    })
}

/// A stdio client that keeps notifications aside while it waits for answers.
struct Client {
    child: Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
    notifications: VecDeque<Value>,
    next_id: u64,
}

impl Client {
    async fn start(switchboard: &Path, dir: &Path) -> anyhow::Result<(Self, Duration)> {
        let argv = [switchboard.display().to_string(), "serve".into(), dir.display().to_string()];
        let started = Instant::now();
        let mut child = spawn(&argv, None)?;
        let stdin = child.stdin.take().context("stdin")?;
        let lines = BufReader::new(child.stdout.take().context("stdout")?).lines();
        let mut client = Self { child, stdin, lines, notifications: VecDeque::new(), next_id: 1 };
        let init = client
            .request(
                "initialize",
                json!({"protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "switchboard-bench", "version": "1"}}),
            )
            .await?;
        let elapsed = started.elapsed();
        anyhow::ensure!(init.get("result").is_some(), "initialize failed: {init}");
        client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await?;
        Ok((client, elapsed))
    }

    fn pid(&self) -> anyhow::Result<u32> {
        self.child.id().context("no pid")
    }

    async fn send(&mut self, message: &Value) -> anyhow::Result<()> {
        self.stdin.write_all(format!("{message}\n").as_bytes()).await?;
        self.stdin.flush().await?;
        Ok(())
    }

    async fn read(&mut self) -> anyhow::Result<Value> {
        let line =
            tokio::time::timeout(WAIT, self.lines.next_line()).await??.context("the server hung up")?;
        Ok(serde_json::from_str(&line)?)
    }

    /// Sends a request and returns its answer (the whole message).
    async fn request(&mut self, method: &str, params: Value) -> anyhow::Result<Value> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await?;
        loop {
            let message = self.read().await?;
            if message.get("id").and_then(Value::as_u64) == Some(id) && message.get("method").is_none() {
                return Ok(message);
            }
            if message.get("method").is_some() && message.get("id").is_none() {
                self.notifications.push_back(message);
            }
        }
    }

    /// Waits for a notification `method` (optionally for `uri`).
    async fn notification(&mut self, method: &str, uri: Option<&str>) -> anyhow::Result<()> {
        let matches =
            |m: &Value| m["method"] == method && uri.is_none_or(|u| m["params"]["uri"].as_str() == Some(u));
        if let Some(i) = self.notifications.iter().position(matches) {
            self.notifications.remove(i);
            return Ok(());
        }
        loop {
            let message = self.read().await?;
            if matches(&message) {
                return Ok(());
            }
        }
    }

    /// Every page of `resources/list`: the item count and the URIs of the first page.
    async fn paginate(&mut self) -> anyhow::Result<usize> {
        let mut cursor: Option<String> = None;
        let mut items = 0;
        for _ in 0..MAX_FILES {
            let params = cursor.as_ref().map_or(json!({}), |c| json!({"cursor": c}));
            let answer = self.request("resources/list", params).await?;
            let result = answer.get("result").with_context(|| format!("resources/list failed: {answer}"))?;
            items += result["resources"].as_array().map_or(0, Vec::len);
            match result.get("nextCursor").and_then(Value::as_str) {
                Some(next) => cursor = Some(next.to_owned()),
                None => return Ok(items),
            }
        }
        anyhow::bail!("more pages than files")
    }
}

/// Whether `answer` is a correct first page of a tree of `files` served
/// files: full, and every item a generated source file.
fn correct_first_page(answer: &Value, files: usize) -> bool {
    let Some(items) = answer["result"]["resources"].as_array() else { return false };
    items.len() == files.min(100)
        && items
            .iter()
            .all(|r| r["uri"].as_str().is_some_and(|u| u.starts_with("file:///pkg") && u.ends_with(".rs")))
}

#[derive(Debug, Clone, Default)]
struct Sample {
    init_ms: f64,
    first_page_ms: f64,
    first_list_wrong: bool,
    pagination_ms: f64,
    listed: usize,
    steady_kb: u64,
    peak_kb: u64,
    save_ms: f64,
    save_cpu_ms: f64,
    gitignore_ms: f64,
    gitignore_correct: bool,
    search_ms: f64,
    rg_ms: f64,
}

async fn measure(switchboard: &Path, tree: &Tree) -> anyhow::Result<Sample> {
    let started = Instant::now();
    let (mut client, init) = Client::start(switchboard, &tree.dir).await?;
    let pid = client.pid()?;
    let mut sample = Sample { init_ms: ms(init), ..Sample::default() };
    // The first correct page, however long the index takes (bounded).
    let mut first = true;
    loop {
        let answer = client.request("resources/list", json!({})).await?;
        if correct_first_page(&answer, tree.files) {
            sample.first_page_ms = ms(started.elapsed());
            break;
        }
        sample.first_list_wrong |= first;
        first = false;
        anyhow::ensure!(started.elapsed() < WAIT, "no correct resources/list page within {WAIT:?}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // Wait until the whole list is there (a first page comes before the
    // first scan ends, and so may this first pass through the pages)...
    loop {
        let listed = client.paginate().await?;
        if listed >= tree.files || started.elapsed() > WAIT {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // ...then time full pagination of the finished index.
    let walk = Instant::now();
    sample.listed = client.paginate().await?;
    sample.pagination_ms = ms(walk.elapsed());
    tokio::time::sleep(Duration::from_secs(1)).await;
    client.notifications.clear();
    sample.steady_kb = rss_kb(pid).unwrap_or(0);
    sample.peak_kb = peak_rss_kb(pid).unwrap_or(0);
    (sample.save_ms, sample.save_cpu_ms) = saves(&mut client, tree, pid).await?;
    (sample.gitignore_ms, sample.gitignore_correct) = gitignore_edit(&mut client, tree).await?;
    (sample.search_ms, sample.rg_ms) = search(&mut client, tree).await?;
    Ok(sample)
}

/// Saves one subscribed file `SAVES` times: the median latency to its
/// `resources/updated`, and the server's CPU per save.
async fn saves(client: &mut Client, tree: &Tree, pid: u32) -> anyhow::Result<(f64, f64)> {
    let uri = format!("file:///{}", tree.saved);
    let answer = client.request("resources/subscribe", json!({"uri": uri})).await?;
    anyhow::ensure!(answer.get("result").is_some(), "subscribe failed: {answer}");
    let path = tree.dir.join(&tree.saved);
    let original = std::fs::read_to_string(&path)?;
    let mut latencies = Vec::new();
    let cpu_before = cpu_seconds(pid).unwrap_or(0.0);
    for i in 0..SAVES {
        let saved = Instant::now();
        std::fs::write(&path, format!("{original}// save {i}\n"))?;
        client.notification("notifications/resources/updated", Some(&uri)).await?;
        latencies.push(ms(saved.elapsed()));
        // Let the burst end before the next save.
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let cpu = cpu_seconds(pid).unwrap_or(0.0) - cpu_before;
    std::fs::write(&path, original)?;
    tokio::time::sleep(Duration::from_millis(300)).await;
    client.notifications.clear();
    Ok((median(latencies), cpu * 1e3 / SAVES as f64))
}

/// Hides one folder through a `.gitignore` edit: latency to `list_changed`,
/// and whether the list then holds exactly the files still served.
async fn gitignore_edit(client: &mut Client, tree: &Tree) -> anyhow::Result<(f64, bool)> {
    let edited = Instant::now();
    std::fs::write(&tree.gitignore, format!("{}src/d00/\n", tree.gitignore_text))?;
    client.notification("notifications/resources/list_changed", None).await?;
    let latency = ms(edited.elapsed());
    tokio::time::sleep(Duration::from_millis(300)).await;
    let listed = client.paginate().await?;
    let correct = listed == tree.files - tree.hidden_by_edit;
    tree.restore()?;
    client.notification("notifications/resources/list_changed", None).await?;
    tokio::time::sleep(Duration::from_millis(300)).await;
    client.notifications.clear();
    Ok((latency, correct))
}

/// The `search` tool for the needle, and `rg -F` on the same tree (median of 3 each).
async fn search(client: &mut Client, tree: &Tree) -> anyhow::Result<(f64, f64)> {
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for _ in 0..3 {
        let asked = Instant::now();
        let answer = client
            .request(
                "tools/call",
                json!({"name": "search", "arguments": {"pattern": NEEDLE, "fixed_strings": true}}),
            )
            .await?;
        ours.push(ms(asked.elapsed()));
        let found = answer["result"]["structuredContent"]["matches"].as_array().map_or(0, Vec::len);
        anyhow::ensure!(found == 1, "search found {found} matches, not 1: {answer}");
        let argv: Vec<String> = crate::server_prefix()
            .iter()
            .cloned()
            .chain(["rg", "--no-require-git", "-F", "-n", NEEDLE].map(str::to_owned))
            .chain([tree.dir.display().to_string()])
            .collect();
        let ran = Instant::now();
        let output = tokio::process::Command::new(&argv[0])
            .args(&argv[1..])
            .output()
            .await
            .context("running rg (apt-get install ripgrep)")?;
        theirs.push(ms(ran.elapsed()));
        anyhow::ensure!(
            output.status.success(),
            "rg found nothing: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok((median(ours), median(theirs)))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn medians(files: usize, samples: &[Sample]) -> Row {
    let m = |f: fn(&Sample) -> f64| median(samples.iter().map(f).collect());
    Row {
        files,
        init_ms: m(|s| s.init_ms),
        first_page_ms: m(|s| s.first_page_ms),
        first_list_wrong: samples.iter().filter(|s| s.first_list_wrong).count(),
        pagination_ms: m(|s| s.pagination_ms),
        listed: samples.iter().map(|s| s.listed).min().unwrap_or(0),
        steady_mb: m(|s| s.steady_kb as f64 / 1024.0),
        peak_mb: m(|s| s.peak_kb as f64 / 1024.0),
        save_ms: m(|s| s.save_ms),
        save_cpu_ms: m(|s| s.save_cpu_ms),
        gitignore_ms: m(|s| s.gitignore_ms),
        gitignore_correct: samples.iter().all(|s| s.gitignore_correct),
        search_ms: m(|s| s.search_ms),
        rg_ms: m(|s| s.rg_ms),
    }
}

fn markdown(rows: &[Row]) -> String {
    let mut out = String::from(
        "| files | initialize | first correct page (first list wrong) | full pagination (items) | RSS steady / peak | saved file → updated (server CPU) | .gitignore edit → list_changed (list correct) | search literal / rg |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        out.push_str(&format!(
            "| {} | {:.1} ms | {:.1} ms ({}) | {:.0} ms ({}) | {:.1} / {:.1} MB | {:.1} ms ({:.1} ms) | {:.1} ms ({}) | {:.1} / {:.1} ms ({:.2}×) |\n",
            r.files,
            r.init_ms,
            r.first_page_ms,
            r.first_list_wrong,
            r.pagination_ms,
            r.listed,
            r.steady_mb,
            r.peak_mb,
            r.save_ms,
            r.save_cpu_ms,
            r.gitignore_ms,
            if r.gitignore_correct { "yes" } else { "NO" },
            r.search_ms,
            r.rg_ms,
            r.search_ms / r.rg_ms.max(1e-9),
        ));
    }
    out
}
