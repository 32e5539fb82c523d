//! A `[[tools.sql]]` statement prepared against the open database
//! (`describe`): its input schema from its parameters' types with the
//! configuration's additions, and the checks that keep a statement that
//! does not fit its configuration out, placed on the tool's keys.

use serde_json::{Map, Value, json};

use crate::spec::{DatabaseSpec, Key, ParamSpec, Problem, SqlToolSpec};
use crate::{Access, Database, Described, Param, Placeholders, Statement};

/// The continuation argument of a read tool.
pub(super) const CURSOR: &str = "cursor";

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
    pub fn is_write(&self) -> bool {
        self.spec.access == Access::Write
    }

    /// The statement as the engine runs it.
    pub fn statement(&self) -> Statement<'_> {
        Statement { sql: &self.spec.sql, placeholders: Placeholders::Named }
    }

    /// The input schema: the parameters, and `cursor` for a read.
    pub fn input_schema(&self) -> Value {
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
