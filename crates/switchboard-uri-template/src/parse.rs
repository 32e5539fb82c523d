//! Template syntax (RFC 6570 §2).

use crate::{Error, Op, Part, VarSpec};

fn is_varchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

pub(crate) fn parse(template: &str) -> Result<Vec<Part>, Error> {
    let mut parts = Vec::new();
    let mut literal = String::new();
    let mut chars = template.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            '{' => {
                if !literal.is_empty() {
                    parts.push(Part::Literal(std::mem::take(&mut literal)));
                }
                let close = template[at..].find('}').map(|i| at + i).ok_or(Error::Unclosed(at))?;
                parts.push(expression(&template[at + 1..close], at + 1)?);
                while chars.peek().is_some_and(|(i, _)| *i <= close) {
                    chars.next();
                }
            }
            '}' => return Err(Error::UnexpectedClose(at)),
            c if c.is_control()
                || c == ' '
                || matches!(c, '"' | '\'' | '<' | '>' | '\\' | '^' | '`' | '|') =>
            {
                return Err(Error::InvalidLiteral { ch: c, at });
            }
            '%' => {
                let b = template.as_bytes();
                if !(b.get(at + 1).is_some_and(u8::is_ascii_hexdigit)
                    && b.get(at + 2).is_some_and(u8::is_ascii_hexdigit))
                {
                    return Err(Error::InvalidLiteral { ch: '%', at });
                }
                literal.push('%');
            }
            c => literal.push(c),
        }
    }
    if !literal.is_empty() {
        parts.push(Part::Literal(literal));
    }
    Ok(parts)
}

fn expression(body: &str, at: usize) -> Result<Part, Error> {
    let mut rest = body;
    let op = match body.chars().next() {
        None => return Err(Error::Empty(at)),
        Some('+') => Op::Reserved,
        Some('#') => Op::Fragment,
        Some('.') => Op::Label,
        Some('/') => Op::Path,
        Some(';') => Op::PathParam,
        Some('?') => Op::Query,
        Some('&') => Op::QueryCont,
        Some(c @ ('=' | ',' | '!' | '@' | '|')) => return Err(Error::ReservedOperator { op: c, at }),
        Some(_) => Op::Simple,
    };
    let mut offset = at;
    if op != Op::Simple {
        rest = &body[1..];
        offset += 1;
    }
    let mut vars = Vec::new();
    for spec in rest.split(',') {
        vars.push(varspec(spec, offset)?);
        offset += spec.len() + 1;
    }
    Ok(Part::Expr { op, vars })
}

fn varspec(spec: &str, at: usize) -> Result<VarSpec, Error> {
    let (body, explode) = match spec.strip_suffix('*') {
        Some(body) => (body, true),
        None => (spec, false),
    };
    let (name, prefix) = match body.split_once(':') {
        Some((name, _)) if explode => return Err(Error::PrefixWithExplode(at + name.len())),
        Some((name, _)) if name.ends_with('*') => {
            return Err(Error::PrefixWithExplode(at + name.len() - 1));
        }
        Some((name, len)) => {
            // max-length = %x31-39 0*3DIGIT
            let len_at = at + name.len() + 1;
            let digits = len.bytes().all(|b| b.is_ascii_digit());
            if len.is_empty() || len.len() > 4 || !digits || len.starts_with('0') {
                return Err(Error::InvalidPrefix(len_at));
            }
            (name, Some(len.parse().map_err(|_| Error::InvalidPrefix(len_at))?))
        }
        None => (body, None),
    };
    if name.is_empty() {
        return Err(Error::Empty(at));
    }
    // varname = varchar *( ["."] varchar ); varchar = ALPHA / DIGIT / "_" / pct-encoded
    let bytes = name.as_bytes();
    let mut i = 0;
    let mut prev_dot = true;
    while i < bytes.len() {
        let c = bytes[i] as char;
        if c == '%' {
            let ok = bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
            if !ok {
                return Err(Error::InvalidVarName { ch: c, at: at + i });
            }
            i += 3;
            prev_dot = false;
            continue;
        }
        if c == '.' && !prev_dot && i + 1 < bytes.len() {
            prev_dot = true;
        } else if is_varchar(c) {
            prev_dot = false;
        } else {
            let ch = name[i..].chars().next().unwrap_or(c);
            return Err(Error::InvalidVarName { ch, at: at + i });
        }
        i += 1;
    }
    Ok(VarSpec { name: name.to_owned(), prefix, explode })
}
