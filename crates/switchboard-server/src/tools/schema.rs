//! Compiled JSON Schema validation for tool arguments and results.
//!
//! Schemas are compiled with the `jsonschema` crate: 2020-12 unless
//! `$schema` names another dialect (`docs/specification/2025-11-25/basic/index.mdx`
//! §JSON Schema Usage). The crate is built without remote or file retrieval,
//! so a `$ref` to the network fails at compilation instead of being fetched
//! (2026-07-28 §`$ref` Resolution).
//!
//! A schema written by hand (or received from elsewhere: a proxied server, an
//! OpenAPI document) is compiled at registration, so a broken one is refused
//! there ([`CompiledSchema::compile`]). A schema switchboard derives itself
//! (a typed handler's arguments through schemars, or the default empty
//! object) is compiled on first use instead ([`CompiledSchema::deferred`]):
//! compiling the first schema of a dialect first builds a validator for the
//! dialect's meta-schema, about two thirds of the instructions `serve
//! --fixtures bench` ran before answering `initialize` (callgrind, 3.6M of
//! 5.5M), for schemas that are valid by construction.

use std::sync::OnceLock;

use serde_json::Value;

/// A JSON Schema validator, compiled now or on first use.
pub(crate) struct CompiledSchema {
    /// The schema of a deferred validator, compiled on first use.
    deferred: Option<Value>,
    validator: OnceLock<std::result::Result<jsonschema::Validator, String>>,
}

/// Compiles `schema` in the dialect its `$schema` names.
fn build(schema: &Value) -> std::result::Result<jsonschema::Validator, String> {
    jsonschema::options().should_validate_formats(true).build(schema).map_err(|e| e.to_string())
}

impl CompiledSchema {
    /// Compiles `schema` now, in the dialect its `$schema` names, 2020-12 when
    /// absent (`docs/specification/2025-11-25/basic/index.mdx` §JSON Schema
    /// Usage). Unknown dialects and external `$ref`s fail here, at
    /// registration: the crate is built without remote or file retrieval.
    pub(crate) fn compile(schema: &Value) -> std::result::Result<Self, String> {
        let validator = build(schema)?;
        Ok(Self { deferred: None, validator: OnceLock::from(Ok(validator)) })
    }

    /// A validator for a schema switchboard derived itself, compiled by the
    /// first [`check`](Self::check) (see the module docs).
    pub(crate) fn deferred(schema: Value) -> Self {
        Self { deferred: Some(schema), validator: OnceLock::new() }
    }

    /// The validator, compiled on first use when deferred; `Err` says why a
    /// deferred schema does not compile.
    fn validator(&self) -> std::result::Result<&jsonschema::Validator, &str> {
        let compiled = self.validator.get_or_init(|| match &self.deferred {
            Some(schema) => build(schema),
            None => Err("no schema to compile".to_owned()),
        });
        compiled.as_ref().map_err(String::as_str)
    }

    /// Validates `instance`; on failure returns up to five readable
    /// messages, each with the JSON pointer of the offending value.
    pub(crate) fn check(&self, instance: &Value) -> std::result::Result<(), Vec<String>> {
        let validator = match self.validator() {
            Ok(validator) => validator,
            Err(reason) => {
                tracing::error!(%reason, "a derived JSON Schema does not compile");
                return Err(vec![format!("the schema does not compile: {reason}")]);
            }
        };
        if validator.is_valid(instance) {
            return Ok(());
        }
        let errors = validator
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

    #[test]
    fn a_deferred_schema_validates_like_a_compiled_one_and_reports_a_broken_one() {
        let schema = serde_json::json!({"type": "object", "properties": {"n": {"type": "integer"}}});
        let deferred = CompiledSchema::deferred(schema.clone());
        assert!(deferred.validator.get().is_none(), "nothing compiled before the first check");
        assert!(deferred.check(&serde_json::json!({"n": 1})).is_ok());
        let errors = deferred.check(&serde_json::json!({"n": "x"})).unwrap_err();
        assert_eq!(
            errors,
            CompiledSchema::compile(&schema).unwrap().check(&serde_json::json!({"n": "x"})).unwrap_err()
        );
        // A schema that does not compile refuses every instance, saying why.
        let broken = CompiledSchema::deferred(serde_json::json!({"type": "object", "minProperties": "x"}));
        let errors = broken.check(&serde_json::json!({})).unwrap_err();
        assert!(errors[0].starts_with("the schema does not compile"), "{errors:?}");
    }
}
