//! The SQLite engine tried as an attacker would, on real files in a temp
//! folder: each refusal is checked against the file's real state
//! afterwards (row counts, schema version, the folder's files), and the
//! legitimate reads that a text classifier would break are checked to work.
#![cfg(feature = "sqlite")]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};
use switchboard_sql::sqlite::{Sqlite, is_sqlite_file};
use switchboard_sql::{
    Access, Call, Commit, Database, Error, Exclusions, Options, Placeholders, Rows, Statement, TableKind,
    WriteCall,
};
use tokio_util::sync::CancellationToken;

/// A folder with `shop.db`: customers (with an `ssn`), orders referencing
/// them, an audit table, a view and an index.
fn fixture() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shop.db");
    let db = rusqlite::Connection::open(&path).unwrap();
    db.execute_batch(
        "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, ssn TEXT, score REAL DEFAULT 0);
         CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id),
                              total NUMERIC, status TEXT DEFAULT 'open', note BLOB);
         CREATE INDEX orders_by_customer ON orders(customer_id);
         CREATE TABLE audit_log (id INTEGER PRIMARY KEY, entry TEXT);
         CREATE VIEW customer_ssn AS SELECT name, ssn FROM customers;
         INSERT INTO customers (name, ssn, score) VALUES ('Ada', '111-11-1111', 9.5), ('Bob', '222-22-2222', 7),
                                                       ('Zoë 東京', '333-33-3333', 8);
         INSERT INTO orders (customer_id, total, status) VALUES (1, 10, 'open'), (1, 20, 'open'), (2, 5, 'open'),
                                                                 (3, 7.5, 'paid');
         INSERT INTO audit_log (entry) VALUES ('created');",
    )
    .unwrap();
    (dir, path)
}

fn options() -> Options {
    Options { statement_timeout: Duration::from_secs(5), ..Options::default() }
}

fn excluding(patterns: &[&str]) -> Options {
    Options { exclude: Exclusions::new(patterns).unwrap(), ..options() }
}

/// What the file really holds, read by a connection of its own.
fn count(path: &Path, table: &str) -> i64 {
    let db = rusqlite::Connection::open(path).unwrap();
    db.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0)).unwrap()
}

fn schema_version(path: &Path) -> i64 {
    let db = rusqlite::Connection::open(path).unwrap();
    db.query_row("PRAGMA schema_version", [], |r| r.get(0)).unwrap()
}

fn pragma(path: &Path, name: &str) -> i64 {
    let db = rusqlite::Connection::open(path).unwrap();
    db.query_row(&format!("PRAGMA {name}"), [], |r| r.get(0)).unwrap()
}

fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The file's state a refused statement must leave as it was.
fn state(path: &Path) -> (i64, i64, i64, i64) {
    (count(path, "customers"), count(path, "orders"), schema_version(path), pragma(path, "user_version"))
}

fn call<'a>(sql: &'a str, params: &'a Map<String, Value>, placeholders: Placeholders) -> Call<'a> {
    Call {
        statement: Statement { sql, placeholders },
        params,
        skip: 0,
        max_rows: 100,
        max_bytes: 1 << 20,
        settings: &[],
        cancel: CancellationToken::new(),
    }
}

/// An ad-hoc read, as the model's query tool sends it.
async fn read(db: &Sqlite, sql: &str) -> Result<Rows, Error> {
    let params = Map::new();
    db.query(call(sql, &params, Placeholders::None)).await
}

/// A configured read with `:name` parameters.
async fn read_named(db: &Sqlite, sql: &str, params: Value) -> Result<Rows, Error> {
    let Value::Object(params) = params else { panic!("params must be an object") };
    db.query(call(sql, &params, Placeholders::Named)).await
}

async fn write(
    db: &Sqlite,
    sql: &str,
    params: Value,
    commit: Commit,
) -> Result<switchboard_sql::Written, Error> {
    let Value::Object(params) = params else { panic!("params must be an object") };
    db.write(WriteCall {
        statement: Statement { sql, placeholders: Placeholders::Named },
        params: &params,
        commit,
        settings: &[],
        cancel: CancellationToken::new(),
    })
    .await
}

fn refused(result: Result<Rows, Error>, sql: &str) -> Error {
    match result {
        Err(e @ (Error::Refused(_) | Error::MultipleStatements | Error::Prepare(_))) => e,
        other => panic!("{sql}: expected a refusal, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn stacked_statements_are_refused_and_nothing_runs() {
    let (dir, path) = fixture();
    let db = Sqlite::open(&path, &options()).unwrap();
    let before = state(&path);
    for sql in [
        "SELECT 1; DELETE FROM customers",
        "SELECT 1;DELETE FROM customers;",
        "/* a comment; */ SELECT 1; DELETE FROM customers",
        "SELECT ';' AS s; DELETE FROM customers",
        "SELECT 'it''s; fine'; DROP TABLE orders",
        "SELECT 1 -- trailing\n; PRAGMA user_version = 7",
        "SELECT 1; SELECT 2",
        "SELECT 1; ATTACH 'evil.db' AS evil",
    ] {
        assert_eq!(read(&db, sql).await, Err(Error::MultipleStatements), "{sql}");
    }
    assert_eq!(state(&path), before);
    assert_eq!(files(dir.path()), ["shop.db"]);
    // Whitespace and comments after the one statement are harmless.
    for sql in ["SELECT 1;", "SELECT 1; -- done", "SELECT 1 /* c */ ;  \n\t", "SELECT 1; /* c; */"] {
        assert_eq!(read(&db, sql).await.unwrap().rows, vec![vec![json!(1)]], "{sql}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn writes_ddl_and_transaction_control_are_refused_on_a_read_database() {
    let (dir, path) = fixture();
    let db = Sqlite::open(&path, &options()).unwrap();
    let before = state(&path);
    for sql in [
        "INSERT INTO customers (name) VALUES ('Eve')",
        "INSERT INTO customers (name) VALUES ('Eve') RETURNING id",
        "UPDATE customers SET name = 'Eve'",
        "DELETE FROM orders",
        "REPLACE INTO customers (id, name) VALUES (1, 'Eve')",
        "DROP TABLE orders",
        "CREATE TABLE t (x)",
        "CREATE TEMP TABLE t (x)",
        "CREATE TEMP VIEW v AS SELECT 1",
        "ALTER TABLE customers ADD COLUMN x",
        "CREATE INDEX i ON customers(name)",
        "DROP INDEX orders_by_customer",
        "REINDEX",
        "ANALYZE",
        "BEGIN",
        "COMMIT",
        "SAVEPOINT s",
        "VACUUM",
        "WITH x AS (SELECT 1) DELETE FROM orders",
        "WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d",
        "EXPLAIN DELETE FROM orders",
    ] {
        refused(read(&db, sql).await, sql);
    }
    assert_eq!(state(&path), before);
    assert_eq!(files(dir.path()), ["shop.db"]);
    let write = write(&db, "DELETE FROM orders", json!({}), Commit::If { max: None, expect: None }).await;
    assert_eq!(write, Err(Error::ReadOnly));
    assert_eq!(state(&path), before);
}

#[tokio::test(flavor = "multi_thread")]
async fn attach_and_vacuum_into_create_no_file() {
    let (dir, path) = fixture();
    let db = Sqlite::open(&path, &options()).unwrap();
    let target = dir.path().join("copy.db");
    let outside = tempfile::tempdir().unwrap();
    let elsewhere = outside.path().join("x.db");
    for sql in [
        format!("ATTACH '{}' AS copy", target.display()),
        format!("ATTACH DATABASE '{}' AS x", elsewhere.display()),
        "ATTACH ':memory:' AS m".to_owned(),
        "DETACH main".to_owned(),
        format!("VACUUM INTO '{}'", target.display()),
        format!("VACUUM main INTO '{}'", elsewhere.display()),
    ] {
        let error = refused(read(&db, &sql).await, &sql);
        assert!(matches!(error, Error::Refused(_)), "{sql}: {error:?}");
    }
    assert_eq!(files(dir.path()), ["shop.db"]);
    assert!(files(outside.path()).is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn pragma_writes_and_load_extension_are_refused() {
    let (dir, path) = fixture();
    let db = Sqlite::open(&path, &options()).unwrap();
    let before = state(&path);
    for sql in [
        "PRAGMA writable_schema = 1",
        "PRAGMA writable_schema = ON",
        "PRAGMA query_only = 0",
        "PRAGMA query_only = false",
        "PRAGMA user_version = 7",
        "PRAGMA schema_version = 99",
        "PRAGMA journal_mode = DELETE",
        "PRAGMA main.journal_mode = WAL",
        "PRAGMA trusted_schema = 1",
        "PRAGMA foreign_keys = 0",
        "PRAGMA integrity_check",
        "SELECT * FROM pragma_query_only(0)",
        "SELECT load_extension('/tmp/evil.so')",
        "SELECT load_extension('libevil', 'init')",
        "SELECT fts3_tokenizer('simple')",
        "SELECT readfile('/etc/passwd')",
        "SELECT writefile('/tmp/x', 'y')",
    ] {
        refused(read(&db, sql).await, sql);
    }
    assert_eq!(state(&path), before);
    assert_eq!(files(dir.path()), ["shop.db"]);
    // query_only is still on: reading pragmas works, and the connection
    // still reads only afterwards.
    let version = read(&db, "PRAGMA user_version").await.unwrap();
    assert_eq!(version.rows, vec![vec![json!(0)]]);
    refused(read(&db, "DELETE FROM orders").await, "DELETE");
    assert_eq!(state(&path), before);
}

const ENDLESS: &str =
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c";

#[tokio::test(flavor = "multi_thread")]
async fn an_endless_recursive_cte_is_stopped_by_the_timeout() {
    let (_dir, path) = fixture();
    let options = Options { statement_timeout: Duration::from_millis(300), ..options() };
    let db = Sqlite::open(&path, &options).unwrap();
    let started = Instant::now();
    assert_eq!(read(&db, ENDLESS).await, Err(Error::Timeout("300ms".into())));
    assert!(started.elapsed() < Duration::from_secs(2), "took {:?}", started.elapsed());
    // The connection is usable afterwards.
    assert_eq!(read(&db, "SELECT count(*) FROM customers").await.unwrap().rows, vec![vec![json!(3)]]);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_endless_recursive_cte_is_stopped_by_cancel_promptly() {
    let (_dir, path) = fixture();
    let options = Options { statement_timeout: Duration::from_secs(600), ..options() };
    let db = Sqlite::open(&path, &options).unwrap();
    let params = Map::new();
    let mut endless = call(ENDLESS, &params, Placeholders::None);
    let cancel = endless.cancel.clone();
    endless.cancel = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        cancel.cancel();
    });
    let started = Instant::now();
    assert_eq!(db.query(endless).await, Err(Error::Cancelled));
    assert!(started.elapsed() < Duration::from_secs(2), "took {:?}", started.elapsed());

    // A caller that gives up (drops the call) stops the statement too: the
    // one-connection pool is free again at once.
    let single = Sqlite::open(&path, &Options { pool_size: 1, ..options }).unwrap();
    let abandoned = tokio::time::timeout(Duration::from_millis(200), read(&single, ENDLESS)).await;
    assert!(abandoned.is_err());
    let started = Instant::now();
    let next = tokio::time::timeout(Duration::from_secs(5), read(&single, "SELECT 1")).await;
    assert_eq!(next.expect("the pool was freed").unwrap().rows, vec![vec![json!(1)]]);
    assert!(started.elapsed() < Duration::from_secs(2));
}

/// The resident memory of this process, in bytes (Linux).
fn resident() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse::<u64>().ok().map(|kib| kib * 1024)
}

/// The size of `rows` sent as objects with the column names `names`, as
/// `max_bytes` counts them.
fn sent_as_objects(rows: &[Vec<Value>], names: &[&str]) -> u64 {
    let objects: Vec<Value> = rows
        .iter()
        .map(|row| Value::Object(names.iter().map(|n| n.to_string()).zip(row.iter().cloned()).collect()))
        .collect();
    serde_json::to_vec(&objects).unwrap().len() as u64
}

#[tokio::test(flavor = "multi_thread")]
async fn a_twenty_million_row_result_is_capped_promptly_with_flat_memory() {
    let (_dir, path) = fixture();
    let db = Sqlite::open(&path, &options()).unwrap();
    let sql = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000000) \
               SELECT x, 'row number ' || x AS label FROM c";
    let before = resident();
    let started = Instant::now();
    let params = Map::new();
    let capped = Call { max_rows: 500, ..call(sql, &params, Placeholders::None) };
    let rows = db.query(capped).await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(2), "took {:?}", started.elapsed());
    assert!(rows.truncated);
    assert_eq!(rows.rows.len(), 500);
    assert_eq!(rows.rows[499], vec![json!(500), json!("row number 500")]);
    assert_eq!(rows.bytes, sent_as_objects(&rows.rows, &["x", "label"]));
    if let (Some(before), Some(after)) = (before, resident()) {
        assert!(after.saturating_sub(before) < 64 << 20, "grew by {} bytes", after - before);
    }

    // max_bytes is exact too, and a continuation skips what was returned.
    let bytes_capped =
        Call { max_rows: 1_000_000, max_bytes: 1000, ..call(sql, &params, Placeholders::None) };
    let first = db.query(bytes_capped.clone()).await.unwrap();
    assert!(first.truncated && first.bytes <= 1000 && !first.rows.is_empty());
    assert_eq!(first.bytes, sent_as_objects(&first.rows, &["x", "label"]));
    let next = db.query(Call { skip: first.rows.len() as u64, ..bytes_capped }).await.unwrap();
    assert_eq!(next.rows[0][0], json!(first.rows.len() + 1));

    // A value larger than the cap ends the result before it is encoded.
    let huge = Call {
        max_bytes: 1000,
        ..call("SELECT 1 UNION ALL SELECT randomblob(50000000)", &params, Placeholders::None)
    };
    let started = Instant::now();
    let rows = db.query(huge).await.unwrap();
    assert!(rows.truncated && rows.rows == vec![vec![json!(1)]]);
    assert!(started.elapsed() < Duration::from_secs(2));
    // A result that fits is not truncated.
    let small =
        db.query(Call { max_rows: 3, ..call("SELECT id FROM customers", &params, Placeholders::None) }).await;
    assert!(!small.unwrap().truncated);
}

#[tokio::test(flavor = "multi_thread")]
async fn excluded_columns_and_tables_are_refused_in_ad_hoc_sql() {
    let (_dir, path) = fixture();
    let db = Sqlite::open(&path, &excluding(&["customers.ssn", "audit_*"])).unwrap();
    for sql in [
        "SELECT ssn FROM customers",
        "SELECT * FROM customers",
        "SELECT customers.* FROM customers",
        "SELECT name FROM customers WHERE ssn LIKE '1%'",
        "SELECT name FROM customers ORDER BY ssn",
        "SELECT (SELECT max(ssn) FROM customers)",
        "SELECT * FROM customer_ssn",
        "WITH c AS (SELECT * FROM customers) SELECT name FROM c",
    ] {
        match read(&db, sql).await {
            Err(Error::Refused(message)) => assert!(message.contains("customers.ssn"), "{sql}: {message}"),
            other => panic!("{sql}: {other:?}"),
        }
    }
    // Names are compared as SQLite compares them: in any case.
    match read(&db, "SELECT SSN FROM CUSTOMERS").await {
        Err(Error::Refused(message)) => assert!(message.contains("customers.ssn"), "{message}"),
        other => panic!("upper case: {other:?}"),
    }
    let shouting = Sqlite::open(&path, &excluding(&["Customers.SSN", "main.AUDIT_*"])).unwrap();
    for sql in ["SELECT ssn FROM customers", "SELECT entry FROM audit_log"] {
        assert!(matches!(read(&shouting, sql).await, Err(Error::Refused(_))), "{sql}");
    }
    for sql in ["SELECT * FROM audit_log", "SELECT count(*) FROM audit_log"] {
        match read(&db, sql).await {
            Err(Error::Refused(message)) => assert!(message.contains("audit_log"), "{sql}: {message}"),
            other => panic!("{sql}: {other:?}"),
        }
    }
    // The schema, where the excluded names are written, is not readable by a call.
    for sql in [
        "SELECT sql FROM sqlite_master",
        "SELECT sql FROM sqlite_schema",
        "PRAGMA table_info(customers)",
        "SELECT name FROM pragma_table_info('customers')",
        "PRAGMA table_xinfo('customers')",
    ] {
        refused(read(&db, sql).await, sql);
    }
    // What is not excluded reads as usual.
    let rows = read(&db, "SELECT name, score FROM customers ORDER BY id").await.unwrap();
    assert_eq!(rows.rows[0], vec![json!("Ada"), json!(9.5)]);
    assert_eq!(read(&db, "SELECT count(*) FROM customers").await.unwrap().rows, vec![vec![json!(3)]]);
    // And the catalogue leaves them out.
    let catalog = db.catalog().await.unwrap();
    let names: Vec<&str> = catalog.tables.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["customer_ssn", "customers", "orders"]);
    let customers = &catalog.tables[1];
    let columns: Vec<&str> = customers.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(columns, ["id", "name", "score"]);
    let view = &catalog.tables[0];
    assert_eq!(view.columns.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["name"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn legitimate_reads_work() {
    let (_dir, path) = fixture();
    let db = Sqlite::open(&path, &options()).unwrap();
    let one = |sql: &'static str| {
        let db = &db;
        async move { read(db, sql).await.unwrap_or_else(|e| panic!("{sql}: {e}")) }
    };
    assert_eq!(one("SELECT ';' AS s").await.rows, vec![vec![json!(";")]]);
    // Placeholder-like text inside literals is text, not a parameter.
    assert_eq!(
        one("SELECT ':name', '?', '@x', '$y'").await.rows,
        vec![vec![json!(":name"), json!("?"), json!("@x"), json!("$y")]]
    );
    assert_eq!(
        one("SELECT 'a; DELETE FROM customers' AS s").await.rows[0][0],
        json!("a; DELETE FROM customers")
    );
    assert_eq!(count(&path, "customers"), 3);
    assert_eq!(one("select name from customers where id = 2").await.rows, vec![vec![json!("Bob")]]);
    assert_eq!(
        one("SELECT name FROM customers WHERE name LIKE 'Zo%'").await.rows,
        vec![vec![json!("Zoë 東京")]]
    );
    assert_eq!(one("SELECT 'héllo ✓ 東京' AS u").await.rows, vec![vec![json!("héllo ✓ 東京")]]);
    assert_eq!(
        one("-- leading comment\n/* block */ SELECT /* inline */ count(*) FROM orders -- trailing")
            .await
            .rows,
        vec![vec![json!(4)]]
    );
    let cte = one("WITH big AS (SELECT customer_id, sum(total) AS spent FROM orders GROUP BY customer_id) \
                   SELECT c.name, b.spent FROM big b JOIN customers c ON c.id = b.customer_id ORDER BY b.spent DESC")
        .await;
    assert_eq!(cte.rows[0], vec![json!("Ada"), json!(30)]);
    let recursive = one(
        "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 5) SELECT sum(x) FROM n",
    )
    .await;
    assert_eq!(recursive.rows, vec![vec![json!(15)]]);
    let window = one("SELECT id, row_number() OVER (PARTITION BY customer_id ORDER BY total DESC) AS r, \
                      sum(total) OVER (ORDER BY id) AS running FROM orders ORDER BY id")
    .await;
    assert_eq!(window.rows[1], vec![json!(2), json!(1), json!(30)]);
    let plan = one("EXPLAIN QUERY PLAN SELECT * FROM orders WHERE customer_id = 1").await;
    assert!(
        plan.rows
            .iter()
            .any(|r| r.iter().any(|v| v.as_str().is_some_and(|s| s.contains("orders_by_customer"))))
    );
    one("EXPLAIN SELECT 1").await;
    let functions = one("SELECT upper('a'), length('abc'), round(2.5), json_extract('{\"a\":[1,2]}', '$.a[1]'), \
                         date('2024-01-31', '+1 day'), coalesce(NULL, 'x'), printf('%05d', 42), hex(x'00ff'), \
                         abs(-3), typeof(1.0)")
        .await;
    assert_eq!(
        functions.rows[0],
        vec![
            json!("A"),
            json!(3),
            json!(3.0),
            json!(2),
            json!("2024-02-01"),
            json!("x"),
            json!("00042"),
            json!("00FF"),
            json!(3),
            json!("real")
        ]
    );
    let each = one("SELECT value FROM json_each('[1,2,3]') WHERE value > 1").await;
    assert_eq!(each.rows.len(), 2);
    // Without exclusions, the schema is readable by a call as well.
    one("SELECT name FROM pragma_table_info('customers')").await;
    one("SELECT name FROM sqlite_schema WHERE type = 'table'").await;
    one("PRAGMA table_info(orders)").await;
    one("PRAGMA schema_version").await;
    // Values by storage class: big integers as strings, blobs as base64, NULL.
    let values = one("SELECT 9007199254740993, x'68690a', NULL, 1e308 * 10, 'text'").await;
    assert_eq!(
        values.rows[0],
        vec![json!("9007199254740993"), json!("aGkK"), Value::Null, json!("Infinity"), json!("text")]
    );
    // Columns carry the declared type and its schema.
    let typed = one("SELECT customers.id, name, score, note, total, customers.id + 1 AS next FROM customers JOIN orders ON orders.customer_id = customers.id LIMIT 1").await;
    let types: Vec<&str> = typed.columns.iter().map(|c| c.sql_type.as_str()).collect();
    assert_eq!(types, ["INTEGER", "TEXT", "REAL", "BLOB", "NUMERIC", ""]);
    // A table that is not STRICT holds any value in any column: every
    // schema admits every form, and names the declared type as a hint.
    let any = json!(["string", "number", "integer", "boolean", "null"]);
    assert!(typed.columns.iter().all(|c| c.schema["type"] == any), "{:?}", typed.columns);
    assert!(typed.columns[0].schema["description"].as_str().unwrap().contains("declared INTEGER"));
    assert!(typed.columns[3].schema["description"].as_str().unwrap().contains("declared BLOB"));
    assert_eq!(typed.columns[5].schema, json!({"type": any}));
    assert_eq!(count(&path, "customers"), 3);
}

#[tokio::test(flavor = "multi_thread")]
async fn named_parameters_are_bound_as_typed_data_never_as_sql() {
    let (_dir, path) = fixture();
    let db = Sqlite::open(&path, &options()).unwrap();
    let sql = "SELECT id, name FROM customers WHERE name = :name OR id = :id ORDER BY id";
    let described = db.describe(Statement { sql, placeholders: Placeholders::Named }).await.unwrap();
    let names: Vec<&str> = described.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["name", "id"]);
    // Types as SQLite's own program applies them: TEXT for `name = :name`,
    // INTEGER for the rowid `id = :id`.
    assert_eq!(described.params[0].schema, json!({"type": ["string", "null"]}));
    assert_eq!(described.params[1].sql_type, "INTEGER");
    assert_eq!(described.params[1].schema, json!({"type": ["integer", "null"]}));
    let by_index = "SELECT id FROM orders WHERE customer_id = :c AND total < :t AND status = :s LIMIT :n";
    let by_index = db.describe(Statement { sql: by_index, placeholders: Placeholders::Named }).await.unwrap();
    let types: Vec<&str> = by_index.params.iter().map(|p| p.sql_type.as_str()).collect();
    assert_eq!(types, ["NUMERIC", "NUMERIC", "TEXT", "INTEGER"]);
    // Where the program says nothing, any scalar.
    let untyped =
        db.describe(Statement { sql: "SELECT :x AS x", placeholders: Placeholders::Named }).await.unwrap();
    assert_eq!(untyped.params[0].schema, json!({"type": ["string", "number", "integer", "boolean", "null"]}));
    assert_eq!(described.columns.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["id", "name"]);
    assert_eq!(described.writes, Some(false));

    let rows = read_named(&db, sql, json!({"name": "Bob", "id": 1})).await.unwrap();
    assert_eq!(rows.rows, vec![vec![json!(1), json!("Ada")], vec![json!(2), json!("Bob")]]);
    // An injection attempt through a value is a name no one has.
    for attempt in
        ["x' OR '1'='1", "Bob'; DELETE FROM customers; --", "1 OR 1=1", "'); DROP TABLE orders; --"]
    {
        let rows = read_named(&db, sql, json!({"name": attempt, "id": null})).await.unwrap();
        assert!(rows.rows.is_empty(), "{attempt}");
    }
    assert_eq!((count(&path, "customers"), count(&path, "orders")), (3, 4));
    // Booleans bind as 0/1, reals as reals, a repeated name once.
    let typed =
        read_named(&db, "SELECT :flag, :ratio * 2, :flag + :flag", json!({"flag": true, "ratio": 1.25}))
            .await;
    assert_eq!(typed.unwrap().rows, vec![vec![json!(1), json!(2.5), json!(2)]]);
    // A missing value, a value of no scalar type, and a parameter in ad-hoc SQL are refused.
    let missing = read_named(&db, sql, json!({"name": "Bob"})).await;
    assert!(matches!(missing, Err(Error::Param { ref name, .. }) if name == "id"), "{missing:?}");
    let object = read_named(&db, sql, json!({"name": {"a": 1}, "id": 1})).await;
    assert!(matches!(object, Err(Error::Param { ref name, .. }) if name == "name"), "{object:?}");
    assert!(matches!(read(&db, "SELECT :x").await, Err(Error::Param { .. })));
    assert!(matches!(read(&db, "SELECT ?").await, Err(Error::Param { .. })));
    assert!(matches!(read_named(&db, "SELECT ?1", json!({})).await, Err(Error::Param { .. })));
    assert!(matches!(read_named(&db, "SELECT @x", json!({"x": 1})).await, Err(Error::Param { .. })));
    // Session settings do not exist in SQLite.
    let params = Map::new();
    let settings = [("app.user".to_owned(), "1".to_owned())];
    let with_settings = Call { settings: &settings, ..call("SELECT 1", &params, Placeholders::None) };
    assert!(matches!(db.query(with_settings).await, Err(Error::Refused(_))));
    // A write statement does not describe on a read database.
    let update = Statement { sql: "UPDATE customers SET name = :name", placeholders: Placeholders::Named };
    assert!(matches!(db.describe(update).await, Err(Error::Refused(_))));
}

#[tokio::test(flavor = "multi_thread")]
async fn writes_commit_within_their_limits_and_roll_back_otherwise() {
    let (dir, path) = fixture();
    let db =
        Sqlite::open(&path, &Options { access: Access::Write, ..excluding(&["customers.ssn", "audit_*"]) })
            .unwrap();
    let statuses = || {
        let c = rusqlite::Connection::open(&path).unwrap();
        let mut s = c.prepare("SELECT status FROM orders ORDER BY id").unwrap();
        s.query_map([], |r| r.get::<_, String>(0)).unwrap().collect::<Result<Vec<_>, _>>().unwrap()
    };
    let cancel_all =
        "UPDATE orders SET status = 'cancelled' WHERE customer_id = :customer AND status = 'open'";
    let described =
        db.describe(Statement { sql: cancel_all, placeholders: Placeholders::Named }).await.unwrap();
    assert_eq!(described.writes, Some(true));
    let types: Vec<&str> = described.params.iter().map(|p| p.sql_type.as_str()).collect();
    assert_eq!(types, ["NUMERIC"]);
    let insert = "INSERT INTO orders (customer_id, total, status) VALUES (:c, :t, :s)";
    let described = db.describe(Statement { sql: insert, placeholders: Placeholders::Named }).await.unwrap();
    let types: Vec<&str> = described.params.iter().map(|p| p.sql_type.as_str()).collect();
    assert_eq!(types, ["INTEGER", "NUMERIC", "TEXT"]);

    // Over the limit: rolled back, and the answer says how many.
    let over =
        write(&db, cancel_all, json!({"customer": 1}), Commit::If { max: Some(1), expect: None }).await;
    assert_eq!(over, Err(Error::TooManyRows { affected: 2, max: 1 }));
    assert_eq!(statuses(), ["open", "open", "open", "paid"]);
    // Not the count the user confirmed: rolled back.
    let changed =
        write(&db, cancel_all, json!({"customer": 1}), Commit::If { max: None, expect: Some(3) }).await;
    assert_eq!(changed, Err(Error::CountChanged { expected: 3, affected: 2 }));
    assert_eq!(statuses(), ["open", "open", "open", "paid"]);
    // Counting only.
    let counted = write(&db, cancel_all, json!({"customer": 1}), Commit::Never).await.unwrap();
    assert_eq!((counted.affected, counted.committed), (2, false));
    assert_eq!(statuses(), ["open", "open", "open", "paid"]);
    // Within the limit and as confirmed: committed.
    let done = write(&db, cancel_all, json!({"customer": 1}), Commit::If { max: Some(2), expect: Some(2) })
        .await
        .unwrap();
    assert_eq!((done.affected, done.committed), (2, true));
    assert_eq!(statuses(), ["cancelled", "cancelled", "open", "paid"]);
    // RETURNING rows are stepped through; a SELECT affects nothing.
    let insert = "INSERT INTO orders (customer_id, total) VALUES (:c, :t) RETURNING id";
    let inserted =
        write(&db, insert, json!({"c": 2, "t": 3}), Commit::If { max: Some(1), expect: None }).await.unwrap();
    assert_eq!((inserted.affected, inserted.committed), (1, true));
    assert_eq!(count(&path, "orders"), 5);
    let select =
        write(&db, "SELECT count(*) FROM orders", json!({}), Commit::If { max: Some(0), expect: None }).await;
    assert_eq!(select.unwrap().affected, 0);

    // The write connection still refuses what is not a write of exposed data.
    let before = state(&path);
    let target = dir.path().join("copy.db");
    for sql in [
        format!("VACUUM INTO '{}'", target.display()),
        "VACUUM".to_owned(),
        format!("ATTACH '{}' AS copy", target.display()),
        "PRAGMA writable_schema = 1".to_owned(),
        "PRAGMA user_version = 3".to_owned(),
        "SELECT load_extension('/tmp/evil.so')".to_owned(),
        "DROP TABLE orders".to_owned(),
        "CREATE TABLE t (x)".to_owned(),
        "ALTER TABLE orders ADD COLUMN x".to_owned(),
        "COMMIT".to_owned(),
        "UPDATE customers SET ssn = NULL".to_owned(),
        "DELETE FROM audit_log".to_owned(),
        "UPDATE customers SET name = 'x' RETURNING ssn".to_owned(),
        "DELETE FROM orders; DELETE FROM customers".to_owned(),
    ] {
        let result = write(&db, &sql, json!({}), Commit::If { max: None, expect: None }).await;
        assert!(
            matches!(result, Err(Error::Refused(_) | Error::MultipleStatements | Error::Execute(_))),
            "{sql}: {result:?}"
        );
    }
    assert_eq!(state(&path), before);
    assert_eq!(count(&path, "audit_log"), 1);
    assert_eq!(files(dir.path()), ["shop.db"]);
    // And reads on a write database still go through a read-only connection.
    refused(read(&db, "DELETE FROM orders").await, "DELETE");
    assert_eq!(count(&path, "orders"), 5);
}

/// The review's finding: `changes()` counted only the statement's own
/// table, so a DELETE whose ON DELETE CASCADE (or trigger) removed ten
/// more rows passed `max_affected_rows = 1`. The count is every row the
/// statement changed, cascades and triggers included, in the dry run and
/// in the `expect` check alike.
#[tokio::test(flavor = "multi_thread")]
async fn row_limits_count_rows_changed_by_cascades_and_triggers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tree.db");
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch(
            "CREATE TABLE parents (id INTEGER PRIMARY KEY, name TEXT);
             CREATE TABLE children (id INTEGER PRIMARY KEY,
                                    parent_id INTEGER NOT NULL REFERENCES parents(id) ON DELETE CASCADE);
             CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT);
             CREATE TABLE tags (id INTEGER PRIMARY KEY, item_id INTEGER NOT NULL);
             CREATE TRIGGER items_untag AFTER DELETE ON items BEGIN DELETE FROM tags WHERE item_id = old.id; END;
             INSERT INTO parents VALUES (1, 'a'), (2, 'b');
             INSERT INTO items VALUES (1, 'x'), (2, 'y');
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10)
               INSERT INTO children (parent_id) SELECT 1 FROM n;
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10)
               INSERT INTO tags (item_id) SELECT 1 FROM n;",
        )
        .unwrap();
    let db = Sqlite::open(&path, &Options { access: Access::Write, ..options() }).unwrap();
    let one = Commit::If { max: Some(1), expect: None };
    let cases = [
        ("DELETE FROM parents WHERE id = :id", "parents", "children"),
        ("DELETE FROM items WHERE id = :id", "items", "tags"),
    ];
    for (sql, own, table) in cases {
        // Over the limit once the cascade or trigger is counted: rolled back.
        let over = write(&db, sql, json!({"id": 1}), one).await;
        assert_eq!(over, Err(Error::TooManyRows { affected: 11, max: 1 }), "{sql}");
        assert_eq!((count(&path, own), count(&path, table)), (2, 10), "{sql}");
        // The dry run counts the same rows; a confirmation of 1 does not match.
        let counted = write(&db, sql, json!({"id": 1}), Commit::Never).await.unwrap();
        assert_eq!((counted.affected, counted.committed), (11, false), "{sql}");
        let confirmed_one =
            write(&db, sql, json!({"id": 1}), Commit::If { max: None, expect: Some(1) }).await;
        assert_eq!(confirmed_one, Err(Error::CountChanged { expected: 1, affected: 11 }), "{sql}");
        assert_eq!(count(&path, table), 10, "{sql}");
        // A row with nothing hanging off it is one row, and commits.
        let alone = write(&db, sql, json!({"id": 2}), one).await.unwrap();
        assert_eq!((alone.affected, alone.committed), (1, true), "{sql}");
        assert_eq!(count(&path, table), 10, "{sql}");
    }
    assert_eq!((count(&path, "parents"), count(&path, "items")), (1, 1));
    // A write that changes nothing counts nothing, after writes that did.
    let none = write(&db, "DELETE FROM parents WHERE id = :id", json!({"id": 99}), one).await.unwrap();
    assert_eq!((none.affected, none.committed), (0, true));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_catalogue_and_fingerprint_follow_schema_changes() {
    let (dir, path) = fixture();
    let db = Sqlite::open(&path, &options()).unwrap();
    let catalog = db.catalog().await.unwrap();
    let names: Vec<&str> = catalog.tables.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["audit_log", "customer_ssn", "customers", "orders"]);
    let orders = catalog.tables.iter().find(|t| t.name == "orders").unwrap();
    assert_eq!(orders.kind, TableKind::Table);
    assert_eq!(orders.primary_key, ["id"]);
    assert_eq!(orders.foreign_keys[0].references, "customers");
    assert_eq!(orders.foreign_keys[0].columns, ["customer_id"]);
    assert_eq!(orders.foreign_keys[0].referenced_columns, ["id"]);
    assert_eq!(orders.indexes[0].name, "orders_by_customer");
    assert_eq!(orders.indexes[0].columns, ["customer_id"]);
    let status = orders.columns.iter().find(|c| c.name == "status").unwrap();
    assert_eq!(
        (status.sql_type.as_str(), status.nullable, status.default.as_deref()),
        ("TEXT", true, Some("'open'"))
    );
    assert!(!orders.columns.iter().find(|c| c.name == "customer_id").unwrap().nullable);
    assert_eq!(orders.estimated_rows, None);
    assert_eq!(catalog.tables[1].kind, TableKind::View);

    let first = db.fingerprint().await.unwrap();
    assert_eq!(db.fingerprint().await.unwrap(), first);
    {
        let other = rusqlite::Connection::open(&path).unwrap();
        other.execute_batch("CREATE TABLE products (sku TEXT PRIMARY KEY, price REAL); ANALYZE;").unwrap();
    }
    let second = db.fingerprint().await.unwrap();
    assert_ne!(second, first);
    let catalog = db.catalog().await.unwrap();
    assert!(catalog.tables.iter().any(|t| t.name == "products"));
    assert!(!catalog.tables.iter().any(|t| t.name.starts_with("sqlite_")));
    assert_eq!(catalog.tables.iter().find(|t| t.name == "orders").unwrap().estimated_rows, Some(4));

    // A file replaced under the same name is another database.
    let replacement = dir.path().join("new.db");
    rusqlite::Connection::open(&replacement).unwrap().execute_batch("CREATE TABLE fresh (x)").unwrap();
    std::fs::rename(&replacement, &path).unwrap();
    let third = db.fingerprint().await.unwrap();
    assert_ne!(third, second);
    let names: Vec<String> = db.catalog().await.unwrap().tables.into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["fresh"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wal_database_reads_while_another_process_writes() {
    let (_dir, path) = fixture();
    let writer = rusqlite::Connection::open(&path).unwrap();
    writer.pragma_update(None, "journal_mode", "WAL").unwrap();
    let db = Sqlite::open(&path, &options()).unwrap();
    writer.execute_batch("BEGIN IMMEDIATE; INSERT INTO customers (name) VALUES ('Dan');").unwrap();
    let during = read(&db, "SELECT count(*) FROM customers").await.unwrap();
    assert_eq!(during.rows, vec![vec![json!(3)]]);
    writer.execute_batch("COMMIT").unwrap();
    let after = read(&db, "SELECT count(*) FROM customers").await.unwrap();
    assert_eq!(after.rows, vec![vec![json!(4)]]);
    // The reader holds no transaction open between calls: the writer can checkpoint.
    let (busy, _, _): (i64, i64, i64) = writer
        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap();
    assert_eq!(busy, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn opening_never_creates_a_file_and_refuses_uri_names() {
    let (dir, path) = fixture();
    let missing = dir.path().join("missing.db");
    assert!(matches!(Sqlite::open(&missing, &options()), Err(Error::Connect(_))));
    let uri = format!("file:{}?mode=rwc", dir.path().join("made.db").display());
    assert!(matches!(Sqlite::open(Path::new(&uri), &options()), Err(Error::Connect(_))));
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "SQLite format 3 but not really".repeat(100)).unwrap();
    assert!(matches!(Sqlite::open(&text, &options()), Err(Error::Connect(_))));
    assert_eq!(files(dir.path()), ["notes.txt", "shop.db"]);
    // The header check the zero-config scan uses.
    assert!(is_sqlite_file(&path));
    assert!(!is_sqlite_file(&text));
    assert!(!is_sqlite_file(&missing));
    assert!(!is_sqlite_file(dir.path()));
    let mut fake = b"SQLite format 3\0".to_vec();
    fake.resize(100, 0);
    std::fs::write(dir.path().join("short.db"), &fake).unwrap();
    assert!(!is_sqlite_file(&dir.path().join("short.db")));
    assert_eq!(files(dir.path()), ["notes.txt", "shop.db", "short.db"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn virtual_tables_and_their_storage_cannot_go_around_an_exclusion() {
    let (_dir, path) = fixture();
    let db = Sqlite::open(&path, &excluding(&["notes.secret"])).unwrap();
    // Created after the database was opened: sealed at the next call.
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch(
            "CREATE VIRTUAL TABLE notes USING fts5(title, secret);
             INSERT INTO notes VALUES ('hello', 'the launch code is 1234');
             CREATE VIRTUAL TABLE docs USING fts5(body);
             INSERT INTO docs VALUES ('public text');",
        )
        .unwrap();
    for sql in [
        "SELECT secret FROM notes",
        "SELECT title FROM notes WHERE notes MATCH 'secret:launch'",
        "SELECT highlight(notes, 1, '[', ']') FROM notes WHERE notes MATCH 'hello'",
        "SELECT * FROM notes_content",
        "SELECT * FROM notes_data",
        "SELECT block FROM notes_data",
    ] {
        match read(&db, sql).await {
            Err(Error::Refused(message)) => assert!(message.contains("notes"), "{sql}: {message}"),
            other => panic!("{sql}: {other:?}"),
        }
    }
    // While anything is excluded, a virtual table without an excluded
    // column by name is sealed too (its module may index any data under
    // any name: see `an_external_content_index_cannot_go_around_an_exclusion`);
    // the catalogue lists neither, nor any storage.
    match read(&db, "SELECT body FROM docs WHERE docs MATCH 'public'").await {
        Err(Error::Refused(message)) => assert!(message.contains("docs"), "{message}"),
        other => panic!("docs: {other:?}"),
    }
    let names: Vec<String> = db.catalog().await.unwrap().tables.into_iter().map(|t| t.name).collect();
    assert!(names.contains(&"customers".to_owned()), "{names:?}");
    assert!(!names.iter().any(|n| n.starts_with("notes") || n.starts_with("docs")), "{names:?}");
    // With nothing excluded, it reads as usual and the catalogue lists it.
    let open = Sqlite::open(&path, &options()).unwrap();
    let found = read(&open, "SELECT body FROM docs WHERE docs MATCH 'public'").await.unwrap();
    assert_eq!(found.rows, vec![vec![json!("public text")]]);
    let names: Vec<String> = open.catalog().await.unwrap().tables.into_iter().map(|t| t.name).collect();
    assert!(names.contains(&"docs".to_owned()), "{names:?}");
}

/// The review's finding: an external-content FTS index over `customers`
/// copies `ssn` into its own storage, and a prefix search on it answers
/// which customer's number starts with what, without reading
/// `customers.ssn`. A contentless index filled from `ssn` under another
/// column name does the same. Every virtual table is sealed while
/// anything is excluded, whatever its columns are called.
#[tokio::test(flavor = "multi_thread")]
async fn an_external_content_index_cannot_go_around_an_exclusion() {
    let (_dir, path) = fixture();
    let setup = rusqlite::Connection::open(&path).unwrap();
    setup
        .execute_batch(
            "CREATE VIRTUAL TABLE cust_fts USING fts5(name, ssn, content='customers', content_rowid='id');
             INSERT INTO cust_fts(cust_fts) VALUES ('rebuild');
             CREATE VIRTUAL TABLE lookup USING fts5(label, content='');
             INSERT INTO lookup(rowid, label) SELECT id, ssn FROM customers;",
        )
        .unwrap();
    // The attack is real: an unguarded connection finds Ada by her number's prefix.
    let leaked: i64 = setup
        .query_row("SELECT rowid FROM cust_fts WHERE cust_fts MATCH 'ssn:1*'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(leaked, 1);
    drop(setup);
    let db = Sqlite::open(&path, &excluding(&["customers.ssn"])).unwrap();
    for sql in [
        "SELECT rowid FROM cust_fts WHERE cust_fts MATCH 'ssn:1*'",
        "SELECT rowid FROM cust_fts WHERE cust_fts MATCH '1*'",
        "SELECT count(*) FROM cust_fts('ssn:2*')",
        "SELECT name FROM cust_fts",
        "SELECT rowid FROM lookup WHERE lookup MATCH '111*'",
        "SELECT * FROM cust_fts_data",
        "SELECT * FROM cust_fts_idx",
        "SELECT * FROM lookup_docsize",
    ] {
        match read(&db, sql).await {
            Err(Error::Refused(message)) => {
                assert!(message.contains("cust_fts") || message.contains("lookup"), "{sql}: {message}")
            }
            other => panic!("{sql}: {other:?}"),
        }
    }
    let names: Vec<String> = db.catalog().await.unwrap().tables.into_iter().map(|t| t.name).collect();
    assert!(!names.iter().any(|n| n.starts_with("cust_fts") || n.starts_with("lookup")), "{names:?}");
    // What is not excluded still reads.
    let rows = read(&db, "SELECT name FROM customers WHERE id = 1").await.unwrap().rows;
    assert_eq!(rows, vec![vec![json!("Ada")]]);
}

/// The review's stack overflow: SQLite's LIKE/GLOB matcher recurses once
/// per wildcard, and 20,000 of them overflowed a 2 MiB stack, aborting
/// the process. Patterns are limited (1,000 bytes) wherever they come
/// from, calls run on threads with a stack sized for SQLite's limits, and
/// expressions nested to the depth limit answer. Each attempt answers (an
/// error or a result) and the same database serves the next call.
#[tokio::test(flavor = "multi_thread")]
async fn deep_patterns_and_expressions_fail_alone_and_the_database_serves_on() {
    let (_dir, path) = fixture();
    let before = state(&path);
    let db = Sqlite::open(&path, &options()).unwrap();
    let serves = || async { read(&db, "SELECT count(*) FROM customers").await.unwrap().rows };
    let nested = |open: &str, close: &str, depth: usize| {
        format!("SELECT {}1{}", open.repeat(depth), close.repeat(depth))
    };
    let too_complex = [
        "SELECT printf('%.*c', 20000, 'a') GLOB ('*' || replace(printf('%.*c', 20000, 'x'), 'x', 'a*') || 'b')"
            .to_owned(),
        "SELECT printf('%.*c', 20000, 'a') LIKE ('%' || replace(printf('%.*c', 20000, 'x'), 'x', 'a%') || 'b')"
            .to_owned(),
    ];
    for sql in &too_complex {
        match read(&db, sql).await {
            Err(Error::Execute(message)) => assert!(message.contains("too complex"), "{message}"),
            other => panic!("{sql}: {other:?}"),
        }
        assert_eq!(serves().await, vec![vec![json!(3)]]);
    }
    // Through a typed parameter: the limit holds on bound values too.
    let pattern = format!("%{}b", "a%".repeat(20_000));
    let bound =
        read_named(&db, "SELECT name FROM customers WHERE name LIKE :q", json!({ "q": pattern })).await;
    assert!(matches!(&bound, Err(Error::Execute(m)) if m.contains("too complex")), "{bound:?}");
    assert_eq!(serves().await, vec![vec![json!(3)]]);
    // Just within the limit (499 wildcards), the matcher's recursion runs and answers.
    let within = format!(
        "SELECT printf('%.*c', 2000, 'a') LIKE '{}b', printf('%.*c', 2000, 'a') GLOB '{}b'",
        "%a".repeat(499),
        "*a".repeat(499)
    );
    assert_eq!(read(&db, &within).await.unwrap().rows, vec![vec![json!(0), json!(0)]]);
    // An expression as deep as the depth limit allows (a left-deep sum
    // does not grow the parser's stack) answers; one level more is an error.
    let sum = |terms: usize| format!("SELECT 1{}", "+1".repeat(terms - 1));
    assert_eq!(read(&db, &sum(999)).await.unwrap().rows, vec![vec![json!(999)]]);
    let deeper = read(&db, &sum(1001)).await;
    assert!(matches!(&deeper, Err(Error::Prepare(m)) if m.contains("too large")), "{deeper:?}");
    // Nesting answers until the parser's own limit, then is an error.
    assert_eq!(read(&db, &nested("abs(", ")", 500)).await.unwrap().rows, vec![vec![json!(1)]]);
    let subqueries = read(&db, &nested("(SELECT ", ")", 300)).await;
    assert!(
        matches!(&subqueries, Ok(r) if r.rows == vec![vec![json!(1)]]) || subqueries.is_err(),
        "{subqueries:?}"
    );
    for sql in [nested("abs(", ")", 5000), nested("(SELECT ", ")", 5000), nested("-(", ")", 20_000)] {
        assert!(read(&db, &sql).await.is_err(), "{}…", &sql[..40]);
        assert_eq!(serves().await, vec![vec![json!(3)]]);
    }
    assert_eq!(state(&path), before);
}

#[tokio::test(flavor = "multi_thread")]
async fn index_samples_and_generated_columns_do_not_leak_an_excluded_column() {
    let (_dir, path) = fixture();
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch(
            "CREATE INDEX customers_by_ssn ON customers(ssn);
             ALTER TABLE customers ADD COLUMN tail TEXT GENERATED ALWAYS AS (substr(ssn, -4)) VIRTUAL;
             ANALYZE;",
        )
        .unwrap();
    let db = Sqlite::open(&path, &excluding(&["customers.ssn"])).unwrap();
    for sql in ["SELECT sample FROM sqlite_stat4", "SELECT * FROM sqlite_stat4", "SELECT tail FROM customers"]
    {
        match read(&db, sql).await {
            Err(Error::Refused(message)) => {
                assert!(message.contains("sqlite_stat4") || message.contains("tail"), "{message}")
            }
            other => panic!("{sql}: {other:?}"),
        }
    }
    // The row counts ANALYZE keeps hold no values: readable; the catalogue
    // leaves the generated column out with the excluded one.
    read(&db, "SELECT tbl, stat FROM sqlite_stat1").await.unwrap();
    let catalog = db.catalog().await.unwrap();
    let customers = catalog.tables.iter().find(|t| t.name == "customers").unwrap();
    let columns: Vec<&str> = customers.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(columns, ["id", "name", "score"]);
    assert!(!customers.indexes.iter().any(|i| i.name == "customers_by_ssn"));
    // Without exclusions, both read as usual.
    let open = Sqlite::open(&path, &options()).unwrap();
    assert_eq!(
        read(&open, "SELECT tail FROM customers WHERE id = 1").await.unwrap().rows,
        vec![vec![json!("1111")]]
    );
    read(&open, "SELECT sample FROM sqlite_stat4").await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn an_excluded_key_column_is_not_readable_as_rowid() {
    let (_dir, path) = fixture();
    let db = Sqlite::open(&path, &excluding(&["orders.id"])).unwrap();
    for sql in [
        "SELECT rowid FROM orders",
        "SELECT _rowid_ FROM orders",
        "SELECT oid FROM orders",
        "SELECT id FROM orders",
    ] {
        assert!(matches!(read(&db, sql).await, Err(Error::Refused(_))), "{sql}");
    }
    read(&db, "SELECT total FROM orders").await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn max_bytes_counts_the_column_names_of_every_row() {
    // Rows are sent as objects: a long column name repeated in each of
    // them counts against max_bytes as much as the values do.
    let (_dir, path) = fixture();
    let db = Sqlite::open(&path, &options()).unwrap();
    let params = Map::new();
    let name = "a_very_long_column_name_repeated_in_every_single_row_object";
    let sql = format!(
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000) SELECT 1 AS {name} FROM c"
    );
    let mut request = call(&sql, &params, Placeholders::None);
    request.max_rows = 5000;
    request.max_bytes = 10_000;
    let rows = db.query(request).await.unwrap();
    assert!(rows.truncated);
    let objects: Vec<Value> = rows.rows.iter().map(|row| json!({ name: row[0] })).collect();
    let sent = serde_json::to_vec(&objects).unwrap().len() as u64;
    assert!(sent <= 10_000, "{} rows make {sent} bytes of objects", rows.rows.len());
    assert_eq!(sent, rows.bytes);
    assert!(rows.rows.len() > 100, "{}", rows.rows.len());
}

/// Statements are prepared once per connection and reused: a reused
/// statement is still one statement alone, still only reads, and when the
/// schema changes under it (another process redefines a view) SQLite
/// prepares it again under the authorizer, which refuses what the new
/// definition does.
#[tokio::test(flavor = "multi_thread")]
async fn reused_statements_are_authorized_again_when_the_schema_changes() {
    let (_dir, path) = fixture();
    let one_connection = Options { pool_size: 1, ..options() };
    let db = Sqlite::open(&path, &one_connection).unwrap();
    let before = state(&path);
    for _ in 0..3 {
        let rows = read(&db, "SELECT name FROM customer_ssn ORDER BY name").await.unwrap();
        assert_eq!(rows.rows[0][0], json!("Ada"));
        for sql in
            ["SELECT 1; DELETE FROM orders", "DELETE FROM orders", "SELECT sqlite_compileoption_get(0)"]
        {
            refused(read(&db, sql).await, sql);
        }
    }
    assert_eq!(state(&path), before);
    {
        let other = rusqlite::Connection::open(&path).unwrap();
        other
            .execute_batch(
                "DROP VIEW customer_ssn;
                 CREATE VIEW customer_ssn AS SELECT sqlite_compileoption_get(0) AS name, ssn FROM customers;",
            )
            .unwrap();
    }
    let sql = "SELECT name FROM customer_ssn ORDER BY name";
    let refusal = refused(read(&db, sql).await, sql);
    assert!(refusal.to_string().contains("sqlite_compileoption_get"), "{refusal}");
}

/// A reused statement whose table gains or loses columns answers with the
/// columns it has now, each row as wide as they are.
#[tokio::test(flavor = "multi_thread")]
async fn a_reused_statement_follows_its_columns_through_schema_changes() {
    let (_dir, path) = fixture();
    let db = Sqlite::open(&path, &Options { pool_size: 1, ..options() }).unwrap();
    let sql = "SELECT * FROM audit_log";
    let names = |rows: &Rows| rows.columns.iter().map(|c| c.name.clone()).collect::<Vec<_>>();
    let first = read(&db, sql).await.unwrap();
    assert_eq!(names(&first), ["id", "entry"]);
    assert!(std::sync::Arc::ptr_eq(&first.columns, &read(&db, sql).await.unwrap().columns));
    let alter =
        |statement: &str| rusqlite::Connection::open(&path).unwrap().execute_batch(statement).unwrap();
    alter("ALTER TABLE audit_log ADD COLUMN actor TEXT DEFAULT 'system'");
    let wider = read(&db, sql).await.unwrap();
    assert_eq!(names(&wider), ["id", "entry", "actor"]);
    assert_eq!(wider.rows, [vec![json!(1), json!("created"), json!("system")]]);
    alter("ALTER TABLE audit_log DROP COLUMN entry");
    let narrower = read(&db, sql).await.unwrap();
    assert_eq!(names(&narrower), ["id", "actor"]);
    assert_eq!(narrower.rows, [vec![json!(1), json!("system")]]);
    alter("DELETE FROM audit_log; ALTER TABLE audit_log RENAME COLUMN actor TO who");
    let empty = read(&db, sql).await.unwrap();
    assert_eq!((names(&empty), empty.rows.len()), (vec!["id".to_owned(), "who".to_owned()], 0));
}
