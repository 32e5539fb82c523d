//! `switchboard call TOOL`: runs one tool in process, of the project or of
//! the built-in fixtures, and prints its result.
//!
//! Progress goes to stderr as it arrives (a bar on a terminal, plain lines
//! otherwise); stdout carries the result alone, so scripts can parse it.
//! The exit status says how the call went.

use std::time::Duration;

use anyhow::Context as _;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{Value, json};
use switchboard_server::{Server, ServerOptions};

use super::inspect;
use crate::cli::{Fixtures, ProjectArgs};
use crate::output::print;
use crate::project::Source;

/// `switchboard call TOOL [--args JSON] [--json] [--fixtures F | DIR]`.
pub(crate) fn run(
    fixtures: Option<Fixtures>,
    project_args: &ProjectArgs,
    tool: &str,
    arguments: Value,
    as_json: bool,
) -> anyhow::Result<()> {
    match fixtures {
        Some(fixtures) => call_fixtures(fixtures, tool, arguments, as_json),
        None => call(&project_args.source("call TOOL")?, tool, arguments, as_json),
    }
}

/// `switchboard call TOOL`: runs one tool of the project in process and prints
/// its result ([`call_server`]). The upstreams' tools are the project's too:
/// each upstream is tried once first, and stopped after the call.
fn call(source: &Source, tool: &str, arguments: Value, as_json: bool) -> anyhow::Result<()> {
    let mut project = inspect::load(source)?;
    let runtime = inspect::runtime()?;
    let _entered = runtime.enter();
    runtime.block_on(inspect::open_databases(&mut project));
    let server = project.serve(ServerOptions::default(), |b| b)?;
    // A tool that is not there may be a database's that did not open: say which.
    if server.tool_definition(tool).is_none() {
        for listed in crate::project::databases::listed(&project.sql, &project.databases, &server) {
            if listed.status.state != switchboard_sql::serve::DatabaseState::Open {
                eprint!("database {}", crate::project::databases::describe(&listed).trim_start());
            }
        }
    }
    if !project.upstreams.is_empty() {
        let statuses = runtime.block_on(inspect::attempt_upstreams(&project));
        // A tool that is not there may be an unreachable upstream's: say which are.
        if server.tool_definition(tool).is_none() {
            for status in statuses.iter().filter(|s| s.state != switchboard_proxy::UpstreamState::Connected) {
                eprintln!("upstream {}", crate::project::upstreams::describe(status).trim_start());
            }
        }
    }
    let result = call_on(&runtime, &server, tool, arguments, as_json);
    drop(project);
    drop(_entered);
    runtime.shutdown_background();
    result
}

/// `switchboard call --fixtures F TOOL`: runs one tool of the built-in
/// fixtures (the demo's `countdown` reports progress).
fn call_fixtures(fixtures: Fixtures, tool: &str, arguments: Value, as_json: bool) -> anyhow::Result<()> {
    let state = switchboard_server::state::MemoryStore::new();
    let server = crate::fixtures::builder(ServerOptions::default(), fixtures, state)
        .build()
        .context("building the server")?;
    call_server(&server, tool, arguments, as_json)
}

/// Calls `tool` on `server` in process, showing its progress on stderr,
/// and prints the result: the content as a person reads it, or with
/// `as_json` the whole result as the server sent it. The exit status says
/// how it went ([`crate::exit`]): 1 if the result is an error, 2 for an
/// unknown tool, 4 if the server answered with an error; a signal during
/// the call kills the tool's processes (128 + the signal's number).
fn call_server(server: &Server, tool: &str, arguments: Value, as_json: bool) -> anyhow::Result<()> {
    let runtime = inspect::runtime()?;
    let result = call_on(&runtime, server, tool, arguments, as_json);
    runtime.shutdown_background();
    result
}

/// [`call_server`] on `runtime`.
fn call_on(
    runtime: &tokio::runtime::Runtime,
    server: &Server,
    tool: &str,
    arguments: Value,
    as_json: bool,
) -> anyhow::Result<()> {
    use crate::exit;
    if server.tool_definition(tool).is_none() {
        let names: Vec<String> = server.tools().into_iter().map(|t| t.name).collect();
        return Err(exit::usage(anyhow::anyhow!(
            "no tool named {tool:?}; the tools are: {} (`switchboard list` describes them)",
            names.join(", ")
        )));
    }
    let response = runtime.block_on(async {
        crate::shutdown::Stop::listen().run(call_in_process(server, tool, arguments)).await
    });
    let response = response?;
    if let Some(error) = response.get("error") {
        let message = error["message"].as_str().unwrap_or("no message");
        return Err(exit::io(anyhow::anyhow!(
            "the server answered with an error: {message} (code {})",
            error["code"]
        )));
    }
    let result = &response["result"];
    let out = if as_json { format!("{}\n", serde_json::to_string_pretty(result)?) } else { render(result) };
    print(&out)?;
    if result["isError"] == true {
        return Err(exit::tool_error(anyhow::anyhow!("the tool reported an error")));
    }
    Ok(())
}

/// A result as a person reads it: text blocks as text, other blocks as
/// a one-line summary each, and `structuredContent` as indented JSON when
/// no block is text (a tool's text block usually repeats it). `_meta`,
/// `resultType` and other protocol fields are left out.
fn render(result: &Value) -> String {
    let mut out = String::new();
    let blocks = result["content"].as_array().map(Vec::as_slice).unwrap_or_default();
    if !blocks.iter().any(|b| b["type"] == "text")
        && let Some(structured) = result.get("structuredContent").filter(|s| !s.is_null())
    {
        out.push_str(&serde_json::to_string_pretty(structured).unwrap_or_else(|_| structured.to_string()));
        out.push('\n');
    }
    for block in blocks {
        match block["type"].as_str() {
            Some("text") => out.push_str(block["text"].as_str().unwrap_or_default()),
            _ => out.push_str(&summary(block)),
        }
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// One line for a content block that is not text.
fn summary(block: &Value) -> String {
    let text = |v: &Value| v.as_str().unwrap_or("?").to_owned();
    let kind = block["type"].as_str().unwrap_or("unknown");
    match kind {
        "image" | "audio" => {
            let bytes = base64_len(block["data"].as_str().unwrap_or_default());
            format!("[{kind}: {}, {}]", text(&block["mimeType"]), size(bytes))
        }
        "resource_link" => {
            let mut line = format!("[resource link: {}", text(&block["uri"]));
            if let Some(mime) = block["mimeType"].as_str() {
                line.push_str(&format!(", {mime}"));
            }
            line + "]"
        }
        "resource" => {
            let resource = &block["resource"];
            let mime = resource["mimeType"].as_str().map(|m| format!(", {m}")).unwrap_or_default();
            let body = match (resource["text"].as_str(), resource["blob"].as_str()) {
                (Some(t), _) => format!("{} of text", size(t.len())),
                (None, Some(b)) => size(base64_len(b)),
                (None, None) => "empty".to_owned(),
            };
            format!("[resource: {}{mime}, {body}]", text(&resource["uri"]))
        }
        other => format!("[{other} content]"),
    }
}

/// The decoded length of base64 `data`.
fn base64_len(data: &str) -> usize {
    let data = data.trim_end();
    (data.len() / 4 * 3).saturating_sub(data.bytes().rev().take_while(|&b| b == b'=').count())
}

fn size(bytes: usize) -> String {
    match bytes {
        1 => "1 byte".to_owned(),
        0..1024 => format!("{bytes} bytes"),
        _ if bytes < 1024 * 1024 => format!("{:.1} KiB", bytes as f64 / 1024.0),
        _ => format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0)),
    }
}

/// Where `switchboard call` shows progress notifications: a bar on a terminal,
/// else one line each (`progress 50/100: message`).
enum ProgressView {
    Bar(ProgressBar),
    Lines,
}

impl ProgressView {
    /// Scale of the bar: progress is a fraction of `total`, in thousandths.
    const STEPS: u64 = 1000;

    fn new(tool: &str) -> Self {
        use std::io::IsTerminal as _;
        if !std::io::stderr().is_terminal() {
            return Self::Lines;
        }
        let bar = ProgressBar::new_spinner();
        // The time spent shows that a long, silent tool is still running.
        bar.set_style(ProgressStyle::with_template("{spinner} {msg} ({elapsed})").expect("a valid template"));
        bar.set_message(format!("calling {tool}"));
        bar.enable_steady_tick(Duration::from_millis(80));
        Self::Bar(bar)
    }

    /// Shows one `notifications/progress`'s parameters.
    fn show(&self, tool: &str, params: &Value) {
        let line = progress_line(params);
        match self {
            Self::Bar(bar) => {
                let (done, total) = (params["progress"].as_f64(), params["total"].as_f64());
                if let (Some(done), Some(total)) = (done, total.filter(|t| *t > 0.0)) {
                    if bar.length() != Some(Self::STEPS) {
                        bar.set_style(
                            ProgressStyle::with_template("{spinner} {bar:30} {msg} ({elapsed})")
                                .expect("a valid template"),
                        );
                        bar.set_length(Self::STEPS);
                    }
                    let fraction = (done / total).clamp(0.0, 1.0);
                    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                    bar.set_position((fraction * Self::STEPS as f64).round() as u64);
                }
                bar.set_message(format!("{tool}: {line}"));
            }
            Self::Lines => {
                use std::io::Write as _;
                let _ = writeln!(std::io::stderr().lock(), "progress {line}");
            }
        }
    }

    fn finish(self) {
        if let Self::Bar(bar) = self {
            bar.finish_and_clear();
        }
    }
}

/// `50/100: message`, `3: message` (no total) or `50/100` (no message).
fn progress_line(params: &Value) -> String {
    let number = |v: &Value| v.as_f64().map_or_else(|| v.to_string(), |n| n.to_string());
    let mut line = number(&params["progress"]);
    if let Some(total) = params.get("total").filter(|t| !t.is_null()) {
        line.push('/');
        line.push_str(&number(total));
    }
    if let Some(message) = params["message"].as_str() {
        line.push_str(": ");
        line.push_str(message);
    }
    line
}

/// Sends one 2026-07-28 `tools/call` to `server` over an in-process
/// session, showing its progress notifications as they arrive.
async fn call_in_process(server: &Server, tool: &str, arguments: Value) -> anyhow::Result<Value> {
    let (outbound, mut inbound) = tokio::sync::mpsc::channel::<Vec<u8>>(64);
    let session = server.new_session(outbound, None);
    let request = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {
            "name": tool, "arguments": arguments,
            "_meta": {
                "progressToken": "switchboard-call",
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "switchboard call", "version": env!("CARGO_PKG_VERSION")}
            }
        }
    });
    let frame = serde_json::to_vec(&request)?;
    let view = ProgressView::new(tool);
    let answer = server.handle_frame(&session, &frame);
    tokio::pin!(answer);
    let show = |view: &ProgressView, message: &[u8]| {
        if let Ok(note) = serde_json::from_slice::<Value>(message)
            && note["method"] == "notifications/progress"
        {
            view.show(tool, &note["params"]);
        }
    };
    let bytes = loop {
        tokio::select! {
            biased;
            Some(message) = inbound.recv() => show(&view, &message),
            bytes = &mut answer => break bytes,
        }
    };
    // Notifications sent just before the answer are shown before it.
    while let Ok(message) = inbound.try_recv() {
        show(&view, &message);
    }
    view.finish();
    let bytes = bytes.context("the server sent no answer")?;
    Ok(serde_json::from_slice(&bytes)?)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{progress_line, render};

    #[test]
    fn results_read_as_a_person_wants_them() {
        // Text as text; the structured copy and the plumbing stay out.
        let result = json!({
            "content": [{"type": "text", "text": "{\"sum\":5.0}"}, {"type": "text", "text": "done\n"}],
            "structuredContent": {"sum": 5.0}, "resultType": "complete", "_meta": {"x": 1}
        });
        assert_eq!(render(&result), "{\"sum\":5.0}\ndone\n");
        // No text: the structured content, indented.
        let result = json!({"content": [], "structuredContent": {"sum": 5}, "resultType": "complete"});
        assert_eq!(render(&result), "{\n  \"sum\": 5\n}\n");
        // Other blocks are summarized.
        let result = json!({"content": [
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "test://r", "mimeType": "text/plain", "text": "hello"}},
            {"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt"},
            {"type": "audio", "data": "", "mimeType": "audio/wav"},
        ]});
        assert_eq!(
            render(&result),
            "[image: image/png, 8 bytes]\n[resource: test://r, text/plain, 5 bytes of text]\n\
             [resource link: file:///a.txt]\n[audio: audio/wav, 0 bytes]\n"
        );
    }

    #[test]
    fn progress_lines() {
        assert_eq!(
            progress_line(&json!({"progress": 50.0, "total": 100.0, "message": "half"})),
            "50/100: half"
        );
        assert_eq!(progress_line(&json!({"progress": 1.5})), "1.5");
        assert_eq!(progress_line(&json!({"progress": 3, "message": "m"})), "3: m");
    }
}
