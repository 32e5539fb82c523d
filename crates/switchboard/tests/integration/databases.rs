//! Databases through the real `switchboard` binary, as an attacker would
//! reach them: the ad-hoc query tool and typed parameters of a SQLite
//! database over stdio and over HTTP in both eras, the database file
//! through every file path a model has, write confirmation (accept,
//! decline, a replayed `requestState`), `check` placing problems,
//! zero-config detection and a live edit of `[[databases]]`. Every test
//! checks the file on disk afterwards, not only the answer.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{Switchboard, meta_2026, post_mcp, post_tools_call_2026, run, run_with_env, start_http};
use serde_json::{Value, json};

/// A value in the excluded column: no answer may contain it.
const SSN: &str = "999-99-0001";

/// The shop database: customers (with an excluded `ssn`), orders, a
/// counter for writes, and an excluded audit table.
fn make_shop(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let db = rusqlite::Connection::open(path).unwrap();
    db.execute_batch(&format!(
        "PRAGMA journal_mode = DELETE;
         CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, ssn TEXT);
         CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, total REAL NOT NULL,
                              status TEXT NOT NULL);
         CREATE TABLE counters (id INTEGER PRIMARY KEY, n INTEGER NOT NULL);
         CREATE TABLE audit_log (id INTEGER PRIMARY KEY, message TEXT);
         INSERT INTO customers VALUES (1, 'Ada', '{SSN}'), (2, 'Grace', '999-99-0002');
         INSERT INTO orders VALUES (1, 1, 12.5, 'open'), (2, 1, 99.0, 'shipped'), (3, 2, 5.25, 'open');
         INSERT INTO counters VALUES (1, 0), (2, 0);
         INSERT INTO audit_log VALUES (1, 'secret audit entry');"
    ))
    .unwrap();
}

/// One value read from the file as it is on disk now.
fn scalar(path: &Path, sql: &str) -> i64 {
    let db = rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    db.query_row(sql, [], |row| row.get(0)).unwrap()
}

/// The tables in the file now.
fn tables(path: &Path) -> Vec<String> {
    let db = rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut statement =
        db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").unwrap();
    statement.query_map([], |row| row.get(0)).unwrap().map(Result::unwrap).collect()
}

/// A read-only shop served with its typed tools and the file tools
/// (writes, deletes and a path-taking command tool on, to attack the file).
const READ_CONFIG: &str = r#"
[tools.builtin]
write = true
delete = true

[[databases]]
name = "shop"
path = "data/shop.sqlite"
statement_timeout = "1s"
max_rows = 2
exclude = ["customers.ssn", "audit_*"]

[[tools.sql]]
name = "orders_of_customer"
database = "shop"
description = "Orders of one customer."
sql = "SELECT id, total, status FROM orders WHERE customer_id = :customer_id ORDER BY id"
params.customer_id = { description = "The customer's id" }

[[tools.sql]]
name = "customer_named"
database = "shop"
sql = "SELECT id, name FROM customers WHERE name = :name"

# Sandboxed (on by default with write = true): its folder is read-only.
[[tools.command]]
name = "scribble"
description = "Appends to the database file from inside the sandbox."
command = ["sh", "-c", "printf x >> data/shop.sqlite"]

[[tools.command]]
name = "touch"
description = "Touches a file."
command = ["touch", "--", "{target_path}"]
sandbox = false
[tools.command.input_schema]
type = "object"
required = ["target_path"]
properties.target_path = { type = "string" }
"#;

/// A project folder with `config` and the shop at `data/shop.sqlite`.
struct Shop {
    dir: tempfile::TempDir,
}

impl Shop {
    fn new(config: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        make_shop(&dir.path().join("data/shop.sqlite"));
        std::fs::write(dir.path().join("switchboard.toml"), config).unwrap();
        std::fs::write(dir.path().join("README.md"), "# shop\n").unwrap();
        Self { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn db(&self) -> PathBuf {
        self.dir.path().join("data/shop.sqlite")
    }
}

fn call(switchboard: &mut Switchboard, tool: &str, arguments: Value) -> Value {
    switchboard.result("tools/call", json!({"name": tool, "arguments": arguments}))
}

fn tool_names(switchboard: &mut Switchboard) -> Vec<String> {
    let listed = switchboard.result("tools/list", json!({}));
    listed["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
}

/// Waits until `tools/list` has `name` (a database opens in the background).
fn wait_for_tool(switchboard: &mut Switchboard, name: &str) {
    let deadline = Instant::now() + common::WAIT;
    while !tool_names(switchboard).iter().any(|t| t == name) {
        assert!(Instant::now() < deadline, "no tool {name}; stderr:\n{}", switchboard.stderr());
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// What an answer says, whole, for searching it.
fn text(value: &Value) -> String {
    value.to_string()
}

/// Statements that try to write, reach the file system or run forever
/// through the ad-hoc tool, each refused by the engine whatever the text.
const ATTACKS: &[&str] = &[
    "SELECT 1; DELETE FROM orders",
    "SELECT 1; -- harmless?\nDROP TABLE orders",
    "DELETE FROM orders",
    "UPDATE counters SET n = 100",
    "INSERT INTO orders VALUES (9, 1, 1, 'open') RETURNING id",
    "CREATE TABLE pwned (x)",
    "DROP TABLE orders",
    "ATTACH DATABASE 'data/attached.sqlite' AS a",
    "VACUUM INTO 'data/copy.sqlite'",
    "PRAGMA query_only = 0",
    "PRAGMA writable_schema = 1",
    "SELECT load_extension('/tmp/nothing')",
    "SELECT writefile('data/out.txt', 'x')",
    "BEGIN; DELETE FROM orders; COMMIT",
    "COMMIT; DELETE FROM orders",
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
    "SELECT ssn FROM customers",
    "SELECT * FROM customers",
    "SELECT message FROM audit_log",
    "SELECT * FROM pragma_table_info('customers') WHERE name = 'ssn' AND 1 = (SELECT count(ssn) FROM customers)",
];

/// The file after [`ATTACKS`]: every row there, nothing new beside it.
fn assert_untouched(shop: &Shop) {
    assert_eq!(scalar(&shop.db(), "SELECT count(*) FROM orders"), 3);
    assert_eq!(scalar(&shop.db(), "SELECT sum(n) FROM counters"), 0);
    assert_eq!(tables(&shop.db()), ["audit_log", "counters", "customers", "orders"]);
    for made in ["data/attached.sqlite", "data/copy.sqlite", "data/out.txt"] {
        assert!(!shop.path().join(made).exists(), "{made} was created");
    }
}

fn assert_attack_refused(sql: &str, result: &Value) {
    assert_eq!(result["isError"], true, "{sql:?} was not refused: {result}");
    assert!(!text(result).contains(SSN), "{sql:?} showed the excluded column: {result}");
    assert!(!text(result).contains("secret audit"), "{sql:?} showed the excluded table: {result}");
}

#[test]
fn the_query_tool_writes_nothing_whatever_the_sql_says_over_stdio() {
    let shop = Shop::new(READ_CONFIG);
    let mut switchboard = Switchboard::start(&["serve", "."], shop.path());
    wait_for_tool(&mut switchboard, "shop_query");
    for sql in ATTACKS {
        let started = Instant::now();
        let result = call(&mut switchboard, "shop_query", json!({"sql": sql}));
        assert_attack_refused(sql, &result);
        assert!(started.elapsed() < Duration::from_secs(10), "{sql:?} ran for {:?}", started.elapsed());
    }
    // Legitimate reads work: a `;` in a literal, a CTE, a window
    // function, comments, lower case, unicode, EXPLAIN.
    for sql in [
        "SELECT ';' AS s, count(*) AS n FROM orders",
        "with t as (select id from orders) select count(*) from t -- counted",
        "SELECT id, sum(total) OVER (ORDER BY id) AS running FROM orders /* a window */",
        "SELECT 'Ünïcödé ✓' AS u",
        "EXPLAIN QUERY PLAN SELECT * FROM orders WHERE id = 1",
        "SELECT id, name FROM customers",
    ] {
        let result = call(&mut switchboard, "shop_query", json!({"sql": sql}));
        assert_ne!(result["isError"], true, "{sql:?} was refused: {result}");
        assert!(!text(&result).contains(SSN), "{result}");
    }
    switchboard.finish();
    assert_untouched(&shop);
}

#[tokio::test]
async fn the_query_tool_writes_nothing_whatever_the_sql_says_over_http_in_both_eras() {
    let shop = Shop::new(READ_CONFIG);
    let (_child, url) = start_http(&["serve", "--http", "127.0.0.1:0", "."], Some(shop.path()), &[]).await;
    let http = reqwest::Client::new();
    // Handshake era: a session.
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "1"}}});
    let (answer, session) = post_mcp(&http, &url, "2025-11-25", None, init).await;
    assert_eq!(answer["result"]["protocolVersion"], "2025-11-25", "{answer}");
    // Results are data: the server's instructions say so once.
    let instructions = answer["result"]["instructions"].as_str().unwrap_or_default();
    assert!(instructions.contains("data") && instructions.contains("not instructions"), "{answer}");
    let session = session.expect("a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    post_mcp(&http, &url, "2025-11-25", Some(&session), initialized).await;
    let deadline = Instant::now() + common::WAIT;
    loop {
        let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}});
        let (listed, _) = post_mcp(&http, &url, "2025-11-25", Some(&session), list).await;
        if text(&listed).contains("\"shop_query\"") {
            break;
        }
        assert!(Instant::now() < deadline, "shop_query never listed: {listed}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for (i, sql) in ATTACKS.iter().enumerate() {
        let body = json!({"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call",
                          "params": {"name": "shop_query", "arguments": {"sql": sql}}});
        let (answer, _) = post_mcp(&http, &url, "2025-11-25", Some(&session), body).await;
        assert_attack_refused(sql, &answer["result"]);
    }
    // /readyz shows the database, and stays 200.
    let ready = http.get(url.replace("/mcp", "/readyz")).send().await.unwrap();
    assert_eq!(ready.status(), 200);
    let ready: Value = ready.json().await.unwrap();
    assert_eq!(ready["databases"][0]["name"], "shop", "{ready}");
    assert_eq!(ready["databases"][0]["state"], "open", "{ready}");
    assert_eq!(ready["databasesNotOpen"], json!([]), "{ready}");
    // Per-request era: no session.
    for (i, sql) in ATTACKS.iter().enumerate() {
        let params = json!({"name": "shop_query", "arguments": {"sql": sql}, "_meta": meta_2026(json!({}))});
        let (_, _, answer) = post_tools_call_2026(&http, &url, 100 + i as u64, params).await;
        assert_attack_refused(sql, &answer["result"]);
    }
    assert_untouched(&shop);
}

#[test]
fn typed_parameters_are_bound_never_spliced() {
    let shop = Shop::new(READ_CONFIG);
    let mut switchboard = Switchboard::start(&["serve", "."], shop.path());
    wait_for_tool(&mut switchboard, "orders_of_customer");
    let listed = switchboard.result("tools/list", json!({}));
    let tool =
        listed["tools"].as_array().unwrap().iter().find(|t| t["name"] == "orders_of_customer").unwrap();
    assert_eq!(tool["inputSchema"]["required"], json!(["customer_id"]), "{tool}");
    assert!(tool["outputSchema"]["properties"]["rows"].is_object(), "{tool}");
    // A real call: typed rows, capped at max_rows with a cursor.
    let result = call(&mut switchboard, "orders_of_customer", json!({"customer_id": 1}));
    assert_ne!(result["isError"], true, "{result}");
    let rows = &result["structuredContent"]["rows"];
    assert_eq!(rows.as_array().unwrap().len(), 2, "{result}");
    assert_eq!(rows[0]["id"], 1, "{result}");
    // Injection through the values: bound as values, so they match nothing
    // (or are refused by type); never run as SQL.
    for hostile in [
        json!("1 OR 1=1"),
        json!("1; DELETE FROM orders"),
        json!("1) OR (1=1"),
        json!("0 UNION SELECT ssn, 1, 1 FROM customers"),
    ] {
        let result = call(&mut switchboard, "orders_of_customer", json!({"customer_id": hostile}));
        let rows = result["structuredContent"]["rows"].as_array().map_or(0, Vec::len);
        assert!(result["isError"] == true || rows == 0, "{hostile} matched rows: {result}");
        assert!(!text(&result).contains(SSN), "{result}");
    }
    for hostile in ["x' OR '1'='1", "'; DROP TABLE orders; --", "Ada' UNION SELECT 1, ssn FROM customers --"]
    {
        let result = call(&mut switchboard, "customer_named", json!({"name": hostile}));
        assert_ne!(result["isError"], true, "{result}");
        assert_eq!(result["structuredContent"]["rows"], json!([]), "{hostile}: {result}");
        assert!(!text(&result).contains(SSN), "{result}");
    }
    let result = call(&mut switchboard, "customer_named", json!({"name": "Ada"}));
    assert_eq!(result["structuredContent"]["rows"][0]["id"], 1, "{result}");
    switchboard.finish();
    assert_untouched(&shop);
}

#[test]
fn the_database_file_is_never_served_nor_written_by_a_file_tool() {
    let shop = Shop::new(READ_CONFIG);
    let before = std::fs::read(shop.db()).unwrap();
    let mut switchboard = Switchboard::start(&["serve", "."], shop.path());
    wait_for_tool(&mut switchboard, "shop_query");
    let listed = switchboard.result("resources/list", json!({}));
    assert!(!text(&listed).contains("shop.sqlite"), "the file is listed: {listed}");
    assert!(text(&listed).contains("db://shop/schema"), "{listed}");
    let read = switchboard.request("resources/read", json!({"uri": "file:///data/shop.sqlite"}));
    assert!(read.get("error").is_some(), "{read}");
    // The schema resource leaves the excluded column and table out.
    let schema = switchboard.result("resources/read", json!({"uri": "db://shop/schema"}));
    let schema_text = text(&schema);
    assert!(schema_text.contains("orders") && !schema_text.contains("ssn"), "{schema}");
    assert!(!schema_text.contains("audit_log"), "{schema}");
    let files = [
        "data/shop.sqlite",
        "data/shop.sqlite-wal",
        "data/shop.sqlite-journal",
        "./data/../data/shop.sqlite",
    ];
    for path in files {
        let r = call(&mut switchboard, "read_file", json!({"path": path}));
        assert_eq!(r["isError"], true, "read_file {path}: {r}");
        let r = call(&mut switchboard, "write_file", json!({"path": path, "content": "overwritten"}));
        assert_eq!(r["isError"], true, "write_file {path}: {r}");
        let r =
            call(&mut switchboard, "edit_file", json!({"path": path, "old_text": "SQLite", "new_text": "x"}));
        assert_eq!(r["isError"], true, "edit_file {path}: {r}");
        let r = call(&mut switchboard, "delete_file", json!({"path": path}));
        assert_eq!(r["isError"], true, "delete_file {path}: {r}");
        let r = call(&mut switchboard, "touch", json!({"target_path": path}));
        assert_eq!(r["isError"], true, "touch {path}: {r}");
    }
    let r = call(&mut switchboard, "scribble", json!({}));
    assert_eq!(r["isError"], true, "a sandboxed command wrote the file: {r}");
    let r = call(
        &mut switchboard,
        "move_file",
        json!({"source": "data/shop.sqlite", "destination": "stolen.sqlite"}),
    );
    assert_eq!(r["isError"], true, "{r}");
    let r = call(
        &mut switchboard,
        "move_file",
        json!({"source": "README.md", "destination": "data/shop.sqlite"}),
    );
    assert_eq!(r["isError"], true, "{r}");
    let r = call(&mut switchboard, "search", json!({"pattern": "Grace"}));
    assert!(!text(&r).contains("shop.sqlite"), "search read the file: {r}");
    let r = call(&mut switchboard, "list_directory", json!({"path": "data"}));
    assert!(!text(&r).contains("shop.sqlite\""), "{r}");
    switchboard.finish();
    assert_eq!(std::fs::read(shop.db()).unwrap(), before, "the file changed");
    assert!(shop.path().join("README.md").exists() && !shop.path().join("stolen.sqlite").exists());
    for sibling in ["data/shop.sqlite-wal", "data/shop.sqlite-journal"] {
        assert!(!shop.path().join(sibling).exists(), "{sibling} was made");
    }
}

/// A write database with a confirmed write tool.
const WRITE_CONFIG: &str = r#"
[[databases]]
name = "shop"
path = "data/shop.sqlite"
access = "write"

[[tools.sql]]
name = "bump"
database = "shop"
access = "write"
description = "Adds one to a counter."
sql = "UPDATE counters SET n = n + 1 WHERE id = :id"
max_affected_rows = 1
confirm = "always"

[[tools.sql]]
name = "bump_all"
database = "shop"
access = "write"
sql = "UPDATE counters SET n = n + 1"
max_affected_rows = 1
"#;

fn counter(shop: &Shop, id: i64) -> i64 {
    scalar(&shop.db(), &format!("SELECT n FROM counters WHERE id = {id}"))
}

#[tokio::test]
async fn a_confirmed_write_commits_once_declined_nothing_and_a_replay_nothing_over_http_2026() {
    let shop = Shop::new(WRITE_CONFIG);
    let (_child, url) = start_http(&["serve", "--http", "127.0.0.1:0", "."], Some(shop.path()), &[]).await;
    let http = reqwest::Client::new();
    let asks = || meta_2026(json!({"elicitation": {}}));
    let first = |id: u64| {
        let http = http.clone();
        let url = url.clone();
        async move {
            let params = json!({"name": "bump", "arguments": {"id": 1}, "_meta": asks()});
            let deadline = Instant::now() + common::WAIT;
            loop {
                let (_, _, answer) = post_tools_call_2026(&http, &url, id, params.clone()).await;
                // The database opens in the background: an unknown tool at first.
                if answer["result"]["resultType"] == "input_required" || Instant::now() > deadline {
                    return answer;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    };
    let answer_with = |round: &Value, action: &str| {
        let requests = round["result"]["inputRequests"].as_object().expect("input requests");
        let (key, request) = requests.iter().next().expect("one question");
        assert_eq!(request["method"], "elicitation/create", "{round}");
        let content = if action == "accept" { json!({"confirm": true}) } else { json!({}) };
        let mut response = json!({"action": action});
        if action == "accept" {
            response["content"] = content;
        }
        json!({
            "name": "bump", "arguments": {"id": 1}, "_meta": asks(),
            "inputResponses": {key.clone(): response},
            "requestState": round["result"]["requestState"],
        })
    };
    // Declined: nothing written.
    let round = first(1).await;
    assert_eq!(round["result"]["resultType"], "input_required", "{round}");
    let question = text(&round["result"]["inputRequests"]);
    assert!(question.contains("UPDATE counters") && question.contains('1'), "{question}");
    let (_, _, declined) = post_tools_call_2026(&http, &url, 2, answer_with(&round, "decline")).await;
    assert_ne!(declined["result"]["resultType"], "input_required", "{declined}");
    assert_eq!(counter(&shop, 1), 0, "a declined write committed: {declined}");
    // Accepted: written once.
    let round = first(3).await;
    let accepted_call = answer_with(&round, "accept");
    let (_, _, accepted) = post_tools_call_2026(&http, &url, 4, accepted_call.clone()).await;
    assert_ne!(accepted["result"]["isError"], true, "{accepted}");
    assert_eq!(counter(&shop, 1), 1, "{accepted}");
    // The same answer sent again: nothing more.
    let (_, _, replayed) = post_tools_call_2026(&http, &url, 5, accepted_call).await;
    assert!(
        replayed["result"]["isError"] == true || replayed.get("error").is_some(),
        "a replay was not refused: {replayed}"
    );
    assert_eq!(counter(&shop, 1), 1, "a replayed requestState committed again");
    // A client that cannot be asked: refused, nothing written.
    let params = json!({"name": "bump", "arguments": {"id": 2}, "_meta": meta_2026(json!({}))});
    let (_, _, refused) = post_tools_call_2026(&http, &url, 6, params).await;
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    assert_eq!(counter(&shop, 2), 0);
    // More rows than allowed: rolled back, and the answer says how many.
    let params = json!({"name": "bump_all", "arguments": {}, "_meta": meta_2026(json!({}))});
    let (_, _, capped) = post_tools_call_2026(&http, &url, 7, params).await;
    assert_eq!(capped["result"]["isError"], true, "{capped}");
    assert!(text(&capped).contains('2'), "{capped}");
    assert_eq!((counter(&shop, 1), counter(&shop, 2)), (1, 0));
}

/// The first round of a confirmed `bump` of counter `id` on `url`, retried
/// while the database is still opening.
async fn first_round(http: &reqwest::Client, url: &str, id: i64) -> Value {
    let params =
        json!({"name": "bump", "arguments": {"id": id}, "_meta": meta_2026(json!({"elicitation": {}}))});
    let deadline = Instant::now() + common::WAIT;
    loop {
        let (_, _, answer) = post_tools_call_2026(http, url, 1, params.clone()).await;
        if answer["result"]["resultType"] == "input_required" {
            return answer;
        }
        assert!(Instant::now() < deadline, "never asked: {answer}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The retry that accepts `round`'s question.
fn accepting(round: &Value, id: i64) -> Value {
    let requests = round["result"]["inputRequests"].as_object().expect("input requests");
    let key = requests.keys().next().expect("one question").clone();
    json!({
        "name": "bump", "arguments": {"id": id}, "_meta": meta_2026(json!({"elicitation": {}})),
        "inputResponses": {key: {"action": "accept", "content": {"confirm": true}}},
        "requestState": round["result"]["requestState"],
    })
}

/// Two instances over one Redis: a confirmation asked by one and answered
/// on the other commits exactly once; the same answer replayed on either
/// commits nothing.
#[tokio::test]
async fn a_confirmation_answered_on_another_instance_commits_exactly_once() {
    let redis = switchboard_testkit::redis::RedisServer::start();
    let shop = Shop::new(WRITE_CONFIG);
    let args = ["serve", "--http", "127.0.0.1:0", "--state", &redis.url(), "."];
    let (_a, a) = start_http(&args, Some(shop.path()), &[]).await;
    let (_b, b) = start_http(&args, Some(shop.path()), &[]).await;
    let http = reqwest::Client::new();
    let round = first_round(&http, &a, 1).await;
    first_round(&http, &b, 2).await;
    let accept = accepting(&round, 1);
    let (_, _, done) = post_tools_call_2026(&http, &b, 2, accept.clone()).await;
    assert_ne!(done["result"]["isError"], true, "{done}");
    assert_eq!(counter(&shop, 1), 1, "{done}");
    for url in [&a, &b] {
        let (_, _, replayed) = post_tools_call_2026(&http, url, 3, accept.clone()).await;
        assert!(replayed["result"]["isError"] == true || replayed.get("error").is_some(), "{replayed}");
    }
    assert_eq!(counter(&shop, 1), 1, "a replay on another instance committed again");
}

#[test]
fn a_confirmed_write_asks_through_elicitation_over_stdio() {
    let shop = Shop::new(WRITE_CONFIG);
    let capabilities = json!({"elicitation": {}});
    let mut switchboard =
        Switchboard::start_as(&["serve", "."], shop.path(), &[], "2025-11-25", capabilities);
    wait_for_tool(&mut switchboard, "bump");
    for (id, action, expected) in [(100, "decline", 0), (101, "accept", 1)] {
        switchboard.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                                 "params": {"name": "bump", "arguments": {"id": 1}}}));
        let asked = loop {
            let message = switchboard.next_message();
            if message["method"] == "elicitation/create" {
                break message;
            }
        };
        assert!(text(&asked["params"]).contains("UPDATE counters"), "{asked}");
        let mut answer = json!({"action": action});
        if action == "accept" {
            answer["content"] = json!({"confirm": true});
        }
        switchboard.send(&json!({"jsonrpc": "2.0", "id": asked["id"], "result": answer}));
        let response = switchboard.response(id);
        assert!(response.get("result").is_some(), "{response}");
        assert_eq!(counter(&shop, 1), expected, "after {action}: {response}");
    }
    switchboard.finish();
    assert_eq!(counter(&shop, 1), 1);
}

#[test]
fn check_places_each_database_problem_at_its_line() {
    let shop = Shop::new(
        r#"[[databases]]
name = "shop"
path = "data/shop.sqlite"

[[databases]]
name = "remote"
url = "postgres://app@127.0.0.1:1/shop"
password_env = "SWITCHBOARD_TEST_UNSET_PASSWORD"

[[tools.sql]]
name = "ghosts"
database = "shop"
sql = "SELECT id FROM no_such_table"

[[tools.sql]]
name = "fine"
database = "shop"
sql = "SELECT id FROM orders"
"#,
    );
    let (ok, _, stderr) = run(&["check", "."], shop.path());
    assert!(!ok, "{stderr}");
    let line = |n: usize, needle: &str| {
        assert!(
            stderr.lines().any(|l| l.contains(&format!("switchboard.toml:{n}:")) && l.contains(needle)),
            "no problem at line {n} with {needle:?}:\n{stderr}"
        );
    };
    line(8, "SWITCHBOARD_TEST_UNSET_PASSWORD");
    assert!(
        stderr.lines().any(|l| (10..=13).any(|n| l.contains(&format!("switchboard.toml:{n}:")))
            && l.contains("no_such_table")),
        "the statement's problem is not placed on its tool:\n{stderr}"
    );
    // A fixed file checks clean, and `list` shows the database open with its tools.
    std::fs::write(
        shop.path().join("switchboard.toml"),
        "[[databases]]\nname = \"shop\"\npath = \"data/shop.sqlite\"\n\n[[tools.sql]]\nname = \"fine\"\n\
         database = \"shop\"\nsql = \"SELECT id FROM orders\"\n",
    )
    .unwrap();
    let (ok, stdout, stderr) = run(&["check", "."], shop.path());
    assert!(ok, "{stdout}\n{stderr}");
    let (ok, stdout, stderr) = run(&["list", "."], shop.path());
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("Databases (1):") && stdout.contains("shop") && stdout.contains("open"),
        "{stdout}"
    );
    assert!(stdout.contains("tools: shop_query, fine"), "{stdout}");
    assert!(stdout.contains("resources: db://shop/schema, db://shop/table/{table}"), "{stdout}");
    assert!(stdout.contains("db://shop/schema"), "{stdout}");
    let (ok, stdout, stderr) = run(&["call", "fine", "."], shop.path());
    assert!(ok, "{stdout}\n{stderr}");
    assert!(stdout.contains('3'), "{stdout}");
}

#[test]
fn an_unset_password_leaves_the_database_out_with_a_note() {
    let shop = Shop::new(
        "[[databases]]\nname = \"remote\"\nurl = \"postgres://app@127.0.0.1:1/shop\"\n\
         password_env = \"SWITCHBOARD_TEST_UNSET_PASSWORD\"\n",
    );
    let mut switchboard = Switchboard::start(&["serve", "."], shop.path());
    switchboard.wait_stderr("SWITCHBOARD_TEST_UNSET_PASSWORD");
    assert!(!tool_names(&mut switchboard).iter().any(|t| t == "remote_query"));
    switchboard.finish();
    let (ok, _, stderr) =
        run_with_env(&["check", "."], shop.path(), &[("SWITCHBOARD_TEST_UNSET_PASSWORD", "")]);
    assert!(!ok && stderr.contains("switchboard.toml:4:"), "{stderr}");
}

#[test]
fn zero_config_serves_an_sqlite_file_it_finds_read_only() {
    let dir = tempfile::tempdir().unwrap();
    // Found by its header, not its name.
    make_shop(&dir.path().join("Sales Data.bin"));
    std::fs::write(dir.path().join("notes.db"), "not a database, whatever its name says\n").unwrap();
    let db = dir.path().join("Sales Data.bin");
    let mut switchboard = Switchboard::start(&["serve", "."], dir.path());
    wait_for_tool(&mut switchboard, "sales_data_query");
    assert!(!tool_names(&mut switchboard).iter().any(|t| t == "notes_query"));
    let result =
        call(&mut switchboard, "sales_data_query", json!({"sql": "SELECT count(*) AS n FROM orders"}));
    assert_eq!(result["structuredContent"]["rows"][0]["n"], 3, "{result}");
    let result = call(&mut switchboard, "sales_data_query", json!({"sql": "DELETE FROM orders"}));
    assert_eq!(result["isError"], true, "{result}");
    // A database copied in while serving joins too.
    std::fs::copy(&db, dir.path().join("later.sqlite")).unwrap();
    wait_for_tool(&mut switchboard, "later_query");
    switchboard.finish();
    assert_eq!(scalar(&db, "SELECT count(*) FROM orders"), 3);
    let (ok, stdout, stderr) = run(&["list", "."], dir.path());
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("sales_data") && stdout.contains("sqlite") && stdout.contains("open"),
        "{stdout}"
    );
    assert!(stdout.contains("sales_data_query"), "{stdout}");
}

#[test]
fn editing_the_databases_section_applies_live() {
    let shop = Shop::new("[[databases]]\nname = \"shop\"\npath = \"data/shop.sqlite\"\n");
    let mut switchboard = Switchboard::start(&["serve", "."], shop.path());
    wait_for_tool(&mut switchboard, "shop_query");
    switchboard.drain();
    std::fs::write(
        shop.path().join("switchboard.toml"),
        "[[databases]]\nname = \"store\"\npath = \"data/shop.sqlite\"\n\n[[tools.sql]]\nname = \"open_orders\"\n\
         database = \"store\"\nsql = \"SELECT id FROM orders WHERE status = 'open'\"\n",
    )
    .unwrap();
    switchboard.notification("notifications/tools/list_changed", None);
    wait_for_tool(&mut switchboard, "open_orders");
    let names = tool_names(&mut switchboard);
    assert!(
        names.contains(&"store_query".to_owned()) && !names.contains(&"shop_query".to_owned()),
        "{names:?}"
    );
    let result = call(&mut switchboard, "open_orders", json!({}));
    assert_eq!(result["structuredContent"]["rows"], json!([{"id": 1}, {"id": 3}]), "{result}");
    // A schema change on disk: the schema resource is announced as updated.
    switchboard.result("resources/subscribe", json!({"uri": "db://store/schema"}));
    {
        let db = rusqlite::Connection::open(shop.db()).unwrap();
        db.execute_batch("CREATE TABLE added_later (id INTEGER PRIMARY KEY)").unwrap();
    }
    switchboard.notification("notifications/resources/updated", Some("db://store/schema"));
    let schema = switchboard.result("resources/read", json!({"uri": "db://store/schema"}));
    assert!(text(&schema).contains("added_later"), "{schema}");
    switchboard.finish();
}

#[test]
fn the_example_serves_from_a_fresh_clone() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/databases");
    let before = std::fs::read(example.join("shop.sqlite")).unwrap();
    let (ok, stdout, stderr) = run(&["check", "."], &example);
    assert!(ok, "{stdout}\n{stderr}");
    let mut switchboard = Switchboard::start(&["serve", "."], &example);
    wait_for_tool(&mut switchboard, "orders_of_customer");
    let names = tool_names(&mut switchboard);
    for name in ["shop_query", "orders_of_customer", "open_orders_by_country"] {
        assert!(names.contains(&name.to_owned()), "{names:?}");
    }
    let result = call(&mut switchboard, "orders_of_customer", json!({"customer_id": 1}));
    assert_eq!(result["structuredContent"]["rows"].as_array().unwrap().len(), 2, "{result}");
    let result = call(&mut switchboard, "open_orders_by_country", json!({"country": "GB"}));
    assert_eq!(result["structuredContent"]["rowCount"], 2, "{result}");
    let result = call(&mut switchboard, "shop_query", json!({"sql": "SELECT ssn FROM customers"}));
    assert_eq!(result["isError"], true, "{result}");
    let init = switchboard.stderr();
    assert!(!init.contains("000-00-0001"), "{init}");
    switchboard.finish();
    assert_eq!(std::fs::read(example.join("shop.sqlite")).unwrap(), before, "serving changed the example");
    assert!(!example.join("shop.sqlite-journal").exists() && !example.join("shop.sqlite-wal").exists());
}

#[test]
fn a_database_that_is_down_is_left_out_and_joins_when_it_comes_back() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("data")).unwrap();
    std::fs::write(
        dir.path().join("switchboard.toml"),
        "[[databases]]\nname = \"shop\"\npath = \"data/shop.sqlite\"\n",
    )
    .unwrap();
    // Not there yet: down, said by `list`, and nothing else stops serving.
    let (ok, stdout, stderr) = run(&["list", "."], dir.path());
    assert!(ok, "{stderr}");
    assert!(stdout.contains("shop") && stdout.contains("down"), "{stdout}");
    assert!(!dir.path().join("data/shop.sqlite").exists(), "opening made the file");
    let mut switchboard = Switchboard::start(&["serve", "."], dir.path());
    assert!(!tool_names(&mut switchboard).iter().any(|t| t == "shop_query"));
    assert!(tool_names(&mut switchboard).iter().any(|t| t == "read_file"));
    // Made elsewhere, then moved in whole: the next attempt opens it.
    make_shop(&dir.path().join("shop.tmp"));
    std::fs::rename(dir.path().join("shop.tmp"), dir.path().join("data/shop.sqlite")).unwrap();
    switchboard.notification("notifications/tools/list_changed", None);
    wait_for_tool(&mut switchboard, "shop_query");
    let result = call(&mut switchboard, "shop_query", json!({"sql": "SELECT count(*) AS n FROM orders"}));
    assert_eq!(result["structuredContent"]["rows"][0]["n"], 3, "{result}");
    switchboard.finish();
}

#[test]
fn the_schema_describes_databases_and_sql_tools() {
    let (ok, stdout, stderr) = run(&["schema"], Path::new("."));
    assert!(ok, "{stderr}");
    let schema: Value = serde_json::from_str(&stdout).unwrap();
    assert!(schema["properties"]["databases"].is_object(), "{}", schema["properties"]);
    let text = schema.to_string();
    for key in ["password_env", "url_env", "statement_timeout", "max_affected_rows", "confirm", "exclude"] {
        assert!(text.contains(key), "the schema lacks {key}");
    }
}
