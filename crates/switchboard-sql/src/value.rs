//! The JSON form of database values, the same for every engine, so a
//! result never fails to decode and never loses precision:
//!
//! | database value | JSON |
//! |---|---|
//! | NULL | `null` |
//! | booleans | `true`/`false` |
//! | integers within ±(2^53−1) | a number |
//! | 64-bit integers beyond that | a string of digits (a JSON number could not hold it exactly) |
//! | numeric/decimal | a string (`"12.50"`, `"NaN"`): exact, scale kept |
//! | floats | a number; NaN and ±Infinity as the strings `"NaN"`, `"Infinity"`, `"-Infinity"` |
//! | text | a string |
//! | bytes (bytea, BLOB) | base64 in a string (schema `contentEncoding: base64`) |
//! | dates and times | ISO 8601 / RFC 3339 strings |
//! | json/jsonb | the JSON value itself (never a string re-parsed) |
//! | arrays | arrays of the elements' forms |
//! | anything else | its text form from the database |

use serde_json::{Value, json};

/// The largest integer a JSON number (an IEEE double) holds exactly.
pub const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// An integer: a number within ±[`MAX_SAFE_INTEGER`], a string beyond.
pub fn integer(value: i64) -> Value {
    if (-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&value) {
        Value::from(value)
    } else {
        Value::String(value.to_string())
    }
}

/// A float: a number when finite, `"NaN"`/`"Infinity"`/`"-Infinity"` otherwise.
pub fn float(value: f64) -> Value {
    match serde_json::Number::from_f64(value) {
        Some(n) => Value::Number(n),
        None if value.is_nan() => Value::String("NaN".into()),
        None if value > 0.0 => Value::String("Infinity".into()),
        None => Value::String("-Infinity".into()),
    }
}

/// Bytes, base64 (standard alphabet, padded).
pub fn bytes(value: &[u8]) -> Value {
    use base64::Engine;
    Value::String(base64::engine::general_purpose::STANDARD.encode(value))
}

/// The JSON Schema of [`integer`]'s values (`null` included when `nullable`).
pub fn integer_schema(wide: bool) -> Value {
    if wide {
        json!({"type": ["integer", "string", "null"], "pattern": "^-?[0-9]+$"})
    } else {
        json!({"type": ["integer", "null"]})
    }
}

/// The JSON Schema of [`float`]'s values.
pub fn float_schema() -> Value {
    json!({"type": ["number", "string", "null"], "pattern": "^(NaN|-?Infinity)$"})
}

/// The JSON Schema of [`bytes()`]'s values.
pub fn bytes_schema() -> Value {
    json!({"type": ["string", "null"], "contentEncoding": "base64"})
}

/// The JSON Schema of an exact decimal written as a string.
pub fn numeric_schema() -> Value {
    json!({"type": ["string", "null"], "pattern": "^(-?[0-9]+(\\.[0-9]+)?|NaN|-?Infinity)$"})
}

/// The JSON Schema of a string (`format` such as `date-time`, when given).
pub fn string_schema(format: Option<&str>) -> Value {
    match format {
        Some(format) => json!({"type": ["string", "null"], "format": format}),
        None => json!({"type": ["string", "null"]}),
    }
}

/// The serialized size of a value (a cell, or a row's cells as an array),
/// as counted against `max_bytes`: written into a counter, not a buffer
/// (cells and rows are sized one by one, so a buffer each was an
/// allocation each). Every engine sizes its results here.
pub fn size<T: serde::Serialize + ?Sized>(value: &T) -> u64 {
    /// Counts the bytes written to it and keeps none.
    struct Counter(u64);
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len() as u64;
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    // Writing JSON into a counter cannot fail.
    let _ = serde_json::to_writer(&mut counter, value);
    counter.0
}

/// The bytes the keys of one row object take (`"name":` per column), as
/// counted against `max_bytes`: rows reach the model as objects, so each
/// row repeats its column names. A name seen before in `names` counts 6
/// bytes more, room for the `_2`… suffix that keeps keys distinct.
pub fn object_keys_size<'a>(names: impl IntoIterator<Item = &'a str>) -> u64 {
    let mut seen: Vec<&str> = Vec::new();
    let mut total = 0;
    for name in names {
        let suffix = if seen.contains(&name) { 6 } else { 0 };
        total += size(&Value::String(name.to_owned())) + 1 + suffix;
        seen.push(name);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_forms() {
        assert_eq!(integer(42), json!(42));
        assert_eq!(integer(MAX_SAFE_INTEGER + 1), json!("9007199254740992"));
        assert_eq!(integer(i64::MIN), json!("-9223372036854775808"));
        assert_eq!(float(f64::NAN), json!("NaN"));
        assert_eq!(float(f64::NEG_INFINITY), json!("-Infinity"));
        assert_eq!(float(1.5), json!(1.5));
        assert_eq!(bytes(b"hi"), json!("aGk="));
        let row = json!({"id": 1, "na\"me": "x"});
        let values = size(&json!(1)) + size(&json!("x"));
        assert_eq!(object_keys_size(["id", "na\"me"]) + values + 1 + 2, size(&row));
        let cells = [json!(1), json!("a\"b"), Value::Null];
        assert_eq!(size(&cells[..]), serde_json::to_vec(&cells).unwrap().len() as u64);
    }
}
