//! The one error type of this crate: problems found while turning a tool's
//! configuration into a tool, each naming the tool so the user can find it.

/// A tool's configuration cannot be used. Each message names the tool.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolsError {
    /// `input_schema` is not a usable JSON Schema for arguments.
    #[error("tool {tool:?}: invalid input_schema: {reason}")]
    InvalidSchema {
        /// The tool.
        tool: String,
        /// What is wrong.
        reason: String,
    },
    /// A `{placeholder}` in the command or URL that `input_schema` does not declare.
    #[error(
        "tool {tool:?}: placeholder {{{placeholder}}} in {place} does not name a property of input_schema \
         (declare it under input_schema.properties)"
    )]
    UnknownPlaceholder {
        /// The tool.
        tool: String,
        /// The placeholder's name.
        placeholder: String,
        /// `command` or `url`.
        place: &'static str,
    },
    /// The command template is empty or malformed.
    #[error("tool {tool:?}: bad command: {reason}")]
    BadCommand {
        /// The tool.
        tool: String,
        /// What is wrong.
        reason: String,
    },
    /// The working directory does not exist or is outside the served root.
    #[error("tool {tool:?}: cwd {cwd:?}: {reason}")]
    BadCwd {
        /// The tool.
        tool: String,
        /// The configured directory.
        cwd: String,
        /// What is wrong.
        reason: String,
    },
    /// The URL template does not parse or is not http(s).
    #[error("tool {tool:?}: bad url {url:?}: {reason}")]
    BadUrl {
        /// The tool.
        tool: String,
        /// The configured template.
        url: String,
        /// What is wrong.
        reason: String,
    },
    /// The HTTP method is not one of those supported.
    #[error("tool {tool:?}: unsupported method {method:?}: use GET, POST, PUT, PATCH or DELETE")]
    BadMethod {
        /// The tool.
        tool: String,
        /// The configured method.
        method: String,
    },
    /// A header name or value is invalid, or names an unset variable.
    #[error("tool {tool:?}: header {header:?}: {reason}")]
    BadHeader {
        /// The tool.
        tool: String,
        /// The header's name.
        header: String,
        /// What is wrong.
        reason: String,
    },
    /// A setting has a value that cannot work (a zero timeout or limit, an
    /// environment variable name with `=`).
    #[error("tool {tool:?}: {setting}: {reason}")]
    InvalidSetting {
        /// The tool.
        tool: String,
        /// The setting's key in the configuration.
        setting: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// The HTTP client could not be built.
    #[error("tool {tool:?}: cannot build the HTTP client: {reason}")]
    HttpClient {
        /// The tool.
        tool: String,
        /// Why.
        reason: String,
    },
}
