//! `exclude`: tables and columns the model never sees, through any path.
//!
//! A pattern is `table`, `table.column` or `schema.table.column` (and
//! `schema.table` where a schema is named: a pattern of two parts matches a
//! table-and-column first, a schema-and-table too). `*` matches any run of
//! characters within one part. Matching is exact otherwise (identifiers as
//! the catalogue spells them). The engines enforce it: the SQLite
//! authorizer denies reading an excluded table or column; PostgreSQL
//! refuses to open unless the role cannot read them (column privileges).

/// A set of exclusion patterns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Exclusions {
    patterns: Vec<Vec<String>>,
}

impl Exclusions {
    /// The patterns as written in the configuration; an empty part
    /// (`a..b`, a trailing dot) is an error naming the pattern.
    pub fn new<S: AsRef<str>>(patterns: &[S]) -> Result<Self, String> {
        let mut parsed = Vec::new();
        for pattern in patterns {
            let pattern = pattern.as_ref();
            let parts: Vec<String> = pattern.split('.').map(str::to_owned).collect();
            if parts.iter().any(String::is_empty) || parts.len() > 3 {
                return Err(format!(
                    "exclude {pattern:?}: expected `table`, `table.column` or `schema.table.column` (`*` matches any characters)"
                ));
            }
            parsed.push(parts);
        }
        Ok(Self { patterns: parsed })
    }

    /// Whether nothing is excluded.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// Whether the whole table `schema.table` is excluded.
    pub fn excludes_table(&self, schema: Option<&str>, table: &str) -> bool {
        self.patterns.iter().any(|p| match p.as_slice() {
            [t] => glob(t, table),
            [s, t] => schema.is_some_and(|schema| glob(s, schema) && glob(t, table)),
            _ => false,
        })
    }

    /// Whether the column `schema.table.column` is excluded (its table
    /// being excluded included).
    pub fn excludes_column(&self, schema: Option<&str>, table: &str, column: &str) -> bool {
        self.excludes_table(schema, table)
            || self.patterns.iter().any(|p| match p.as_slice() {
                [t, c] => glob(t, table) && glob(c, column),
                [s, t, c] => {
                    schema.is_some_and(|schema| glob(s, schema)) && glob(t, table) && glob(c, column)
                }
                _ => false,
            })
    }
}

/// `pattern` with `*` wildcards matches all of `text`.
fn glob(pattern: &str, text: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = text.strip_prefix(first) else { return false };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else { return rest.is_empty() };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_columns_and_wildcards() {
        let e = Exclusions::new(&["customers.ssn", "audit_*", "private.*.token"]).unwrap();
        assert!(e.excludes_table(None, "audit_log"));
        assert!(e.excludes_table(Some("public"), "audit_"));
        assert!(!e.excludes_table(None, "customers"));
        assert!(e.excludes_column(None, "customers", "ssn"));
        assert!(!e.excludes_column(None, "customers", "name"));
        assert!(e.excludes_column(None, "audit_x", "anything"));
        assert!(e.excludes_column(Some("private"), "users", "token"));
        assert!(!e.excludes_column(Some("public"), "users", "token"));
        assert!(!e.excludes_column(None, "users", "token"));
        assert!(glob("a*b*c", "aXbYc") && !glob("a*b*c", "aXbY") && glob("*", "") && glob("ab*", "ab"));
        assert!(!glob("a*a", "a"));
        assert!(Exclusions::new(&["a..b"]).is_err() && Exclusions::new(&["a.b.c.d"]).is_err());
    }
}
