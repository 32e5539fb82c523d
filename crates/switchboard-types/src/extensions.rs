//! Extension identifiers and the `extensions` capability (SEP-2133).
//!
//! An extension is an optional addition to MCP that both sides opt into:
//! each lists the extensions it supports in its capabilities, under
//! `extensions`, a map from extension identifier to a settings object whose
//! schema the extension defines (`{}` for none). Only what both sides
//! declared is in use; the side that supports an extension falls back to core
//! behaviour, or refuses with an error, when the other did not declare it.
//!
//! The identifier is checked here, once, so a server can refuse a bad one
//! when it is built instead of sending it to every client: it is
//! `{vendor-prefix}/{extension-name}`, spelled like a `_meta` key with a
//! mandatory prefix.
//!
//! Spec: `seps/2133-extensions.md` §Definition and §Negotiation;
//! `docs/specification/2026-07-28/basic/versioning.mdx` §Extension
//! Negotiation; `docs/specification/2026-07-28/basic/index.mdx` §`_meta`
//! (the key rules); `schema/2026-07-28/schema.ts` `ClientCapabilities` and
//! `ServerCapabilities` (`extensions?: { [key: string]: JSONObject }`).

use serde_json::Value;

/// The Tasks extension (`docs/extensions/tasks/overview.mdx`): long-running
/// requests answered with a task handle (2026-07-28).
pub const TASKS: &str = "io.modelcontextprotocol/tasks";

/// The MCP Apps extension (`docs/extensions/apps/overview.mdx`): tools that
/// render a `ui://` resource in the host.
pub const UI: &str = "io.modelcontextprotocol/ui";

/// Checks an extension identifier: a prefix of dot-separated labels (each
/// starting with a letter and ending with a letter or digit, hyphens
/// allowed inside), a `/`, and a non-empty name (alphanumerics at both ends;
/// `-`, `_`, `.` allowed inside). Returns what is wrong, if anything.
///
/// ```
/// use switchboard_types::extensions::validate_id;
/// assert!(validate_id("io.modelcontextprotocol/tasks").is_ok());
/// assert!(validate_id("com.example/widgets-v2").is_ok());
/// assert!(validate_id("tasks").is_err(), "the prefix is mandatory");
/// ```
pub fn validate_id(id: &str) -> Result<(), &'static str> {
    let Some((prefix, name)) = id.split_once('/') else {
        return Err("an extension identifier needs a vendor prefix: `{vendor-prefix}/{extension-name}`");
    };
    if prefix.is_empty() {
        return Err("the vendor prefix is empty");
    }
    if !prefix.split('.').all(is_label) {
        return Err("each label of the vendor prefix must start with a letter, end with a letter or digit, \
             and hold only letters, digits and hyphens");
    }
    if name.is_empty() {
        return Err("the extension name after the `/` is empty");
    }
    if !is_name(name) {
        return Err("the extension name must start and end with a letter or digit and hold only letters, \
             digits, `-`, `_` and `.`");
    }
    Ok(())
}

/// A prefix label: `[A-Za-z]([A-Za-z0-9-]*[A-Za-z0-9])?`.
fn is_label(label: &str) -> bool {
    let bytes = label.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            first.is_ascii_alphabetic()
                && last.is_ascii_alphanumeric()
                && bytes.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'-')
        }
        _ => false,
    }
}

/// A non-empty name: `[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?`.
fn is_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && bytes.iter().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        }
        _ => false,
    }
}

/// The settings a capabilities object's `extensions` map holds for `id`:
/// `None` when the map, or the entry, is missing or `null`. Tolerant, like
/// every reader here: an `extensions` member that is not an object declares
/// nothing rather than failing the whole capabilities object.
pub(crate) fn settings<'a>(extensions: Option<&'a Value>, id: &str) -> Option<&'a Value> {
    extensions?.as_object()?.get(id).filter(|v| !v.is_null())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn official_and_vendor_identifiers_are_valid() {
        for id in [TASKS, UI, "com.example/widgets", "a/b", "com.example-corp.x9/my_ext.v2", "io.mcp/x"] {
            assert_eq!(validate_id(id), Ok(()), "{id}");
        }
    }

    #[test]
    fn identifiers_breaking_the_meta_key_rules_are_refused() {
        for id in [
            "",
            "tasks",
            "/tasks",
            "com.example/",
            "com..example/x",
            ".com/x",
            "com./x",
            "1com.example/x",
            "com.example-/x",
            "com.ex_ample/x",
            "com.example/-x",
            "com.example/x-",
            "com.example/x y",
            "com.example/a/b",
            "com.exämple/x",
        ] {
            assert!(validate_id(id).is_err(), "{id:?} was accepted");
        }
    }

    #[test]
    fn settings_are_read_tolerantly() {
        let map = json!({"com.example/a": {"k": 1}, "com.example/b": null});
        assert_eq!(settings(Some(&map), "com.example/a"), Some(&json!({"k": 1})));
        assert_eq!(settings(Some(&map), "com.example/b"), None, "null declares nothing");
        assert_eq!(settings(Some(&map), "com.example/c"), None);
        assert_eq!(settings(Some(&json!(5)), "com.example/a"), None, "not a map");
        assert_eq!(settings(None, "com.example/a"), None);
    }
}
