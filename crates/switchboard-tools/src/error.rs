//! The one error type of this crate: problems found while turning a tool's
//! configuration into a tool, each naming the tool so the user can find it.
//!
//! A [`SpecProblem`] adds *where* in the tool's table the problem is (the
//! key, array index or header name), so a configuration checker can point
//! at the exact line and column instead of the whole table.

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
    /// A header names a `${VARIABLE}` that neither the environment nor the
    /// `env_file` sets: the tool is left out until it is set.
    #[error(
        "tool {tool:?}: header {header:?} reads ${{{variable}}}, which is not set; set it in the environment \
         switchboard starts with (a host's `env` block) or in the `[server] env_file`"
    )]
    MissingSecret {
        /// The tool.
        tool: String,
        /// The header's name.
        header: String,
        /// The variable.
        variable: String,
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
    /// The tool's name breaks the MCP rule for tool names.
    #[error("tool {tool:?}: the name is not valid ({reason}); use a name like \"run_tests\"")]
    BadName {
        /// The tool.
        tool: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The program of a command tool cannot be found or run.
    #[error("tool {tool:?}: program {program:?} {reason}")]
    MissingProgram {
        /// The tool.
        tool: String,
        /// The program as configured (`command[0]`).
        program: String,
        /// Where it was looked for and what to do.
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

impl ToolsError {
    /// Whether this is only a secret that is not set ([`ToolsError::MissingSecret`]):
    /// the entry is left out and the rest is served, rather than refusing
    /// the configuration.
    pub fn is_missing_secret(&self) -> bool {
        self.missing_secret_key().is_some()
    }

    /// For a [`ToolsError::MissingSecret`], the keys in the tool's table that
    /// name the secret (`["headers", "Authorization"]`).
    pub fn missing_secret_key(&self) -> Option<[&str; 2]> {
        match self {
            Self::MissingSecret { header, .. } => Some(["headers", header]),
            _ => None,
        }
    }
}

/// One step from a tool's table down to the value a problem is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// A key of a table.
    Key(String),
    /// An element of an array.
    Index(usize),
}

impl From<&str> for Segment {
    fn from(key: &str) -> Self {
        Segment::Key(key.to_owned())
    }
}

/// A problem of one tool's table and where in the table it is.
#[derive(Debug)]
pub struct SpecProblem {
    /// The keys and indexes from the tool's table to the value at fault
    /// (empty: the table itself).
    pub at: Vec<Segment>,
    /// The problem is the last key's name (a header name), not its value.
    pub in_key: bool,
    /// What is wrong.
    pub error: ToolsError,
}

impl SpecProblem {
    /// `error`, about the value at `at`.
    pub(crate) fn at(at: impl IntoIterator<Item = Segment>, error: ToolsError) -> Self {
        Self { at: at.into_iter().collect(), in_key: false, error }
    }

    /// The same problem, about the last key's name.
    pub(crate) fn on_key(mut self) -> Self {
        self.in_key = true;
        self
    }
}
