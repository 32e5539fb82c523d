//! The PostgreSQL engine against a real server (switchboard-testkit's
//! `PostgresServer`), as an attacker would use it: every bypass class of
//! the databases reference §5 that applies to PostgreSQL, each checked
//! afterwards in the database's real state as the superuser, not only by
//! the answer.

#![cfg(feature = "postgres")]
#![recursion_limit = "256"]

use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};
use switchboard_sql::postgres::Postgres;
use switchboard_sql::{
    Access, Call, Commit, Database, Error, Exclusions, Options, Placeholders, Rows, Statement, TableKind,
    WriteCall,
};
use switchboard_testkit::postgres::PostgresServer;
use tokio_util::sync::CancellationToken;

const READER_PASSWORD: &str = "reader 'pw' ✓";

/// A server with database `shop`: table `t` (3 rows), sequence `s`, enum
/// `mood`, a SECURITY DEFINER function that writes, and role `reader`
/// with SELECT on everything in `public`.
fn shop() -> PostgresServer {
    let pg = PostgresServer::start();
    pg.create_role("reader", READER_PASSWORD, "LOGIN");
    pg.create_database("shop");
    pg.execute_in(
        "shop",
        "CREATE TABLE t (id int PRIMARY KEY, name text NOT NULL, secret text DEFAULT 'hush');
         INSERT INTO t (id, name) VALUES (1, 'one'), (2, 'two'), (3, 'three');
         CREATE SEQUENCE s;
         CREATE TYPE mood AS ENUM ('sad', 'happy');
         CREATE FUNCTION evil() RETURNS int LANGUAGE sql SECURITY DEFINER AS 'INSERT INTO t VALUES (99, ''evil'') RETURNING id';
         GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader;
         GRANT USAGE ON SEQUENCE s TO reader;",
    );
    pg
}

fn options() -> Options {
    Options { pool_size: 1, statement_timeout: Duration::from_secs(5), ..Options::default() }
}

async fn open(pg: &PostgresServer, options: &Options) -> Postgres {
    Postgres::connect(&pg.url("reader", READER_PASSWORD, "shop"), None, options)
        .await
        .expect("opens as reader")
}

fn call<'a>(sql: &'a str, params: &'a Map<String, Value>, placeholders: Placeholders) -> Call<'a> {
    Call {
        statement: Statement { sql, placeholders },
        params,
        skip: 0,
        max_rows: 1000,
        max_bytes: 1 << 20,
        settings: &[],
        cancel: CancellationToken::new(),
    }
}

/// The model's SQL, as written.
async fn adhoc(db: &Postgres, sql: &str) -> Result<Rows, Error> {
    let params = Map::new();
    db.query(call(sql, &params, Placeholders::None)).await
}

/// The rows of `t`, as the superuser sees them.
fn rows_of_t(pg: &PostgresServer) -> String {
    pg.query_in("shop", "SELECT string_agg(id || ':' || name, ',' ORDER BY id) FROM t")
}

const T_UNTOUCHED: &str = "1:one,2:two,3:three";

/// Polls `sql` (as the superuser, in `shop`) until it prints `want`.
fn eventually(pg: &PostgresServer, sql: &str, want: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let got = pg.query_in("shop", sql);
        if got == want {
            return;
        }
        assert!(Instant::now() < deadline, "{sql} gave {got:?}, expected {want:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn stacked_statements_are_refused_by_the_protocol_and_nothing_is_written() {
    let pg = shop();
    let db = open(&pg, &options()).await;
    for sql in [
        "COMMIT; DROP TABLE t",
        "ROLLBACK; DELETE FROM t",
        "END; DELETE FROM t",
        "SET TRANSACTION READ WRITE; INSERT INTO t VALUES (10, 'x')",
        "/* harmless */ COMMIT; DROP TABLE t",
        "-- comment\nCOMMIT; DELETE FROM t",
        "SELECT E'\\''; DELETE FROM t",
        "SELECT 1; /* ; */ DELETE FROM t --",
    ] {
        let result = adhoc(&db, sql).await;
        assert!(
            matches!(&result, Err(Error::Prepare(m)) if m.contains("multiple commands")),
            "{sql}: {result:?}"
        );
    }
    // A look-alike semicolon is no separator: a syntax error, nothing run.
    let lookalike = adhoc(&db, "SELECT 1\u{ff1b} DELETE FROM t").await;
    assert!(matches!(&lookalike, Err(Error::Prepare(_))), "{lookalike:?}");
    // A lone COMMIT ends only our empty read-only transaction.
    assert!(adhoc(&db, "COMMIT").await.is_ok());
    assert!(matches!(adhoc(&db, "DROP TABLE t").await, Err(Error::Refused(_))));
    assert!(matches!(adhoc(&db, "DELETE FROM t").await, Err(Error::Refused(_))));
    assert_eq!(rows_of_t(&pg), T_UNTOUCHED);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_access_mode_cannot_be_changed_for_a_later_call() {
    let pg = shop();
    let db = open(&pg, &options()).await;
    for change in [
        "SET TRANSACTION READ WRITE",
        "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE",
        "SELECT set_config('default_transaction_read_only', 'off', false)",
        "SET default_transaction_read_only = off",
        "RESET ALL",
    ] {
        let _ = adhoc(&db, change).await;
        let write = adhoc(&db, "INSERT INTO t VALUES (10, 'x')").await;
        assert!(matches!(write, Err(Error::Refused(_))), "after {change}: {write:?}");
        let mode = adhoc(&db, "SELECT current_setting('transaction_read_only')").await.unwrap();
        assert_eq!(mode.rows, vec![vec![json!("on")]], "after {change}");
    }
    // Even in one statement: the transaction took a snapshot already.
    let one = adhoc(&db, "SELECT set_config('transaction_read_only', 'off', true)").await;
    assert!(one.is_err(), "{one:?}");
    assert_eq!(rows_of_t(&pg), T_UNTOUCHED);
}

#[tokio::test(flavor = "multi_thread")]
async fn writes_hidden_in_reads_are_refused_by_the_engine() {
    let pg = shop();
    let db = open(&pg, &options()).await;
    for sql in [
        "WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d",
        "WITH i AS (INSERT INTO t VALUES (11, 'x') RETURNING id) SELECT id FROM i",
        "SELECT nextval('s')",
        "SELECT evil()",
        "DO $$ BEGIN DELETE FROM t; END $$",
        "CREATE TABLE u (x int)",
        "SELECT * INTO u FROM t",
        "TRUNCATE t",
        "COPY t FROM STDIN",
        "LOCK TABLE t IN ACCESS EXCLUSIVE MODE",
    ] {
        let result = adhoc(&db, sql).await;
        assert!(result.is_err(), "{sql}: {result:?}");
    }
    assert!(matches!(adhoc(&db, "SELECT evil()").await, Err(Error::Refused(m)) if m.contains("read-only")));
    assert_eq!(rows_of_t(&pg), T_UNTOUCHED);
    assert_eq!(pg.query_in("shop", "SELECT is_called FROM s"), "f", "nextval never ran");
    assert_eq!(pg.query_in("shop", "SELECT count(*) FROM pg_class WHERE relname = 'u'"), "0");
}

#[tokio::test(flavor = "multi_thread")]
async fn no_session_state_survives_an_ad_hoc_call() {
    let pg = shop();
    let db = open(&pg, &options()).await;
    adhoc(&db, "PREPARE p AS SELECT 1").await.expect("PREPARE is allowed in a read-only transaction");
    let execute = adhoc(&db, "EXECUTE p").await;
    assert!(
        matches!(&execute, Err(Error::Execute(m) | Error::Prepare(m)) if m.contains("does not exist")),
        "{execute:?}"
    );

    adhoc(&db, "SELECT pg_advisory_lock(4242)").await.expect("a session advisory lock");
    eventually(&pg, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242", "0");

    adhoc(&db, "LISTEN channel").await.expect("LISTEN");
    eventually(&pg, "SELECT count(*) FROM pg_stat_activity WHERE query = 'LISTEN channel'", "0");
    let again = adhoc(&db, "SELECT count(*) FROM pg_listening_channels()").await.unwrap();
    assert_eq!(again.rows, vec![vec![json!(0)]]);
}

#[tokio::test(flavor = "multi_thread")]
async fn legitimate_reads_answer() {
    let pg = shop();
    let db = open(&pg, &options()).await;
    let cases: [(&str, Value); 8] = [
        ("SELECT ';' AS semi, 'a;b' AS other", json!([[";", "a;b"]])),
        ("select name from t where id = 2", json!([["two"]])),
        ("WITH x AS (SELECT id FROM t WHERE id > 1) SELECT count(*) FROM x", json!([[2]])),
        ("SELECT id, sum(id) OVER (ORDER BY id) FROM t ORDER BY id", json!([[1, 1], [2, 3], [3, 6]])),
        ("/* leading */ SELECT 1 -- trailing", json!([[1]])),
        ("SELECT 'héllo ✓ 日本' AS u", json!([["héllo ✓ 日本"]])),
        ("SELECT $$dollar; quoted$$", json!([["dollar; quoted"]])),
        ("SELECT E'it\\'s'", json!([["it's"]])),
    ];
    for (sql, want) in cases {
        let rows = adhoc(&db, sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
        assert_eq!(json!(rows.rows), want, "{sql}");
    }
    let explain = adhoc(&db, "EXPLAIN SELECT * FROM t WHERE id = 1").await.unwrap();
    assert!(!explain.rows.is_empty() && explain.columns[0].name == "QUERY PLAN");
}

#[tokio::test(flavor = "multi_thread")]
async fn typed_parameters_are_values_never_sql() {
    let pg = shop();
    let db = open(&pg, &options()).await;
    let by_name = "SELECT id FROM t WHERE name = :name";
    let params: Map<String, Value> = serde_json::from_value(json!({"name": "x' OR '1'='1"})).unwrap();
    let rows = db.query(call(by_name, &params, Placeholders::Named)).await.unwrap();
    assert!(rows.rows.is_empty());
    let params: Map<String, Value> = serde_json::from_value(json!({"name": "two"})).unwrap();
    let rows = db.query(call(by_name, &params, Placeholders::Named)).await.unwrap();
    assert_eq!(rows.rows, vec![vec![json!(2)]]);

    let by_id = "SELECT name FROM t WHERE id = :id";
    for (bad, what) in [(json!("1 OR 1=1"), "integer"), (json!(1.5), "integer"), (json!({"a": 1}), "integer")]
    {
        let params: Map<String, Value> = serde_json::from_value(json!({ "id": bad })).unwrap();
        let result = db.query(call(by_id, &params, Placeholders::Named)).await;
        assert!(
            matches!(&result, Err(Error::Param { name, message }) if name == "id" && message.contains(what)),
            "{bad}: {result:?}"
        );
    }
    let missing = db.query(call(by_id, &Map::new(), Placeholders::Named)).await;
    assert!(matches!(missing, Err(Error::Param { name, .. }) if name == "id"));
    let params: Map<String, Value> =
        serde_json::from_value(json!({"u": "not-a-uuid; DROP TABLE t"})).unwrap();
    let uuid = db.query(call("SELECT :u::uuid", &params, Placeholders::Named)).await;
    assert!(matches!(uuid, Err(Error::Param { .. })), "{uuid:?}");
    // A value the server's input function rejects is the parameter's fault.
    let params: Map<String, Value> = serde_json::from_value(json!({"d": "2024-13-45"})).unwrap();
    let date = db.query(call("SELECT :d::date", &params, Placeholders::Named)).await;
    assert!(matches!(&date, Err(Error::Param { name, .. }) if name == "d"), "{date:?}");
    // Ad-hoc SQL takes no parameters.
    assert!(matches!(adhoc(&db, "SELECT $1::int").await, Err(Error::Prepare(_))));
    // Parameters of every common type.
    let params: Map<String, Value> = serde_json::from_value(json!({
        "big": "9007199254740993", "n": "12.50", "f": 1.25, "b": true, "j": {"k": [1, "x"]},
        "ids": [1, 3], "d": "2024-02-29", "ts": "2024-02-29T10:00:00Z", "by": "aGk=", "bys": ["aGk=", null],
    }))
    .unwrap();
    let sql = "SELECT :big::int8, :n::numeric, :f::float8, :b::bool, :j::jsonb, \
               (SELECT array_agg(name ORDER BY id) FROM t WHERE id = ANY(:ids::int4[])), :d::date, :ts::timestamptz, :by::bytea, :bys::bytea[]";
    let rows = db.query(call(sql, &params, Placeholders::Named)).await.unwrap();
    assert_eq!(
        json!(rows.rows[0]),
        json!(["9007199254740993", "12.50", 1.25, true, {"k": [1, "x"]}, ["one", "three"], "2024-02-29", "2024-02-29T10:00:00Z", "aGk=", ["aGk=", null]])
    );
    assert_eq!(rows_of_t(&pg), T_UNTOUCHED);
}

#[tokio::test(flavor = "multi_thread")]
async fn every_type_has_its_json_form() {
    let pg = shop();
    let db = open(&pg, &options()).await;
    let sql = r#"SELECT true AS b, 1::int2 AS i2, 2::int4 AS i4, 9007199254740993::int8 AS big, 42::int8 AS small,
        26::oid AS o, 1.5::float4 AS f4, 'NaN'::float8 AS nan, '-Infinity'::float8 AS ninf,
        12.50::numeric(10,2) AS num, 'NaN'::numeric AS num_nan, -0.000123::numeric AS tiny, 123456789012345678901234567890::numeric AS huge,
        'héllo'::text AS t, 'ab'::varchar(5) AS v, 'a'::char(3) AS bp, 'x'::name AS nm, 'x'::"char" AS ch,
        '\x6869'::bytea AS by, '2024-02-29'::date AS d, 'infinity'::date AS dinf, '13:45:01.5'::time AS tm, '13:45:00+05:30'::timetz AS ttz,
        '2024-02-29 13:45:01.25'::timestamp AS ts, '2024-02-29 13:45:01+02'::timestamptz AS tstz, '0044-03-15 BC'::date AS bc,
        '1 year 2 months 3 days 04:05:06.5'::interval AS iv, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS u,
        '{"a": [1, 2.5, null], "s": "x"}'::jsonb AS jb, '[1, "x"]'::json AS js, '"just a string"'::jsonb AS jstr,
        '192.168.0.1'::inet AS ip, '10.0.0.0/8'::cidr AS net, '::1'::inet AS ip6, '192.168.0.0/24'::inet AS ipnet,
        ARRAY[[1,2],[3,NULL]]::int4[] AS arr, ARRAY['a','b"c']::text[] AS tarr, '{}'::int4[] AS empty,
        'happy'::mood AS en, ARRAY['sad'::mood] AS enarr, NULL::int4 AS nul, NULL::text[] AS nularr,
        '08:00:2b:01:02:03'::macaddr AS mac, '7'::xid AS x"#;
    let rows = adhoc(&db, sql).await.unwrap();
    let got: Map<String, Value> =
        rows.columns.iter().map(|c| c.name.clone()).zip(rows.rows[0].iter().cloned()).collect();
    let want = json!({
        "b": true, "i2": 1, "i4": 2, "big": "9007199254740993", "small": 42, "o": 26, "f4": 1.5, "nan": "NaN", "ninf": "-Infinity",
        "num": "12.50", "num_nan": "NaN", "tiny": "-0.000123", "huge": "123456789012345678901234567890",
        "t": "héllo", "v": "ab", "bp": "a  ", "nm": "x", "ch": "x",
        "by": "aGk=", "d": "2024-02-29", "dinf": "infinity", "tm": "13:45:01.5", "ttz": "13:45:00+05:30",
        "ts": "2024-02-29T13:45:01.25", "tstz": "2024-02-29T11:45:01Z", "bc": "-0043-03-15",
        "iv": "P1Y2M3DT4H5M6.5S", "u": "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
        "jb": {"a": [1, 2.5, null], "s": "x"}, "js": [1, "x"], "jstr": "just a string",
        "ip": "192.168.0.1", "net": "10.0.0.0/8", "ip6": "::1", "ipnet": "192.168.0.0/24",
        "arr": [[1, 2], [3, null]], "tarr": ["a", "b\"c"], "empty": [],
        "en": "happy", "enarr": ["sad"], "nul": null, "nularr": null,
        "mac": "08:00:2b:01:02:03", "x": 7,
    });
    assert_eq!(Value::Object(got), want);
    let schema_of = |name: &str| rows.columns.iter().find(|c| c.name == name).unwrap().schema.clone();
    assert_eq!(schema_of("big"), switchboard_sql::value::integer_schema(true));
    assert_eq!(schema_of("i4"), switchboard_sql::value::integer_schema(false));
    assert_eq!(schema_of("num"), switchboard_sql::value::numeric_schema());
    assert_eq!(schema_of("by"), switchboard_sql::value::bytes_schema());
    assert_eq!(schema_of("arr")["items"], switchboard_sql::value::integer_schema(false));
    assert_eq!(schema_of("en")["enum"], json!(["sad", "happy", null]));
    // A type without a JSON form is refused before running, saying how to fix it.
    let point = adhoc(&db, "SELECT point(1, 2) AS p").await;
    assert!(matches!(&point, Err(Error::Execute(m)) if m.contains("::text")), "{point:?}");
    let text = adhoc(&db, "SELECT point(1, 2)::text AS p").await.unwrap();
    assert_eq!(text.rows, vec![vec![json!("(1,2)")]]);
}

#[tokio::test(flavor = "multi_thread")]
async fn twenty_million_rows_answer_promptly_in_flat_memory() {
    let pg = shop();
    let db = open(&pg, &options()).await;
    let before = rss_kib();
    let started = Instant::now();
    let params = Map::new();
    let mut request = call("SELECT generate_series(1, 20000000) AS n", &params, Placeholders::None);
    request.max_rows = 100;
    request.skip = 50;
    let rows = db.query(request).await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    assert_eq!(rows.rows.len(), 100);
    assert!(rows.truncated);
    assert_eq!(rows.rows[0], vec![json!(51)]);
    let grown = rss_kib().saturating_sub(before);
    assert!(grown < 100 * 1024, "memory grew by {grown} KiB");
    // Bytes cap too. (A set-returning function in the select list streams;
    // one in FROM is materialized by the server first, and so is bounded by
    // the statement timeout instead.)
    let mut request =
        call("SELECT repeat('x', 1000), generate_series(1, 20000000)", &params, Placeholders::None);
    request.max_bytes = 10_000;
    let rows = db.query(request).await.unwrap();
    assert!(
        rows.truncated && rows.rows.len() < 10 && rows.bytes <= 10_000,
        "{} rows, {} bytes",
        rows.rows.len(),
        rows.bytes
    );
}

fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

const SLEEPING: &str =
    "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(60)%' AND pid <> pg_backend_pid()";

#[tokio::test(flavor = "multi_thread")]
async fn a_cancelled_call_stops_the_backend_query() {
    let pg = shop();
    let db = open(&pg, &Options { statement_timeout: Duration::from_secs(120), ..options() }).await;
    let params = Map::new();
    let request = call("SELECT pg_sleep(60)", &params, Placeholders::None);
    let cancel = request.cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(500)).await;
        cancel.cancel();
    });
    let started = Instant::now();
    let result = db.query(request).await;
    assert_eq!(result, Err(Error::Cancelled));
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
    eventually(&pg, SLEEPING, "0");
    // The database still answers.
    assert_eq!(adhoc(&db, "SELECT 1").await.unwrap().rows, vec![vec![json!(1)]]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_long_call_times_out_and_the_backend_query_stops() {
    let pg = shop();
    let db = open(&pg, &Options { statement_timeout: Duration::from_millis(500), ..options() }).await;
    let started = Instant::now();
    let result = adhoc(&db, "SELECT pg_sleep(60)").await;
    assert!(matches!(&result, Err(Error::Timeout(t)) if t == "500ms"), "{result:?}");
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    eventually(&pg, SLEEPING, "0");
    assert_eq!(adhoc(&db, "SELECT 2").await.unwrap().rows, vec![vec![json!(2)]]);
}

#[tokio::test(flavor = "multi_thread")]
async fn privileged_roles_are_refused_unless_allowed() {
    let pg = shop();
    let superuser = pg.url("postgres", pg.superuser_password(), "shop");
    let refused = Postgres::connect(&superuser, None, &options()).await;
    assert!(matches!(&refused, Err(Error::PrivilegedRole(m)) if m.contains("superuser")), "{refused:?}");
    pg.create_role("filer", "filer-pw", "LOGIN");
    pg.execute("GRANT pg_read_server_files TO filer");
    let filer = Postgres::connect(&pg.url("filer", "filer-pw", "shop"), None, &options()).await;
    assert!(
        matches!(&filer, Err(Error::PrivilegedRole(m)) if m.contains("pg_read_server_files")),
        "{filer:?}"
    );

    // Allowed by the operator: the read-only transaction still refuses
    // writes to tables, but NOT reading server files nor COPY … TO PROGRAM
    // (PostgreSQL allows COPY TO in a read-only transaction). That is what
    // the refusal above is for; this test holds the documented truth.
    let allowed = Options { allow_privileged_role: true, ..options() };
    let db = Postgres::connect(&superuser, None, &allowed).await.expect("allowed");
    assert!(db.notes().iter().any(|n| n.contains("superuser")), "{:?}", db.notes());
    assert!(matches!(adhoc(&db, "DROP TABLE t").await, Err(Error::Refused(_))));
    assert!(matches!(adhoc(&db, "DELETE FROM t").await, Err(Error::Refused(_))));
    let file = adhoc(&db, "SELECT pg_read_file('PG_VERSION')").await;
    assert!(file.is_ok(), "a superuser reads server files: only the refusal at open prevents it: {file:?}");
    let marker = pg.dir().join("copied-by-program");
    let copy = format!("COPY (SELECT 1) TO PROGRAM 'touch {}'", marker.display());
    adhoc(&db, &copy).await.expect("COPY TO PROGRAM runs under an allowed superuser");
    assert!(marker.exists(), "the program ran: allow_privileged_role gives this away");
    assert_eq!(rows_of_t(&pg), T_UNTOUCHED);
}

/// The attack of the review: `GRANT adm TO reader` with `adm` a
/// superuser; the reader's own query did `set_config('role', 'adm', true)`
/// and then `COPY … TO PROGRAM`. Membership, not inherited privilege, is
/// what counts, through any chain and with NOINHERIT too.
#[tokio::test(flavor = "multi_thread")]
async fn roles_that_can_become_a_privileged_role_are_refused() {
    let pg = shop();
    pg.create_role("adm", "adm-pw", "NOLOGIN SUPERUSER");
    pg.execute("GRANT adm TO reader");
    let refused = Postgres::connect(&pg.url("reader", READER_PASSWORD, "shop"), None, &options()).await;
    assert!(
        matches!(&refused, Err(Error::PrivilegedRole(m)) if m.contains("\"adm\"") && m.contains("superuser")),
        "{refused:?}"
    );

    // Through an intermediate role, by a NOINHERIT member (PostgreSQL 15:
    // NOINHERIT is the member's attribute): it inherits nothing, yet can
    // SET ROLE to mid, which holds pg_execute_server_program.
    pg.create_role("mid", "mid-pw", "NOLOGIN");
    pg.execute("GRANT pg_execute_server_program TO mid");
    pg.create_role("climber", "climber-pw", "LOGIN NOINHERIT");
    pg.execute("GRANT mid TO climber");
    pg.execute_in("shop", "GRANT SELECT ON t TO climber");
    let climber = pg.url("climber", "climber-pw", "shop");
    let refused = Postgres::connect(&climber, None, &options()).await;
    assert!(
        matches!(&refused, Err(Error::PrivilegedRole(m)) if m.contains("pg_execute_server_program")),
        "{refused:?}"
    );

    // Why: once allowed, the member becomes the role inside its own query
    // and runs a program on the server (the file appears on disk).
    let allowed = Options { allow_privileged_role: true, ..options() };
    let db = Postgres::connect(&climber, None, &allowed).await.expect("allowed");
    assert!(db.notes().iter().any(|n| n.contains("pg_execute_server_program")), "{:?}", db.notes());
    let marker = pg.dir().join("run-by-a-member");
    let climb = format!(
        "DO $$BEGIN PERFORM set_config('role', 'mid', true); \
         EXECUTE 'COPY (SELECT 1) TO PROGRAM ''touch {}'''; END$$",
        marker.display()
    );
    let ran = adhoc(&db, &climb).await;
    assert!(marker.exists(), "a NOINHERIT member became the role and ran a program: {ran:?}");
    assert_eq!(rows_of_t(&pg), T_UNTOUCHED);
}

/// The attack of the review: a NOINHERIT member of the table's owner
/// inherits no privilege on `secret`, but can `SET ROLE` to the owner
/// inside its query and read it.
#[tokio::test(flavor = "multi_thread")]
async fn exclude_counts_every_role_the_user_can_become() {
    let pg = shop();
    pg.create_role("owner_role", "owner-pw", "NOLOGIN");
    pg.execute_in("shop", "CREATE TABLE vault (id int, secret text); ALTER TABLE vault OWNER TO owner_role");
    pg.execute_in("shop", "INSERT INTO vault VALUES (1, 'the-vault-secret')");
    pg.create_role("sidestep", "sidestep-pw", "LOGIN NOINHERIT");
    pg.execute("GRANT owner_role TO sidestep");
    pg.execute_in("shop", "GRANT SELECT (id) ON vault TO sidestep");
    let sidestep = pg.url("sidestep", "sidestep-pw", "shop");
    let exclude = Options { exclude: Exclusions::new(&["vault.secret"]).unwrap(), ..options() };
    // What the check prevents: the member reads the column as the owner.
    let unchecked = Postgres::connect(&sidestep, None, &options()).await.expect("opens without exclude");
    let read = adhoc(&unchecked, AS_OWNER).await.expect("the member reads as the owner");
    assert!(read.rows[0][1].as_str().unwrap().contains("the-vault-secret"), "{:?}", read.rows);

    let refused = Postgres::connect(&sidestep, None, &exclude).await;
    assert!(
        matches!(&refused, Err(Error::Refused(m)) if m.contains("public.vault.secret") && m.contains("owner_role")),
        "{refused:?}"
    );
    // Revoking the membership is what lets it open.
    pg.execute("REVOKE owner_role FROM sidestep");
    let db = Postgres::connect(&sidestep, None, &exclude).await.expect("opens once the membership is gone");
    let secret = adhoc(&db, AS_OWNER).await;
    assert!(matches!(&secret, Err(Error::Refused(m)) if m.contains("permission denied")), "{secret:?}");
}

/// Becomes `owner_role` inside the statement, then reads `vault.secret`
/// in a query run after that (`query_to_xml` plans it at execution).
const AS_OWNER: &str = "SELECT set_config('role', 'owner_role', true) r, \
                        query_to_xml('SELECT secret FROM vault', true, false, '')::text x";

#[tokio::test(flavor = "multi_thread")]
async fn excluded_columns_must_be_unreadable_by_the_role() {
    let pg = shop();
    let exclude = Options { exclude: Exclusions::new(&["t.secret"]).unwrap(), ..options() };
    let refused = Postgres::connect(&pg.url("reader", READER_PASSWORD, "shop"), None, &exclude).await;
    assert!(matches!(&refused, Err(Error::Refused(m)) if m.contains("public.t.secret")), "{refused:?}");

    pg.execute_in("shop", "REVOKE SELECT ON t FROM reader; GRANT SELECT (id, name) ON t TO reader");
    let db = open(&pg, &exclude).await;
    let secret = adhoc(&db, "SELECT secret FROM t").await;
    assert!(matches!(&secret, Err(Error::Refused(m)) if m.contains("permission denied")), "{secret:?}");
    assert!(adhoc(&db, "SELECT * FROM t").await.is_err(), "* includes the excluded column");
    assert_eq!(adhoc(&db, "SELECT name FROM t WHERE id = 1").await.unwrap().rows, vec![vec![json!("one")]]);
    let catalog = db.catalog().await.unwrap();
    let t = catalog.tables.iter().find(|t| t.name == "t").unwrap();
    assert_eq!(t.columns.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["id", "name"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_catalogue_and_its_fingerprint() {
    let pg = shop();
    pg.execute_in(
        "shop",
        "CREATE TABLE orders (id int8 PRIMARY KEY, t_id int NOT NULL REFERENCES t (id), total numeric(10,2) DEFAULT 0);
         CREATE INDEX orders_t ON orders (t_id); CREATE UNIQUE INDEX orders_lower ON orders (lower(total::text));
         COMMENT ON TABLE orders IS 'what was bought'; COMMENT ON COLUMN orders.total IS 'in euros';
         CREATE VIEW named AS SELECT id, name FROM t; CREATE MATERIALIZED VIEW counted AS SELECT count(*) FROM t;
         ANALYZE;
         GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader;",
    );
    let db = open(&pg, &options()).await;
    assert_eq!(db.schemas(), ["public"]);
    assert!(db.notes().is_empty(), "{:?}", db.notes());
    let catalog = db.catalog().await.unwrap();
    let names: Vec<String> = catalog.tables.iter().map(|t| t.qualified_name()).collect();
    assert_eq!(names, ["public.counted", "public.named", "public.orders", "public.t"]);
    let orders = &catalog.tables[2];
    assert_eq!(orders.kind, TableKind::Table);
    assert_eq!(orders.comment.as_deref(), Some("what was bought"));
    assert_eq!(orders.primary_key, ["id"]);
    assert_eq!(orders.foreign_keys[0].references, "public.t");
    assert_eq!(orders.foreign_keys[0].columns, ["t_id"]);
    assert_eq!(orders.foreign_keys[0].referenced_columns, ["id"]);
    let total = &orders.columns[2];
    assert_eq!(
        (total.sql_type.as_str(), total.nullable, total.comment.as_deref()),
        ("numeric(10,2)", true, Some("in euros"))
    );
    assert_eq!(total.default.as_deref(), Some("0"));
    assert!(!orders.columns[1].nullable);
    let index_names: Vec<&str> = orders.indexes.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(index_names, ["orders_lower", "orders_pkey", "orders_t"]);
    assert!(orders.indexes[0].unique && orders.indexes[0].columns[0].contains("lower"));
    assert_eq!(catalog.tables[0].kind, TableKind::MaterializedView);
    assert_eq!(catalog.tables[1].kind, TableKind::View);
    assert_eq!(catalog.tables[3].estimated_rows, Some(3));

    let before = db.fingerprint().await.unwrap();
    assert_eq!(before, db.fingerprint().await.unwrap());
    pg.execute_in("shop", "COMMENT ON COLUMN t.name IS 'changed'");
    assert_ne!(before, db.fingerprint().await.unwrap());

    // Exclusions leave tables and their keys out.
    pg.execute_in("shop", "REVOKE SELECT ON orders FROM reader");
    let hidden = Options { exclude: Exclusions::new(&["orders"]).unwrap(), ..options() };
    let db = open(&pg, &hidden).await;
    let catalog = db.catalog().await.unwrap();
    assert!(catalog.tables.iter().all(|t| t.name != "orders"));
}

#[tokio::test(flavor = "multi_thread")]
async fn write_grants_are_noted_and_reads_stay_read_only() {
    let pg = shop();
    pg.execute_in("shop", "GRANT INSERT, DELETE ON t TO reader");
    let db = open(&pg, &options()).await;
    assert!(db.notes().iter().any(|n| n.contains("public.t")), "{:?}", db.notes());
    assert!(matches!(adhoc(&db, "DELETE FROM t").await, Err(Error::Refused(_))));
    let params = Map::new();
    let write = db
        .write(WriteCall {
            statement: Statement { sql: "DELETE FROM t", placeholders: Placeholders::Named },
            params: &params,
            commit: Commit::If { max: None, expect: None },
            settings: &[],
            cancel: CancellationToken::new(),
        })
        .await;
    assert_eq!(write, Err(Error::ReadOnly));
    assert_eq!(rows_of_t(&pg), T_UNTOUCHED);

    // dblink opens sessions the read-only transaction does not reach: noted
    // while the role may run it, not once revoked.
    pg.execute_in("shop", "CREATE EXTENSION dblink");
    let db = open(&pg, &options()).await;
    assert!(db.notes().iter().any(|n| n.contains("dblink_exec")), "{:?}", db.notes());
    pg.execute_in("shop", "REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA public FROM PUBLIC");
    let db = open(&pg, &options()).await;
    assert!(db.notes().iter().all(|n| !n.contains("dblink")), "{:?}", db.notes());
}

#[tokio::test(flavor = "multi_thread")]
async fn writes_commit_only_within_their_limits() {
    let pg = shop();
    pg.execute_in("shop", "GRANT UPDATE ON t TO reader");
    let db = open(&pg, &Options { access: Access::Write, ..options() }).await;
    let sql = "UPDATE t SET name = name || '!' WHERE id <= :upto";
    let write = |upto: i64, commit: Commit| {
        let db = &db;
        async move {
            let params: Map<String, Value> = serde_json::from_value(json!({ "upto": upto })).unwrap();
            db.write(WriteCall {
                statement: Statement { sql, placeholders: Placeholders::Named },
                params: &params,
                commit,
                settings: &[],
                cancel: CancellationToken::new(),
            })
            .await
        }
    };
    let counted = write(2, Commit::Never).await.unwrap();
    assert_eq!((counted.affected, counted.committed), (2, false));
    assert_eq!(rows_of_t(&pg), T_UNTOUCHED);
    assert_eq!(
        write(3, Commit::If { max: Some(2), expect: None }).await,
        Err(Error::TooManyRows { affected: 3, max: 2 })
    );
    assert_eq!(rows_of_t(&pg), T_UNTOUCHED);
    assert_eq!(
        write(3, Commit::If { max: None, expect: Some(2) }).await,
        Err(Error::CountChanged { expected: 2, affected: 3 })
    );
    assert_eq!(rows_of_t(&pg), T_UNTOUCHED);
    let done = write(1, Commit::If { max: Some(2), expect: Some(1) }).await.unwrap();
    assert_eq!((done.affected, done.committed), (1, true));
    assert_eq!(rows_of_t(&pg), "1:one!,2:two,3:three");
    // Reads on a write database are still read-only.
    assert!(matches!(adhoc(&db, "UPDATE t SET name = 'x'").await, Err(Error::Refused(_))));
    assert_eq!(rows_of_t(&pg), "1:one!,2:two,3:three");
}

/// PostgreSQL's command tag counts only the statement's own rows: a
/// DELETE whose ON DELETE CASCADE (or trigger) removed ten more rows
/// would pass `max_affected_rows = 1`. The count adds what the
/// transaction's own statistics say it changed, in the dry run and the
/// `expect` check alike.
#[tokio::test(flavor = "multi_thread")]
async fn row_limits_count_rows_changed_by_cascades_and_triggers() {
    let pg = shop();
    pg.execute_in(
        "shop",
        "CREATE TABLE parents (id int PRIMARY KEY);
         CREATE TABLE children (id serial PRIMARY KEY, parent_id int NOT NULL REFERENCES parents(id) ON DELETE CASCADE);
         CREATE TABLE items (id int PRIMARY KEY);
         CREATE TABLE tags (id serial PRIMARY KEY, item_id int NOT NULL);
         CREATE FUNCTION untag() RETURNS trigger LANGUAGE plpgsql AS
           'BEGIN DELETE FROM tags WHERE item_id = OLD.id; RETURN OLD; END';
         CREATE TRIGGER items_untag AFTER DELETE ON items FOR EACH ROW EXECUTE FUNCTION untag();
         INSERT INTO parents VALUES (1), (2);
         INSERT INTO items VALUES (1), (2);
         INSERT INTO children (parent_id) SELECT 1 FROM generate_series(1, 10);
         INSERT INTO tags (item_id) SELECT 1 FROM generate_series(1, 10);
         GRANT SELECT, DELETE ON parents, children, items, tags TO reader;",
    );
    let db = open(&pg, &Options { access: Access::Write, ..options() }).await;
    let write = |sql: &'static str, id: i64, commit: Commit| {
        let db = &db;
        async move {
            let params: Map<String, Value> = serde_json::from_value(json!({ "id": id })).unwrap();
            db.write(WriteCall {
                statement: Statement { sql, placeholders: Placeholders::Named },
                params: &params,
                commit,
                settings: &[],
                cancel: CancellationToken::new(),
            })
            .await
        }
    };
    let one = Commit::If { max: Some(1), expect: None };
    let counts = |own: &str, table: &str| {
        pg.query_in(
            "shop",
            &format!("SELECT (SELECT count(*) FROM {own}) || ':' || (SELECT count(*) FROM {table})"),
        )
    };
    for (sql, own, table) in [
        ("DELETE FROM parents WHERE id = :id", "parents", "children"),
        ("DELETE FROM items WHERE id = :id", "items", "tags"),
    ] {
        assert_eq!(write(sql, 1, one).await, Err(Error::TooManyRows { affected: 11, max: 1 }), "{sql}");
        assert_eq!(counts(own, table), "2:10", "{sql}");
        let counted = write(sql, 1, Commit::Never).await.unwrap();
        assert_eq!((counted.affected, counted.committed), (11, false), "{sql}");
        assert_eq!(
            write(sql, 1, Commit::If { max: None, expect: Some(1) }).await,
            Err(Error::CountChanged { expected: 1, affected: 11 }),
            "{sql}"
        );
        assert_eq!(counts(own, table), "2:10", "{sql}");
        let alone = write(sql, 2, one).await.unwrap();
        assert_eq!((alone.affected, alone.committed), (1, true), "{sql}");
        assert_eq!(counts(own, table), "1:10", "{sql}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn describe_settings_and_connection_errors() {
    let pg = shop();
    let db = open(&pg, &options()).await;
    let described = db
        .describe(Statement {
            sql: "SELECT id, name FROM t WHERE id > :min AND name <> :name",
            placeholders: Placeholders::Named,
        })
        .await
        .unwrap();
    let params: Vec<(&str, &str)> =
        described.params.iter().map(|p| (p.name.as_str(), p.sql_type.as_str())).collect();
    assert_eq!(params, [("min", "int4"), ("name", "text")]);
    let columns: Vec<(&str, &str)> =
        described.columns.iter().map(|c| (c.name.as_str(), c.sql_type.as_str())).collect();
    assert_eq!(columns, [("id", "int4"), ("name", "text")]);
    assert!(matches!(
        db.describe(Statement { sql: "SELEC 1", placeholders: Placeholders::None }).await,
        Err(Error::Prepare(m)) if m.contains("syntax error")
    ));
    // describe runs nothing.
    db.describe(Statement { sql: "SELECT evil()", placeholders: Placeholders::None }).await.unwrap();
    assert_eq!(rows_of_t(&pg), T_UNTOUCHED);

    // Transaction-local settings, bound, gone in the next call.
    let params = Map::new();
    let settings = [("app.user_id".to_owned(), "42'; DROP TABLE t; --".to_owned())];
    let mut request = call("SELECT current_setting('app.user_id')", &params, Placeholders::Named);
    request.settings = &settings;
    assert_eq!(db.query(request).await.unwrap().rows, vec![vec![json!("42'; DROP TABLE t; --")]]);
    let after = adhoc(&db, "SELECT current_setting('app.user_id', true)").await.unwrap();
    assert!(matches!(&after.rows[0][0], Value::Null) || after.rows[0][0] == json!(""), "{after:?}");

    // A wrong password: refused, and the message holds no password.
    let wrong = Postgres::connect(&pg.url("reader", "not-the-password", "shop"), None, &options()).await;
    assert!(matches!(&wrong, Err(Error::Connect(m)) if !m.contains("not-the-password")), "{wrong:?}");
    // The password given apart from the URL.
    let url = format!("postgres://reader@127.0.0.1:{}/shop?sslmode=disable", pg.port());
    let db = Postgres::connect(&url, Some(READER_PASSWORD), &options()).await.expect("password apart");
    assert_eq!(adhoc(&db, "SELECT 3").await.unwrap().rows, vec![vec![json!(3)]]);
    // require: this test server has no TLS, so connecting fails rather than going plain.
    let url = format!("postgres://reader@127.0.0.1:{}/shop?sslmode=require", pg.port());
    assert!(matches!(
        Postgres::connect(&url, Some(READER_PASSWORD), &options()).await,
        Err(Error::Connect(_))
    ));
}

#[tokio::test(flavor = "multi_thread")]
async fn tls_is_used_as_sslmode_says_and_url_options_cannot_unlock_writes() {
    let pg = PostgresServer::start_with_tls();
    pg.create_role("reader", READER_PASSWORD, "LOGIN");
    let url = |query: &str| format!("postgres://reader@127.0.0.1:{}/postgres?{query}", pg.port());
    let ssl = "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()";
    for (mode, encrypted) in [("sslmode=require", true), ("sslmode=prefer", true), ("sslmode=disable", false)]
    {
        let db = Postgres::connect(&url(mode), Some(READER_PASSWORD), &options())
            .await
            .unwrap_or_else(|e| panic!("{mode}: {e}"));
        assert_eq!(adhoc(&db, ssl).await.unwrap().rows, vec![vec![json!(encrypted)]], "{mode}");
    }
    // The test authority is not a public root: the verifying modes refuse it.
    for mode in ["sslmode=verify-ca", "sslmode=verify-full"] {
        let refused = Postgres::connect(&url(mode), Some(READER_PASSWORD), &options()).await;
        assert!(matches!(refused, Err(Error::Connect(_))), "{mode}: {refused:?}");
    }
    // With it as sslrootcert: the chain verifies; verify-full also wants
    // the name (the certificate is for `localhost`, not `127.0.0.1`).
    let ca = pg.ca_certificate().unwrap();
    let root = |mode: &str| format!("sslmode={mode}&sslrootcert={}", ca.display());
    for (query, opens) in [(root("verify-ca"), true), (root("require"), true), (root("verify-full"), false)] {
        let result = Postgres::connect(&url(&query), Some(READER_PASSWORD), &options()).await;
        assert_eq!(result.is_ok(), opens, "{query}: {result:?}");
    }
    let by_name = format!("postgres://reader@localhost:{}/postgres?{}", pg.port(), root("verify-full"));
    let db =
        Postgres::connect(&by_name, Some(READER_PASSWORD), &options()).await.expect("verify-full by name");
    assert_eq!(adhoc(&db, ssl).await.unwrap().rows, vec![vec![json!(true)]]);
    // `options` in the URL are replaced by switchboard's own.
    let unlocked = url("sslmode=require&options=-c%20default_transaction_read_only%3Doff");
    let db = Postgres::connect(&unlocked, Some(READER_PASSWORD), &options()).await.unwrap();
    let mode = adhoc(&db, "SELECT current_setting('default_transaction_read_only')").await.unwrap();
    assert_eq!(mode.rows, vec![vec![json!("on")]]);
}

#[tokio::test(flavor = "multi_thread")]
async fn connections_are_reused_only_after_clean_configured_calls() {
    let pg = shop();
    let db = open(&pg, &options()).await;
    let params = Map::new();
    let pid = |rows: Rows| rows.rows[0][0].clone();
    let configured = || call("SELECT pg_backend_pid()", &params, Placeholders::Named);
    let first = pid(db.query(configured()).await.unwrap());
    assert_eq!(
        pid(db.query(configured()).await.unwrap()),
        first,
        "a clean configured call keeps its connection"
    );
    let adhoc_pid = pid(adhoc(&db, "SELECT pg_backend_pid()").await.unwrap());
    assert_eq!(adhoc_pid, first, "the pool of one lends the same connection");
    let after_adhoc = pid(db.query(configured()).await.unwrap());
    assert_ne!(after_adhoc, first, "an ad-hoc call's connection is closed, not reused");
    assert!(db.query(call("SELECT 1/0", &params, Placeholders::Named)).await.is_err());
    assert_ne!(
        pid(db.query(configured()).await.unwrap()),
        after_adhoc,
        "a connection with an error is closed"
    );
    eventually(&pg, "SELECT count(*) FROM pg_stat_activity WHERE usename = 'reader'", "1");
    // An idle connection the server ended is not lent again (or, if the
    // call comes before the driver noticed, the read runs again on a fresh one).
    for pause in [Duration::from_millis(200), Duration::ZERO] {
        assert!(db.query(configured()).await.is_ok());
        pg.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'reader'");
        tokio::time::sleep(pause).await;
        assert!(db.query(configured()).await.is_ok(), "a fresh connection replaces the ended one");
    }
    drop(db);
    eventually(&pg, "SELECT count(*) FROM pg_stat_activity WHERE usename = 'reader'", "0");

    // At most pool_size connections, however many calls run at once.
    let db = open(&pg, &Options { pool_size: 2, ..options() }).await;
    let sql =
        "SELECT count(*) FROM pg_stat_activity, pg_sleep(0.3) WHERE usename = 'reader' AND datname = 'shop'";
    let calls: Vec<_> = (0..6).map(|_| db.query(call(sql, &params, Placeholders::Named))).collect();
    for result in futures::future::join_all(calls).await {
        let seen = result.unwrap().rows[0][0].as_i64().unwrap();
        assert!(seen <= 2, "{seen} connections for a pool of 2");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cancelled_write_writes_nothing() {
    let pg = shop();
    pg.execute_in("shop", "GRANT UPDATE ON t TO reader");
    let db = open(
        &pg,
        &Options { access: Access::Write, statement_timeout: Duration::from_secs(120), ..options() },
    )
    .await;
    let params = Map::new();
    let cancel = CancellationToken::new();
    let later = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(500)).await;
        later.cancel();
    });
    let result = db
        .write(WriteCall {
            statement: Statement {
                sql: "UPDATE t SET name = 'x' WHERE id = (SELECT 1 FROM pg_sleep(60))",
                placeholders: Placeholders::Named,
            },
            params: &params,
            commit: Commit::If { max: None, expect: None },
            settings: &[],
            cancel,
        })
        .await;
    assert_eq!(result, Err(Error::Cancelled));
    eventually(&pg, SLEEPING, "0");
    assert_eq!(rows_of_t(&pg), T_UNTOUCHED);
}

#[tokio::test(flavor = "multi_thread")]
async fn configured_statements_stay_prepared_and_follow_schema_changes() {
    let pg = shop();
    let db = open(&pg, &options()).await;
    let by_id: Map<String, Value> = [("id".to_owned(), json!(1))].into_iter().collect();
    let row = "SELECT * FROM t WHERE id = :id";
    let first = db.query(call(row, &by_id, Placeholders::Named)).await.unwrap();
    assert_eq!(first.columns.len(), 3);
    // The statement stays prepared on its connection (the driver's own,
    // from configured text only): the next call is Bind/Execute only.
    let none = Map::new();
    let prepared =
        "SELECT count(*) FROM pg_prepared_statements WHERE statement = 'SELECT * FROM t WHERE id = $1'";
    let count = db.query(call(prepared, &none, Placeholders::Named)).await.unwrap();
    assert_eq!(count.rows, vec![vec![json!(1)]]);

    // The table changes shape: the cached statement's result type is out
    // of date, so it is prepared again and the call answers the new shape.
    pg.execute_in("shop", "ALTER TABLE t ADD COLUMN extra int DEFAULT 7");
    let after = db.query(call(row, &by_id, Placeholders::Named)).await.unwrap();
    let names: Vec<&str> = after.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["id", "name", "secret", "extra"]);
    assert_eq!(after.rows, vec![vec![json!(1), json!("one"), json!("hush"), json!(7)]]);
    let count = db.query(call(prepared, &none, Placeholders::Named)).await.unwrap();
    assert_eq!(count.rows, vec![vec![json!(1)]], "the outdated statement was closed");

    // Settings are sent together with the Bind, applied in order, and a
    // refused one stops the call before its statement runs.
    let settings = [("app.who".to_owned(), "first".to_owned()), ("app.who".to_owned(), "second".to_owned())];
    let mut request = call("SELECT current_setting('app.who')", &none, Placeholders::Named);
    request.settings = &settings;
    assert_eq!(db.query(request).await.unwrap().rows, vec![vec![json!("second")]]);
    let settings = [("statement_timeout".to_owned(), "not a duration".to_owned())];
    let mut request = call("SELECT count(*) FROM t", &none, Placeholders::Named);
    request.settings = &settings;
    let refused = db.query(request).await;
    assert!(
        matches!(&refused, Err(Error::Execute(m)) if m.contains("setting statement_timeout")),
        "{refused:?}"
    );
    assert_eq!(rows_of_t(&pg), T_UNTOUCHED);
    // Nothing stays open: the connection is idle, not in a transaction.
    eventually(
        &pg,
        "SELECT count(*) FROM pg_stat_activity WHERE usename = 'reader' AND state <> 'idle'",
        "0",
    );
}

/// `check` and a down database say why in the server's words (SQLSTATE and
/// message), not the driver's bare "db error", and never the password or
/// the URL.
#[tokio::test(flavor = "multi_thread")]
async fn connection_errors_say_why_without_the_password() {
    let pg = shop();
    let password = "Wr0ng-Secret-zq77";
    let wrong = Postgres::connect(&pg.url("reader", password, "shop"), None, &options()).await;
    let Err(Error::Connect(message)) = &wrong else { panic!("{wrong:?}") };
    assert!(message.contains("28P01") && message.contains("password authentication failed"), "{message}");
    assert!(!message.contains(password) && !message.contains("postgres://"), "{message}");
    let apart = format!("postgres://reader@127.0.0.1:{}/shop?sslmode=disable", pg.port());
    let wrong = Postgres::connect(&apart, Some(password), &options()).await;
    assert!(
        matches!(&wrong, Err(Error::Connect(m)) if m.contains("28P01") && !m.contains(password)),
        "{wrong:?}"
    );

    let unknown = Postgres::connect(&pg.url("reader", READER_PASSWORD, "no_such_db"), None, &options()).await;
    let Err(Error::Connect(message)) = &unknown else { panic!("{unknown:?}") };
    assert!(message.contains("3D000") && message.contains("no_such_db"), "{message}");
    assert!(!message.contains(READER_PASSWORD), "{message}");
}

/// A database that accepts TCP but never answers: opening a connection
/// for a later call gives up at the connect timeout instead of holding
/// the call forever. A proxy in front of the real server forwards the
/// first connection and then only accepts.
#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_accepts_and_never_answers_times_out_at_connect() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    let pg = shop();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let silent = Arc::new(AtomicBool::new(false));
    let upstream = pg.port();
    let proxy_silent = silent.clone();
    let proxy = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((mut inbound, _)) = listener.accept().await {
            if proxy_silent.load(Ordering::SeqCst) {
                held.push(inbound); // accepted, never answered
                continue;
            }
            tokio::spawn(async move {
                let mut outbound = tokio::net::TcpStream::connect(("127.0.0.1", upstream)).await.unwrap();
                let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
            });
        }
    });
    let url = format!("postgres://reader@127.0.0.1:{port}/shop?sslmode=disable");
    let quick = Options { connect_timeout: Duration::from_secs(1), ..options() };
    let db = Postgres::connect(&url, Some(READER_PASSWORD), &quick).await.expect("opens through the proxy");
    silent.store(true, Ordering::SeqCst);
    // An ad-hoc call closes its connection afterwards, so the next call
    // must open a new one: through the silent proxy.
    let _ = adhoc(&db, "SELECT 1").await;
    let started = Instant::now();
    let hung = tokio::time::timeout(Duration::from_secs(20), adhoc(&db, "SELECT 2")).await;
    let answered = hung.expect("the call must not hang past the connect timeout");
    assert!(matches!(&answered, Err(Error::Connect(m)) if m.contains("connect timeout")), "{answered:?}");
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    proxy.abort();
}

/// The peak resident memory of this process (VmHWM), in KiB.
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// The review's `SELECT repeat('x', 900000000)` grew memory to 3.5 GB: the
/// row was decoded, then serialized to be measured. A row whose binary form
/// alone cannot fit `max_bytes` now stops the result undecoded; what
/// remains is the one row as the server sent it.
#[tokio::test(flavor = "multi_thread")]
async fn a_row_wider_than_max_bytes_is_not_decoded() {
    const WIDE: u64 = 200_000_000;
    let pg = shop();
    // Building the value takes the server a while on a loaded machine.
    let db = open(&pg, &Options { statement_timeout: Duration::from_secs(60), ..options() }).await;
    let before = peak_rss_kib();
    let params = Map::new();
    let sql = format!("SELECT n, repeat('x', {WIDE}) AS wide FROM (VALUES (1)) v(n)");
    let mut request = call(&sql, &params, Placeholders::None);
    request.max_bytes = 256 * 1024;
    let rows = db.query(request).await.unwrap();
    assert!(rows.truncated && rows.rows.is_empty(), "{} rows", rows.rows.len());
    let grown = peak_rss_kib().saturating_sub(before);
    // Decoded and measured, the row took three times its size; held once
    // on the wire, about its size.
    assert!(grown < 2 * WIDE / 1024, "peak memory grew by {grown} KiB for a {WIDE}-byte row");
    assert_eq!(adhoc(&db, "SELECT 7").await.unwrap().rows, vec![vec![json!(7)]]);
}

/// Rows reach the model as objects, so their keys (the column names, once
/// per row) count against `max_bytes` as the values do.
#[tokio::test(flavor = "multi_thread")]
async fn max_bytes_counts_the_column_names_of_every_row() {
    let pg = shop();
    let db = open(&pg, &options()).await;
    let params = Map::new();
    let name = "a_very_long_column_name_repeated_in_every_single_row_object";
    let sql = format!("SELECT 1 AS {name} FROM generate_series(1, 1000)");
    let mut request = call(&sql, &params, Placeholders::None);
    request.max_bytes = 10_000;
    let rows = db.query(request).await.unwrap();
    assert!(rows.truncated);
    let objects: Vec<Value> = rows.rows.iter().map(|row| json!({ name: row[0] })).collect();
    let sent = serde_json::to_vec(&objects).unwrap().len() as u64;
    assert!(sent <= 10_000, "{} rows make {sent} bytes of objects", rows.rows.len());
    assert_eq!(sent, rows.bytes);
    assert!(rows.rows.len() > 100, "{}", rows.rows.len());
}

#[tokio::test(flavor = "multi_thread")]
async fn configured_reads_in_one_round_trip_stay_read_only_and_stop_large_results() {
    let pg = shop();
    let db = open(&pg, &options()).await;
    let none = Map::new();
    // Twice each: the first call prepares, the second runs in one round
    // trip (BEGIN READ ONLY, Bind/Execute, ROLLBACK sent together).
    for _ in 0..2 {
        let mode =
            db.query(call("SELECT current_setting('transaction_read_only')", &none, Placeholders::Named));
        assert_eq!(mode.await.unwrap().rows, vec![vec![json!("on")]]);
        let refused = db.query(call("SELECT nextval('s')", &none, Placeholders::Named)).await;
        assert!(matches!(&refused, Err(Error::Refused(m)) if m.contains("read-only")), "{refused:?}");
        let evil = db.query(call("SELECT evil()", &none, Placeholders::Named)).await;
        assert!(matches!(&evil, Err(Error::Refused(_))), "{evil:?}");
        let level = db.query(call(
            "SELECT xact_start IS NOT NULL FROM pg_stat_activity WHERE pid = pg_backend_pid()",
            &none,
            Placeholders::Named,
        ));
        assert_eq!(level.await.unwrap().rows, vec![vec![json!(true)]], "inside a transaction");
    }
    assert_eq!(rows_of_t(&pg), T_UNTOUCHED);
    assert_eq!(pg.query_in("shop", "SELECT last_value FROM s"), "1");
    eventually(
        &pg,
        "SELECT count(*) FROM pg_stat_activity WHERE usename = 'reader' AND state <> 'idle'",
        "0",
    );

    // A large result read whole stops at the cap: the answer is prompt and
    // exact, the statement is cancelled on the server, and that statement
    // is read through a portal from then on.
    let large = "SELECT generate_series(1, 20000000) AS n, repeat('x', 100)";
    for round in 0..3 {
        let mut request = call(large, &none, Placeholders::Named);
        request.max_rows = 10;
        let started = Instant::now();
        let rows = db.query(request).await.unwrap();
        assert!(started.elapsed() < Duration::from_secs(3), "round {round}: {:?}", started.elapsed());
        assert!(rows.truncated);
        let ns: Vec<Value> = rows.rows.iter().map(|r| r[0].clone()).collect();
        assert_eq!(ns, (1..=10).map(|n| json!(n)).collect::<Vec<_>>());
        eventually(
            &pg,
            "SELECT count(*) FROM pg_stat_activity WHERE usename = 'reader' AND query LIKE '%generate_series%' AND state = 'active'",
            "0",
        );
    }
    eventually(&pg, "SELECT count(*) FROM pg_stat_activity WHERE usename = 'reader'", "1");
}
