//! A minimal MCP client to one upstream server: requests matched to
//! answers by id, notifications handed on, and the two transports.
//!
//! - **stdio**: the upstream is a child process speaking newline-delimited
//!   JSON-RPC on its stdin/stdout (its stderr is passed through). One task
//!   writes, one reads. The child runs in a process group of its own,
//!   registered with `switchboard-process`: the group (the child and whatever it
//!   started) is killed when the client is dropped, and by
//!   `switchboard_process::kill_all` when the program stops.
//! - **HTTP**: each request is a POST to the Streamable HTTP endpoint; the
//!   answer is JSON or an SSE stream whose messages (progress, then the
//!   response) are read to its end. The `Mcp-Session-Id` the upstream mints
//!   at `initialize` is sent with every later request, and the session's
//!   GET stream is kept open (reopened after a drop, with `Last-Event-ID`)
//!   for the upstream's own notifications: list changes, resource updates.
//!
//! The upstream's own requests to us (sampling, elicitation, roots) go to
//! the handler set with [`Upstream::on_request`], with the id of our
//! request they belong to when the transport says so (over HTTP, a request
//! that arrives on the stream answering one of ours belongs to it; stdio
//! carries no such link). Without a handler they are answered `-32601`.
//! `ping` is always answered.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{Value, json};
use switchboard_types::{ErrorObject, ProtocolVersion};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{broadcast, mpsc, oneshot, watch};

use crate::Error;

/// The protocol revision the proxy asks the upstream for: the newest one
/// negotiated with `initialize`, the handshake the proxy speaks.
pub(crate) const UPSTREAM_VERSION: &str = ProtocolVersion::LATEST_HANDSHAKE.as_str();

type Pending = Arc<Mutex<HashMap<i64, oneshot::Sender<Result<Value, ErrorObject>>>>>;

/// A request the upstream server sent us (`elicitation/create`,
/// `sampling/createMessage`, `roots/list`, …).
#[derive(Debug, Clone)]
pub struct UpstreamRequest {
    /// Its JSON-RPC method.
    pub method: String,
    /// Its params (`{}` when it had none).
    pub params: Value,
    /// The id of our request it belongs to, when the transport tells: over
    /// HTTP, the request whose answer stream carried it. `None` over stdio
    /// and on the session's own stream.
    pub related: Option<i64>,
}

/// Answers the upstream's requests ([`Upstream::on_request`]).
pub type RequestHandler =
    Arc<dyn Fn(UpstreamRequest) -> BoxFuture<'static, Result<Value, ErrorObject>> + Send + Sync>;

/// Takes the params of the upstream's `notifications/progress` in the
/// order they arrive ([`Upstream::on_progress`]).
pub type ProgressSink = Arc<dyn Fn(Value) + Send + Sync>;

enum Link {
    Stdio {
        outgoing: mpsc::UnboundedSender<Vec<u8>>,
        _child: Arc<Mutex<tokio::process::Child>>,
        /// Kills the child's process group when the link is dropped (or
        /// at [`Upstream::shutdown`]).
        group: Mutex<switchboard_process::Group>,
    },
    Http {
        client: reqwest::Client,
        url: String,
        session: Arc<Mutex<Option<String>>>,
    },
}

/// A connection to the upstream server. Cheap to clone.
#[derive(Clone)]
pub struct Upstream {
    link: Arc<Link>,
    pending: Pending,
    next_id: Arc<AtomicI64>,
    notifications: broadcast::Sender<Value>,
    timeout: Duration,
    /// Set (with the reason) once the upstream is gone: its output closed,
    /// it could not be reached, or it ended our session.
    closed: Arc<watch::Sender<Option<String>>>,
    /// Answers the upstream's requests to us.
    requests: Arc<Mutex<Option<RequestHandler>>>,
    /// Takes its progress notifications, in order, before the answers that follow them.
    progress: Arc<Mutex<Option<ProgressSink>>>,
}

impl std::fmt::Debug for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upstream").finish_non_exhaustive()
    }
}

impl Upstream {
    /// Starts `program` with `args` and speaks MCP over its stdin/stdout.
    pub fn spawn(program: &str, args: &[String]) -> Result<Self, Error> {
        let mut command = tokio::process::Command::new(program);
        command.args(args);
        Self::from_command(command, program)
    }

    /// Starts `command` (its program, arguments, environment and working
    /// directory as the caller set them; `label` names it in errors) and
    /// speaks MCP over its stdin/stdout, in a process group of its own.
    pub fn from_command(mut command: tokio::process::Command, label: &str) -> Result<Self, Error> {
        command
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::inherit())
            .kill_on_drop(true);
        let (mut child, group) =
            switchboard_process::spawn(&mut command).map_err(|e| Error::Spawn(label.to_owned(), e))?;
        let mut stdin = child.stdin.take().ok_or_else(|| Error::Upstream("no stdin".into()))?;
        let stdout = child.stdout.take().ok_or_else(|| Error::Upstream("no stdout".into()))?;
        let (outgoing, mut queue) = mpsc::unbounded_channel::<Vec<u8>>();
        tokio::spawn(async move {
            while let Some(bytes) = queue.recv().await {
                if stdin.write_all(&bytes).await.is_err() || stdin.flush().await.is_err() {
                    break;
                }
            }
        });
        let upstream = Self::with_link(Link::Stdio {
            outgoing,
            _child: Arc::new(Mutex::new(child)),
            group: Mutex::new(group),
        });
        let reader = upstream.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                match serde_json::from_str::<Value>(&line) {
                    Ok(message) => reader.on_message(message, None),
                    Err(e) => tracing::warn!(error = %e, "unreadable line from the upstream server"),
                }
            }
            reader.fail_all("the upstream server closed its output");
            reader.mark_closed("the upstream server exited (its output closed)");
        });
        Ok(upstream)
    }

    /// Speaks MCP to the Streamable HTTP endpoint at `url`.
    pub fn http(url: &str) -> Result<Self, Error> {
        Self::http_with_headers(url, &[])
    }

    /// [`Upstream::http`], sending `headers` with every request (values
    /// are marked sensitive: they never appear in debug output).
    pub fn http_with_headers(url: &str, headers: &[(String, String)]) -> Result<Self, Error> {
        let mut map = reqwest::header::HeaderMap::new();
        for (name, value) in headers {
            let name = reqwest::header::HeaderName::from_bytes(name.as_bytes())
                .map_err(|e| Error::Upstream(format!("header name {name:?}: {e}")))?;
            let mut value = reqwest::header::HeaderValue::from_str(value).map_err(|_| {
                Error::Upstream(format!("the value of header {name} is not a valid header value"))
            })?;
            value.set_sensitive(true);
            map.insert(name, value);
        }
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .default_headers(map)
            .build()
            .map_err(|e| Error::Upstream(e.to_string()))?;
        Ok(Self::with_link(Link::Http { client, url: url.to_owned(), session: Arc::default() }))
    }

    fn with_link(link: Link) -> Self {
        Self {
            link: Arc::new(link),
            pending: Arc::default(),
            next_id: Arc::new(AtomicI64::new(1)),
            notifications: broadcast::channel(1024).0,
            timeout: Duration::from_secs(600),
            closed: Arc::new(watch::channel(None).0),
            requests: Arc::default(),
            progress: Arc::default(),
        }
    }

    /// Hands the upstream's progress notifications to `sink` (instead of
    /// [`Upstream::notifications`]) as each is read: a progress that came
    /// before an answer is in the sink before that answer is delivered.
    pub fn on_progress(&self, sink: ProgressSink) {
        *self.progress.lock().expect("progress lock") = Some(sink);
    }

    /// Answers the upstream's requests to us with `handler` from now on.
    /// Set it before [`Upstream::initialize`] so the handshake declares the
    /// client capabilities the handler serves.
    pub fn on_request(&self, handler: RequestHandler) {
        *self.requests.lock().expect("requests lock") = Some(handler);
    }

    /// Waits until the upstream is gone; returns why.
    pub async fn closed(&self) -> String {
        let mut rx = self.closed.subscribe();
        loop {
            if let Some(reason) = rx.borrow_and_update().clone() {
                return reason;
            }
            if rx.changed().await.is_err() {
                return "the upstream connection was dropped".to_owned();
            }
        }
    }

    /// Why the upstream is gone, if it is.
    pub fn closed_reason(&self) -> Option<String> {
        self.closed.borrow().clone()
    }

    /// Ends the connection now: a stdio upstream's process group (the
    /// child and whatever it started) is killed; an HTTP upstream is
    /// marked closed. Pending requests fail.
    pub fn shutdown(&self) {
        if let Link::Stdio { group, .. } = &*self.link {
            group.lock().expect("group lock").kill();
        }
        self.fail_all("the upstream connection was shut down");
        self.mark_closed("shut down");
    }

    fn mark_closed(&self, reason: &str) {
        self.closed.send_if_modified(|current| {
            if current.is_some() {
                return false;
            }
            *current = Some(reason.to_owned());
            true
        });
    }

    /// How long a request may wait for its answer (default 10 min).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The upstream's notifications, as they arrive.
    pub fn notifications(&self) -> broadcast::Receiver<Value> {
        self.notifications.subscribe()
    }

    /// Runs the `initialize` handshake; returns the upstream's result. With
    /// a request handler set ([`Upstream::on_request`]) it declares the
    /// `elicitation` (form), `sampling` and `roots` capabilities, without
    /// `listChanged`: a proxy relays its clients' answers, and has no roots
    /// of its own to announce changes of.
    pub async fn initialize(&self, client_name: &str) -> Result<Value, ErrorObject> {
        let capabilities = if self.requests.lock().expect("requests lock").is_some() {
            json!({"elicitation": {}, "sampling": {}, "roots": {}})
        } else {
            json!({})
        };
        let result = self
            .request(
                "initialize",
                json!({
                    "protocolVersion": UPSTREAM_VERSION,
                    "capabilities": capabilities,
                    "clientInfo": {"name": client_name, "version": env!("CARGO_PKG_VERSION")}
                }),
            )
            .await?;
        self.notify("notifications/initialized", None).await;
        if let Link::Http { client, url, session } = &*self.link
            && let Some(id) = session.lock().expect("session lock").clone()
        {
            self.listen(client.clone(), url.clone(), id);
        }
        Ok(result)
    }

    /// Keeps the session's GET stream open and hands its messages on,
    /// reconnecting (with the last event id) until the upstream ends the
    /// session or this client is dropped.
    fn listen(&self, client: reqwest::Client, url: String, session: String) {
        let weak_link = Arc::downgrade(&self.link);
        let pending = Arc::clone(&self.pending);
        let notifications = self.notifications.clone();
        let (next_id, timeout) = (Arc::clone(&self.next_id), self.timeout);
        let closed = Arc::clone(&self.closed);
        let requests = Arc::clone(&self.requests);
        let progress = Arc::clone(&self.progress);
        tokio::spawn(async move {
            let mut last_event: Option<String> = None;
            let mut backoff = Duration::from_millis(100);
            loop {
                // Stop once every handle to this client is gone.
                if weak_link.strong_count() == 0 {
                    return;
                }
                let mut request = client
                    .get(&url)
                    .header("accept", "text/event-stream")
                    .header("mcp-protocol-version", UPSTREAM_VERSION)
                    .header("mcp-session-id", &session);
                if let Some(id) = &last_event {
                    request = request.header("last-event-id", id);
                }
                match request.send().await {
                    Ok(response) if response.status().is_success() => {
                        backoff = Duration::from_millis(100);
                        let mut stream = response.bytes_stream();
                        let mut events = SseEvents::default();
                        while let Some(Ok(chunk)) = futures::StreamExt::next(&mut stream).await {
                            for event in events.push(&chunk) {
                                if let Some(id) = event.lines().find_map(|l| l.strip_prefix("id:")) {
                                    last_event = Some(id.trim().to_owned());
                                }
                                let Some(link) = weak_link.upgrade() else { return };
                                let this = Upstream {
                                    link,
                                    pending: Arc::clone(&pending),
                                    next_id: Arc::clone(&next_id),
                                    notifications: notifications.clone(),
                                    timeout,
                                    closed: Arc::clone(&closed),
                                    requests: Arc::clone(&requests),
                                    progress: Arc::clone(&progress),
                                };
                                this.on_event(&event, None);
                            }
                        }
                    }
                    // The session is gone (404): the upstream restarted or ended it.
                    Ok(response) if response.status().as_u16() == 404 => {
                        closed.send_if_modified(|c| {
                            let fresh = c.is_none();
                            if fresh {
                                *c = Some("the upstream server ended the session".to_owned());
                            }
                            fresh
                        });
                        return;
                    }
                    // Streams are not offered (405): stop.
                    Ok(response) if response.status().as_u16() == 405 => return,
                    Err(e) if e.is_connect() => {
                        closed.send_if_modified(|c| {
                            let fresh = c.is_none();
                            if fresh {
                                *c = Some(format!("the upstream server at {url} cannot be reached"));
                            }
                            fresh
                        });
                        return;
                    }
                    Ok(_) | Err(_) => {}
                }
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(5));
            }
        });
    }

    /// Sends a request and waits for its result (or error).
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, ErrorObject> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.request_with_id(id, method, params).await
    }

    /// A fresh request id (for requests that need to know theirs up front).
    pub fn next_id(&self) -> i64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    /// Sends a request with the given id and waits for its answer.
    pub async fn request_with_id(&self, id: i64, method: &str, params: Value) -> Result<Value, ErrorObject> {
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let (tx, rx) = oneshot::channel();
        self.pending.lock().expect("pending lock").insert(id, tx);
        let sent = self.send(&message, method == "initialize").await;
        if let Err(e) = sent {
            self.pending.lock().expect("pending lock").remove(&id);
            return Err(e);
        }
        match tokio::time::timeout(self.timeout, rx).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => {
                Err(ErrorObject::internal(format!("the upstream server went away during {method}")))
            }
            Err(_) => {
                self.cancel(id, "timed out").await;
                Err(ErrorObject::internal(format!(
                    "the upstream server did not answer {method} within {} s",
                    self.timeout.as_secs()
                )))
            }
        }
    }

    /// Gives up our request `id`: nobody waits for its answer any more, and
    /// the upstream is told (`notifications/cancelled` with `reason`).
    pub async fn cancel(&self, id: i64, reason: &str) {
        self.pending.lock().expect("pending lock").remove(&id);
        self.notify("notifications/cancelled", Some(json!({"requestId": id, "reason": reason}))).await;
    }

    /// Sends a notification (errors are logged, not returned: nobody waits).
    pub async fn notify(&self, method: &str, params: Option<Value>) {
        let mut message = json!({"jsonrpc": "2.0", "method": method});
        if let Some(params) = params {
            message["params"] = params;
        }
        if let Err(e) = self.send(&message, false).await {
            tracing::warn!(method, error = %e.message, "could not notify the upstream server");
        }
    }

    async fn send(&self, message: &Value, initialize: bool) -> Result<(), ErrorObject> {
        match &*self.link {
            Link::Stdio { outgoing, .. } => {
                let mut bytes = serde_json::to_vec(message).expect("JSON serializes");
                bytes.push(b'\n');
                outgoing
                    .send(bytes)
                    .map_err(|_| ErrorObject::internal("the upstream server's input is closed"))
            }
            Link::Http { client, url, session } => {
                let mut request = client
                    .post(url)
                    .header("content-type", "application/json")
                    .header("accept", "application/json, text/event-stream")
                    .body(message.to_string());
                if !initialize {
                    request = request.header("mcp-protocol-version", UPSTREAM_VERSION);
                }
                if let Some(id) = session.lock().expect("session lock").clone() {
                    request = request.header("mcp-session-id", id);
                }
                let response = request.send().await.map_err(|e| {
                    if e.is_connect() {
                        self.mark_closed(&format!("the upstream server at {url} cannot be reached"));
                    }
                    ErrorObject::internal(format!("the upstream server at {url} could not be reached: {e}"))
                })?;
                if response.status().as_u16() == 404
                    && !initialize
                    && session.lock().expect("session lock").is_some()
                {
                    self.mark_closed("the upstream server no longer knows our session (it restarted)");
                }
                if let Some(id) = response.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()) {
                    *session.lock().expect("session lock") = Some(id.to_owned());
                }
                let status = response.status();
                if status.as_u16() == 202 {
                    return Ok(());
                }
                let sse = response
                    .headers()
                    .get("content-type")
                    .and_then(|v| v.to_str().ok())
                    .is_some_and(|t| t.starts_with("text/event-stream"));
                if sse {
                    // Read as it comes: the upstream may ask us something
                    // on this stream and wait for the answer before it
                    // ends the stream with its response.
                    let related = message.get("method").and(message.get("id")).and_then(Value::as_i64);
                    let this = self.clone();
                    tokio::spawn(async move { this.read_answer_stream(response, related).await });
                    return Ok(());
                }
                let body = response.text().await.map_err(|e| ErrorObject::internal(e.to_string()))?;
                if !status.is_success() && serde_json::from_str::<Value>(&body).is_err() {
                    return Err(ErrorObject::internal(format!(
                        "the upstream server answered HTTP {status}: {}",
                        body.chars().take(200).collect::<String>()
                    )));
                }
                if let Ok(message) = serde_json::from_str::<Value>(&body) {
                    match message {
                        Value::Array(items) => items.into_iter().for_each(|m| self.on_message(m, None)),
                        one => self.on_message(one, None),
                    }
                }
                Ok(())
            }
        }
    }

    /// Hands on each message of the SSE stream answering our request
    /// `related` (the upstream's requests on it belong to that request).
    async fn read_answer_stream(&self, response: reqwest::Response, related: Option<i64>) {
        let mut stream = response.bytes_stream();
        let mut events = SseEvents::default();
        while let Some(chunk) = futures::StreamExt::next(&mut stream).await {
            let Ok(chunk) = chunk else { break };
            for event in events.push(&chunk) {
                self.on_event(&event, related);
            }
        }
        if let Some(event) = events.finish() {
            self.on_event(&event, related);
        }
        // The stream ended (or broke) before our request's answer came.
        if let Some(id) = related
            && let Some(tx) = self.pending.lock().expect("pending lock").remove(&id)
        {
            let _ = tx.send(Err(ErrorObject::internal(
                "the upstream server's answer stream ended without the answer",
            )));
        }
    }

    /// Hands on the JSON-RPC messages of one SSE event.
    fn on_event(&self, event: &str, related: Option<i64>) {
        for data in sse_data(event) {
            if let Ok(message) = serde_json::from_str::<Value>(&data) {
                self.on_message(message, related);
            }
        }
    }

    fn on_message(&self, message: Value, related: Option<i64>) {
        let id = message.get("id").and_then(Value::as_i64);
        let method = message.get("method").and_then(Value::as_str).map(str::to_owned);
        match (id, method) {
            (Some(id), None) => {
                let Some(tx) = self.pending.lock().expect("pending lock").remove(&id) else { return };
                let answer = match message.get("error") {
                    Some(error) => Err(serde_json::from_value(error.clone()).unwrap_or_else(|_| {
                        ErrorObject::internal(format!(
                            "the upstream server sent an unreadable error: {error}"
                        ))
                    })),
                    None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
                };
                let _ = tx.send(answer);
            }
            (_, Some(method)) if message.get("id").is_some() => {
                let params = message.get("params").cloned().unwrap_or_else(|| json!({}));
                let request = UpstreamRequest { method, params, related };
                let upstream = self.clone();
                let id = message["id"].clone();
                tokio::spawn(async move { upstream.answer(id, request).await });
            }
            (_, Some(method)) => {
                let sink = self.progress.lock().expect("progress lock").clone();
                match sink {
                    Some(sink) if method == "notifications/progress" => {
                        sink(message.get("params").cloned().unwrap_or(Value::Null));
                    }
                    _ => {
                        let _ = self.notifications.send(message);
                    }
                }
            }
            (None, None) => tracing::warn!(%message, "a message from the upstream server that is neither"),
        }
    }

    /// Answers one of the upstream's requests: `ping` here, the rest
    /// through the request handler (`-32601` without one).
    async fn answer(&self, id: Value, request: UpstreamRequest) {
        let handler = self.requests.lock().expect("requests lock").clone();
        let answer = match (request.method.as_str(), handler) {
            ("ping", _) => Ok(json!({})),
            (_, Some(handler)) => handler(request).await,
            (method, None) => Err(ErrorObject::method_not_found(method)),
        };
        let message = match answer {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
        };
        if let Err(e) = self.send(&message, false).await {
            tracing::warn!(error = %e.message, "could not answer the upstream server's request");
        }
    }

    fn fail_all(&self, why: &str) {
        for (_, tx) in self.pending.lock().expect("pending lock").drain() {
            let _ = tx.send(Err(ErrorObject::internal(why)));
        }
    }
}

/// Splits an SSE byte stream into whole events as its chunks arrive. Bytes,
/// not text, until an event is whole: a chunk may end inside a multi-byte
/// character.
#[derive(Default)]
struct SseEvents {
    buffer: Vec<u8>,
}

impl SseEvents {
    /// Adds `chunk`; returns the events it completed (blank-line ended,
    /// `\n` or `\r\n` line ends).
    fn push(&mut self, chunk: &[u8]) -> Vec<String> {
        self.buffer.extend_from_slice(chunk);
        let mut events = Vec::new();
        while let Some((end, gap)) = event_end(&self.buffer) {
            let bytes: Vec<u8> = self.buffer.drain(..end + gap).collect();
            events.push(String::from_utf8_lossy(&bytes[..end]).into_owned());
        }
        events
    }

    /// The last event when the stream ended without a blank line.
    fn finish(self) -> Option<String> {
        let rest = String::from_utf8_lossy(&self.buffer).trim().to_owned();
        (!rest.is_empty()).then_some(rest)
    }
}

/// Where the first event of `buffer` ends, and the length of the blank
/// line that ends it.
fn event_end(buffer: &[u8]) -> Option<(usize, usize)> {
    let lf = buffer.windows(2).position(|w| w == b"\n\n").map(|at| (at, 2));
    let crlf = buffer.windows(4).position(|w| w == b"\r\n\r\n").map(|at| (at, 4));
    match (lf, crlf) {
        (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
        (a, b) => a.or(b),
    }
}

/// The `data` of each event of an SSE body (multi-line data joined by `\n`).
fn sse_data(body: &str) -> Vec<String> {
    let mut events = Vec::new();
    let mut data: Option<String> = None;
    for line in body.lines() {
        if line.is_empty() {
            if let Some(d) = data.take() {
                events.push(d);
            }
        } else if let Some(rest) = line.strip_prefix("data:") {
            let rest = rest.strip_prefix(' ').unwrap_or(rest);
            match &mut data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(rest);
                }
                None => data = Some(rest.to_owned()),
            }
        }
    }
    if let Some(d) = data {
        events.push(d);
    }
    events.retain(|d| !d.is_empty());
    events
}

#[cfg(test)]
mod tests {
    use super::{SseEvents, sse_data};

    #[test]
    fn sse_events_complete_across_chunks_and_multi_byte_characters() {
        let mut events = SseEvents::default();
        let text = "data: {\"a\":\"é\"}\n\nid: 2\r\ndata: 2\r\n\r\ndata: tail";
        let bytes = text.as_bytes();
        let split = text.find('é').unwrap() + 1; // inside the two bytes of é
        assert!(events.push(&bytes[..split]).is_empty());
        assert_eq!(events.push(&bytes[split..]), ["data: {\"a\":\"é\"}", "id: 2\r\ndata: 2"]);
        assert_eq!(events.finish().as_deref(), Some("data: tail"));
    }

    #[test]
    fn sse_events_are_split_and_multi_line_data_joined() {
        let body = "id: 1\ndata:\n\nevent: message\ndata: {\"a\":\ndata: 1}\n\ndata: last";
        assert_eq!(sse_data(body), ["{\"a\":\n1}", "last"]);
    }
}
