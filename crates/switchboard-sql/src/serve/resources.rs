//! The schema as resources: `db://{name}/schema` (the whole catalogue as
//! JSON) and the template `db://{name}/table/{table}` (one table), whose
//! `table` completes from the catalogue. Both read the catalogue current
//! at read time, so a schema change is visible before the next reload.

use std::sync::Arc;

use switchboard_server::types::ResourceContents;
use switchboard_server::{
    CompletionRequest, HandlerError, ReadRequest, RequestContext, Resource, ResourceTemplate,
};

use super::live::{Live, Slot};

const JSON: &str = "application/json";

/// The URI of a database's schema.
pub(crate) fn schema_uri(database: &str) -> String {
    format!("db://{database}/schema")
}

/// The URI of one table (its name as [`crate::Table::qualified_name`]).
pub(crate) fn table_uri(database: &str, table: &str) -> String {
    let template = switchboard_server::uri_template::UriTemplate::parse(&table_template_text(database))
        .expect("the table template parses");
    let mut variables = switchboard_server::uri_template::Variables::new();
    variables.insert("table".to_owned(), table.to_owned().into());
    template.expand(&variables)
}

fn table_template_text(database: &str) -> String {
    format!("db://{database}/table/{{table}}")
}

fn unavailable(database: &str) -> HandlerError {
    HandlerError::internal(format!("the database {database} is not open now; try again shortly"))
}

/// `db://{name}/schema`.
pub(crate) fn schema(live: &Live, slot: &Arc<Slot>) -> Resource {
    let name = live.name().to_owned();
    let uri = schema_uri(&name);
    let engine = serde_json::to_value(live.db.engine()).unwrap_or_default();
    let slot = Arc::clone(slot);
    Resource::new(uri.clone(), format!("{name} schema"))
        .title(format!("Schema of the database {name}"))
        .description(format!(
            "The tables and views of the {engine} database {name}: columns with types, keys, foreign keys, indexes, comments and estimated rows."
        ))
        .mime_type(JSON)
        .handler(move |_: ReadRequest, _: RequestContext| {
            let slot = Arc::clone(&slot);
            let (name, uri) = (name.clone(), uri.clone());
            async move {
                let live = slot.live().ok_or_else(|| unavailable(&name))?;
                let text = serde_json::to_string_pretty(&live.catalog)
                    .map_err(|e| HandlerError::internal(e.to_string()))?;
                Ok(ResourceContents::text(uri, Some(JSON.to_owned()), text))
            }
        })
}

/// `db://{name}/table/{table}`, completing `table` from the catalogue.
pub(crate) fn table_template(live: &Live, slot: &Arc<Slot>) -> ResourceTemplate {
    let name = live.name().to_owned();
    let reader = Arc::clone(slot);
    let completer = Arc::clone(slot);
    let database = name.clone();
    ResourceTemplate::new(&table_template_text(&name), format!("{name} table"))
        .expect("the table template parses")
        .title(format!("One table of the database {name}"))
        .description(format!("One table or view of the database {name}, as in db://{name}/schema."))
        .mime_type(JSON)
        .handler(move |request: ReadRequest, _: RequestContext| {
            let slot = Arc::clone(&reader);
            let name = name.clone();
            async move {
                let live = slot.live().ok_or_else(|| unavailable(&name))?;
                let wanted = request.var("table").unwrap_or_default();
                let table = live.catalog.tables.iter().find(|t| t.qualified_name() == wanted);
                let table = table.ok_or(HandlerError::NotFound)?;
                let text =
                    serde_json::to_string_pretty(table).map_err(|e| HandlerError::internal(e.to_string()))?;
                Ok(ResourceContents::text(request.uri, Some(JSON.to_owned()), text))
            }
        })
        .complete(
            "table",
            switchboard_server::completer_fn(move |request: CompletionRequest, _: RequestContext| {
                let slot = Arc::clone(&completer);
                let database = database.clone();
                async move {
                    let live = slot.live().ok_or_else(|| unavailable(&database))?;
                    let typed = request.value.to_lowercase();
                    Ok(live
                        .catalog
                        .tables
                        .iter()
                        .map(crate::Table::qualified_name)
                        .filter(|table| table.to_lowercase().starts_with(&typed))
                        .collect())
                }
            }),
        )
}
