//! `switchboard.toml`: the configuration that turns a project folder into an MCP
//! server with no Rust written.
//!
//! [`Config::load`] finds the file (`--config FILE`, else `switchboard.toml` in the
//! served folder, else the embedded [`DEFAULT`] that serves the folder
//! read-only) and parses it. Every problem is a [`Problem`] with the file,
//! line and column, so `switchboard check` can print them the way a compiler does,
//! and a hot reload can report an invalid edit while the last good
//! configuration stays in force.
//!
//! [`Config::parse`] finds *every* problem of the file in one pass, each at
//! the line and column of the key or value it is about, in plain words
//! with an example of a valid value:
//!
//! 1. syntax: the TOML parser, recovering after each error;
//! 2. shape (unknown keys, wrong types, missing keys): the file, read into
//!    JSON with the place of every value (`document`), is validated
//!    against the JSON Schema derived from these very types
//!    ([`json_schema`], module `schema`), which reports all violations
//!    where serde stops at the first (module `shape`);
//! 3. meaning, for every part whose shape is right: tool names, input
//!    schemas, `{placeholders}`, URLs, methods, headers (a `${SECRET}`
//!    that is not set only alongside other problems: alone it leaves out
//!    what needs it, not the file), limits, programs
//!    that must exist, globs, root folders, duplicate tool names, upstreams
//!    and the names they clash on when that can be known from the file,
//!    databases and SQL tools (an unknown database, a write tool on a read
//!    database, an SQLite file outside the served folder) (module
//!    `meaning`, using the checks of the crates that own those values).
//!
//! Apart from these, literal credentials (a token where `${NAME}` belongs,
//! module `credentials`) are found and kept on the configuration
//! ([`Config::literal_credentials`]) for `check` to refuse.
//!
//! Only a file with no problem is deserialized. Problems found later by
//! whoever builds the server (a prompt file that does not compile) are
//! placed with [`Config::problem_at`] on the span of the table that caused
//! them.
//!
//! Relative paths in the file resolve against the served folder
//! ([`Config::dir`]).

mod apps;
mod credentials;
mod document;
mod meaning;
mod net;
mod problem;
mod schema;
mod sections;
mod shape;
mod upstreams;

use std::ops::Range;
use std::path::{Path, PathBuf};

pub use apps::{ViewSettings, view_name_problem, view_settings};
pub use net::{AuthSection, HttpSection, LimitsSection, StaticToken};
pub use problem::Problem;
pub use schema::json_schema;
pub use sections::{AppsSection, PromptsSection, ServerSection, ToolsSection};
pub use toml::Spanned;
pub use upstreams::{ItemOverride, UpstreamSpec};

/// The embedded default configuration (the served folder, read-only).
pub const DEFAULT: &str = include_str!("default.toml");

/// The file name looked for in the served folder.
pub const FILE_NAME: &str = "switchboard.toml";

/// A parsed configuration: the contents of `switchboard.toml`.
#[derive(Debug, Clone, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// `[server]`: how the server introduces itself.
    #[serde(default)]
    pub server: ServerSection,
    /// `[files]`: the folder's files as resources.
    #[serde(default)]
    pub files: switchboard_files::FilesOptions,
    /// `[git]`: the repository's history as resources.
    #[serde(default)]
    pub git: switchboard_git::GitOptions,
    /// `[prompts]`: Markdown prompt files and the built-in prompts.
    #[serde(default)]
    pub prompts: PromptsSection,
    /// `[skills]`: a folder of skills served through the skills extension.
    #[serde(default)]
    pub skills: switchboard_skills::SkillsOptions,
    /// `[tools]`: built-in file tools, command tools, HTTP tools, OpenAPI documents.
    #[serde(default)]
    pub tools: ToolsSection,
    /// `[apps]`: views (MCP Apps) from a folder of HTML pages.
    #[serde(default)]
    pub apps: AppsSection,
    /// `[sandbox]`: how command tools are contained (Linux Landlock).
    #[serde(default)]
    pub sandbox: switchboard_tools::SandboxOptions,
    /// `[limits]`: rate limits, requests in flight, timeouts, sizes.
    #[serde(default)]
    pub limits: LimitsSection,
    /// `[http]`: allowed host names and authorization for `--http`.
    #[serde(default)]
    pub http: HttpSection,
    /// `[[upstreams]]`: other MCP servers served through this one, each with its place in the file.
    #[serde(default)]
    #[schemars(with = "Vec<UpstreamSpec>")]
    pub upstreams: Vec<toml::Spanned<UpstreamSpec>>,
    /// `[[databases]]`: SQLite files and PostgreSQL databases served as schema
    /// resources, a read-only query tool and `[[tools.sql]]`, each with its place in the file.
    #[serde(default)]
    #[schemars(with = "Vec<switchboard_sql::spec::DatabaseSpec>")]
    pub databases: Vec<toml::Spanned<switchboard_sql::spec::DatabaseSpec>>,
    #[serde(skip)]
    origin: Origin,
    #[serde(skip)]
    literal_credentials: Vec<Problem>,
}

#[derive(Debug, Clone, Default)]
struct Origin {
    /// The file, or `None` for the embedded default.
    path: Option<PathBuf>,
    /// The served folder.
    dir: PathBuf,
    /// The text, for turning byte spans into lines and columns.
    text: String,
}

impl Config {
    /// Loads the configuration for serving `dir`: `explicit` if given, else
    /// `dir/switchboard.toml` if it exists, else [`DEFAULT`].
    pub fn load(dir: &Path, explicit: Option<&Path>) -> Result<Self, Vec<Problem>> {
        let candidate = explicit.map(Path::to_path_buf).unwrap_or_else(|| dir.join(FILE_NAME));
        if explicit.is_none() && !candidate.exists() {
            return Self::parse(DEFAULT, None, dir);
        }
        let text = std::fs::read_to_string(&candidate)
            .map_err(|e| vec![Problem::whole_file(Some(&candidate), format!("cannot read it: {e}"))])?;
        Self::parse(&text, Some(&candidate), dir)
    }

    /// For a file that has problems: a configuration good enough to check
    /// the files it names anyway (prompt files, skills), so one run reports
    /// those with the file's own problems. It keeps the `[prompts]`,
    /// `[skills]` and `[files]` sections that read as they are (a section
    /// that does not is turned off, or the default for `[files]`) and
    /// defaults for the rest. A file that is not TOML at all names no
    /// folders, so the default ones (`prompts/`, `skills/`) are checked.
    /// `None` when the file cannot be read.
    pub fn fallback(dir: &Path, explicit: Option<&Path>) -> Option<Self> {
        let path = explicit.map(Path::to_path_buf).unwrap_or_else(|| dir.join(FILE_NAME));
        let text = std::fs::read_to_string(&path).ok()?;
        let table: toml::Table = toml::from_str(&text).unwrap_or_default();
        fn section<T: serde::de::DeserializeOwned>(table: &toml::Table, key: &str) -> Option<T> {
            table.get(key).cloned().map_or_else(|| toml::from_str("").ok(), |v| v.try_into().ok())
        }
        let mut config: Config = toml::from_str("").ok()?;
        config.prompts = section(&table, "prompts")
            .unwrap_or(PromptsSection { enabled: false, ..PromptsSection::default() });
        config.skills = section(&table, "skills")
            .unwrap_or(switchboard_skills::SkillsOptions { enabled: false, ..Default::default() });
        config.files = section(&table, "files").unwrap_or_default();
        config.origin = Origin { path: Some(path), dir: dir.to_path_buf(), text };
        Some(config)
    }

    /// Parses `text` (read from `file`, or the embedded default when `None`)
    /// for serving `dir`.
    pub fn parse(text: &str, file: Option<&Path>, dir: &Path) -> Result<Self, Vec<Problem>> {
        let origin =
            Origin { path: file.map(Path::to_path_buf), dir: dir.to_path_buf(), text: text.to_owned() };
        let (mut found, literal_credentials) = check(text, dir);
        if !found.is_empty() {
            found.sort_by_key(|(span, _)| span.start);
            let path = origin.path.as_deref();
            return Err(found
                .into_iter()
                .map(|(span, message)| Problem::at(path, text, span, message))
                .collect());
        }
        match toml::from_str::<Config>(text) {
            Ok(mut config) => {
                config.literal_credentials = literal_credentials
                    .into_iter()
                    .map(|(span, message)| Problem::at(origin.path.as_deref(), text, span, message))
                    .collect();
                config.origin = origin;
                if config.server.name.is_none() {
                    config.server.name = Some(folder_name(dir));
                }
                Ok(config)
            }
            Err(e) => {
                let span = e.span().unwrap_or(0..0);
                let message = e.message().trim_end().to_owned();
                Err(vec![Problem::at(origin.path.as_deref(), text, span, message)])
            }
        }
    }

    /// The file this came from (`None`: the embedded default).
    pub fn path(&self) -> Option<&Path> {
        self.origin.path.as_deref()
    }

    /// The served folder; relative paths in the file resolve against it.
    pub fn dir(&self) -> &Path {
        &self.origin.dir
    }

    /// `path` resolved against the served folder.
    pub fn resolve(&self, path: &Path) -> PathBuf {
        self.origin.dir.join(path)
    }

    /// An SQLite file of `[[databases]]` (`path`, relative to the served
    /// folder) as a real path inside the served folder, symbolic links
    /// followed; an error saying why when it is outside (`check` reports
    /// it at the key).
    pub fn database_file(&self, path: &Path) -> Result<PathBuf, String> {
        meaning::database_file(&self.origin.dir, path)
    }

    /// A problem located at `span` (a byte range of this file, from a
    /// [`Spanned`] value).
    pub fn problem_at(&self, span: Range<usize>, message: impl Into<String>) -> Problem {
        Problem::at(self.origin.path.as_deref(), &self.origin.text, span, message.into())
    }

    /// A problem at the value that `path` (keys, and array indexes as
    /// numbers: `["tools", "http", "0", "headers", "X-Api-Key"]`) leads to
    /// in this file, or at the nearest value on the way that is written
    /// (a table at its name), so a problem
    /// found after parsing still gets its real line.
    pub fn problem_at_path(&self, path: &[&str], message: impl Into<String>) -> Problem {
        let span = document::Document::parse(&self.origin.text).ok().and_then(|doc| {
            (1..=path.len()).rev().find_map(|n| {
                let pointer: String = path[..n].iter().map(|s| format!("/{}", document::escape(s))).collect();
                let place = doc.place(&pointer)?;
                // A table: its name (in its `[header]` or as a dotted key).
                let table = place.found == "a table" || place.value.is_empty();
                let span = if table { place.key.clone()? } else { place.value.clone() };
                (!span.is_empty()).then_some(span)
            })
        });
        match span {
            Some(span) => self.problem_at(span, message),
            None => self.problem(message),
        }
    }

    /// The credentials written literally in the file (a token where
    /// `${NAME}` belongs), each placed at its value and never quoted.
    /// `serve` logs them as warnings; `switchboard check` refuses them.
    pub fn literal_credentials(&self) -> &[Problem] {
        &self.literal_credentials
    }

    /// The configured `env_file` (`[server] env_file`), resolved against the
    /// served folder.
    pub fn env_file(&self) -> Option<PathBuf> {
        self.server.env_file.as_deref().map(|f| self.resolve(f))
    }

    /// A problem with the file as a whole (line 1, column 1) or, for
    /// problems in other files, use [`Problem::new`].
    pub fn problem(&self, message: impl Into<String>) -> Problem {
        Problem::whole_file(self.origin.path.as_deref(), message.into())
    }

    /// The apps folder in use, if any: the configured one, else `apps/`
    /// when the served folder has one (it need not exist: a configured
    /// folder that does not is a problem for whoever loads it).
    pub fn apps_dir(&self) -> Option<PathBuf> {
        if !self.apps.enabled {
            return None;
        }
        match &self.apps.dir {
            Some(dir) => Some(self.resolve(dir)),
            None => Some(self.resolve(Path::new("apps"))).filter(|d| d.is_dir()),
        }
    }

    /// The prompts folder in use, if any: the configured one, else
    /// `prompts/` or `.switchboard/prompts/` when the served folder has one.
    pub fn prompts_dir(&self) -> Option<PathBuf> {
        if !self.prompts.enabled {
            return None;
        }
        match &self.prompts.dir {
            Some(dir) => Some(self.resolve(dir)),
            None => ["prompts", ".switchboard/prompts"]
                .iter()
                .map(|d| self.resolve(Path::new(d)))
                .find(|d| d.is_dir()),
        }
    }
}

/// A problem found in the text: its byte range and message.
type Found = (Range<usize>, String);

/// Every problem of `text` for serving `dir`, as (byte range, message):
/// the syntax errors, or else the shape problems and the meaning problems
/// of the parts whose shape is right; and apart, the literal credentials
/// (module `credentials`), which alone do not make the file invalid.
fn check(text: &str, dir: &Path) -> (Vec<Found>, Vec<Found>) {
    let doc = match document::Document::parse(text) {
        Ok(doc) => doc,
        Err(syntax) => return (syntax, Vec::new()),
    };
    let literal_credentials = credentials::literal_credentials(&doc);
    let shape = shape::problems(&doc, text);
    let bad: Vec<String> = shape.iter().map(|(pointer, _, _)| pointer.clone()).collect();
    let mut unset_secrets = Vec::new();
    let meaning = meaning::problems(&doc, dir, &bad, &mut unset_secrets);
    let mut found: Vec<_> =
        shape.into_iter().map(|(_, span, message)| (span, message)).chain(meaning).collect();
    // Alone, an unset secret leaves out only what needs it (the project
    // notes it); with other problems it is listed with them, so a fix
    // does not reveal one more problem on the next run.
    if !found.is_empty() {
        found.extend(unset_secrets);
        found.extend(literal_credentials);
        return (found, Vec::new());
    }
    (found, literal_credentials)
}

fn folder_name(dir: &Path) -> String {
    dir.canonicalize()
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "switchboard".to_owned())
}
