//! Reading the document: fetching or reading it, JSON or YAML, the version,
//! 3.0's Schema Object rewritten to 3.1's, and `oas3`'s typed model.
//!
//! The document is kept twice: as `oas3`'s typed [`oas3::Spec`] (which
//! checks its structure and gives operations, parameters and responses
//! their types) and as the JSON it was written as, from which the schemas
//! are taken by JSON pointer. Why both: a tool's schemas must keep every
//! JSON Schema keyword the document uses, and `oas3`'s typed schema keeps
//! only those it models.

use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::Value;
use switchboard_tools::{HttpCaller, HttpLimits, LargeOutput, OutgoingRequest};

use crate::error::OpenApiError;
use crate::spec::Source;

/// The largest document fetched from a URL.
const MAX_DOCUMENT: usize = 16 * 1024 * 1024;

/// How many `$ref`s in a row may lead to one object.
const MAX_REF_HOPS: usize = 32;

/// How deep the 3.0 → 3.1 rewrite walks.
const MAX_DEPTH: usize = 256;

/// Which OpenAPI version the document declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Version {
    V30,
    V31,
}

/// A read document.
#[derive(Debug)]
pub(crate) struct Document {
    /// As written (3.0 schemas rewritten to 3.1).
    pub raw: Value,
    /// The typed model.
    pub spec: oas3::Spec,
    /// The declared version.
    pub version: Version,
    /// Where it came from.
    pub source: Source,
}

impl Document {
    /// Reads the document at `source` (a URL is fetched within `timeout`).
    pub fn load(source: Source, timeout: Duration) -> Result<Self, OpenApiError> {
        let text = match &source {
            Source::File(path) => std::fs::read_to_string(path)
                .map_err(|e| OpenApiError::Read { path: path.clone(), reason: e.to_string() })?,
            Source::Url(url) => fetch(url, timeout)?,
        };
        Self::parse(&text, source)
    }

    /// Parses `text`, read from `source`.
    pub fn parse(text: &str, source: Source) -> Result<Self, OpenApiError> {
        let mut raw = syntax(text, &source)?;
        let invalid = |reason: String| OpenApiError::Document { source_name: source.name(), reason };
        // `openapi: 3.1` in YAML is a number.
        if let Some(number @ Value::Number(_)) = raw.get("openapi") {
            let text = number.to_string();
            raw["openapi"] = Value::String(text);
        }
        let version = match raw.get("openapi").and_then(Value::as_str) {
            Some(v) if v.starts_with("3.0.") || v == "3.0" => Version::V30,
            Some(v) if v.starts_with("3.1.") || v == "3.1" => Version::V31,
            Some(v) => {
                return Err(invalid(format!(
                    "version {v:?} is not supported; give an OpenAPI 3.0 or 3.1 document"
                )));
            }
            None if raw.get("swagger").is_some() => {
                return Err(invalid(
                    "it is a Swagger 2.0 document; convert it to OpenAPI 3 (e.g. with swagger2openapi)"
                        .to_owned(),
                ));
            }
            None => {
                return Err(invalid(
                    "it has no `openapi` version field; is it an OpenAPI document?".to_owned(),
                ));
            }
        };
        if version == Version::V30 {
            upgrade_schemas(&mut raw, 0);
        }
        let spec: oas3::Spec = serde_path_to_error::deserialize(&raw).map_err(|e| {
            let at = e.path().to_string();
            let at = if at == "." { String::new() } else { format!(" at {at}") };
            invalid(format!("it is not a valid OpenAPI document{at}: {}", e.inner()))
        })?;
        Ok(Self { raw, spec, version, source })
    }

    /// The value at `pointer`, following `$ref`s, read as `T`, with the
    /// pointer where it was found.
    pub fn resolve<T: DeserializeOwned>(&self, pointer: &str) -> Result<(T, String), OpenApiError> {
        let (value, at) = self.follow(pointer)?;
        let typed =
            serde_json::from_value(value.clone()).map_err(|e| self.invalid(format!("at {at}: {e}")))?;
        Ok((typed, at))
    }

    /// The value at `pointer` with `$ref`s followed, and its pointer.
    pub fn follow(&self, pointer: &str) -> Result<(&Value, String), OpenApiError> {
        let mut at = pointer.to_owned();
        for _ in 0..MAX_REF_HOPS {
            let value = self.raw.pointer(&at).ok_or_else(|| self.invalid(format!("nothing at {at}")))?;
            match value.get("$ref").and_then(Value::as_str) {
                Some(reference) => at = self.local(reference)?,
                None => return Ok((value, at)),
            }
        }
        Err(self.invalid(format!("more than {MAX_REF_HOPS} $refs in a row from {pointer}")))
    }

    /// The JSON pointer of a local reference (`#/components/…`).
    pub fn local(&self, reference: &str) -> Result<String, OpenApiError> {
        let Some(fragment) = reference.strip_prefix('#') else {
            return Err(self.invalid(format!(
                "$ref {reference:?} points outside the document; only local references (\"#/components/…\") are \
                 read: inline it, or leave the operation out with exclude_operations"
            )));
        };
        let pointer = percent_encoding::percent_decode_str(fragment).decode_utf8_lossy().into_owned();
        if self.raw.pointer(&pointer).is_none() {
            return Err(self.invalid(format!("$ref {reference:?} points to nothing in the document")));
        }
        Ok(pointer)
    }

    /// An error about this document.
    pub fn invalid(&self, reason: String) -> OpenApiError {
        OpenApiError::Document { source_name: self.source.name(), reason }
    }
}

/// `key` escaped for a JSON pointer.
pub(crate) fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// The document as JSON: JSON when it starts with `{`, else YAML.
fn syntax(text: &str, source: &Source) -> Result<Value, OpenApiError> {
    let file = match source {
        Source::File(path) => Some(path.clone()),
        Source::Url(_) => None,
    };
    let error = |format, line, column, message: String| OpenApiError::Syntax {
        source_name: source.name(),
        file: file.clone(),
        format,
        line,
        column,
        message,
    };
    if text.trim_start().starts_with('{') {
        serde_json::from_str(text).map_err(|e| {
            let message = e.to_string();
            let message = message.split(" at line ").next().unwrap_or(&message).to_owned();
            error("JSON", e.line(), e.column(), message)
        })
    } else {
        serde_norway::from_str(text).map_err(|e| {
            let (line, column) = e.location().map_or((1, 1), |l| (l.line(), l.column()));
            let message = e.to_string();
            let message = message.split(" at line ").next().unwrap_or(&message).to_owned();
            error("YAML", line, column, message)
        })
    }
}

/// Fetches a document; runs on a thread of its own with its own runtime,
/// so it works from any caller (a runtime's thread included).
fn fetch(url: &reqwest::Url, timeout: Duration) -> Result<String, OpenApiError> {
    let failed = |reason: String| OpenApiError::Fetch { url: url.to_string(), reason };
    let limits = HttpLimits { timeout, max_response: MAX_DOCUMENT, on_large_output: LargeOutput::Error };
    let caller = HttpCaller::fetching("the OpenAPI document", limits)?;
    let request = OutgoingRequest {
        method: reqwest::Method::GET,
        url: url.clone(),
        headers: reqwest::header::HeaderMap::new(),
        json_body: None,
    };
    let answer = std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| failed(format!("cannot start a runtime to fetch it: {e}")))?;
                runtime.block_on(caller.send(request)).map_err(|e| failed(e.to_string()))
            })
            .join()
            .map_err(|_| failed("fetching it panicked".to_owned()))?
    })?;
    if !answer.status.is_success() {
        let excerpt: String = answer.text().chars().take(200).collect();
        return Err(failed(format!("the server answered HTTP {}: {excerpt}", answer.status)));
    }
    if answer.truncated() {
        return Err(failed(format!("it is {}, more than the {MAX_DOCUMENT} bytes read", answer.total)));
    }
    Ok(answer.text())
}

/// Rewrites the 3.0 Schema Object keywords 3.1 (JSON Schema 2020-12)
/// spells differently, wherever they are: `nullable: true` becomes a
/// `"null"` type (or an `anyOf` with `{"type": "null"}` when there is no
/// single type), boolean `exclusiveMinimum`/`exclusiveMaximum` become the
/// numbers. Example and default values and extensions are left alone.
fn upgrade_schemas(value: &mut Value, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::Array(items) => items.iter_mut().for_each(|v| upgrade_schemas(v, depth + 1)),
        Value::Object(map) => {
            for (key, child) in map.iter_mut() {
                if !is_data_key(key) {
                    upgrade_schemas(child, depth + 1);
                }
            }
            for (flag, bound) in [("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")] {
                if let Some(Value::Bool(exclusive)) = map.get(flag).cloned() {
                    map.remove(flag);
                    if exclusive && let Some(limit) = map.remove(bound) {
                        map.insert(flag.to_owned(), limit);
                    }
                }
            }
            match map.remove("nullable") {
                Some(Value::Bool(true)) => {}
                Some(other) => {
                    // `nullable: false` says nothing; anything else is not ours to read.
                    if !other.is_boolean() {
                        map.insert("nullable".to_owned(), other);
                    }
                    return;
                }
                None => return,
            }
            if let Some(Value::Array(options)) = map.get_mut("enum")
                && !options.contains(&Value::Null)
            {
                options.push(Value::Null);
            }
            match map.get("type").cloned() {
                Some(Value::String(t)) => {
                    map.insert("type".to_owned(), Value::Array(vec![Value::String(t), "null".into()]));
                }
                Some(Value::Array(mut types)) => {
                    if !types.contains(&Value::from("null")) {
                        types.push("null".into());
                    }
                    map.insert("type".to_owned(), Value::Array(types));
                }
                _ => {
                    let inner = Value::Object(std::mem::take(map));
                    map.insert(
                        "anyOf".to_owned(),
                        Value::Array(vec![inner, serde_json::json!({"type": "null"})]),
                    );
                }
            }
        }
        _ => {}
    }
}

/// Keys whose values are data, not schemas or document structure.
pub(crate) fn is_data_key(key: &str) -> bool {
    matches!(key, "example" | "examples" | "default" | "enum" | "const") || key.starts_with("x-")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn source() -> Source {
        Source::File("/api/openapi.yaml".into())
    }

    #[test]
    fn three_oh_schemas_are_rewritten_to_three_one() {
        let mut v = json!({
            "a": {"type": "string", "nullable": true, "enum": ["x"], "example": {"nullable": true}},
            "b": {"type": "integer", "minimum": 1, "exclusiveMinimum": true, "maximum": 9, "exclusiveMaximum": false},
            "c": {"$ref": "#/components/schemas/C", "nullable": true},
            "d": {"type": "string", "nullable": false},
        });
        upgrade_schemas(&mut v, 0);
        assert_eq!(
            v,
            json!({
                "a": {"type": ["string", "null"], "enum": ["x", null], "example": {"nullable": true}},
                "b": {"type": "integer", "exclusiveMinimum": 1, "maximum": 9},
                "c": {"anyOf": [{"$ref": "#/components/schemas/C"}, {"type": "null"}]},
                "d": {"type": "string"},
            })
        );
    }

    #[test]
    fn versions_syntax_and_structure_are_told_apart() {
        let yaml = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n";
        assert_eq!(Document::parse(yaml, source()).unwrap().version, Version::V30);
        let json = r#"{"openapi": "3.1.0", "info": {"title": "t", "version": "1"}}"#;
        assert_eq!(Document::parse(json, source()).unwrap().version, Version::V31);

        let e = Document::parse("{\"openapi\": \n", source()).unwrap_err();
        let (file, line, _) = e.document_place().expect("a syntax error of a file is placed");
        assert_eq!((file.to_str(), line), (Some("/api/openapi.yaml"), 2));
        let e = Document::parse("swagger: '2.0'\n", source()).unwrap_err();
        assert!(e.to_string().contains("Swagger 2.0"), "{e}");
        let e = Document::parse("openapi: 3.1.0\ninfo: {title: t}\n", source()).unwrap_err();
        assert!(e.to_string().contains("at info"), "{e}");
    }

    #[test]
    fn references_are_followed_and_checked() {
        let doc = Document::parse(
            r##"{"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
                "components": {"parameters": {"Id": {"$ref": "#/components/parameters/Real"},
                                              "Real": {"name": "id", "in": "path", "required": true}},
                               "schemas": {"Loop": {"$ref": "#/components/schemas/Loop"}}}}"##,
            source(),
        )
        .unwrap();
        let (value, at) = doc.follow("/components/parameters/Id").unwrap();
        assert_eq!((value["name"].as_str(), at.as_str()), (Some("id"), "/components/parameters/Real"));
        assert!(doc.follow("/components/schemas/Loop").unwrap_err().to_string().contains("$refs in a row"));
        assert!(doc.local("other.yaml#/x").unwrap_err().to_string().contains("outside the document"));
        assert!(doc.local("#/components/nothing").unwrap_err().to_string().contains("points to nothing"));
    }
}
