//! The small sections of `switchboard.toml` this crate owns (the others belong to
//! the crates that serve them: `[files]` to `switchboard-files`, and so on).

use std::path::PathBuf;

use serde::Deserialize;

/// `[server]`: how the server introduces itself in `initialize` /
/// `server/discover`.
///
/// ```toml
/// [server]
/// name = "my-project"          # default: the served folder's name
/// version = "1.0.0"            # default: switchboard's version
/// title = "My project"
/// description = "Sources and scripts of my project"
/// instructions = "Run the tests with run_tests before proposing a change."
/// env_file = ".switchboard.env" # NAME=value lines for ${NAME} and *_env; never served
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ServerSection {
    /// The implementation name.
    pub name: Option<String>,
    /// The implementation version.
    pub version: Option<String>,
    /// A human-readable title.
    pub title: Option<String>,
    /// A description.
    pub description: Option<String>,
    /// Instructions for the model (sent in the initialize result).
    pub instructions: Option<String>,
    /// The project's website.
    pub website_url: Option<String>,
    /// A file of `NAME=value` lines (relative to the served folder) that
    /// `${NAME}` in headers and the `*_env` keys read when the environment
    /// switchboard starts with does not set the variable (the environment
    /// wins). It is never served, like the configuration itself.
    pub env_file: Option<PathBuf>,
}

/// `[prompts]`: prompts from Markdown files, and the built-in ones.
///
/// ```toml
/// [prompts]
/// dir = "prompts"     # default: prompts/ or .switchboard/prompts/ if present
/// builtin = true      # code_review and the other built-in prompts
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct PromptsSection {
    /// Serve prompts at all.
    pub enabled: bool,
    /// The folder of Markdown prompt files.
    pub dir: Option<PathBuf>,
    /// Serve the built-in prompts too.
    pub builtin: bool,
}

impl Default for PromptsSection {
    fn default() -> Self {
        Self { enabled: true, dir: None, builtin: true }
    }
}

/// `[tools]`: the built-in file tools and the tools declared here.
///
/// ```toml
/// [tools.builtin]
/// search = true       # regular-expression search across the served files
/// read = true         # read_file (a file, a range of its lines, images, several files),
///                     # and list_directory, find_files, file_info
/// write = false       # write_file, edit_file, create_directory, move_file (off unless enabled)
/// delete = false      # delete_file (off unless enabled)
///
/// [[tools.command]]   # a program run with arguments from a JSON Schema
/// name = "run_tests"
/// command = ["cargo", "test", "{filter}"]
/// input_schema = { type = "object", properties = { filter = { type = "string" } } }
///
/// [[tools.http]]      # an HTTP endpoint called with the arguments
/// name = "weather"
/// url = "http://127.0.0.1:8080/weather{?city}"
///
/// [[tools.openapi]]   # an OpenAPI 3.0/3.1 document: one tool per operation
/// document = "openapi.yaml"
/// prefix = "pets"
///
/// [[tools.sql]]       # one SQL statement on a [[databases]] entry, parameters bound
/// name = "orders_of_customer"
/// database = "shop"
/// sql = "SELECT id, total FROM orders WHERE customer_id = :customer_id"
/// ```
///
/// See the `switchboard-tools`, `switchboard-openapi` and `switchboard-sql`
/// crates for every key.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ToolsSection {
    /// The built-in file tools.
    pub builtin: switchboard_tools::FileToolsOptions,
    /// Command tools, each with its place in the file.
    #[schemars(with = "Vec<switchboard_tools::CommandToolSpec>")]
    pub command: Vec<toml::Spanned<switchboard_tools::CommandToolSpec>>,
    /// HTTP tools, each with its place in the file.
    #[schemars(with = "Vec<switchboard_tools::HttpToolSpec>")]
    pub http: Vec<toml::Spanned<switchboard_tools::HttpToolSpec>>,
    /// OpenAPI documents, one tool per operation, each with its place in the file.
    #[schemars(with = "Vec<switchboard_openapi::OpenApiSpec>")]
    pub openapi: Vec<toml::Spanned<switchboard_openapi::OpenApiSpec>>,
    /// SQL tools: one statement each on a `[[databases]]` entry, each with its place in the file.
    #[schemars(with = "Vec<switchboard_sql::spec::SqlToolSpec>")]
    pub sql: Vec<toml::Spanned<switchboard_sql::spec::SqlToolSpec>>,
}

/// `[apps]`: views (MCP Apps) from a folder of HTML pages, with no code.
///
/// ```toml
/// [apps]
/// dir = "apps"        # default: apps/ when the served folder has one
/// builtin = true      # the built-in views of search results and tables
/// ```
///
/// Each `<dir>/<name>.html` is served as the UI resource
/// `ui://<server name>/<name>`; a side file `<dir>/<name>.toml` gives its
/// `title`, `description`, `[csp]` origins, `permissions`, `domain` and
/// `prefers_border`. A tool shows it with `ui = "<name>"`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct AppsSection {
    /// Serve views at all.
    pub enabled: bool,
    /// The folder of views (relative to the served folder).
    pub dir: Option<PathBuf>,
    /// Link the built-in tools to switchboard's built-in views (search
    /// results grouped by file; a sortable table of rows).
    pub builtin: bool,
}

impl Default for AppsSection {
    fn default() -> Self {
        Self { enabled: true, dir: None, builtin: true }
    }
}
