//! What a database exposes: tables and views with their columns, keys,
//! indexes and comments, exclusions already left out. Serialized as the
//! `db://{name}/schema` and `db://{name}/table/{table}` resources.

use serde::Serialize;

/// The exposed tables and views of a database.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Catalog {
    /// Tables and views, ordered by schema then name.
    pub tables: Vec<Table>,
}

/// What a relation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TableKind {
    /// A table.
    Table,
    /// A view.
    View,
    /// A materialized view (PostgreSQL).
    MaterializedView,
}

/// One table or view.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Table {
    /// Its schema (PostgreSQL; `None` for SQLite's `main`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Its name.
    pub name: String,
    /// Table or view.
    pub kind: TableKind,
    /// Its columns in order, excluded ones left out.
    pub columns: Vec<CatalogColumn>,
    /// The primary key's columns (empty without one).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub primary_key: Vec<String>,
    /// Its foreign keys.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub foreign_keys: Vec<ForeignKey>,
    /// Its indexes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub indexes: Vec<Index>,
    /// Its comment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    /// The planner's estimate of its rows, when the engine keeps one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_rows: Option<i64>,
}

impl Table {
    /// `schema.name`, or `name` without a schema: how tools and resource
    /// URIs name the table.
    pub fn qualified_name(&self) -> String {
        match &self.schema {
            Some(schema) => format!("{schema}.{}", self.name),
            None => self.name.clone(),
        }
    }
}

/// One column of a table or view.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CatalogColumn {
    /// Its name.
    pub name: String,
    /// Its type as the database names it.
    #[serde(rename = "type")]
    pub sql_type: String,
    /// Whether it may be NULL.
    pub nullable: bool,
    /// Its default expression.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Its comment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
}

/// A foreign key.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ForeignKey {
    /// The referencing columns.
    pub columns: Vec<String>,
    /// The referenced table, qualified as [`Table::qualified_name`].
    pub references: String,
    /// The referenced columns.
    pub referenced_columns: Vec<String>,
}

/// An index.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Index {
    /// Its name.
    pub name: String,
    /// Its columns (or expressions, as text).
    pub columns: Vec<String>,
    /// Whether it is unique.
    pub unique: bool,
}
