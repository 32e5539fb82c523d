//! The interactive commands: `check`, `list` and `call`.
//!
//! They build the same project `serve` would and report on it. Progress
//! goes to stderr as a spinner (only on a terminal); stdout carries the
//! result alone, so scripts can parse it.

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
fn load(source: &Source) -> anyhow::Result<Project> {
    let loaded = with_spinner("loading the configuration and scanning files", || {
        let project = Project::load(&source.dir, source.config.as_deref())?;
        project.scan_files();
        Ok(project)
    });
    loaded.map_err(crate::report)
}

/// `switchboard check`: validates the configuration and everything it names.
pub(crate) fn check(source: &Source) -> anyhow::Result<()> {
    let mut project = load(source)?;
    let cwd = std::env::current_dir().ok().and_then(|d| d.canonicalize().ok()).unwrap_or_default();
    let origin = match project.config.path() {
        Some(p) => p.strip_prefix(&cwd).unwrap_or(p).display().to_string(),
        None => "the embedded default configuration".to_owned(),
    };
    let server = project.serve(ServerOptions::default(), |b| b)?;
    print(&format!(
        "{origin}: ok — {} tools, {} prompts, {} resources, {} resource templates\n",
        server.tools().len(),
        server.prompts().len(),
        server.resources().len(),
        server.resource_templates().len()
    ))
}

/// `switchboard list`: what would be served, as text or JSON.
pub(crate) fn list(source: &Source, as_json: bool) -> anyhow::Result<()> {
    let mut project = load(source)?;
    let server = project.serve(ServerOptions::default(), |b| b)?;
    print_listing(&server, as_json)
}

/// Prints a server's registrations.
pub(crate) fn print_listing(server: &Server, as_json: bool) -> anyhow::Result<()> {
    use std::fmt::Write as _;
    let mut out = String::new();
    if as_json {
        let listing = json!({
            "tools": server.tools(),
            "prompts": server.prompts(),
            "resources": server.resources(),
            "resourceTemplates": server.resource_templates(),
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&listing)?)?;
        return print(&out);
    }
    let tools = server.tools();
    writeln!(out, "Tools ({}):", tools.len())?;
    for tool in tools {
        writeln!(out, "  {:<24} {}", tool.name, first_line(tool.description.as_deref()))?;
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
    let resources = server.resources();
    writeln!(out, "Resources ({}):", resources.len())?;
    for resource in resources {
        let size = resource.size.map(|s| format!("{s} B")).unwrap_or_default();
        let mime = resource.mime_type.unwrap_or_default();
        writeln!(out, "  {:<48} {mime:<24} {size}", resource.uri)?;
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

/// `switchboard call TOOL --args JSON`: runs one tool in process and prints its
/// result. Fails (exit status 1) when the call is refused or the result is
/// an error; a signal during the call kills the tool's processes.
pub(crate) fn call(source: &Source, tool: &str, args: &str) -> anyhow::Result<()> {
    let arguments: Value = serde_json::from_str(args).context("--args is not valid JSON")?;
    anyhow::ensure!(
        arguments.is_object(),
        "--args must be a JSON object, like '{{\"path\": \"README.md\"}}'"
    );
    let mut project = load(source)?;
    let server = project.serve(ServerOptions::default(), |b| b)?;
    if server.tool_definition(tool).is_none() {
        let names: Vec<String> = server.tools().into_iter().map(|t| t.name).collect();
        anyhow::bail!("no tool named {tool:?}; the tools are: {}", names.join(", "));
    }
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    // A signal during the call kills the tool's processes and ends switchboard
    // (exit status 128 + the signal's number).
    let response = runtime.block_on(async {
        crate::shutdown::Stop::listen().run(call_in_process(&server, tool, arguments)).await
    })?;
    runtime.shutdown_background();
    if let Some(error) = response.get("error") {
        anyhow::bail!("the call was refused: {}", error["message"].as_str().unwrap_or("unknown error"));
    }
    let result = &response["result"];
    print(&format!("{}\n", serde_json::to_string_pretty(result)?))?;
    if result["isError"] == true {
        anyhow::bail!("the tool reported an error");
    }
    Ok(())
}

/// Sends one 2026-07-28 `tools/call` to `server` over an in-process
/// session, showing progress notifications on a spinner.
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
    let spinner = ProgressBar::new_spinner();
    spinner.set_message(format!("calling {tool}"));
    spinner.enable_steady_tick(Duration::from_millis(80));
    let answer = server.handle_frame(&session, &frame);
    tokio::pin!(answer);
    let bytes = loop {
        tokio::select! {
            bytes = &mut answer => break bytes,
            Some(message) = inbound.recv() => {
                if let Ok(note) = serde_json::from_slice::<Value>(&message)
                    && note["method"] == "notifications/progress"
                {
                    let p = &note["params"];
                    let text = p["message"].as_str().map(str::to_owned).unwrap_or_else(|| match p["total"].as_f64() {
                        Some(total) => format!("{}/{total}", p["progress"]),
                        None => p["progress"].to_string(),
                    });
                    spinner.set_message(format!("{tool}: {text}"));
                }
            }
        }
    };
    spinner.finish_and_clear();
    let bytes = bytes.context("the server sent no answer")?;
    Ok(serde_json::from_slice(&bytes)?)
}
