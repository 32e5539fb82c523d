//! The catalogue of `main`, read through the table-valued pragma functions
//! with the table name bound as a parameter (never spliced into the text),
//! on the same guarded connection as calls, with exclusions left out here.

use rusqlite::{Connection, params};

use super::authorizer::{Guard, Mode};
use super::excluded::Excluded;
use super::open::Conn;
use crate::{Catalog, CatalogColumn, Error, ForeignKey, Index, Table, TableKind};

fn failed(e: rusqlite::Error) -> Error {
    Error::Execute(format!("reading the catalogue: {e}"))
}

/// The tables and views of `main` (not SQLite's own `sqlite_*` tables),
/// exclusions left out.
pub(super) fn read(conn: &Conn) -> Result<Catalog, Error> {
    let exclude = conn.guard.exclude();
    conn.guard.enter(Mode::Internal);
    let db = &conn.connection;
    let mut list = db
        .prepare("SELECT name, type FROM pragma_table_list WHERE schema = 'main' ORDER BY name")
        .map_err(failed)?;
    let relations: Vec<(String, String)> = list
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .map_err(failed)?
        .collect::<Result<_, _>>()
        .map_err(failed)?;
    let has_stats = relations.iter().any(|(name, _)| name == "sqlite_stat1");
    let mut tables = Vec::new();
    for (name, kind) in relations {
        let kind = match kind.as_str() {
            "table" | "virtual" => TableKind::Table,
            "view" => TableKind::View,
            _ => continue, // shadow tables of virtual tables
        };
        let hidden = exclude.table(&name) || conn.guard.is_sealed(&name);
        if name.to_ascii_lowercase().starts_with("sqlite_") || hidden {
            continue;
        }
        match table(db, &conn.guard, name, kind, has_stats) {
            Ok(table) => tables.push(table),
            // A view over a table that no longer exists cannot be read
            // by anyone: it is left out rather than failing the catalogue.
            Err(_) if kind == TableKind::View => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(Catalog { tables })
}

fn table(
    db: &Connection,
    guard: &Guard,
    name: String,
    kind: TableKind,
    has_stats: bool,
) -> Result<Table, Error> {
    let exclude = guard.exclude();
    let shown = |column: &str| !exclude.column(&name, column) && !guard.is_sealed_column(&name, column);
    let (mut columns, primary_key) = columns(db, &name, &shown)?;
    if kind == TableKind::View {
        let hidden = view_columns_from_excluded(db, exclude, &name)?;
        columns =
            columns.into_iter().enumerate().filter(|(i, _)| !hidden.contains(i)).map(|(_, c)| c).collect();
    }
    let foreign_keys = foreign_keys(db, &name)?
        .into_iter()
        .filter(|fk| {
            fk.columns.iter().all(|c| shown(c))
                && !exclude.table(&fk.references)
                && fk.referenced_columns.iter().all(|c| !exclude.column(&fk.references, c))
        })
        .collect();
    let indexes = indexes(db, &name)?.into_iter().filter(|i| i.columns.iter().all(|c| shown(c))).collect();
    let estimated_rows = if has_stats { estimated_rows(db, &name)? } else { None };
    Ok(Table {
        schema: None,
        name,
        kind,
        columns,
        primary_key,
        foreign_keys,
        indexes,
        comment: None,
        estimated_rows,
    })
}

/// The visible columns and the primary key (empty when a key column is
/// excluded: a partial key would mislead).
fn columns(
    db: &Connection,
    table: &str,
    shown: &dyn Fn(&str) -> bool,
) -> Result<(Vec<CatalogColumn>, Vec<String>), Error> {
    let mut statement = db
        .prepare(
            "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_xinfo(?1, 'main') \
             WHERE hidden <> 1 ORDER BY cid",
        )
        .map_err(failed)?;
    let rows: Vec<(String, String, bool, Option<String>, i64)> = statement
        .query_map(params![table], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
        .map_err(failed)?
        .collect::<Result<_, _>>()
        .map_err(failed)?;
    let mut key: Vec<(i64, String)> = rows.iter().filter(|r| r.4 > 0).map(|r| (r.4, r.0.clone())).collect();
    key.sort();
    let primary_key = if key.iter().all(|(_, c)| shown(c)) {
        key.into_iter().map(|(_, c)| c).collect()
    } else {
        Vec::new()
    };
    let columns = rows
        .into_iter()
        .filter(|r| shown(&r.0))
        .map(|(name, sql_type, not_null, default, _)| CatalogColumn {
            name,
            sql_type,
            nullable: !not_null,
            default,
            comment: None,
        })
        .collect();
    Ok((columns, primary_key))
}

/// The positions of a view's columns that show an excluded column (a
/// call reading them is denied; the catalogue does not list them either).
/// The view is prepared, never run, to learn where each column comes from;
/// its name comes from the file's own catalogue and is quoted as an
/// identifier (SQL has no parameter for a table name).
fn view_columns_from_excluded(db: &Connection, exclude: &Excluded, view: &str) -> Result<Vec<usize>, Error> {
    if exclude.is_empty() {
        return Ok(Vec::new());
    }
    let quoted = format!("\"{}\"", view.replace('"', "\"\""));
    let statement = db.prepare(&format!("SELECT * FROM main.{quoted}")).map_err(failed)?;
    let hidden = statement
        .columns_with_metadata()
        .enumerate()
        .filter(|(_, c)| {
            c.table_name().zip(c.origin_name()).is_some_and(|(table, column)| exclude.column(table, column))
        })
        .map(|(i, _)| i)
        .collect();
    Ok(hidden)
}

fn foreign_keys(db: &Connection, table: &str) -> Result<Vec<ForeignKey>, Error> {
    let mut statement = db
        .prepare("SELECT id, \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(?1, 'main') ORDER BY id, seq")
        .map_err(failed)?;
    let rows: Vec<(i64, String, String, Option<String>)> = statement
        .query_map(params![table], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .map_err(failed)?
        .collect::<Result<_, _>>()
        .map_err(failed)?;
    let mut keys: Vec<(i64, ForeignKey)> = Vec::new();
    for (id, references, from, to) in rows {
        if keys.last().is_none_or(|(last, _)| *last != id) {
            let key = ForeignKey { columns: Vec::new(), references, referenced_columns: Vec::new() };
            keys.push((id, key));
        }
        if let Some((_, key)) = keys.last_mut() {
            key.columns.push(from);
            // A key naming no column refers to the primary key.
            key.referenced_columns.extend(to);
        }
    }
    Ok(keys.into_iter().map(|(_, key)| key).collect())
}

fn indexes(db: &Connection, table: &str) -> Result<Vec<Index>, Error> {
    let mut list = db
        .prepare("SELECT name, \"unique\" FROM pragma_index_list(?1, 'main') ORDER BY name")
        .map_err(failed)?;
    let named: Vec<(String, bool)> = list
        .query_map(params![table], |r| Ok((r.get(0)?, r.get(1)?)))
        .map_err(failed)?
        .collect::<Result<_, _>>()
        .map_err(failed)?;
    let mut info =
        db.prepare("SELECT name FROM pragma_index_info(?1, 'main') ORDER BY seqno").map_err(failed)?;
    let mut indexes = Vec::new();
    for (name, unique) in named {
        let columns: Vec<Option<String>> = info
            .query_map(params![name], |r| r.get(0))
            .map_err(failed)?
            .collect::<Result<_, _>>()
            .map_err(failed)?;
        let columns = columns.into_iter().map(|c| c.unwrap_or_else(|| "(expression)".into())).collect();
        indexes.push(Index { name, columns, unique });
    }
    Ok(indexes)
}

/// The row count `ANALYZE` recorded: the first number of any `sqlite_stat1` row.
fn estimated_rows(db: &Connection, table: &str) -> Result<Option<i64>, Error> {
    let mut statement = db.prepare("SELECT stat FROM sqlite_stat1 WHERE tbl = ?1 LIMIT 1").map_err(failed)?;
    let stat: Option<String> = statement
        .query_map(params![table], |r| r.get(0))
        .map_err(failed)?
        .next()
        .transpose()
        .map_err(failed)?;
    Ok(stat.and_then(|s| s.split_whitespace().next().and_then(|n| n.parse().ok())))
}
