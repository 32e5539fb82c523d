//! `[[tools.openapi]]`: the configuration of one API, with its defaults and
//! every problem that can be found without reading the document.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use switchboard_tools::{HttpLimits, LargeOutput, Segment};

use crate::error::{OpenApiError, OpenApiProblem};

/// An OpenAPI 3.0 or 3.1 document served as tools, one per operation
/// (`[[tools.openapi]]`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OpenApiSpec {
    /// The document (JSON or YAML): a file in the served folder, or an
    /// http(s) URL fetched when the configuration loads.
    #[schemars(example = &"openapi.yaml")]
    pub document: String,
    /// Put before every tool name, with `_` (`pets` gives `pets_listPets`).
    #[serde(default)]
    pub prefix: Option<String>,
    /// The API's base URL; default: the document's first server URL.
    #[serde(default)]
    #[schemars(example = &"https://api.example.com/v1")]
    pub base_url: Option<String>,
    /// Only the operations with a tag matching one of these globs.
    #[serde(default)]
    pub include_tags: Vec<String>,
    /// Leave out the operations with a tag matching one of these globs.
    #[serde(default)]
    pub exclude_tags: Vec<String>,
    /// Only the operations whose operationId (or generated name) matches one of these globs.
    #[serde(default)]
    pub include_operations: Vec<String>,
    /// Leave out the operations whose operationId (or generated name) matches one of these globs.
    #[serde(default)]
    pub exclude_operations: Vec<String>,
    /// Headers sent with every request; values may use `${ENV_VAR}` (`$$` is a literal `$`).
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Credentials, read from the environment when the configuration loads.
    #[serde(default)]
    pub auth: Option<AuthSpec>,
    /// Time limit of each request (humantime), and of fetching the document; default 30 s.
    #[serde(default = "switchboard_tools::default_http_timeout", with = "humantime_serde")]
    #[schemars(schema_with = "switchboard_tools::duration_schema")]
    pub timeout: Duration,
    /// Bytes of response body kept; default 1 MiB.
    #[serde(default = "switchboard_tools::default_max_response")]
    pub max_response: usize,
    /// A body over `max_response`: `"truncate"` (the first part, a notice
    /// and the total size; the default) or `"error"` (an error result).
    #[serde(default)]
    pub on_large_output: LargeOutput,
    /// OAuth scopes a caller must hold to see and call these tools (HTTP
    /// with authorization).
    #[serde(default)]
    pub scopes: Vec<String>,
    /// The view (MCP Apps) a host shows with the results of these tools: the name
    /// of a page of the apps folder (`"report"` for `apps/report.html`,
    /// served as `ui://<server>/report`).
    #[serde(default)]
    #[schemars(example = &"report")]
    pub ui: Option<String>,
    /// Who may call the tool: `["model", "app"]` (the default) or `["app"]`
    /// (only its view, through the host; the model never sees it).
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub visibility: Option<Vec<switchboard_types::apps::Visibility>>,
}

/// How requests authenticate (`[tools.openapi.auth]`). Secrets never
/// appear in the file: each `*_env` names an environment variable.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AuthSpec {
    /// `bearer` (`Authorization: Bearer …`), `api_key` (a header or query
    /// parameter) or `basic` (`Authorization: Basic …`).
    #[serde(rename = "type")]
    pub kind: AuthKind,
    /// bearer: the variable holding the token.
    #[serde(default)]
    pub token_env: Option<String>,
    /// api_key: the variable holding the key.
    #[serde(default)]
    pub key_env: Option<String>,
    /// api_key: the header or query parameter; default: the document's
    /// `apiKey` security scheme.
    #[serde(default)]
    pub name: Option<String>,
    /// api_key: `header` or `query`; default: the document's `apiKey`
    /// security scheme, else `header`.
    #[serde(default, rename = "in")]
    pub location: Option<KeyLocation>,
    /// basic: the variable holding the user name.
    #[serde(default)]
    pub username_env: Option<String>,
    /// basic: the variable holding the password.
    #[serde(default)]
    pub password_env: Option<String>,
}

/// The kinds of credentials.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AuthKind {
    /// `Authorization: Bearer <token>`.
    Bearer,
    /// A key in a header or a query parameter.
    ApiKey,
    /// `Authorization: Basic <base64(user:password)>`.
    Basic,
}

/// Where an API key goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum KeyLocation {
    /// A request header.
    Header,
    /// A query parameter.
    Query,
}

/// Where the document comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Source {
    /// A file (absolute, inside the served folder).
    File(PathBuf),
    /// An http(s) URL.
    Url(reqwest::Url),
}

impl Source {
    /// How messages name it.
    pub(crate) fn name(&self) -> String {
        match self {
            Source::File(path) => path.display().to_string(),
            Source::Url(url) => url.to_string(),
        }
    }
}

/// Credentials read from the environment.
#[derive(Debug, Clone)]
pub(crate) enum Credentials {
    Bearer(String),
    ApiKey { name: Option<String>, location: Option<KeyLocation>, value: String },
    Basic { username: String, password: String },
}

impl OpenApiSpec {
    /// The limits of the requests.
    pub(crate) fn limits(&self) -> HttpLimits {
        HttpLimits {
            timeout: self.timeout,
            max_response: self.max_response,
            on_large_output: self.on_large_output,
        }
    }

    /// The document file, when `document` is a path (resolved against the
    /// served folder `dir`; it may not exist).
    pub fn document_file(&self, dir: &Path) -> Option<PathBuf> {
        (!is_url(&self.document)).then(|| dir.join(&self.document))
    }

    /// Every problem that can be found without reading the document, each
    /// placed on its key: the prefix, the document's path or URL, the
    /// base URL, the globs, the headers, the credentials (an unset
    /// variable included) and the limits.
    pub fn problems(&self, dir: &Path) -> Vec<OpenApiProblem> {
        let mut problems = Vec::new();
        let mut push = |at: Vec<Segment>, error: OpenApiError| problems.push(OpenApiProblem::at(at, error));
        if let Err(e) = self.prefix_checked() {
            push(vec!["prefix".into()], e);
        }
        if let Err(e) = self.source(dir) {
            push(vec!["document".into()], e);
        }
        if let Some(base) = &self.base_url
            && let Err(e) = base_url(base)
        {
            push(vec!["base_url".into()], e);
        }
        for key in ["include_tags", "exclude_tags", "include_operations", "exclude_operations"] {
            for (i, pattern) in self.patterns(key).iter().enumerate() {
                if let Err(e) = glob(key, pattern) {
                    push(vec![key.into(), Segment::Index(i)], e);
                }
            }
        }
        for (name, value) in &self.headers {
            if let Err((in_name, e)) = switchboard_tools::header(self.label(), name, value) {
                let at = vec!["headers".into(), Segment::Key(name.clone())];
                problems.push(OpenApiProblem { at, in_key: in_name, error: e.into() });
            }
        }
        if let Some(auth) = &self.auth
            && let Err((key, e)) = auth.credentials()
        {
            let mut at: Vec<Segment> = vec!["auth".into()];
            at.extend(key.map(Segment::from));
            problems.push(OpenApiProblem::at(at, e));
        }
        for (key, zero) in [("timeout", self.timeout.is_zero()), ("max_response", self.max_response == 0)] {
            if zero {
                let reason = if key == "timeout" {
                    "must be more than zero, like \"30s\""
                } else {
                    "must be more than zero bytes, like 1048576"
                };
                problems.push(OpenApiProblem::at([key.into()], OpenApiError::setting(key, reason)));
            }
        }
        problems
    }

    /// The first problem of [`OpenApiSpec::problems`], as an error.
    pub(crate) fn checked(&self, dir: &Path) -> Result<(), OpenApiError> {
        match self.problems(dir).into_iter().next() {
            Some(problem) => Err(problem.error),
            None => Ok(()),
        }
    }

    /// How messages name this entry: its prefix, else its document.
    pub(crate) fn label(&self) -> &str {
        self.prefix.as_deref().unwrap_or(&self.document)
    }

    pub(crate) fn patterns(&self, key: &str) -> &[String] {
        match key {
            "include_tags" => &self.include_tags,
            "exclude_tags" => &self.exclude_tags,
            "include_operations" => &self.include_operations,
            _ => &self.exclude_operations,
        }
    }

    /// The prefix, if it is usable in tool names.
    pub(crate) fn prefix_checked(&self) -> Result<Option<&str>, OpenApiError> {
        let Some(prefix) = self.prefix.as_deref() else { return Ok(None) };
        let ok = !prefix.is_empty()
            && prefix.len() <= 64
            && prefix.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
        if ok {
            Ok(Some(prefix))
        } else {
            Err(OpenApiError::setting(
                "prefix",
                format!(
                    "{prefix:?} cannot start tool names: use 1 to 64 letters, digits, '_', '-' or '.', like \"pets\""
                ),
            ))
        }
    }

    /// Where the document comes from: a URL, or a file inside `dir`.
    pub(crate) fn source(&self, dir: &Path) -> Result<Source, OpenApiError> {
        let document = self.document.trim();
        if document.is_empty() {
            return Err(OpenApiError::setting(
                "document",
                "give a file in the served folder or an http(s) URL, like \"openapi.yaml\"",
            ));
        }
        if is_url(document) {
            return reqwest::Url::parse(document).map(Source::Url).map_err(|e| {
                OpenApiError::setting("document", format!("{document:?} is not a valid URL: {e}"))
            });
        }
        let path = dir.join(document);
        let not_usable = |reason: String| OpenApiError::Read { path: path.clone(), reason };
        let root =
            dir.canonicalize().map_err(|e| not_usable(format!("the served folder is not usable: {e}")))?;
        let file = path.canonicalize().map_err(|e| {
            not_usable(format!(
                "{e}; give a file in the served folder (relative to it), like \"openapi.yaml\""
            ))
        })?;
        if !file.starts_with(&root) {
            return Err(not_usable(format!("it is outside the served folder {}", root.display())));
        }
        if !file.is_file() {
            return Err(not_usable("it is not a file".to_owned()));
        }
        Ok(Source::File(file))
    }
}

impl AuthSpec {
    /// The credentials from the environment; on error, the key at fault
    /// (`None`: the table, for a missing key).
    pub(crate) fn credentials(&self) -> Result<Credentials, (Option<&'static str>, OpenApiError)> {
        let var = |key: &'static str,
                   name: &Option<String>|
         -> Result<String, (Option<&'static str>, OpenApiError)> {
            let Some(name) = name else {
                let kind = match self.kind {
                    AuthKind::Bearer => "bearer",
                    AuthKind::ApiKey => "api_key",
                    AuthKind::Basic => "basic",
                };
                let reason = format!(
                    "type = \"{kind}\" needs `{key}`, the environment variable holding it, like {key} = \"API_SECRET\""
                );
                return Err((None, OpenApiError::setting("auth", reason)));
            };
            match switchboard_tools::env_var(name) {
                Some(value) if !value.is_empty() => Ok(value),
                _ => Err((
                    Some(key),
                    OpenApiError::MissingSecret { setting: format!("auth.{key}"), variable: name.clone() },
                )),
            }
        };
        match self.kind {
            AuthKind::Bearer => Ok(Credentials::Bearer(var("token_env", &self.token_env)?)),
            AuthKind::ApiKey => {
                if let Some(name) = &self.name
                    && reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_err()
                {
                    let reason =
                        format!("{name:?} is not a valid header or parameter name, like \"X-Api-Key\"");
                    return Err((Some("name"), OpenApiError::setting("auth.name", reason)));
                }
                let value = var("key_env", &self.key_env)?;
                Ok(Credentials::ApiKey { name: self.name.clone(), location: self.location, value })
            }
            AuthKind::Basic => Ok(Credentials::Basic {
                username: var("username_env", &self.username_env)?,
                password: var("password_env", &self.password_env)?,
            }),
        }
    }
}

/// Whether `document` names a URL rather than a file.
fn is_url(document: &str) -> bool {
    let lower = document.trim().to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// A base URL: absolute http(s), no query or fragment.
pub(crate) fn base_url(text: &str) -> Result<reqwest::Url, OpenApiError> {
    let bad = |reason: String| OpenApiError::setting("base_url", format!("{text:?} {reason}"));
    let url = reqwest::Url::parse(text).map_err(|e| {
        bad(format!("is not a valid URL ({e}); write one like \"https://api.example.com/v1\""))
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(bad("must start with http:// or https://".to_owned()));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(bad("must have no query or fragment".to_owned()));
    }
    if text.contains(['{', '}']) {
        return Err(bad("must have no { } variables; write the URL in full".to_owned()));
    }
    Ok(url)
}

/// A compiled include/exclude pattern.
pub(crate) fn glob(key: &str, pattern: &str) -> Result<globset::GlobMatcher, OpenApiError> {
    globset::Glob::new(pattern).map(|g| g.compile_matcher()).map_err(|e| {
        OpenApiError::setting(
            key,
            format!("{pattern:?} is not a valid glob ({}); write one like \"pets*\"", e.kind()),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(json: serde_json::Value) -> OpenApiSpec {
        serde_json::from_value(json).unwrap()
    }

    fn places(problems: &[OpenApiProblem]) -> Vec<Vec<Segment>> {
        problems.iter().map(|p| p.at.clone()).collect()
    }

    #[test]
    fn every_problem_is_placed_on_its_key() {
        let dir = tempfile::tempdir().unwrap();
        let s = spec(serde_json::json!({
            "document": "missing.yaml",
            "prefix": "bad prefix",
            "base_url": "ftp://example.com",
            "include_tags": ["ok", "[unclosed"],
            "headers": {"X-Token": "${SWITCHBOARD_OPENAPI_SURELY_UNSET}"},
            "auth": {"type": "bearer", "token_env": "SWITCHBOARD_OPENAPI_SURELY_UNSET"},
            "timeout": "0s",
        }));
        let key = |k: &str| Segment::Key(k.to_owned());
        assert_eq!(
            places(&s.problems(dir.path())),
            vec![
                vec![key("prefix")],
                vec![key("document")],
                vec![key("base_url")],
                vec![key("include_tags"), Segment::Index(1)],
                vec![key("headers"), key("X-Token")],
                vec![key("auth"), key("token_env")],
                vec![key("timeout")],
            ]
        );
    }

    #[test]
    fn a_missing_credential_key_is_placed_on_the_auth_table() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("api.json"), "{}").unwrap();
        let s = spec(
            serde_json::json!({"document": "api.json", "auth": {"type": "basic", "username_env": "PATH"}}),
        );
        let problems = s.problems(dir.path());
        assert_eq!(places(&problems), vec![vec![Segment::Key("auth".to_owned())]]);
        assert!(problems[0].error.to_string().contains("needs `password_env`"), "{}", problems[0].error);
    }

    #[test]
    fn documents_are_files_inside_the_folder_or_urls() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("api.json"), "{}").unwrap();
        let inside = spec(serde_json::json!({"document": "api.json"}));
        assert!(matches!(inside.source(dir.path()), Ok(Source::File(_))));
        let outside = spec(serde_json::json!({"document": "../../etc/passwd"}));
        assert!(outside.source(dir.path()).unwrap_err().to_string().contains("outside the served folder"));
        let url = spec(serde_json::json!({"document": "https://api.example.com/openapi.json"}));
        assert!(matches!(url.source(dir.path()), Ok(Source::Url(_))));
        assert!(url.document_file(dir.path()).is_none());
    }
}
