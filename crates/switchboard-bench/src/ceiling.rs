//! The bare ceilings: the least work a server can do for the echo
//! workload (parse the JSON-RPC request, serialize the result), to measure
//! how close switchboard gets to the machine's own limit.

use std::convert::Infallible;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Request, Response};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// The answer to one JSON-RPC message (None for notifications).
pub(crate) fn answer(message: &Value) -> Option<Value> {
    let id = message.get("id")?.clone();
    let result = match message["method"].as_str() {
        Some("initialize") => json!({
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "ceiling", "version": "1"}
        }),
        _ => {
            let text = message["params"]["arguments"]["message"].as_str().unwrap_or_default();
            json!({"content": [{"type": "text", "text": text}]})
        }
    };
    Some(json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

/// Serves the HTTP ceiling on 127.0.0.1:`port` until killed.
pub(crate) fn http(port: u16) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
        println!("ceiling listening on http://{}/mcp", listener.local_addr()?);
        loop {
            let (tcp, _) = listener.accept().await?;
            tcp.set_nodelay(true)?;
            tokio::spawn(async move {
                let service =
                    hyper::service::service_fn(|request: Request<hyper::body::Incoming>| async move {
                        let body =
                            request.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
                        let reply = serde_json::from_slice::<Value>(&body).ok().and_then(|m| answer(&m));
                        let bytes =
                            reply.map(|r| serde_json::to_vec(&r).unwrap_or_default()).unwrap_or_default();
                        let response = Response::builder()
                            .header("content-type", "application/json")
                            .body(Full::new(Bytes::from(bytes)))
                            .expect("a valid response");
                        Ok::<_, Infallible>(response)
                    });
                let io = hyper_util::rt::TokioIo::new(tcp);
                let _ = hyper::server::conn::http1::Builder::new().serve_connection(io, service).await;
            });
        }
    })
}

/// Items and page size of the list the bench fixtures serve.
const LIST_ITEMS: usize = 10_000;
const LIST_PAGE: usize = 100;

/// The `result` of every `resources/list` page, rendered once: the list
/// ceiling costs one lookup and one copy per page, nothing else (cursors
/// are page numbers).
fn list_pages() -> Vec<Vec<u8>> {
    (0..LIST_ITEMS.div_ceil(LIST_PAGE))
        .map(|page| {
            let start = page * LIST_PAGE;
            let items: Vec<Value> = (start..(start + LIST_PAGE).min(LIST_ITEMS))
                .map(|i| {
                    json!({"uri": format!("mem://item/{i}"), "name": format!("item-{i}"),
                        "mimeType": "text/plain"})
                })
                .collect();
            let mut result = json!({"resources": items});
            if start + LIST_PAGE < LIST_ITEMS {
                result["nextCursor"] = json!((page + 1).to_string());
            }
            serde_json::to_vec(&result).expect("JSON serializes")
        })
        .collect()
}

/// A `resources/list` answer from the pre-rendered pages.
fn list_answer(message: &Value, pages: &[Vec<u8>]) -> Option<Vec<u8>> {
    let page: usize = message["params"]["cursor"].as_str().and_then(|c| c.parse().ok()).unwrap_or(0);
    let body = pages.get(page)?;
    let mut out = Vec::with_capacity(body.len() + 64);
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    serde_json::to_writer(&mut out, &message["id"]).ok()?;
    out.extend_from_slice(b",\"result\":");
    out.extend_from_slice(body);
    out.extend_from_slice(b"}\n");
    Some(out)
}

/// Serves the stdio ceiling until end of input.
pub(crate) fn stdio() -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    // Rendered on the first list request, so start-up stays bare.
    let mut pages: Option<Vec<Vec<u8>>> = None;
    runtime.block_on(async {
        // Pipes on the runtime's own thread, as switchboard reads them (not
        // through tokio's blocking pool).
        let mut lines = BufReader::new(switchboard_server::transport::StdinStream::new()).lines();
        let mut out = tokio::io::BufWriter::new(switchboard_server::transport::StdoutStream::new());
        while let Some(line) = lines.next_line().await? {
            let Ok(message) = serde_json::from_str::<Value>(&line) else { continue };
            let bytes = if message["method"] == "resources/list" {
                list_answer(&message, pages.get_or_insert_with(list_pages))
            } else {
                answer(&message).map(|reply| {
                    let mut bytes = serde_json::to_vec(&reply).expect("JSON serializes");
                    bytes.push(b'\n');
                    bytes
                })
            };
            if let Some(bytes) = bytes {
                out.write_all(&bytes).await?;
                // Flush when nothing more is waiting, as a real server would.
                if lines.get_ref().buffer().is_empty() {
                    out.flush().await?;
                }
            }
        }
        out.flush().await?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_initialize_and_echo_and_ignores_notifications() {
        let init = answer(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}}),
        );
        assert_eq!(init.unwrap()["result"]["protocolVersion"], "2025-06-18");
        let echo = answer(
            &json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "hi"}}}),
        );
        assert_eq!(
            echo.unwrap(),
            json!({"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": "hi"}]}})
        );
        assert!(answer(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).is_none());
    }

    #[test]
    fn the_list_ceiling_pages_through_every_item() {
        let pages = list_pages();
        let mut cursor: Option<String> = None;
        let mut seen = 0;
        for id in 0..200 {
            let params = cursor.as_ref().map_or_else(|| json!({}), |c| json!({"cursor": c}));
            let request = json!({"jsonrpc": "2.0", "id": id, "method": "resources/list", "params": params});
            let bytes = list_answer(&request, &pages).unwrap();
            let answer: Value = serde_json::from_slice(&bytes).unwrap();
            assert_eq!(answer["id"], id);
            seen += answer["result"]["resources"].as_array().unwrap().len();
            cursor = answer["result"]["nextCursor"].as_str().map(str::to_owned);
            if cursor.is_none() {
                break;
            }
        }
        assert_eq!(seen, LIST_ITEMS);
    }
}
