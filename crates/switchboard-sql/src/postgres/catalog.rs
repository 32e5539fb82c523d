//! The catalogue of the exposed schemas, from `pg_catalog` with the schema
//! list bound as a parameter (never spliced), exclusions left out: an
//! excluded table entirely; an excluded column, and every key or index
//! that names it.

use std::collections::HashMap;

use tokio_postgres::Client;

use crate::{Catalog, CatalogColumn, Error, Exclusions, ForeignKey, Index, Table, TableKind};

const RELATIONS: &str = "\
SELECT c.oid, n.nspname::text, c.relname::text, c.relkind::text, obj_description(c.oid, 'pg_class'), \
       CASE WHEN c.reltuples < 0 THEN NULL ELSE c.reltuples::int8 END \
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
WHERE n.nspname = ANY($1::text[]) AND c.relkind IN ('r', 'p', 'v', 'm', 'f') \
ORDER BY n.nspname, c.relname";

const COLUMNS: &str = "\
SELECT a.attrelid, a.attname::text, format_type(a.atttypid, a.atttypmod), NOT a.attnotnull, \
       pg_get_expr(d.adbin, d.adrelid), col_description(a.attrelid, a.attnum) \
FROM pg_attribute a \
JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace \
LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum \
WHERE n.nspname = ANY($1::text[]) AND c.relkind IN ('r', 'p', 'v', 'm', 'f') \
  AND a.attnum > 0 AND NOT a.attisdropped \
ORDER BY a.attrelid, a.attnum";

/// Primary and foreign keys, columns by name in key order.
const KEYS: &str = "\
SELECT k.conrelid, k.contype::text, \
       ARRAY(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY u(n, i) \
             JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.n ORDER BY u.i), \
       fn.nspname::text, f.relname::text, \
       ARRAY(SELECT a.attname::text FROM unnest(k.confkey) WITH ORDINALITY u(n, i) \
             JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.n ORDER BY u.i) \
FROM pg_constraint k \
JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace \
LEFT JOIN pg_class f ON f.oid = k.confrelid LEFT JOIN pg_namespace fn ON fn.oid = f.relnamespace \
WHERE n.nspname = ANY($1::text[]) AND k.contype IN ('p', 'f') \
ORDER BY k.conrelid, k.conname";

/// Indexes, each key column or expression as text.
const INDEXES: &str = "\
SELECT i.indrelid, ic.relname::text, i.indisunique, \
       ARRAY(SELECT pg_get_indexdef(i.indexrelid, g, true) FROM generate_series(1, i.indnkeyatts) g) \
FROM pg_index i \
JOIN pg_class ic ON ic.oid = i.indexrelid \
JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace \
WHERE n.nspname = ANY($1::text[]) \
ORDER BY i.indrelid, ic.relname";

/// One fingerprint of everything [`load`] reads (names, kinds, types,
/// nullability, defaults, keys, indexes, comments, but not row estimates).
const FINGERPRINT: &str = "\
SELECT md5(coalesce(string_agg(x, E'\\n' ORDER BY x), '')) FROM ( \
  SELECT concat_ws('|', n.nspname, c.relname, c.relkind, obj_description(c.oid, 'pg_class'), \
         (SELECT string_agg(concat_ws(':', a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, \
                  pg_get_expr(d.adbin, d.adrelid), col_description(a.attrelid, a.attnum)), ',' ORDER BY a.attnum) \
          FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum \
          WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), \
         (SELECT string_agg(pg_get_constraintdef(k.oid), ',' ORDER BY k.conname) FROM pg_constraint k WHERE k.conrelid = c.oid), \
         (SELECT string_agg(pg_get_indexdef(i.indexrelid), ',' ORDER BY i.indexrelid) FROM pg_index i WHERE i.indrelid = c.oid)) AS x \
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
  WHERE n.nspname = ANY($1::text[]) AND c.relkind IN ('r', 'p', 'v', 'm', 'f')) s";

fn failed(e: tokio_postgres::Error) -> Error {
    Error::Execute(format!("cannot read the catalogue: {e}"))
}

/// The catalogue of `schemas`, without what `exclude` names.
pub(crate) async fn load(
    client: &Client,
    schemas: &[String],
    exclude: &Exclusions,
) -> Result<Catalog, Error> {
    let mut tables: Vec<(u32, Table)> = Vec::new();
    for row in client.query(RELATIONS, &[&schemas]).await.map_err(failed)? {
        let (schema, name): (String, String) = (row.get(1), row.get(2));
        if exclude.excludes_table(Some(&schema), &name) {
            continue;
        }
        let kind = match row.get::<_, String>(3).as_str() {
            "v" => TableKind::View,
            "m" => TableKind::MaterializedView,
            _ => TableKind::Table,
        };
        let table = Table {
            schema: Some(schema),
            name,
            kind,
            columns: Vec::new(),
            primary_key: Vec::new(),
            foreign_keys: Vec::new(),
            indexes: Vec::new(),
            comment: row.get(4),
            estimated_rows: row.get(5),
        };
        tables.push((row.get(0), table));
    }
    let at: HashMap<u32, usize> = tables.iter().enumerate().map(|(i, (oid, _))| (*oid, i)).collect();
    let hidden =
        |table: &Table, column: &str| exclude.excludes_column(table.schema.as_deref(), &table.name, column);

    for row in client.query(COLUMNS, &[&schemas]).await.map_err(failed)? {
        let Some(&i) = at.get(&row.get::<_, u32>(0)) else { continue };
        let table = &mut tables[i].1;
        let name: String = row.get(1);
        if hidden(table, &name) {
            continue;
        }
        table.columns.push(CatalogColumn {
            name,
            sql_type: row.get(2),
            nullable: row.get(3),
            default: row.get(4),
            comment: row.get(5),
        });
    }
    for row in client.query(KEYS, &[&schemas]).await.map_err(failed)? {
        let Some(&i) = at.get(&row.get::<_, u32>(0)) else { continue };
        let table = &mut tables[i].1;
        let columns: Vec<String> = row.get(2);
        if columns.iter().any(|c| hidden(table, c)) {
            continue;
        }
        match row.get::<_, String>(1).as_str() {
            "p" => table.primary_key = columns,
            _ => {
                let (schema, name): (Option<String>, Option<String>) = (row.get(3), row.get(4));
                let (Some(schema), Some(name)) = (schema, name) else { continue };
                let referenced_columns: Vec<String> = row.get(5);
                if exclude.excludes_table(Some(&schema), &name)
                    || referenced_columns.iter().any(|c| exclude.excludes_column(Some(&schema), &name, c))
                {
                    continue;
                }
                table.foreign_keys.push(ForeignKey {
                    columns,
                    references: format!("{schema}.{name}"),
                    referenced_columns,
                });
            }
        }
    }
    for row in client.query(INDEXES, &[&schemas]).await.map_err(failed)? {
        let Some(&i) = at.get(&row.get::<_, u32>(0)) else { continue };
        let table = &mut tables[i].1;
        let columns: Vec<String> = row.get(3);
        // An expression may mention an excluded column anywhere: leave out
        // every index whose text names one.
        if mentions_hidden_column(table, &columns, exclude) {
            continue;
        }
        table.indexes.push(Index { name: row.get(1), columns, unique: row.get(2) });
    }
    Ok(Catalog { tables: tables.into_iter().map(|(_, table)| table).collect() })
}

/// Whether an index's expressions mention a column of `table` that is
/// excluded (its name appearing as a word in the expression).
fn mentions_hidden_column(table: &Table, expressions: &[String], exclude: &Exclusions) -> bool {
    expressions.iter().any(|expression| {
        expression
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|word| !word.is_empty())
            .any(|word| exclude.excludes_column(table.schema.as_deref(), &table.name, word))
    })
}

/// The fingerprint of the exposed schemas' catalogue.
pub(crate) async fn fingerprint(client: &Client, schemas: &[String]) -> Result<String, Error> {
    let row = client.query_one(FINGERPRINT, &[&schemas]).await.map_err(failed)?;
    Ok(row.get(0))
}
