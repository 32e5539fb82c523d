//! What the role may do, checked once when the database opens.
//!
//! A read-only transaction stops writes to tables, not everything a
//! powerful role can do from a `SELECT`: a superuser, or a member of
//! `pg_read_server_files` (`pg_read_file`), `pg_write_server_files` or
//! `pg_execute_server_program` (`COPY … PROGRAM`), reaches the server's
//! files and programs. A read database refuses to open through such a role
//! unless the configuration says `allow_privileged_role`.
//!
//! `exclude` is enforced by the engine's privileges: the database refuses
//! to open while the role can still `SELECT` an excluded column, naming it;
//! the operator revokes it (`REVOKE SELECT (col) …`, or grants the other
//! columns only), and from then on no query, however written, reads it.

use tokio_postgres::Client;

use crate::{Access, Error, Options};

/// Refuses a privileged role for a read database (unless allowed); for a
/// database opened anyway, a note saying what the role can do.
pub(crate) async fn check_privileges(client: &Client, options: &Options) -> Result<Option<String>, Error> {
    let row = client
        .query_one(
            "SELECT current_user::text, r.rolsuper, \
                    pg_has_role(current_user, 'pg_read_server_files', 'MEMBER'), \
                    pg_has_role(current_user, 'pg_write_server_files', 'MEMBER'), \
                    pg_has_role(current_user, 'pg_execute_server_program', 'MEMBER') \
             FROM pg_roles r WHERE r.rolname = current_user",
            &[],
        )
        .await
        .map_err(|e| Error::Connect(format!("cannot inspect the role: {e}")))?;
    let role: String = row.get(0);
    let powers: Vec<&str> = [(1, "is a superuser"), (2, "reads server files (pg_read_server_files)")]
        .into_iter()
        .chain([
            (3, "writes server files (pg_write_server_files)"),
            (4, "runs server programs (pg_execute_server_program)"),
        ])
        .filter(|(column, _)| row.get::<_, bool>(*column))
        .map(|(_, what)| what)
        .collect();
    if powers.is_empty() {
        return Ok(None);
    }
    if options.access == Access::Write || options.allow_privileged_role {
        return Ok(Some(format!(
            "the role {role:?} {}: queries can reach the server's files or programs, which a read-only \
             transaction does not stop",
            powers.join(", ")
        )));
    }
    Err(Error::PrivilegedRole(format!(
        "the role {role:?} {}: a read-only transaction does not stop it reading or writing the server's files \
         or running programs. Connect as a role without these powers (e.g. one granted pg_read_all_data or \
         SELECT on the exposed tables), or set allow_privileged_role = true if you accept that",
        powers.join(", ")
    )))
}

/// Exposed tables this role could write (a note for the operator: reads
/// are enforced regardless, but a least-privilege role is better).
pub(crate) async fn write_grants(client: &Client, schemas: &[String]) -> Result<Vec<String>, Error> {
    let rows = client
        .query(
            "SELECT n.nspname::text || '.' || c.relname::text \
             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
             WHERE n.nspname = ANY($1::text[]) AND c.relkind IN ('r', 'p', 'v', 'm', 'f') \
               AND has_table_privilege(c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE') \
             ORDER BY 1",
            &[&schemas],
        )
        .await
        .map_err(|e| Error::Connect(format!("cannot inspect table privileges: {e}")))?;
    let tables: Vec<String> = rows.iter().map(|row| row.get(0)).collect();
    if tables.is_empty() {
        return Ok(Vec::new());
    }
    const SHOWN: usize = 10;
    let mut list = tables.iter().take(SHOWN).cloned().collect::<Vec<_>>().join(", ");
    if tables.len() > SHOWN {
        list.push_str(&format!(" and {} more", tables.len() - SHOWN));
    }
    Ok(vec![format!(
        "the role may write {} exposed table(s) ({list}); reads stay read-only by the engine, \
         but a role with SELECT only is safer",
        tables.len()
    )])
}

/// Refuses to open while the role can read an excluded column, in any
/// schema it can reach (not only the exposed ones: SQL can name any).
pub(crate) async fn check_exclusions(client: &Client, options: &Options) -> Result<(), Error> {
    if options.exclude.is_empty() {
        return Ok(());
    }
    let rows = client
        .query(
            "SELECT n.nspname::text, c.relname::text, a.attname::text \
             FROM pg_attribute a \
             JOIN pg_class c ON c.oid = a.attrelid \
             JOIN pg_namespace n ON n.oid = c.relnamespace \
             WHERE a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN ('r', 'p', 'v', 'm', 'f') \
               AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%' \
               AND has_column_privilege(c.oid, a.attnum, 'SELECT') \
             ORDER BY 1, 2, a.attnum",
            &[],
        )
        .await
        .map_err(|e| Error::Connect(format!("cannot inspect column privileges: {e}")))?;
    for row in &rows {
        let (schema, table, column): (String, String, String) = (row.get(0), row.get(1), row.get(2));
        if options.exclude.excludes_column(Some(&schema), &table, &column) {
            return Err(Error::Refused(format!(
                "column {schema}.{table}.{column} is excluded, but the role can read it; revoke that \
                 (REVOKE SELECT ON {schema}.{table} FROM the role, then GRANT SELECT (the other columns) \
                 ON {schema}.{table}) so the database itself keeps it out of every query"
            )));
        }
    }
    Ok(())
}

/// The exposed schemas: the configured ones, or the search path's.
pub(crate) async fn exposed_schemas(client: &Client, options: &Options) -> Result<Vec<String>, Error> {
    if !options.schemas.is_empty() {
        return Ok(options.schemas.clone());
    }
    let row = client
        .query_one("SELECT current_schemas(false)::text[]", &[])
        .await
        .map_err(|e| Error::Connect(format!("cannot read the search path: {e}")))?;
    Ok(row.get(0))
}

/// Installed extensions that open other connections (`dblink`): a query
/// through one runs in a session this database does not control, where
/// the read-only transaction does not apply.
pub(crate) async fn other_connections(client: &Client) -> Result<Vec<String>, Error> {
    let rows = client
        .query(
            "SELECT p.oid::regprocedure::text FROM pg_proc p \
             JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e' \
             JOIN pg_extension e ON e.oid = d.refobjid \
             WHERE e.extname = 'dblink' AND p.proname IN ('dblink_exec', 'dblink', 'dblink_connect') \
               AND has_function_privilege(p.oid, 'EXECUTE') \
             ORDER BY 1",
            &[],
        )
        .await
        .map_err(|e| Error::Connect(format!("cannot inspect extensions: {e}")))?;
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let functions: Vec<String> = rows.iter().map(|row| row.get(0)).collect();
    Ok(vec![format!(
        "the role may run dblink functions ({}): they open other sessions, where this database's \
         read-only transaction does not apply; REVOKE EXECUTE on them from the role",
        functions.join(", ")
    )])
}
