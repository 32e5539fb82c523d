//! Command tools in the sandbox (`switchboard-sandbox`): the `[sandbox]`
//! settings and what a tool needs to start its program through the
//! launcher. Whether a tool runs sandboxed is decided by whoever builds
//! it ([`crate::sandboxed_command_tool`]); `switchboard` turns it on by
//! default when the model can write files.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Deserialize;
use switchboard_sandbox::{Launcher, Support};

/// The `[sandbox]` section: how command tools are contained (Linux
/// Landlock). A sandboxed command writes only the served folder and a
/// private temporary folder, reads only the folder, the system folders
/// and the toolchains, and has no TCP unless its tool sets
/// `network = true`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SandboxOptions {
    /// Run command tools in the sandbox. Default: on when `[tools.builtin]
    /// write = true` (the model can change what commands run), off
    /// otherwise. A tool's own `sandbox` key overrides it.
    pub enabled: Option<bool>,
    /// More folders or files sandboxed commands may read, absolute or
    /// relative to the served folder (e.g. a toolchain in an unusual place).
    #[schemars(example = ["/srv/toolchains"])]
    pub read: Vec<PathBuf>,
    /// More folders sandboxed commands may write, absolute or relative to
    /// the served folder (e.g. a shared build cache).
    pub write: Vec<PathBuf>,
}

impl SandboxOptions {
    /// Whether command tools are sandboxed unless they say otherwise, given
    /// whether the model can write files.
    pub fn on_by_default(&self, model_writes: bool) -> bool {
        self.enabled.unwrap_or(model_writes)
    }
}

/// The sandbox command tools are started in: the launcher, what this
/// system's Landlock holds, and extra paths.
#[derive(Debug, Clone)]
pub struct CommandSandbox {
    pub(crate) launcher: Launcher,
    pub(crate) support: Support,
    pub(crate) read: Vec<PathBuf>,
    pub(crate) write: Vec<PathBuf>,
    pub(crate) read_only: Vec<PathBuf>,
    pub(crate) hidden: Vec<PathBuf>,
}

impl CommandSandbox {
    /// A sandbox that starts programs through `launcher` (a binary whose
    /// `main` begins with [`switchboard_sandbox::launch_if_asked`]), on a
    /// system whose Landlock holds `support`. Where it holds nothing,
    /// calls of sandboxed tools are refused.
    pub fn new(launcher: Launcher, support: Support) -> Self {
        Self {
            launcher,
            support,
            read: Vec::new(),
            write: Vec::new(),
            read_only: Vec::new(),
            hidden: Vec::new(),
        }
    }

    /// Paths of the served folder that stay read-only for sandboxed
    /// programs (see [`switchboard_sandbox::Policy::read_only`]): what
    /// configures the server, `.git`, what unsandboxed tools run.
    pub fn with_read_only(mut self, paths: impl IntoIterator<Item = PathBuf>) -> Self {
        self.read_only.extend(paths);
        self
    }

    /// Files sandboxed programs may not read (see
    /// [`switchboard_sandbox::Policy::hidden`]): what the server never
    /// serves to the model, such as a database file or the secrets' file.
    pub fn with_hidden(mut self, paths: impl IntoIterator<Item = PathBuf>) -> Self {
        self.hidden.extend(paths);
        self
    }

    /// Adds the extra paths of `options`, relative ones resolved against `base`.
    pub fn with_options(mut self, options: &SandboxOptions, base: &Path) -> Self {
        self.read.extend(options.read.iter().map(|p| base.join(p)));
        self.write.extend(options.write.iter().map(|p| base.join(p)));
        self
    }

    /// What this system's Landlock holds.
    pub fn support(&self) -> Support {
        self.support
    }
}
