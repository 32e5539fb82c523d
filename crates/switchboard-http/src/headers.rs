//! The 2026-07-28 mirrored request headers: `MCP-Protocol-Version`,
//! `Mcp-Method`, `Mcp-Name` and `Mcp-Param-{name}` must agree with the body
//! (`-32020` HeaderMismatch, HTTP 400).
//!
//! Spec: `docs/specification/2026-07-28/basic/transports/streamable-http.mdx`
//! §Request Metadata Headers, §Custom Headers from Tool Parameters (SEP-2243).
//! Values are trimmed; `=?base64?…?=` values are decoded first (invalid
//! Base64 inside valid markers is a mismatch; wrong-case markers are taken
//! literally); integers compare numerically.

use axum::http::HeaderMap;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

/// Why the headers disagree with the body.
pub(crate) type Mismatch = String;

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Result<Option<&'a str>, Mismatch> {
    match headers.get(name) {
        None => Ok(None),
        Some(v) => v
            .to_str()
            .map(|s| Some(s.trim()))
            .map_err(|_| format!("header {name} has characters that are not visible ASCII")),
    }
}

/// Decodes a `=?base64?…?=` value; other values are returned as they are.
pub(crate) fn decode(value: &str) -> Result<String, Mismatch> {
    match value.strip_prefix("=?base64?").and_then(|v| v.strip_suffix("?=")) {
        Some(encoded) => STANDARD
            .decode(encoded)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .ok_or_else(|| format!("invalid Base64 in header value {value:?}")),
        None => Ok(value.to_owned()),
    }
}

fn required(headers: &HeaderMap, name: &str, expected: &str) -> Result<(), Mismatch> {
    match header(headers, name)? {
        None => Err(format!("missing required header {name} (expected {expected:?})")),
        Some(v) if decode(v)? == expected => Ok(()),
        Some(v) => Err(format!("header {name}: {v:?} does not match the body's {expected:?}")),
    }
}

/// Checks the standard headers against the body: the version, the method,
/// and `Mcp-Name` against what the request names (`target`: `params.name`
/// of `tools/call` and `prompts/get`, `params.uri` of `resources/read`,
/// `params.taskId` of the tasks methods).
pub(crate) fn check_standard(
    headers: &HeaderMap,
    method: &str,
    target: Option<&str>,
    version: &str,
) -> Result<(), Mismatch> {
    required(headers, "mcp-protocol-version", version)?;
    required(headers, "mcp-method", method)?;
    if let Some(name) = target {
        required(headers, "mcp-name", name)?;
    }
    Ok(())
}

/// Checks `Mcp-Param-{Name}` headers for the `x-mcp-header` properties of a
/// tool's input schema.
pub(crate) fn check_params(
    headers: &HeaderMap,
    input_schema: &Value,
    arguments: &Value,
) -> Result<(), Mismatch> {
    let Some(properties) = input_schema.get("properties").and_then(Value::as_object) else { return Ok(()) };
    for (property, schema) in properties {
        let Some(name) = schema.get("x-mcp-header").and_then(Value::as_str) else { continue };
        let header_name = format!("mcp-param-{}", name.to_ascii_lowercase());
        let value = arguments.get(property).filter(|v| !v.is_null());
        let got = header(headers, &header_name)?;
        match (value, got) {
            (None, None) => {}
            (None, Some(_)) => {
                return Err(format!("header Mcp-Param-{name} is set but argument {property:?} is absent"));
            }
            (Some(_), None) => {
                return Err(format!("missing header Mcp-Param-{name} for argument {property:?}"));
            }
            (Some(v), Some(h)) => {
                let h = decode(h)?;
                let equal = match v {
                    Value::String(s) => *s == h,
                    Value::Bool(b) => h == if *b { "true" } else { "false" },
                    Value::Number(n) => h.parse::<f64>().ok().zip(n.as_f64()).is_some_and(|(a, b)| a == b),
                    _ => false,
                };
                if !equal {
                    return Err(format!(
                        "header Mcp-Param-{name}: {h:?} does not match argument {property:?}"
                    ));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;
    use serde_json::json;

    #[test]
    fn decodes_base64_values_and_takes_bad_markers_literally() {
        assert_eq!(decode("=?base64?aMOpbGxv?=").unwrap(), "héllo");
        assert_eq!(decode("=?BASE64?aGk=?=").unwrap(), "=?BASE64?aGk=?=");
        assert_eq!(decode("=?base64?aGk=").unwrap(), "=?base64?aGk=");
        assert!(decode("=?base64?!!!?=").is_err());
    }

    #[test]
    fn params_compare_by_type() {
        let schema = json!({"properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "n": {"type": "integer", "x-mcp-header": "N"},
            "flag": {"type": "boolean", "x-mcp-header": "Flag"}
        }});
        let mut h = HeaderMap::new();
        h.insert("mcp-param-region", HeaderValue::from_static(" eu "));
        h.insert("mcp-param-n", HeaderValue::from_static("42.0"));
        h.insert("mcp-param-flag", HeaderValue::from_static("true"));
        assert!(check_params(&h, &schema, &json!({"region": "eu", "n": 42, "flag": true})).is_ok());
        assert!(check_params(&h, &schema, &json!({"region": "us", "n": 42, "flag": true})).is_err());
        assert!(check_params(&h, &schema, &json!({"n": 42, "flag": true})).is_err(), "header without value");
        h.remove("mcp-param-flag");
        assert!(check_params(&h, &schema, &json!({"region": "eu", "n": 42, "flag": true})).is_err());
        assert!(check_params(&h, &schema, &json!({"region": "eu", "n": 42, "flag": null})).is_ok());
    }

    #[test]
    fn method_headers_are_case_sensitive() {
        let mut h = HeaderMap::new();
        h.insert("mcp-protocol-version", HeaderValue::from_static("2026-07-28"));
        h.insert("mcp-method", HeaderValue::from_static("TOOLS/CALL"));
        h.insert("mcp-name", HeaderValue::from_static("t"));
        assert!(check_standard(&h, "tools/call", Some("t"), "2026-07-28").is_err());
        h.insert("mcp-method", HeaderValue::from_static("tools/call"));
        assert!(check_standard(&h, "tools/call", Some("t"), "2026-07-28").is_ok());
        h.remove("mcp-name");
        assert!(check_standard(&h, "tools/call", Some("t"), "2026-07-28").is_err());
    }
}
