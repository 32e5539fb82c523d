//! The operations of a document, as tools-to-be: named, filtered, with
//! their inputs (parameters and body) and their schemas.

use std::collections::HashSet;

use oas3::spec::{Parameter, ParameterIn, ParameterStyle, PathItem, RequestBody, Response};
use reqwest::Method;
use serde_json::{Map, Value, json};

use crate::document::{Document, escape};
use crate::error::OpenApiError;
use crate::schema::{Direction, Inliner, as_object_schema};
use crate::spec::OpenApiSpec;

/// The longest tool name MCP allows.
const MAX_NAME: usize = 128;

/// Where a parameter goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Location {
    Path,
    Query,
    Header,
    Cookie,
}

/// How a parameter's value is written (OpenAPI's `style`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    Simple,
    Label,
    Matrix,
    Form,
    SpaceDelimited,
    PipeDelimited,
    DeepObject,
}

/// One parameter of an operation, and the argument that carries it.
#[derive(Debug, Clone)]
pub(crate) struct Input {
    /// The argument's name in the input schema.
    pub property: String,
    /// The parameter's name in the API.
    pub name: String,
    pub location: Location,
    pub style: Style,
    pub explode: bool,
    /// A `content` parameter: the value is sent as JSON text.
    pub json: bool,
}

/// One operation, ready to become a tool.
#[derive(Debug, Clone)]
pub(crate) struct Operation {
    /// The tool's name.
    pub tool: String,
    pub method: Method,
    /// The path template as the document writes it (`/pets/{petId}`).
    pub path: String,
    pub summary: Option<String>,
    pub description: Option<String>,
    pub deprecated: bool,
    pub inputs: Vec<Input>,
    /// The argument that carries the JSON request body.
    pub body: Option<String>,
    pub input_schema: Value,
    pub output_schema: Option<Value>,
}

/// Include/exclude patterns, compiled.
struct Filters {
    include_tags: Vec<globset::GlobMatcher>,
    exclude_tags: Vec<globset::GlobMatcher>,
    include_operations: Vec<globset::GlobMatcher>,
    exclude_operations: Vec<globset::GlobMatcher>,
}

impl Filters {
    fn new(spec: &OpenApiSpec) -> Result<Self, OpenApiError> {
        let compile = |key: &str| -> Result<Vec<globset::GlobMatcher>, OpenApiError> {
            spec.patterns(key).iter().map(|p| crate::spec::glob(key, p)).collect()
        };
        Ok(Self {
            include_tags: compile("include_tags")?,
            exclude_tags: compile("exclude_tags")?,
            include_operations: compile("include_operations")?,
            exclude_operations: compile("exclude_operations")?,
        })
    }

    /// Whether an operation with these tags and names (its operationId
    /// and its generated name) is served.
    fn keeps(&self, tags: &[String], names: &[&str]) -> bool {
        let any = |globs: &[globset::GlobMatcher], values: &[&str]| {
            globs.iter().any(|g| values.iter().any(|v| g.is_match(v)))
        };
        let tags: Vec<&str> = tags.iter().map(String::as_str).collect();
        (self.include_tags.is_empty() || any(&self.include_tags, &tags))
            && !any(&self.exclude_tags, &tags)
            && (self.include_operations.is_empty() || any(&self.include_operations, names))
            && !any(&self.exclude_operations, names)
    }
}

/// The operations of `doc` that `spec` serves, in document order, with
/// unique tool names. Operations whose required body is not JSON are left
/// out (and logged): no argument could carry it.
pub(crate) fn operations(spec: &OpenApiSpec, doc: &Document) -> Result<Vec<Operation>, OpenApiError> {
    let filters = Filters::new(spec)?;
    let prefix = spec.prefix_checked()?;
    let mut taken: HashSet<String> = HashSet::new();
    let mut out = Vec::new();
    let paths: Vec<String> = doc.spec.paths.iter().flat_map(|p| p.keys().cloned()).collect();
    for path in paths {
        let (item, item_at) = doc.resolve::<PathItem>(&format!("/paths/{}", escape(&path)))?;
        for (method, op) in item.methods() {
            let generated = sanitize(&format!("{}_{path}", method.as_str().to_ascii_lowercase()));
            let base = op.operation_id.as_deref().map(sanitize).unwrap_or_else(|| generated.clone());
            let mut names = vec![generated.as_str(), base.as_str()];
            names.extend(op.operation_id.as_deref());
            if !filters.keeps(&op.tags, &names) {
                continue;
            }
            let op_at = format!("{item_at}/{}", method.as_str().to_ascii_lowercase());
            let tool = unique(prefix, &base, &mut taken);
            let built = Builder { doc, path: &path, op_at: &op_at, tool: &tool }
                .build(&method, op, &item, &item_at)?;
            match built {
                Some(operation) => out.push(operation),
                None => {
                    taken.remove(&tool);
                }
            }
        }
    }
    Ok(out)
}

/// A name that fits the MCP rule: letters, digits, `_`, `-`, `.`; every
/// other run of characters becomes one `_`.
pub(crate) fn sanitize(raw: &str) -> String {
    let mut out = String::new();
    for c in raw.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '-' | '.') {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let trimmed = out.trim_matches('_');
    if trimmed.is_empty() { "operation".to_owned() } else { trimmed.to_owned() }
}

/// `prefix_base`, cut to the length limit, with `_2`, `_3`, … when taken.
fn unique(prefix: Option<&str>, base: &str, taken: &mut HashSet<String>) -> String {
    let full = match prefix {
        Some(p) => format!("{p}_{base}"),
        None => base.to_owned(),
    };
    let fit = |s: &str, room: usize| s.chars().take(room).collect::<String>();
    let mut name = fit(&full, MAX_NAME);
    for n in 2..=taken.len() + 2 {
        if !taken.contains(&name) {
            break;
        }
        let suffix = format!("_{n}");
        name = format!("{}{suffix}", fit(&full, MAX_NAME - suffix.len()));
    }
    taken.insert(name.clone());
    name
}

/// Builds one operation.
struct Builder<'a> {
    doc: &'a Document,
    path: &'a str,
    op_at: &'a str,
    tool: &'a str,
}

impl Builder<'_> {
    fn build(
        &self,
        method: &Method,
        op: &oas3::spec::Operation,
        item: &PathItem,
        item_at: &str,
    ) -> Result<Option<Operation>, OpenApiError> {
        let mut inliner = Inliner::new(self.doc, Direction::Input);
        let mut properties = Map::new();
        let mut required: Vec<Value> = Vec::new();
        let mut inputs: Vec<Input> = Vec::new();
        // Path-level parameters first; an operation's own replace those
        // with the same name and place.
        let mut declared: Vec<(Parameter, String)> = Vec::new();
        for (list, at) in [(item.parameters.len(), item_at), (op.parameters.len(), self.op_at)] {
            for i in 0..list {
                let (parameter, pointer) = self.doc.resolve::<Parameter>(&format!("{at}/parameters/{i}"))?;
                declared.retain(|(p, _)| !(p.name == parameter.name && p.location == parameter.location));
                declared.push((parameter, pointer));
            }
        }
        // A path variable the document forgot to declare is a required string.
        for name in path_variables(self.path) {
            let known = declared.iter().any(|(p, _)| p.location == ParameterIn::Path && p.name == name);
            if !known {
                let implicit =
                    json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}});
                let parameter: Parameter = serde_json::from_value(implicit)
                    .map_err(|e| self.doc.invalid(format!("path variable {name:?}: {e}")))?;
                declared.push((parameter, String::new()));
            }
        }
        for (parameter, pointer) in &declared {
            let location = match parameter.location {
                ParameterIn::Path => Location::Path,
                ParameterIn::Query => Location::Query,
                ParameterIn::Header => Location::Header,
                ParameterIn::Cookie => Location::Cookie,
            };
            // OpenAPI: these three are set by the request itself.
            if location == Location::Header
                && ["accept", "content-type", "authorization"]
                    .contains(&parameter.name.to_ascii_lowercase().as_str())
            {
                continue;
            }
            let (mut schema, json) = if pointer.is_empty() {
                (json!({"type": "string"}), false)
            } else if parameter.schema.is_some() {
                (inliner.schema_at(&format!("{pointer}/schema"))?, false)
            } else if let Some(media) = parameter.content.as_ref().and_then(|c| c.keys().next()) {
                (inliner.schema_at(&format!("{pointer}/content/{}/schema", escape(media)))?, true)
            } else {
                (json!({}), false)
            };
            annotate(&mut schema, parameter.description.as_deref(), parameter.deprecated == Some(true));
            let property = free_name(&properties, &parameter.name, location);
            let style = match parameter.style {
                Some(ParameterStyle::Simple) => Style::Simple,
                Some(ParameterStyle::Label) => Style::Label,
                Some(ParameterStyle::Matrix) => Style::Matrix,
                Some(ParameterStyle::Form) => Style::Form,
                Some(ParameterStyle::SpaceDelimited) => Style::SpaceDelimited,
                Some(ParameterStyle::PipeDelimited) => Style::PipeDelimited,
                Some(ParameterStyle::DeepObject) => Style::DeepObject,
                None => match location {
                    Location::Path | Location::Header => Style::Simple,
                    Location::Query | Location::Cookie => Style::Form,
                },
            };
            let explode = parameter.explode.unwrap_or(style == Style::Form);
            if location == Location::Path || parameter.required == Some(true) {
                required.push(Value::String(property.clone()));
            }
            properties.insert(property.clone(), schema);
            inputs.push(Input { property, name: parameter.name.clone(), location, style, explode, json });
        }
        let mut body = None;
        if op.request_body.is_some() {
            let (request_body, at) =
                self.doc.resolve::<RequestBody>(&format!("{}/requestBody", self.op_at))?;
            match request_body.content.keys().find(|m| is_json(m)) {
                Some(media) => {
                    let mut schema = inliner.schema_at(&format!("{at}/content/{}/schema", escape(media)))?;
                    annotate(&mut schema, request_body.description.as_deref(), false);
                    let property = ["body", "request_body"]
                        .into_iter()
                        .find(|p| !properties.contains_key(*p))
                        .map_or_else(|| free_name(&properties, "body", Location::Query), str::to_owned);
                    if request_body.required == Some(true) {
                        required.push(Value::String(property.clone()));
                    }
                    properties.insert(property.clone(), schema);
                    body = Some(property);
                }
                None if request_body.required == Some(true) => {
                    let types: Vec<&String> = request_body.content.keys().collect();
                    tracing::warn!(
                        tool = self.tool,
                        ?types,
                        "left out: the operation needs a request body that is not JSON"
                    );
                    return Ok(None);
                }
                None => {}
            }
        }
        let mut input = json!({"type": "object", "properties": properties, "additionalProperties": false});
        if !required.is_empty() {
            input["required"] = Value::Array(required);
        }
        let input_schema = inliner.finish(input);
        Ok(Some(Operation {
            tool: self.tool.to_owned(),
            method: method.clone(),
            path: self.path.to_owned(),
            summary: op.summary.clone().filter(|s| !s.trim().is_empty()),
            description: op.description.clone().filter(|s| !s.trim().is_empty()),
            deprecated: op.deprecated == Some(true),
            inputs,
            body,
            input_schema,
            output_schema: self.output_schema(op)?,
        }))
    }

    /// The output schema: the JSON schema every success response shares,
    /// when it is an object; none when a success response has another
    /// schema, no JSON, or no schema (a result could not always match).
    fn output_schema(&self, op: &oas3::spec::Operation) -> Result<Option<Value>, OpenApiError> {
        let codes: Vec<&String> =
            op.responses.iter().flat_map(|r| r.keys()).filter(|code| code.starts_with('2')).collect();
        let mut shared: Option<Value> = None;
        for code in codes {
            let (response, at) =
                self.doc.resolve::<Response>(&format!("{}/responses/{}", self.op_at, escape(code)))?;
            let Some(media) = response.content.keys().find(|m| is_json(m)) else { return Ok(None) };
            let pointer = format!("{at}/content/{}/schema", escape(media));
            if self.doc.raw.pointer(&pointer).is_none() {
                return Ok(None);
            }
            let mut inliner = Inliner::new(self.doc, Direction::Output);
            let schema = inliner.schema_at(&pointer)?;
            let Some(schema) = as_object_schema(inliner.finish(schema)) else { return Ok(None) };
            match &shared {
                Some(earlier) if *earlier != schema => return Ok(None),
                _ => shared = Some(schema),
            }
        }
        Ok(shared)
    }
}

/// Whether a media type carries JSON (`application/json`, `…+json`).
fn is_json(media: &str) -> bool {
    let essence = media.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    essence == "application/json" || essence.ends_with("+json")
}

/// The `{name}`s of a path template.
pub(crate) fn path_variables(path: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = path;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else { break };
        names.push(after[..close].to_owned());
        rest = &after[close + 1..];
    }
    names
}

/// Adds a parameter's description (and deprecation) to its schema.
fn annotate(schema: &mut Value, description: Option<&str>, deprecated: bool) {
    let Value::Object(map) = schema else { return };
    if let Some(description) = description.filter(|d| !d.trim().is_empty()) {
        map.entry("description").or_insert_with(|| description.into());
    }
    if deprecated {
        map.insert("deprecated".to_owned(), true.into());
    }
}

/// `name`, or `name_in` (`id_query`) when another argument has it.
fn free_name(properties: &Map<String, Value>, name: &str, location: Location) -> String {
    if !properties.contains_key(name) {
        return name.to_owned();
    }
    let place = match location {
        Location::Path => "path",
        Location::Query => "query",
        Location::Header => "header",
        Location::Cookie => "cookie",
    };
    let base = format!("{name}_{place}");
    let mut candidate = base.clone();
    for n in 2..=properties.len() + 2 {
        if !properties.contains_key(&candidate) {
            break;
        }
        candidate = format!("{base}_{n}");
    }
    candidate
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_tool_name_rule_and_stay_unique() {
        assert_eq!(sanitize("get_/pets/{petId}/photos"), "get_pets_petId_photos");
        assert_eq!(sanitize("list pets!"), "list_pets");
        assert_eq!(sanitize("$$$"), "operation");
        let mut taken = HashSet::new();
        assert_eq!(unique(Some("api"), "list", &mut taken), "api_list");
        assert_eq!(unique(Some("api"), "list", &mut taken), "api_list_2");
        let long = "x".repeat(200);
        let name = unique(None, &long, &mut taken);
        assert_eq!(name.len(), MAX_NAME);
        let again = unique(None, &long, &mut taken);
        assert!(again.len() == MAX_NAME && again.ends_with("_2"), "{again}");
    }

    #[test]
    fn path_variables_and_media_types_are_read() {
        assert_eq!(path_variables("/a/{x}/b/{y-z}"), ["x", "y-z"]);
        assert!(path_variables("/plain").is_empty());
        assert!(is_json("application/json; charset=utf-8"));
        assert!(is_json("application/problem+json"));
        assert!(!is_json("text/plain"));
    }
}
