//! Unit tests of the matcher, including the differential test against an
//! exhaustive backtracking reference.
//! The dynamic programme against an exhaustive backtracking search that
//! follows the same rules.

use super::*;
use proptest::prelude::*;

/// Every split, longest capture first, present before absent.
fn reference(t: &Tables<'_>, parts: &[Part], plans: &[Option<Plan>], i: usize, pos: usize) -> Option<Bound> {
    let n = t.bytes.len();
    let uri = std::str::from_utf8(t.bytes).expect("a str");
    let Some(part) = parts.get(i) else { return (pos == n).then(Bound::new) };
    let plan = match part {
        Part::Literal(l) => {
            return if t.bytes[pos..].starts_with(l.as_bytes()) {
                reference(t, parts, plans, i + 1, pos + l.len())
            } else {
                None
            };
        }
        Part::Expr { .. } => plans[i].as_ref().expect("a plan"),
    };
    let Part::Expr { op, vars } = part else { unreachable!() };
    let try_captures = |s: usize, lo: usize| -> Option<Bound> {
        if !t.boundary[s] {
            return None;
        }
        for e in (lo..=n).rev() {
            let text = &t.bytes[s..e];
            let fits = t.boundary[e]
                && text.iter().all(|&b| plan.allowed.contains(b))
                && plan.sep_cap.is_none_or(|cap| text.iter().filter(|&&b| b == plan.sep).count() <= cap);
            if !fits {
                continue;
            }
            let Some(bindings) = bind(*op, vars, &uri[s..e]) else { continue };
            let mut bound = Bound::new();
            if !bindings.into_iter().all(|b| merge(&mut bound, b).is_some()) {
                continue;
            }
            if let Some(rest) = reference(t, parts, plans, i + 1, e) {
                for (name, value, partial) in rest {
                    let b = Binding { name, value, partial };
                    merge(&mut bound, b)?;
                }
                return Some(bound);
            }
        }
        None
    };
    match plan.first {
        Some(first) => {
            if t.bytes.get(pos) == Some(&first)
                && let Some(bound) = try_captures(pos + 1, pos + 1)
            {
                return Some(bound);
            }
            reference(t, parts, plans, i + 1, pos)
        }
        None => try_captures(pos, pos + 1),
    }
}

const PIECES: &[&str] = &[
    "a", "/", ".", "-", "%41", "x/", "%C3", "%A9", "{a}", "{+b}", "{#c}", "{.d}", "{/e}", "{;f}", "{?g}",
    "{&h}", "{i*}", "{/j*}", "{k:2}", "{l,m}", "{/n,o}", "{?p,q*}", "{+r:3}", "{.s*}", "{;t*}", "{+u,v}",
    "{/w:1,y}",
];
const TOKENS: &[&str] = &[
    "a", "b", "/", ".", "-", "=", "&", "?", "#", ";", ",", "%41", "%2F", "%", "é", "%C3%A9", "%C3", "%A9",
    "1", "g", "h", "q", "t",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

    #[test]
    fn search_agrees_with_exhaustive_backtracking(
        picks in prop::collection::vec(0..PIECES.len(), 1..5),
        tokens in prop::collection::vec(0..TOKENS.len(), 0..9),
        values in prop::collection::vec((any::<bool>(), prop::collection::vec(0..TOKENS.len(), 0..3)), 8),
        expand in any::<bool>(),
    ) {
        let template: String = picks.iter().map(|&i| PIECES[i]).collect();
        let mut exprs: Vec<usize> = picks.iter().copied().filter(|&i| PIECES[i].starts_with('{')).collect();
        exprs.sort_unstable();
        exprs.dedup();
        // Repeated variables are checked only after the search.
        prop_assume!(exprs.len() == picks.iter().filter(|&&i| PIECES[i].starts_with('{')).count());
        let parts = crate::parse::parse(&template).expect("parses");
        let uri: String = if expand {
            // Half the URIs are expansions of the template, so match.
            let mut vars = Variables::new();
            let names = parts.iter().flat_map(|p| match p {
                Part::Expr { vars, .. } => vars.iter().map(|v| v.name.clone()).collect(),
                Part::Literal(_) => Vec::new(),
            });
            for (name, (is_list, value)) in names.zip(&values) {
                let items: Vec<String> = value.iter().map(|&i| TOKENS[i].to_owned()).collect();
                let value = if *is_list { Value::List(items) } else { Value::String(items.concat()) };
                vars.insert(name, value);
            }
            crate::expand::expand(&parts, &vars)
        } else {
            tokens.iter().map(|&i| TOKENS[i]).collect()
        };
        let parts = crate::parse::parse(&template).expect("parses");
        let plans = plans(&parts);
        let tables = Tables::new(&uri, &plans);
        let expected = reference(&tables, &parts, &plans, 0, 0)
            .map(|bound| bound.into_iter().map(|(name, value, _)| (name, value)).collect::<Variables>());
        prop_assert_eq!(matches(&parts, &plans, &uri), expected.clone(), "{} ~ {}", template, uri);
        prop_assert_eq!(search(&parts, &plans, &uri), expected, "search: {} ~ {}", template, uri);
    }
}
