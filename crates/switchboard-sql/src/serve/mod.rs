//! The MCP side of the databases: what a running server offers for each
//! open database, and `switchboard check`'s look at them.
//!
//! One [`Databases`] per server keeps every configured database open in the
//! background (reconnecting with backoff while one is down, polling its
//! schema's fingerprint), and hands out [`Items`]: the schema resources,
//! the ad-hoc query tool and the `[[tools.sql]]` tools of the databases
//! open now. The binary registers them through its one apply path and
//! reloads when [`Databases::changed`] resolves.
//!
//! Concerns, one file each: the supervisor (opening, state, change
//! notices), an open database as its items reach it, a configured
//! statement described, the query tool, the configured SQL tools, running
//! a read call (session settings, cancellation, errors as advice), results
//! (structured content and the text table), continuation cursors, writes
//! and their confirmation, resources, and `check`.

mod check;
mod confirm;
mod cursor;
mod described;
mod live;
mod query_tool;
mod resources;
mod result;
mod run;
mod sql_tool;
mod supervisor;

pub use check::{CheckProblem, Place, check};
pub use supervisor::{DatabaseState, DatabaseStatus, Databases, Items};
