//! RFC 6570 URI templates, all four levels: expansion, and matching a
//! concrete URI back to the template's variables.
//!
//! MCP resource templates are RFC 6570 templates, and a server must route
//! `resources/read` of `file:///src/main.rs` to the template
//! `file:///{+path}` with `path = "src/main.rs"`. Crates on crates.io
//! expand templates but do not match them, so this one does both, written
//! for that job.
//!
//! ```
//! use mcp_uri_template::{UriTemplate, Value, Variables};
//!
//! let t = UriTemplate::parse("file:///{+path}{?rev}").unwrap();
//! let vars = t.matches("file:///src/main.rs?rev=abc").unwrap();
//! assert_eq!(vars["path"], Value::from("src/main.rs"));
//! assert_eq!(vars["rev"], Value::from("abc"));
//!
//! let mut v = Variables::new();
//! v.insert("path".into(), "a b/c".into());
//! assert_eq!(t.expand(&v), "file:///a%20b/c");
//! ```
//!
//! # Matching rules
//!
//! Expansion is many-to-one, so matching picks one answer:
//! - Literals match exactly. Captured values are percent-decoded.
//! - A simple `{var}` (and the `.`, `/`, `;`, `?`, `&` operators) captures
//!   only characters its expansion could have produced: unreserved
//!   characters, `%XX` escapes and the operator's own separators, so `{id}`
//!   never spans a `/`. `{+var}` and `{#var}` may also contain reserved
//!   characters such as `/`, `?` and `,`.
//! - `{var}` and `{+var}` must capture at least one character; expressions
//!   with a prefix character (`{/x}`, `{.x}`, `{;x}`, `{?x}`, `{&x}`,
//!   `{#x}`) may be absent altogether, leaving their variables undefined.
//! - Where a capture could end at several places, the longest that lets the
//!   rest of the template match wins (bounded backtracking; no input takes
//!   more than a fixed number of steps). One exception: a capture stops
//!   before a `?`, `&` or `#` that a directly following `{?…}`, `{&…}` or
//!   `{#…}` expression can take, so `{+path}{?rev}` reads `a/b?rev=1` as
//!   `path = a/b`, `rev = 1`.
//! - Several variables in one expression are split on its separator, in
//!   order. An exploded variable (`{/segs*}`, `{.ext*}`) takes the
//!   remaining parts as a list. In `?`, `&` and `;` expressions, parameters
//!   are matched by name in any order; an exploded variable collects its
//!   repeated name as a list, or unknown names as an associative list;
//!   an unknown name with no exploded variable to take it fails the match.

mod expand;
mod matcher;
mod parse;

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// A variable's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// A string.
    String(String),
    /// A list of strings.
    List(Vec<String>),
    /// An associative list of (name, value) pairs, in order.
    AssocList(Vec<(String, String)>),
}

impl Value {
    /// The string, when this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(s.to_owned())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(s)
    }
}

impl From<Vec<String>> for Value {
    fn from(v: Vec<String>) -> Self {
        Value::List(v)
    }
}

impl From<Vec<(String, String)>> for Value {
    fn from(v: Vec<(String, String)>) -> Self {
        Value::AssocList(v)
    }
}

/// Decodes `%XX` escapes; `None` for a malformed escape or bytes that are
/// not UTF-8.
pub fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Variable values by name.
pub type Variables = BTreeMap<String, Value>;

/// Why a template does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A `{` without its `}`.
    #[error("unclosed expression starting at byte {0}")]
    Unclosed(usize),
    /// A `}` without a `{`.
    #[error("unexpected '}}' at byte {0}")]
    UnexpectedClose(usize),
    /// An empty expression, variable name or modifier.
    #[error("empty expression or variable name at byte {0}")]
    Empty(usize),
    /// An operator RFC 6570 reserves for future use (`=`, `,`, `!`, `@`, `|`).
    #[error("reserved operator {op:?} at byte {at}")]
    ReservedOperator {
        /// The operator.
        op: char,
        /// Where.
        at: usize,
    },
    /// A character not allowed in a variable name.
    #[error("invalid character {ch:?} in a variable name at byte {at}")]
    InvalidVarName {
        /// The character.
        ch: char,
        /// Where.
        at: usize,
    },
    /// A prefix modifier that is not 1 to 9999.
    #[error("invalid prefix length at byte {0} (1 to 9999)")]
    InvalidPrefix(usize),
    /// A character not allowed in a literal.
    #[error("invalid character {ch:?} in a literal at byte {at}")]
    InvalidLiteral {
        /// The character.
        ch: char,
        /// Where.
        at: usize,
    },
}

/// Expression operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    Simple,
    Reserved,
    Fragment,
    Label,
    Path,
    PathParam,
    Query,
    QueryCont,
}

/// One variable of an expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct VarSpec {
    pub name: String,
    pub prefix: Option<usize>,
    pub explode: bool,
}

/// A parsed part of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Part {
    Literal(String),
    Expr { op: Op, vars: Vec<VarSpec> },
}

/// A parsed RFC 6570 URI template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    source: String,
    parts: Vec<Part>,
}

impl UriTemplate {
    /// Parses a template.
    pub fn parse(template: &str) -> Result<UriTemplate, Error> {
        Ok(UriTemplate { source: template.to_owned(), parts: parse::parse(template)? })
    }

    /// The template text.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The variable names, in order of first appearance.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        let mut seen: Vec<&str> = Vec::new();
        for part in &self.parts {
            if let Part::Expr { vars, .. } = part {
                for v in vars {
                    if !seen.contains(&v.name.as_str()) {
                        seen.push(&v.name);
                    }
                }
            }
        }
        seen.into_iter()
    }

    /// True when the template has no expressions.
    pub fn is_literal(&self) -> bool {
        self.parts.iter().all(|p| matches!(p, Part::Literal(_)))
    }

    /// Expands the template with `vars` (RFC 6570 §3).
    pub fn expand(&self, vars: &Variables) -> String {
        expand::expand(&self.parts, vars)
    }

    /// Matches a concrete URI; the variables it binds, or `None` when it
    /// does not fit (see the crate docs for the rules).
    pub fn matches(&self, uri: &str) -> Option<Variables> {
        matcher::matches(&self.parts, uri)
    }
}

impl FromStr for UriTemplate {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}
