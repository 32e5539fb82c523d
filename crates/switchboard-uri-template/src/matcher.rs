//! Matching a URI against a template: the inverse of expansion, with the
//! rules in the crate docs.
//!
//! The search is a dynamic programme over (template part, URI position),
//! filled from the last part backwards: `ok[i][p]` says whether parts `i..`
//! can match `uri[p..]`. An expression at `p` then takes the longest capture
//! `p..e` whose characters it allows and for which `ok[i + 1][e]` holds, so
//! the result is the one a backtracking search (longest capture first,
//! earlier expressions first) would find, without its exponential worst
//! case. A forward pass first marks where each part could start at all,
//! so the backward pass looks only there. Per-URI tables (where each character run ends, where each
//! separator next occurs, how many decoded characters precede a position)
//! make testing one capture O(1), so most templates match in
//! O(parts × URI length). Only expressions whose captures have an inner
//! structure (`;`, `?`, `&`, and several variables with prefixes) are
//! checked capture by capture; that work is bounded by [`work_limit`].

use crate::expand::{behaviour, is_reserved, is_unreserved};
use crate::{Op, Part, Value, VarSpec, Variables, percent_decode};

/// "No position" in the `u32` tables.
const NONE: u32 = u32::MAX;

/// The most work (bytes of captures checked one by one) a match may spend
/// before giving up, for a URI of `len` bytes.
fn work_limit(len: usize) -> usize {
    (1 << 20) + 16 * len
}

/// A set of bytes: the ASCII ones listed, plus every non-ASCII byte (IRIs
/// carry UTF-8 unencoded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ByteSet(u128);

/// Unreserved characters and `%` (escapes are checked separately).
const UNRESERVED: ByteSet = {
    let mut set = 1u128 << b'%';
    let mut b = 0;
    while b < 128 {
        if is_unreserved(b) {
            set |= 1 << b;
        }
        b += 1;
    }
    ByteSet(set)
};

/// Unreserved and reserved characters, and `%`.
const UNRESERVED_RESERVED: ByteSet = {
    let mut set = UNRESERVED.0;
    let mut b = 0;
    while b < 128 {
        if is_reserved(b) {
            set |= 1 << b;
        }
        b += 1;
    }
    ByteSet(set)
};

impl ByteSet {
    fn with(self, b: u8) -> ByteSet {
        ByteSet(self.0 | 1 << b)
    }

    fn without(self, b: u8) -> ByteSet {
        ByteSet(self.0 & !(1 << b))
    }

    fn contains(self, b: u8) -> bool {
        b >= 0x80 || self.0 >> b & 1 == 1
    }
}

/// How one expression matches; computed when the template is parsed.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    /// The operator's first character (`#`, `.`, `/`, `;`, `?`, `&`), whose
    /// expressions may also be absent.
    first: Option<u8>,
    /// The characters a capture may contain.
    allowed: ByteSet,
    /// The separator between variables and exploded items.
    sep: u8,
    /// The most separators a capture may contain.
    sep_cap: Option<usize>,
    /// The most decoded characters a capture may contain (`{var:3}`).
    prefix_cap: Option<usize>,
    /// Captures have an inner structure that must be checked one by one.
    structural: bool,
}

/// The plan of each part (`None` for literals).
pub(crate) fn plans(parts: &[Part]) -> Vec<Option<Plan>> {
    parts
        .iter()
        .enumerate()
        .map(|(i, part)| match part {
            Part::Literal(_) => None,
            Part::Expr { op, vars } => Some(plan(parts, i, *op, vars)),
        })
        .collect()
}

fn plan(parts: &[Part], i: usize, op: Op, specs: &[VarSpec]) -> Plan {
    let (first, sep, named, _, _) = behaviour(op);
    let mut allowed = match op {
        Op::Simple | Op::Label => UNRESERVED.with(b','),
        Op::Reserved | Op::Fragment => UNRESERVED_RESERVED,
        Op::Path => UNRESERVED.with(b'/').with(b','),
        Op::PathParam => UNRESERVED.with(b';').with(b'=').with(b','),
        Op::Query | Op::QueryCont => UNRESERVED.with(b'&').with(b'=').with(b','),
    };
    let explode = specs.iter().any(|s| s.explode);
    if explode && !named {
        // `{keys*}` expands to `k=v,k=v`.
        allowed = allowed.with(b'=');
    }
    if op == Op::Path && specs.len() == 1 && !explode {
        // A single path segment: its `/`s would have been encoded.
        allowed = allowed.without(b'/');
    }
    if matches!(op, Op::Reserved | Op::Fragment) {
        // A `{?…}`, `{&…}` or `{#…}` in the run of expressions that follows
        // claims its own introducer.
        for part in &parts[i + 1..] {
            match part {
                Part::Literal(_) => break,
                Part::Expr { op: Op::Query, .. } => allowed = allowed.without(b'?'),
                Part::Expr { op: Op::QueryCont, .. } => allowed = allowed.without(b'&'),
                Part::Expr { op: Op::Fragment, .. } => allowed = allowed.without(b'#'),
                Part::Expr { .. } => {}
            }
        }
    }
    let any_prefix = specs.iter().any(|s| s.prefix.is_some());
    Plan {
        first: first.bytes().next(),
        allowed,
        sep: sep as u8,
        sep_cap: (!named && !explode && specs.len() > 1).then(|| specs.len() - 1),
        prefix_cap: if named || specs.len() > 1 { None } else { specs[0].prefix },
        structural: named || (specs.len() > 1 && any_prefix),
    }
}

/// Facts about the URI, computed once per match.
struct Tables<'a> {
    bytes: &'a [u8],
    /// Where a decoded character starts (and at the end): the only places a
    /// capture or a part may start or end.
    boundary: Vec<bool>,
    /// Bytes no capture may contain: a `%` not followed by two hex digits,
    /// or escapes that do not decode to UTF-8.
    bad: Vec<bool>,
    /// Decoded characters before each position (for prefix modifiers; empty
    /// when no expression has one).
    chars_before: Vec<u32>,
    /// Per allowed set: where the run of allowed bytes from each position ends.
    runs: Vec<(ByteSet, Vec<u32>)>,
    /// Per separator: where it next occurs from each position.
    seps: Vec<(u8, Vec<u32>)>,
}

fn utf8_width(b: u8) -> usize {
    match b {
        0x00..=0x7F => 1,
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => 0,
    }
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

impl<'a> Tables<'a> {
    fn new(uri: &'a str, plans: &[Option<Plan>]) -> Tables<'a> {
        let bytes = uri.as_bytes();
        let n = bytes.len();
        let (boundary, bad) = if bytes.contains(&b'%') {
            Self::decode_units(bytes)
        } else {
            ((0..=n).map(|p| uri.is_char_boundary(p)).collect(), vec![false; n])
        };
        let mut t =
            Tables { bytes, boundary, bad, chars_before: Vec::new(), runs: Vec::new(), seps: Vec::new() };
        for plan in plans.iter().flatten() {
            if !t.runs.iter().any(|(set, _)| *set == plan.allowed) {
                let run = t.run_table(plan.allowed);
                t.runs.push((plan.allowed, run));
            }
            if plan.sep_cap.is_some() && !t.seps.iter().any(|(b, _)| *b == plan.sep) {
                let next = t.sep_table(plan.sep);
                t.seps.push((plan.sep, next));
            }
            if plan.prefix_cap.is_some() && t.chars_before.is_empty() {
                let mut count = 0;
                t.chars_before = std::iter::once(0)
                    .chain(t.boundary[..n].iter().map(|&b| {
                        count += u32::from(b);
                        count
                    }))
                    .collect();
            }
        }
        t
    }

    /// `boundary` and `bad` for a URI with escapes: which positions start a
    /// decoded character, and which bytes belong to no valid one.
    fn decode_units(bytes: &[u8]) -> (Vec<bool>, Vec<bool>) {
        let n = bytes.len();
        let mut boundary = vec![false; n + 1];
        boundary[n] = true;
        let mut bad = vec![false; n];
        // The decoded bytes, each with the position of its unit (a raw byte
        // or a `%XX` triplet).
        let mut decoded = Vec::with_capacity(n);
        let mut origin = Vec::with_capacity(n);
        let mut i = 0;
        while i < n {
            let escape = (bytes[i] == b'%')
                .then(|| Some(hex(*bytes.get(i + 1)?)? << 4 | hex(*bytes.get(i + 2)?)?))
                .flatten();
            origin.push(i);
            match escape {
                Some(b) => {
                    decoded.push(b);
                    i += 3;
                }
                None => {
                    // A stray `%` decodes to nothing valid: 0xFF stands for
                    // it, so no UTF-8 sequence is read across it.
                    decoded.push(if bytes[i] == b'%' { 0xFF } else { bytes[i] });
                    i += 1;
                }
            }
        }
        let mut j = 0;
        while j < decoded.len() {
            let w = utf8_width(decoded[j]);
            boundary[origin[j]] = true;
            if w > 0 && decoded.get(j..j + w).is_some_and(|c| std::str::from_utf8(c).is_ok()) {
                j += w;
            } else {
                bad[origin[j]] = true;
                j += 1;
            }
        }
        (boundary, bad)
    }

    fn run_table(&self, set: ByteSet) -> Vec<u32> {
        let n = self.bytes.len();
        let mut end = vec![n as u32; n + 1];
        for p in (0..n).rev() {
            end[p] = if self.bad[p] || !set.contains(self.bytes[p]) { p as u32 } else { end[p + 1] };
        }
        end
    }

    fn sep_table(&self, sep: u8) -> Vec<u32> {
        let n = self.bytes.len();
        let mut next = vec![n as u32; n + 1];
        for p in (0..n).rev() {
            next[p] = if self.bytes[p] == sep { p as u32 } else { next[p + 1] };
        }
        next
    }

    /// Where the run of `set` bytes from `s` ends.
    fn run_end(&self, set: ByteSet, s: usize) -> usize {
        let (_, run) = self.runs.iter().find(|(x, _)| *x == set).expect("built for every plan");
        run[s] as usize
    }

    /// The position of the `k`-th `sep` at or after `s` (the URI length if
    /// there are fewer).
    fn kth_sep(&self, sep: u8, s: usize, k: usize) -> usize {
        let (_, next) = self.seps.iter().find(|(x, _)| *x == sep).expect("built for every plan");
        let n = self.bytes.len();
        let mut q = next[s] as usize;
        for _ in 1..k {
            if q >= n {
                break;
            }
            q = next[q + 1] as usize;
        }
        q
    }

    /// The furthest end in `s..=hi` with at most `max` decoded characters.
    fn prefix_end(&self, s: usize, hi: usize, max: usize) -> usize {
        let base = self.chars_before[s] as usize;
        let within = self.chars_before[s..=hi].partition_point(|&c| c as usize - base <= max);
        s + within - 1
    }
}

/// How a part matches at a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Choice {
    /// It does not.
    Fail,
    /// A literal, ending here.
    Literal(usize),
    /// An optional expression, absent.
    Absent,
    /// An expression whose capture is `start..end` (after its first
    /// character).
    Present(usize, usize),
}

/// One variable binding from one capture.
#[derive(Debug, Clone)]
struct Binding {
    name: String,
    value: Value,
    /// A prefix-modified value that used its whole length, so it may be the
    /// start of a longer value bound elsewhere.
    partial: bool,
}

/// Variable bindings under construction: value and whether it is partial.
type Bound = Vec<(String, Value, bool)>;

/// Adds a binding, checking it agrees with an earlier one of the same name.
fn merge(bound: &mut Bound, b: Binding) -> Option<()> {
    let Some(slot) = bound.iter_mut().find(|(name, ..)| *name == b.name) else {
        bound.push((b.name, b.value, b.partial));
        return Some(());
    };
    let (_, value, partial) = slot;
    match (&*value, &b.value) {
        (Value::String(old), Value::String(new)) if old == new => {
            *partial &= b.partial;
            Some(())
        }
        // Different strings agree only when the shorter is a prefix-modified
        // value that is the start of the longer; the longer one is kept.
        (Value::String(old), Value::String(new)) if old.len() < new.len() => {
            if !(*partial && new.starts_with(old.as_str())) {
                return None;
            }
            *value = b.value;
            *partial = b.partial;
            Some(())
        }
        (Value::String(old), Value::String(new)) => {
            (b.partial && old.starts_with(new.as_str())).then_some(())
        }
        (old, new) => (old == new).then_some(()),
    }
}

/// Decodes one value, enforcing the spec's prefix modifier.
fn decode_for(spec: &VarSpec, raw: &str) -> Option<(String, bool)> {
    let value = percent_decode(raw)?;
    match spec.prefix {
        Some(max) => {
            let count = value.chars().count();
            (count <= max).then_some((value, count == max))
        }
        None => Some((value, false)),
    }
}

fn single(spec: &VarSpec, raw: &str) -> Option<Binding> {
    let (value, partial) = decode_for(spec, raw)?;
    Some(Binding { name: spec.name.clone(), value: Value::String(value), partial })
}

/// An exploded variable of a `{var*}`, `{+var*}`, `{.var*}` or `{/var*}`
/// expression: a list, or an associative list when its items are `k=v`.
fn exploded(op: Op, spec: &VarSpec, pieces: &[&str]) -> Option<Binding> {
    let value = if !matches!(op, Op::Reserved | Op::Fragment) && pieces.iter().any(|p| p.contains('=')) {
        Value::AssocList(
            pieces
                .iter()
                .map(|p| {
                    let (k, v) = p.split_once('=').unwrap_or((p, ""));
                    Some((percent_decode(k)?, percent_decode(v)?))
                })
                .collect::<Option<_>>()?,
        )
    } else {
        Value::List(pieces.iter().map(|p| percent_decode(p)).collect::<Option<_>>()?)
    };
    Some(Binding { name: spec.name.clone(), value, partial: false })
}

/// Binds the capture of an unnamed expression (simple, `+`, `#`, `.`, `/`).
fn bind_positional(op: Op, specs: &[VarSpec], text: &str) -> Option<Vec<Binding>> {
    let sep = behaviour(op).1;
    if let [spec] = specs
        && !spec.explode
    {
        return Some(vec![single(spec, text)?]);
    }
    let pieces: Vec<&str> = text.split(sep).collect();
    let mut out = Vec::new();
    match specs.iter().position(|s| s.explode) {
        None => {
            if pieces.len() > specs.len() {
                return None;
            }
            for (spec, piece) in specs.iter().zip(&pieces) {
                out.push(single(spec, piece)?);
            }
        }
        Some(x) => {
            // Variables before the exploded one take a piece each, the ones
            // after it take the last pieces, and it takes the rest (at least
            // one); short of pieces, later variables stay undefined.
            let before = x.min(pieces.len());
            for (spec, piece) in specs[..before].iter().zip(&pieces) {
                out.push(single(spec, piece)?);
            }
            if pieces.len() > x {
                let after = (specs.len() - x - 1).min(pieces.len() - x - 1);
                let mid = pieces.len() - after;
                out.push(exploded(op, &specs[x], &pieces[x..mid])?);
                for (spec, piece) in specs[x + 1..].iter().zip(&pieces[mid..]) {
                    if spec.explode {
                        out.push(exploded(op, spec, &[piece])?);
                    } else {
                        out.push(single(spec, piece)?);
                    }
                }
            }
        }
    }
    Some(out)
}

/// Binds the capture of a named expression (`;`, `?`, `&`): `name=value`
/// parameters in any order.
fn bind_named(specs: &[VarSpec], text: &str, sep: char) -> Option<Vec<Binding>> {
    let mut out = Vec::new();
    // Parameters collected by each exploded variable, by spec index.
    let mut collected: Vec<(usize, Vec<(String, String)>)> = Vec::new();
    let catch_all = specs.iter().position(|s| s.explode);
    for param in text.split(sep) {
        let (key, value) = param.split_once('=').unwrap_or((param, ""));
        let key = percent_decode(key)?;
        let owner = specs.iter().position(|s| s.name == key).or(catch_all).filter(|_| !key.is_empty())?;
        let spec = &specs[owner];
        if spec.explode {
            let value = percent_decode(value)?;
            match collected.iter_mut().find(|(i, _)| *i == owner) {
                Some((_, pairs)) => pairs.push((key, value)),
                None => collected.push((owner, vec![(key, value)])),
            }
        } else {
            out.push(single(spec, value)?);
        }
    }
    for (owner, pairs) in collected {
        let spec = &specs[owner];
        let value = if pairs.iter().all(|(k, _)| *k == spec.name) {
            Value::List(pairs.into_iter().map(|(_, v)| v).collect())
        } else {
            Value::AssocList(pairs)
        };
        out.push(Binding { name: spec.name.clone(), value, partial: false });
    }
    Some(out)
}

fn bind(op: Op, specs: &[VarSpec], text: &str) -> Option<Vec<Binding>> {
    let (_, sep, named, ..) = behaviour(op);
    if named { bind_named(specs, text, sep) } else { bind_positional(op, specs, text) }
}

struct Matcher<'a> {
    parts: &'a [Part],
    plans: &'a [Option<Plan>],
    uri: &'a str,
    tables: Tables<'a>,
    work: usize,
    limit: usize,
    /// During the final walk: the bindings of the last capture `holds`
    /// accepted, as (part, start, end, bindings).
    kept: Option<(usize, usize, usize, Vec<Binding>)>,
    keep: bool,
}

impl Matcher<'_> {
    /// Does the capture `s..e` of expression `i` hold together on its own
    /// (known parameter names, prefix lengths, one value per variable)?
    fn holds(&mut self, i: usize, s: usize, e: usize) -> bool {
        self.work += e - s + 1;
        if self.work > self.limit {
            return false;
        }
        let Part::Expr { op, vars } = &self.parts[i] else { return false };
        let Some(bindings) = bind(*op, vars, &self.uri[s..e]) else { return false };
        let mut bound = Bound::new();
        if !bindings.iter().all(|b| merge(&mut bound, b.clone()).is_some()) {
            return false;
        }
        if self.keep {
            self.kept = Some((i, s, e, bindings));
        }
        true
    }

    /// The furthest a capture of expression `i` from `s` may end, if it can
    /// reach `lo`: the run of allowed characters, cut by the separator and
    /// prefix limits. A capture starts and ends between whole characters.
    fn reach(&self, i: usize, s: usize, lo: usize) -> Option<usize> {
        if !self.tables.boundary[s] {
            return None;
        }
        let plan = self.plans[i].as_ref().expect("an expression");
        let mut hi = self.tables.run_end(plan.allowed, s);
        if let Some(cap) = plan.sep_cap {
            hi = hi.min(self.tables.kth_sep(plan.sep, s, cap + 1));
        }
        if hi < lo {
            return None;
        }
        if let Some(max) = plan.prefix_cap {
            hi = self.tables.prefix_end(s, hi, max);
        }
        (hi >= lo).then_some(hi)
    }

    /// The longest capture from `s` (at least to `lo`) that expression `i`
    /// allows and after which the rest matches.
    fn capture(&mut self, i: usize, s: usize, lo: usize, next: Next<'_>) -> Option<usize> {
        let hi = self.reach(i, s, lo)?;
        let structural = self.plans[i].as_ref().is_some_and(|p| p.structural);
        let mut e = next.prev[hi];
        while e != NONE && e as usize >= lo {
            if !structural || self.holds(i, s, e as usize) {
                return Some(e as usize);
            }
            if e == 0 {
                break;
            }
            e = next.prev[e as usize - 1];
        }
        None
    }

    /// How part `i` matches at `pos`, given where part `i + 1` matches.
    fn choose(&mut self, i: usize, pos: usize, next: Next<'_>) -> Choice {
        let bytes = self.tables.bytes;
        match &self.parts[i] {
            Part::Literal(l) => {
                let end = pos + l.len();
                if bytes[pos..].starts_with(l.as_bytes()) && next.ok[end] {
                    Choice::Literal(end)
                } else {
                    Choice::Fail
                }
            }
            Part::Expr { .. } => match self.plans[i].as_ref().and_then(|p| p.first) {
                Some(first) => {
                    if bytes.get(pos) == Some(&first)
                        && let Some(e) = self.capture(i, pos + 1, pos + 1, next)
                    {
                        return Choice::Present(pos + 1, e);
                    }
                    if next.ok[pos] { Choice::Absent } else { Choice::Fail }
                }
                None => match self.capture(i, pos, pos + 1, next) {
                    Some(e) => Choice::Present(pos, e),
                    None => Choice::Fail,
                },
            },
        }
    }

    /// Marks in `next` where part `i + 1` may start, given where part `i`
    /// may (`starts`): a superset of the true answer (captures are not
    /// checked one by one), in one pass. `delta` is scratch space.
    fn forward(&self, i: usize, starts: &[bool], next: &mut [bool], delta: &mut [(i32, i32)]) {
        let bytes = self.tables.bytes;
        delta.fill((0, 0));
        // +1 where each reachable range starts, -1 after it: literal ends
        // and absent expressions, then captures (which end only between
        // whole characters).
        let mut add = |lo: usize, hi: usize, capture: bool| {
            if capture {
                delta[lo].1 += 1;
                delta[hi + 1].1 -= 1;
            } else {
                delta[lo].0 += 1;
                delta[hi + 1].0 -= 1;
            }
        };
        for p in (0..starts.len()).filter(|&p| starts[p]) {
            match &self.parts[i] {
                Part::Literal(l) => {
                    if bytes[p..].starts_with(l.as_bytes()) {
                        add(p + l.len(), p + l.len(), false);
                    }
                }
                Part::Expr { .. } => match self.plans[i].as_ref().and_then(|p| p.first) {
                    Some(first) => {
                        add(p, p, false);
                        if bytes.get(p) == Some(&first)
                            && let Some(hi) = self.reach(i, p + 1, p + 1)
                        {
                            add(p + 1, hi, true);
                        }
                    }
                    None => {
                        if let Some(hi) = self.reach(i, p, p + 1) {
                            add(p + 1, hi, true);
                        }
                    }
                },
            }
        }
        let (mut any, mut captured) = (0, 0);
        for (e, slot) in next.iter_mut().enumerate() {
            any += delta[e].0;
            captured += delta[e].1;
            *slot = any > 0 || (captured > 0 && self.tables.boundary[e]);
        }
    }
}

/// Where the next part matches: `ok[p]`, and `prev[x]`, the last `p <= x`
/// where it does and a capture may end (between whole characters).
#[derive(Clone, Copy)]
struct Next<'a> {
    ok: &'a [bool],
    prev: &'a [u32],
}

pub(crate) fn matches(parts: &[Part], plans: &[Option<Plan>], uri: &str) -> Option<Variables> {
    // Leading and trailing literals are matched here, cheaply (a router
    // tries many templates per URI); the search sees only what is between.
    let (mut first, mut last) = (0, parts.len());
    let (mut start, mut end) = (0, uri.len());
    if let Some(Part::Literal(l)) = parts.first() {
        if !uri.starts_with(l.as_str()) {
            return None;
        }
        (first, start) = (1, l.len());
    }
    if let Some(Part::Literal(l)) = parts.last().filter(|_| last > first) {
        if !uri[start..].ends_with(l.as_str()) {
            return None;
        }
        (last, end) = (last - 1, end - l.len());
    }
    if first == last {
        return (start == end).then(Variables::new);
    }
    if last == first + 1 {
        return whole(&parts[first], plans[first].as_ref()?, &uri[start..end]);
    }
    search(&parts[first..last], &plans[first..last], &uri[start..end])
}

/// One expression that must capture all of `uri`: no search needed. (The
/// same answer as [`search`]: decoding fails exactly where `bad` is set,
/// and `bind` checks prefix lengths.)
fn whole(part: &Part, plan: &Plan, uri: &str) -> Option<Variables> {
    let Part::Expr { op, vars } = part else { return None };
    let body = match plan.first {
        Some(_) if uri.is_empty() => return Some(Variables::new()),
        Some(first) => uri.strip_prefix(first as char)?,
        None if uri.is_empty() => return None,
        None => uri,
    };
    if !body.bytes().all(|b| plan.allowed.contains(b)) {
        return None;
    }
    if plan.sep_cap.is_some_and(|cap| body.bytes().filter(|&b| b == plan.sep).count() > cap) {
        return None;
    }
    let mut bound = Bound::new();
    for b in bind(*op, vars, body)? {
        merge(&mut bound, b)?;
    }
    Some(bound.into_iter().map(|(name, value, _)| (name, value)).collect())
}

fn search(parts: &[Part], plans: &[Option<Plan>], uri: &str) -> Option<Variables> {
    let n = uri.len();
    if n >= NONE as usize {
        return None;
    }
    let tables = Tables::new(uri, plans);
    let mut m = Matcher { parts, plans, uri, tables, work: 0, limit: work_limit(n), kept: None, keep: false };
    // Tables of n + 1 positions, one per part and one for the end.
    let w = n + 1;
    let count = parts.len();

    // Forwards: where each part may start (a superset). Most URIs that do
    // not fit stop here, and the backward pass only looks at these places.
    let mut ok = vec![false; (count + 1) * w];
    ok[0] = true;
    let mut delta = vec![(0, 0); w + 1];
    for i in 0..count {
        let (done, rest) = ok.split_at_mut((i + 1) * w);
        m.forward(i, &done[i * w..], &mut rest[..w], &mut delta);
    }
    if !ok[count * w + n] {
        return None;
    }

    // Backwards: row i of `ok` becomes where parts i.. match the rest of
    // the URI (a subset of where part i may start), and row i of `prev`
    // where they last did, at a character boundary, before each position.
    let mut prev = vec![NONE; (count + 1) * w];
    ok[count * w..].iter_mut().enumerate().for_each(|(p, ok)| *ok = p == n);
    prev[count * w + n] = n as u32;
    for i in (0..count).rev() {
        let (ok_cur, ok_next) = ok.split_at_mut((i + 1) * w);
        let (prev_cur, prev_next) = prev.split_at_mut((i + 1) * w);
        let next = Next { ok: &ok_next[..w], prev: &prev_next[..w] };
        let mut last = NONE;
        let mut any = false;
        for (p, ok) in ok_cur[i * w..].iter_mut().enumerate() {
            *ok = *ok && m.choose(i, p, next) != Choice::Fail;
            any |= *ok;
            if *ok && m.tables.boundary[p] {
                last = p as u32;
            }
            prev_cur[i * w + p] = last;
        }
        if m.work > m.limit || !any {
            return None;
        }
    }
    if !ok[0] {
        return None;
    }

    // Walk the matching path forwards, binding as we go.
    m.limit = usize::MAX;
    m.keep = true;
    let mut bound = Bound::new();
    let mut pos = 0;
    for i in 0..count {
        let next = Next { ok: &ok[(i + 1) * w..(i + 2) * w], prev: &prev[(i + 1) * w..(i + 2) * w] };
        match m.choose(i, pos, next) {
            Choice::Fail => return None,
            Choice::Literal(end) => pos = end,
            Choice::Absent => {}
            Choice::Present(s, e) => {
                let bindings = match m.kept.take() {
                    Some((j, s2, e2, bindings)) if (j, s2, e2) == (i, s, e) => bindings,
                    _ => {
                        let Part::Expr { op, vars } = &parts[i] else { return None };
                        bind(*op, vars, &uri[s..e])?
                    }
                };
                for b in bindings {
                    merge(&mut bound, b)?;
                }
                pos = e;
            }
        }
    }
    (pos == n).then(|| bound.into_iter().map(|(name, value, _)| (name, value)).collect())
}

#[cfg(test)]
#[path = "matcher_tests.rs"]
mod tests;
