//! The MCP side over a real SQLite file: a `switchboard_server::Server`
//! built in-process with what [`Databases::items`] offers, driven through
//! the in-memory client (handshake era) and the server's own accept path
//! (2026-07-28 rounds), with the file's real rows checked afterwards.
#![cfg(feature = "sqlite")]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use switchboard_server::{Server, ServerBuilder, ServerOptions, Via};
use switchboard_sql::serve::{CheckProblem, DatabaseState, Databases, Place, check};
use switchboard_sql::spec::{DatabaseSpec, Key, Resolved, SqlToolSpec, Target};
use switchboard_testkit::TestClient;

/// A folder with `shop.db`: customers and 12 orders (ids 1 to 12).
fn fixture() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shop.db");
    let db = rusqlite::Connection::open(&path).unwrap();
    db.execute_batch(
        "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, ssn TEXT);
         CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id),
                              total INTEGER NOT NULL, status TEXT NOT NULL DEFAULT 'open');
         INSERT INTO customers (name, ssn) VALUES ('Ada', '111'), ('Bob', '222');",
    )
    .unwrap();
    for id in 1..=12 {
        let customer = if id <= 9 { 1 } else { 2 };
        db.execute(
            "INSERT INTO orders (id, customer_id, total) VALUES (?1, ?2, ?3)",
            (id, customer, id * 10),
        )
        .unwrap();
    }
    (dir, path)
}

/// What the file really holds, read by a connection of its own.
fn scalar(path: &Path, sql: &str) -> i64 {
    let db = rusqlite::Connection::open(path).unwrap();
    db.query_row(sql, [], |row| row.get(0)).unwrap()
}

fn database(path: &Path, settings: Value) -> Resolved {
    let mut spec = json!({"name": "shop", "path": "shop.db"});
    for (key, value) in settings.as_object().unwrap() {
        spec[key] = value.clone();
    }
    let spec: DatabaseSpec = serde_json::from_value(spec).unwrap();
    Resolved { spec, target: Target::Sqlite(path.to_owned()) }
}

fn sql_tool(spec: Value) -> SqlToolSpec {
    serde_json::from_value(spec).unwrap()
}

/// The orders of one customer, by id, a page of at most 4.
fn orders_of_customer() -> SqlToolSpec {
    sql_tool(json!({
        "name": "orders_of_customer", "database": "shop", "max_rows": 4,
        "description": "Orders of one customer, by id.",
        "sql": "SELECT id, total, status FROM orders WHERE customer_id = :customer_id ORDER BY id",
        "params": {"customer_id": {"description": "The customer's id", "type": "integer", "minimum": 1}},
    }))
}

/// Adds 1 to one order's total: a write whose replay would show.
fn bump_total(confirm: &str) -> SqlToolSpec {
    sql_tool(json!({
        "name": "bump_total", "database": "shop", "access": "write", "confirm": confirm,
        "max_affected_rows": 3,
        "sql": "UPDATE orders SET total = total + 1 WHERE id <= :last",
        "params": {"last": {"type": "integer"}},
    }))
}

/// Waits until every database is open (or fails the test after 20 s).
async fn opened(databases: &Databases) {
    for _ in 0..400 {
        let statuses = databases.statuses();
        if statuses.iter().all(|s| s.state == DatabaseState::Open) {
            return;
        }
        if let Some(down) = statuses.iter().find(|s| matches!(s.state, DatabaseState::Down(_))) {
            panic!("database down: {down:?}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("databases not open: {:?}", databases.statuses());
}

/// A server with the items of `specs` and `tools`, attached.
async fn serve(specs: Vec<Resolved>, tools: Vec<SqlToolSpec>) -> (Databases, Server) {
    serve_with(specs, tools, |builder| builder).await
}

/// [`serve`], with the builder adjusted by `adjust` (state store, options).
async fn serve_with(
    specs: Vec<Resolved>,
    tools: Vec<SqlToolSpec>,
    adjust: impl FnOnce(ServerBuilder) -> ServerBuilder,
) -> (Databases, Server) {
    let databases = Databases::new();
    databases.set(specs, tools);
    opened(&databases).await;
    let items = databases.items();
    let mut builder = adjust(Server::builder("sql-test", "1.0").enable_tools().enable_resources());
    for tool in items.tools {
        builder = builder.tool(tool);
    }
    for resource in items.resources {
        builder = builder.resource(resource);
    }
    for template in items.templates {
        builder = builder.resource_template(template);
    }
    let server = builder.build().unwrap();
    databases.attach(&server);
    (databases, server)
}

/// The key of the one question an `input_required` result asks.
fn question_key(result: &Value) -> String {
    let requests = result["inputRequests"].as_object().unwrap_or_else(|| panic!("no question in {result}"));
    assert_eq!(requests.len(), 1, "{result}");
    requests.keys().next().unwrap().clone()
}

fn text(result: &Value) -> String {
    result["content"][0]["text"].as_str().unwrap_or_default().to_owned()
}

/// One 2026-07-28 request through the server's accept path.
async fn modern(server: &Server, params: Value, capabilities: Value) -> Value {
    let (tx, _rx) = tokio::sync::mpsc::channel(16);
    let session = server.new_session(tx, None);
    let mut params = params;
    let mut meta = TestClient::modern_meta();
    meta["io.modelcontextprotocol/clientCapabilities"] = capabilities;
    params["_meta"] = meta;
    let frame =
        serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}))
            .unwrap();
    let bytes = server.accept_via(&session, &frame, &Via::default()).resolve().await.unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_typed_tool_takes_its_schema_from_the_database_and_answers_rows_as_data() {
    let (_dir, path) = fixture();
    let (_databases, server) = serve(vec![database(&path, json!({}))], vec![orders_of_customer()]).await;
    let mut client = TestClient::connect_legacy(&server, "2025-11-25").await;
    let tools = client.list_all_tools().await.unwrap();
    let tool = tools.iter().find(|t| t["name"] == "orders_of_customer").unwrap();
    let input = &tool["inputSchema"];
    assert_eq!(input["properties"]["customer_id"]["description"], "The customer's id", "{input}");
    assert_eq!(input["properties"]["customer_id"]["type"], "integer");
    assert_eq!(input["properties"]["customer_id"]["minimum"], 1.0);
    assert_eq!(input["required"], json!(["customer_id"]));
    assert!(input["properties"]["cursor"].is_object());
    let row = &tool["outputSchema"]["properties"]["rows"]["items"];
    assert_eq!(row["required"], json!(["id", "total", "status"]), "{row}");
    assert_eq!(tool["annotations"]["readOnlyHint"], true);

    let result = client.call_tool("orders_of_customer", json!({"customer_id": 2})).await.unwrap();
    assert_eq!(result["isError"], Value::Null, "{result}");
    let structured = &result["structuredContent"];
    assert_eq!(
        structured["rows"],
        json!([
            {"id": 10, "total": 100, "status": "open"},
            {"id": 11, "total": 110, "status": "open"},
            {"id": 12, "total": 120, "status": "open"},
        ])
    );
    assert_eq!((structured["rowCount"].clone(), structured["truncated"].clone()), (json!(3), json!(false)));
    assert!(structured.get("nextCursor").is_none());
    assert_eq!(result["_meta"]["io.switchboard/untrusted"], true);
    assert_eq!(result["_meta"]["io.switchboard/source"], "db://shop");
    assert!(text(&result).contains("not instructions"), "{result}");
    // Validated against the schema before the database sees it.
    let wrong = client.call_tool("orders_of_customer", json!({"customer_id": "2 OR 1=1"})).await;
    assert!(wrong.is_err() || wrong.unwrap()["isError"] == true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_typed_tool_answers_values_sqlite_stored_against_their_declared_type() {
    // A table that is not STRICT keeps text in an INTEGER column: the
    // output schema must admit it, or the row would become an error.
    let (_dir, path) = fixture();
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch(
            "CREATE TABLE loose (n INTEGER); INSERT INTO loose VALUES (1), ('abc'), (x'00'), (2.5), (NULL);",
        )
        .unwrap();
    let tool = sql_tool(
        json!({"name": "loose_values", "database": "shop", "sql": "SELECT n FROM loose ORDER BY rowid"}),
    );
    let (_databases, server) = serve(vec![database(&path, json!({}))], vec![tool]).await;
    let mut client = TestClient::connect_legacy(&server, "2025-11-25").await;
    let tools = client.list_all_tools().await.unwrap();
    let listed = tools.iter().find(|t| t["name"] == "loose_values").unwrap();
    let n = &listed["outputSchema"]["properties"]["rows"]["items"]["properties"]["n"];
    assert!(n["description"].as_str().is_some_and(|d| d.contains("declared INTEGER")), "{n}");
    let result = client.call_tool("loose_values", json!({})).await.unwrap();
    assert_eq!(result["isError"], Value::Null, "{result}");
    assert_eq!(
        result["structuredContent"]["rows"],
        json!([{"n": 1}, {"n": "abc"}, {"n": "AA=="}, {"n": 2.5}, {"n": null}])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_continue_with_a_signed_cursor_and_a_forged_one_is_refused() {
    let (_dir, path) = fixture();
    let (_databases, server) = serve(vec![database(&path, json!({}))], vec![orders_of_customer()]).await;
    let mut client = TestClient::connect_legacy(&server, "2025-11-25").await;
    let mut ids = Vec::new();
    let mut arguments = json!({"customer_id": 1});
    let mut first_cursor = None;
    for _ in 0..10 {
        let result = client.call_tool("orders_of_customer", arguments.clone()).await.unwrap();
        let structured = &result["structuredContent"];
        ids.extend(structured["rows"].as_array().unwrap().iter().map(|r| r["id"].as_i64().unwrap()));
        let Some(cursor) = structured.get("nextCursor").and_then(Value::as_str) else { break };
        assert_eq!(structured["truncated"], true);
        assert!(text(&result).contains(cursor), "the text says how to continue");
        first_cursor.get_or_insert_with(|| cursor.to_owned());
        arguments["cursor"] = json!(cursor);
    }
    assert_eq!(ids, (1..=9).collect::<Vec<i64>>());

    let cursor = first_cursor.unwrap();
    let mut altered = cursor.clone().into_bytes();
    altered[4] = if altered[4] == b'A' { b'B' } else { b'A' };
    let altered = String::from_utf8(altered).unwrap();
    for (tool, arguments) in [
        ("orders_of_customer", json!({"customer_id": 1, "cursor": altered})),
        ("orders_of_customer", json!({"customer_id": 2, "cursor": cursor})),
        ("orders_of_customer", json!({"customer_id": 1, "cursor": "not-a-cursor"})),
        ("shop_query", json!({"sql": "SELECT id FROM orders", "cursor": cursor})),
    ] {
        let result = client.call_tool(tool, arguments).await.unwrap();
        assert_eq!(result["isError"], true, "{result}");
        assert!(text(&result).contains("cursor was refused"), "{result}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_query_tool_is_read_only_whatever_the_text_says() {
    let (_dir, path) = fixture();
    let (_databases, server) = serve(vec![database(&path, json!({"max_rows": 5}))], Vec::new()).await;
    let mut client = TestClient::connect_legacy(&server, "2025-11-25").await;
    let tools = client.list_all_tools().await.unwrap();
    let query = tools.iter().find(|t| t["name"] == "shop_query").unwrap();
    assert_eq!(query["annotations"]["readOnlyHint"], true);
    assert!(query["description"].as_str().unwrap().contains("SQLite"), "{query}");
    assert!(query["description"].as_str().unwrap().contains("One statement per call"));

    for sql in [
        "DELETE FROM orders",
        "SELECT 1; DELETE FROM orders",
        "UPDATE orders SET total = 0",
        "WITH x AS (SELECT 1) DELETE FROM orders",
        "DROP TABLE orders",
    ] {
        let result = client.call_tool("shop_query", json!({"sql": sql})).await.unwrap();
        assert_eq!(result["isError"], true, "{sql}: {result}");
    }
    assert_eq!(scalar(&path, "SELECT count(*) FROM orders"), 12);
    assert_eq!(scalar(&path, "SELECT sum(total) FROM orders"), 780);

    let result = client
        .call_tool("shop_query", json!({"sql": "select o.id, c.id, c.name from orders o join customers c on c.id = o.customer_id where o.id = 10 -- ';'"}))
        .await
        .unwrap();
    let structured = &result["structuredContent"];
    assert_eq!(structured["rows"], json!([{"id": 10, "id_2": 2, "name": "Bob"}]), "{result}");
    assert_eq!(structured["columns"][1], json!({"name": "id_2", "type": "INTEGER", "databaseName": "id"}));

    let result =
        client.call_tool("shop_query", json!({"sql": "SELECT id FROM orders ORDER BY id"})).await.unwrap();
    assert_eq!(result["structuredContent"]["rowCount"], 5);
    assert_eq!(result["structuredContent"]["truncated"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_confirmed_write_commits_once_in_2026_rounds_and_a_replay_writes_nothing() {
    let (_dir, path) = fixture();
    let specs = vec![database(&path, json!({"access": "write"}))];
    let (_databases, server) = serve(specs, vec![bump_total("always")]).await;
    let caps = json!({"elicitation": {}});
    let params = json!({"name": "bump_total", "arguments": {"last": 2}});

    let r1 = modern(&server, params.clone(), caps.clone()).await;
    let r1 = &r1["result"];
    assert_eq!(r1["resultType"], "input_required", "{r1}");
    let question = &r1["inputRequests"][question_key(r1)]["params"];
    let message = question["message"].as_str().unwrap();
    assert!(
        message.contains("UPDATE orders SET total = total + 1") && message.contains(":last = 2"),
        "{message}"
    );
    assert!(message.contains("Rows it affects now: 2"), "{message}");
    assert_eq!(scalar(&path, "SELECT sum(total) FROM orders"), 780, "the dry run wrote nothing");

    let mut declined = params.clone();
    declined["inputResponses"] = json!({question_key(r1): {"action": "decline"}});
    declined["requestState"] = r1["requestState"].clone();
    let answer = modern(&server, declined, caps.clone()).await;
    assert_eq!(answer["result"]["structuredContent"]["committed"], false, "{answer}");
    assert_eq!(scalar(&path, "SELECT sum(total) FROM orders"), 780);

    let r1 = modern(&server, params.clone(), caps.clone()).await;
    let mut accepted = params.clone();
    accepted["inputResponses"] =
        json!({question_key(&r1["result"]): {"action": "accept", "content": {"confirm": true}}});
    accepted["requestState"] = r1["result"]["requestState"].clone();
    let answer = modern(&server, accepted.clone(), caps.clone()).await;
    assert_eq!(
        answer["result"]["structuredContent"],
        json!({"affectedRows": 2, "committed": true}),
        "{answer}"
    );
    assert_eq!(scalar(&path, "SELECT sum(total) FROM orders"), 782);

    let replay = modern(&server, accepted, caps).await;
    assert_eq!(replay["result"]["isError"], true, "{replay}");
    assert!(text(&replay["result"]).contains("already used"), "{replay}");
    assert_eq!(scalar(&path, "SELECT sum(total) FROM orders"), 782, "the replay wrote nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_sent_before_the_question_was_asked_writes_nothing() {
    // A 2026-07-28 client that sends an "accept" with its first request,
    // never having shown the user the statement, the values or the count.
    let (_dir, path) = fixture();
    let specs = vec![database(&path, json!({"access": "write"}))];
    let (_databases, server) = serve(specs, vec![bump_total("always")]).await;
    let caps = json!({"elicitation": {}});
    let mut eager = json!({"name": "bump_total", "arguments": {"last": 2}});
    let accept = json!({"action": "accept", "content": {"confirm": true}});
    eager["inputResponses"] = json!({"confirm": accept, "confirm-": accept});
    for _ in 0..3 {
        let answer = modern(&server, eager.clone(), caps.clone()).await;
        assert_eq!(answer["result"]["resultType"], "input_required", "{answer}");
    }
    assert_eq!(scalar(&path, "SELECT sum(total) FROM orders"), 780, "nothing was written");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_confirmation_answered_on_another_instance_commits_exactly_once() {
    use switchboard_state_redis::RedisStore;
    use switchboard_testkit::redis::RedisServer;

    let redis = tokio::task::spawn_blocking(RedisServer::start).await.unwrap();
    let (_dir, path) = fixture();
    let mut instances = Vec::new();
    for _ in 0..2 {
        let store = RedisStore::connect(&redis.url(), "sql-test").await.unwrap();
        let mut options = ServerOptions::default();
        options.cursor_key = Some([9; 32]);
        let specs = vec![database(&path, json!({"access": "write"}))];
        let adjust = move |builder: ServerBuilder| builder.state(store).options(options);
        instances.push(serve_with(specs, vec![bump_total("always")], adjust).await);
    }
    let (a, b) = (&instances[0].1, &instances[1].1);
    let caps = json!({"elicitation": {}});
    let params = json!({"name": "bump_total", "arguments": {"last": 1}});
    let r1 = modern(a, params.clone(), caps.clone()).await;
    let mut accepted = params;
    accepted["inputResponses"] =
        json!({question_key(&r1["result"]): {"action": "accept", "content": {"confirm": true}}});
    accepted["requestState"] = r1["result"]["requestState"].clone();
    let answer = modern(b, accepted.clone(), caps.clone()).await;
    assert_eq!(answer["result"]["structuredContent"]["committed"], true, "{answer}");
    for instance in [a, b] {
        let replay = modern(instance, accepted.clone(), caps.clone()).await;
        assert_eq!(replay["result"]["isError"], true, "{replay}");
    }
    assert_eq!(scalar(&path, "SELECT sum(total) FROM orders"), 781, "committed exactly once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handshake_client_is_asked_live_and_one_that_cannot_be_asked_writes_nothing() {
    let (_dir, path) = fixture();
    let specs = vec![database(&path, json!({"access": "write"}))];
    let (_databases, server) = serve(specs, vec![bump_total("always")]).await;

    let mut client = TestClient::connect(&server);
    let init = json!({"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}}, "clientInfo": {"name": "t", "version": "1"}});
    client.request_raw("initialize", Some(init)).await.unwrap();
    client.notify("notifications/initialized", None).await.unwrap();
    let call = json!({"name": "bump_total", "arguments": {"last": 3}});
    client.send(&json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": call})).await.unwrap();
    let question = client.recv().await.unwrap();
    assert_eq!(question["method"], "elicitation/create", "{question}");
    assert!(question["params"]["message"].as_str().unwrap().contains("Rows it affects now: 3"));
    let accept = json!({"action": "accept", "content": {"confirm": true}});
    client.send(&json!({"jsonrpc": "2.0", "id": question["id"], "result": accept})).await.unwrap();
    let response = client.response_to(&json!(7)).await.unwrap();
    assert_eq!(response["result"]["structuredContent"]["committed"], true, "{response}");
    assert_eq!(scalar(&path, "SELECT sum(total) FROM orders"), 783);

    let mut mute = TestClient::connect_legacy(&server, "2025-11-25").await;
    let result = mute.call_tool("bump_total", json!({"last": 1})).await.unwrap();
    assert_eq!(result["isError"], true, "{result}");
    assert!(text(&result).contains("cannot ask"), "{result}");
    assert_eq!(scalar(&path, "SELECT sum(total) FROM orders"), 783);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_over_its_row_limit_rolls_back() {
    let (_dir, path) = fixture();
    let specs = vec![database(&path, json!({"access": "write"}))];
    let (_databases, server) = serve(specs, vec![bump_total("never")]).await;
    let mut client = TestClient::connect_legacy(&server, "2025-11-25").await;
    let tools = client.list_all_tools().await.unwrap();
    assert!(!tools.iter().any(|t| t["name"] == "shop_query"), "no query tool on a write database by default");
    let result = client.call_tool("bump_total", json!({"last": 12})).await.unwrap();
    assert_eq!(result["isError"], true, "{result}");
    assert!(text(&result).contains("12 rows"), "{result}");
    assert_eq!(scalar(&path, "SELECT sum(total) FROM orders"), 780);
    let result = client.call_tool("bump_total", json!({"last": 1})).await.unwrap();
    assert_eq!(result["structuredContent"], json!({"affectedRows": 1, "committed": true}), "{result}");
    assert_eq!(scalar(&path, "SELECT sum(total) FROM orders"), 781);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_schema_is_a_resource_with_table_completion_and_exclusions_left_out() {
    let (_dir, path) = fixture();
    let specs = vec![database(&path, json!({"exclude": ["customers.ssn"]}))];
    let (_databases, server) = serve(specs, Vec::new()).await;
    let mut client = TestClient::connect_legacy(&server, "2025-11-25").await;
    let schema = client.read_resource("db://shop/schema").await.unwrap();
    assert_eq!(schema["contents"][0]["mimeType"], "application/json");
    let catalog: Value = serde_json::from_str(schema["contents"][0]["text"].as_str().unwrap()).unwrap();
    let names: Vec<&str> =
        catalog["tables"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["customers", "orders"]);
    assert!(!schema.to_string().contains("ssn"), "{schema}");

    let table = client.read_resource("db://shop/table/orders").await.unwrap();
    let table: Value = serde_json::from_str(table["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(table["name"], "orders");
    assert!(client.read_resource("db://shop/table/nope").await.is_err());

    let reference = json!({"type": "ref/resource", "uri": "db://shop/table/{table}"});
    let completion = client.complete(reference, "table", "or").await.unwrap();
    assert_eq!(completion["completion"]["values"], json!(["orders"]), "{completion}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_schema_change_wakes_changed_and_updates_subscribers() {
    let (_dir, path) = fixture();
    let specs = vec![database(&path, json!({"poll": "1h"}))];
    let (databases, server) = serve(specs, Vec::new()).await;
    let mut client = TestClient::connect_legacy(&server, "2025-11-25").await;
    client.request("resources/subscribe", json!({"uri": "db://shop/schema"})).await.unwrap();

    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch("CREATE TABLE refunds (id INTEGER PRIMARY KEY)")
        .unwrap();
    let changed = databases.clone();
    let waiting = tokio::spawn(async move { changed.changed().await });
    // The file watcher's nudge (the poll interval is an hour).
    databases.schema_touched(&path);
    tokio::time::timeout(Duration::from_secs(20), waiting).await.expect("changed() resolves").unwrap();
    let updated = tokio::time::timeout(
        Duration::from_secs(20),
        client.next_notification("notifications/resources/updated"),
    )
    .await
    .expect("resources/updated arrives")
    .unwrap();
    assert_eq!(updated["params"]["uri"], "db://shop/schema");
    let schema = client.read_resource("db://shop/schema").await.unwrap();
    assert!(schema.to_string().contains("refunds"), "{schema}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_places_every_problem_on_its_key() {
    let (dir, path) = fixture();
    let missing = database(&dir.path().join("missing.db"), json!({}));
    let mut missing = missing;
    missing.spec.name = "gone".into();
    let specs = vec![database(&path, json!({})), missing];
    let tools = vec![
        sql_tool(json!({"name": "bad_column", "database": "shop", "sql": "SELECT nope FROM orders"})),
        sql_tool(
            json!({"name": "extra_param", "database": "shop", "sql": "SELECT id FROM orders WHERE id = :id",
                        "params": {"id": {}, "other": {}}}),
        ),
        sql_tool(
            json!({"name": "sneaky_write", "database": "shop", "sql": "DELETE FROM orders WHERE id = :id"}),
        ),
        sql_tool(json!({"name": "no_db", "database": "elsewhere", "sql": "SELECT 1"})),
        orders_of_customer(),
    ];
    let problems = check(&specs, &tools).await;
    let at = |place: Place, keys: &[&str]| -> Option<&CheckProblem> {
        let keys: Vec<Key> = keys.iter().map(|k| Key::from(*k)).collect();
        problems.iter().find(|p| p.place == place && p.at == keys)
    };
    assert!(at(Place::Database(1), &[]).is_some(), "{problems:?}");
    assert!(at(Place::Tool(0), &["sql"]).unwrap().message.contains("nope"), "{problems:?}");
    assert!(at(Place::Tool(1), &["params", "other"]).is_some(), "{problems:?}");
    assert!(at(Place::Tool(2), &["sql"]).unwrap().message.contains("access = \"write\""), "{problems:?}");
    assert_eq!(problems.iter().filter(|p| p.place == Place::Tool(1)).count(), 1, "said once: {problems:?}");
    assert!(at(Place::Tool(3), &["database"]).is_some(), "{problems:?}");
    assert!(
        !problems.iter().any(|p| p.place == Place::Tool(4) || p.place == Place::Database(0)),
        "{problems:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_that_does_not_describe_is_left_out_with_a_note() {
    let (_dir, path) = fixture();
    let tools =
        vec![sql_tool(json!({"name": "broken", "database": "shop", "sql": "SELECT nope FROM orders"}))];
    let (databases, server) = serve(vec![database(&path, json!({}))], tools).await;
    assert!(server.tool_definition("broken").is_none());
    assert!(server.tool_definition("shop_query").is_some());
    let status = &databases.statuses()[0];
    assert!(status.notes.iter().any(|n| n.contains("broken") && n.contains("nope")), "{status:?}");
    // Removing the database closes it: its items are gone.
    databases.set(Vec::new(), Vec::new());
    assert!(databases.items().tools.is_empty());
    let _ = Arc::new(server);
}

/// A real PostgreSQL with row-level security on `notes`: each end user
/// sees only their own rows, through one shared pool, by the setting
/// `app.user_id` taken from the caller's token subject.
#[cfg(feature = "postgres")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_session_settings_apply_row_level_security_per_end_user() {
    use switchboard_server::Principal;
    use switchboard_testkit::postgres::PostgresServer;

    let pg = tokio::task::spawn_blocking(PostgresServer::start).await.unwrap();
    pg.create_database("shop");
    pg.create_role("app", "app-password", "LOGIN");
    pg.execute_in(
        "shop",
        "CREATE TABLE notes (id int PRIMARY KEY, owner text NOT NULL, body text NOT NULL);
         INSERT INTO notes VALUES (1, 'ada', 'engine'), (2, 'bob', 'cipher'), (3, 'ada', 'loom');
         ALTER TABLE notes ENABLE ROW LEVEL SECURITY;
         CREATE POLICY own_notes ON notes USING (owner = current_setting('app.user_id', true));
         GRANT SELECT ON notes TO app;",
    );
    let spec: DatabaseSpec = serde_json::from_value(json!({
        "name": "shop", "url_env": "SHOP_URL", "session": {"app.user_id": "claims.sub"}, "max_rows": 1,
    }))
    .unwrap();
    assert!(spec.problems().is_empty(), "{:?}", spec.problems());
    let url = format!("postgres://app@127.0.0.1:{}/shop", pg.port());
    let target = Target::Postgres { url, password: Some("app-password".into()) };
    let tool = sql_tool(
        json!({"name": "my_notes", "database": "shop", "sql": "SELECT id, body FROM notes ORDER BY id"}),
    );
    let (_databases, server) = serve(vec![Resolved { spec, target }], vec![tool]).await;
    let definition = server.tool_definition("my_notes").unwrap();
    let row = &definition.output_schema.as_ref().unwrap()["properties"]["rows"]["items"];
    assert_eq!(row["required"], json!(["id", "body"]), "{row}");

    let call_as = |who: Option<&str>, arguments: Value| {
        let server = server.clone();
        let principal = who.map(Principal::new);
        async move {
            let (tx, _rx) = tokio::sync::mpsc::channel(16);
            let session = server.new_session(tx, None);
            let mut params = json!({"name": "my_notes", "arguments": arguments});
            params["_meta"] = TestClient::modern_meta();
            let frame = serde_json::to_vec(
                &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}),
            )
            .unwrap();
            let via = Via { principal, ..Via::default() };
            let bytes = server.accept_via(&session, &frame, &via).resolve().await.unwrap();
            let response: Value = serde_json::from_slice(&bytes).unwrap();
            response["result"].clone()
        }
    };
    let first = call_as(Some("ada"), json!({})).await;
    assert_eq!(first["structuredContent"]["rows"], json!([{"id": 1, "body": "engine"}]), "{first}");
    let cursor = first["structuredContent"]["nextCursor"].as_str().unwrap().to_owned();
    let second = call_as(Some("ada"), json!({"cursor": cursor})).await;
    assert_eq!(second["structuredContent"]["rows"], json!([{"id": 3, "body": "loom"}]), "{second}");
    assert_eq!(second["structuredContent"]["truncated"], false);
    let bob = call_as(Some("bob"), json!({})).await;
    assert_eq!(bob["structuredContent"]["rows"], json!([{"id": 2, "body": "cipher"}]), "{bob}");
    let nobody = call_as(None, json!({})).await;
    assert_eq!(nobody["isError"], true, "{nobody}");
    assert!(text(&nobody).contains("access token"), "{nobody}");
}

/// The attack of the review: through the ad-hoc query tool, any role sets
/// the session setting itself (`set_config('app.user_id', 'bob', true)`)
/// and reads another user's rows. A database with `session` offers no
/// query tool, and asking for one is a placed problem.
#[cfg(feature = "postgres")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_session_database_offers_no_query_tool_that_could_set_the_user_itself() {
    use switchboard_server::Principal;
    use switchboard_testkit::postgres::PostgresServer;

    let pg = tokio::task::spawn_blocking(PostgresServer::start).await.unwrap();
    pg.create_database("shop");
    pg.create_role("app", "app-password", "LOGIN");
    pg.execute_in(
        "shop",
        "CREATE TABLE notes (id int PRIMARY KEY, owner text NOT NULL, body text NOT NULL);
         INSERT INTO notes VALUES (1, 'ada', 'engine'), (2, 'bob', 'cipher');
         ALTER TABLE notes ENABLE ROW LEVEL SECURITY;
         CREATE POLICY own_notes ON notes USING (owner = current_setting('app.user_id', true));
         GRANT SELECT ON notes TO app;",
    );
    let asked: DatabaseSpec = serde_json::from_value(json!({
        "name": "shop", "url_env": "SHOP_URL", "session": {"app.user_id": "claims.sub"}, "query_tool": true,
    }))
    .unwrap();
    let problems = asked.problems();
    assert!(
        problems
            .iter()
            .any(|(at, message)| at == &vec![Key::from("query_tool")] && message.contains("set_config")),
        "{problems:?}"
    );
    // Even served as written (a loader that keeps a broken entry), no query tool.
    let url = format!("postgres://app@127.0.0.1:{}/shop", pg.port());
    let target = Target::Postgres { url, password: Some("app-password".into()) };
    let (_databases, server) = serve(vec![Resolved { spec: asked, target }], Vec::new()).await;
    assert!(server.tool_definition("shop_query").is_none());

    let (tx, _rx) = tokio::sync::mpsc::channel(16);
    let session = server.new_session(tx, None);
    let sql = "SELECT set_config('app.user_id', 'bob', true), body FROM notes";
    let mut params = json!({"name": "shop_query", "arguments": {"sql": sql}});
    params["_meta"] = TestClient::modern_meta();
    let frame =
        serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}))
            .unwrap();
    let via = Via { principal: Some(Principal::new("ada")), ..Via::default() };
    let bytes = server.accept_via(&session, &frame, &via).resolve().await.unwrap();
    let response = String::from_utf8(bytes.to_vec()).unwrap();
    assert!(!response.contains("cipher"), "bob's row reached ada: {response}");
    assert!(response.contains("error") || response.contains("isError"), "{response}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_that_is_down_has_no_items_and_comes_back_when_it_can_open() {
    let (dir, path) = fixture();
    let later = dir.path().join("later.db");
    let mut spec = database(&later, json!({}));
    spec.spec.name = "later".into();
    let databases = Databases::new();
    databases.set(vec![spec], Vec::new());
    let mut down = None;
    for _ in 0..200 {
        if let [status] = databases.statuses().as_slice()
            && let DatabaseState::Down(message) = &status.state
        {
            down = Some(message.clone());
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(down.unwrap().contains("later.db"), "{:?}", databases.statuses());
    assert!(databases.items().tools.is_empty());

    std::fs::copy(&path, &later).unwrap();
    let waiting = databases.clone();
    let changed = tokio::spawn(async move { waiting.changed().await });
    databases.schema_touched(&later);
    tokio::time::timeout(Duration::from_secs(20), changed).await.expect("changed() resolves").unwrap();
    assert_eq!(databases.statuses()[0].state, DatabaseState::Open);
    let items = databases.items();
    assert_eq!(items.tools.iter().map(|t| t.name().to_owned()).collect::<Vec<_>>(), ["later_query"]);
    assert_eq!(items.resources.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_may_run_as_a_task_as_command_tools_do() {
    let (_dir, path) = fixture();
    let mut tool = orders_of_customer();
    tool.task = switchboard_sql::spec::TaskMode::Optional;
    let (_databases, server) = serve(vec![database(&path, json!({}))], vec![tool]).await;
    let definition = server.tool_definition("orders_of_customer").unwrap();
    let execution = serde_json::to_value(&definition.execution).unwrap();
    assert_eq!(execution["taskSupport"], "optional", "{execution}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_confirmed_write_whose_rows_changed_since_is_rolled_back() {
    let (_dir, path) = fixture();
    let specs = vec![database(&path, json!({"access": "write"}))];
    let (_databases, server) = serve(specs, vec![bump_total("always")]).await;
    let caps = json!({"elicitation": {}});
    let params = json!({"name": "bump_total", "arguments": {"last": 3}});
    let r1 = modern(&server, params.clone(), caps.clone()).await;
    let message =
        r1["result"]["inputRequests"][question_key(&r1["result"])]["params"]["message"].as_str().unwrap();
    assert!(message.contains("Rows it affects now: 3"), "{message}");
    // Someone else deletes a row before the user answers.
    rusqlite::Connection::open(&path).unwrap().execute("DELETE FROM orders WHERE id = 1", []).unwrap();
    let mut accepted = params;
    accepted["inputResponses"] =
        json!({question_key(&r1["result"]): {"action": "accept", "content": {"confirm": true}}});
    accepted["requestState"] = r1["result"]["requestState"].clone();
    let answer = modern(&server, accepted, caps).await;
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(text(&answer["result"]).contains("not the 3 confirmed"), "{answer}");
    assert_eq!(
        scalar(&path, "SELECT sum(total) FROM orders"),
        770,
        "nothing written: only the deletion shows"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_query_stops_at_the_statement_timeout_and_says_so() {
    let (_dir, path) = fixture();
    let specs = vec![database(&path, json!({"statement_timeout": "300ms"}))];
    let (_databases, server) = serve(specs, Vec::new()).await;
    let mut client = TestClient::connect_legacy(&server, "2025-11-25").await;
    let endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n";
    let started = std::time::Instant::now();
    let result = client.call_tool("shop_query", json!({"sql": endless})).await.unwrap();
    assert_eq!(result["isError"], true, "{result}");
    assert!(text(&result).contains("statement timeout"), "{result}");
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    let after =
        client.call_tool("shop_query", json!({"sql": "SELECT count(*) AS n FROM orders"})).await.unwrap();
    assert_eq!(after["structuredContent"]["rows"], json!([{"n": 12}]), "{after}");
}
