//! Expansion (RFC 6570 §3.2 and Appendix A).

use crate::{Op, Part, Value, VarSpec, Variables};

/// Per-operator behaviour: (first, separator, named, if-empty, allow reserved).
pub(crate) fn behaviour(op: Op) -> (&'static str, char, bool, &'static str, bool) {
    match op {
        Op::Simple => ("", ',', false, "", false),
        Op::Reserved => ("", ',', false, "", true),
        Op::Fragment => ("#", ',', false, "", true),
        Op::Label => (".", '.', false, "", false),
        Op::Path => ("/", '/', false, "", false),
        Op::PathParam => (";", ';', true, "", false),
        Op::Query => ("?", '&', true, "=", false),
        Op::QueryCont => ("&", '&', true, "=", false),
    }
}

pub(crate) const fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

pub(crate) const fn is_reserved(b: u8) -> bool {
    matches!(
        b,
        b':' | b'/'
            | b'?'
            | b'#'
            | b'['
            | b']'
            | b'@'
            | b'!'
            | b'$'
            | b'&'
            | b'\''
            | b'('
            | b')'
            | b'*'
            | b'+'
            | b','
            | b';'
            | b'='
    )
}

fn encode(value: &str, allow_reserved: bool, out: &mut String) {
    let bytes = value.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if is_unreserved(b) || (allow_reserved && is_reserved(b)) {
            out.push(b as char);
        } else if allow_reserved && is_triplet(bytes, i) {
            out.push_str(&value[i..i + 3]);
            i += 3;
            continue;
        } else {
            const HEX: &[u8; 16] = b"0123456789ABCDEF";
            out.push('%');
            out.push(HEX[usize::from(b >> 4)] as char);
            out.push(HEX[usize::from(b & 15)] as char);
        }
        i += 1;
    }
}

/// The first `n` characters of `value` (RFC 6570 §2.4.1): characters, not
/// bytes, and where the operator keeps pct-encoded triplets (`+`, `#`), a
/// triplet counts as one character and is never split.
fn prefix(value: &str, n: Option<usize>, allow_reserved: bool) -> &str {
    let Some(n) = n else { return value };
    let bytes = value.as_bytes();
    let mut chars = value.char_indices();
    for _ in 0..n {
        let Some((i, c)) = chars.next() else { return value };
        if allow_reserved && c == '%' && is_triplet(bytes, i) {
            chars.next();
            chars.next();
        }
    }
    match chars.next() {
        Some((i, _)) => &value[..i],
        None => value,
    }
}

/// Whether `bytes[i..]` starts with a `%XX` triplet.
fn is_triplet(bytes: &[u8], i: usize) -> bool {
    bytes[i] == b'%'
        && bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
        && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
}

fn defined(value: Option<&Value>) -> Option<&Value> {
    match value? {
        Value::List(l) if l.is_empty() => None,
        Value::AssocList(a) if a.is_empty() => None,
        v => Some(v),
    }
}

fn expand_var(spec: &VarSpec, value: &Value, op: Op, out: &mut String) {
    let (_, sep, named, ifemp, reserved) = behaviour(op);
    match value {
        Value::String(s) => {
            if named {
                out.push_str(&spec.name);
                if s.is_empty() {
                    out.push_str(ifemp);
                    return;
                }
                out.push('=');
            }
            encode(prefix(s, spec.prefix, reserved), reserved, out);
        }
        Value::List(items) if !spec.explode => {
            if named {
                out.push_str(&spec.name);
                out.push('=');
            }
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                encode(item, reserved, out);
            }
        }
        Value::List(items) => {
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(sep);
                }
                if named {
                    out.push_str(&spec.name);
                    if item.is_empty() {
                        out.push_str(ifemp);
                        continue;
                    }
                    out.push('=');
                }
                encode(item, reserved, out);
            }
        }
        Value::AssocList(pairs) if !spec.explode => {
            if named {
                out.push_str(&spec.name);
                out.push('=');
            }
            for (i, (k, v)) in pairs.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                encode(k, reserved, out);
                out.push(',');
                encode(v, reserved, out);
            }
        }
        Value::AssocList(pairs) => {
            for (i, (k, v)) in pairs.iter().enumerate() {
                if i > 0 {
                    out.push(sep);
                }
                encode(k, reserved, out);
                if v.is_empty() && named {
                    out.push_str(ifemp);
                } else {
                    out.push('=');
                    encode(v, reserved, out);
                }
            }
        }
    }
}

pub(crate) fn expand(parts: &[Part], vars: &Variables) -> String {
    let mut out = String::new();
    for part in parts {
        match part {
            Part::Literal(l) => out.push_str(l),
            Part::Expr { op, vars: specs } => {
                let (first, sep, ..) = behaviour(*op);
                let mut any = false;
                for spec in specs {
                    let Some(value) = defined(vars.get(&spec.name)) else { continue };
                    if any {
                        out.push(sep);
                    } else {
                        out.push_str(first);
                        any = true;
                    }
                    expand_var(spec, value, *op, &mut out);
                }
            }
        }
    }
    out
}
