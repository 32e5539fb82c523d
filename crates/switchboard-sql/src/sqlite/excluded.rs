//! `exclude` as SQLite names things: identifiers are case-insensitive
//! (`Customers.SSN` is `customers.ssn`), and every table a call reads is
//! in the schema `main` (so `main.customers` and `main.customers.ssn`
//! match as well as `customers` and `customers.ssn`).

use crate::Exclusions;

/// The schema every exposed table is in.
const MAIN: Option<&str> = Some("main");

/// The configuration's exclusions, matched the way SQLite compares names.
#[derive(Debug, Clone, Default)]
pub(super) struct Excluded(Exclusions);

impl Excluded {
    pub(super) fn new(exclude: &Exclusions) -> Self {
        Self(exclude.to_ascii_lowercase())
    }

    pub(super) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether the whole table is excluded.
    pub(super) fn table(&self, table: &str) -> bool {
        self.0.excludes_table(MAIN, &table.to_ascii_lowercase())
    }

    /// Whether the column (or its whole table) is excluded.
    pub(super) fn column(&self, table: &str, column: &str) -> bool {
        self.0.excludes_column(MAIN, &table.to_ascii_lowercase(), &column.to_ascii_lowercase())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_in_any_case_and_under_main() {
        let e =
            Excluded::new(&Exclusions::new(&["Customers.SSN", "main.audit_*", "main.orders.note"]).unwrap());
        assert!(e.column("customers", "ssn") && e.column("CUSTOMERS", "Ssn"));
        assert!(!e.column("customers", "name"));
        assert!(e.table("audit_log") && e.table("AUDIT_log"));
        assert!(e.column("orders", "note") && !e.column("orders", "id"));
    }
}
