//! Literal credentials in the file: a token written where `${NAME}` (or a
//! variable's name) belongs.
//!
//! Why: `switchboard.toml` is committed, shared and pasted into issues; a
//! token in it leaks with it. The model never reads the file (the served
//! tree never serves it), so this is a check of the user's own file that
//! keeps secrets in the environment or the `env_file`, where they belong.
//! Each finding is placed at the value and never quotes it.
//!
//! What counts as a literal credential:
//! - a header (HTTP tools, OpenAPI entries, upstreams) whose name says it
//!   carries one (`Authorization`, `Proxy-Authorization`, `Cookie`,
//!   `X-Api-Key`, `…-Token`, `…-Key`, `…Secret…`) with literal text beside
//!   its `${NAME}`s other than an auth scheme word (`Bearer ${TOKEN}` is
//!   fine), or any header value that looks like a token;
//! - a URL with a password in it (`https://user:pass@host`) or a query
//!   parameter named like a key (`api_key=`, `token=`, `key=`, …) with a
//!   literal value (`{placeholder}` and `${NAME}` are fine);
//! - a `*_env` key (`token_env`, `headers_env`, `bearer_token_env`, an
//!   auth token's `env`, a database's `url_env` and `password_env`) whose value looks like a token rather than a name.
//!
//! A value "looks like a token" when it starts with a known key prefix
//! (`sk-`, `ghp_`, `github_pat_`, `xox`, `AKIA`, `glpat-`, …), is
//! `Bearer`/`Basic`/`Token` followed by literal text, or is a long run
//! (24+ characters) of letters and digits mixed, without spaces.

use std::ops::Range;

use serde_json::Value;

use crate::document::{Document, escape};

/// Key prefixes of well-known services' credentials.
const KEY_PREFIXES: &[&str] = &[
    "sk-",
    "sk_live_",
    "sk_test_",
    "rk_live_",
    "pk_live_",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "xoxb-",
    "xoxp-",
    "xoxa-",
    "xoxs-",
    "xapp-",
    "AKIA",
    "ASIA",
    "AIza",
    "ya29.",
    "hf_",
    "npm_",
    "pypi-",
    "dop_v1_",
    "shpat_",
    "SG.",
];

/// Query parameter names that carry a credential.
const KEY_PARAMETERS: &[&str] = &[
    "api_key",
    "apikey",
    "api-key",
    "key",
    "token",
    "access_token",
    "auth",
    "auth_token",
    "secret",
    "client_secret",
    "password",
    "passwd",
    "sig",
    "signature",
    "private_token",
];

/// Every literal credential of `doc`, as (byte range of the value, message).
pub(crate) fn literal_credentials(doc: &Document) -> Vec<(Range<usize>, String)> {
    let mut out = Vec::new();
    for kind in ["http", "openapi"] {
        for i in 0..len(doc, &format!("/tools/{kind}")) {
            let entry = format!("/tools/{kind}/{i}");
            headers(doc, &format!("{entry}/headers"), "${NAME}", &mut out);
            for key in ["url", "base_url", "document"] {
                url(doc, &format!("{entry}/{key}"), &mut out);
            }
            for key in ["token_env", "key_env", "username_env", "password_env"] {
                variable_name(doc, &format!("{entry}/auth/{key}"), &mut out);
            }
        }
    }
    for i in 0..len(doc, "/upstreams") {
        let entry = format!("/upstreams/{i}");
        headers(doc, &format!("{entry}/headers"), "`headers_env` (header = \"VARIABLE\")", &mut out);
        url(doc, &format!("{entry}/url"), &mut out);
        variable_name(doc, &format!("{entry}/bearer_token_env"), &mut out);
        if let Some(Value::Object(map)) = doc.get(&format!("{entry}/headers_env")) {
            for name in map.keys() {
                variable_name(doc, &format!("{entry}/headers_env/{}", escape(name)), &mut out);
            }
        }
    }
    // A password in a database `url` is a problem of the entry itself
    // (`DatabaseSpec::problems`: such a file is refused, not only warned
    // about); its variables' names are checked here.
    for i in 0..len(doc, "/databases") {
        for key in ["url_env", "password_env"] {
            variable_name(doc, &format!("/databases/{i}/{key}"), &mut out);
        }
    }
    for i in 0..len(doc, "/http/auth/tokens") {
        variable_name(doc, &format!("/http/auth/tokens/{i}/env"), &mut out);
    }
    out
}

fn len(doc: &Document, pointer: &str) -> usize {
    doc.get(pointer).and_then(Value::as_array).map_or(0, Vec::len)
}

fn push(doc: &Document, pointer: &str, message: String, out: &mut Vec<(Range<usize>, String)>) {
    if let Some(place) = doc.place(pointer) {
        out.push((place.value.clone(), message));
    }
}

/// The headers table at `pointer`; `instead` is what to write instead.
fn headers(doc: &Document, pointer: &str, instead: &str, out: &mut Vec<(Range<usize>, String)>) {
    let Some(Value::Object(map)) = doc.get(pointer) else { return };
    for (name, value) in map {
        let Some(value) = value.as_str() else { continue };
        let literal = without_variables(value);
        let sensitive = sensitive_header(name) && !scheme_only(&literal);
        if sensitive || looks_like_token(&literal) {
            let message = format!(
                "header {name:?} holds a literal credential; keep secrets out of this file: write {instead} \
                 here and set the variable in the host's `env` or in the `[server] env_file`"
            );
            push(doc, &format!("{pointer}/{}", escape(name)), message, out);
        }
    }
}

/// A URL at `pointer` with a password or a key parameter written in it.
fn url(doc: &Document, pointer: &str, out: &mut Vec<(Range<usize>, String)>) {
    let Some(text) = doc.get(pointer).and_then(Value::as_str) else { return };
    let Some((_, rest)) = text.split_once("://") else { return };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let password = authority
        .rsplit_once('@')
        .and_then(|(userinfo, _)| userinfo.split_once(':'))
        .is_some_and(|(_, password)| is_literal(password));
    let query =
        rest.split_once('?').map(|(_, q)| q.split('#').next().unwrap_or_default()).unwrap_or_default();
    let parameter = query.split('&').filter_map(|pair| pair.split_once('=')).find(|(name, value)| {
        KEY_PARAMETERS.contains(&name.to_ascii_lowercase().as_str()) && is_literal(value)
    });
    let what = match (password, parameter) {
        (true, _) => "the URL has a password in it".to_owned(),
        (false, Some((name, _))) => format!("the URL's query parameter {name:?} holds a literal credential"),
        (false, None) => return,
    };
    let message = format!(
        "{what}; keep secrets out of this file: send it in a header written as ${{NAME}} (or an OpenAPI \
         entry's `auth`), and set the variable in the host's `env` or in the `[server] env_file`"
    );
    push(doc, pointer, message, out);
}

/// A `*_env` value at `pointer` that is a token, not a variable's name.
fn variable_name(doc: &Document, pointer: &str, out: &mut Vec<(Range<usize>, String)>) {
    let Some(text) = doc.get(pointer).and_then(Value::as_str) else { return };
    if looks_like_token(text) {
        let key = pointer.rsplit('/').next().unwrap_or_default();
        let message = format!(
            "this looks like a credential, but `{key}` takes the name of the environment variable that \
             holds it, like \"API_TOKEN\"; set that variable in the host's `env` or in the \
             `[server] env_file`, and keep the credential out of this file"
        );
        push(doc, pointer, message, out);
    }
}

/// `value` with its `${NAME}`s and `$$`s removed (what is written literally).
fn without_variables(value: &str) -> String {
    let mut out = String::new();
    let mut rest = value;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        if let Some(body) = after.strip_prefix('{')
            && let Some(end) = body.find('}')
        {
            rest = &body[end + 1..];
        } else {
            rest = after.strip_prefix('$').unwrap_or(after);
        }
    }
    out.push_str(rest);
    out
}

/// Whether a literal value is nothing but an auth scheme word (and spaces).
fn scheme_only(literal: &str) -> bool {
    let word = literal.trim();
    word.is_empty()
        || ["bearer", "basic", "token", "apikey", "digest"].contains(&word.to_ascii_lowercase().as_str())
}

/// Whether a value written literally (not a `{placeholder}` or `${NAME}`)
/// is there.
fn is_literal(value: &str) -> bool {
    !value.is_empty() && !value.starts_with('{') && !value.starts_with("${") && !value.starts_with("%7B")
}

/// Whether a header name says its value is a credential.
fn sensitive_header(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    ["authorization", "proxy-authorization", "cookie", "x-api-key", "api-key", "apikey"]
        .contains(&name.as_str())
        || name.ends_with("-token")
        || name.ends_with("-key")
        || name.ends_with("_token")
        || name.ends_with("_key")
        || name.contains("secret")
}

/// Whether `text` looks like a token (see the module docs).
fn looks_like_token(text: &str) -> bool {
    let text = text.trim();
    if KEY_PREFIXES.iter().any(|p| text.starts_with(p) && text.len() > p.len() + 8) {
        return true;
    }
    let lower = text.to_ascii_lowercase();
    for scheme in ["bearer ", "basic ", "token "] {
        if let Some(rest) = lower.strip_prefix(scheme)
            && !rest.trim().is_empty()
        {
            return true;
        }
    }
    let tokenish = |c: char| c.is_ascii_alphanumeric() || "-_+/=.~".contains(c);
    text.chars().count() >= 24
        && text.chars().all(tokenish)
        && text.chars().any(|c| c.is_ascii_digit())
        && text.chars().any(|c| c.is_ascii_alphabetic())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(toml: &str) -> Vec<String> {
        let doc = Document::parse(toml).unwrap();
        let mut found = literal_credentials(&doc);
        found.sort_by_key(|(span, _)| span.start);
        found.into_iter().map(|(span, _)| toml[span].to_owned()).collect()
    }

    #[test]
    fn literal_tokens_are_found_and_variables_are_not() {
        let toml = r#"
[[tools.http]]
name = "a"
url = "https://api.example.com/x?api_key=abc123&q={q}"
headers = { Authorization = "Bearer sk-abcdefghijklmnop", X-Ok = "Bearer ${TOKEN}", Accept = "application/json", X-Trace = "ghp_abcdefghijklmnopqrstuvwxyz" }

[[tools.http]]
name = "b"
url = "https://user:hunter2@api.example.com/{id}?token={token}"
headers = { X-Api-Key = "plain", Authorization = "${AUTH}", User-Agent = "switchboard/1.0 (+https://example.com)" }

[[tools.openapi]]
document = "api.json"
auth = { type = "bearer", token_env = "xoxb-1234567890-abcdefghij" }

[[upstreams]]
name = "u"
url = "https://mcp.example.com/mcp"
headers = { Authorization = "Token abc" }
headers_env = { X-Key = "REMOTE_KEY" }
bearer_token_env = "GITHUB_TOKEN"

[[http.auth.tokens]]
env = "AKIAABCDEFGHIJKLMNOP"
subject = "ci"
"#;
        assert_eq!(
            found(toml),
            [
                "\"https://api.example.com/x?api_key=abc123&q={q}\"",
                "\"Bearer sk-abcdefghijklmnop\"",
                "\"ghp_abcdefghijklmnopqrstuvwxyz\"",
                "\"https://user:hunter2@api.example.com/{id}?token={token}\"",
                "\"plain\"",
                "\"xoxb-1234567890-abcdefghij\"",
                "\"Token abc\"",
                "\"AKIAABCDEFGHIJKLMNOP\"",
            ]
        );
    }

    #[test]
    fn a_token_in_a_database_variable_key_is_a_literal_credential() {
        let toml = "[[databases]]\nname = \"a\"\nurl = \"postgres://app@db/shop\"\n\
                    password_env = \"s3cr3tPassw0rdThatIsLongEnough\"\n\n\
                    [[databases]]\nname = \"b\"\nurl_env = \"SHOP_DATABASE_URL\"\n";
        assert_eq!(found(toml), ["\"s3cr3tPassw0rdThatIsLongEnough\""]);
    }

    #[test]
    fn messages_never_quote_the_value() {
        let toml = "[[tools.http]]\nname = \"a\"\nurl = \"https://x.example/?token=s3cr3t\"\n\
                    headers = { Authorization = \"Bearer s3cr3t\" }\n";
        let doc = Document::parse(toml).unwrap();
        for (_, message) in literal_credentials(&doc) {
            assert!(!message.contains("s3cr3t"), "{message}");
            assert!(message.contains("env_file"), "{message}");
        }
    }
}
