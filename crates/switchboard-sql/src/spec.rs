//! The configuration of databases (`[[databases]]`) and of SQL tools
//! (`[[tools.sql]]`), as the `switchboard` TOML loader embeds them.
//!
//! The structs derive [`schemars::JsonSchema`] so `switchboard schema` and
//! the configuration reference come from the very types the parser fills.
//! [`DatabaseSpec::problems`] and [`SqlToolSpec::problems`] report every
//! problem that needs no database at once, each placed on its key, for
//! `switchboard check` and for leaving a broken entry out at load; what
//! needs the database (an unknown table, a privileged role) is
//! the `check` of the `serve` module's.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use crate::{Access, Exclusions, Options};

/// One step of the path from an entry's table to the value at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Key {
    /// A key of a table.
    Name(String),
    /// An element of an array.
    Index(usize),
}

impl From<&str> for Key {
    fn from(key: &str) -> Self {
        Key::Name(key.to_owned())
    }
}

/// A problem of one entry: where (the keys from the entry's table; empty:
/// the table itself) and what, in words an operator can act on. Never
/// holds a password.
pub type Problem = (Vec<Key>, String);

fn problem<const N: usize>(keys: [&str; N], message: impl Into<String>) -> Problem {
    (keys.into_iter().map(Key::from).collect(), message.into())
}

/// A database served to the model (`[[databases]]`): its schema as
/// resources, an ad-hoc read-only query tool, and the `[[tools.sql]]`
/// statements that name it.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DatabaseSpec {
    /// The database's name: 1 to 48 of `a-z`, `0-9` and `_`. It names the
    /// query tool (`{name}_query`) and the resources (`db://{name}/schema`).
    #[schemars(example = &"shop")]
    pub name: String,
    /// A PostgreSQL URL without a password
    /// (`postgres://app_ro@db.internal:5432/shop?sslmode=verify-full`); the
    /// password comes from `password_env`. Exactly one of `url`, `url_env`
    /// and `path`.
    #[serde(default)]
    pub url: Option<String>,
    /// An environment variable holding the whole PostgreSQL URL (it may
    /// hold the password: it never appears in the file, a log or an error).
    #[serde(default)]
    pub url_env: Option<String>,
    /// An environment variable holding the PostgreSQL password.
    #[serde(default)]
    pub password_env: Option<String>,
    /// An SQLite file, relative to the served folder. It is opened
    /// read-only (unless `access = "write"`) and never served as a file.
    #[serde(default)]
    pub path: Option<PathBuf>,
    /// `"read"` (the default: every call is read-only, enforced by the
    /// engine) or `"write"` (`[[tools.sql]]` marked `access = "write"` may
    /// write; the query tool stays read-only).
    #[serde(default)]
    pub access: Access,
    /// How long one statement may run before the database stops it
    /// (humantime); default `"5s"`.
    #[serde(default = "default_statement_timeout", with = "humantime_serde")]
    #[schemars(schema_with = "duration_schema")]
    pub statement_timeout: Duration,
    /// Rows one call returns at most (more: `truncated` and a cursor to
    /// continue); default 500.
    #[serde(default = "default_max_rows")]
    pub max_rows: u64,
    /// Bytes of JSON rows one call returns at most: a number of bytes or a
    /// size like `"256KiB"` (the default) or `"1MiB"`.
    #[serde(default = "default_max_bytes")]
    pub max_bytes: ByteSize,
    /// The PostgreSQL schemas exposed; default: the role's search path.
    #[serde(default)]
    pub schemas: Vec<String>,
    /// Tables and columns the model never sees, through any path:
    /// `table`, `table.column` or `schema.table.column`; `*` matches any
    /// characters within a part.
    #[serde(default)]
    #[schemars(example = ["customers.ssn", "audit_*"])]
    pub exclude: Vec<String>,
    /// Offer the ad-hoc read-only tool `{name}_query` (`{"sql": …}`);
    /// default true for a read database, false for a write one or one with
    /// `session` settings (model-written SQL could set them itself, so it
    /// cannot be offered together with `session`).
    #[serde(default)]
    pub query_tool: Option<bool>,
    /// Serve a read database through a privileged PostgreSQL role
    /// (superuser, or one that reads or writes server files or runs server
    /// programs, or a member of such a role, which can become it), which is
    /// refused otherwise; default false.
    #[serde(default)]
    pub allow_privileged_role: bool,
    /// PostgreSQL connections kept open at most; default 4.
    #[serde(default = "default_pool_size")]
    pub pool_size: usize,
    /// How long opening the database may take (humantime); default `"10s"`.
    #[serde(default = "default_connect_timeout", with = "humantime_serde")]
    #[schemars(schema_with = "duration_schema")]
    pub connect_timeout: Duration,
    /// PostgreSQL settings set for each call's transaction only, from the
    /// caller's token claims (HTTP with authorization), for row-level
    /// security per end user: `{ "app.user_id" = "claims.sub" }` (the
    /// token's subject). Names must be custom settings (with a dot); a call
    /// without an authenticated caller is refused. This holds for
    /// `[[tools.sql]]` statements only: a database with `session` offers no
    /// `{name}_query` tool, since model-written SQL could set the setting.
    #[serde(default)]
    pub session: BTreeMap<String, String>,
    /// How often the schema's fingerprint is checked for changes
    /// (humantime); default `"30s"`.
    #[serde(default = "default_poll", with = "humantime_serde")]
    #[schemars(schema_with = "duration_schema")]
    pub poll: Duration,
}

/// A size in bytes: a number, or a string with a unit (`"256KiB"`,
/// `"1 MiB"`, `"500kB"`; `B`, `KiB`, `MiB`, `GiB` and the decimal `kB`,
/// `MB`, `GB`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteSize(pub u64);

impl ByteSize {
    /// Parses `"256KiB"`-style text.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let split = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
        let (digits, unit) = text.split_at(split);
        let bad = || {
            format!(
                "{text:?} is not a size: expected a number of bytes, or one with a unit like \"256KiB\" or \"1MiB\""
            )
        };
        let number: u64 = digits.parse().map_err(|_| bad())?;
        let factor: u64 = match unit.trim() {
            "" | "B" => 1,
            "KiB" => 1 << 10,
            "MiB" => 1 << 20,
            "GiB" => 1 << 30,
            "kB" | "KB" => 1_000,
            "MB" => 1_000_000,
            "GB" => 1_000_000_000,
            _ => return Err(bad()),
        };
        number.checked_mul(factor).map(ByteSize).ok_or_else(|| format!("{text:?} is too large"))
    }
}

impl<'de> Deserialize<'de> for ByteSize {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Form {
            Number(u64),
            Text(String),
        }
        match Form::deserialize(deserializer)? {
            Form::Number(n) => Ok(ByteSize(n)),
            Form::Text(text) => ByteSize::parse(&text).map_err(serde::de::Error::custom),
        }
    }
}

impl JsonSchema for ByteSize {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ByteSize".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A number of bytes, or a size with a unit (B, KiB, MiB, GiB, kB, MB, GB).",
            "oneOf": [
                {"type": "integer", "minimum": 0},
                {"type": "string", "pattern": "^\\s*[0-9]+\\s*(B|KiB|MiB|GiB|kB|KB|MB|GB)?\\s*$"}
            ],
            "examples": ["256KiB", 65536],
        })
    }
}

/// Whether a `[[tools.sql]]` statement asks the user before it commits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Confirm {
    /// Never: a write commits when it stays within `max_affected_rows`.
    #[default]
    Never,
    /// Always: the user sees the statement, the values and the number of
    /// rows it would affect, and accepts, before it commits.
    Always,
}

/// When a `[[tools.sql]]` call runs as a task of the Tasks extension.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TaskMode {
    /// Never: the call is answered when the statement ends.
    #[default]
    Never,
    /// When the client declares the Tasks extension.
    Optional,
    /// Only as a task; other clients are refused.
    Required,
}

/// The JSON type a parameter's value takes, over what the database says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ParamType {
    /// A string.
    String,
    /// An integer.
    Integer,
    /// A number.
    Number,
    /// `true` or `false`.
    Boolean,
}

impl ParamType {
    /// Its JSON Schema `type` name.
    pub fn as_str(self) -> &'static str {
        match self {
            ParamType::String => "string",
            ParamType::Integer => "integer",
            ParamType::Number => "number",
            ParamType::Boolean => "boolean",
        }
    }
}

/// What the configuration adds to a statement parameter; its type comes
/// from the database.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ParamSpec {
    /// What the parameter is, for the model.
    #[serde(default)]
    pub description: Option<String>,
    /// The value used when the caller gives none (the parameter is then optional).
    #[serde(default)]
    pub default: Option<Value>,
    /// The only values allowed (say, table names chosen from a closed set).
    #[serde(default, rename = "enum")]
    pub enum_values: Option<Vec<Value>>,
    /// The smallest number allowed.
    #[serde(default)]
    pub minimum: Option<f64>,
    /// The largest number allowed.
    #[serde(default)]
    pub maximum: Option<f64>,
    /// A regular expression a string value must match (JSON Schema `pattern`).
    #[serde(default)]
    pub pattern: Option<String>,
    /// The JSON type of the value, over the database's (for a parameter
    /// whose type the database cannot tell, as in SQLite).
    #[serde(default, rename = "type")]
    pub type_override: Option<ParamType>,
}

/// A tool that runs one SQL statement from the configuration
/// (`[[tools.sql]]`). Its parameters (`:name` in `sql`) are bound, never
/// spliced; its input and output schemas come from the database.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SqlToolSpec {
    /// The tool's name: 1 to 128 letters, digits, `_`, `-` or `.`.
    #[schemars(example = &"orders_of_customer")]
    pub name: String,
    /// The `[[databases]]` entry it runs on.
    pub database: String,
    /// A display title.
    #[serde(default)]
    pub title: Option<String>,
    /// What the tool does, for the model.
    #[serde(default)]
    pub description: Option<String>,
    /// One statement, with `:name` placeholders for the parameters.
    #[schemars(example = &"SELECT id, total FROM orders WHERE customer_id = :customer_id")]
    pub sql: String,
    /// What the configuration adds to each parameter (description,
    /// default, enum, bounds, pattern, type); a placeholder without an
    /// entry takes its type from the database.
    #[serde(default)]
    pub params: BTreeMap<String, ParamSpec>,
    /// `"read"` (the default: read-only, enforced by the engine) or
    /// `"write"` (on a database with `access = "write"`; runs in a
    /// transaction).
    #[serde(default)]
    pub access: Access,
    /// A write affecting more rows than this is rolled back (and the
    /// answer says how many it would have affected).
    #[serde(default)]
    pub max_affected_rows: Option<u64>,
    /// `"never"` (the default) or `"always"`: ask the user, showing the
    /// statement, the values and the number of rows, before a write commits.
    #[serde(default)]
    pub confirm: Confirm,
    /// Whether a call runs as a task: `"never"` (the default),
    /// `"optional"` or `"required"`, as for command tools.
    #[serde(default)]
    pub task: TaskMode,
    /// `readOnlyHint`; default true for a read tool, false for a write one.
    #[serde(default)]
    pub read_only: Option<bool>,
    /// `destructiveHint`.
    #[serde(default)]
    pub destructive: Option<bool>,
    /// `idempotentHint`.
    #[serde(default)]
    pub idempotent: Option<bool>,
    /// `openWorldHint`; default false (one known database).
    #[serde(default)]
    pub open_world: Option<bool>,
    /// OAuth scopes a caller must hold to see and call the tool.
    #[serde(default)]
    pub scopes: Vec<String>,
    /// Rows one call returns at most, over the database's `max_rows`.
    #[serde(default)]
    pub max_rows: Option<u64>,
    /// Bytes of rows one call returns at most, over the database's `max_bytes`.
    #[serde(default)]
    pub max_bytes: Option<ByteSize>,
    /// The view (MCP Apps) a host shows with this tool's results: the name
    /// of a page of the apps folder (`"report"` for `apps/report.html`);
    /// default for a read tool: switchboard's built-in table view.
    #[serde(default)]
    #[schemars(example = &"report")]
    pub ui: Option<String>,
    /// Who may call the tool: `["model", "app"]` (the default) or `["app"]`
    /// (only its view, through the host; the model never sees it).
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub visibility: Option<Vec<switchboard_types::apps::Visibility>>,
}

/// Where a database is, once the environment is read and a path resolved
/// against the served folder.
#[derive(Clone, PartialEq, Eq)]
pub enum Target {
    /// An SQLite file.
    Sqlite(PathBuf),
    /// A PostgreSQL server.
    Postgres {
        /// The URL (from `url`, or from `url_env`'s variable).
        url: String,
        /// The password from `password_env`'s variable.
        password: Option<String>,
    },
}

impl std::fmt::Debug for Target {
    /// Never shows the URL (it may hold a password) nor the password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Sqlite(path) => f.debug_tuple("Sqlite").field(path).finish(),
            Target::Postgres { password, .. } => f
                .debug_struct("Postgres")
                .field("url", &"<hidden>")
                .field("password", &password.as_ref().map(|_| "<hidden>"))
                .finish(),
        }
    }
}

/// A database ready to open: its entry and where it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// The `[[databases]]` entry.
    pub spec: DatabaseSpec,
    /// Where it is.
    pub target: Target,
}

impl Resolved {
    /// How the engine opens it. Exclusions that do not parse (a problem
    /// [`DatabaseSpec::problems`] reports) exclude every table: a broken
    /// `exclude` never serves what it meant to hide.
    pub fn options(&self) -> Options {
        let spec = &self.spec;
        let exclude = Exclusions::new(&spec.exclude)
            .unwrap_or_else(|_| Exclusions::new(&["*"]).expect("`*` is a valid pattern"));
        Options {
            access: spec.access,
            statement_timeout: spec.statement_timeout,
            connect_timeout: spec.connect_timeout,
            schemas: spec.schemas.clone(),
            exclude,
            allow_privileged_role: spec.allow_privileged_role,
            pool_size: spec.pool_size,
        }
    }
}

impl DatabaseSpec {
    /// Whether the ad-hoc `{name}_query` tool is offered.
    ///
    /// Never with `session` settings: they hold row-level security only
    /// for configured statements, since model-written SQL can call
    /// `set_config('app.user_id', …)` itself. (`query_tool = true` with
    /// `session` is a problem; a broken entry still does not offer it.)
    pub fn offers_query_tool(&self) -> bool {
        self.session.is_empty() && self.query_tool.unwrap_or(self.access == Access::Read)
    }

    /// The name of its ad-hoc query tool.
    pub fn query_tool_name(&self) -> String {
        format!("{}_query", self.name)
    }

    /// Whether it is an SQLite file (`path`) rather than PostgreSQL.
    pub fn is_sqlite(&self) -> bool {
        self.path.is_some()
    }

    /// Every problem that needs no database, each placed on its key.
    pub fn problems(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        if let Some(message) = name_problem(&self.name) {
            problems.push(problem(["name"], message));
        }
        problems.extend(self.target_problems());
        problems.extend(limit_problems(&[
            ("statement_timeout", self.statement_timeout.is_zero()),
            ("connect_timeout", self.connect_timeout.is_zero()),
            ("poll", self.poll.is_zero()),
            ("max_rows", self.max_rows == 0),
            ("max_bytes", self.max_bytes.0 == 0),
            ("pool_size", self.pool_size == 0),
        ]));
        for (index, pattern) in self.exclude.iter().enumerate() {
            if let Err(message) = Exclusions::new(&[pattern]) {
                problems.push((vec![Key::from("exclude"), Key::Index(index)], message));
            }
        }
        for (setting, claim) in &self.session {
            let at = vec![Key::from("session"), Key::Name(setting.clone())];
            if let Some(message) = session_problem(setting, claim) {
                problems.push((at.clone(), message));
            }
            if self.is_sqlite() {
                problems.push((at, "session settings need PostgreSQL; SQLite has none".into()));
            }
        }
        if self.query_tool == Some(true) && !self.session.is_empty() {
            problems.push(problem(
                ["query_tool"],
                "the ad-hoc query tool cannot be offered with `session` settings: model-written SQL can set them \
                 itself (set_config('app.user_id', …)) and read other users' rows; serve per-user data through \
                 [[tools.sql]] statements, or remove query_tool = true",
            ));
        }
        if self.is_sqlite() && !self.schemas.is_empty() {
            problems.push(problem(["schemas"], "schemas apply to PostgreSQL; an SQLite file has one"));
        }
        problems
    }

    /// Where the database is: exactly one of `url`, `url_env`, `path`; no
    /// password in the file.
    fn target_problems(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        let given = [self.url.is_some(), self.url_env.is_some(), self.path.is_some()];
        match given.iter().filter(|g| **g).count() {
            0 => problems.push(problem(
                [],
                "name where the database is: `path` (an SQLite file in the served folder), `url` or `url_env` (PostgreSQL)",
            )),
            1 => {}
            _ => problems.push(problem([], "give only one of `url`, `url_env` and `path`")),
        }
        if let Some(url) = &self.url {
            problems.extend(url_problem(url).map(|message| problem(["url"], message)));
            if url_has_password(url) {
                problems.push(problem(
                    ["url"],
                    "the URL holds a password: remove it and name an environment variable with `password_env` (or put the whole URL in one with `url_env`)",
                ));
            }
        }
        if self.path.is_some() && self.password_env.is_some() {
            problems.push(problem(["password_env"], "an SQLite file has no password"));
        }
        for (key, variable) in [("url_env", &self.url_env), ("password_env", &self.password_env)] {
            if variable.as_deref().is_some_and(|v| v.is_empty() || v.contains(['=', '\0'])) {
                problems.push(problem([key], "expected the name of an environment variable"));
            }
        }
        problems
    }
}

/// Why `url` (from the file or from `url_env`) is not a PostgreSQL URL, if
/// it is not one. The message never repeats the URL.
pub fn url_problem(url: &str) -> Option<String> {
    let scheme = url.split_once("://").map(|(scheme, _)| scheme.to_ascii_lowercase());
    match scheme.as_deref() {
        Some("postgres" | "postgresql") => None,
        _ => Some(
            "expected a PostgreSQL URL (`postgres://user@host:5432/dbname`); for an SQLite file use `path`"
                .into(),
        ),
    }
}

/// Whether a URL carries a password: `user:password@` in its authority, or
/// a `password=` query parameter.
pub fn url_has_password(url: &str) -> bool {
    let Some((_, rest)) = url.split_once("://") else { return false };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let in_authority = authority.rsplit_once('@').is_some_and(|(userinfo, _)| userinfo.contains(':'));
    let query = rest.split_once('?').map(|(_, q)| q).unwrap_or("");
    let in_query = query
        .split('&')
        .any(|pair| pair.split('=').next().is_some_and(|k| k.eq_ignore_ascii_case("password")));
    in_authority || in_query
}

/// A database name that would not make valid tool names and URIs.
fn name_problem(name: &str) -> Option<String> {
    let valid = !name.is_empty()
        && name.len() <= 48
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    (!valid).then(|| {
        format!("{name:?}: a database name is 1 to 48 of a-z, 0-9 and _ (it names the tool `{{name}}_query` and the URIs db://{{name}}/…)")
    })
}

/// A session setting that is not a custom setting, or a claim path that
/// does not name a claim.
fn session_problem(setting: &str, claim: &str) -> Option<String> {
    let identifier =
        |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    let parts: Vec<&str> = setting.split('.').collect();
    if parts.len() < 2 || !parts.iter().all(|p| identifier(p)) {
        return Some(format!(
            "{setting:?}: name a custom setting with a dot, like \"app.user_id\" (a built-in setting such as `role` is never set from a token)"
        ));
    }
    // The token validator carries the subject to calls (not yet the other
    // claims), so `claims.sub` is the one path that resolves.
    (claim != SUBJECT_CLAIM).then(|| {
        format!("{claim:?}: the caller's identity reaches a call as \"claims.sub\" (the token's subject), the one claim path available")
    })
}

/// The claim path naming the token's subject.
pub const SUBJECT_CLAIM: &str = "claims.sub";

/// Every limit that is zero, which would make each call fail.
fn limit_problems(limits: &[(&str, bool)]) -> Vec<Problem> {
    limits
        .iter()
        .filter(|(_, zero)| *zero)
        .map(|(key, _)| problem([*key], "must be more than zero"))
        .collect()
}

impl SqlToolSpec {
    /// The rows one call returns at most, on `database`.
    pub fn max_rows(&self, database: &DatabaseSpec) -> u64 {
        self.max_rows.unwrap_or(database.max_rows)
    }

    /// The bytes of rows one call returns at most, on `database`.
    pub fn max_bytes(&self, database: &DatabaseSpec) -> u64 {
        self.max_bytes.unwrap_or(database.max_bytes).0
    }

    /// Every problem that needs no database, each placed on its key. (A
    /// write tool on a read database is for the caller who sees both; a
    /// `params` entry the statement has no placeholder for is found by
    /// describing it, where the engine reads its own dialect.)
    pub fn problems(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        if let Err(switchboard_server::Error::InvalidToolName { reason, .. }) =
            switchboard_server::validate_tool_name(&self.name)
        {
            problems.push(problem(["name"], format!("{:?}: {reason}", self.name)));
        }
        if self.sql.trim().is_empty() {
            problems.push(problem(["sql"], "the statement is empty"));
        }
        for (name, param) in &self.params {
            let at = |key: &str| vec![Key::from("params"), Key::Name(name.clone()), Key::from(key)];
            problems.extend(param.problems().into_iter().map(|(key, message)| (at(key), message)));
        }
        if self.access == Access::Read {
            if self.confirm == Confirm::Always {
                problems.push(problem(
                    ["confirm"],
                    "only a write asks for confirmation: set access = \"write\" too",
                ));
            }
            if self.max_affected_rows.is_some() {
                problems
                    .push(problem(["max_affected_rows"], "applies to writes: set access = \"write\" too"));
            }
        }
        problems.extend(limit_problems(&[
            ("max_rows", self.max_rows == Some(0)),
            ("max_bytes", self.max_bytes.is_some_and(|b| b.0 == 0)),
        ]));
        problems
    }
}

impl ParamSpec {
    /// Its problems, each with the key at fault.
    fn problems(&self) -> Vec<(&'static str, String)> {
        let mut problems = Vec::new();
        if let (Some(min), Some(max)) = (self.minimum, self.maximum)
            && min > max
        {
            problems.push(("minimum", format!("{min} is more than the maximum {max}")));
        }
        if let Some(values) = &self.enum_values {
            if values.is_empty() {
                problems.push(("enum", "an empty enum allows no value at all".to_owned()));
            }
            if let Some(default) = &self.default
                && !values.contains(default)
            {
                problems.push(("default", "the default is not one of the enum's values".to_owned()));
            }
        }
        problems
    }
}

fn default_statement_timeout() -> Duration {
    Duration::from_secs(5)
}

fn default_connect_timeout() -> Duration {
    Duration::from_secs(10)
}

fn default_poll() -> Duration {
    Duration::from_secs(30)
}

fn default_max_rows() -> u64 {
    500
}

fn default_max_bytes() -> ByteSize {
    ByteSize(256 * 1024)
}

fn default_pool_size() -> usize {
    4
}

/// The JSON Schema of a humantime duration (`"5s"`, `"15m"`, `"1h 30m"`).
fn duration_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "string",
        "pattern": "^\\s*([0-9]+\\s*[a-zA-Zµ]+\\s*)+$",
        "examples": ["5s", "30s", "1m"],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn database(toml_like: Value) -> DatabaseSpec {
        serde_json::from_value(toml_like).unwrap()
    }

    #[test]
    fn defaults_and_sizes() {
        let spec = database(serde_json::json!({"name": "local", "path": "app.sqlite"}));
        assert_eq!(spec.statement_timeout, Duration::from_secs(5));
        assert_eq!((spec.max_rows, spec.max_bytes), (500, ByteSize(262_144)));
        assert!(spec.offers_query_tool() && spec.problems().is_empty());
        let spec =
            database(serde_json::json!({"name": "w", "path": "a", "access": "write", "max_bytes": "1 MiB"}));
        assert!(!spec.offers_query_tool());
        assert_eq!(spec.max_bytes, ByteSize(1 << 20));
        assert_eq!(ByteSize::parse("500kB"), Ok(ByteSize(500_000)));
        assert!(ByteSize::parse("12 parsecs").is_err() && ByteSize::parse("").is_err());
        let unknown = serde_json::from_value::<DatabaseSpec>(
            serde_json::json!({"name": "a", "path": "b", "passwd": "x"}),
        );
        assert!(unknown.is_err());
    }

    #[test]
    fn database_problems_are_placed() {
        let spec = database(serde_json::json!({
            "name": "Shop-DB", "url": "postgres://app:secret@db/shop", "path": "x.sqlite",
            "exclude": ["ok", "a..b"], "session": {"role": "claims.sub", "app.user": "sub"},
            "max_rows": 0,
        }));
        let keys: Vec<Vec<Key>> = spec.problems().into_iter().map(|(at, _)| at).collect();
        for expected in [
            vec![Key::from("name")],
            vec![],
            vec![Key::from("url")],
            vec![Key::from("max_rows")],
            vec![Key::from("exclude"), Key::Index(1)],
            vec![Key::from("session"), Key::from("role")],
            vec![Key::from("session"), Key::from("app.user")],
        ] {
            assert!(keys.contains(&expected), "{expected:?} not in {keys:?}");
        }
        assert!(spec.problems().iter().all(|(_, message)| !message.contains("secret")));
        let session = database(serde_json::json!({
            "name": "rls", "url": "postgres://app@db/shop", "session": {"app.user_id": "claims.sub"},
        }));
        assert!(!session.offers_query_tool() && session.problems().is_empty());
        let asked = database(serde_json::json!({
            "name": "rls", "url": "postgres://app@db/shop", "session": {"app.user_id": "claims.sub"},
            "query_tool": true,
        }));
        assert!(!asked.offers_query_tool());
        assert_eq!(asked.problems().len(), 1);
        assert_eq!(asked.problems()[0].0, vec![Key::from("query_tool")]);
        assert!(url_has_password("postgresql://u@h/db?sslmode=require&Password=x"));
        assert!(!url_has_password("postgres://app_ro@db.internal:5432/shop?sslmode=verify-full"));
    }

    #[test]
    fn tool_problems() {
        let tool: SqlToolSpec = serde_json::from_value(serde_json::json!({
            "name": "orders", "database": "shop", "sql": "SELECT * FROM o WHERE id = :id",
            "params": {"id": {"minimum": 5, "maximum": 1}, "gone": {"description": "x"},
                       "e": {"enum": ["a"], "default": "b"}},
            "confirm": "always",
        }))
        .unwrap();
        let keys: Vec<Vec<Key>> = tool.problems().into_iter().map(|(at, _)| at).collect();
        assert!(keys.contains(&vec![Key::from("params"), Key::from("id"), Key::from("minimum")]));
        assert!(keys.contains(&vec![Key::from("params"), Key::from("e"), Key::from("default")]));
        assert!(keys.contains(&vec![Key::from("confirm")]));
        assert!(!keys.contains(&vec![Key::from("params"), Key::from("id")]));
    }
}
