//! The statements prepared on one connection ([`Prepared`]): each
//! configured statement with what a call needs to bind and read it
//! ([`Ready`]), kept for the connection's life, and the `set_config` of call
//! settings. The pool keeps one per connection; a query fills and reads it.

use std::collections::HashMap;
use std::sync::Arc;

use tokio_postgres::Statement as PgStatement;

use crate::Column;

/// A statement prepared on one connection with what each call needs:
/// the names of `$1`, `$2`, … and the result's columns with their schemas
/// (described once, checked decodable once).
pub(crate) struct Ready {
    pub(super) statement: PgStatement,
    pub(super) names: Vec<String>,
    pub(super) columns: Arc<[Column]>,
}

/// Statements prepared on one connection, so a configured call binds and
/// runs without a Parse/Describe round trip: the statements from the
/// configuration by their text (with their parameter names and column
/// schemas), and the `set_config` of call settings. Never ad-hoc text.
#[derive(Default)]
pub(crate) struct Prepared {
    by_text: HashMap<String, Arc<Ready>>,
    set_config: Option<PgStatement>,
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepared").field("statements", &self.by_text.len()).finish_non_exhaustive()
    }
}

/// Configured statements kept prepared per connection at most; past it the
/// cache starts over (a configuration has far fewer).
const MAX_PREPARED: usize = 256;

impl Prepared {
    pub(crate) fn get(&self, sql: &str) -> Option<Arc<Ready>> {
        self.by_text.get(sql).cloned()
    }

    pub(crate) fn insert(&mut self, sql: &str, ready: Arc<Ready>) {
        if self.by_text.len() >= MAX_PREPARED {
            self.by_text.clear();
        }
        self.by_text.insert(sql.to_owned(), ready);
    }

    pub(crate) fn forget(&mut self, sql: &str) {
        self.by_text.remove(sql);
    }

    pub(crate) fn set_config(&self) -> Option<&PgStatement> {
        self.set_config.as_ref()
    }

    pub(crate) fn set_set_config(&mut self, statement: PgStatement) {
        self.set_config = Some(statement);
    }
}
