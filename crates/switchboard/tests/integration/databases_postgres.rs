//! A real PostgreSQL (switchboard-testkit's `PostgresServer`) served by
//! the real `switchboard` binary: the attacks of the reference servers'
//! failures through the ad-hoc tool and typed parameters over stdio and
//! HTTP 2026-07-28, a privileged role refused (and `check` placing it), and
//! a confirmed write accepted, declined and replayed. Each test reads the
//! database's real state as the superuser afterwards.

use crate::common;

use std::time::{Duration, Instant};

use common::{Switchboard, meta_2026, post_tools_call_2026, run_with_env, start_http};
use serde_json::{Value, json};
use switchboard_testkit::postgres::PostgresServer;

const READER_PASSWORD: &str = "reader-pw";
const WRITER_PASSWORD: &str = "writer-pw";

/// `shop`: table `t` (3 rows, an excluded column `secret`), sequence `s`,
/// a SECURITY DEFINER function that writes; role `reader` may read `t`
/// but not `secret`; role `writer` may also update `t`.
fn shop() -> PostgresServer {
    let pg = PostgresServer::start();
    pg.create_role("reader", READER_PASSWORD, "LOGIN");
    pg.create_role("writer", WRITER_PASSWORD, "LOGIN");
    pg.create_database("shop");
    pg.execute_in(
        "shop",
        "CREATE TABLE t (id int PRIMARY KEY, name text NOT NULL, n int NOT NULL DEFAULT 0, secret text DEFAULT 'hush');
         INSERT INTO t (id, name) VALUES (1, 'one'), (2, 'two'), (3, 'three');
         CREATE SEQUENCE s;
         CREATE FUNCTION evil() RETURNS int LANGUAGE sql SECURITY DEFINER AS 'INSERT INTO t (id, name) VALUES (99, ''evil'') RETURNING id';
         GRANT SELECT (id, name, n) ON t TO reader, writer;
         GRANT UPDATE (n) ON t TO writer;
         GRANT USAGE ON SEQUENCE s TO reader;
         GRANT EXECUTE ON FUNCTION evil() TO reader;",
    );
    pg
}

fn rows_of_t(pg: &PostgresServer) -> String {
    pg.query_in("shop", "SELECT string_agg(id || ':' || name || ':' || n, ',' ORDER BY id) FROM t")
}

const T_UNTOUCHED: &str = "1:one:0,2:two:0,3:three:0";

/// A project folder whose configuration serves `shop` as `user`, the
/// password read from `SHOP_DB_PASSWORD`.
fn project(pg: &PostgresServer, user: &str, extra: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("postgres://{user}@127.0.0.1:{}/shop", pg.port());
    let config = format!(
        "[[databases]]\nname = \"shop\"\nurl = \"{url}\"\npassword_env = \"SHOP_DB_PASSWORD\"\n\
         statement_timeout = \"1s\"\nexclude = [\"t.secret\"]\n{extra}\n\
         [[tools.sql]]\nname = \"by_name\"\ndatabase = \"shop\"\nsql = \"SELECT id, name FROM t WHERE name = :name\"\n"
    );
    std::fs::write(dir.path().join("switchboard.toml"), config).unwrap();
    dir
}

fn call(switchboard: &mut Switchboard, tool: &str, arguments: Value) -> Value {
    switchboard.result("tools/call", json!({"name": tool, "arguments": arguments}))
}

fn wait_for_tool(switchboard: &mut Switchboard, name: &str) {
    let deadline = Instant::now() + common::WAIT;
    loop {
        let listed = switchboard.result("tools/list", json!({}));
        if listed["tools"].as_array().unwrap().iter().any(|t| t["name"] == name) {
            return;
        }
        assert!(Instant::now() < deadline, "no tool {name}; stderr:\n{}", switchboard.stderr());
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// What the reference servers let through, each sent as the model's SQL.
const ATTACKS: &[&str] = &[
    "COMMIT; DROP TABLE t",
    "ROLLBACK; DELETE FROM t",
    "END; INSERT INTO t (id, name) VALUES (7, 'x')",
    "SET TRANSACTION READ WRITE; DELETE FROM t",
    "DELETE FROM t",
    "WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d",
    "SELECT evil()",
    "SELECT nextval('s')",
    "DO $$BEGIN DELETE FROM t; END$$",
    "SELECT pg_read_file('/etc/passwd')",
    "COPY t TO PROGRAM 'touch /tmp/switchboard-pwned'",
    "SELECT secret FROM t",
    "SELECT * FROM t",
    "/* */ DELETE FROM t -- comment",
    // DBHub's tokenizer read this string's end elsewhere than PostgreSQL.
    "SELECT E'\\''; INSERT INTO t (id, name) VALUES (8, 'x')",
    "SELECT pg_sleep(30)",
];

/// What a read-only transaction allows, then what it would take to use it
/// in the next call.
const SESSION_STATE: &[(&str, &str)] = &[
    ("SET TRANSACTION READ WRITE", "DELETE FROM t"),
    ("PREPARE p AS DELETE FROM t", "EXECUTE p"),
    ("SELECT set_config('default_transaction_read_only', 'off', false)", "DELETE FROM t"),
    ("SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE", "DELETE FROM t"),
];

fn refused(sql: &str, result: &Value) {
    assert_eq!(result["isError"], true, "{sql:?} was not refused: {result}");
    assert!(!result.to_string().contains("hush"), "{sql:?} showed the excluded column: {result}");
}

/// Nothing changed: the rows, the sequence, no backend still sleeping.
fn untouched(pg: &PostgresServer) {
    assert_eq!(rows_of_t(pg), T_UNTOUCHED);
    assert_eq!(pg.query_in("shop", "SELECT is_called FROM s"), "f", "nextval ran");
    assert!(!std::path::Path::new("/tmp/switchboard-pwned").exists());
    let deadline = Instant::now() + Duration::from_secs(10);
    while pg.query(
        "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(30)%' AND pid <> pg_backend_pid()",
    ) != "0"
    {
        assert!(Instant::now() < deadline, "pg_sleep is still running in the database");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn the_query_tool_and_typed_params_write_nothing_over_stdio() {
    let pg = shop();
    let dir = project(&pg, "reader", "");
    let env = [("SHOP_DB_PASSWORD", READER_PASSWORD)];
    let mut switchboard = Switchboard::start_with_env(&["serve", "."], dir.path(), &env);
    wait_for_tool(&mut switchboard, "shop_query");
    for sql in ATTACKS {
        let started = Instant::now();
        refused(sql, &call(&mut switchboard, "shop_query", json!({"sql": sql})));
        assert!(started.elapsed() < Duration::from_secs(10), "{sql:?} took {:?}", started.elapsed());
    }
    // Session state never reaches the next call: what PostgreSQL allows
    // in a read-only transaction (making it read-write before its first
    // query, a prepared statement, a session setting) ends with the call,
    // and the next call is read-only again.
    for (setup, then) in SESSION_STATE {
        call(&mut switchboard, "shop_query", json!({"sql": setup}));
        refused(then, &call(&mut switchboard, "shop_query", json!({"sql": then})));
    }
    let r = call(
        &mut switchboard,
        "shop_query",
        json!({"sql": "SELECT current_setting('transaction_read_only') AS ro"}),
    );
    assert_eq!(r["structuredContent"]["rows"][0]["ro"], "on", "{r}");
    // Legitimate reads.
    for sql in [
        "SELECT ';' AS s, count(*) AS n FROM t",
        "with x as (select id from t) select count(*) from x -- counted",
        "SELECT id, row_number() OVER (ORDER BY id DESC) FROM t",
        "EXPLAIN SELECT id FROM t",
        "SELECT 'Ünïcödé ✓' AS u",
        "SELECT E'\\'; DELETE FROM t; --' AS just_text",
    ] {
        let r = call(&mut switchboard, "shop_query", json!({"sql": sql}));
        assert_ne!(r["isError"], true, "{sql:?}: {r}");
    }
    for hostile in ["x' OR '1'='1", "'; DELETE FROM t; --", "one' UNION SELECT 1, secret FROM t --"] {
        let r = call(&mut switchboard, "by_name", json!({"name": hostile}));
        assert_eq!(r["structuredContent"]["rows"], json!([]), "{hostile}: {r}");
    }
    let r = call(&mut switchboard, "by_name", json!({"name": "two"}));
    assert_eq!(r["structuredContent"]["rows"], json!([{"id": 2, "name": "two"}]), "{r}");
    switchboard.finish();
    untouched(&pg);
}

/// Typed tools whose statements change a session setting, on one pooled
/// connection: `loosen` turns `statement_timeout` off for the session
/// (`set_config(…, false)`), `timeout_now` reads it, `nap` sleeps.
const SESSION_TOOLS: &str = "pool_size = 1\n\n\
     [[tools.sql]]\nname = \"loosen\"\ndatabase = \"shop\"\n\
     sql = \"SELECT pg_backend_pid() AS pid, set_config('statement_timeout', '0', false) AS set_to\"\n\n\
     [[tools.sql]]\nname = \"timeout_now\"\ndatabase = \"shop\"\n\
     sql = \"SELECT pg_backend_pid() AS pid, current_setting('statement_timeout') AS timeout\"\n\n\
     [[tools.sql]]\nname = \"nap\"\ndatabase = \"shop\"\n\
     sql = \"SELECT 1 AS slept FROM pg_sleep(:seconds)\"\n";

/// The per-database settings live in the connection's startup packet and
/// a call runs only `BEGIN READ ONLY`, its statement and `ROLLBACK`: a
/// setting a call changes for the whole session is undone by its
/// `ROLLBACK` (settings are transactional in PostgreSQL), so the next call
/// on the same connection (the same backend) still has the configured
/// timeout, and a sleep past it is stopped in the database.
#[test]
fn a_session_setting_made_by_a_call_is_rolled_back_before_the_next_call() {
    let pg = shop();
    let dir = project(&pg, "reader", SESSION_TOOLS);
    let env = [("SHOP_DB_PASSWORD", READER_PASSWORD)];
    let mut switchboard = Switchboard::start_with_env(&["serve", "."], dir.path(), &env);
    wait_for_tool(&mut switchboard, "nap");
    let loosened = call(&mut switchboard, "loosen", json!({}));
    assert_ne!(loosened["isError"], true, "{loosened}");
    assert_eq!(loosened["structuredContent"]["rows"][0]["set_to"], "0", "{loosened}");
    let now = call(&mut switchboard, "timeout_now", json!({}));
    let (pid, timeout) =
        (&now["structuredContent"]["rows"][0]["pid"], &now["structuredContent"]["rows"][0]["timeout"]);
    assert_eq!(pid, &loosened["structuredContent"]["rows"][0]["pid"], "not the same connection: {now}");
    assert_eq!(timeout, "1s", "the session setting outlived its call: {now}");
    call(&mut switchboard, "loosen", json!({}));
    let started = Instant::now();
    let napped = call(&mut switchboard, "nap", json!({"seconds": 30}));
    assert_eq!(napped["isError"], true, "{napped}");
    assert!(napped.to_string().contains("statement timeout"), "{napped}");
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
    let deadline = Instant::now() + Duration::from_secs(10);
    while pg.query(
        "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%pg_sleep($1)%' AND pid <> pg_backend_pid()",
    ) != "0"
    {
        assert!(Instant::now() < deadline, "pg_sleep is still running in the database");
        std::thread::sleep(Duration::from_millis(100));
    }
    switchboard.finish();
    assert_eq!(rows_of_t(&pg), T_UNTOUCHED);
}

#[tokio::test]
async fn the_query_tool_writes_nothing_over_http_2026() {
    let pg = shop();
    let dir = project(&pg, "reader", "");
    let env = [("SHOP_DB_PASSWORD", READER_PASSWORD)];
    let (_child, url) = start_http(&["serve", "--http", "127.0.0.1:0", "."], Some(dir.path()), &env).await;
    let http = reqwest::Client::new();
    let deadline = Instant::now() + common::WAIT;
    for (i, sql) in ATTACKS.iter().enumerate() {
        let params = json!({"name": "shop_query", "arguments": {"sql": sql}, "_meta": meta_2026(json!({}))});
        let answer = loop {
            let (_, _, answer) = post_tools_call_2026(&http, &url, i as u64 + 1, params.clone()).await;
            // The database opens in the background: an unknown tool at first.
            if answer.get("error").is_none() || Instant::now() > deadline {
                break answer;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        refused(sql, &answer["result"]);
    }
    untouched(&pg);
}

#[test]
fn a_privileged_role_is_refused_and_check_says_where() {
    let pg = shop();
    let dir = project(&pg, "postgres", "");
    let env = [("SHOP_DB_PASSWORD", pg.superuser_password())];
    let (ok, _, stderr) = run_with_env(&["check", "."], dir.path(), &env);
    assert!(!ok, "{stderr}");
    assert!(
        stderr.lines().any(|l| l.contains("switchboard.toml:") && l.to_lowercase().contains("superuser")),
        "{stderr}"
    );
    assert!(!stderr.contains(pg.superuser_password()), "the password was shown: {stderr}");
    let (ok, stdout, stderr) = run_with_env(&["list", "."], dir.path(), &env);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("shop") && stdout.contains("down"), "{stdout}");
    assert!(!stdout.contains("shop_query") && !stdout.contains(pg.superuser_password()), "{stdout}");
    // The reader checks clean.
    let dir = project(&pg, "reader", "");
    let (ok, stdout, stderr) =
        run_with_env(&["check", "."], dir.path(), &[("SHOP_DB_PASSWORD", READER_PASSWORD)]);
    assert!(ok, "{stdout}\n{stderr}");
}

#[tokio::test]
async fn a_confirmed_write_commits_once_over_http_2026() {
    let pg = shop();
    let extra = "access = \"write\"\n\n[[tools.sql]]\nname = \"bump\"\ndatabase = \"shop\"\naccess = \"write\"\n\
                 sql = \"UPDATE t SET n = n + 1 WHERE id = :id\"\nmax_affected_rows = 1\nconfirm = \"always\"\n";
    let dir = project(&pg, "writer", extra);
    let env = [("SHOP_DB_PASSWORD", WRITER_PASSWORD)];
    let (_child, url) = start_http(&["serve", "--http", "127.0.0.1:0", "."], Some(dir.path()), &env).await;
    let http = reqwest::Client::new();
    let asks = || meta_2026(json!({"elicitation": {}}));
    let params = json!({"name": "bump", "arguments": {"id": 1}, "_meta": asks()});
    let round = |id: u64| {
        let (http, url, params) = (http.clone(), url.clone(), params.clone());
        async move {
            let deadline = Instant::now() + common::WAIT;
            loop {
                let (_, _, answer) = post_tools_call_2026(&http, &url, id, params.clone()).await;
                if answer["result"]["resultType"] == "input_required" {
                    return answer;
                }
                assert!(Instant::now() < deadline, "never asked: {answer}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    };
    let answer = |round: &Value, action: &str| {
        let key = round["result"]["inputRequests"].as_object().unwrap().keys().next().unwrap().clone();
        let mut response = json!({"action": action});
        if action == "accept" {
            response["content"] = json!({"confirm": true});
        }
        let mut retry = params.clone();
        retry["inputResponses"] = json!({key: response});
        retry["requestState"] = round["result"]["requestState"].clone();
        retry
    };
    let first = round(1).await;
    post_tools_call_2026(&http, &url, 2, answer(&first, "decline")).await;
    assert_eq!(rows_of_t(&pg), T_UNTOUCHED, "a declined write committed");
    let second = round(3).await;
    let accept = answer(&second, "accept");
    let (_, _, done) = post_tools_call_2026(&http, &url, 4, accept.clone()).await;
    assert_ne!(done["result"]["isError"], true, "{done}");
    assert_eq!(rows_of_t(&pg), "1:one:1,2:two:0,3:three:0", "{done}");
    let (_, _, replayed) = post_tools_call_2026(&http, &url, 5, accept).await;
    assert!(replayed["result"]["isError"] == true || replayed.get("error").is_some(), "{replayed}");
    assert_eq!(rows_of_t(&pg), "1:one:1,2:two:0,3:three:0", "a replay committed again");
    // The ad-hoc tool of a write database is off by default; reads stay reads.
    let params =
        json!({"name": "shop_query", "arguments": {"sql": "DELETE FROM t"}, "_meta": meta_2026(json!({}))});
    let (_, _, r) = post_tools_call_2026(&http, &url, 6, params).await;
    assert!(r.get("error").is_some() || r["result"]["isError"] == true, "{r}");
    assert_eq!(rows_of_t(&pg), "1:one:1,2:two:0,3:three:0");
}
