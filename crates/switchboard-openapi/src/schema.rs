//! Schemas of the document made self-contained: every local `$ref`
//! replaced by what it points to, so a tool's schema needs nothing of the
//! document (and clients that do not follow references read it whole).
//!
//! A recursive type cannot be inlined: a reference met again inside its
//! own expansion becomes `{"$ref": "#/$defs/Name"}`, with `Name` defined
//! once under the root's `$defs`. The same happens past a budget of
//! expansions, so a document whose references fan out cannot make a
//! schema grow without bound.
//!
//! Input schemas leave out `readOnly` properties and output schemas
//! `writeOnly` ones (the OpenAPI rule: `required` then applies only in the
//! other direction). OpenAPI-only keywords that are not JSON Schema
//! (`discriminator`, `xml`, `externalDocs`) are dropped.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::document::{Document, is_data_key};
use crate::error::OpenApiError;

/// References expanded in place per schema before the rest go to `$defs`.
const EXPANSION_BUDGET: usize = 500;

/// How deep a schema may nest.
const MAX_DEPTH: usize = 128;

/// Which side of the API a schema describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    /// Sent to the API: `readOnly` properties are left out.
    Input,
    /// Received from it: `writeOnly` properties are left out.
    Output,
}

/// Builds the schemas of one tool's input or output; the definitions of
/// recursive types are shared and go under the root's `$defs`.
#[derive(Debug)]
pub(crate) struct Inliner<'a> {
    doc: &'a Document,
    direction: Direction,
    /// Definitions by name.
    defs: Map<String, Value>,
    /// The `$defs` name given to each pointer.
    names: HashMap<String, String>,
    expansions: usize,
    /// The pointers being expanded.
    stack: Vec<String>,
}

impl<'a> Inliner<'a> {
    pub fn new(doc: &'a Document, direction: Direction) -> Self {
        Self { doc, direction, defs: Map::new(), names: HashMap::new(), expansions: 0, stack: Vec::new() }
    }

    /// The schema at `pointer` (absent: any value), inlined.
    pub fn schema_at(&mut self, pointer: &str) -> Result<Value, OpenApiError> {
        match self.doc.raw.pointer(pointer) {
            Some(schema) => self.schema(schema, 0),
            None => Ok(Value::Object(Map::new())),
        }
    }

    /// `root` with the definitions collected so far under `$defs`.
    pub fn finish(self, mut root: Value) -> Value {
        if !self.defs.is_empty()
            && let Value::Object(map) = &mut root
        {
            map.insert("$defs".to_owned(), Value::Object(self.defs));
        }
        root
    }

    fn schema(&mut self, schema: &Value, depth: usize) -> Result<Value, OpenApiError> {
        if depth > MAX_DEPTH {
            return Err(self.doc.invalid(format!("a schema nests more than {MAX_DEPTH} levels deep")));
        }
        let Value::Object(map) = schema else {
            // `true`, `false`: boolean schemas stay as they are.
            return Ok(schema.clone());
        };
        if let Some(Value::String(reference)) = map.get("$ref") {
            let target = self.reference(reference, depth)?;
            return self.with_siblings(target, map, depth);
        }
        let mut out = Map::new();
        for (key, value) in map {
            match key.as_str() {
                "discriminator" | "xml" | "externalDocs" => {}
                k if is_data_key(k) => {
                    out.insert(key.clone(), value.clone());
                }
                "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
                    out.insert(key.clone(), self.schema_map(value, depth)?);
                }
                _ => {
                    let walked = match value {
                        Value::Array(items) => Value::Array(
                            items.iter().map(|i| self.schema(i, depth + 1)).collect::<Result<_, _>>()?,
                        ),
                        Value::Object(_) => self.schema(value, depth + 1)?,
                        other => other.clone(),
                    };
                    out.insert(key.clone(), walked);
                }
            }
        }
        self.drop_one_way_properties(&mut out);
        Ok(Value::Object(out))
    }

    /// A map of schemas (`properties`), each inlined.
    fn schema_map(&mut self, value: &Value, depth: usize) -> Result<Value, OpenApiError> {
        let Value::Object(map) = value else { return Ok(value.clone()) };
        let mut out = Map::new();
        for (name, schema) in map {
            out.insert(name.clone(), self.schema(schema, depth + 1)?);
        }
        Ok(Value::Object(out))
    }

    /// Leaves out `readOnly` properties of an input, `writeOnly` ones of
    /// an output, from `properties` and `required`.
    fn drop_one_way_properties(&self, schema: &mut Map<String, Value>) {
        let flag = match self.direction {
            Direction::Input => "readOnly",
            Direction::Output => "writeOnly",
        };
        let Some(Value::Object(properties)) = schema.get_mut("properties") else { return };
        let dropped: Vec<String> = properties
            .iter()
            .filter(|(_, s)| s.get(flag) == Some(&Value::Bool(true)))
            .map(|(name, _)| name.clone())
            .collect();
        if dropped.is_empty() {
            return;
        }
        properties.retain(|name, _| !dropped.contains(name));
        if let Some(Value::Array(required)) = schema.get_mut("required") {
            required.retain(|r| r.as_str().is_none_or(|r| !dropped.iter().any(|d| d == r)));
        }
    }

    /// What a `$ref` stands for: the target inlined, or a `$defs`
    /// reference for a type met inside itself (or past the budget).
    fn reference(&mut self, reference: &str, depth: usize) -> Result<Value, OpenApiError> {
        let pointer = self.doc.local(reference)?;
        if self.stack.contains(&pointer) || self.expansions >= EXPANSION_BUDGET {
            let name = self.definition(&pointer, depth)?;
            return Ok(serde_json::json!({"$ref": format!("#/$defs/{name}")}));
        }
        self.expansions += 1;
        let target = self.doc.raw.pointer(&pointer).cloned().unwrap_or(Value::Bool(true));
        self.stack.push(pointer);
        let inlined = self.schema(&target, depth + 1);
        self.stack.pop();
        inlined
    }

    /// The `$defs` name of the schema at `pointer`, defined once.
    fn definition(&mut self, pointer: &str, depth: usize) -> Result<String, OpenApiError> {
        if let Some(name) = self.names.get(pointer) {
            return Ok(name.clone());
        }
        let base: String = pointer
            .rsplit('/')
            .next()
            .unwrap_or("schema")
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') { c } else { '_' })
            .collect();
        let base = if base.is_empty() { "schema".to_owned() } else { base };
        let mut name = base.clone();
        for n in 2..=self.names.len() + 2 {
            if !self.defs.contains_key(&name) {
                break;
            }
            name = format!("{base}_{n}");
        }
        self.names.insert(pointer.to_owned(), name.clone());
        // Taken before it is built, so a reference inside it finds the name.
        self.defs.insert(name.clone(), Value::Bool(true));
        let target = self.doc.raw.pointer(pointer).cloned().unwrap_or(Value::Bool(true));
        self.stack.push(pointer.to_owned());
        let built = self.schema(&target, depth + 1);
        self.stack.pop();
        self.defs.insert(name.clone(), built?);
        Ok(name)
    }

    /// A `$ref` with other keywords beside it (3.1 allows them): notes
    /// (`description`, `title`, …) are laid over the target; anything else
    /// applies as well, through `allOf`.
    fn with_siblings(
        &mut self,
        target: Value,
        map: &Map<String, Value>,
        depth: usize,
    ) -> Result<Value, OpenApiError> {
        let siblings: Map<String, Value> =
            map.iter().filter(|(k, _)| k.as_str() != "$ref").map(|(k, v)| (k.clone(), v.clone())).collect();
        if siblings.is_empty() {
            return Ok(target);
        }
        let notes_only = siblings.keys().all(|k| {
            matches!(
                k.as_str(),
                "description" | "title" | "summary" | "default" | "example" | "examples" | "deprecated"
            )
        });
        match target {
            Value::Object(mut object) if notes_only => {
                for (k, v) in siblings {
                    if k != "summary" {
                        object.insert(k, v);
                    }
                }
                Ok(Value::Object(object))
            }
            target => {
                let Value::Object(mut rest) = self.schema(&Value::Object(siblings), depth + 1)? else {
                    return Ok(target);
                };
                let mut all_of = vec![target];
                if let Some(Value::Array(more)) = rest.remove("allOf") {
                    all_of.extend(more);
                }
                rest.insert("allOf".to_owned(), Value::Array(all_of));
                Ok(Value::Object(rest))
            }
        }
    }
}

/// Whether a schema describes a JSON object: `type: "object"`, or an
/// `allOf` of such schemas (then `type: "object"` is added, since clients
/// look at the root's type).
pub(crate) fn as_object_schema(mut schema: Value) -> Option<Value> {
    let is_object = |s: &Value| s.get("type").and_then(Value::as_str) == Some("object");
    if is_object(&schema) {
        return Some(schema);
    }
    let all_objects = schema
        .get("allOf")
        .and_then(Value::as_array)
        .is_some_and(|parts| !parts.is_empty() && parts.iter().all(is_object));
    if all_objects
        && schema.get("type").is_none()
        && let Value::Object(map) = &mut schema
    {
        map.insert("type".to_owned(), "object".into());
        return Some(schema);
    }
    None
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::spec::Source;

    fn doc(components: Value) -> Document {
        let text = json!({"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "components": {"schemas": components}});
        Document::parse(&text.to_string(), Source::File("/x.json".into())).unwrap()
    }

    #[test]
    fn references_are_inlined_with_their_notes() {
        let d = doc(json!({
            "Pet": {"type": "object", "required": ["id", "name"],
                    "properties": {"id": {"type": "integer", "readOnly": true},
                                   "name": {"type": "string"},
                                   "owner": {"$ref": "#/components/schemas/Owner", "description": "Who owns it."},
                                   "secret": {"type": "string", "writeOnly": true}}},
            "Owner": {"type": "object", "properties": {"name": {"type": "string"}}, "xml": {"name": "o"}},
        }));
        let mut input = Inliner::new(&d, Direction::Input);
        let schema = input.schema_at("/components/schemas/Pet").unwrap();
        assert_eq!(
            input.finish(schema),
            json!({"type": "object", "required": ["name"],
                   "properties": {"name": {"type": "string"},
                                  "owner": {"type": "object", "properties": {"name": {"type": "string"}},
                                            "description": "Who owns it."},
                                  "secret": {"type": "string", "writeOnly": true}}})
        );
        let mut output = Inliner::new(&d, Direction::Output);
        let schema = output.schema_at("/components/schemas/Pet").unwrap();
        let names: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        assert_eq!(names, ["id", "name", "owner"]);
        assert_eq!(schema["required"], json!(["id", "name"]));
    }

    #[test]
    fn recursive_types_go_to_defs_once() {
        let d = doc(json!({
            "Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}}},
            "Tree": {"$ref": "#/components/schemas/Node"},
        }));
        let mut inliner = Inliner::new(&d, Direction::Output);
        let schema = inliner.schema_at("/components/schemas/Tree").unwrap();
        let schema = inliner.finish(schema);
        assert_eq!(schema["properties"]["children"]["items"], json!({"$ref": "#/$defs/Node"}));
        assert_eq!(
            schema["$defs"]["Node"]["properties"]["children"]["items"],
            json!({"$ref": "#/$defs/Node"})
        );
        let validator = jsonschema::validator_for(&schema).unwrap();
        assert!(validator.is_valid(&json!({"children": [{"children": []}]})));
        assert!(!validator.is_valid(&json!({"children": [{"children": 3}]})));
    }

    #[test]
    fn data_is_never_taken_for_a_reference_and_other_siblings_join_through_all_of() {
        let d = doc(json!({
            "Id": {"type": "integer"},
            "Thing": {"$ref": "#/components/schemas/Id", "minimum": 1,
                      "example": {"$ref": "not a reference"},
                      "properties": {"default": {"type": "string"}}},
        }));
        let mut inliner = Inliner::new(&d, Direction::Input);
        let schema = inliner.schema_at("/components/schemas/Thing").unwrap();
        assert_eq!(
            schema,
            json!({"minimum": 1, "example": {"$ref": "not a reference"},
                   "properties": {"default": {"type": "string"}}, "allOf": [{"type": "integer"}]})
        );
    }

    #[test]
    fn object_schemas_are_recognised() {
        assert!(as_object_schema(json!({"type": "object"})).is_some());
        let all = as_object_schema(json!({"allOf": [{"type": "object"}, {"type": "object"}]})).unwrap();
        assert_eq!(all["type"], "object");
        assert!(as_object_schema(json!({"type": "array"})).is_none());
        assert!(as_object_schema(json!({"type": ["object", "null"]})).is_none());
    }
}
