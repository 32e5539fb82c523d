//! Builds and runs the example binary, then talks to it over stdio as a
//! client would: newline-delimited JSON-RPC on its stdin and stdout.

use std::io::Write;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use switchboard_testkit::process::StdioProcess;

use serde_json::{Value, json};

/// Starts the binary and completes the `initialize` handshake.
fn start(args: &[&str]) -> StdioProcess {
    let mut command = Command::new(env!("CARGO_BIN_EXE_example-weather"));
    command.args(args);
    StdioProcess::initialized(command, "2025-06-18")
}

#[test]
fn lists_the_tool_with_its_output_schema() {
    let mut c = start(&[]);
    let tools = c.result("tools/list", json!({}));
    let forecast = &tools["tools"][0];
    assert_eq!(forecast["name"], "forecast");
    assert_eq!(forecast["inputSchema"]["required"], json!(["city", "days"]));
    assert_eq!(forecast["inputSchema"]["properties"]["days"]["maximum"], 7);
    let output = &forecast["outputSchema"];
    assert_eq!(output["type"], "object");
    assert_eq!(output["required"], json!(["city", "days"]));
    assert!(output["$defs"]["Day"]["properties"]["high_celsius"].is_object(), "{output}");
}

#[test]
fn a_call_returns_structured_content() {
    let mut c = start(&[]);
    let r = c.result("tools/call", json!({"name": "forecast", "arguments": {"city": "Lisbon", "days": 3}}));
    assert_ne!(r["isError"], true, "{r}");
    let data = &r["structuredContent"];
    assert_eq!(data["city"], "Lisbon");
    assert_eq!(data["days"].as_array().unwrap().len(), 3);
    assert_eq!(data["days"][2]["offset"], 2);
    // The same data as text, for clients that do not read structuredContent.
    let text: Value = serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(&text, data);
    // Deterministic: asking again gives the same forecast.
    let again =
        c.result("tools/call", json!({"name": "forecast", "arguments": {"city": "Lisbon", "days": 3}}));
    assert_eq!(again["structuredContent"], *data);
}

#[test]
fn bad_calls_are_errors() {
    let mut c = start(&[]);
    // Arguments outside the input schema: a tool result with isError.
    let r = c.result("tools/call", json!({"name": "forecast", "arguments": {"city": "Oslo", "days": 9}}));
    assert_eq!(r["isError"], true, "{r}");
    assert!(r["content"][0]["text"].as_str().unwrap().contains("/days"), "{r}");
    let r = c.result("tools/call", json!({"name": "forecast", "arguments": {"city": "Oslo"}}));
    assert_eq!(r["isError"], true, "{r}");
    // The tool's own refusal.
    let r = c.result("tools/call", json!({"name": "forecast", "arguments": {"city": " ", "days": 1}}));
    assert_eq!(r["isError"], true, "{r}");
    assert_eq!(r["content"][0]["text"], "city must not be empty");
    // An unknown tool: a JSON-RPC error.
    let r = c.request("tools/call", json!({"name": "nope", "arguments": {}}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
}

#[test]
fn reads_the_current_weather_resource() {
    let mut c = start(&[]);
    let templates = c.result("resources/templates/list", json!({}));
    assert_eq!(templates["resourceTemplates"][0]["uriTemplate"], "weather://{city}/current");
    let r = c.result("resources/read", json!({"uri": "weather://Oslo/current"}));
    let contents = &r["contents"][0];
    assert_eq!(contents["uri"], "weather://Oslo/current");
    assert_eq!(contents["mimeType"], "text/plain");
    assert!(contents["text"].as_str().unwrap().starts_with("Oslo: "), "{r}");
}

/// One HTTP/1.1 POST to `/mcp` (`Connection: close`); the response's head and body.
fn post(port: u16, session: Option<&str>, body: &Value) -> (String, String) {
    use std::io::Read;
    let deadline = Instant::now() + StdioProcess::WAIT;
    // The server may still be binding its port.
    let mut stream = loop {
        match std::net::TcpStream::connect(("127.0.0.1", port)) {
            Ok(stream) => break stream,
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => panic!("the HTTP server does not accept connections: {e}"),
        }
    };
    stream.set_read_timeout(Some(StdioProcess::WAIT)).unwrap();
    let body = body.to_string();
    let session = session.map(|s| format!("Mcp-Session-Id: {s}\r\nMCP-Protocol-Version: 2025-06-18\r\n"));
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n{}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        session.unwrap_or_default(),
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("a complete response in time");
    let (head, body) = response.split_once("\r\n\r\n").expect("an HTTP response");
    assert!(!head.to_lowercase().contains("transfer-encoding: chunked"), "{head}");
    (head.to_owned(), body.to_owned())
}

#[test]
fn serves_streamable_http_with_the_flag() {
    // A port that was free a moment ago.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let _server = KillOnDrop(
        Command::new(env!("CARGO_BIN_EXE_example-weather"))
            .args(["--http", &format!("127.0.0.1:{port}")])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}});
    let (head, body) = post(port, None, &init);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let session = head
        .lines()
        .find_map(|l| l.split_once(':').filter(|(name, _)| name.eq_ignore_ascii_case("mcp-session-id")))
        .map(|(_, value)| value.trim().to_owned())
        .expect("a session id");
    let init: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(init["result"]["serverInfo"]["name"], "weather", "{init}");
    let (head, _) =
        post(port, Some(&session), &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    assert!(head.starts_with("HTTP/1.1 202"), "{head}");
    let (_, body) = post(port, Some(&session), &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let list: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(list["result"]["tools"][0]["outputSchema"]["type"], "object", "{list}");
}

/// Kills the child when the test ends, passed or not.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
