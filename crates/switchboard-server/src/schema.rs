//! Compiled JSON Schema validation for tool arguments and results.
//!
//! Schemas are compiled once, when a tool is registered, with the
//! `jsonschema` crate: 2020-12 unless `$schema` names another dialect
//! (`docs/specification/2025-11-25/basic/index.mdx` §JSON Schema Usage).
//! The crate is built without remote or file retrieval, so a `$ref` to the
//! network fails at registration instead of being fetched (2026-07-28
//! §`$ref` Resolution).

use serde_json::Value;

/// A compiled JSON Schema validator.
pub(crate) struct CompiledSchema {
    validator: jsonschema::Validator,
}

impl CompiledSchema {
    /// Compiles `schema` in the dialect its `$schema` names, 2020-12 when
    /// absent (`docs/specification/2025-11-25/basic/index.mdx` §JSON Schema
    /// Usage). Unknown dialects and external `$ref`s fail here, at
    /// registration: the crate is built without remote or file retrieval.
    pub(crate) fn compile(schema: &Value) -> std::result::Result<Self, String> {
        jsonschema::options()
            .should_validate_formats(true)
            .build(schema)
            .map(|validator| Self { validator })
            .map_err(|e| e.to_string())
    }

    /// Validates `instance`; on failure returns up to five readable
    /// messages, each with the JSON pointer of the offending value.
    pub(crate) fn check(&self, instance: &Value) -> std::result::Result<(), Vec<String>> {
        if self.validator.is_valid(instance) {
            return Ok(());
        }
        let errors = self
            .validator
            .iter_errors(instance)
            .take(5)
            .map(|e| {
                let path = e.instance_path().to_string();
                if path.is_empty() { format!("{e}") } else { format!("at {path}: {e}") }
            })
            .collect();
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_use_2020_12_by_default_and_honour_draft_07() {
        // `dependentRequired` exists in 2020-12 and not in draft-07, which ignores it.
        let schema2020 = serde_json::json!({
            "type": "object",
            "dependentRequired": {"a": ["b"]}
        });
        let s = CompiledSchema::compile(&schema2020).unwrap();
        assert!(s.check(&serde_json::json!({"a": 1})).is_err());
        assert!(s.check(&serde_json::json!({"a": 1, "b": 2})).is_ok());
        let mut schema07 = schema2020.clone();
        schema07["$schema"] = "http://json-schema.org/draft-07/schema#".into();
        let s = CompiledSchema::compile(&schema07).unwrap();
        assert!(s.check(&serde_json::json!({"a": 1})).is_ok());
    }

    #[test]
    fn unknown_dialects_and_remote_refs_fail_at_registration() {
        assert!(
            CompiledSchema::compile(&serde_json::json!({
                "$schema": "https://example.invalid/my-dialect", "type": "object"
            }))
            .is_err()
        );
        assert!(
            CompiledSchema::compile(&serde_json::json!({
                "type": "object", "properties": {"a": {"$ref": "https://example.invalid/a.json"}}
            }))
            .is_err()
        );
    }
}
