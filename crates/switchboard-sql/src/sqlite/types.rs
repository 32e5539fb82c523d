//! SQLite's weak types in JSON: a declared type gives a column its affinity
//! (the rules of sqlite.org/datatype3.html §3.1) and so its schema; each
//! value is written by its storage class, which is what the file holds.

use rusqlite::types::{Value as SqlValue, ValueRef};
use serde_json::{Value, json};

use crate::{Error, value};

/// A column's affinity, from its declared type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Affinity {
    Integer,
    Text,
    Blob,
    Real,
    Numeric,
}

/// The affinity SQLite gives a declared type (empty: no declared type,
/// which SQLite treats as BLOB, i.e. "store as given").
pub(super) fn affinity(declared: &str) -> Affinity {
    let upper = declared.to_ascii_uppercase();
    if upper.contains("INT") {
        Affinity::Integer
    } else if ["CHAR", "CLOB", "TEXT"].iter().any(|t| upper.contains(t)) {
        Affinity::Text
    } else if upper.is_empty() || upper.contains("BLOB") {
        Affinity::Blob
    } else if ["REAL", "FLOA", "DOUB"].iter().any(|t| upper.contains(t)) {
        Affinity::Real
    } else {
        Affinity::Numeric
    }
}

/// Any scalar a column without a telling declared type can hold.
pub(super) fn any_scalar_schema() -> Value {
    json!({"type": ["string", "number", "integer", "boolean", "null"]})
}

/// The schema of a result column's values. A table that is not STRICT
/// stores any value in any column (the text `'abc'` in an INTEGER column
/// stays text), so the declared type cannot promise a JSON type: the
/// schema admits every form a value can take, and names the declared type
/// as a hint. An output schema that promised more would turn such a row
/// into an error for the caller.
pub(super) fn column_schema(declared: Option<&str>) -> Value {
    let mut schema = any_scalar_schema();
    if let Some(declared) = declared.filter(|d| !d.trim().is_empty()) {
        let hint = match affinity(declared) {
            Affinity::Integer => "integers as numbers, beyond 2^53 as strings of digits",
            Affinity::Real => "reals as numbers, NaN and infinities as strings",
            Affinity::Text => "text as strings",
            Affinity::Blob => "bytes as base64 strings",
            Affinity::Numeric => "numbers, or text when not numeric",
        };
        schema["description"] = Value::String(format!(
            "declared {declared} ({hint}; SQLite may hold values of another type in it)"
        ));
    }
    schema
}

/// One value, by its storage class, in the crate's JSON form.
pub(super) fn to_json(value: ValueRef<'_>) -> Value {
    match value {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => value::integer(i),
        ValueRef::Real(f) => value::float(f),
        ValueRef::Text(t) => Value::String(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => value::bytes(b),
    }
}

/// A lower bound of [`to_json`]'s serialized size, from the raw value
/// (text at least its bytes and quotes, a blob its base64).
pub(super) fn json_size_at_least(value: ValueRef<'_>) -> u64 {
    match value {
        ValueRef::Null | ValueRef::Integer(_) | ValueRef::Real(_) => 1,
        ValueRef::Text(t) => t.len() as u64 + 2,
        ValueRef::Blob(b) => (b.len() as u64).div_ceil(3) * 4 + 2,
    }
}

/// A JSON argument as the value bound to parameter `name`: numbers as
/// integers when they are whole and fit 64 bits, else reals; booleans as
/// 0/1 (SQLite has no boolean); strings as text; null as NULL.
pub(super) fn to_sql(name: &str, value: &Value) -> Result<SqlValue, Error> {
    let refuse = |message: &str| Error::Param { name: name.to_owned(), message: message.to_owned() };
    match value {
        Value::Null => Ok(SqlValue::Null),
        Value::Bool(b) => Ok(SqlValue::Integer(i64::from(*b))),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Ok(SqlValue::Integer(i)),
            (None, _) if n.is_u64() => Err(refuse("the integer does not fit 64 bits")),
            (None, Some(f)) => Ok(SqlValue::Real(f)),
            (None, None) => Err(refuse("the number cannot be represented")),
        },
        Value::String(s) => Ok(SqlValue::Text(s.clone())),
        Value::Array(_) | Value::Object(_) => Err(refuse("expected a string, number, boolean or null")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn affinity_rules_of_sqlite() {
        assert_eq!(affinity("BIGINT"), Affinity::Integer);
        assert_eq!(affinity("varchar(20)"), Affinity::Text);
        assert_eq!(affinity(""), Affinity::Blob);
        assert_eq!(affinity("DOUBLE PRECISION"), Affinity::Real);
        assert_eq!(affinity("DECIMAL(10,2)"), Affinity::Numeric);
        // "POINT" contains "INT": SQLite's own rule, kept.
        assert_eq!(affinity("POINT"), Affinity::Integer);
        assert_eq!(column_schema(None), any_scalar_schema());
        let declared = column_schema(Some("INTEGER"));
        assert_eq!(declared["type"], any_scalar_schema()["type"], "a non-STRICT column may hold any type");
        assert!(declared["description"].as_str().unwrap().contains("declared INTEGER"));
    }

    #[test]
    fn sizes_are_exact_and_the_lower_bound_holds() {
        let values = vec![json!(1), json!("é\"x"), Value::Null, value::bytes(b"hello")];
        assert_eq!(value::size(values.as_slice()), serde_json::to_vec(&values).unwrap().len() as u64);
        for (raw, json) in [
            (ValueRef::Text("é\"x".as_bytes()), json!("é\"x")),
            (ValueRef::Blob(b"hello"), value::bytes(b"hello")),
            (ValueRef::Integer(-12345), json!(-12345)),
        ] {
            assert!(json_size_at_least(raw) <= serde_json::to_vec(&json).unwrap().len() as u64);
        }
    }

    #[test]
    fn json_arguments_bind_by_their_type() {
        assert_eq!(to_sql("a", &json!(true)).unwrap(), SqlValue::Integer(1));
        assert_eq!(to_sql("a", &json!(1.5)).unwrap(), SqlValue::Real(1.5));
        assert_eq!(to_sql("a", &json!("x'; DROP")).unwrap(), SqlValue::Text("x'; DROP".into()));
        assert!(to_sql("a", &json!(u64::MAX)).is_err());
        assert!(to_sql("a", &json!([1])).is_err());
    }
}
