//! Continuation cursors: where the next page of a read call starts, signed
//! by the server ([`Server::sign`]) and bound to the call it continues.
//!
//! A cursor is `base64url(version ‖ skip ‖ tag)`, where the tag signs the
//! skip together with the database, the tool, a digest of the statement
//! and a digest of the other arguments. Only the skip travels; the rest is
//! recomputed from the call that presents it, so a cursor replayed with
//! other SQL, other arguments or another tool fails its tag, and a forged
//! or altered one fails it too. Continuing re-runs the statement and skips
//! the rows already returned: pages are stable when it has an `ORDER BY`.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use switchboard_server::Server;

const VERSION: u8 = 1;
const TAG_LEN: usize = 32;

/// What a cursor is bound to.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Binding<'a> {
    /// The database's name.
    pub database: &'a str,
    /// The tool's name.
    pub tool: &'a str,
    /// The statement's text.
    pub sql: &'a str,
    /// The arguments other than `cursor` (defaults applied).
    pub params: &'a Map<String, Value>,
}

impl Binding<'_> {
    /// What the tag signs, for `skip`.
    fn signed(&self, skip: u64) -> Vec<u8> {
        let mut data = Vec::new();
        data.extend_from_slice(b"switchboard-sql/cursor/v1\0");
        for part in [self.database, self.tool] {
            data.extend_from_slice(part.as_bytes());
            data.push(0);
        }
        data.extend_from_slice(&Sha256::digest(self.sql.as_bytes()));
        data.extend_from_slice(&Sha256::digest(canonical(&Value::Object(self.params.clone())).as_bytes()));
        data.extend_from_slice(&skip.to_be_bytes());
        data
    }
}

/// The cursor for the page starting after `skip` rows.
pub(crate) fn issue(server: &Server, binding: &Binding<'_>, skip: u64) -> String {
    let mut bytes = Vec::with_capacity(1 + 8 + TAG_LEN);
    bytes.push(VERSION);
    bytes.extend_from_slice(&skip.to_be_bytes());
    bytes.extend_from_slice(&server.sign(&binding.signed(skip)));
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The skip a cursor carries, if this server issued it for this very call;
/// otherwise a message for the model.
pub(crate) fn open(server: &Server, binding: &Binding<'_>, cursor: &str) -> Result<u64, String> {
    let refused = || {
        format!(
            "the cursor was refused: it is not one this server issued for this call (altered, or from another statement, other arguments or another tool). Pass the nextCursor of the previous result unchanged, with the same {}; or leave cursor out to start from the first row",
            if binding.tool.ends_with("_query") { "sql" } else { "arguments" }
        )
    };
    let bytes = URL_SAFE_NO_PAD.decode(cursor.trim()).map_err(|_| refused())?;
    if bytes.len() != 1 + 8 + TAG_LEN || bytes[0] != VERSION {
        return Err(refused());
    }
    let skip = u64::from_be_bytes(bytes[1..9].try_into().expect("eight bytes"));
    if !server.verify(&binding.signed(skip), &bytes[9..]) {
        return Err(refused());
    }
    Ok(skip)
}

/// JSON text with object keys sorted at every level, so equal arguments
/// give one digest whatever order the client sent them in.
fn canonical(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let fields: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{}:{}", Value::String(k.clone()), canonical(&map[k])))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(items) => format!("[{}]", items.iter().map(canonical).collect::<Vec<_>>().join(",")),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_sorts_keys() {
        let a: Value = serde_json::from_str(r#"{"b":1,"a":{"y":[1,{"d":2,"c":3}],"x":"s"}}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"a":{"x":"s","y":[1,{"c":3,"d":2}]},"b":1}"#).unwrap();
        assert_eq!(canonical(&a), canonical(&b));
        assert_eq!(canonical(&a), r#"{"a":{"x":"s","y":[1,{"c":3,"d":2}]},"b":1}"#);
    }
}
