//! The one error type of this crate, and a problem placed in the
//! configuration entry (`[[tools.openapi]]`) that caused it.

use std::path::{Path, PathBuf};

use switchboard_tools::{Segment, ToolsError};

/// Why an OpenAPI entry cannot become tools. Each message says which
/// document (or setting) and what to change.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OpenApiError {
    /// A setting of the entry cannot work.
    #[error("{setting}: {reason}")]
    Setting {
        /// The key in the configuration (`base_url`, `auth.token_env`, …).
        setting: String,
        /// What is wrong and what to write instead.
        reason: String,
    },
    /// The document file cannot be read.
    #[error("the OpenAPI document {}: {reason}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The document could not be fetched.
    #[error("the OpenAPI document {url}: {reason}")]
    Fetch {
        /// The URL.
        url: String,
        /// Why (status, connection failure, size).
        reason: String,
    },
    /// The document is not valid JSON or YAML.
    #[error(
        "the OpenAPI document {source_name} is not valid {format} (line {line}, column {column}): {message}"
    )]
    Syntax {
        /// The file or URL.
        source_name: String,
        /// The file, when it is one (for placing the problem in it).
        file: Option<PathBuf>,
        /// `JSON` or `YAML`.
        format: &'static str,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's message.
        message: String,
    },
    /// The document is valid JSON or YAML but not an OpenAPI 3.0/3.1
    /// document that can be used: a wrong version, a missing or mistyped
    /// field, a reference that leads nowhere, no operation left.
    #[error("the OpenAPI document {source_name}: {reason}")]
    Document {
        /// The file or URL.
        source_name: String,
        /// What is wrong, with where in the document (`paths./pets.get`).
        reason: String,
    },
    /// A credential's variable (`auth.token_env` …) is set neither in the
    /// environment nor in the `env_file`: the entry is left out until it is.
    #[error(
        "{setting}: environment variable {variable:?} is not set (or empty); set it in the environment \
         switchboard starts with (a host's `env` block) or in the `[server] env_file`"
    )]
    MissingSecret {
        /// The key in the configuration (`auth.token_env`, …).
        setting: String,
        /// The variable it names.
        variable: String,
    },
    /// A tool setting shared with the HTTP tools (a header, a limit).
    #[error(transparent)]
    Tool(#[from] ToolsError),
}

impl OpenApiError {
    /// Whether this is only a secret that is not set (a credential's
    /// variable, or a header's `${NAME}`): the entry is left out and the
    /// rest is served, rather than refusing the configuration.
    pub fn is_missing_secret(&self) -> bool {
        self.missing_secret_key().is_some()
    }

    /// When this is a missing secret, the keys in the entry's table that
    /// name it (`["auth", "token_env"]`, `["headers", "X-Api-Key"]`).
    pub fn missing_secret_key(&self) -> Option<Vec<&str>> {
        match self {
            OpenApiError::MissingSecret { setting, .. } => Some(setting.split('.').collect()),
            OpenApiError::Tool(e) => e.missing_secret_key().map(Vec::from),
            _ => None,
        }
    }

    /// The place in the document file this error is about (file, 1-based
    /// line and column), when it is a syntax error of a file.
    pub fn document_place(&self) -> Option<(&Path, usize, usize)> {
        match self {
            OpenApiError::Syntax { file: Some(file), line, column, .. } => Some((file, *line, *column)),
            _ => None,
        }
    }

    pub(crate) fn setting(setting: impl Into<String>, reason: impl Into<String>) -> Self {
        OpenApiError::Setting { setting: setting.into(), reason: reason.into() }
    }
}

/// A problem of one `[[tools.openapi]]` entry and where in its table it
/// is, for a checker that places it at a line and column.
#[derive(Debug)]
pub struct OpenApiProblem {
    /// The keys and indexes from the entry's table to the value at fault
    /// (empty: the table itself).
    pub at: Vec<Segment>,
    /// The problem is the last key's name (a header name), not its value.
    pub in_key: bool,
    /// What is wrong.
    pub error: OpenApiError,
}

impl OpenApiProblem {
    pub(crate) fn at(at: impl IntoIterator<Item = Segment>, error: OpenApiError) -> Self {
        Self { at: at.into_iter().collect(), in_key: false, error }
    }
}
