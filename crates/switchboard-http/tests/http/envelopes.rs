//! A POST body that is no valid JSON-RPC message is `400` with a JSON-RPC
//! error on every path: a legacy session, legacy without sessions, and
//! 2026-07-28. Streamable HTTP: "If the server cannot accept the input, it
//! MUST return an HTTP error status code (e.g., 400 Bad Request)". Valid
//! bodies keep their `200`/`202`. One table of bodies, three eras.

use serde_json::{Value, json};
use switchboard_http::HttpOptions;
use switchboard_server::{CallToolResult, Server, Tool};

use crate::support::Serving;

/// The three ways a POST is served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Era {
    /// An `initialize`-era session (2025-11-25 unless said otherwise).
    Session,
    /// Legacy without sessions (`legacy_sessions: false`).
    Sessionless,
    /// 2026-07-28, stateless.
    PerRequest,
}

const ERAS: [Era; 3] = [Era::Session, Era::Sessionless, Era::PerRequest];

struct Running {
    era: Era,
    url: String,
    client: reqwest::Client,
    /// The legacy revision spoken (header and session).
    version: &'static str,
    session: Option<String>,
    _serving: Serving,
}

fn server() -> Server {
    Server::builder("envelopes", "1")
        .tool(
            Tool::new("echo")
                .description("echo")
                .input_schema(json!({"type": "object"}))
                .raw_handler(|args, _| async move { Ok(CallToolResult::text(args["text"].to_string())) }),
        )
        .build()
        .unwrap()
}

async fn start(era: Era, version: &'static str) -> Running {
    let mut options = HttpOptions::default();
    options.legacy_sessions = era != Era::Sessionless;
    let serving = Serving::start(server(), options).await;
    let mut running = Running {
        era,
        url: serving.url.clone(),
        client: reqwest::Client::new(),
        version,
        session: None,
        _serving: serving,
    };
    if era == Era::Session {
        running.session = Some(running.open_session().await);
    }
    running
}

fn initialize(jsonrpc: &str, version: &str) -> String {
    json!({"jsonrpc": jsonrpc, "id": 0, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    .to_string()
}

impl Running {
    /// A POST with what a client of the era sends (the session id, the
    /// protocol version header, the 2026-07-28 mirrored headers).
    fn post(&self, body: impl Into<reqwest::Body>) -> reqwest::RequestBuilder {
        let b = self
            .client
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body);
        let b = match &self.session {
            Some(sid) => b.header("mcp-session-id", sid),
            None => b,
        };
        match self.era {
            Era::PerRequest => {
                b.header("mcp-protocol-version", "2026-07-28").header("mcp-method", "tools/list")
            }
            Era::Session | Era::Sessionless => b.header("mcp-protocol-version", self.version),
        }
    }

    async fn open_session(&self) -> String {
        let r = self.post(initialize("2.0", self.version)).send().await.unwrap();
        assert_eq!(r.status(), 200);
        let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_owned();
        let r = self
            .post(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .header("mcp-session-id", &sid)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 202);
        sid
    }

    /// A valid `tools/list` request of the era, with this id.
    fn list(&self, id: i64) -> String {
        let params = match self.era {
            Era::PerRequest => json!({"_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}}}),
            Era::Session | Era::Sessionless => json!({}),
        };
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params}).to_string()
    }

    /// A valid request still gets its result: the server (and the session)
    /// kept serving.
    async fn still_serving(&self) {
        let r = self.post(self.list(77)).send().await.unwrap();
        assert_eq!(r.status(), 200, "{:?}", self.era);
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["id"], 77, "{body}");
        assert!(body["result"]["tools"].is_array(), "{body}");
    }
}

/// `400`, `application/json`, one JSON-RPC error with `code` addressed to
/// `id` (`null` included).
async fn assert_refused(r: reqwest::Response, code: i64, id: &Value, what: &str) {
    assert_eq!(r.status(), 400, "{what}");
    assert_eq!(r.headers()["content-type"], "application/json", "{what}");
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["jsonrpc"], "2.0", "{what}: {body}");
    assert_eq!(body["error"]["code"], code, "{what}: {body}");
    assert_eq!(body.get("id"), Some(id), "{what}: {body}");
    assert!(body.get("result").is_none(), "{what}: {body}");
}

/// Bodies no revision accepts over HTTP, with the error code and the id of
/// the answer.
fn bad_envelopes() -> Vec<(&'static [u8], i64, Value)> {
    let invalid = -32600;
    let parse = -32700;
    vec![
        // The wrong or no `jsonrpc`: the id can be read, so it is echoed.
        (br#"{"jsonrpc":"1.0","id":5,"method":"tools/list"}"#, invalid, json!(5)),
        (br#"{"id":"six","method":"tools/list"}"#, invalid, json!("six")),
        (br#"{"jsonrpc":"2.00","id":7,"method":"tools/list"}"#, invalid, json!(7)),
        (br#"{"jsonrpc":2,"id":8,"method":"tools/list"}"#, invalid, Value::Null),
        // An id that is no id: answered to `null`.
        (br#"{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}"#, invalid, Value::Null),
        (br#"{"jsonrpc":"2.0","id":[1],"method":"tools/list"}"#, invalid, Value::Null),
        (br#"{"jsonrpc":"2.0","id":true,"method":"tools/list"}"#, invalid, Value::Null),
        (br#"{"jsonrpc":"2.0","id":null,"method":"tools/list"}"#, invalid, Value::Null),
        (br#"{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}"#, invalid, Value::Null),
        // No method, a method that is not a string (the message does not
        // read as an envelope at all, so its id is not read either), params
        // that are not structured.
        (br#"{"jsonrpc":"2.0","id":11}"#, invalid, json!(11)),
        (br#"{"jsonrpc":"2.0","id":10,"method":7}"#, invalid, Value::Null),
        (br#"{"jsonrpc":"2.0","id":12,"method":"tools/list","params":3}"#, invalid, json!(12)),
        // Notifications are refused too, with no id.
        (br#"{"jsonrpc":"1.0","method":"notifications/initialized"}"#, invalid, Value::Null),
        (br#"{"method":"notifications/cancelled","params":{"requestId":1}}"#, invalid, Value::Null),
        // JSON that is no message.
        (b"{}", invalid, Value::Null),
        (b"42", invalid, Value::Null),
        (br#""tools/list""#, invalid, Value::Null),
        (b"null", invalid, Value::Null),
        (b"true", invalid, Value::Null),
        (b"[]", invalid, Value::Null),
        // A batch, which none of these revisions takes (2025-03-26 only).
        (br#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]"#, invalid, Value::Null),
        // Not JSON.
        (b"{not json", parse, Value::Null),
        (br#"{"jsonrpc":"2.0","id":1,"#, parse, Value::Null),
        (br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"} trailing"#, parse, Value::Null),
        (b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/l\xffst\"}", parse, Value::Null),
        (b"", parse, Value::Null),
    ]
}

#[tokio::test]
async fn invalid_envelopes_are_400_with_a_json_rpc_error_in_every_era() {
    for era in ERAS {
        let s = start(era, "2025-11-25").await;
        for (body, code, id) in bad_envelopes() {
            let what = format!("{era:?}: {}", String::from_utf8_lossy(body));
            let r = s.post(body).send().await.unwrap();
            assert_refused(r, code, &id, &what).await;
            s.still_serving().await;
        }
    }
}

#[tokio::test]
async fn valid_envelopes_keep_200_and_202_in_every_era() {
    for era in ERAS {
        let s = start(era, "2025-11-25").await;
        let r = s.post(s.list(3)).send().await.unwrap();
        assert_eq!(r.status(), 200, "{era:?}: request");
        assert_eq!(r.json::<Value>().await.unwrap()["id"], 3, "{era:?}");

        let note = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}"#;
        let r = s.post(note).send().await.unwrap();
        assert_eq!(r.status(), 202, "{era:?}: notification");
        assert!(r.bytes().await.unwrap().is_empty(), "{era:?}: 202 has no body");

        // A response: legacy clients answer server requests this way; a
        // 2026-07-28 server sends none, so it cannot take one (no client responses in 2026-07-28).
        let r = s.post(r#"{"jsonrpc":"2.0","id":99,"result":{}}"#).send().await.unwrap();
        if era == Era::PerRequest {
            assert_refused(r, -32600, &Value::Null, "2026-07-28 response").await;
        } else {
            assert_eq!(r.status(), 202, "{era:?}: response");
        }
    }
}

#[tokio::test]
async fn an_invalid_initialize_is_400_and_opens_no_session() {
    for era in [Era::Session, Era::Sessionless] {
        let s = start(era, "2025-11-25").await;
        let r = s
            .client
            .post(&s.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(initialize("1.0", "2025-11-25"))
            .send()
            .await
            .unwrap();
        assert!(r.headers().get("mcp-session-id").is_none(), "{era:?}");
        assert_refused(r, -32600, &json!(0), &format!("{era:?}")).await;
    }
}

/// 2025-03-26 takes batches: each element is answered on its own (JSON-RPC
/// 2.0 §6), so a batch with requests is `200` with per-element errors, and
/// one without requests is `202`, or `400` when an element was refused.
#[tokio::test]
async fn batches_in_2025_03_26_answer_element_by_element() {
    for era in [Era::Session, Era::Sessionless] {
        let s = start(era, "2025-03-26").await;
        let r = s
            .post(r#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":null,"method":"ping"}]"#)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{era:?}: a batch with a request");
        let replies: Value = r.json().await.unwrap();
        let replies = replies.as_array().unwrap();
        assert_eq!(replies.len(), 2, "{era:?}: {replies:?}");
        assert!(replies.iter().any(|m| m["id"] == 1 && m["result"]["tools"].is_array()), "{replies:?}");
        assert!(replies.iter().any(|m| m["id"].is_null() && m["error"]["code"] == -32600), "{replies:?}");

        let r = s
            .post(r#"[{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}},{"jsonrpc":"2.0","id":9,"result":{}}]"#)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 202, "{era:?}: notifications and responses");

        let r = s.post(r#"[1,{"jsonrpc":"2.0","id":null,"method":"ping"}]"#).send().await.unwrap();
        assert_eq!(r.status(), 400, "{era:?}: nothing acceptable");
        let errors: Value = r.json().await.unwrap();
        assert_eq!(errors.as_array().map(Vec::len), Some(2), "{errors}");
        assert!(errors.as_array().unwrap().iter().all(|e| e["error"]["code"] == -32600), "{errors}");

        let r = s.post("[]").send().await.unwrap();
        assert_refused(r, -32600, &Value::Null, &format!("{era:?}: empty batch")).await;
    }
}
