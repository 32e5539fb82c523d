//! Views (MCP Apps) from `switchboard.toml` with no code, through the real
//! `switchboard` binary: the apps folder's pages as `ui://` resources with
//! their side files' `_meta.ui`, tools that name them (`ui`, `visibility`),
//! the built-in views of `search` and of rows, live reload, the write
//! policy that keeps the model out of the apps folder (checked on disk),
//! and `check` / `list`.

use crate::common;

use std::path::Path;
use std::time::Duration;

use common::Switchboard;
use serde_json::{Value, json};

const UI: &str = "io.modelcontextprotocol/ui";
const MIME: &str = "text/html;profile=mcp-app";
const PAGE: &str = "<!doctype html><title>Report</title><p id=out>report view</p>";

const CONFIG: &str = r#"[server]
name = "shop"

[tools.builtin]
write = true
delete = true

[[tools.command]]
name = "report"
command = ["echo", "the report"]
ui = "report"

[[tools.command]]
name = "refresh"
command = ["echo", "refreshed"]
ui = "report"
visibility = ["app"]

[[tools.http]]
name = "weather"
url = "http://127.0.0.1:9/weather"
ui = "report"
visibility = ["model"]

[[tools.openapi]]
document = "api.yaml"
ui = "report"
"#;

const OPENAPI: &str = r#"openapi: 3.0.3
info: {title: Pets, version: "1"}
servers: [{url: "http://127.0.0.1:9"}]
paths:
  /pets:
    get:
      operationId: listPets
      responses: {"200": {description: ok}}
"#;

const SIDE: &str = r#"title = "Test report"
description = "The last run"
prefers_border = true
permissions = ["clipboard_write"]

[csp]
connect_domains = ["https://api.example.com"]
resource_domains = ["https://*.cdn.example.com"]
"#;

fn put(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A project with `config` and the view `apps/report.html` (+ side file).
fn project(config: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    if let Some(config) = config {
        put(dir.path(), "switchboard.toml", config);
    }
    put(dir.path(), "apps/report.html", PAGE);
    put(dir.path(), "apps/report.toml", SIDE);
    put(dir.path(), "src/lib.rs", "pub fn answer() -> u32 { 42 }\n");
    put(dir.path(), "api.yaml", OPENAPI);
    dir
}

fn tool<'a>(tools: &'a Value, name: &str) -> &'a Value {
    tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name}: {tools}"))
}

fn resource<'a>(resources: &'a Value, uri: &str) -> Option<&'a Value> {
    resources["resources"].as_array().unwrap().iter().find(|r| r["uri"] == uri)
}

#[test]
fn a_page_of_the_apps_folder_is_a_ui_resource_with_its_side_files_meta() {
    let dir = project(Some(CONFIG));
    let mut sb = Switchboard::start(&["serve", "."], dir.path());
    let listed = sb.result("resources/list", json!({}));
    let view = resource(&listed, "ui://shop/report").unwrap_or_else(|| panic!("{listed}"));
    assert_eq!(view["mimeType"], MIME);
    assert_eq!(view["title"], "Test report");
    let expected_ui = json!({
        "csp": {"connectDomains": ["https://api.example.com"], "resourceDomains": ["https://*.cdn.example.com"]},
        "permissions": {"clipboardWrite": {}},
        "prefersBorder": true
    });
    assert_eq!(view["_meta"]["ui"], expected_ui, "{view}");
    let read = sb.result("resources/read", json!({"uri": "ui://shop/report"}));
    let contents = &read["contents"][0];
    assert_eq!(contents["text"], PAGE);
    assert_eq!(contents["mimeType"], MIME);
    assert_eq!(contents["_meta"]["ui"], expected_ui, "{read}");
    sb.finish();
}

#[test]
fn tools_name_their_view_and_who_may_call_them() {
    let dir = project(Some(CONFIG));
    let mut sb = Switchboard::start(&["serve", "."], dir.path());
    let tools = sb.result("tools/list", json!({}));
    let report = tool(&tools, "report");
    assert_eq!(report["_meta"]["ui"]["resourceUri"], "ui://shop/report", "{report}");
    assert_eq!(report["_meta"]["ui/resourceUri"], "ui://shop/report", "{report}");
    assert!(report["_meta"]["ui"].get("visibility").is_none(), "{report}");
    let refresh = tool(&tools, "refresh");
    assert_eq!(refresh["_meta"]["ui"]["visibility"], json!(["app"]), "{refresh}");
    let weather = tool(&tools, "weather");
    assert_eq!(weather["_meta"]["ui"], json!({"resourceUri": "ui://shop/report", "visibility": ["model"]}));
    assert_eq!(tool(&tools, "listPets")["_meta"]["ui"]["resourceUri"], "ui://shop/report", "{tools}");
    // The built-in search tool shows the built-in view, which is served.
    let search = tool(&tools, "search");
    assert_eq!(search["_meta"]["ui"]["resourceUri"], "ui://switchboard/search", "{search}");
    for view in ["ui://switchboard/search", "ui://switchboard/table"] {
        let read = sb.result("resources/read", json!({"uri": view}));
        let contents = &read["contents"][0];
        assert_eq!(contents["mimeType"], MIME, "{read}");
        assert_eq!(contents["_meta"]["ui"]["prefersBorder"], true, "{read}");
        let page = contents["text"].as_str().unwrap();
        assert!(page.contains("ui/initialize") && page.contains("ui/notifications/tool-result"), "{page}");
    }
    let unknown = sb.request("resources/read", json!({"uri": "ui://switchboard/nothing"}));
    assert!(unknown.get("error").is_some(), "{unknown}");
    // A host that renders no views still gets the plain result.
    let called = sb.result("tools/call", json!({"name": "report", "arguments": {}}));
    assert!(called["content"][0]["text"].as_str().unwrap().contains("the report"), "{called}");
    sb.finish();
}

/// The model's write tools never change the apps folder: each refusal is
/// an error result, and the file on disk is unchanged afterwards.
#[test]
fn the_model_never_writes_the_apps_folder() {
    let dir = project(Some(CONFIG));
    put(dir.path(), "notes.md", "<script>evil()</script>\n");
    let mut sb = Switchboard::start(&["serve", "."], dir.path());
    let attempts = [
        json!({"name": "write_file", "arguments": {"path": "apps/report.html", "content": "<script>evil()</script>"}}),
        json!({"name": "write_file", "arguments": {"path": "apps/new.html", "content": "<script>evil()</script>"}}),
        json!({"name": "write_file", "arguments": {"path": "apps/report.toml", "content": "[csp]\nconnect_domains = [\"https://evil.example\"]\n"}}),
        json!({"name": "edit_file", "arguments": {"path": "apps/report.html", "edits": [{"old_text": "report view", "new_text": "evil"}]}}),
        json!({"name": "move_file", "arguments": {"source": "notes.md", "destination": "apps/notes.html"}}),
        json!({"name": "move_file", "arguments": {"source": "apps/report.html", "destination": "report.html"}}),
        json!({"name": "create_directory", "arguments": {"path": "apps/more"}}),
        json!({"name": "delete_file", "arguments": {"path": "apps/report.html"}}),
    ];
    for attempt in attempts {
        let result = sb.result("tools/call", attempt.clone());
        assert_eq!(result["isError"], true, "{attempt} was allowed: {result}");
        let text = result["content"][0]["text"].as_str().unwrap_or_default().to_owned();
        assert!(text.contains("never written") || text.contains("not allowed"), "{attempt}: {text}");
    }
    assert_eq!(std::fs::read_to_string(dir.path().join("apps/report.html")).unwrap(), PAGE);
    assert_eq!(std::fs::read_to_string(dir.path().join("apps/report.toml")).unwrap(), SIDE);
    assert!(!dir.path().join("apps/new.html").exists());
    assert!(!dir.path().join("apps/notes.html").exists());
    assert!(!dir.path().join("apps/more").exists());
    assert!(dir.path().join("notes.md").exists());
    // The model still reads the page (a view is a served file).
    let read =
        sb.result("tools/call", json!({"name": "read_file", "arguments": {"path": "apps/report.html"}}));
    assert!(read["content"][0]["text"].as_str().unwrap().contains("report view"), "{read}");
    sb.finish();
}

/// A view added, changed and removed on disk is announced and served
/// without a restart.
#[test]
fn views_reload_live() {
    let dir = project(Some(CONFIG));
    let mut sb = Switchboard::start(&["serve", "."], dir.path());
    sb.result("resources/subscribe", json!({"uri": "ui://shop/report"}));
    sb.drain();
    put(dir.path(), "apps/chart.html", "<p>chart</p>");
    sb.notification("notifications/resources/list_changed", None);
    wait_listed(&mut sb, "ui://shop/chart", true);

    sb.drain();
    put(dir.path(), "apps/report.html", "<p>report v2</p>");
    sb.notification("notifications/resources/updated", Some("ui://shop/report"));
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let read = sb.result("resources/read", json!({"uri": "ui://shop/report"}));
        if read["contents"][0]["text"] == "<p>report v2</p>" {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the edit is not served: {read}");
        std::thread::sleep(Duration::from_millis(50));
    }

    std::fs::remove_file(dir.path().join("apps/chart.html")).unwrap();
    wait_listed(&mut sb, "ui://shop/chart", false);
    sb.finish();
}

/// Waits (10 s at most) until `uri` is listed (`present`) or not.
fn wait_listed(sb: &mut Switchboard, uri: &str, present: bool) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let listed = sb.result("resources/list", json!({}));
        if resource(&listed, uri).is_some() == present {
            return;
        }
        assert!(std::time::Instant::now() < deadline, "{uri} listed is not {present}: {listed}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Zero-config: an `apps/` folder is served as it is; a view whose side
/// file is wrong is left out with a note, the others are served.
#[test]
fn zero_config_serves_the_apps_folder_and_leaves_out_a_broken_view() {
    let dir = project(None);
    put(dir.path(), "apps/broken.html", "<p>broken</p>");
    put(dir.path(), "apps/broken.toml", "[csp]\nconnect_domains = [\"not an origin\"]\n");
    // Pages the [files] rules do not serve are no views.
    put(dir.path(), ".gitignore", "apps/ignored.html\n");
    put(dir.path(), "apps/ignored.html", "<p>ignored</p>");
    put(dir.path(), "apps/.hidden.html", "<p>hidden</p>");
    let mut sb = Switchboard::start(&["serve", "."], dir.path());
    let listed = sb.result("resources/list", json!({}));
    let name = dir.path().canonicalize().unwrap().file_name().unwrap().to_string_lossy().into_owned();
    let authority: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || "-._~".contains(c) { c } else { '-' }).collect();
    assert!(resource(&listed, &format!("ui://{authority}/report")).is_some(), "{listed}");
    assert!(resource(&listed, &format!("ui://{authority}/broken")).is_none(), "{listed}");
    let views: Vec<&str> = listed["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["uri"].as_str())
        .filter(|u| u.starts_with("ui://"))
        .collect();
    assert_eq!(views, [format!("ui://{authority}/report")], "{listed}");
    let stderr = sb.wait_stderr("broken.toml:2:");
    assert!(stderr.contains("connect_domains"), "{stderr}");
    sb.finish();
}

/// `check` places a tool naming no view at its `ui` key, a `visibility`
/// without a view at its key, and a bad CSP origin and permission at their
/// line of the side file.
#[test]
fn check_places_every_view_problem_at_its_line() {
    let config = r#"[server]
name = "shop"

[[tools.command]]
name = "report"
command = ["echo", "hi"]
ui = "nope"

[[tools.command]]
name = "other"
command = ["echo", "hi"]
visibility = ["app"]
"#;
    let dir = project(Some(config));
    put(
        dir.path(),
        "apps/report.toml",
        "title = \"Report\"\n[csp]\nconnect_domains = [\"https://api.example.com/v1\"]\n",
    );
    put(dir.path(), "apps/chart.html", "<p>chart</p>");
    put(dir.path(), "apps/map.html", "<p>map</p>");
    put(dir.path(), "apps/map.toml", "permissions = [\"telepathy\"]\n");
    let (ok, stdout, stderr) = common::run(&["check"], dir.path());
    assert!(!ok, "{stdout}{stderr}");
    assert!(stderr.contains("switchboard.toml:7:6:") && stderr.contains("no view \"nope\""), "{stderr}");
    assert!(stderr.contains("the views are chart"), "{stderr}");
    assert!(stderr.contains("switchboard.toml:12:"), "{stderr}");
    assert!(stderr.contains("report.toml:3:") && stderr.contains("connect_domains"), "{stderr}");
    assert!(stderr.contains("map.toml:1:") && stderr.contains("telepathy"), "{stderr}");
}

#[test]
fn list_shows_the_views_and_the_tools_that_show_them() {
    let dir = project(Some(CONFIG));
    let (ok, stdout, stderr) = common::run(&["list", "--json"], dir.path());
    assert!(ok, "{stderr}");
    let listing: Value = serde_json::from_str(&stdout).unwrap();
    let views = listing["views"].as_array().unwrap_or_else(|| panic!("{listing:#}"));
    let report = views.iter().find(|v| v["uri"] == "ui://shop/report").unwrap();
    assert_eq!(report["title"], "Test report");
    let shown_by: Vec<&str> =
        report["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(shown_by, ["report", "refresh", "weather", "listPets"], "{report}");
    assert_eq!(report["tools"][1], json!({"name": "refresh", "visibility": ["app"]}));
    assert!(views.iter().any(|v| v["uri"] == "ui://switchboard/search"), "{views:?}");
    let (ok, stdout, _) = common::run(&["list"], dir.path());
    assert!(ok);
    assert!(
        stdout.contains("Views (2):")
            && stdout.contains("shown by report, refresh (app), weather (model), listPets"),
        "{stdout}"
    );
}

/// The read SQL tools and the query tool show the built-in table view; a
/// `[[tools.sql]]` tool can name a view of its own.
#[test]
fn rows_show_the_built_in_table_view() {
    let config = r#"[server]
name = "shop"

[[databases]]
name = "shop"
path = "shop.sqlite"

[[tools.sql]]
name = "open_orders"
database = "shop"
sql = "SELECT id, total FROM orders"
visibility = ["app"]

[[tools.sql]]
name = "orders_report"
database = "shop"
sql = "SELECT id FROM orders"
ui = "report"
visibility = ["model", "app"]
"#;
    let dir = project(Some(config));
    let db = rusqlite::Connection::open(dir.path().join("shop.sqlite")).unwrap();
    db.execute_batch(
        "CREATE TABLE orders (id INTEGER PRIMARY KEY, total REAL); INSERT INTO orders VALUES (1, 9.5), (2, 3.0);",
    )
    .unwrap();
    drop(db);
    let (ok, stdout, stderr) = common::run(&["list", "--json"], dir.path());
    assert!(ok, "{stderr}");
    let listing: Value = serde_json::from_str(&stdout).unwrap();
    let open = tool(&listing, "open_orders");
    assert_eq!(open["_meta"]["ui"]["resourceUri"], "ui://switchboard/table", "{open}");
    assert_eq!(open["_meta"]["ui"]["visibility"], json!(["app"]), "{open}");
    let query = listing["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "shop_query")
        .unwrap_or_else(|| panic!("{listing:#}"));
    assert_eq!(query["_meta"]["ui"]["resourceUri"], "ui://switchboard/table", "{query}");
    let own = tool(&listing, "orders_report");
    assert_eq!(own["_meta"]["ui"]["resourceUri"], "ui://shop/report", "{own}");
    assert_eq!(own["_meta"]["ui"]["visibility"], json!(["model", "app"]), "{own}");
    // The built-in views are one template, out of the folder's listing.
    let templates = listing["resourceTemplates"].as_array().unwrap();
    let views = templates
        .iter()
        .find(|t| t["uriTemplate"] == "ui://switchboard/{view}")
        .unwrap_or_else(|| panic!("{listing:#}"));
    assert_eq!(views["mimeType"], MIME);
    assert!(listing["resources"].as_array().unwrap().iter().all(|r| r["uri"] != "ui://switchboard/table"));
    let shown: Vec<&str> =
        listing["views"].as_array().unwrap().iter().map(|v| v["uri"].as_str().unwrap()).collect();
    assert!(shown.contains(&"ui://switchboard/table") && shown.contains(&"ui://shop/report"), "{shown:?}");
}

/// Over HTTP, both eras: the extension is offered, and the tools' view
/// linkage and the views read the same.
#[tokio::test]
async fn http_both_eras_offer_the_extension_and_the_views() {
    let dir = project(Some(CONFIG));
    let (_child, url) =
        common::start_http(&["serve", ".", "--http", "127.0.0.1:0"], Some(dir.path()), &[]).await;
    let http = reqwest::Client::new();
    // 2025-11-25: the handshake.
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"extensions": {UI: {"mimeTypes": [MIME]}}},
        "clientInfo": {"name": "host", "version": "1"}}});
    let (answer, session) = common::post_mcp(&http, &url, "2025-11-25", None, init).await;
    assert!(answer["result"]["capabilities"]["extensions"].get(UI).is_some(), "{answer}");
    let session = session.expect("a session");
    let notified = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    common::post_mcp(&http, &url, "2025-11-25", Some(&session), notified).await;
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}});
    let (answer, _) = common::post_mcp(&http, &url, "2025-11-25", Some(&session), list).await;
    assert_eq!(tool(&answer["result"], "refresh")["_meta"]["ui"]["visibility"], json!(["app"]), "{answer}");
    // 2026-07-28: per request.
    let meta = common::meta_2026(json!({"extensions": {UI: {"mimeTypes": [MIME]}}}));
    let discover = json!({"jsonrpc": "2.0", "id": 3, "method": "server/discover", "params": {"_meta": meta}});
    let (answer, _) = common::post_mcp(&http, &url, "2026-07-28", None, discover).await;
    assert!(answer["result"]["capabilities"]["extensions"].get(UI).is_some(), "{answer}");
    let list = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"_meta": meta}});
    let (answer, _) = common::post_mcp(&http, &url, "2026-07-28", None, list).await;
    assert_eq!(
        tool(&answer["result"], "report")["_meta"]["ui"]["resourceUri"],
        "ui://shop/report",
        "{answer}"
    );
    let read = json!({"jsonrpc": "2.0", "id": 5, "method": "resources/read", "params": {"uri": "ui://shop/report", "_meta": meta}});
    let (answer, _) = common::post_mcp(&http, &url, "2026-07-28", None, read).await;
    assert_eq!(answer["result"]["contents"][0]["text"], PAGE, "{answer}");
    assert_eq!(answer["result"]["contents"][0]["_meta"]["ui"]["prefersBorder"], true, "{answer}");
}

/// An upstream's tool shows a view of this server's apps folder through its
/// override (`[upstreams.tools.<name>] ui`), and a view that does not exist
/// is placed at that key.
#[test]
fn an_upstream_tool_shows_a_view_through_its_override() {
    let exe = env!("CARGO_BIN_EXE_switchboard");
    let config = format!(
        r#"[server]
name = "shop"

[[upstreams]]
name = "demo"
command = [{exe:?}, "serve", "--fixtures", "demo"]
include_tools = ["echo", "add"]

[upstreams.tools.echo]
ui = "report"
visibility = ["app"]
"#
    );
    let dir = project(Some(&config));
    let mut sb = Switchboard::start(&["serve", "."], dir.path());
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let echo = loop {
        let tools = sb.result("tools/list", json!({}));
        if let Some(echo) = tools["tools"].as_array().unwrap().iter().find(|t| t["name"] == "demo_echo") {
            break echo.clone();
        }
        assert!(std::time::Instant::now() < deadline, "the upstream never came: {tools}");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(
        echo["_meta"]["ui"],
        json!({"resourceUri": "ui://shop/report", "visibility": ["app"]}),
        "{echo}"
    );
    assert_eq!(echo["_meta"]["ui/resourceUri"], "ui://shop/report", "{echo}");
    let tools = sb.result("tools/list", json!({}));
    let add = tool(&tools, "demo_add");
    assert!(add["_meta"].get("ui").is_none(), "{add}");
    sb.finish();

    put(dir.path(), "switchboard.toml", &config.replace("ui = \"report\"", "ui = \"missing\""));
    let (ok, _, stderr) = common::run(&["check"], dir.path());
    assert!(!ok);
    assert!(stderr.contains("switchboard.toml:10:6:") && stderr.contains("no view \"missing\""), "{stderr}");
}

/// An apps folder that appears while serving is loaded (the extension was
/// offered from the start); `[apps] builtin = false` leaves the built-in
/// tools without a view, and `enabled = false` serves no views at all.
#[test]
fn an_apps_folder_that_appears_later_is_served_and_the_switches_hold() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "switchboard.toml", "[server]\nname = \"late\"\n\n[apps]\nbuiltin = false\n");
    let mut sb = Switchboard::start(&["serve", "."], dir.path());
    let tools = sb.result("tools/list", json!({}));
    assert!(tool(&tools, "search")["_meta"].get("ui").is_none(), "{tools}");
    put(dir.path(), "apps/late.html", "<p>late</p>");
    wait_listed(&mut sb, "ui://late/late", true);
    sb.finish();

    put(dir.path(), "switchboard.toml", "[server]\nname = \"late\"\n\n[apps]\nenabled = false\n");
    let (ok, stdout, stderr) = common::run(&["list", "--json"], dir.path());
    assert!(ok, "{stderr}");
    let listing: Value = serde_json::from_str(&stdout).unwrap();
    assert!(listing.get("views").is_none(), "{listing:#}");
    assert!(tool(&listing, "search")["_meta"].get("ui").is_none(), "{listing:#}");
    let uris: Vec<&str> =
        listing["resources"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap()).collect();
    assert!(uris.iter().all(|u| !u.starts_with("ui://")), "{uris:?}");
}

/// A monorepo's `apps/` of code (no page directly in it) stays writable,
/// but the model still cannot turn it into views: a page or side file
/// directly in it is refused, and the disk shows it.
#[test]
fn an_apps_folder_of_code_stays_writable_but_never_gets_a_view_from_the_model() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "switchboard.toml", "[server]\nname = \"mono\"\n\n[tools.builtin]\nwrite = true\n");
    put(dir.path(), "apps/web/src/main.ts", "export const a = 1;\n");
    let mut sb = Switchboard::start(&["serve", "."], dir.path());
    let edit = json!({"name": "write_file", "arguments": {"path": "apps/web/src/main.ts", "content": "export const a = 2;\n"}});
    let result = sb.result("tools/call", edit);
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("apps/web/src/main.ts")).unwrap(),
        "export const a = 2;\n"
    );
    for path in ["apps/evil.html", "apps/evil.toml"] {
        let attempt =
            json!({"name": "write_file", "arguments": {"path": path, "content": "<script>evil()</script>"}});
        let result = sb.result("tools/call", attempt);
        assert_eq!(result["isError"], true, "{path}: {result}");
        assert!(!dir.path().join(path).exists(), "{path} was written");
    }
    let moved = json!({"name": "move_file", "arguments": {"source": "apps/web/src/main.ts", "destination": "apps/main.html"}});
    assert_eq!(sb.result("tools/call", moved)["isError"], true);
    assert!(!dir.path().join("apps/main.html").exists());
    let listed = sb.result("resources/list", json!({}));
    assert!(
        listed["resources"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| !r["uri"].as_str().unwrap().starts_with("ui://"))
    );
    sb.finish();
}

/// The configuration-only example checks clean and shows its view with
/// the tool that has it and the app-only tool.
#[test]
fn the_configuration_only_example_serves_its_view() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/apps/config");
    let (ok, stdout, stderr) = common::run(&["check", example.to_str().unwrap()], &example);
    assert!(ok, "{stdout}{stderr}");
    let (ok, stdout, stderr) = common::run(&["list", "--json", example.to_str().unwrap()], &example);
    assert!(ok, "{stderr}");
    let listing: Value = serde_json::from_str(&stdout).unwrap();
    let view =
        listing["views"].as_array().unwrap().iter().find(|v| v["uri"] == "ui://apps-demo/greeting").unwrap();
    assert_eq!(view["tools"], json!([{"name": "greet"}, {"name": "wave", "visibility": ["app"]}]), "{view}");
    assert_eq!(view["title"], "Greeting card");
    let (ok, stdout, stderr) =
        common::run(&["call", "greet", example.to_str().unwrap(), "--args", r#"{"name": "Ada"}"#], &example);
    assert!(ok && stdout.contains("Hello, Ada"), "{stdout}{stderr}");
}

/// A configured apps folder that does not exist, a `[[tools.sql]]` tool
/// naming no view and an empty `visibility` are placed at their keys.
#[test]
fn check_places_a_missing_apps_folder_and_an_sql_tools_missing_view() {
    let dir = tempfile::tempdir().unwrap();
    let config = "[apps]\ndir = \"views\"\n\n[[databases]]\nname = \"shop\"\npath = \"shop.sqlite\"\n\n\
                  [[tools.sql]]\nname = \"orders\"\ndatabase = \"shop\"\nsql = \"SELECT 1\"\nui = \"chart\"\n";
    put(dir.path(), "switchboard.toml", config);
    rusqlite::Connection::open(dir.path().join("shop.sqlite"))
        .unwrap()
        .execute_batch("CREATE TABLE t (x);")
        .unwrap();
    let (ok, stdout, stderr) = common::run(&["check"], dir.path());
    assert!(!ok, "{stdout}{stderr}");
    assert!(stderr.contains("switchboard.toml:2:7:") && stderr.contains("does not exist"), "{stderr}");
    assert!(stderr.contains("switchboard.toml:12:6:") && stderr.contains("no view \"chart\""), "{stderr}");
    // An empty visibility would let nobody call the tool.
    put(
        dir.path(),
        "switchboard.toml",
        "[[tools.command]]\nname = \"nobody\"\ncommand = [\"echo\"]\nvisibility = []\n",
    );
    let (ok, _, stderr) = common::run(&["check"], dir.path());
    assert!(!ok);
    assert!(stderr.contains("switchboard.toml:4:14:") && stderr.contains("less than 1 item"), "{stderr}");
}

/// A configuration that names no view and no apps folder does not fail
/// on an `apps/` that is just there: its broken view is a note.
#[test]
fn an_apps_folder_no_tool_names_is_never_a_reason_not_to_start() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "switchboard.toml", "[server]\nname = \"site\"\n");
    put(dir.path(), "apps/index.html", "<p>a page</p>");
    put(dir.path(), "apps/settings.toml", "port = 8080\n");
    let (ok, stdout, stderr) = common::run(&["check"], dir.path());
    assert!(ok, "{stdout}{stderr}");
    let mut sb = Switchboard::start(&["serve", "."], dir.path());
    let listed = sb.result("resources/list", json!({}));
    assert!(resource(&listed, "ui://site/index").is_some(), "{listed}");
    sb.wait_stderr("settings.toml:1:1: a side file with no view");
    sb.finish();
}
