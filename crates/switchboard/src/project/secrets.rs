//! Secrets the configuration names but does not hold: the `[server]
//! env_file` it reads them from, and what is left out when one is missing.
//!
//! Why: hosts start switchboard with almost no environment, so one unset
//! `${TOKEN}` used to stop the whole server and the user saw only
//! "Connection closed". Now an entry whose secret is not set (an HTTP tool,
//! an OpenAPI entry, an upstream) is left out with a note on stderr (and
//! to connected clients on a reload), the rest is served, and
//! `switchboard check` reports it as a problem. The variables are looked
//! up by `switchboard_tools::env_var`: the process environment first, then
//! the `env_file`.

use switchboard_config::{Config, Problem};

/// Reads the `env_file` of `config` (if any) and installs its values for
/// `switchboard_tools::env_var`; returns what is wrong with it (a file
/// that cannot be read, lines that are not `NAME=value`), each placed in
/// the env file without quoting it. With no `env_file`, no values are
/// installed (a reload that removed the key drops the old ones).
pub(crate) fn load_env_file(config: &Config) -> Vec<Problem> {
    let Some(path) = config.env_file() else {
        switchboard_tools::set_env_file_values(Default::default());
        return Vec::new();
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            let (values, bad_lines) = switchboard_tools::parse_env_file(&text);
            switchboard_tools::set_env_file_values(values);
            bad_lines
                .into_iter()
                .map(|(line, why)| Problem::new(Some(&path), line, 1, format!("{why}; this line is skipped")))
                .collect()
        }
        Err(e) => {
            switchboard_tools::set_env_file_values(Default::default());
            let message = format!(
                "the env_file of [server] cannot be read ({e}); the variables it would set are not set, and \
                 what needs them is left out"
            );
            vec![config.problem_at_path(&["server", "env_file"], message)]
        }
    }
}

/// The problem for an entry left out because `reason` (a secret that is
/// not set), placed at `path` in the configuration.
pub(crate) fn left_out(config: &Config, path: &[&str], reason: &str, what: &str) -> Problem {
    config.problem_at_path(path, format!("{reason}; {what} is left out until it is set"))
}
