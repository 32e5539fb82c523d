//! `switchboard completions SHELL`: prints the shell's completion script.

use crate::cli::complete;
use crate::output::print;

/// Prints the completion script for `shell` on stdout.
pub(crate) fn run(shell: clap_complete::Shell) -> anyhow::Result<()> {
    print(&complete::script(shell)?)
}
