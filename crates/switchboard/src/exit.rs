//! Exit statuses: one meaning each, for every command.
//!
//! An error is marked with the status it ends switchboard with by wrapping it in
//! a [`Coded`] ([`usage`], [`config`], [`io`], [`tool_error`]); [`status`]
//! finds the mark anywhere in the error's chain. An unmarked error is an
//! I/O or protocol failure (4): configuration problems are marked where
//! they are reported (`output::report`), and usage errors are clap's own
//! or marked where they are found.

use std::process::ExitCode;

/// What `switchboard --help` and `switchboard call --help` say about exit statuses.
pub(crate) const HELP: &str = "\
Exit status:
  0      success
  1      the tool reported an error (`switchboard call`: the result has isError,
         as for arguments that do not match the tool's inputSchema)
  2      usage: an unknown or invalid argument or option, an unknown tool,
         --args that is not a JSON object, a non-loopback --http without
         --allow-host
  3      configuration problem: switchboard.toml (or --config) is missing, does not
         parse, or names something that does not work (`switchboard check` lists it)
  4      I/O or protocol failure: a folder that cannot be read, an address
         that cannot be resolved or bound, a file that exists (`init`), an
         error answer from the server or the upstream
  128+N  stopped by signal N (130 for SIGINT, 143 for SIGTERM)";

/// The meaning of an exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Code {
    /// 1: the tool ran and reported an error (`isError`).
    ToolError = 1,
    /// 2: the command line is wrong (clap uses the same status).
    Usage = 2,
    /// 3: the configuration does not load or check.
    Config = 3,
    /// 4: reading, writing, resolving, binding or the protocol failed.
    Io = 4,
}

impl From<Code> for ExitCode {
    fn from(code: Code) -> Self {
        ExitCode::from(code as u8)
    }
}

/// An error that ends switchboard with `code`. Displays as the error it wraps
/// (with that error's own chain), so messages do not change.
#[derive(Debug)]
pub(crate) struct Coded {
    pub code: Code,
    pub error: anyhow::Error,
}

impl std::fmt::Display for Coded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#}", self.error)
    }
}

impl std::error::Error for Coded {}

fn coded(code: Code, error: impl Into<anyhow::Error>) -> anyhow::Error {
    let error = error.into();
    // A signal stays what it is: `main` turns it into 128 + its number.
    if find::<crate::shutdown::Terminated>(&error).is_some() {
        return error;
    }
    Coded { code, error }.into()
}

/// A usage error (2).
pub(crate) fn usage(error: impl Into<anyhow::Error>) -> anyhow::Error {
    coded(Code::Usage, error)
}

/// A configuration problem (3).
pub(crate) fn config(error: impl Into<anyhow::Error>) -> anyhow::Error {
    coded(Code::Config, error)
}

/// An I/O or protocol failure (4).
pub(crate) fn io(error: impl Into<anyhow::Error>) -> anyhow::Error {
    coded(Code::Io, error)
}

/// The tool reported an error (1).
pub(crate) fn tool_error(error: impl Into<anyhow::Error>) -> anyhow::Error {
    coded(Code::ToolError, error)
}

/// The first `T` in `error`'s chain, looking inside [`Coded`] wrappers.
pub(crate) fn find<T: std::error::Error + Send + Sync + 'static>(error: &anyhow::Error) -> Option<&T> {
    error.chain().find_map(|cause| {
        cause.downcast_ref::<T>().or_else(|| cause.downcast_ref::<Coded>().and_then(|c| find::<T>(&c.error)))
    })
}

/// The status `error` ends switchboard with: the outermost mark, else 4.
pub(crate) fn code_of(error: &anyhow::Error) -> Code {
    find::<Coded>(error).map_or(Code::Io, |c| c.code)
}

/// The exit status of a command that ended with `result`: 0 on success,
/// 128 + the signal's number when a signal stopped it, 0 when stdout was
/// closed (the client went away), else the error's mark ([`code_of`]) after
/// the error is printed on stderr.
pub(crate) fn status(result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // Stopped by a signal: exit with 128 + its number (143 for SIGTERM).
            if let Some(stopped) = e.downcast_ref::<crate::shutdown::Terminated>() {
                return ExitCode::from(stopped.exit_code());
            }
            // A closed stdout just means the client went away.
            if e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) {
                return ExitCode::SUCCESS;
            }
            eprintln!("switchboard: {e:#}");
            code_of(&e).into()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mark_survives_context_and_the_message_is_unchanged() {
        let error = config(anyhow::anyhow!("1 problem in the configuration")).context("loading");
        assert_eq!(code_of(&error), Code::Config);
        assert_eq!(format!("{error:#}"), "loading: 1 problem in the configuration");
        assert_eq!(code_of(&anyhow::anyhow!("unmarked")), Code::Io);
        let inner = usage(anyhow::anyhow!("inner"));
        assert_eq!(code_of(&io(inner)), Code::Io, "the outermost mark wins");
    }

    #[test]
    fn a_signal_is_never_marked() {
        let stopped: anyhow::Error = crate::shutdown::Terminated(switchboard_process::Signal::SIGTERM).into();
        let error = io(stopped);
        assert!(find::<crate::shutdown::Terminated>(&error).is_some());
        assert!(find::<Coded>(&error).is_none());
    }
}
