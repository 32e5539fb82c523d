//! The file as JSON with a place for every value.
//!
//! Why: the checks that find *every* problem (the JSON Schema validator for
//! unknown keys and wrong types, the tool and folder checks for what the
//! values mean) work on JSON values and report JSON pointers
//! (`/tools/command/0/timeout`). Serde's TOML deserializer stops at the
//! first error, so the file is read once into TOML's spanned tree and
//! turned into JSON here, keeping for each pointer the byte range of its
//! key and value and a plain description of what was written, so each
//! problem gets its real line and column and can say what it found.

use std::collections::HashMap;
use std::ops::Range;

use serde_json::{Map, Number, Value};
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// Where one value is, and what it is in words.
#[derive(Debug, Clone)]
pub(crate) struct Place {
    /// The key naming it (`None`: an array element or the document).
    pub key: Option<Range<usize>>,
    /// The value.
    pub value: Range<usize>,
    /// What was written, for messages: `the text "1MB"`, `a list`.
    pub found: String,
}

/// A parsed file: the JSON value and the place of every pointer in it.
#[derive(Debug)]
pub(crate) struct Document {
    text: String,
    pub value: Value,
    places: HashMap<String, Place>,
}

impl Document {
    /// Parses `text`; on a syntax error, every error the parser recovered
    /// from, as (byte range, message).
    pub fn parse(text: &str) -> Result<Self, Vec<(Range<usize>, String)>> {
        let (table, errors) = DeTable::parse_recoverable(text);
        if !errors.is_empty() {
            return Err(errors
                .iter()
                .map(|e| (e.span().unwrap_or(0..0), syntax_message(e.message())))
                .collect());
        }
        let mut places = HashMap::new();
        places.insert(String::new(), Place { key: None, value: 0..0, found: "a table".to_owned() });
        let value = table_to_json(table.get_ref(), "", &mut places);
        Ok(Self { text: text.to_owned(), value, places })
    }

    /// The place of the value at `pointer` (a JSON pointer).
    pub fn place(&self, pointer: &str) -> Option<&Place> {
        self.places.get(pointer)
    }

    /// The text it was parsed from.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The value at `pointer`, if present.
    pub fn get(&self, pointer: &str) -> Option<&Value> {
        self.value.pointer(pointer)
    }
}

/// The parser's message as one line, saying what kind of problem it is.
fn syntax_message(message: &str) -> String {
    let one_line = message.trim_end().replace('\n', "; ");
    format!("this is not valid TOML: {one_line}")
}

/// `key` escaped for a JSON pointer (`~` → `~0`, `/` → `~1`).
pub(crate) fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn table_to_json(table: &DeTable<'_>, pointer: &str, places: &mut HashMap<String, Place>) -> Value {
    let mut map = Map::new();
    for (key, value) in table.iter() {
        let child = format!("{pointer}/{}", escape(key.get_ref()));
        let json = value_to_json(value, &child, places);
        places.insert(
            child,
            Place { key: Some(key.span()), value: value.span(), found: found(value.get_ref()) },
        );
        map.insert(key.get_ref().to_string(), json);
    }
    Value::Object(map)
}

fn value_to_json(value: &Spanned<DeValue<'_>>, pointer: &str, places: &mut HashMap<String, Place>) -> Value {
    match value.get_ref() {
        DeValue::String(s) => Value::String(s.to_string()),
        DeValue::Integer(i) => integer(i.as_str(), i.radix()),
        DeValue::Float(f) => f
            .as_str()
            .parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map_or_else(|| Value::String(f.as_str().to_owned()), Value::Number),
        DeValue::Boolean(b) => Value::Bool(*b),
        // No setting is a date: as an object, it fails every type check.
        DeValue::Datetime(d) => serde_json::json!({ "datetime": d.to_string() }),
        DeValue::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                let child = format!("{pointer}/{i}");
                out.push(value_to_json(item, &child, places));
                places.insert(child, Place { key: None, value: item.span(), found: found(item.get_ref()) });
            }
            Value::Array(out)
        }
        DeValue::Table(table) => table_to_json(table, pointer, places),
    }
}

/// A TOML integer as a JSON number (a text when it fits in no 64 bits,
/// so it fails the type check and is reported).
fn integer(digits: &str, radix: u32) -> Value {
    if let Ok(i) = i64::from_str_radix(digits, radix) {
        return Value::from(i);
    }
    u64::from_str_radix(digits, radix).map_or_else(|_| Value::String(digits.to_owned()), Value::from)
}

/// What a value is, in words, for "found …" in messages.
fn found(value: &DeValue<'_>) -> String {
    match value {
        DeValue::String(s) => {
            let shown: String = s.chars().take(40).collect();
            let more = if shown.len() < s.len() { "…" } else { "" };
            format!("the text {:?}", format!("{shown}{more}"))
        }
        DeValue::Integer(i) => format!("the number {}", i.as_str()),
        DeValue::Float(f) => format!("the number {}", f.as_str()),
        DeValue::Boolean(b) => format!("{b}"),
        DeValue::Datetime(d) => format!("the date {d}"),
        DeValue::Array(_) => "a list".to_owned(),
        DeValue::Table(_) => "a table".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_has_its_key_and_value_place() {
        let text =
            "[files]\nmax_file_size = \"1MB\"\nexclude = [\"a\", 3]\n\n[[tools.command]]\nname = \"x\"\n";
        let doc = Document::parse(text).unwrap();
        let size = doc.place("/files/max_file_size").unwrap();
        assert_eq!(&text[size.key.clone().unwrap()], "max_file_size");
        assert_eq!(&text[size.value.clone()], "\"1MB\"");
        assert_eq!(size.found, "the text \"1MB\"");
        let item = doc.place("/files/exclude/1").unwrap();
        assert_eq!(&text[item.value.clone()], "3");
        assert_eq!(item.found, "the number 3");
        let name = doc.place("/tools/command/0/name").unwrap();
        assert_eq!(&text[name.value.clone()], "\"x\"");
        assert_eq!(doc.get("/tools/command/0/name"), Some(&Value::from("x")));
    }

    #[test]
    fn integers_in_any_radix_become_numbers() {
        let doc = Document::parse("a = 0x10\nb = 1_000\nc = 1.5\n").unwrap();
        assert_eq!(doc.value, serde_json::json!({"a": 16, "b": 1000, "c": 1.5}));
    }

    #[test]
    fn syntax_errors_are_all_reported_with_their_place() {
        let errors = Document::parse("a = \nb = [1,\n").unwrap_err();
        assert!(!errors.is_empty());
        assert!(errors.iter().all(|(_, m)| m.starts_with("this is not valid TOML")), "{errors:?}");
    }
}
