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

pub(crate) fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

pub(crate) fn is_reserved(b: u8) -> bool {
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
        } else if allow_reserved
            && b == b'%'
            && bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
            && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
        {
            out.push_str(&value[i..i + 3]);
            i += 3;
            continue;
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
        i += 1;
    }
}

fn prefix(value: &str, n: Option<usize>) -> &str {
    match n {
        Some(n) => match value.char_indices().nth(n) {
            Some((i, _)) => &value[..i],
            None => value,
        },
        None => value,
    }
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
            encode(prefix(s, spec.prefix), reserved, out);
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
