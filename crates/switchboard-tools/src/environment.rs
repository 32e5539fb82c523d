//! Where the secrets a configuration names come from: `${NAME}` in a
//! header, an OpenAPI entry's `*_env`, an upstream's `headers_env`.
//!
//! Hosts start switchboard with almost no environment (Claude Desktop
//! passes only what its `env` block lists), so a secret may instead sit in
//! the `env_file` the configuration names: a file of `NAME=value` lines
//! that the served tree never serves. The process environment comes first
//! (an `env` block or a shell overrides the file, as with other dotenv
//! tools); the file's values fill in what the environment does not set.
//!
//! Every crate that reads such a secret asks [`env_var`], so the order is
//! decided once. The file's values are process-wide because the
//! environment they stand in for is: the binary installs them with
//! [`set_env_file_values`] each time it loads the configuration, before it
//! builds the tools (built tools keep the values they were built with).

use std::collections::BTreeMap;
use std::sync::RwLock;

static ENV_FILE_VALUES: RwLock<BTreeMap<String, String>> = RwLock::new(BTreeMap::new());

/// The value of the variable `name`: the process environment's, else the
/// `env_file`'s; `None` when neither sets it (or the process's is not UTF-8).
pub fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok().or_else(|| {
        let values = ENV_FILE_VALUES.read().unwrap_or_else(std::sync::PoisonError::into_inner);
        values.get(name).cloned()
    })
}

/// Replaces the `env_file` values [`env_var`] falls back on.
pub fn set_env_file_values(values: BTreeMap<String, String>) {
    *ENV_FILE_VALUES.write().unwrap_or_else(std::sync::PoisonError::into_inner) = values;
}

/// Parses an env file: `NAME=value` lines; blank lines and `#` comments
/// skipped; an optional `export ` before the name; a value in matching
/// single or double quotes has them removed (no escapes, no `${}`
/// expansion: what is written is the value). Returns the values and, for
/// each line that is not one of these, its 1-based line number and why
/// (never quoting the line, which may hold a secret).
pub fn parse_env_file(text: &str) -> (BTreeMap<String, String>, Vec<(usize, String)>) {
    let mut values = BTreeMap::new();
    let mut problems = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").map_or(line, str::trim_start);
        let Some((name, value)) = line.split_once('=') else {
            problems
                .push((i + 1, "not a NAME=value line; write one variable per line, like TOKEN=abc".into()));
            continue;
        };
        let name = name.trim();
        if !valid_name(name) {
            problems.push((
                i + 1,
                "the name before '=' must be letters, digits and '_', not starting with a digit, like API_TOKEN"
                    .into(),
            ));
            continue;
        }
        values.insert(name.to_owned(), unquoted(value.trim()).to_owned());
    }
    (values, problems)
}

/// Whether `name` can be an environment variable's name.
pub(crate) fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn unquoted(value: &str) -> &str {
    for quote in ['"', '\''] {
        if let Some(inner) = value.strip_prefix(quote).and_then(|v| v.strip_suffix(quote)) {
            return inner;
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_files_are_name_value_lines_and_bad_lines_are_placed_without_their_text() {
        let text = "# tokens\n\nexport API_TOKEN=\"abc def\"\nPLAIN = x=y \nQUOTED='q'\nnot a line\n1BAD=x\n";
        let (values, problems) = parse_env_file(text);
        assert_eq!(values["API_TOKEN"], "abc def");
        assert_eq!(values["PLAIN"], "x=y");
        assert_eq!(values["QUOTED"], "q");
        assert_eq!(values.len(), 3);
        assert_eq!(problems.iter().map(|(line, _)| *line).collect::<Vec<_>>(), [6, 7]);
        assert!(problems.iter().all(|(_, why)| !why.contains("not a line") && !why.contains("1BAD")));
    }

    #[test]
    fn the_process_environment_comes_before_the_env_file() {
        set_env_file_values(BTreeMap::from([
            ("PATH".to_owned(), "from-file".to_owned()),
            ("SWITCHBOARD_ENV_FILE_ONLY_VAR".to_owned(), "from-file".to_owned()),
        ]));
        assert_ne!(env_var("PATH").as_deref(), Some("from-file"));
        assert_eq!(env_var("SWITCHBOARD_ENV_FILE_ONLY_VAR").as_deref(), Some("from-file"));
        set_env_file_values(BTreeMap::new());
        assert_eq!(env_var("SWITCHBOARD_ENV_FILE_ONLY_VAR"), None);
    }
}
