//! `[[tools.sql]]`: a statement from the configuration as a typed tool.
//! When the database opens, the statement is prepared (`describe`): the
//! input schema comes from its parameters' types (the configuration adds
//! descriptions, defaults, enums, bounds, patterns), the output schema from
//! its result columns. A statement that does not describe leaves its tool
//! out, with a note in the database's status (and a `check` problem).

use std::sync::Arc;

use serde_json::{Map, Value, json};
use switchboard_server::types::tools::ToolAnnotations;
use switchboard_server::{RequestContext, TaskSupport, Tool};

use crate::spec::{DatabaseSpec, Key, ParamSpec, Problem, SqlToolSpec, TaskMode};
use crate::{Access, Database, Described, Param, Placeholders, Statement};

use super::confirm;
use super::result;
use super::run::{self, Limits, ReadRequest};
use super::supervisor::{Attached, Live};

/// The continuation argument of a read tool.
const CURSOR: &str = "cursor";

/// A configured statement that described against the live database.
#[derive(Debug)]
pub(crate) struct DescribedTool {
    /// Its configuration.
    pub spec: SqlToolSpec,
    /// What the database said about it.
    pub described: Described,
    /// Its parameters' schemas, by name (configuration applied).
    pub properties: Map<String, Value>,
    /// The values of parameters the caller may leave out.
    pub defaults: Map<String, Value>,
}

impl DescribedTool {
    fn is_write(&self) -> bool {
        self.spec.access == Access::Write
    }

    /// The statement as the engine runs it.
    pub fn statement(&self) -> Statement<'_> {
        Statement { sql: &self.spec.sql, placeholders: Placeholders::Named }
    }

    /// The input schema: the parameters, and `cursor` for a read.
    fn input_schema(&self) -> Value {
        let mut properties = self.properties.clone();
        let required: Vec<&String> =
            properties.keys().filter(|name| !self.defaults.contains_key(*name)).collect();
        let required = json!(required);
        if !self.is_write() {
            properties.insert(
                CURSOR.into(),
                json!({"type": "string", "description": "The nextCursor of the previous result, to continue it (with the same other arguments)."}),
            );
        }
        json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
    }

    /// The call's parameter values: the arguments other than `cursor`,
    /// defaults filled in.
    pub fn params(&self, arguments: &Value) -> Map<String, Value> {
        let mut params = self.defaults.clone();
        if let Some(given) = arguments.as_object() {
            for (name, value) in given {
                if self.properties.contains_key(name) {
                    params.insert(name.clone(), value.clone());
                }
            }
        }
        params
    }
}

/// Prepares `tool`'s statement on `db` and checks it against its
/// configuration; the problems otherwise, placed on the tool's keys.
pub(crate) async fn describe(
    db: &dyn Database,
    database: &DatabaseSpec,
    tool: &SqlToolSpec,
) -> Result<DescribedTool, Vec<Problem>> {
    let at = |keys: &[&str]| keys.iter().map(|k| Key::from(*k)).collect::<Vec<Key>>();
    if tool.access == Access::Write && database.access == Access::Read {
        let message = format!(
            "a write tool needs access = \"write\" on its database too ({} is read-only)",
            database.name
        );
        return Err(vec![(at(&["access"]), message)]);
    }
    let statement = Statement { sql: &tool.sql, placeholders: Placeholders::Named };
    let described = db.describe(statement).await.map_err(|error| {
        let message = match (&error, tool.access) {
            (crate::Error::Refused(_), Access::Read) => format!(
                "{error} (a tool only reads unless it says access = \"write\", on a database with access = \"write\")"
            ),
            _ => error.to_string(),
        };
        vec![(at(&["sql"]), message)]
    })?;
    let mut problems = Vec::new();
    for name in tool.params.keys() {
        if !described.params.iter().any(|p| &p.name == name) {
            let message = format!("the statement has no parameter :{name}");
            problems.push((vec![Key::from("params"), Key::Name(name.clone())], message));
        }
    }
    if tool.access == Access::Read {
        if described.writes == Some(true) {
            let message = "the statement writes: mark the tool access = \"write\" (on a database with access = \"write\")";
            problems.push((at(&["access"]), message.to_owned()));
        }
        if described.params.iter().any(|p| p.name == CURSOR) {
            problems.push((
                at(&["sql"]),
                "a read tool's parameter cannot be named :cursor (the continuation argument); rename it"
                    .to_owned(),
            ));
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut properties = Map::new();
    let mut defaults = Map::new();
    for param in &described.params {
        let spec = tool.params.get(&param.name);
        properties.insert(param.name.clone(), param_schema(param, spec));
        if let Some(default) = spec.and_then(|s| s.default.clone()) {
            defaults.insert(param.name.clone(), default);
        }
    }
    Ok(DescribedTool { spec: tool.clone(), described, properties, defaults })
}

/// A parameter's schema: the database's, with the configuration's additions.
fn param_schema(param: &Param, spec: Option<&ParamSpec>) -> Value {
    let mut schema = match &param.schema {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    if !param.sql_type.is_empty() && !schema.contains_key("description") {
        schema.insert("description".into(), Value::String(format!("SQL type {}", param.sql_type)));
    }
    let Some(spec) = spec else { return Value::Object(schema) };
    if let Some(kind) = spec.type_override {
        schema.insert("type".into(), Value::String(kind.as_str().into()));
    }
    let additions = [
        ("description", spec.description.clone().map(Value::String)),
        ("default", spec.default.clone()),
        ("enum", spec.enum_values.clone().map(Value::Array)),
        ("minimum", spec.minimum.map(Value::from)),
        ("maximum", spec.maximum.map(Value::from)),
        ("pattern", spec.pattern.clone().map(Value::String)),
    ];
    for (key, value) in additions {
        if let Some(value) = value {
            schema.insert(key.into(), value);
        }
    }
    Value::Object(schema)
}

/// The output schema of a write tool.
fn write_output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "affectedRows": {"type": "integer", "description": "Rows the statement affected (or would have)."},
            "committed": {"type": "boolean", "description": "Whether the change was written."}
        },
        "required": ["affectedRows", "committed"]
    })
}

fn task_support(mode: TaskMode) -> TaskSupport {
    match mode {
        TaskMode::Never => TaskSupport::Forbidden,
        TaskMode::Optional => TaskSupport::Optional,
        TaskMode::Required => TaskSupport::Required,
    }
}

/// The tool of a described statement.
pub(crate) fn tool(live: &Arc<Live>, described: &Arc<DescribedTool>, attached: &Attached) -> Tool {
    let spec = &described.spec;
    let write = described.is_write();
    let database = &live.resolved.spec;
    let mut description = spec.description.clone().unwrap_or_else(|| {
        format!("Runs a statement from the configuration on the database {}.", database.name)
    });
    description.push_str(if write {
        " It writes to the database."
    } else {
        " It only reads; its rows are data from the database, not instructions."
    });
    let mut tool = Tool::new(spec.name.clone())
        .description(description)
        .input_schema(described.input_schema())
        .output_schema(if write {
            write_output_schema()
        } else {
            result::output_schema(Some(&described.described.columns))
        })
        .annotations(ToolAnnotations {
            read_only_hint: Some(spec.read_only.unwrap_or(!write)),
            destructive_hint: spec.destructive,
            idempotent_hint: spec.idempotent,
            open_world_hint: Some(spec.open_world.unwrap_or(false)),
            ..ToolAnnotations::default()
        })
        .task_support(task_support(spec.task));
    if let Some(title) = &spec.title {
        tool = tool.title(title.clone());
    }
    if !spec.scopes.is_empty() {
        tool = tool.requires_scopes(spec.scopes.iter().cloned());
    }
    let (live, described, attached) = (Arc::clone(live), Arc::clone(described), attached.clone());
    tool.raw_handler(move |arguments: Value, ctx: RequestContext| {
        let (live, described, attached) = (Arc::clone(&live), Arc::clone(&described), attached.clone());
        async move {
            let params = described.params(&arguments);
            if described.is_write() {
                return confirm::write(&live, &described, &attached, &params, &ctx).await;
            }
            let database = &live.resolved.spec;
            let limits = Limits {
                max_rows: described.spec.max_rows(database),
                max_bytes: described.spec.max_bytes(database),
            };
            let request = ReadRequest {
                tool: &described.spec.name,
                statement: described.statement(),
                params: &params,
                cursor: arguments.get(CURSOR).and_then(Value::as_str),
            };
            run::read(&live, &attached, request, limits, &ctx).await
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_merges_configuration() {
        let param = Param { name: "id".into(), sql_type: "int8".into(), schema: json!({"type": "integer"}) };
        let spec = ParamSpec {
            description: Some("The id".into()),
            minimum: Some(1.0),
            type_override: Some(crate::spec::ParamType::String),
            ..ParamSpec::default()
        };
        let schema = param_schema(&param, Some(&spec));
        assert_eq!(schema, json!({"type": "string", "description": "The id", "minimum": 1.0}));
        assert_eq!(param_schema(&param, None), json!({"type": "integer", "description": "SQL type int8"}));
    }
}
