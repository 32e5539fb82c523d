//! The configuration structs the `switchboard` TOML loader embeds, with their
//! defaults, and the checks shared by every configured tool (schema,
//! annotations).
//!
//! The structs derive [`schemars::JsonSchema`] so the JSON Schema of
//! `switchboard.toml` comes from the very types the parser fills, and
//! [`CommandToolSpec::problems`] / [`HttpToolSpec::problems`] report every
//! problem of a tool at once, each with its key, for `switchboard check`.
//! The builders ([`crate::command_tool`], [`crate::http_tool`]) use the
//! same checks and stop at the first.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde_json::{Value, json};
use switchboard_types::apps::Visibility;
use switchboard_types::tools::ToolAnnotations;

use crate::error::{Segment, SpecProblem, ToolsError};
use crate::large::LargeOutput;

/// A tool that runs a program (`[[tools.command]]`); see the crate docs
/// for the argv template rules.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommandToolSpec {
    /// The tool's name: 1 to 128 letters, digits, `_`, `-` or `.`.
    #[schemars(example = &"run_tests")]
    pub name: String,
    /// A display title.
    #[serde(default)]
    pub title: Option<String>,
    /// What the tool does, for the model.
    #[serde(default)]
    pub description: Option<String>,
    /// The argv template: program first, then arguments with `{name}` placeholders.
    #[schemars(example = ["cargo", "test", "{filter}"])]
    pub command: Vec<String>,
    /// The working directory, relative to the served root; default the root.
    #[serde(default = "default_cwd")]
    pub cwd: PathBuf,
    /// Variables passed through from `switchboard`'s environment (`PATH` always is).
    #[serde(default)]
    pub env: Vec<String>,
    /// Variables set for the program, over the passed-through ones.
    #[serde(default)]
    pub set_env: BTreeMap<String, String>,
    /// How long the program may run (humantime, e.g. `"60s"`); default 30 s.
    #[serde(default = "default_command_timeout", with = "humantime_serde")]
    #[schemars(schema_with = "duration_schema")]
    pub timeout: Duration,
    /// Bytes of stdout+stderr kept; the rest is cut with a note. Default 64 KiB.
    #[serde(default = "default_max_output")]
    pub max_output: usize,
    /// Output over `max_output`: `"truncate"` (the first part, a notice and
    /// the total size; the default) or `"error"` (an error result).
    #[serde(default)]
    pub on_large_output: LargeOutput,
    /// Allow substituted values that start an element with `-`.
    #[serde(default)]
    pub allow_leading_dash: bool,
    /// `readOnlyHint`.
    #[serde(default)]
    pub read_only: Option<bool>,
    /// `destructiveHint`.
    #[serde(default)]
    pub destructive: Option<bool>,
    /// `idempotentHint`.
    #[serde(default)]
    pub idempotent: Option<bool>,
    /// `openWorldHint`.
    #[serde(default)]
    pub open_world: Option<bool>,
    /// JSON Schema of the arguments (root `type = "object"`); default: no arguments.
    #[serde(default)]
    pub input_schema: Option<Value>,
    /// OAuth scopes a caller must hold to see and call the tool (HTTP with
    /// authorization).
    #[serde(default)]
    pub scopes: Vec<String>,
    /// Whether a call runs as a task of the Tasks extension: `"never"` (the
    /// default), `"optional"` (a 2026-07-28 client that declares the
    /// extension gets a task handle at once and polls for the output;
    /// others wait as usual) or `"required"` (only as a task). For long
    /// builds and test runs; `timeout` still bounds the program.
    #[serde(default)]
    pub task: TaskMode,
    /// Run the program in the sandbox (Linux Landlock: writes only to the
    /// served folder and a private temporary folder, reads only the folder,
    /// system folders and toolchains). Default: `[sandbox] enabled`, which
    /// is on when `[tools.builtin] write = true`. `false` runs it as
    /// switchboard's own user, unrestricted.
    #[serde(default)]
    pub sandbox: Option<bool>,
    /// In the sandbox, allow TCP (connect and bind); default false.
    #[serde(default)]
    pub network: bool,
    /// The view (MCP Apps) a host shows with this tool's results: the name
    /// of a page of the apps folder (`"report"` for `apps/report.html`,
    /// served as `ui://<server>/report`).
    #[serde(default)]
    #[schemars(example = &"report")]
    pub ui: Option<String>,
    /// Who may call the tool: `["model", "app"]` (the default) or `["app"]`
    /// (only its view, through the host; the model never sees it).
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub visibility: Option<Vec<Visibility>>,
}

/// When a command tool runs as a task (`task` in `[[tools.command]]`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TaskMode {
    /// Never: the call is answered when the program ends.
    #[default]
    Never,
    /// When the client declares the Tasks extension.
    Optional,
    /// Only as a task; other clients are refused (`-32021`).
    Required,
}

impl TaskMode {
    /// The framework's task support for this mode.
    pub fn support(self) -> switchboard_server::TaskSupport {
        match self {
            TaskMode::Never => switchboard_server::TaskSupport::Forbidden,
            TaskMode::Optional => switchboard_server::TaskSupport::Optional,
            TaskMode::Required => switchboard_server::TaskSupport::Required,
        }
    }
}

/// How an HTTP tool sends the arguments the URL does not use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum BodyMode {
    /// As a JSON object body (`Content-Type: application/json`).
    Json,
}

/// A tool that makes an HTTP request (`[[tools.http]]`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpToolSpec {
    /// The tool's name: 1 to 128 letters, digits, `_`, `-` or `.`.
    #[schemars(example = &"weather")]
    pub name: String,
    /// A display title.
    #[serde(default)]
    pub title: Option<String>,
    /// What the tool does, for the model.
    #[serde(default)]
    pub description: Option<String>,
    /// An RFC 6570 URL template whose variables are arguments.
    #[schemars(example = "https://api.example.com/weather{?city}")]
    pub url: String,
    /// GET, POST, PUT, PATCH or DELETE; default GET.
    #[serde(default = "default_method")]
    pub method: String,
    /// Request headers; values may use `${ENV_VAR}` (`$$` is a literal `$`).
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Send the arguments the URL does not use as a body.
    #[serde(default)]
    pub body: Option<BodyMode>,
    /// Time limit of the whole request (humantime); default 30 s.
    #[serde(default = "default_http_timeout", with = "humantime_serde")]
    #[schemars(schema_with = "duration_schema")]
    pub timeout: Duration,
    /// Bytes of response body kept; default 1 MiB.
    #[serde(default = "default_max_response")]
    pub max_response: usize,
    /// A body over `max_response`: `"truncate"` (the first part, a notice
    /// and the total size; the default) or `"error"` (an error result).
    #[serde(default)]
    pub on_large_output: LargeOutput,
    /// `readOnlyHint`.
    #[serde(default)]
    pub read_only: Option<bool>,
    /// `destructiveHint`.
    #[serde(default)]
    pub destructive: Option<bool>,
    /// `idempotentHint`.
    #[serde(default)]
    pub idempotent: Option<bool>,
    /// `openWorldHint`.
    #[serde(default)]
    pub open_world: Option<bool>,
    /// JSON Schema of the arguments (root `type = "object"`); default: no arguments.
    #[serde(default)]
    pub input_schema: Option<Value>,
    /// OAuth scopes a caller must hold to see and call the tool (HTTP with
    /// authorization).
    #[serde(default)]
    pub scopes: Vec<String>,
    /// The view (MCP Apps) a host shows with this tool's results: the name
    /// of a page of the apps folder (`"report"` for `apps/report.html`,
    /// served as `ui://<server>/report`).
    #[serde(default)]
    #[schemars(example = &"report")]
    pub ui: Option<String>,
    /// Who may call the tool: `["model", "app"]` (the default) or `["app"]`
    /// (only its view, through the host; the model never sees it).
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub visibility: Option<Vec<Visibility>>,
}

/// Which built-in file tools to offer (`search`, `read_file`, the folder
/// tools `list_directory`, `find_files` and `file_info`, and with `write`,
/// `write_file`, `edit_file`, `create_directory` and `move_file`; with
/// `delete`, `delete_file`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct FileToolsOptions {
    /// Offer `search`; default true.
    pub search: bool,
    /// Offer `read_file` (one file or several, text or images); default true.
    pub read: bool,
    /// Offer `list_directory`, `find_files` and `file_info` alongside
    /// `read_file` (so `read = false` turns them off too, as a
    /// configuration written before they existed expects); default true.
    pub list: bool,
    /// Offer `write_file`, `edit_file`, `create_directory` and `move_file`; default false.
    pub write: bool,
    /// Offer `delete_file` (files and empty folders); default false. Only
    /// this key turns it on (`write` alone never deletes).
    pub delete: bool,
    /// Largest file `read_file` returns whole and `edit_file` edits; default 1 MiB.
    pub max_read_bytes: u64,
    /// Largest PNG, JPEG, GIF or WebP image `read_file` returns as image
    /// content; default 5 MiB (the tree's `max_file_size` still applies).
    pub max_image_bytes: u64,
}

impl Default for FileToolsOptions {
    fn default() -> Self {
        Self {
            search: true,
            read: true,
            list: true,
            write: false,
            delete: false,
            max_read_bytes: 1024 * 1024,
            max_image_bytes: 5 * 1024 * 1024,
        }
    }
}

fn default_cwd() -> PathBuf {
    PathBuf::from(".")
}

fn default_command_timeout() -> Duration {
    Duration::from_secs(30)
}

/// The default time limit of an HTTP request (30 s).
pub fn default_http_timeout() -> Duration {
    Duration::from_secs(30)
}

fn default_max_output() -> usize {
    64 * 1024
}

/// The default cap of an HTTP response body (1 MiB).
pub fn default_max_response() -> usize {
    1024 * 1024
}

fn default_method() -> String {
    "GET".to_owned()
}

/// What command and HTTP tools declare alike: title, description, the four
/// behaviour hints and the scopes a caller needs.
pub(crate) struct Metadata<'a> {
    pub title: Option<&'a String>,
    pub description: Option<&'a String>,
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
    pub scopes: &'a [String],
}

impl Metadata<'_> {
    /// `tool` with this metadata set (annotations only if a hint is set).
    pub(crate) fn apply(self, mut tool: switchboard_server::Tool) -> switchboard_server::Tool {
        if let Some(title) = self.title {
            tool = tool.title(title.clone());
        }
        if let Some(description) = self.description {
            tool = tool.description(description.clone());
        }
        let hints = [self.read_only, self.destructive, self.idempotent, self.open_world];
        if hints.iter().any(Option::is_some) {
            tool = tool.annotations(ToolAnnotations {
                read_only_hint: self.read_only,
                destructive_hint: self.destructive,
                idempotent_hint: self.idempotent,
                open_world_hint: self.open_world,
                ..ToolAnnotations::default()
            });
        }
        if !self.scopes.is_empty() {
            tool = tool.requires_scopes(self.scopes.iter().cloned());
        }
        tool
    }
}

impl CommandToolSpec {
    pub(crate) fn metadata(&self) -> Metadata<'_> {
        Metadata {
            title: self.title.as_ref(),
            description: self.description.as_ref(),
            read_only: self.read_only,
            destructive: self.destructive,
            idempotent: self.idempotent,
            open_world: self.open_world,
            scopes: &self.scopes,
        }
    }
}

impl HttpToolSpec {
    pub(crate) fn metadata(&self) -> Metadata<'_> {
        Metadata {
            title: self.title.as_ref(),
            description: self.description.as_ref(),
            read_only: self.read_only,
            destructive: self.destructive,
            idempotent: self.idempotent,
            open_world: self.open_world,
            scopes: &self.scopes,
        }
    }
}

/// The input schema (default: no arguments), checked: it compiles, its root
/// is `type: "object"`. Returns it with the names of its properties.
pub(crate) fn input_schema(tool: &str, schema: Option<&Value>) -> Result<(Value, Vec<String>), ToolsError> {
    let invalid = |reason: String| ToolsError::InvalidSchema { tool: tool.to_owned(), reason };
    let Some(schema) = schema else {
        return Ok((json!({"type": "object", "additionalProperties": false}), Vec::new()));
    };
    let Value::Object(map) = schema else {
        return Err(invalid("it must be a table (a JSON object)".to_owned()));
    };
    if map.get("type") != Some(&json!("object")) {
        return Err(invalid("its root must have type = \"object\"".to_owned()));
    }
    jsonschema::options().build(schema).map_err(|e| invalid(e.to_string()))?;
    let properties = match map.get("properties") {
        None => Vec::new(),
        Some(Value::Object(p)) => p.keys().cloned().collect(),
        Some(_) => return Err(invalid("properties must be a table".to_owned())),
    };
    Ok((schema.clone(), properties))
}

/// Refuses a zero timeout or size limit, which would make every call fail.
pub(crate) fn check_limits(
    tool: &str,
    timeout: Duration,
    (limit_name, limit): (&'static str, usize),
) -> Result<(), ToolsError> {
    match limit_problems(tool, timeout, (limit_name, limit)).into_iter().next() {
        Some(problem) => Err(problem.error),
        None => Ok(()),
    }
}

/// Every zero timeout or size limit, placed on its key.
pub(crate) fn limit_problems(
    tool: &str,
    timeout: Duration,
    (limit_name, limit): (&'static str, usize),
) -> Vec<SpecProblem> {
    let mut problems = Vec::new();
    if timeout.is_zero() {
        let reason = "must be more than zero, like \"30s\"".to_owned();
        let error = ToolsError::InvalidSetting { tool: tool.to_owned(), setting: "timeout", reason };
        problems.push(SpecProblem::at(["timeout".into()], error));
    }
    if limit == 0 {
        let reason = "must be more than zero bytes, like 65536".to_owned();
        let error = ToolsError::InvalidSetting { tool: tool.to_owned(), setting: limit_name, reason };
        problems.push(SpecProblem::at([limit_name.into()], error));
    }
    problems
}

/// The JSON Schema of a humantime duration (`"30s"`, `"15m"`, `"1h 30m"`).
pub fn duration_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "string",
        "pattern": "^\\s*([0-9]+\\s*[a-zA-Zµ]+\\s*)+$",
        "examples": ["30s", "15m", "1h 30m"],
    })
}

impl FileToolsOptions {
    /// The names of the built-in tools these options turn on (what
    /// [`crate::file_tools`] returns), for finding a declared tool that
    /// would shadow one.
    pub fn tool_names(&self) -> Vec<&'static str> {
        let mut names = Vec::new();
        if self.search {
            names.push("search");
        }
        if self.read {
            names.push("read_file");
        }
        if self.read && self.list {
            names.extend(["list_directory", "find_files", "file_info"]);
        }
        if self.write {
            names.extend(["write_file", "edit_file", "create_directory", "move_file"]);
        }
        if self.delete {
            names.push("delete_file");
        }
        names
    }
}

/// The name, placed on `name`, if it breaks the MCP rule.
pub(crate) fn name_problem(tool: &str) -> Option<SpecProblem> {
    let Err(switchboard_server::Error::InvalidToolName { reason, .. }) =
        switchboard_server::validate_tool_name(tool)
    else {
        return None;
    };
    let error = ToolsError::BadName { tool: tool.to_owned(), reason: reason.to_owned() };
    Some(SpecProblem::at(["name".into()], error))
}

/// The input schema's problem, placed on `input_schema`, or its property names.
pub(crate) fn schema_checked(tool: &str, schema: Option<&Value>) -> Result<Vec<String>, SpecProblem> {
    input_schema(tool, schema).map(|(_, properties)| properties).map_err(|error| {
        let at: Vec<Segment> = if schema.is_some() { vec!["input_schema".into()] } else { Vec::new() };
        SpecProblem::at(at, error)
    })
}

/// The property names a schema that is not usable still declares (the
/// keys of its `properties` table), so a placeholder typo is reported
/// in the same run as the schema's own problem.
pub(crate) fn declared_properties(schema: Option<&Value>) -> Option<Vec<String>> {
    let properties = schema?.get("properties")?.as_object()?;
    Some(properties.keys().cloned().collect())
}

/// Where `program` will be found when the tool runs in `cwd`: a path with
/// a `/` relative to `cwd` (or absolute), a bare name on `PATH` (the `PATH`
/// the tool is given is switchboard's own). The error says why not.
pub(crate) fn find_program(program: &str, cwd: &Path) -> Result<PathBuf, String> {
    if program.contains('/') {
        // `./run.sh` shown as `/served/run.sh`, not `/served/./run.sh`.
        let relative: PathBuf =
            Path::new(program).components().filter(|c| *c != std::path::Component::CurDir).collect();
        let path = cwd.join(relative);
        if !path.is_file() {
            return Err(format!("does not exist (looked for {})", path.display()));
        }
        if !is_executable(&path) {
            return Err(format!("is not executable; run `chmod +x {}`", path.display()));
        }
        return Ok(path);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| cwd.join(dir).join(program))
        .find(|candidate| candidate.is_file() && is_executable(candidate))
        .ok_or_else(|| {
            format!("is not on PATH; install it, or give its path, like \"./scripts/{program}\" (relative to the served folder)")
        })
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    path.metadata().is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(json: Value) -> CommandToolSpec {
        serde_json::from_value(json).unwrap()
    }

    fn places(problems: &[SpecProblem]) -> Vec<(Vec<Segment>, bool)> {
        problems.iter().map(|p| (p.at.clone(), p.in_key)).collect()
    }

    #[test]
    fn a_command_spec_lists_every_problem_with_its_key() {
        let root = tempfile::tempdir().unwrap();
        let spec = command(json!({
            "name": "bad name",
            "command": ["surely-no-such-program-here", "ok", "{nope}"],
            "timeout": "0s",
            "env": ["GOOD", "BAD=NAME"],
        }));
        let problems = spec.problems(root.path());
        let key = |k: &str| Segment::Key(k.to_owned());
        assert_eq!(
            places(&problems),
            vec![
                (vec![key("name")], false),
                (vec![key("command"), Segment::Index(2)], false),
                (vec![key("command"), Segment::Index(0)], false),
                (vec![key("timeout")], false),
                (vec![key("env"), Segment::Index(1)], false),
            ],
            "{problems:#?}"
        );
        assert!(problems[2].error.to_string().contains("is not on PATH"), "{}", problems[2].error);
    }

    #[test]
    fn a_relative_program_is_looked_for_in_the_served_folder() {
        use std::os::unix::fs::PermissionsExt as _;
        let root = tempfile::tempdir().unwrap();
        let spec = command(json!({"name": "run", "command": ["./run.sh"]}));
        let missing = spec.problems(root.path());
        assert!(missing[0].error.to_string().contains("does not exist"), "{}", missing[0].error);
        let script = root.path().join("run.sh");
        std::fs::write(&script, "#!/bin/sh\n").unwrap();
        let not_executable = spec.problems(root.path());
        assert!(not_executable[0].error.to_string().contains("chmod +x"), "{}", not_executable[0].error);
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(spec.problems(root.path()).is_empty());
        let on_path = command(json!({"name": "list", "command": ["sh", "-c", "ls"]}));
        assert!(on_path.problems(root.path()).is_empty());
    }

    #[test]
    fn an_http_spec_places_header_names_on_the_key_and_values_on_the_value() {
        let spec: HttpToolSpec = serde_json::from_value(json!({
            "name": "h",
            "url": "http://127.0.0.1/{who}",
            "method": "TRACE",
            "headers": {"bad header": "x", "X-Token": "${SWITCHBOARD_SURELY_UNSET_VARIABLE}"},
        }))
        .unwrap();
        let problems = spec.problems();
        let key = |k: &str| Segment::Key(k.to_owned());
        assert_eq!(
            places(&problems),
            vec![
                (vec![key("url")], false),
                (vec![key("method")], false),
                (vec![key("headers"), key("X-Token")], false),
                (vec![key("headers"), key("bad header")], true),
            ],
            "{problems:#?}"
        );
    }

    #[test]
    fn the_builtin_names_are_those_of_the_file_tools() {
        let root = tempfile::tempdir().unwrap();
        let tree = switchboard_tree::ServedTree::new(root.path(), &Default::default()).unwrap();
        for (search, read, write, delete) in [
            (true, true, false, false),
            (false, true, true, true),
            (true, false, true, false),
            (false, false, false, true),
        ] {
            let options = FileToolsOptions { search, read, write, delete, ..FileToolsOptions::default() };
            let built: Vec<String> =
                crate::file_tools(&tree, &options).iter().map(|t| t.name().to_owned()).collect();
            assert_eq!(built, options.tool_names());
        }
    }
}
