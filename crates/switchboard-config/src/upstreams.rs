//! `[[upstreams]]`: other MCP servers served through this one, each a
//! program over stdio or a Streamable HTTP URL, mounted under a prefix.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use switchboard_tools::duration_schema;

/// One upstream MCP server.
///
/// ```toml
/// [[upstreams]]
/// name = "everything"
/// command = ["npx", "-y", "@modelcontextprotocol/server-everything"]
/// env = ["HOME"]                       # passed through (PATH always is)
/// exclude_tools = ["long*"]
///
/// [upstreams.tools.echo]               # by the tool's name upstream
/// name = "say"                         # the whole name shown (no prefix added)
/// annotations = { readOnlyHint = true }
///
/// [[upstreams]]
/// name = "remote"
/// url = "https://mcp.example.com/mcp"
/// bearer_token_env = "REMOTE_TOKEN"    # Authorization: Bearer $REMOTE_TOKEN
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpstreamSpec {
    /// Its name: letters, digits, `_`, `-`, `.` (shown by `list` and `/readyz`).
    #[schemars(example = &"github")]
    pub name: String,
    /// A program speaking MCP on stdio, with its arguments (never a shell).
    #[serde(default)]
    #[schemars(example = ["npx", "-y", "@modelcontextprotocol/server-everything"])]
    pub command: Vec<String>,
    /// A Streamable HTTP endpoint (instead of `command`).
    #[serde(default)]
    #[schemars(example = &"http://127.0.0.1:3001/mcp")]
    pub url: Option<String>,
    /// `command`: variables passed through from switchboard's environment (`PATH` always is).
    #[serde(default)]
    pub env: Vec<String>,
    /// `command`: variables set for the program.
    #[serde(default)]
    pub set_env: BTreeMap<String, String>,
    /// `command`: the working directory, inside the served folder; default the folder.
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    /// `url`: headers sent with every request.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// `url`: headers whose value is read from an environment variable (header = variable).
    #[serde(default)]
    pub headers_env: BTreeMap<String, String>,
    /// `url`: the variable holding a bearer token (sent as `Authorization: Bearer …`).
    #[serde(default)]
    pub bearer_token_env: Option<String>,
    /// Put before tool and prompt names with `_`; default the name, `""` for none.
    #[serde(default)]
    pub prefix: Option<String>,
    /// Globs (`*`, `?`) of tool names upstream to serve; default all.
    #[serde(default)]
    pub include_tools: Vec<String>,
    /// Globs of tool names upstream to leave out.
    #[serde(default)]
    pub exclude_tools: Vec<String>,
    /// Globs of prompt names upstream to serve; default all.
    #[serde(default)]
    pub include_prompts: Vec<String>,
    /// Globs of prompt names upstream to leave out.
    #[serde(default)]
    pub exclude_prompts: Vec<String>,
    /// Overrides by a tool's name upstream.
    #[serde(default)]
    pub tools: BTreeMap<String, ItemOverride>,
    /// Overrides by a prompt's name upstream (`annotations` do not apply).
    #[serde(default)]
    pub prompts: BTreeMap<String, ItemOverride>,
    /// Serve its resources and resource templates too.
    #[serde(default = "yes")]
    pub resources: bool,
    /// How long one request may take (humantime); default 10 min.
    #[serde(default = "default_timeout", with = "humantime_serde")]
    #[schemars(schema_with = "duration_schema")]
    pub timeout: Duration,
    /// How long starting and the handshake may take; default 30 s.
    #[serde(default = "default_connect_timeout", with = "humantime_serde")]
    #[schemars(schema_with = "duration_schema")]
    pub connect_timeout: Duration,
    /// The first wait before reconnecting, doubled after each failure; default 500 ms.
    #[serde(default = "default_backoff_initial", with = "humantime_serde")]
    #[schemars(schema_with = "duration_schema")]
    pub backoff_initial: Duration,
    /// The longest wait between attempts; default 30 s.
    #[serde(default = "default_backoff_max", with = "humantime_serde")]
    #[schemars(schema_with = "duration_schema")]
    pub backoff_max: Duration,
    /// How often a connected upstream is pinged; default 15 s.
    #[serde(default = "default_ping_interval", with = "humantime_serde")]
    #[schemars(schema_with = "duration_schema")]
    pub ping_interval: Duration,
}

/// What to show instead of the upstream's own values.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ItemOverride {
    /// The whole name shown (the prefix is not added).
    pub name: Option<String>,
    /// The display title.
    pub title: Option<String>,
    /// The description.
    pub description: Option<String>,
    /// Tool annotations merged over the upstream's (`readOnlyHint`, `destructiveHint`, …).
    pub annotations: Option<serde_json::Map<String, serde_json::Value>>,
    /// A view of this server's apps folder shown with the tool's results
    /// (`"report"` for `apps/report.html`), over the upstream's own.
    pub ui: Option<String>,
    /// Who may call the tool: `["model", "app"]` or `["app"]` (only its view).
    #[schemars(length(min = 1))]
    pub visibility: Option<Vec<switchboard_types::apps::Visibility>>,
}

fn yes() -> bool {
    true
}
fn default_timeout() -> Duration {
    Duration::from_secs(600)
}
fn default_connect_timeout() -> Duration {
    Duration::from_secs(30)
}
fn default_backoff_initial() -> Duration {
    Duration::from_millis(500)
}
fn default_backoff_max() -> Duration {
    Duration::from_secs(30)
}
fn default_ping_interval() -> Duration {
    Duration::from_secs(15)
}

impl UpstreamSpec {
    /// The prefix in use (`None`: no prefix).
    pub fn effective_prefix(&self) -> Option<&str> {
        match &self.prefix {
            Some(p) if p.is_empty() => None,
            Some(p) => Some(p),
            None => Some(&self.name),
        }
    }

    /// The name a tool (`prompt = false`) or prompt named `remote` upstream
    /// is shown under.
    pub fn front_name(&self, remote: &str, prompt: bool) -> String {
        let overrides = if prompt { &self.prompts } else { &self.tools };
        if let Some(name) = overrides.get(remote).and_then(|o| o.name.clone()) {
            return name;
        }
        match self.effective_prefix() {
            Some(prefix) => format!("{prefix}_{remote}"),
            None => remote.to_owned(),
        }
    }

    /// The working directory under `root`, checked to stay inside it.
    pub fn resolved_cwd(&self, root: &Path) -> Result<PathBuf, String> {
        let Some(cwd) = &self.cwd else { return Ok(root.to_path_buf()) };
        let joined = root.join(cwd);
        let (Ok(real), Ok(real_root)) = (joined.canonicalize(), root.canonicalize()) else {
            return Err(format!(
                "the folder {:?} does not exist in the served folder",
                cwd.display().to_string()
            ));
        };
        if !real.starts_with(&real_root) {
            return Err(format!("{:?} is outside the served folder", cwd.display().to_string()));
        }
        if !real.is_dir() {
            return Err(format!("{:?} is not a folder", cwd.display().to_string()));
        }
        Ok(real)
    }

    /// Every problem of this entry that its values alone show, as (key
    /// path below the entry, on the key's name, message).
    pub(crate) fn problems(&self, root: &Path) -> Vec<(Vec<String>, bool, String)> {
        let mut out: Vec<(Vec<String>, bool, String)> = Vec::new();
        let at = |keys: &[&str]| keys.iter().map(|k| (*k).to_owned()).collect::<Vec<_>>();
        if !valid_name(&self.name) {
            out.push((
                at(&["name"]),
                false,
                format!(
                    "upstream name {:?} must be 1 to 64 letters, digits, `_`, `-` or `.`, like \"github\"",
                    self.name
                ),
            ));
        }
        if let Some(prefix) = self.prefix.as_deref().filter(|p| !p.is_empty() && !valid_name(p)) {
            out.push((at(&["prefix"]), false, format!(
                "prefix {prefix:?} must be letters, digits, `_`, `-` or `.`, like \"gh\" (or \"\" for none)"
            )));
        }
        match (self.command.is_empty(), &self.url) {
            (true, None) => out.push((at(&["name"]), false, format!(
                "upstream {:?} needs `command` (a program speaking MCP on stdio, like [\"npx\", \"-y\", \"@modelcontextprotocol/server-everything\"]) or `url` (like \"http://127.0.0.1:3001/mcp\")",
                self.name
            ))),
            (false, Some(_)) => out.push((at(&["url"]), true, format!(
                "upstream {:?} has both `command` and `url`; give one", self.name
            ))),
            (false, None) => {
                match self.resolved_cwd(root) {
                    Err(e) => out.push((at(&["cwd"]), false, format!("`cwd`: {e}; give a folder inside it, like \".\""))),
                    Ok(cwd) => {
                        if let Err(e) = find_program(&self.command[0], &cwd) {
                            out.push((at(&["command", "0"]), false, e));
                        }
                    }
                }
            }
            (true, Some(url)) => {
                if !(url.starts_with("http://") || url.starts_with("https://")) || url.len() <= "https://".len() {
                    out.push((at(&["url"]), false, format!(
                        "`url` must be an http:// or https:// URL, like \"http://127.0.0.1:3001/mcp\"; found {url:?}"
                    )));
                }
            }
        }
        if self.url.is_some() || self.command.is_empty() {
            for key in ["env", "set_env", "cwd"] {
                let set = match key {
                    "env" => !self.env.is_empty(),
                    "set_env" => !self.set_env.is_empty(),
                    _ => self.cwd.is_some(),
                };
                if set && self.url.is_some() {
                    out.push((
                        at(&[key]),
                        true,
                        format!("`{key}` applies to a `command` upstream, not a `url` one"),
                    ));
                }
            }
        }
        if !self.command.is_empty() {
            for (key, set) in [
                ("headers", !self.headers.is_empty()),
                ("headers_env", !self.headers_env.is_empty()),
                ("bearer_token_env", self.bearer_token_env.is_some()),
            ] {
                if set {
                    out.push((
                        at(&[key]),
                        true,
                        format!("`{key}` applies to a `url` upstream, not a `command` one"),
                    ));
                }
            }
        }
        for (i, name) in self.env.iter().enumerate() {
            if !valid_variable(name) {
                out.push((
                    vec!["env".into(), i.to_string()],
                    false,
                    format!("{name:?} is not an environment variable name, like \"HOME\""),
                ));
            }
        }
        for (header, variable) in &self.headers_env {
            if !valid_variable(variable) {
                out.push((
                    vec!["headers_env".into(), header.clone()],
                    false,
                    format!("{variable:?} is not an environment variable name, like \"API_KEY\""),
                ));
            }
        }
        for (header, _) in self.headers.iter().chain(&self.headers_env) {
            if header.is_empty()
                || !header.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_!#$%&'*+.^`|~".contains(&b))
            {
                let key = if self.headers.contains_key(header) { "headers" } else { "headers_env" };
                out.push((
                    vec![key.into(), header.clone()],
                    true,
                    format!("{header:?} is not a valid HTTP header name, like \"X-Api-Key\""),
                ));
            }
        }
        if let Some(variable) = self.bearer_token_env.as_ref().filter(|v| !valid_variable(v)) {
            out.push((
                at(&["bearer_token_env"]),
                false,
                format!("{variable:?} is not an environment variable name, like \"GITHUB_TOKEN\""),
            ));
        }
        for (kind, overrides) in [("tools", &self.tools), ("prompts", &self.prompts)] {
            for (remote, o) in overrides {
                if let Some(name) = o.name.as_deref().filter(|n| !valid_name(n)) {
                    out.push((vec![kind.into(), remote.clone(), "name".into()], false, format!(
                        "name {name:?} must be 1 to 64 letters, digits, `_`, `-` or `.`, like \"search_issues\""
                    )));
                }
                if kind == "prompts" && o.annotations.is_some() {
                    out.push((
                        vec![kind.into(), remote.clone(), "annotations".into()],
                        true,
                        "prompts have no annotations; only tools do".to_owned(),
                    ));
                }
            }
        }
        if self.backoff_initial.is_zero() {
            out.push((
                at(&["backoff_initial"]),
                false,
                "`backoff_initial` must be more than zero, like \"500ms\"".into(),
            ));
        }
        if self.backoff_max < self.backoff_initial {
            out.push((
                at(&["backoff_max"]),
                false,
                "`backoff_max` must be at least `backoff_initial`, like \"30s\"".into(),
            ));
        }
        out
    }
}

/// Tool-name characters, 1 to 64 of them.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

fn valid_variable(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Where `program` will be found, run in `cwd`: a path with a `/`
/// relative to `cwd`, a bare name on `PATH`.
fn find_program(program: &str, cwd: &Path) -> Result<PathBuf, String> {
    if program.contains('/') {
        let path = cwd.join(program);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(format!("program {program:?} was not found (relative to {})", cwd.display()))
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| {
            format!(
                "program {program:?} was not found on PATH (is it installed? a host may start switchboard with a short PATH: give the full path)"
            )
        })
}
