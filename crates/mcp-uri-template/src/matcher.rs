//! Matching a URI against a template (the inverse of expansion, with the
//! rules in the crate docs).

use crate::expand::{behaviour, is_reserved, is_unreserved};
use crate::{Op, Part, Value, VarSpec, Variables, percent_decode as decode};

/// Upper bound on backtracking steps, so no input costs more than this.
const STEP_BUDGET: usize = 100_000;

fn allowed(op: Op, b: u8) -> bool {
    if is_unreserved(b) || b == b'%' || b >= 0x80 {
        return true;
    }
    match op {
        Op::Simple => b == b',',
        Op::Reserved | Op::Fragment => is_reserved(b),
        Op::Label => b == b'.',
        Op::Path => b == b'/' || b == b',',
        Op::PathParam => matches!(b, b';' | b'=' | b','),
        Op::Query | Op::QueryCont => matches!(b, b'&' | b'=' | b','),
    }
}

/// Binds the text an expression captured (without its first character) to
/// its variables.
fn bind(op: Op, specs: &[VarSpec], text: &str, vars: &mut Variables) -> Option<()> {
    let (_, sep, named, ..) = behaviour(op);
    if named {
        return bind_named(specs, text, sep, vars);
    }
    if specs.len() == 1 {
        let spec = &specs[0];
        let value = if spec.explode {
            Value::List(text.split(sep).map(decode).collect::<Option<Vec<_>>>()?)
        } else {
            Value::String(decode(text)?)
        };
        vars.insert(spec.name.clone(), value);
        return Some(());
    }
    let mut pieces = text.split(sep).collect::<Vec<_>>().into_iter();
    for (i, spec) in specs.iter().enumerate() {
        if spec.explode {
            let rest: Vec<String> = pieces.by_ref().map(decode).collect::<Option<_>>()?;
            if !rest.is_empty() {
                vars.insert(spec.name.clone(), Value::List(rest));
            }
            return (i + 1 == specs.len()).then_some(());
        }
        match pieces.next() {
            Some(p) => {
                vars.insert(spec.name.clone(), Value::String(decode(p)?));
            }
            None => return Some(()),
        }
    }
    pieces.next().is_none().then_some(())
}

fn bind_named(specs: &[VarSpec], text: &str, sep: char, vars: &mut Variables) -> Option<()> {
    let exploded = specs.iter().find(|s| s.explode);
    let mut assoc: Vec<(String, String)> = Vec::new();
    let mut lists: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for param in text.split(sep) {
        let (key, value) = param.split_once('=').unwrap_or((param, ""));
        let key = decode(key)?;
        let value = decode(value)?;
        match specs.iter().find(|s| s.name == key) {
            Some(spec) if spec.explode => lists.entry(key).or_default().push(value),
            Some(_) => {
                vars.insert(key, Value::String(value));
            }
            None => match exploded {
                Some(_) => assoc.push((key, value)),
                None => return None,
            },
        }
    }
    if let Some(spec) = exploded {
        if !assoc.is_empty() {
            vars.insert(spec.name.clone(), Value::AssocList(assoc));
        } else if let Some(list) = lists.remove(&spec.name) {
            vars.insert(spec.name.clone(), Value::List(list));
        }
    }
    Some(())
}

/// Finds where each expression's text lies (positions only; values are
/// bound once the whole template matched, so each backtracking step is
/// constant work). Failed (part, position) pairs are remembered, and the
/// total number of steps is capped.
struct Matcher<'a> {
    parts: &'a [Part],
    uri: &'a str,
    steps: usize,
    failed: std::collections::HashSet<(usize, usize)>,
    /// For each expression on the successful path: the span of its text
    /// (after its first character), or `None` when it is absent.
    spans: Vec<Option<(usize, usize)>>,
}

impl Matcher<'_> {
    fn run(&mut self, i: usize, pos: usize) -> bool {
        self.steps += 1;
        if self.steps > STEP_BUDGET || self.failed.contains(&(i, pos)) {
            return false;
        }
        let ok = self.try_part(i, pos);
        if !ok {
            self.failed.insert((i, pos));
        }
        ok
    }

    fn try_part(&mut self, i: usize, pos: usize) -> bool {
        let Some(part) = self.parts.get(i) else { return pos == self.uri.len() };
        match part {
            Part::Literal(l) => self.uri[pos..].starts_with(l.as_str()) && self.run(i + 1, pos + l.len()),
            Part::Expr { op, .. } => {
                let op = *op;
                let (first, ..) = behaviour(op);
                let optional = !matches!(op, Op::Simple | Op::Reserved);
                if first.is_empty() || self.uri[pos..].starts_with(first) {
                    let body_start = pos + first.len();
                    let bytes = self.uri.as_bytes();
                    // A following `{?…}`, `{&…}` or `{#…}` claims its own
                    // introducer, even where this capture could contain it.
                    let stop = match self.parts.get(i + 1) {
                        Some(Part::Expr { op: Op::Query, .. }) => Some(b'?'),
                        Some(Part::Expr { op: Op::QueryCont, .. }) => Some(b'&'),
                        Some(Part::Expr { op: Op::Fragment, .. }) => Some(b'#'),
                        _ => None,
                    };
                    let mut end = body_start;
                    while end < bytes.len() && allowed(op, bytes[end]) && Some(bytes[end]) != stop {
                        end += 1;
                    }
                    // Where a literal follows, only the places it occurs can end the capture.
                    let next_literal = match self.parts.get(i + 1) {
                        Some(Part::Literal(l)) => Some(l.as_str()),
                        _ => None,
                    };
                    let min = if first.is_empty() { body_start + 1 } else { body_start };
                    let mut e = end;
                    while e >= min && self.steps <= STEP_BUDGET {
                        self.steps += 1;
                        // Only whole characters: a capture never ends inside one.
                        let fits = self.uri.is_char_boundary(e)
                            && next_literal.is_none_or(|l| self.uri[e..].starts_with(l));
                        if fits && self.run(i + 1, e) {
                            self.spans[i] = Some((body_start, e));
                            return true;
                        }
                        if e == 0 {
                            break;
                        }
                        e -= 1;
                    }
                }
                // An expression with a prefix character may be absent.
                if optional && self.run(i + 1, pos) {
                    self.spans[i] = None;
                    return true;
                }
                false
            }
        }
    }
}

pub(crate) fn matches(parts: &[Part], uri: &str) -> Option<Variables> {
    let mut m = Matcher {
        parts,
        uri,
        steps: 0,
        failed: std::collections::HashSet::new(),
        spans: vec![None; parts.len()],
    };
    if !m.run(0, 0) {
        return None;
    }
    let mut vars = Variables::new();
    for (part, span) in parts.iter().zip(&m.spans) {
        if let (Part::Expr { op, vars: specs }, Some((start, end))) = (part, span) {
            bind(*op, specs, &uri[*start..*end], &mut vars)?;
        }
    }
    Some(vars)
}
