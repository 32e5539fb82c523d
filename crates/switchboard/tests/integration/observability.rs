//! `/metrics` on a real `switchboard serve --http` process: Prometheus counts and
//! latencies per method and per tool, behind the same checks as `/mcp`.

use serde_json::{Value, json};

use crate::common;

/// Starts `switchboard` with `args` (plus `--http 127.0.0.1:0`) in `dir`; returns
/// the child and the MCP URL it printed.
async fn start(
    args: &[&str],
    dir: &std::path::Path,
    env: &[(&str, &str)],
) -> (tokio::process::Child, String) {
    let args: Vec<&str> = args.iter().copied().chain(["--http", "127.0.0.1:0"]).collect();
    common::start_http(&args, Some(dir), env).await
}

/// A 2026-07-28 request (no session needed).
fn modern(id: u64, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "metrics-test", "version": "1"}
    });
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

async fn post(client: &reqwest::Client, url: &str, body: &Value, token: Option<&str>) -> reqwest::Response {
    let mut request = client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", body["method"].as_str().unwrap_or_default());
    if let Some(name) = body["params"]["name"].as_str() {
        request = request.header("mcp-name", name);
    }
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    request.body(body.to_string()).send().await.unwrap()
}

/// The value of the sample line that starts with `prefix`.
fn sample(text: &str, prefix: &str) -> Option<f64> {
    text.lines()
        .find(|l| l.starts_with(prefix))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
}

#[tokio::test]
async fn metrics_count_and_time_requests_per_method_and_tool() {
    let dir = tempfile::tempdir().unwrap();
    let (_child, url) = start(
        &["serve", "--fixtures", "bench", "--stateless", "--sse", "never", "--metrics"],
        dir.path(),
        &[],
    )
    .await;
    let client = reqwest::Client::new();
    let metrics_url = url.replace("/mcp", "/metrics");

    for id in 0..3 {
        let r = post(
            &client,
            &url,
            &modern(id, "tools/call", json!({"name": "echo", "arguments": {"message": "hi"}})),
            None,
        )
        .await;
        assert_eq!(r.status(), 200);
    }
    // Bad arguments: a tool error result; an unknown tool: a JSON-RPC error.
    post(&client, &url, &modern(10, "tools/call", json!({"name": "echo", "arguments": {}})), None).await;
    post(&client, &url, &modern(11, "tools/call", json!({"name": "nope", "arguments": {}})), None).await;
    post(&client, &url, &modern(12, "resources/list", json!({})), None).await;

    let response = client.get(&metrics_url).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert!(response.headers()["content-type"].to_str().unwrap().starts_with("application/openmetrics-text"));
    let text = response.text().await.unwrap();
    assert_eq!(
        sample(&text, r#"mcp_requests_total{method="tools/call",name="echo",outcome="ok"}"#),
        Some(3.0),
        "{text}"
    );
    assert_eq!(
        sample(&text, r#"mcp_requests_total{method="tools/call",name="echo",outcome="tool_error"}"#),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        sample(&text, r#"mcp_requests_total{method="tools/call",name="nope",outcome="error"}"#),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        sample(&text, r#"mcp_requests_total{method="resources/list",name="",outcome="ok"}"#),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        sample(&text, r#"mcp_request_duration_seconds_count{method="tools/call",name="echo"}"#),
        Some(4.0),
        "{text}"
    );
    assert!(
        text.contains(r#"mcp_request_duration_seconds_bucket{le="+Inf",method="tools/call",name="echo"}"#)
            || text.contains(
                r#"mcp_request_duration_seconds_bucket{method="tools/call",name="echo",le="+Inf"}"#
            ),
        "{text}"
    );
    assert!(text.trim_end().ends_with("# EOF"), "OpenMetrics text ends with # EOF");

    // Host checks apply: a foreign Host is refused.
    let r = client.get(&metrics_url).header("host", "evil.example").send().await.unwrap();
    assert_eq!(r.status(), 403);
}

#[tokio::test]
async fn metrics_from_the_configuration_need_the_token_when_auth_is_on_and_are_absent_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("switchboard.toml"),
        "[http]\nmetrics = true\n\n[http.auth]\nresource = \"http://127.0.0.1/mcp\"\nauthorization_servers = [\"https://auth.example.com\"]\n\n[[http.auth.tokens]]\nenv = \"SWITCHBOARD_TEST_SCRAPER\"\nsubject = \"prometheus\"\n",
    )
    .unwrap();
    let (_child, url) =
        start(&["serve", "--sse", "never"], dir.path(), &[("SWITCHBOARD_TEST_SCRAPER", "scrape-secret")])
            .await;
    let client = reqwest::Client::new();
    let metrics_url = url.replace("/mcp", "/metrics");
    let r = client.get(&metrics_url).send().await.unwrap();
    assert_eq!(r.status(), 401);
    assert!(r.headers()["www-authenticate"].to_str().unwrap().contains("resource_metadata="));
    let r = post(&client, &url, &modern(1, "tools/list", json!({})), Some("scrape-secret")).await;
    assert_eq!(r.status(), 200);
    let r = client.get(&metrics_url).bearer_auth("scrape-secret").send().await.unwrap();
    assert_eq!(r.status(), 200);
    let text = r.text().await.unwrap();
    assert_eq!(
        sample(&text, r#"mcp_requests_total{method="tools/list",name="",outcome="ok"}"#),
        Some(1.0),
        "{text}"
    );

    // Without metrics configured there is no endpoint.
    let plain = tempfile::tempdir().unwrap();
    let (_child, url) = start(&["serve", "--sse", "never"], plain.path(), &[]).await;
    let r = client.get(url.replace("/mcp", "/metrics")).send().await.unwrap();
    assert_eq!(r.status(), 404);
}

/// The targets of the DEBUG/TRACE lines in `stderr` (a `fmt` line is
/// `TIME LEVEL [span{fields}: ]target: message`).
fn verbose_targets(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter_map(|line| {
            let mut fields = line.splitn(3, char::is_whitespace);
            let (_time, mut level) = (fields.next()?, fields.next()?);
            let mut rest = fields.next()?;
            if level.is_empty() {
                // `fmt` pads INFO and WARN with a space; DEBUG has none.
                (level, rest) = rest.split_once(' ')?;
            }
            // Skip the span contexts (`name{fields}: `) before the target.
            while rest.split(':').next()?.contains('{') {
                rest = rest.split_once("}: ")?.1;
            }
            let target = rest.split(':').next()?;
            matches!(level, "DEBUG" | "TRACE").then(|| target.to_owned())
        })
        .collect()
}

/// Serves a folder whose `.gitignore` makes the `ignore` and `globset`
/// crates log at debug, lists its resources, and returns stderr.
fn stderr_of_a_listing(log: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(".gitignore"), "*.tmp\n").unwrap();
    std::fs::write(dir.path().join("a.txt"), "a").unwrap();
    let mut sb =
        common::Switchboard::start_with_env(&["serve", "."], dir.path(), &[("SWITCHBOARD_LOG", log)]);
    sb.result("resources/list", json!({}));
    let stderr = sb.wait_stderr("DEBUG switchboard_server");
    sb.finish();
    stderr
}

#[test]
fn a_bare_log_level_is_switchboards_and_dependencies_stay_at_warn() {
    let stderr = stderr_of_a_listing("debug");
    let targets = verbose_targets(&stderr);
    assert!(targets.iter().any(|t| t.starts_with("switchboard")), "{stderr}");
    let foreign: Vec<&String> = targets.iter().filter(|t| !t.starts_with("switchboard")).collect();
    assert!(foreign.is_empty(), "dependency debug lines with a bare level: {foreign:?}\n{stderr}");

    // A directive that names a dependency still reaches it.
    let stderr = stderr_of_a_listing("debug,ignore=debug");
    assert!(verbose_targets(&stderr).iter().any(|t| t.starts_with("ignore")), "{stderr}");
}
