//! MCP Apps views rendered in a real headless browser, as a host shows them.
//!
//! Each case starts the real `switchboard` over Streamable HTTP on loopback
//! (`--allow-origin` for the host page's origin), then runs
//! `tests/apps-host/driver.mjs`: it serves the host page, opens it in
//! Debian's Chromium (found or installed by
//! `switchboard_testkit::chromium::executable`, driven by `puppeteer-core`),
//! and the page, with the official TypeScript client and the official host
//! bridge (`AppBridge` of `@modelcontextprotocol/ext-apps`), lists the
//! tools, calls the tool that has a view, reads the `ui://` resource, renders
//! it in an iframe sandboxed to scripts with the CSP its `_meta.ui.csp`
//! allows, and passes the tool input and result through the bridge. The
//! driver then checks the view's text, clicks and types in it where a case
//! says, and saves a screenshot under `target/tmp/apps-browser/`.
//!
//! Cases: a view from the apps folder with no code (`[apps]`, built with the
//! official `App` class and calling an app-only tool by itself), the
//! shipped configuration example (`examples/apps/config`: a hand-written
//! view whose button calls an app-only tool), the framework example
//! (`examples/apps`, a stdio server fronted by `switchboard proxy --http`),
//! the built-in `search` view (its "search again" form calls `search`
//! from the view) and the built-in table view of a `[[tools.sql]]` tool's
//! rows (sorted by clicking a column). Both eras: the client pinned to
//! 2026-07-28 and in its handshake (legacy) mode.
//!
//! The pinned npm packages (`tests/apps-host/package.json`) are installed by
//! `tests/apps-host/run.sh` into its ignored `node_modules` on first use.
//! These tests fail (never skip) when Chromium or the packages cannot be had.

use std::io::{BufRead as _, BufReader};
use std::net::{Ipv4Addr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// A first run installs the packages (and maybe Chromium); later runs take seconds.
const RUN_LIMIT: Duration = Duration::from_secs(600);
/// How long switchboard may take to print where it listens.
const LISTEN_WAIT: Duration = Duration::from_secs(30);
/// The MCP Apps extension a host declares and switchboard offers.
const UI_EXTENSION: &str = "io.modelcontextprotocol/ui";

/// One browser at a time: a small machine runs Chromium slowly enough already.
static BROWSER: Mutex<()> = Mutex::new(());
/// One driver at a time: the first run installs into a shared folder.
/// Taken after [`BROWSER`] when both are.
static DRIVER: Mutex<()> = Mutex::new(());

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A loopback port nobody listens on right now (for the host page).
fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

/// A switchboard serving HTTP, killed on drop.
struct Served {
    child: Child,
    url: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `switchboard ARGS --http 127.0.0.1:0 --allow-origin ORIGIN` (the
/// options before a `--` in ARGS, which starts an upstream's command) and
/// reads the MCP URL from its first stdout line.
fn serve(args: &[&str], origin: &str) -> Served {
    let split = args.iter().position(|a| *a == "--").unwrap_or(args.len());
    let mut child = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(&args[..split])
        .args(["--http", "127.0.0.1:0", "--allow-origin", origin])
        .args(&args[split..])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("switchboard starts");
    let stdout = child.stdout.take().expect("stdout is piped");
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let mut first = String::new();
        let _ = BufReader::new(stdout).read_line(&mut first);
        let _ = tx.send(first);
    });
    let line =
        rx.recv_timeout(LISTEN_WAIT).unwrap_or_else(|_| panic!("switchboard {args:?} printed no address"));
    let url = line
        .trim()
        .strip_prefix("switchboard listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_owned();
    Served { child, url }
}

/// Runs `tests/apps-host/driver.mjs ARGS` through run.sh; the JSON object it
/// prints last.
fn driver(args: &[&str]) -> Value {
    let _one_at_a_time = DRIVER.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let mut child = Command::new("bash")
        .arg(root().join("tests/apps-host/run.sh"))
        .arg("driver.mjs")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bash runs tests/apps-host/run.sh");
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let mut stderr = child.stderr.take().expect("stderr is piped");
    let out = std::thread::spawn(move || read_all(&mut stdout));
    let err = std::thread::spawn(move || read_all(&mut stderr));
    let deadline = Instant::now() + RUN_LIMIT;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the driver") {
            break Some(status);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let (out, err) = (out.join().expect("stdout reader"), err.join().expect("stderr reader"));
    let status = status.unwrap_or_else(|| panic!("the driver ran over {RUN_LIMIT:?}:\n{out}\n{err}"));
    assert!(status.success(), "the driver failed ({status}):\n{out}\n{err}");
    let last = out.lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|e| panic!("no JSON report ({e}):\n{out}\n{err}"))
}

fn read_all(from: &mut impl std::io::Read) -> String {
    let mut text = String::new();
    let _ = from.read_to_string(&mut text);
    text
}

/// Where a case's screenshot is kept.
fn screenshot(case: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("apps-browser").join(format!("{case}.png"))
}

/// What a case serves and does in the view.
struct Case<'a> {
    /// Names the screenshot.
    name: &'a str,
    /// switchboard's arguments (before `--http`).
    serve: &'a [&'a str],
    /// `2026-07-28`, or `legacy` for the client's handshake mode.
    era: &'a str,
    /// The tool with a view, and its arguments.
    tool: &'a str,
    arguments: Value,
    /// What to wait for, click and type in the view.
    steps: Value,
}

/// Serves the case, renders its tool in the browser and runs its steps in
/// the view; the driver's report, after checking what every case must
/// show: each step's text found, a screenshot written, no error in the
/// host, the negotiated revision, the extension offered.
fn render(case: Case<'_>) -> Value {
    let Case { name: case, serve: serve_args, era, tool, arguments, steps } = case;
    let _one_at_a_time = BROWSER.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let host_port = free_port();
    let origin = format!("http://127.0.0.1:{host_port}");
    let served = serve(serve_args, &origin);
    let shot = screenshot(case);
    let _ = std::fs::remove_file(&shot);
    let config = json!({
        "mcpUrl": served.url,
        "hostPort": host_port,
        "chromium": switchboard_testkit::chromium::executable(),
        "era": era,
        "tool": tool,
        "arguments": arguments,
        "steps": steps,
        "screenshot": shot,
        "timeoutMs": 60_000,
    });
    let report = driver(&["render", &config.to_string()]);
    let host = &report["host"];
    assert!(host.get("failed").is_none(), "{case}: the host failed: {report:#}");
    assert_eq!(host["errors"], json!([]), "{case}: {report:#}");
    for step in report["steps"].as_array().expect("steps") {
        assert_eq!(
            step.get("missing").cloned().unwrap_or(json!([])),
            json!([]),
            "{case}: the view never showed it: {report:#}"
        );
    }
    assert_eq!(
        report["steps"].as_array().map(Vec::len),
        steps.as_array().map(Vec::len),
        "{case}: every step ran: {report:#}"
    );
    let expected_version = if era == "legacy" { "2025-11-25" } else { era };
    assert_eq!(host["protocolVersion"], expected_version, "{case}: {report:#}");
    assert!(
        host["serverExtensions"].as_array().is_some_and(|e| e.iter().any(|x| x == UI_EXTENSION)),
        "{case}: switchboard offers {UI_EXTENSION}: {report:#}"
    );
    assert_eq!(host["resourceMimeType"], "text/html;profile=mcp-app", "{case}: {report:#}");
    assert!(shot.is_file(), "{case}: no screenshot at {}", shot.display());
    report
}

/// The tool `name` as the host listed it.
fn listed<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["host"]["tools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|t| t["name"] == name))
        .unwrap_or_else(|| panic!("no tool {name} listed: {report:#}"))
}

/// The names of the tools the view called through the host, in order.
fn view_calls(report: &Value) -> Vec<String> {
    report["host"]["viewCalls"]
        .as_array()
        .map(|calls| calls.iter().filter_map(|c| c["name"].as_str().map(str::to_owned)).collect())
        .unwrap_or_default()
}

/// A folder with `switchboard.toml` and `apps/report.html` (built by the
/// driver with the official `App` class; it calls `tally_secret` once it
/// has the result) and `apps/report.toml` (a CSP origin).
fn apps_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(
        dir.path().join("switchboard.toml"),
        r#"
[server]
name = "browser-test"

[apps]
dir = "apps"

[[tools.command]]
name = "report"
description = "Reports on a topic; hosts that render views show the report view."
command = ["echo", "report on {topic}: 42 widgets"]
input_schema = { type = "object", properties = { topic = { type = "string" } }, required = ["topic"] }
read_only = true
ui = "report"

[[tools.command]]
name = "tally_secret"
description = "Only the report view calls it."
command = ["echo", "app-only answer 7"]
read_only = true
ui = "report"
visibility = ["app"]
"#,
    )
    .expect("write switchboard.toml");
    std::fs::create_dir(dir.path().join("apps")).expect("create apps/");
    std::fs::write(
        dir.path().join("apps/report.toml"),
        "title = \"Report\"\n[csp]\nconnect_domains = [\"https://api.example.com\"]\n",
    )
    .expect("write apps/report.toml");
    let view = dir.path().join("apps/report.html");
    let config = json!({"appTool": "tally_secret", "appArguments": {}}).to_string();
    driver(&["view", view.to_str().expect("UTF-8 path"), "Report", &config]);
    dir
}

/// The steps of the apps-folder view: input, result, the app-only call's
/// answer and the CSP at work.
fn apps_folder_steps() -> Value {
    json!([{"expect": [
        "{\"topic\":\"bikes\"}",
        "report on bikes: 42 widgets",
        "app-only answer 7",
        "blocked by connect-src: http://127.0.0.1:9/csp-probe",
    ]}])
}

fn check_apps_folder_report(report: &Value) {
    let host = &report["host"];
    assert_eq!(host["resourceUri"], "ui://browser-test/report", "{report:#}");
    assert_eq!(listed(report, "tally_secret")["ui"]["visibility"], json!(["app"]), "{report:#}");
    assert_eq!(
        listed(report, "report")["flatUri"],
        "ui://browser-test/report",
        "the deprecated key too: {report:#}"
    );
    assert_eq!(view_calls(report), ["tally_secret"], "{report:#}");
    let csp = host["csp"].as_str().expect("the CSP the host built");
    assert!(
        csp.contains("connect-src https://api.example.com"),
        "the side file's origin reached the iframe: {csp}"
    );
    assert_eq!(
        host["resourceMeta"]["ui"]["csp"]["connectDomains"],
        json!(["https://api.example.com"]),
        "{report:#}"
    );
}

#[test]
fn a_view_from_the_apps_folder_renders_with_its_csp_and_calls_an_app_only_tool_2026() {
    let dir = apps_folder();
    let folder = dir.path().to_str().expect("UTF-8 path");
    let report = render(Case {
        name: "apps-folder-2026",
        serve: &["serve", folder],
        era: "2026-07-28",
        tool: "report",
        arguments: json!({"topic": "bikes"}),
        steps: apps_folder_steps(),
    });
    check_apps_folder_report(&report);
}

#[test]
fn a_view_from_the_apps_folder_renders_with_its_csp_and_calls_an_app_only_tool_handshake() {
    let dir = apps_folder();
    let folder = dir.path().to_str().expect("UTF-8 path");
    let report = render(Case {
        name: "apps-folder-handshake",
        serve: &["serve", folder],
        era: "legacy",
        tool: "report",
        arguments: json!({"topic": "bikes"}),
        steps: apps_folder_steps(),
    });
    check_apps_folder_report(&report);
}

#[test]
fn the_configuration_example_greets_and_its_button_calls_the_app_only_tool() {
    let folder = root().join("examples/apps/config");
    let report = render(Case {
        name: "config-example",
        serve: &["serve", folder.to_str().expect("UTF-8 path")],
        era: "2026-07-28",
        tool: "greet",
        arguments: json!({"name": "Ada"}),
        steps: json!([{"expect": ["Hello, Ada"]}, {"click": "#wave"}, {"expect": ["The server waves back."]}]),
    });
    assert_eq!(report["host"]["resourceUri"], "ui://apps-demo/greeting", "{report:#}");
    assert_eq!(listed(&report, "wave")["ui"]["visibility"], json!(["app"]), "{report:#}");
    assert_eq!(view_calls(&report), ["wave"], "{report:#}");
}

/// The framework example's binary, built beside this switchboard.
fn example_binary() -> PathBuf {
    let switchboard = Path::new(env!("CARGO_BIN_EXE_switchboard"));
    let dir = switchboard.parent().expect("the binary's folder");
    let binary = dir.join(format!("example-apps{}", std::env::consts::EXE_SUFFIX));
    if !binary.is_file() {
        // `cargo test -p switchboard` alone does not build other packages.
        let target = dir.parent().expect("the target folder");
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let status = Command::new(cargo)
            .args(["build", "-p", "example-apps"])
            .env("CARGO_TARGET_DIR", target)
            .current_dir(root())
            .status()
            .expect("cargo runs");
        assert!(status.success(), "cargo build -p example-apps failed");
    }
    binary
}

#[test]
fn the_framework_example_renders_through_switchboard_proxy_and_its_button_adds() {
    let example = example_binary();
    // The proxy offers the extension as the example does, but its own
    // connection to the example declares no view support, so tally_show
    // answers with text (the view shows "–"); tally_add, called from the
    // view, answers with the count it renders.
    let report = render(Case {
        name: "framework-example",
        serve: &["proxy", "--", example.to_str().expect("UTF-8 path")],
        era: "legacy",
        tool: "tally_show",
        arguments: json!({}),
        steps: json!([{"expect": ["Tally", "Add one"]}, {"click": "#add"}, {"expect": ["1"]}]),
    });
    assert_eq!(report["host"]["resourceUri"], "ui://tally/counter", "{report:#}");
    assert_eq!(listed(&report, "tally_add")["ui"]["visibility"], json!(["app"]), "{report:#}");
    assert_eq!(view_calls(&report), ["tally_add"], "{report:#}");
}

#[test]
fn the_built_in_search_view_groups_matches_by_file_and_searches_again_from_the_view() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(dir.path().join("notes.md"), "a needle in the notes\nnothing here\n")
        .expect("write notes.md");
    std::fs::create_dir(dir.path().join("src")).expect("create src/");
    std::fs::write(dir.path().join("src/lib.rs"), "// haystack\nlet needle = 2;\n")
        .expect("write src/lib.rs");
    let report = render(Case {
        name: "search-view",
        serve: &["serve", dir.path().to_str().expect("UTF-8 path")],
        era: "2026-07-28",
        tool: "search",
        arguments: json!({"pattern": "needle"}),
        steps: json!([
            {"expect": ["notes.md", "src/lib.rs", "a needle in the notes", "let needle = 2;"]},
            // The README's picture of the view (docs/views-search.png).
            {"screenshot": "search-view-results"},
            {"type": ["#pattern", "haystack"]},
            {"click": "#again button"},
            {"expect": ["// haystack"]},
        ]),
    });
    assert_eq!(report["host"]["resourceUri"], "ui://switchboard/search", "{report:#}");
    assert_eq!(view_calls(&report), ["search"], "the view searched again through the host: {report:#}");
    let again = &report["host"]["viewCalls"][0];
    assert_eq!(again["arguments"]["pattern"], "haystack", "{report:#}");
    assert!(again["text"].as_str().is_some_and(|t| t.contains("src/lib.rs")), "{report:#}");
}

#[test]
fn the_built_in_table_view_shows_rows_and_sorts_them_by_a_clicked_column() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(
        dir.path().join("switchboard.toml"),
        r#"
[server]
name = "shop"

[[databases]]
name = "shop"
path = "shop.sqlite"

[[tools.sql]]
name = "orders"
description = "Every order."
database = "shop"
sql = "SELECT id, customer, total FROM orders ORDER BY id"
"#,
    )
    .expect("write switchboard.toml");
    let db = rusqlite::Connection::open(dir.path().join("shop.sqlite")).expect("create shop.sqlite");
    db.execute_batch(
        "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT, total INTEGER);
         INSERT INTO orders VALUES (1, 'Ada', 950), (2, 'Grace', 3000), (3, 'Linus', 300);",
    )
    .expect("fill shop.sqlite");
    drop(db);
    let report = render(Case {
        name: "table-view",
        serve: &["serve", dir.path().to_str().expect("UTF-8 path")],
        era: "legacy",
        tool: "orders",
        arguments: json!({}),
        steps: json!([
            {"expect": ["3 rows", "1\tAda\t950\n2\tGrace\t3000\n3\tLinus\t300"]},
            {"click": "th:nth-child(3)"},
            {"expect": ["3\tLinus\t300\n1\tAda\t950\n2\tGrace\t3000"]},
            {"click": "th:nth-child(3)"},
            {"expect": ["2\tGrace\t3000\n1\tAda\t950\n3\tLinus\t300"]},
        ]),
    });
    assert_eq!(report["host"]["resourceUri"], "ui://switchboard/table", "{report:#}");
}
