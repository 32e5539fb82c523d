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
//! use switchboard_uri_template::{UriTemplate, Value, Variables};
//!
//! let t: UriTemplate = "file:///{+path}{?rev}".parse().unwrap();
//! assert_eq!(t.variables().collect::<Vec<_>>(), ["path", "rev"]);
//!
//! let vars = t.matches("file:///src/main.rs?rev=abc").unwrap();
//! assert_eq!(vars["path"].as_str(), Some("src/main.rs"));
//! assert_eq!(vars["rev"], Value::from("abc"));
//! assert_eq!(t.matches("http://example.com/"), None);
//!
//! let mut v = Variables::new();
//! v.insert("path".into(), "a b/c".into());
//! assert_eq!(t.expand(&v), "file:///a%20b/c");
//! assert_eq!(t.matches(&t.expand(&v)), Some(v));
//! ```
//!
//! # Design
//!
//! [`UriTemplate::parse`] checks the RFC grammar (§2) and keeps the template
//! as literals and expressions; a template that parses always expands.
//! [`UriTemplate::expand`] is RFC 6570 §3.2 and its Appendix A as written:
//! every example of the RFC is a test vector. [`UriTemplate::matches`] is
//! the inverse: expansion is many-to-one, so where a URI has several
//! readings the rules below pick one, always the same.
//!
//! # Matching rules
//!
//! - Literals match exactly, byte for byte.
//! - An expression captures only characters its expansion could have
//!   produced, and the captured values are percent-decoded:
//!   - a simple `{var}`, and `{.var}`, `{/var}`, `{;var}`, `{?var}`,
//!     `{&var}`: unreserved characters, `%XX` escapes, and the operator's
//!     own separators (`,` between list items; `/` only in multi-variable
//!     or exploded `{/…}`); so `{id}` never spans a `/`;
//!   - `{+var}` and `{#var}`: also reserved characters such as `/`, `?`,
//!     `:` and `,`; so `file:///{+path}` matches `file:///src/main.rs`.
//!
//!   Non-ASCII characters (IRIs) are accepted unencoded; a `%` that is not
//!   a `%XX` escape, or escapes that do not decode to UTF-8, match no
//!   expression.
//! - `{var}` and `{+var}` capture at least one character. Expressions with
//!   a first character (`{#x}`, `{.x}`, `{/x}`, `{;x}`, `{?x}`, `{&x}`) may
//!   be absent altogether, leaving their variables undefined, or present
//!   with an empty value (`{/x}` matching `/` binds `x = ""`).
//! - Where a capture could end at several places, the longest capture
//!   after which the rest of the template still matches wins, earlier
//!   expressions first: the answer a full backtracking search would give.
//!   So `{a}{b}` reads `123` as `a = "12"`, `b = "3"`, and `docs/{name}{.ext}`
//!   reads `docs/readme.md` as `name = "readme.md"` with `ext` undefined
//!   (`.` is unreserved). One exception: in `{+…}` or `{#…}`, a capture
//!   stops before a `?`, `&` or `#` that a `{?…}`, `{&…}` or `{#…}` in the
//!   run of expressions right after it can take, so `{+path}{?rev}` reads
//!   `a/b?rev=1` as `path = "a/b"`, `rev = "1"`.
//! - A prefix modifier bounds the capture: `{var:3}` matches at most three
//!   (decoded) characters.
//! - Several variables in an unnamed expression (`{x,y}`, `{/a,b}`) are
//!   split on its separator, in order; if there are fewer pieces than
//!   variables, the last variables stay undefined (so `{x,y}` reads `1` as
//!   `x = "1"`).
//! - An exploded variable (`{/segs*}`, `{.dom*}`, `{list*}`) yields a
//!   [`Value::List`] of its items; in `{var*}`, `{.var*}` and `{/var*}`,
//!   items of the form `k=v` yield a [`Value::AssocList`] instead. Beside
//!   other variables, it takes every piece except one for each variable
//!   after it.
//! - A non-exploded variable yields a [`Value::String`]: a list expanded
//!   without `*` (`red,green,blue`) comes back as that one string.
//! - In `{;…}`, `{?…}` and `{&…}`, parameters are matched by name, in any
//!   order, and each may be absent. An exploded variable collects its own
//!   repeated name as a [`Value::List`], or, when other names appear, every
//!   parameter no other variable names as a [`Value::AssocList`] (so
//!   `{?query*}` takes arbitrary query parameters). A parameter that no
//!   variable names, with no exploded variable to take it, fails the match:
//!   a template's query is a closed set.
//! - A variable that appears more than once must bind the same value each
//!   time (a prefix-modified occurrence must be the start of the others).
//!   This is checked after the split is chosen; a URI whose only consistent
//!   split is not the preferred one does not match.
//!
//! Matching costs O(expressions × URI length) for templates whose
//! captures have no inner structure. Named expressions (`;`, `?`, `&`) and
//! multi-variable expressions with prefixes are checked capture by capture,
//! within a work budget proportional to the URI length; a URI that would
//! need more does not match. Nothing takes exponential time.

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
    /// A prefix modifier that is not 1 to 9999 (without leading zeros).
    #[error("invalid prefix length at byte {0} (1 to 9999)")]
    InvalidPrefix(usize),
    /// A variable with both a prefix modifier and explode (`{x:3*}`).
    #[error("a variable cannot have both a prefix and '*' (byte {0})")]
    PrefixWithExplode(usize),
    /// A character not allowed in a literal (including a `%` that does not
    /// start a `%XX` escape).
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
///
/// Two templates are equal when their text is.
#[derive(Clone)]
pub struct UriTemplate {
    source: String,
    parts: Vec<Part>,
    /// How each expression matches (`None` for literals).
    plans: Vec<Option<matcher::Plan>>,
}

impl UriTemplate {
    /// Parses a template (RFC 6570 §2). Errors name the byte offset of the
    /// problem: an unclosed `{` or stray `}`, an empty expression, a
    /// reserved operator (`=`, `,`, `!`, `@`, `|`), a bad variable name, a
    /// prefix outside 1 to 9999, a prefix together with `*`, or a character
    /// not allowed in a literal.
    pub fn parse(template: &str) -> Result<UriTemplate, Error> {
        let parts = parse::parse(template)?;
        let plans = matcher::plans(&parts);
        Ok(UriTemplate { source: template.to_owned(), parts, plans })
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

    /// Expands the template with `vars` (RFC 6570 §3.2). Absent variables,
    /// empty lists and empty associative lists are undefined and skipped.
    pub fn expand(&self, vars: &Variables) -> String {
        expand::expand(&self.parts, vars)
    }

    /// Matches a concrete URI: the (percent-decoded) variables it binds, or
    /// `None` when it does not fit. Undefined variables are left out. See
    /// the crate docs for the rules.
    pub fn matches(&self, uri: &str) -> Option<Variables> {
        matcher::matches(&self.parts, &self.plans, uri)
    }
}

impl FromStr for UriTemplate {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl PartialEq for UriTemplate {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

impl Eq for UriTemplate {}

impl fmt::Debug for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UriTemplate").field("source", &self.source).field("parts", &self.parts).finish()
    }
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}
