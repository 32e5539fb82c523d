//! URI checks: every resource URI the server registers or is asked to read
//! is validated (`docs/specification/<rev>/server/resources.mdx` §Security:
//! servers MUST validate all resource URIs; custom schemes follow RFC 3986).

/// Longest URI accepted, in bytes.
pub(crate) const MAX_URI_LEN: usize = 8 * 1024;

/// Checks RFC 3986 syntax closely enough to refuse anything that is not a
/// URI: a scheme (`ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`) and `:`, no
/// whitespace or control characters, no characters RFC 3986 never allows
/// unencoded, and `%` only as the start of a `%XX` triplet.
pub fn validate_uri(uri: &str) -> Result<(), String> {
    if uri.is_empty() {
        return Err("it is empty".into());
    }
    if uri.len() > MAX_URI_LEN {
        return Err(format!("it is longer than {MAX_URI_LEN} bytes"));
    }
    let Some(colon) = uri.find(':') else {
        return Err("it has no scheme (expected something like \"file:///path\" or \"app://item\")".into());
    };
    let scheme = &uri[..colon];
    let mut chars = scheme.chars();
    if !chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        || !chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    {
        return Err(format!("{scheme:?} is not a valid scheme"));
    }
    let bytes = uri.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'%' => {
                let ok = bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                    && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
                if !ok {
                    return Err(format!("'%' at byte {i} does not start a %XX escape"));
                }
                i += 3;
                continue;
            }
            0..=0x20 | 0x7f => return Err(format!("it contains a space or control character at byte {i}")),
            b'<' | b'>' | b'"' | b'{' | b'}' | b'|' | b'\\' | b'^' | b'`' => {
                return Err(format!("{:?} at byte {i} must be percent-encoded", b as char));
            }
            // Non-ASCII (IRI) characters are tolerated: clients send them.
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_uris_and_rejects_the_rest() {
        for ok in [
            "file:///src/main.rs",
            "test://static-text",
            "git://repo/commit/abc",
            "urn:isbn:0451450523",
            "a+b.c-d:x",
            "file:///a%20b",
        ] {
            assert!(validate_uri(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "no-scheme",
            "1abc://x",
            "://x",
            "file:///a b",
            "file:///a\nb",
            "x:%zz",
            "x:%2",
            "x:<y>",
            "x:a\\b",
        ] {
            assert!(validate_uri(bad).is_err(), "{bad:?}");
        }
        assert!(validate_uri(&format!("x:{}", "a".repeat(MAX_URI_LEN))).is_err());
    }
}
