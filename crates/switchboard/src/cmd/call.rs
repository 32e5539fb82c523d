//! The interactive commands: `list` and `call` (and the loading `check`
//! shares), plus `completions` and `man`.
//!
//! They build the same project `serve` would and report on it. Progress
//! goes to stderr (a spinner or bar on a terminal, plain lines otherwise);
//! stdout carries the result alone, so scripts can parse it. Completions
//! and the manual page come from clap's own generators over the one
//! command-line definition, so they always match the parser.

use std::time::Duration;

use anyhow::Context as _;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{Value, json};
use switchboard_server::{Server, ServerOptions};

use crate::live::Source;
use crate::project::Project;

/// A spinner on stderr while `work` runs (hidden when stderr is not a terminal).
pub(crate) fn with_spinner<T>(message: &str, work: impl FnOnce() -> T) -> T {
    let spinner = ProgressBar::new_spinner();
    spinner.set_style(ProgressStyle::with_template("{spinner} {msg}").expect("a valid template"));
    spinner.set_message(message.to_owned());
    spinner.enable_steady_tick(Duration::from_millis(80));
    let out = work();
    spinner.finish_and_clear();
    out
}

/// Loads the project, printing every problem to stderr.
pub(crate) fn load(source: &Source) -> anyhow::Result<Project> {
    let loaded = with_spinner("loading the configuration and scanning files", || {
        let project = Project::load(&source.dir, source.config.as_deref())?;
        project.scan_files();
        Ok(project)
    });
    loaded.map_err(crate::report)
}

/// `switchboard list`: what would be served, as text or JSON.
pub(crate) fn list(source: &Source, as_json: bool) -> anyhow::Result<()> {
    let mut project = load(source)?;
    // Each database is opened once (bounded), then listed with its state.
    let runtime = runtime()?;
    let _entered = runtime.enter();
    runtime.block_on(open_databases(&mut project));
    let server = project.serve(ServerOptions::default(), |b| b)?;
    let databases = crate::databases::listed(&project.sql, &project.databases, &server);
    let skills = project.skills.as_ref().map(crate::skills::ProjectSkills::listed).unwrap_or_default();
    let sandbox = project.sandbox.clone();
    let listing = Listing {
        server: &server,
        skills: &skills,
        upstreams: None,
        sandbox: sandbox.as_ref(),
        left_out: &project.left_out,
        databases: &databases,
    };
    // Each upstream is tried once, then listed with its state.
    let result = if project.upstreams.is_empty() {
        print_listing(&listing, as_json)
    } else {
        let statuses = runtime.block_on(attempt_upstreams(&project));
        print_listing(&Listing { upstreams: Some(&statuses), ..listing }, as_json)
    };
    drop(project);
    drop(_entered);
    runtime.shutdown_background();
    result
}

/// Zero-config finds its SQLite files, then every database is opened and
/// tried once (bounded by its connect timeout), so what is listed or
/// called is what `serve` offers once they are open.
async fn open_databases(project: &mut Project) {
    project.detect_databases(None);
    project.start_databases();
    project.wait_databases(None).await;
}

/// What `list` shows: a server's registrations, its skills and, when it
/// has upstreams, their states.
#[derive(Clone, Copy)]
pub(crate) struct Listing<'a> {
    pub server: &'a Server,
    pub skills: &'a [switchboard_skills::SkillInfo],
    pub upstreams: Option<&'a [switchboard_proxy::UpstreamStatus]>,
    /// The command tools' sandbox (see `crate::sandbox`).
    pub sandbox: Option<&'a Value>,
    /// What is left out because a secret it needs is not set, and why.
    pub left_out: &'a [switchboard_config::Problem],
    /// The databases and their states (see `crate::databases`).
    pub databases: &'a [crate::databases::Listed],
}

/// Prints a listing as text or JSON.
pub(crate) fn print_listing(listing: &Listing<'_>, as_json: bool) -> anyhow::Result<()> {
    use std::fmt::Write as _;
    let Listing { server, skills, upstreams, sandbox, left_out, databases } = *listing;
    let mut out = String::new();
    if as_json {
        let mut listing = json!({
            "tools": server.tools(),
            "prompts": server.prompts(),
            "resources": server.listed_resources(),
            "resourceTemplates": server.resource_templates(),
        });
        if !skills.is_empty() {
            listing["skills"] = skills
                .iter()
                .map(
                    |s| json!({"name": s.name, "description": s.description, "uri": s.uri, "files": s.files}),
                )
                .collect();
        }
        if let Some(upstreams) = upstreams {
            listing["upstreams"] = json!(upstreams);
        }
        if let Some(sandbox) = sandbox {
            listing["sandbox"] = sandbox.clone();
        }
        if !left_out.is_empty() {
            listing["leftOut"] = left_out.iter().map(|p| json!(p.to_string())).collect();
        }
        if !databases.is_empty() {
            listing["databases"] = databases.iter().map(crate::databases::listed_json).collect();
        }
        let views = crate::apps::listed(server);
        if !views.is_empty() {
            listing["views"] = Value::Array(views);
        }
        writeln!(out, "{}", serde_json::to_string_pretty(&listing)?)?;
        return print(&out);
    }
    if !left_out.is_empty() {
        writeln!(out, "Left out ({}):", left_out.len())?;
        for problem in left_out {
            writeln!(out, "  {problem}")?;
        }
    }
    if !databases.is_empty() {
        writeln!(out, "Databases ({}):", databases.len())?;
        for status in databases {
            out.push_str(&crate::databases::describe(status));
        }
    }
    if let Some(upstreams) = upstreams {
        writeln!(out, "Upstreams ({}):", upstreams.len())?;
        for status in upstreams {
            writeln!(out, "{}", crate::upstreams::describe(status))?;
        }
    }
    let tools = server.tools();
    writeln!(out, "Tools ({}):", tools.len())?;
    for tool in tools {
        writeln!(out, "  {:<24} {}", tool.name, first_line(tool.description.as_deref()))?;
    }
    if let Some(sandbox) = sandbox {
        out.push_str(&crate::sandbox::describe(sandbox));
    }
    let prompts = server.prompts();
    writeln!(out, "Prompts ({}):", prompts.len())?;
    for prompt in prompts {
        let args: Vec<String> = prompt
            .arguments
            .iter()
            .flatten()
            .map(|a| if a.required == Some(true) { a.name.clone() } else { format!("[{}]", a.name) })
            .collect();
        writeln!(
            out,
            "  {:<24} {} {}",
            prompt.name,
            args.join(" "),
            first_line(prompt.description.as_deref())
        )?;
    }
    let templates = server.resource_templates();
    writeln!(out, "Resource templates ({}):", templates.len())?;
    for template in templates {
        writeln!(out, "  {:<40} {}", template.uri_template, first_line(template.description.as_deref()))?;
    }
    let resources = server.listed_resources();
    writeln!(out, "Resources ({}):", resources.len())?;
    for resource in resources {
        let size = resource.size.map(|s| format!("{s} B")).unwrap_or_default();
        let mime = resource.mime_type.unwrap_or_default();
        writeln!(out, "  {:<48} {mime:<24} {size}", resource.uri)?;
    }
    out.push_str(&crate::apps::describe(server));
    if !skills.is_empty() {
        writeln!(out, "Skills ({}):", skills.len())?;
        for skill in skills {
            let files = if skill.files == 1 { "1 file".to_owned() } else { format!("{} files", skill.files) };
            writeln!(out, "  {:<24} {:<10} {}", skill.name, files, first_line(Some(&skill.description)))?;
        }
    }
    print(&out)
}

/// Writes to stdout, returning (not panicking on) a closed pipe.
pub(crate) fn print(text: &str) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    stdout.flush()?;
    Ok(())
}

fn first_line(text: Option<&str>) -> &str {
    text.unwrap_or_default().lines().next().unwrap_or_default()
}

/// `--args`: a JSON object (clap's value parser, so a bad value is a
/// usage error, exit status 2).
pub(crate) fn parse_arguments(text: &str) -> Result<Value, String> {
    let arguments: Value =
        serde_json::from_str(text).map_err(|e| format!("--args is not valid JSON: {e}"))?;
    if !arguments.is_object() {
        return Err("--args must be a JSON object, like '{\"path\": \"README.md\"}'".to_owned());
    }
    Ok(arguments)
}

/// Starts the project's upstreams and waits until each has been tried once
/// (bounded by its connect timeout); their states.
async fn attempt_upstreams(project: &Project) -> Vec<switchboard_proxy::UpstreamStatus> {
    let limit = project.upstreams.iter().map(|u| u.connect_timeout).max().unwrap_or_default();
    project.start_upstreams();
    let gateway = project.gateway.clone().expect("serve made the gateway");
    gateway.wait_attempted(limit + Duration::from_secs(1)).await;
    gateway.statuses()
}

/// A runtime on this thread, for the commands that run one thing and stop.
fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build();
    runtime.context("starting the async runtime").map_err(crate::exit::io)
}

/// `switchboard call TOOL`: runs one tool of the project in process and prints
/// its result ([`call_server`]). The upstreams' tools are the project's too:
/// each upstream is tried once first, and stopped after the call.
pub(crate) fn call(source: &Source, tool: &str, arguments: Value, as_json: bool) -> anyhow::Result<()> {
    let mut project = load(source)?;
    let runtime = runtime()?;
    let _entered = runtime.enter();
    runtime.block_on(open_databases(&mut project));
    let server = project.serve(ServerOptions::default(), |b| b)?;
    // A tool that is not there may be a database's that did not open: say which.
    if server.tool_definition(tool).is_none() {
        for listed in crate::databases::listed(&project.sql, &project.databases, &server) {
            if listed.status.state != switchboard_sql::serve::DatabaseState::Open {
                eprint!("database {}", crate::databases::describe(&listed).trim_start());
            }
        }
    }
    if !project.upstreams.is_empty() {
        let statuses = runtime.block_on(attempt_upstreams(&project));
        // A tool that is not there may be an unreachable upstream's: say which are.
        if server.tool_definition(tool).is_none() {
            for status in statuses.iter().filter(|s| s.state != switchboard_proxy::UpstreamState::Connected) {
                eprintln!("upstream {}", crate::upstreams::describe(status).trim_start());
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
pub(crate) fn call_fixtures(
    fixtures: crate::Fixtures,
    tool: &str,
    arguments: Value,
    as_json: bool,
) -> anyhow::Result<()> {
    let state = switchboard_server::state::MemoryStore::new();
    let server = crate::serve::fixture_builder(ServerOptions::default(), fixtures, state)
        .build()
        .context("building the server")?;
    call_server(&server, tool, arguments, as_json)
}

/// `switchboard completions SHELL`: clap_complete's script for `command`.
pub(crate) fn completions(shell: clap_complete::Shell, command: &mut clap::Command) -> anyhow::Result<()> {
    let mut script = Vec::new();
    clap_complete::generate(shell, command, "switchboard", &mut script);
    print(&String::from_utf8(script).context("the completion script is not UTF-8")?)
}

/// `switchboard man`: one roff page from clap_mangen's parts: the
/// command, then a section per subcommand with its options (clap_mangen
/// renders a page per command; `man switchboard` should hold them all).
pub(crate) fn man(command: clap::Command) -> anyhow::Result<()> {
    let mut page = Vec::new();
    let man = clap_mangen::Man::new(command.clone());
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    man.render_synopsis_section(&mut page)?;
    man.render_description_section(&mut page)?;
    man.render_options_section(&mut page)?;
    for sub in command.get_subcommands().filter(|s| s.get_name() != "help") {
        render_subcommand(&mut page, sub)?;
    }
    man.render_extra_section(&mut page)?;
    man.render_version_section(&mut page)?;
    let page = String::from_utf8(page).context("the manual page is not UTF-8")?;
    print(&once_preamble(&page))
}

/// `page` with roff's two-line apostrophe preamble, which every rendered
/// part starts with, kept at the top only.
fn once_preamble(page: &str) -> String {
    const PREAMBLE: [&str; 2] = [".ie \\n(.g .ds Aq \\(aq", ".el .ds Aq '"];
    let mut out = format!("{}\n{}\n", PREAMBLE[0], PREAMBLE[1]);
    for line in page.lines().filter(|l| !PREAMBLE.contains(l)) {
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// One subcommand's section, `.SH "switchboard NAME"`: its synopsis,
/// description and options, clap_mangen's own parts with their headings
/// turned into subsection headings (clap_mangen renders one page per
/// command; `man switchboard` should hold them all).
fn render_subcommand(page: &mut Vec<u8>, sub: &clap::Command) -> std::io::Result<()> {
    use std::io::Write as _;
    let bin_name = format!("switchboard {}", sub.get_name());
    let man = clap_mangen::Man::new(sub.clone().bin_name(bin_name.clone()));
    let mut parts = Vec::new();
    man.render_synopsis_section(&mut parts)?;
    man.render_description_section(&mut parts)?;
    man.render_options_section(&mut parts)?;
    writeln!(page, ".SH \"{bin_name}\"")?;
    // roff escapes text lines that start with a dot: only headings match.
    for line in String::from_utf8_lossy(&parts).lines() {
        match line.strip_prefix(".SH ") {
            Some(heading) => writeln!(page, ".SS {heading}")?,
            None => writeln!(page, "{line}")?,
        }
    }
    Ok(())
}

/// Calls `tool` on `server` in process, showing its progress on stderr,
/// and prints the result: the content as a person reads it, or with
/// `as_json` the whole result as the server sent it. The exit status says
/// how it went ([`crate::exit`]): 1 if the result is an error, 2 for an
/// unknown tool, 4 if the server answered with an error; a signal during
/// the call kills the tool's processes (128 + the signal's number).
pub(crate) fn call_server(
    server: &Server,
    tool: &str,
    arguments: Value,
    as_json: bool,
) -> anyhow::Result<()> {
    let runtime = runtime()?;
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
