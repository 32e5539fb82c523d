//! `switchboard man`: prints the manual page (roff).

use crate::cli::man;
use crate::output::print;

/// Prints the manual page on stdout: `switchboard man | man -l -`.
pub(crate) fn run() -> anyhow::Result<()> {
    print(&man::page()?)
}
