//! `switchboard check` for databases: every problem of every entry at
//! once, each placed on its key. The meaning checks that need no database
//! ([`DatabaseSpec::problems`](crate::spec::DatabaseSpec::problems),
//! [`SqlToolSpec::problems`](crate::spec::SqlToolSpec::problems)), then
//! each database opened (bounded by its `connect_timeout`: unreachable, a
//! privileged role, an exclusion the role can read) and every tool's
//! statement prepared against it (unknown table or column, a parameter
//! the statement lacks, a write in a read tool).

use crate::Database;
use crate::spec::{Key, Resolved, SqlToolSpec};

use super::described;
use super::supervisor::open;

/// Which entry a problem belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// The `[[databases]]` entry at this index of the specs given.
    Database(usize),
    /// The `[[tools.sql]]` entry at this index of the tools given.
    Tool(usize),
}

/// One problem found by [`check`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckProblem {
    /// Which entry.
    pub place: Place,
    /// The keys from the entry's table to the value at fault (empty: the
    /// entry itself).
    pub at: Vec<Key>,
    /// What is wrong, without any password.
    pub message: String,
}

/// Checks every database and tool; opens the databases (concurrently, each
/// bounded by its `connect_timeout`) and describes every statement.
pub async fn check(specs: &[Resolved], tools: &[SqlToolSpec]) -> Vec<CheckProblem> {
    let mut problems: Vec<CheckProblem> = Vec::new();
    // One problem per key: describing finds again what the meaning checks
    // found (a params entry without a placeholder), said once.
    let mut place = |place: Place, found: Vec<(Vec<Key>, String)>| {
        for (at, message) in found {
            if !problems.iter().any(|p| p.place == place && p.at == at) {
                problems.push(CheckProblem { place, at, message });
            }
        }
    };
    for (i, resolved) in specs.iter().enumerate() {
        place(Place::Database(i), resolved.spec.problems());
    }
    for (j, tool) in tools.iter().enumerate() {
        place(Place::Tool(j), tool.problems());
        if !specs.iter().any(|r| r.spec.name == tool.database) {
            let message = format!("no [[databases]] entry is named {:?}", tool.database);
            place(Place::Tool(j), vec![(vec![Key::from("database")], message)]);
        }
    }
    let opened = futures::future::join_all(specs.iter().map(open)).await;
    for (i, (resolved, db)) in specs.iter().zip(opened).enumerate() {
        let db = match db {
            Ok(db) => db,
            Err(error) => {
                place(Place::Database(i), vec![(Vec::new(), error.to_string())]);
                continue;
            }
        };
        for (j, tool) in tools.iter().enumerate().filter(|(_, t)| t.database == resolved.spec.name) {
            if let Err(found) = described::describe(db.as_ref() as &dyn Database, &resolved.spec, tool).await
            {
                place(Place::Tool(j), found);
            }
        }
    }
    problems
}
