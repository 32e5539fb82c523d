//! The authorizer: an allow-list SQLite consults for every action of a
//! statement while it is prepared (and for what a table-valued pragma
//! prepares while it runs). It is the boundary of what a call may do, next
//! to the read-only open and `query_only`: whatever the SQL text says, an
//! action that is not on the list makes the statement fail before anything
//! runs. It also holds `exclude`: reading an excluded table or column is
//! denied, so the query fails with a message naming it.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

use rusqlite::hooks::{AuthAction, AuthContext, Authorization};

use super::excluded::Excluded;

/// What the connection is doing, which decides what is allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Mode {
    /// A read call: reads of non-excluded data, pure functions, reading pragmas.
    Read = 0,
    /// A write call: a read call's rights plus INSERT, UPDATE and DELETE of
    /// non-excluded tables and columns.
    Write = 1,
    /// The crate's own statements (transaction control around a write, the
    /// catalogue's pragmas, the schema version): exclusions are applied to
    /// their results in Rust instead.
    Internal = 2,
}

/// The authorizer's state, shared between the hook and the code running a call.
#[derive(Debug)]
pub(super) struct Guard {
    exclude: Excluded,
    mode: AtomicU8,
    /// Why the first denied action of the current statement was denied.
    refusal: Mutex<Option<String>>,
    /// Tables denied whole while something is excluded, because reading
    /// them would go around an exclusion: see [`Sealed`].
    sealed: Mutex<Sealed>,
    /// Whether the call's own statement is being prepared (rather than
    /// run: virtual table modules read their storage while running).
    preparing: AtomicBool,
}

/// The tables that would let a read go around an exclusion, as of one
/// schema version: every virtual table and its storage ("shadow") tables.
/// A module decides what it indexes and under which names, out of sight
/// of the authorizer: full-text search reads every column through the
/// table's hidden column and `highlight`/`snippet` without naming an
/// excluded one, and an external-content index (`content='customers'`)
/// answers `MATCH 'ssn:1*'` from its own storage, having copied
/// `customers.ssn` under whatever name its creator chose.
/// So are the generated columns of a table with an excluded column: they
/// may be computed from it, and SQLite does not report reading it then.
/// Denied to the statement a call prepares; the modules of virtual tables
/// still read their own storage while it runs.
#[derive(Debug, Default)]
pub(super) struct Sealed {
    /// The schema version these were read at.
    pub(super) schema_version: Option<i64>,
    /// Their names.
    pub(super) tables: Vec<String>,
    /// The generated columns sealed, as (table, column).
    pub(super) columns: Vec<(String, String)>,
}

impl Guard {
    pub(super) fn new(exclude: Excluded) -> Self {
        Self {
            exclude,
            mode: AtomicU8::new(Mode::Read as u8),
            refusal: Mutex::new(None),
            sealed: Mutex::new(Sealed::default()),
            preparing: AtomicBool::new(false),
        }
    }

    /// What is excluded.
    pub(super) fn exclude(&self) -> &Excluded {
        &self.exclude
    }

    /// The schema version the sealed tables were read at.
    pub(super) fn sealed_at(&self) -> Option<i64> {
        self.sealed.lock().ok().and_then(|s| s.schema_version)
    }

    /// Replaces the sealed tables.
    pub(super) fn seal(&self, sealed: Sealed) {
        if let Ok(mut slot) = self.sealed.lock() {
            *slot = sealed;
        }
    }

    /// Marks the preparing of a call's own statement, during which sealed
    /// tables are denied.
    pub(super) fn preparing(&self, preparing: bool) {
        self.preparing.store(preparing, Ordering::SeqCst);
    }

    /// Whether `table` is sealed (denied whole while something is excluded).
    pub(super) fn is_sealed(&self, table: &str) -> bool {
        self.sealed.lock().is_ok_and(|s| s.tables.iter().any(|t| t.eq_ignore_ascii_case(table)))
    }

    /// Whether the generated column `table.column` is sealed.
    pub(super) fn is_sealed_column(&self, table: &str, column: &str) -> bool {
        self.sealed.lock().is_ok_and(|s| {
            s.columns.iter().any(|(t, c)| t.eq_ignore_ascii_case(table) && c.eq_ignore_ascii_case(column))
        })
    }

    /// Sets what the next statements may do, and forgets the last refusal.
    pub(super) fn enter(&self, mode: Mode) {
        self.mode.store(mode as u8, Ordering::SeqCst);
        self.take_refusal();
    }

    fn mode(&self) -> Mode {
        match self.mode.load(Ordering::SeqCst) {
            1 => Mode::Write,
            2 => Mode::Internal,
            _ => Mode::Read,
        }
    }

    /// The reason of the first denial since [`Guard::enter`], if any.
    pub(super) fn take_refusal(&self) -> Option<String> {
        self.refusal.lock().map_or(None, |mut r| r.take())
    }

    /// The hook SQLite calls.
    pub(super) fn authorize(&self, context: AuthContext<'_>) -> Authorization {
        let verdict = match context.action {
            AuthAction::Read { table_name, .. }
                if self.mode() != Mode::Internal
                    && self.preparing.load(Ordering::SeqCst)
                    && self.is_sealed(table_name) =>
            {
                Err(format!(
                    "the table {table_name} is not readable because some tables or columns are excluded: it is a virtual table (or one's internal storage), whose module may hold data of an excluded column under any name"
                ))
            }
            AuthAction::Read { table_name, column_name }
                if self.mode() != Mode::Internal
                    && self.preparing.load(Ordering::SeqCst)
                    && self.is_sealed_column(table_name, column_name) =>
            {
                Err(format!(
                    "the column {table_name}.{column_name} is not readable: it is generated, and {table_name} has an excluded column it may be computed from"
                ))
            }
            action => decide(self.mode(), &self.exclude, &action),
        };
        match verdict {
            Ok(()) => Authorization::Allow,
            Err(reason) => {
                if let Ok(mut slot) = self.refusal.lock() {
                    slot.get_or_insert(reason);
                }
                Authorization::Deny
            }
        }
    }
}

/// Pure built-in functions: no file access, no extension loading, nothing
/// that changes the connection or the database. Everything else (including
/// `load_extension`, `fts3_tokenizer`, and the shell's `readfile`/`writefile`
/// should a build have them) is denied.
const FUNCTIONS: &[&str] = &[
    // core scalar functions
    "abs",
    "changes",
    "char",
    "coalesce",
    "concat",
    "concat_ws",
    "format",
    "glob",
    "hex",
    "if",
    "ifnull",
    "iif",
    "instr",
    "last_insert_rowid",
    "length",
    "like",
    "likelihood",
    "likely",
    "lower",
    "ltrim",
    "max",
    "min",
    "nullif",
    "octet_length",
    "printf",
    "quote",
    "random",
    "randomblob",
    "replace",
    "round",
    "rtrim",
    "sign",
    "soundex",
    "sqlite_source_id",
    "sqlite_version",
    "substr",
    "substring",
    "total_changes",
    "trim",
    "typeof",
    "unhex",
    "unicode",
    "unistr",
    "unistr_quote",
    "unlikely",
    "upper",
    "zeroblob",
    // aggregates
    "avg",
    "count",
    "group_concat",
    "string_agg",
    "sum",
    "total",
    "json_group_array",
    "json_group_object",
    "jsonb_group_array",
    "jsonb_group_object",
    // window functions
    "row_number",
    "rank",
    "dense_rank",
    "percent_rank",
    "cume_dist",
    "ntile",
    "lag",
    "lead",
    "first_value",
    "last_value",
    "nth_value",
    // date and time
    "date",
    "time",
    "datetime",
    "julianday",
    "unixepoch",
    "strftime",
    "timediff",
    "current_date",
    "current_time",
    "current_timestamp",
    // math
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "ceil",
    "ceiling",
    "cos",
    "cosh",
    "degrees",
    "exp",
    "floor",
    "ln",
    "log",
    "log10",
    "log2",
    "mod",
    "pi",
    "pow",
    "power",
    "radians",
    "sin",
    "sinh",
    "sqrt",
    "tan",
    "tanh",
    "trunc",
    // JSON
    "json",
    "jsonb",
    "json_array",
    "jsonb_array",
    "json_array_length",
    "json_error_position",
    "json_extract",
    "jsonb_extract",
    "json_insert",
    "jsonb_insert",
    "json_object",
    "jsonb_object",
    "json_patch",
    "jsonb_patch",
    "json_pretty",
    "json_quote",
    "json_remove",
    "jsonb_remove",
    "json_replace",
    "jsonb_replace",
    "json_set",
    "jsonb_set",
    "json_type",
    "json_valid",
    "json_each",
    "json_tree",
    "jsonb_each",
    "jsonb_tree",
    // full-text search
    "match",
    "highlight",
    "snippet",
    "bm25",
    "offsets",
    "matchinfo",
];

/// Pragmas that only read, whose argument names an object (`table_info(t)`).
/// They describe the schema, so a call may use them only when nothing is
/// excluded (the catalogue, with exclusions applied, is the way then).
const SCHEMA_PRAGMAS: &[&str] = &[
    "table_info",
    "table_xinfo",
    "table_list",
    "index_list",
    "index_info",
    "index_xinfo",
    "foreign_key_list",
];

/// Pragmas that read a setting or a counter when given no value (and
/// change it when given one, which is denied).
const READ_PRAGMAS: &[&str] = &[
    "schema_version",
    "user_version",
    "application_id",
    "data_version",
    "page_size",
    "page_count",
    "freelist_count",
    "encoding",
    "foreign_keys",
    "collation_list",
    "function_list",
    "module_list",
    "pragma_list",
    "compile_options",
    "auto_vacuum",
    "journal_mode",
];

/// The schema table under its names: it holds every CREATE statement,
/// excluded columns included.
const SCHEMA_TABLES: &[&str] =
    &["sqlite_schema", "sqlite_master", "sqlite_temp_schema", "sqlite_temp_master"];

/// The tables `ANALYZE` fills with sample index keys: values of indexed
/// columns, excluded ones included.
const SAMPLE_TABLES: &[&str] = &["sqlite_stat3", "sqlite_stat4"];

/// Whether `action` is allowed in `mode`; the reason when it is not.
pub(super) fn decide(mode: Mode, exclude: &Excluded, action: &AuthAction<'_>) -> Result<(), String> {
    match *action {
        AuthAction::Select | AuthAction::Recursive => Ok(()),
        AuthAction::Read { table_name, column_name } => read(mode, exclude, table_name, column_name),
        AuthAction::Function { function_name } => function(function_name),
        AuthAction::Pragma { pragma_name, pragma_value } => pragma(mode, exclude, pragma_name, pragma_value),
        AuthAction::Insert { table_name } | AuthAction::Delete { table_name } if mode == Mode::Write => {
            write_target(exclude, table_name, None)
        }
        AuthAction::Update { table_name, column_name } if mode == Mode::Write => {
            write_target(exclude, table_name, Some(column_name))
        }
        AuthAction::Transaction { .. } if mode == Mode::Internal => Ok(()),
        AuthAction::Attach { .. } | AuthAction::Detach { .. } => {
            Err("ATTACH and DETACH are not allowed: a call sees one database".into())
        }
        AuthAction::Insert { .. } | AuthAction::Update { .. } | AuthAction::Delete { .. } => {
            Err("writing is not allowed here: this is a read-only call".into())
        }
        AuthAction::Transaction { .. } | AuthAction::Savepoint { .. } => {
            Err("transaction control is not allowed: each call runs in its own transaction".into())
        }
        _ => Err(format!("{} is not allowed: only reading statements are", action_name(action))),
    }
}

fn read(mode: Mode, exclude: &Excluded, table: &str, column: &str) -> Result<(), String> {
    if mode == Mode::Internal {
        return Ok(());
    }
    if SCHEMA_TABLES.iter().any(|t| t.eq_ignore_ascii_case(table)) && !exclude.is_empty() {
        return Err(format!(
            "reading {table} is not allowed because some tables or columns are excluded; read the database's schema resource instead"
        ));
    }
    if SAMPLE_TABLES.iter().any(|t| t.eq_ignore_ascii_case(table)) && !exclude.is_empty() {
        return Err(format!(
            "reading {table} is not allowed because some tables or columns are excluded: it holds sample values of indexed columns"
        ));
    }
    if exclude.table(table) {
        return Err(format!("the table {table} is excluded from what this server exposes"));
    }
    if !column.is_empty() && exclude.column(table, column) {
        return Err(format!(
            "the column {table}.{column} is excluded from what this server exposes (a `*` selects it too: name the columns you need)"
        ));
    }
    Ok(())
}

fn function(name: &str) -> Result<(), String> {
    if FUNCTIONS.iter().any(|f| f.eq_ignore_ascii_case(name)) {
        Ok(())
    } else {
        Err(format!("the function {name}() is not allowed: only pure built-in functions are"))
    }
}

fn pragma(mode: Mode, exclude: &Excluded, name: &str, value: Option<&str>) -> Result<(), String> {
    let is = |list: &[&str]| list.iter().any(|p| p.eq_ignore_ascii_case(name));
    if is(SCHEMA_PRAGMAS) {
        if mode != Mode::Internal && !exclude.is_empty() {
            return Err(format!(
                "PRAGMA {name} is not allowed because some tables or columns are excluded; read the database's schema resource instead"
            ));
        }
        return Ok(());
    }
    match (is(READ_PRAGMAS), value) {
        (true, None) => Ok(()),
        (true, Some(_)) => {
            Err(format!("PRAGMA {name} with a value changes the connection: only reading it is allowed"))
        }
        (false, _) => Err(format!("PRAGMA {name} is not allowed: only pragmas that read are")),
    }
}

fn write_target(exclude: &Excluded, table: &str, column: Option<&str>) -> Result<(), String> {
    let excluded = match column {
        Some(column) => exclude.column(table, column),
        None => exclude.table(table),
    };
    if excluded {
        return Err(format!(
            "{} is excluded from what this server exposes",
            column.map_or_else(|| table.to_owned(), |c| format!("{table}.{c}"))
        ));
    }
    if table.to_ascii_lowercase().starts_with("sqlite_") {
        return Err(format!(
            "changing {table} (the schema, or SQLite's own tables) is not allowed: only INSERT, UPDATE and DELETE of the database's tables are"
        ));
    }
    Ok(())
}

/// The statement kind an action stands for, for messages.
fn action_name(action: &AuthAction<'_>) -> &'static str {
    match action {
        AuthAction::CreateIndex { .. } | AuthAction::CreateTempIndex { .. } => "CREATE INDEX",
        AuthAction::CreateTable { .. } | AuthAction::CreateTempTable { .. } => "CREATE TABLE",
        AuthAction::CreateTrigger { .. } | AuthAction::CreateTempTrigger { .. } => "CREATE TRIGGER",
        AuthAction::CreateView { .. } | AuthAction::CreateTempView { .. } => "CREATE VIEW",
        AuthAction::CreateVtable { .. } => "CREATE VIRTUAL TABLE",
        AuthAction::DropIndex { .. } | AuthAction::DropTempIndex { .. } => "DROP INDEX",
        AuthAction::DropTable { .. } | AuthAction::DropTempTable { .. } | AuthAction::DropVtable { .. } => {
            "DROP TABLE"
        }
        AuthAction::DropTrigger { .. } | AuthAction::DropTempTrigger { .. } => "DROP TRIGGER",
        AuthAction::DropView { .. } | AuthAction::DropTempView { .. } => "DROP VIEW",
        AuthAction::AlterTable { .. } => "ALTER TABLE",
        AuthAction::Reindex { .. } => "REINDEX",
        AuthAction::Analyze { .. } => "ANALYZE",
        // VACUUM reaches the authorizer as an unknown action (and VACUUM INTO
        // as an ATTACH of its target first).
        _ => "this statement",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_pass_and_everything_else_is_named() {
        let none = Excluded::default();
        let read = |a: AuthAction<'_>| decide(Mode::Read, &none, &a);
        assert!(read(AuthAction::Select).is_ok());
        assert!(read(AuthAction::Read { table_name: "t", column_name: "a" }).is_ok());
        assert!(read(AuthAction::Function { function_name: "LOWER" }).is_ok());
        assert!(
            read(AuthAction::Function { function_name: "load_extension" })
                .unwrap_err()
                .contains("load_extension")
        );
        assert!(read(AuthAction::Pragma { pragma_name: "table_info", pragma_value: Some("t") }).is_ok());
        assert!(read(AuthAction::Pragma { pragma_name: "query_only", pragma_value: Some("0") }).is_err());
        assert!(read(AuthAction::Pragma { pragma_name: "schema_version", pragma_value: None }).is_ok());
        assert!(read(AuthAction::Pragma { pragma_name: "schema_version", pragma_value: Some("9") }).is_err());
        assert!(read(AuthAction::Insert { table_name: "t" }).is_err());
        assert!(read(AuthAction::Attach { filename: "x" }).is_err());
        assert!(read(AuthAction::DropTable { table_name: "t" }).unwrap_err().contains("DROP TABLE"));
        assert!(decide(Mode::Write, &none, &AuthAction::Insert { table_name: "t" }).is_ok());
        assert!(decide(Mode::Write, &none, &AuthAction::Insert { table_name: "sqlite_stat1" }).is_err());
        assert!(decide(Mode::Write, &none, &AuthAction::Attach { filename: "x" }).is_err());
    }

    #[test]
    fn exclusions_hold_on_reads_writes_and_schema_views() {
        let ex = Excluded::new(&crate::Exclusions::new(&["customers.ssn", "audit_*"]).unwrap());
        let read = |t, c| decide(Mode::Read, &ex, &AuthAction::Read { table_name: t, column_name: c });
        assert!(read("customers", "name").is_ok());
        assert!(read("customers", "ssn").unwrap_err().contains("customers.ssn"));
        assert!(read("audit_log", "").is_err());
        assert!(read("sqlite_master", "sql").is_err());
        assert!(
            decide(
                Mode::Internal,
                &ex,
                &AuthAction::Read { table_name: "sqlite_master", column_name: "sql" }
            )
            .is_ok()
        );
        let write = |t, c| decide(Mode::Write, &ex, &AuthAction::Update { table_name: t, column_name: c });
        assert!(write("customers", "name").is_ok() && write("customers", "ssn").is_err());
        let info = AuthAction::Pragma { pragma_name: "table_info", pragma_value: Some("customers") };
        assert!(decide(Mode::Read, &ex, &info).is_err() && decide(Mode::Internal, &ex, &info).is_ok());
    }
}
