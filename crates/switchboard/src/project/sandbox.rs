//! Which command tools run in the sandbox, and what is said about it.
//!
//! A model that can write files can change what a command runs (issue
//! #28): so with `[tools.builtin] write = true` command tools run in the
//! Landlock sandbox of `switchboard-sandbox` unless `[sandbox] enabled` or
//! the tool's own `sandbox` key says otherwise. This binary is its own
//! launcher (`main` starts with `switchboard_sandbox::launch_if_asked`).
//!
//! Everything that weakens that is said where people look: as notes
//! (logged at start on stderr, listed by `check --json`) and in
//! `switchboard list`: write tools next to command tools (commands may
//! still run code the model edits, which only the sandbox contains), a
//! tool opted out with `sandbox = false`, a kernel without Landlock (then
//! sandboxed tools refuse every call rather than run uncontained) or one
//! that lacks part of it.

use std::path::{Component, PathBuf};
use std::sync::OnceLock;

use serde_json::{Value, json};
use switchboard_config::{Config, Problem};
use switchboard_tools::{CommandSandbox, CommandToolSpec, Launcher, Support};

/// What this system's Landlock holds, asked once per process.
pub(crate) fn support() -> Support {
    static SUPPORT: OnceLock<Support> = OnceLock::new();
    *SUPPORT.get_or_init(Support::detect)
}

/// The sandbox of one configuration's command tools.
pub(crate) struct Plan {
    sandbox: CommandSandbox,
    default_on: bool,
}

impl Plan {
    pub(crate) fn of(config: &Config) -> Self {
        let (launcher, support) = match Launcher::current_exe() {
            Ok(launcher) => (launcher, support()),
            // Without our own path there is no launcher: sandboxed tools
            // then refuse their calls, as without Landlock.
            Err(_) => {
                (Launcher::new("switchboard"), Support { filesystem: false, tcp: false, scopes: false })
            }
        };
        let default_on = config.sandbox.on_by_default(config.tools.builtin.write);
        let sandbox = CommandSandbox::new(launcher, support)
            .with_options(&config.sandbox, config.dir())
            .with_read_only(read_only_entries(config, default_on))
            // What the model is never served, it does not read through a
            // sandboxed command either (a database file would read around
            // `exclude`; the env_file holds the secrets).
            .with_hidden(super::paths::never_served_paths(config));
        Self { sandbox, default_on }
    }

    /// The sandbox `spec` runs in, if any.
    pub(crate) fn for_tool(&self, spec: &CommandToolSpec) -> Option<&CommandSandbox> {
        spec.sandbox.unwrap_or(self.default_on).then_some(&self.sandbox)
    }

    /// The notes about the sandbox (see the module docs).
    pub(crate) fn notes(&self, config: &Config) -> Vec<Problem> {
        let commands = &config.tools.command;
        let mut notes = Vec::new();
        if commands.is_empty() {
            return notes;
        }
        let model_writes = config.tools.builtin.write;
        if model_writes {
            notes.push(config.problem(
                "write tools and command tools are both on: commands may still run code the model edits \
                 (cargo test compiles the tests it wrote, make reads its Makefile); the sandbox is what \
                 contains that",
            ));
        }
        let support = self.sandbox.support();
        let mut refused = Vec::new();
        for spec in commands {
            let tool = spec.get_ref();
            match self.for_tool(tool) {
                None if model_writes => notes.push(config.problem_at(
                    spec.span(),
                    format!(
                        "tool {:?} runs outside the sandbox (sandbox = false): what it runs, including code \
                         the model wrote, can read and write everything switchboard can",
                        tool.name
                    ),
                )),
                Some(_) if !support.filesystem => refused.push(tool.name.as_str()),
                _ => {}
            }
        }
        if !refused.is_empty() {
            notes.push(config.problem(format!(
                "{}; calls of {} are refused; set sandbox = false on a tool to run it unsandboxed",
                support.describe(),
                refused.join(", ")
            )));
        } else if self.any_sandboxed(config) && !(support.tcp && support.scopes) {
            notes.push(config.problem(support.describe()));
        }
        notes
    }

    fn any_sandboxed(&self, config: &Config) -> bool {
        config.tools.command.iter().any(|spec| self.for_tool(spec.get_ref()).is_some())
    }

    /// For `switchboard list`: what Landlock holds here and which command
    /// tools run in the sandbox; `None` without command tools.
    pub(crate) fn summary(&self, config: &Config) -> Option<Value> {
        if config.tools.command.is_empty() {
            return None;
        }
        let support = self.sandbox.support();
        let (inside, outside): (Vec<&CommandToolSpec>, Vec<&CommandToolSpec>) =
            config.tools.command.iter().map(|s| s.get_ref()).partition(|s| self.for_tool(s).is_some());
        let names = |specs: Vec<&CommandToolSpec>| specs.iter().map(|s| s.name.clone()).collect::<Vec<_>>();
        Some(json!({
            "landlock": support.describe(),
            "filesystem": support.filesystem,
            "tcp": support.tcp,
            "scopes": support.scopes,
            "sandboxed": names(inside),
            "unsandboxed": names(outside),
        }))
    }
}

/// The top-level entries of the served folder that sandboxed programs may
/// not change, though they may write the rest of the folder: those that
/// hold what configures the server (a changed `switchboard.toml` would be
/// applied by a live reload, and could take tools out of the sandbox),
/// `.git` (a hook or `core.fsmonitor` would run later, outside) and the
/// files unsandboxed tools run. Top-level entries, because a mount point
/// cannot be renamed while a file below one could be sidestepped by
/// renaming its folder.
fn read_only_entries(config: &Config, default_on: bool) -> Vec<PathBuf> {
    let Ok(root) = config.dir().canonicalize() else { return Vec::new() };
    let mut held = super::paths::configuration_paths(config);
    held.push(root.join(".git"));
    for spec in &config.tools.command {
        if !spec.get_ref().sandbox.unwrap_or(default_on) {
            held.extend(switchboard_tools::files_run_by(spec.get_ref(), &root));
        }
    }
    let mut entries: Vec<PathBuf> = held
        .iter()
        .filter_map(|path| {
            let inside = path.strip_prefix(config.dir()).or_else(|_| path.strip_prefix(&root)).ok()?;
            if inside.components().any(|c| c == Component::ParentDir) {
                return None;
            }
            let first = inside.components().find(|c| matches!(c, Component::Normal(_)))?;
            Some(root.join(first))
        })
        .collect();
    entries.sort();
    entries.dedup();
    entries
}

/// The text lines `switchboard list` prints for a [`Plan::summary`].
pub(crate) fn describe(summary: &Value) -> String {
    let list = |key: &str| {
        let names: Vec<&str> =
            summary[key].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        if names.is_empty() { "none".to_owned() } else { names.join(", ") }
    };
    format!(
        "Sandbox: {}\n  sandboxed:   {}\n  unsandboxed: {}\n",
        summary["landlock"].as_str().unwrap_or_default(),
        list("sandboxed"),
        list("unsandboxed")
    )
}
