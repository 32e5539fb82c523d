//! What the commands print: text on stdout that survives a closed pipe, a
//! spinner on stderr while they work, and configuration problems on stderr,
//! one placed line each.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use crate::exit;

/// Writes to stdout, returning (not panicking on) a closed pipe.
pub(crate) fn print(text: &str) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    stdout.flush()?;
    Ok(())
}

/// A spinner on stderr while `work` runs (hidden when stderr is not a terminal).
pub(crate) fn with_spinner<T>(message: &str, work: impl FnOnce() -> T) -> T {
    let spinner = ProgressBar::new_spinner();
    spinner.set_style(ProgressStyle::with_template("{spinner} {msg}").expect("a valid template"));
    spinner.set_message(message.to_owned());
    spinner.enable_steady_tick(Duration::from_millis(80));
    let out = work();
    spinner.finish_and_clear();
    out
}

/// Turns configuration problems into one error, printing each on stderr.
pub(crate) fn report(problems: Vec<switchboard_config::Problem>) -> anyhow::Error {
    let cwd = std::env::current_dir().ok().and_then(|d| d.canonicalize().ok()).unwrap_or_default();
    for problem in &problems {
        eprintln!("{}", problem.clone().relative_to(&cwd));
    }
    let s = if problems.len() == 1 { "" } else { "s" };
    exit::config(anyhow::anyhow!(
        "{} problem{s} in the configuration (`switchboard check` lists them)",
        problems.len()
    ))
}
