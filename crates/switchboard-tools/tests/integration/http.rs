//! HTTP tools against a real axum server on 127.0.0.1: GET with a query,
//! POST with a JSON body and headers, error statuses, timeouts, refused
//! connections and load-time errors.

use std::collections::HashMap;
use std::net::SocketAddr;

use axum::Json;
use axum::extract::Query;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use serde_json::{Value, json};
use switchboard_tools::{HttpToolSpec, ToolsError, http_tool};

use crate::common::{client, is_error, spec, text};

async fn serve() -> SocketAddr {
    let app =
        axum::Router::new()
            .route(
                "/weather",
                get(|Query(q): Query<HashMap<String, String>>| async move {
                    Json(json!({"query": q, "temp": 21}))
                }),
            )
            .route(
                "/items/{id}",
                post(
                    |headers: HeaderMap,
                     axum::extract::Path(id): axum::extract::Path<String>,
                     Json(body): Json<Value>| async move {
                        let header =
                            |n: &str| headers.get(n).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
                        (
                            StatusCode::CREATED,
                            Json(json!({"id": id, "body": body, "auth": header("authorization"),
                                "contentType": header("content-type")})),
                        )
                    },
                ),
            )
            .route("/list", get(|| async { Json(json!([1, 2, 3])) }))
            .route("/text", get(|| async { "plain words" }))
            .route("/big", get(|| async { "x".repeat(5000) }))
            .route("/missing", get(|| async { (StatusCode::NOT_FOUND, "no such thing here") }))
            .route(
                "/slow",
                get(|| async {
                    tokio::time::sleep(std::time::Duration::from_secs(30)).await;
                    "late"
                }),
            );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

fn tool(toml_text: &str) -> switchboard_server::Tool {
    http_tool(&spec::<HttpToolSpec>(toml_text)).expect("the HTTP tool builds")
}

#[tokio::test]
async fn get_with_a_query_gives_structured_json() {
    let addr = serve().await;
    let t = tool(&format!(
        r#"
        name = "weather"
        description = "Current weather."
        url = "http://{addr}/weather{{?city,units}}"
        read_only = true
        [input_schema]
        type = "object"
        properties.city = {{ type = "string" }}
        properties.units = {{ type = "string", enum = ["metric", "imperial"] }}
        required = ["city"]
        "#
    ));
    let mut c = client(vec![t]).await;
    let r = c.call_tool("weather", json!({"city": "Zürich & co"})).await.unwrap();
    assert!(!is_error(&r), "{r}");
    assert_eq!(r["structuredContent"], json!({"query": {"city": "Zürich & co"}, "temp": 21}));
    let copy: Value = serde_json::from_str(text(&r)).unwrap();
    assert_eq!(copy, r["structuredContent"]);
    let r = c.call_tool("weather", json!({"city": "Oslo", "units": "metric"})).await.unwrap();
    assert_eq!(r["structuredContent"]["query"], json!({"city": "Oslo", "units": "metric"}));
    // Schema validation is the server's.
    let r = c.call_tool("weather", json!({"city": "Oslo", "units": "kelvin"})).await.unwrap();
    assert!(is_error(&r), "{r}");
}

#[tokio::test]
async fn post_sends_the_other_arguments_as_json_with_headers_from_the_environment() {
    let addr = serve().await;
    let t = tool(&format!(
        r#"
        name = "create"
        url = "http://{addr}/items/{{id}}"
        method = "post"
        body = "json"
        headers = {{ Authorization = "Bearer ${{CARGO_PKG_NAME}}" }}
        [input_schema]
        type = "object"
        properties.id = {{ type = "string" }}
        properties.label = {{ type = "string" }}
        properties.count = {{ type = "integer" }}
        "#
    ));
    let mut c = client(vec![t]).await;
    let r = c.call_tool("create", json!({"id": "a/b", "label": "new", "count": 2})).await.unwrap();
    assert!(!is_error(&r), "{r}");
    assert_eq!(
        r["structuredContent"],
        json!({"id": "a/b", "body": {"label": "new", "count": 2}, "auth": "Bearer switchboard-tools",
               "contentType": "application/json"})
    );
}

#[tokio::test]
async fn non_json_and_non_object_bodies_are_text() {
    let addr = serve().await;
    let list = tool(&format!("name = \"list\"\nurl = \"http://{addr}/list\""));
    let plain = tool(&format!("name = \"plain\"\nurl = \"http://{addr}/text\""));
    let big = tool(&format!("name = \"big\"\nurl = \"http://{addr}/big\"\nmax_response = 100"));
    let mut c = client(vec![list, plain, big]).await;
    let r = c.call_tool("list", json!({})).await.unwrap();
    assert_eq!(text(&r), "[1,2,3]");
    assert!(r.get("structuredContent").is_none(), "{r}");
    let r = c.call_tool("plain", json!({})).await.unwrap();
    assert_eq!(text(&r), "plain words");
    let r = c.call_tool("big", json!({})).await.unwrap();
    assert!(!is_error(&r), "{r}");
    let notice = "[response truncated: showing the first 100 bytes of 5000 bytes; \
                  the tool's max_response limit is 100 bytes]";
    assert_eq!(text(&r), format!("{}\n{notice}", "x".repeat(100)));
}

#[tokio::test]
async fn a_large_body_is_an_error_when_the_tool_says_so() {
    let addr = serve().await;
    let big = tool(&format!(
        "name = \"big\"\nurl = \"http://{addr}/big\"\nmax_response = 100\non_large_output = \"error\""
    ));
    let mut c = client(vec![big]).await;
    let r = c.call_tool("big", json!({})).await.unwrap();
    assert!(is_error(&r), "{r}");
    assert!(
        text(&r).starts_with(
            "big: the response is 5000 bytes, more than the tool's max_response limit of 100 bytes"
        ),
        "{r}"
    );
}

#[tokio::test]
async fn error_statuses_timeouts_and_refused_connections_are_tool_errors() {
    let addr = serve().await;
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let missing = tool(&format!("name = \"missing\"\nurl = \"http://{addr}/missing\""));
    let slow = tool(&format!("name = \"slow\"\nurl = \"http://{addr}/slow\"\ntimeout = \"1s\""));
    let refused = tool(&format!("name = \"refused\"\nurl = \"http://{closed}/x\""));
    let mut c = client(vec![missing, slow, refused]).await;

    let r = c.call_tool("missing", json!({})).await.unwrap();
    assert!(is_error(&r), "{r}");
    assert!(text(&r).contains("HTTP 404 Not Found: no such thing here"), "{r}");
    let r = c.call_tool("slow", json!({})).await.unwrap();
    assert!(is_error(&r), "{r}");
    assert!(text(&r).contains("timed out after 1 s"), "{r}");
    let r = c.call_tool("refused", json!({})).await.unwrap();
    assert!(is_error(&r), "{r}");
    assert!(text(&r).contains("could not connect"), "{r}");
}

#[test]
fn bad_specs_fail_at_load_naming_the_tool() {
    let cases = [
        ("name = \"m\"\nurl = \"http://127.0.0.1/\"\nmethod = \"TRACE\"", "unsupported method \"TRACE\""),
        ("name = \"u\"\nurl = \"http://127.0.0.1/{unclosed\"", "bad url"),
        ("name = \"s\"\nurl = \"ftp://127.0.0.1/x\"", "http:// or https://"),
        ("name = \"v\"\nurl = \"http://127.0.0.1/{who}\"", "placeholder {who} in url"),
        (
            "name = \"h\"\nurl = \"http://127.0.0.1/\"\nheaders = { X-Token = \"${SWITCHBOARD_SURELY_UNSET_TOKEN}\" }",
            "${SWITCHBOARD_SURELY_UNSET_TOKEN}, which is not set",
        ),
        (
            "name = \"n\"\nurl = \"http://127.0.0.1/\"\nheaders = { \"bad header\" = \"x\" }",
            "header \"bad header\"",
        ),
        (
            "name = \"i\"\nurl = \"http://127.0.0.1/\"\ninput_schema = { type = \"array\" }",
            "invalid input_schema",
        ),
        ("name = \"t\"\nurl = \"http://127.0.0.1/\"\ntimeout = \"0ms\"", "timeout: must be more than zero"),
        (
            "name = \"r\"\nurl = \"http://127.0.0.1/\"\nmax_response = 0",
            "max_response: must be more than zero",
        ),
    ];
    for (toml_text, expected) in cases {
        let e: ToolsError = http_tool(&spec::<HttpToolSpec>(toml_text)).expect_err(toml_text);
        let e = e.to_string();
        let name = toml_text.split('"').nth(1).unwrap();
        assert!(e.contains(&format!("tool \"{name}\"")), "{e}");
        assert!(e.contains(expected), "{e}");
    }
    let e = toml::from_str::<HttpToolSpec>("name = \"b\"\nurl = \"http://127.0.0.1/\"\nbody = \"xml\"")
        .unwrap_err()
        .to_string();
    assert!(e.contains("json"), "{e}");
    let s: HttpToolSpec = spec("name = \"d\"\nurl = \"http://127.0.0.1/\"");
    assert_eq!((s.method.as_str(), s.max_response, s.timeout.as_secs()), ("GET", 1048576, 30));
}

/// Starts `app` on a free loopback port.
async fn start(app: axum::Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

#[tokio::test]
async fn redirects_are_followed_within_the_origin_only_so_configured_headers_never_leave_it() {
    use axum::response::Redirect;
    use std::sync::{Arc, Mutex};
    // Another origin, which records every request that reaches it.
    let reached = Arc::new(Mutex::new(Vec::<String>::new()));
    let log = Arc::clone(&reached);
    let elsewhere = start(axum::Router::new().route(
        "/catch",
        get(move |headers: HeaderMap| async move {
            log.lock().unwrap().push(format!("{:?}", headers.get("x-api-key")));
            "caught"
        }),
    ))
    .await;
    let api = start(
        axum::Router::new()
            .route("/here", get(|| async { Redirect::temporary("/landed") }))
            .route(
                "/landed",
                get(|headers: HeaderMap| async move {
                    let key = headers.get("x-api-key").and_then(|v| v.to_str().ok()).unwrap_or("");
                    Json(json!({"landed": true, "key": key}))
                }),
            )
            .route(
                "/away",
                get(move || async move { Redirect::temporary(&format!("http://{elsewhere}/catch")) }),
            ),
    )
    .await;
    let tool_at = |name: &str, path: &str| {
        tool(&format!(
            "name = \"{name}\"\nurl = \"http://{api}{path}\"\nheaders = {{ X-Api-Key = \"${{CARGO_PKG_NAME}}\" }}"
        ))
    };
    let mut c = client(vec![tool_at("here", "/here"), tool_at("away", "/away")]).await;

    let r = c.call_tool("here", json!({})).await.unwrap();
    assert!(!is_error(&r), "a redirect within the origin is followed: {r}");
    assert_eq!(r["structuredContent"], json!({"landed": true, "key": "switchboard-tools"}), "{r}");

    let r = c.call_tool("away", json!({})).await.unwrap();
    assert!(is_error(&r), "{r}");
    let said = text(&r);
    assert!(said.contains("307") && said.contains(&format!("http://{elsewhere}/catch")), "{r}");
    assert!(said.contains("not followed"), "{r}");
    assert!(
        reached.lock().unwrap().is_empty(),
        "the other origin was reached: {:?}",
        reached.lock().unwrap()
    );
}
