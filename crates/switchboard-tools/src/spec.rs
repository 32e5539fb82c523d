//! The configuration structs the `switchboard` TOML loader embeds, with their
//! defaults, and the checks shared by every configured tool (schema,
//! annotations).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};
use switchboard_types::tools::ToolAnnotations;

use crate::error::ToolsError;

/// A tool that runs a program (`[[tools.command]]`); see the crate docs
/// for the argv template rules.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandToolSpec {
    /// The tool's name.
    pub name: String,
    /// A display title.
    #[serde(default)]
    pub title: Option<String>,
    /// What the tool does, for the model.
    #[serde(default)]
    pub description: Option<String>,
    /// The argv template: program first, then arguments with `{name}` placeholders.
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
    pub timeout: Duration,
    /// Bytes of stdout+stderr kept; the rest is cut with a note. Default 64 KiB.
    #[serde(default = "default_max_output")]
    pub max_output: usize,
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
}

/// How an HTTP tool sends the arguments the URL does not use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BodyMode {
    /// As a JSON object body (`Content-Type: application/json`).
    Json,
}

/// A tool that makes an HTTP request (`[[tools.http]]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HttpToolSpec {
    /// The tool's name.
    pub name: String,
    /// A display title.
    #[serde(default)]
    pub title: Option<String>,
    /// What the tool does, for the model.
    #[serde(default)]
    pub description: Option<String>,
    /// An RFC 6570 URL template whose variables are arguments.
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
    pub timeout: Duration,
    /// Bytes of response body kept; default 1 MiB.
    #[serde(default = "default_max_response")]
    pub max_response: usize,
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
}

/// Which built-in file tools to offer (`search`, `read_file`, and with
/// `write`, `write_file` and `edit_file`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FileToolsOptions {
    /// Offer `search`; default true.
    pub search: bool,
    /// Offer `read_file`; default true.
    pub read: bool,
    /// Offer `write_file` and `edit_file`; default false.
    pub write: bool,
    /// Largest file `read_file` returns whole and `edit_file` edits; default 1 MiB.
    pub max_read_bytes: u64,
}

impl Default for FileToolsOptions {
    fn default() -> Self {
        Self { search: true, read: true, write: false, max_read_bytes: 1024 * 1024 }
    }
}

fn default_cwd() -> PathBuf {
    PathBuf::from(".")
}

fn default_command_timeout() -> Duration {
    Duration::from_secs(30)
}

fn default_http_timeout() -> Duration {
    Duration::from_secs(30)
}

fn default_max_output() -> usize {
    64 * 1024
}

fn default_max_response() -> usize {
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
    if timeout.is_zero() {
        return Err(ToolsError::InvalidSetting {
            tool: tool.to_owned(),
            setting: "timeout",
            reason: "must be more than zero (e.g. \"30s\")".to_owned(),
        });
    }
    if limit == 0 {
        return Err(ToolsError::InvalidSetting {
            tool: tool.to_owned(),
            setting: limit_name,
            reason: "must be more than zero bytes".to_owned(),
        });
    }
    Ok(())
}
