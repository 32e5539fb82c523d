//! Unknown keys, wrong types, missing keys: every one in the file, in
//! plain words.
//!
//! Why not serde's errors: serde stops at the first and speaks Rust
//! ("expected u64", "invalid type: sequence"). The document is validated
//! against the JSON Schema derived from the config types instead, which
//! reports every violation with its JSON pointer; each is turned into a
//! sentence that names the key, says what kind of value it takes with an
//! example (the schema's example or default), and what was found.

use std::ops::Range;
use std::sync::OnceLock;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::Value;

use crate::document::{Document, escape};

/// A shape problem: the JSON pointer of the value at fault (for a missing
/// key, of its table), the byte range to show, the message.
pub(crate) type Found = (String, Range<usize>, String);

/// The derived schema and its validator, built once.
fn compiled() -> &'static (Value, jsonschema::Validator) {
    static COMPILED: OnceLock<(Value, jsonschema::Validator)> = OnceLock::new();
    COMPILED.get_or_init(|| {
        let schema = crate::schema::json_schema();
        let validator = jsonschema::validator_for(&schema).expect("the derived schema compiles");
        (schema, validator)
    })
}

/// Every shape problem of `doc`, whose text is `text`.
///
/// Two documents are known to have none without compiling the schema: an
/// empty one (no key; every key of the configuration is optional) and the
/// embedded [`crate::DEFAULT`] that a folder without `switchboard.toml` is
/// served with. Tests hold both against the schema
/// (`an_empty_document_is_valid_without_compiling`,
/// `the_embedded_default_is_valid_without_compiling`). Not compiling it
/// saves two thirds of a folder server's start-up instructions (measured:
/// 10 of 16 million).
pub(crate) fn problems(doc: &Document, text: &str) -> Vec<Found> {
    if text == crate::DEFAULT || doc.value.as_object().is_some_and(serde_json::Map::is_empty) {
        return Vec::new();
    }
    let (schema, validator) = compiled();
    let mut out = Vec::new();
    for error in validator.iter_errors(&doc.value) {
        let pointer = error.instance_path().to_string();
        let at = Located { doc, schema, pointer: &pointer };
        let mut out = Pushed { pointer: &pointer, out: &mut out };
        match error.kind() {
            ValidationErrorKind::AdditionalProperties { unexpected } => {
                for key in unexpected {
                    let (span, message) = at.unknown_key(key);
                    out.out.push((format!("{pointer}/{}", escape(key)), span, message));
                }
            }
            ValidationErrorKind::Required { property } => {
                out.push(at.missing(property.as_str().unwrap_or("?")))
            }
            ValidationErrorKind::Type { kind } => out.push(at.wrong_type(kind)),
            ValidationErrorKind::Minimum { limit } => {
                out.push(at.value_problem(&format!("must be {limit} or more")));
            }
            ValidationErrorKind::Maximum { limit } => {
                out.push(at.value_problem(&format!("must be at most {limit}")));
            }
            ValidationErrorKind::Enum { options } => out.push(at.one_of(options)),
            ValidationErrorKind::OneOfNotValid { .. } | ValidationErrorKind::AnyOf { .. }
                if at.choices().is_some() =>
            {
                out.push(at.one_of(&at.choices().unwrap_or_default()));
            }
            ValidationErrorKind::Pattern { .. } => {
                out.push(at.value_problem(&format!("must be {}", at.expected())))
            }
            _ => out.push(at.value_problem(&format!("is not valid here ({error})"))),
        }
    }
    out
}

/// Collects problems under one pointer.
struct Pushed<'a> {
    pointer: &'a str,
    out: &'a mut Vec<Found>,
}

impl Pushed<'_> {
    fn push(&mut self, (span, message): (Range<usize>, String)) {
        self.out.push((self.pointer.to_owned(), span, message));
    }
}

/// One violation's place: the document, the schema and the pointer.
struct Located<'a> {
    doc: &'a Document,
    schema: &'a Value,
    pointer: &'a str,
}

impl Located<'_> {
    /// The value's range (the document start when it has no place).
    fn span(&self) -> Range<usize> {
        self.doc.place(self.pointer).map_or(0..0, |p| p.value.clone())
    }

    /// What was written there, in words.
    fn found(&self) -> String {
        self.doc.place(self.pointer).map_or_else(|| "nothing".to_owned(), |p| p.found.clone())
    }

    /// `key` is not a key of the table at the pointer.
    fn unknown_key(&self, key: &str) -> (Range<usize>, String) {
        let child = format!("{}/{}", self.pointer, escape(key));
        let span = self.doc.place(&child).and_then(|p| p.key.clone()).unwrap_or_else(|| self.span());
        let allowed: Vec<String> = subschema(self.schema, self.pointer)
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object)
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        let table = table_name(self.pointer);
        let hint = match closest(key, &allowed) {
            Some(near) => format!("did you mean `{near}`? "),
            None => String::new(),
        };
        let keys = allowed.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
        (span, format!("unknown key `{key}` in {table}; {hint}the keys there are {keys}"))
    }

    /// The table at the pointer lacks `key`.
    fn missing(&self, key: &str) -> (Range<usize>, String) {
        let child = format!("{}/{}", self.pointer, escape(key));
        let example = subschema(self.schema, &child).map(example).unwrap_or_default();
        let table = table_name(self.pointer);
        (self.span(), format!("{table} needs `{key}`, like `{key} = {example}`"))
    }

    /// The value has the wrong type.
    fn wrong_type(&self, _kind: &TypeKind) -> (Range<usize>, String) {
        self.value_problem(&format!("must be {}", self.expected()))
    }

    /// `<name> <what>, like <example>; found <found>`.
    fn value_problem(&self, what: &str) -> (Range<usize>, String) {
        let name = value_name(self.pointer);
        let like = subschema(self.schema, self.pointer).map(example).map(|e| format!(", like `{e}`"));
        (self.span(), format!("{name} {what}{}; found {}", like.unwrap_or_default(), self.found()))
    }

    /// The value must be one of `options`.
    fn one_of(&self, options: &Value) -> (Range<usize>, String) {
        let name = value_name(self.pointer);
        (self.span(), format!("{name} must be one of {}; found {}", list(options), self.found()))
    }

    /// The constants a `oneOf`/`anyOf` of constants allows (an enum).
    fn choices(&self) -> Option<Value> {
        let schema = subschema(self.schema, self.pointer)?;
        let branches = schema.get("oneOf").or_else(|| schema.get("anyOf"))?.as_array()?;
        branches.iter().map(|b| b.get("const").cloned()).collect::<Option<Vec<_>>>().map(Value::Array)
    }

    /// What the schema at the pointer takes, in words.
    fn expected(&self) -> String {
        let Some(schema) = subschema(self.schema, self.pointer) else {
            return "something else".to_owned();
        };
        let bytes = is_bytes(self.pointer, schema);
        kind_in_words(schema, bytes)
    }
}

/// The words for a schema's type: "a whole number of bytes", "text".
fn kind_in_words(schema: &Value, bytes: bool) -> String {
    match schema.get("type").and_then(Value::as_str) {
        Some("integer") if bytes => "a whole number of bytes".to_owned(),
        Some("integer") => "a whole number".to_owned(),
        Some("number") => "a number".to_owned(),
        Some("boolean") => "true or false".to_owned(),
        Some("string") if schema.get("pattern").is_some() => "a duration".to_owned(),
        Some("string") => "text in quotes".to_owned(),
        Some("array") => match schema.get("items") {
            Some(items) => format!("a list of {}", plural(&kind_in_words(items, false))),
            None => "a list".to_owned(),
        },
        Some("object") => "a table".to_owned(),
        _ => "a different kind of value".to_owned(),
    }
}

fn plural(kind: &str) -> String {
    match kind {
        "text in quotes" => "texts in quotes".to_owned(),
        "a whole number" => "whole numbers".to_owned(),
        "true or false" => "true or false values".to_owned(),
        "a table" => "tables".to_owned(),
        other => other.to_owned(),
    }
}

/// Sizes in bytes get "of bytes": by their name or description.
fn is_bytes(pointer: &str, schema: &Value) -> bool {
    let key = pointer.rsplit('/').next().unwrap_or_default();
    let described = schema.get("description").and_then(Value::as_str).is_some_and(|d| d.contains("byte"));
    key.contains("size") || key.contains("bytes") || described
}

/// An example value for the schema, in TOML: its example, else its
/// default, else one of its type.
fn example(schema: &Value) -> String {
    let given = schema.get("examples").and_then(|e| e.get(0)).or_else(|| schema.get("default"));
    match given.filter(|v| !is_empty(v)) {
        Some(value) => toml_text(value),
        None => generic_example(schema).to_owned(),
    }
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        Value::String(s) => s.is_empty(),
        Value::Null => true,
        _ => false,
    }
}

fn generic_example(schema: &Value) -> &'static str {
    match schema.get("type").and_then(Value::as_str) {
        Some("integer") => "10",
        Some("number") => "1.5",
        Some("boolean") => "true",
        Some("string") => "\"text\"",
        Some("array") => match schema.pointer("/items/type").and_then(Value::as_str) {
            Some("string") => "[\"first\", \"second\"]",
            Some("object") => "[{ … }]",
            _ => "[…]",
        },
        Some("object") => "{ key = \"value\" }",
        _ => "…",
    }
}

/// A JSON value written as TOML (inline).
fn toml_text(value: &Value) -> String {
    match value {
        Value::String(_) | Value::Number(_) | Value::Bool(_) => value.to_string(),
        Value::Array(items) => format!("[{}]", items.iter().map(toml_text).collect::<Vec<_>>().join(", ")),
        Value::Object(map) => {
            let pairs: Vec<String> = map.iter().map(|(k, v)| format!("{k} = {}", toml_text(v))).collect();
            format!("{{ {} }}", pairs.join(", "))
        }
        Value::Null => String::new(),
    }
}

fn list(options: &Value) -> String {
    let items: Vec<String> =
        options.as_array().into_iter().flatten().map(|o| format!("`{}`", toml_text(o))).collect();
    items.join(", ")
}

/// The pointer's segments, unescaped.
fn segments(pointer: &str) -> Vec<String> {
    pointer.split('/').skip(1).map(|s| s.replace("~1", "/").replace("~0", "~")).collect()
}

/// The name of the value at `pointer` for a sentence: "`max_file_size`",
/// "item 2 of `exclude`", "the file".
pub(crate) fn value_name(pointer: &str) -> String {
    let segments = segments(pointer);
    match segments.as_slice() {
        [] => "the file".to_owned(),
        [.., parent, last] if last.parse::<usize>().is_ok() => {
            let n = last.parse::<usize>().unwrap_or_default() + 1;
            format!("item {n} of `{parent}`")
        }
        [.., last] => format!("`{last}`"),
    }
}

/// The TOML name of the table at `pointer`: `[files]`, `[[tools.command]]`,
/// "the top level".
pub(crate) fn table_name(pointer: &str) -> String {
    let segments = segments(pointer);
    let keys: Vec<&str> =
        segments.iter().map(String::as_str).filter(|s| s.parse::<usize>().is_err()).collect();
    if keys.is_empty() {
        return "the top level".to_owned();
    }
    let in_array = segments.last().is_some_and(|s| s.parse::<usize>().is_ok());
    if in_array { format!("[[{}]]", keys.join(".")) } else { format!("[{}]", keys.join(".")) }
}

/// The schema describing the value at `pointer` (following `$ref`s).
fn subschema<'a>(root: &'a Value, pointer: &str) -> Option<&'a Value> {
    let mut schema = resolve(root, root)?;
    for segment in segments(pointer) {
        let next = if segment.parse::<usize>().is_ok() && schema.get("items").is_some() {
            schema.get("items")
        } else {
            schema
                .get("properties")
                .and_then(|p| p.get(&segment))
                .or_else(|| schema.get("additionalProperties"))
        };
        schema = resolve(root, next?)?;
    }
    Some(schema)
}

/// `schema`, or the target of its local `$ref`.
fn resolve<'a>(root: &'a Value, schema: &'a Value) -> Option<&'a Value> {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => root.pointer(reference.strip_prefix('#')?),
        None => Some(schema),
    }
}

/// The allowed key closest to `key`, if close enough to be a typo.
fn closest<'a>(key: &str, allowed: &'a [String]) -> Option<&'a str> {
    let limit = (key.chars().count() / 3).max(2);
    allowed
        .iter()
        .map(|k| (edit_distance(key, k), k))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k.as_str())
}

/// Levenshtein distance, by characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_as_toml() {
        assert_eq!(table_name(""), "the top level");
        assert_eq!(table_name("/files"), "[files]");
        assert_eq!(table_name("/tools/command/2"), "[[tools.command]]");
        assert_eq!(value_name("/files/exclude/1"), "item 2 of `exclude`");
        assert_eq!(value_name("/limits/max_in_flight"), "`max_in_flight`");
    }

    #[test]
    fn a_typo_finds_the_key_it_meant() {
        let keys = ["max_file_size".to_owned(), "hidden".to_owned(), "watch".to_owned()];
        assert_eq!(closest("max_filesize", &keys), Some("max_file_size"));
        assert_eq!(closest("wach", &keys), Some("watch"));
        assert_eq!(closest("completely_else", &keys), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn an_empty_document_is_valid_without_compiling() {
        let (_, validator) = compiled();
        assert!(
            validator.is_valid(&serde_json::json!({})),
            "the shortcut in `problems` would hide a problem"
        );
        let text = "# only a comment\n";
        let doc = Document::parse(text).expect("parses");
        assert!(problems(&doc, text).is_empty());
    }

    #[test]
    fn the_embedded_default_is_valid_without_compiling() {
        let (_, validator) = compiled();
        let doc = Document::parse(crate::DEFAULT).expect("the default parses");
        assert!(validator.is_valid(&doc.value), "the shortcut in `problems` would hide a problem");
        assert!(problems(&doc, crate::DEFAULT).is_empty());
    }

    #[test]
    fn examples_come_from_the_schema_or_the_type() {
        assert_eq!(example(&serde_json::json!({"type": "integer", "default": 1048576})), "1048576");
        assert_eq!(
            example(&serde_json::json!({"type": "array", "items": {"type": "string"}, "default": []})),
            "[\"first\", \"second\"]"
        );
        assert_eq!(example(&serde_json::json!({"type": "string", "examples": ["30s"]})), "\"30s\"");
    }
}
