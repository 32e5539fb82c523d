//! What the role may do, checked once when the database opens.
//!
//! A read-only transaction stops writes to tables, not everything a
//! powerful role can do from a `SELECT`: a superuser, or a member of
//! `pg_read_server_files` (`pg_read_file`), `pg_write_server_files` or
//! `pg_execute_server_program` (`COPY … PROGRAM`), reaches the server's
//! files and programs, and so does a role that is merely a member of such a
//! role (NOINHERIT or not): it can `SET ROLE` inside its own query. A read
//! database refuses to open through such a role unless the configuration
//! says `allow_privileged_role`.
//!
//! `exclude` is enforced by the engine's privileges: the database refuses
//! to open while the role, or any role it can become, can still `SELECT`
//! an excluded column, naming it;
//! the operator revokes it (`REVOKE SELECT (col) …`, or grants the other
//! columns only), and from then on no query, however written, reads it.

use tokio_postgres::Client;

use crate::{Access, Error, Options};

/// The predefined roles that reach the server's files or programs, and
/// what each gives.
const SERVER_ROLES: [(&str, &str); 3] = [
    ("pg_read_server_files", "reads server files"),
    ("pg_write_server_files", "writes server files"),
    ("pg_execute_server_program", "runs server programs"),
];

/// Refuses a privileged role for a read database (unless allowed); for a
/// database opened anyway, a note saying what the role can do.
///
/// Privileged means a superuser, or a MEMBER (through any chain, with or
/// without INHERIT) of a superuser role or of one of [`SERVER_ROLES`]: a
/// member can become that role inside its own query
/// (`set_config('role', 'adm', true)`), so inherited privileges alone
/// would miss it.
pub(crate) async fn check_privileges(client: &Client, options: &Options) -> Result<Option<String>, Error> {
    let server_roles: Vec<&str> = SERVER_ROLES.iter().map(|(name, _)| *name).collect();
    let rows = client
        .query(
            "SELECT current_user::text, r.rolname::text, r.rolsuper \
             FROM pg_roles r \
             WHERE (r.rolsuper OR r.rolname = ANY($1::text[])) AND pg_has_role(current_user, r.oid, 'MEMBER') \
             ORDER BY r.rolname <> current_user, r.rolsuper DESC, r.rolname",
            &[&server_roles],
        )
        .await
        .map_err(|e| Error::Connect(format!("cannot inspect the role: {e}")))?;
    let Some(first) = rows.first() else { return Ok(None) };
    let role: String = first.get(0);
    let powers = powers_of(&role, rows.iter().map(|row| (row.get(1), row.get(2))).collect());
    if options.access == Access::Write || options.allow_privileged_role {
        return Ok(Some(format!(
            "the role {role:?} {powers}: queries can reach the server's files or programs, which a read-only \
             transaction does not stop"
        )));
    }
    Err(Error::PrivilegedRole(format!(
        "the role {role:?} {powers}: a read-only transaction does not stop it reading or writing the server's \
         files or running programs (a member can SET ROLE inside a query). Connect as a role without these \
         powers and memberships (e.g. one granted pg_read_all_data or SELECT on the exposed tables), or set \
         allow_privileged_role = true if you accept that"
    )))
}

/// What the privileged roles `role` is (or is a member of) give, in words
/// naming each: a superuser is that and nothing more needs saying.
fn powers_of(role: &str, privileged: Vec<(String, bool)>) -> String {
    if privileged.iter().any(|(name, superuser)| *superuser && name == role) {
        return "is a superuser".to_owned();
    }
    const SHOWN: usize = 5;
    let mut powers: Vec<String> = privileged
        .iter()
        .take(SHOWN)
        .map(|(name, superuser)| {
            let gives = if *superuser {
                "a superuser"
            } else {
                SERVER_ROLES
                    .iter()
                    .find(|(server_role, _)| server_role == name)
                    .map_or("privileged", |(_, g)| g)
            };
            format!("is a member of {name:?} ({gives}) and can become it")
        })
        .collect();
    if privileged.len() > SHOWN {
        powers.push(format!("and of {} more", privileged.len() - SHOWN));
    }
    powers.join(", ")
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

/// Refuses to open while the role, or any role it is a MEMBER of (it can
/// `SET ROLE` to one inside a query, INHERIT or not), can read an excluded
/// column, in any schema it can reach (not only the exposed ones: SQL can
/// name any).
pub(crate) async fn check_exclusions(client: &Client, options: &Options) -> Result<(), Error> {
    if options.exclude.is_empty() {
        return Ok(());
    }
    let rows = client
        .query(
            "SELECT n.nspname::text, c.relname::text, a.attname::text, \
                    string_agg(m.rolname::text, ', ' ORDER BY m.rolname <> current_user, m.rolname) \
             FROM pg_attribute a \
             JOIN pg_class c ON c.oid = a.attrelid \
             JOIN pg_namespace n ON n.oid = c.relnamespace \
             CROSS JOIN pg_roles m \
             WHERE a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN ('r', 'p', 'v', 'm', 'f') \
               AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%' \
               AND pg_has_role(current_user, m.oid, 'MEMBER') \
               AND has_column_privilege(m.oid, c.oid, a.attnum, 'SELECT') \
             GROUP BY n.nspname, c.relname, a.attnum, a.attname \
             ORDER BY 1, 2, a.attnum",
            &[],
        )
        .await
        .map_err(|e| Error::Connect(format!("cannot inspect column privileges: {e}")))?;
    for row in &rows {
        let (schema, table, column): (String, String, String) = (row.get(0), row.get(1), row.get(2));
        let readers: String = row.get(3);
        if options.exclude.excludes_column(Some(&schema), &table, &column) {
            return Err(Error::Refused(format!(
                "column {schema}.{table}.{column} is excluded, but the role can read it (as {readers}: a role \
                 it is a member of can be taken with SET ROLE); revoke that (REVOKE SELECT ON {schema}.{table} \
                 FROM the role, then GRANT SELECT (the other columns) ON {schema}.{table}; and revoke the \
                 membership in any role that can read it) so the database itself keeps it out of every query"
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
