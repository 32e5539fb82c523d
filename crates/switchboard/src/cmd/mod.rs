//! One file per subcommand: each opens with what the command does and
//! holds its `run`, which `main` calls with the parsed arguments.

/// `switchboard bundle`: the MCP Bundle and the registry's `server.json`.
pub(crate) mod bundle;
/// `switchboard call TOOL`: one tool run in process.
pub(crate) mod call;
/// `switchboard check`: every problem of a configuration.
pub(crate) mod check;
/// `switchboard completions SHELL`.
pub(crate) mod completions;
/// `switchboard init`: a starter `switchboard.toml`.
pub(crate) mod init;
/// What `list` and `call` share: the project loaded and tried once.
mod inspect;
/// `switchboard list`: what would be served.
pub(crate) mod list;
/// `switchboard man`.
pub(crate) mod man;
/// `switchboard proxy`: another MCP server, fronted.
pub(crate) mod proxy;
/// `switchboard schema`: the JSON Schema of `switchboard.toml`.
pub(crate) mod schema;
/// `switchboard serve`: the MCP server itself.
pub(crate) mod serve;
