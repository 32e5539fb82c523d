//! RFC 6570 vectors (expansion), matching cases, parse errors, and the
//! expand/match round trip.

use mcp_uri_template::{Error, UriTemplate, Value, Variables};
use proptest::prelude::*;
use serde_json::Value as Json;

fn rfc_variables(json: &Json) -> Variables {
    let mut vars = Variables::new();
    for (name, v) in json.as_object().unwrap() {
        let value = match v {
            Json::Null => continue,
            Json::String(s) => Value::String(s.clone()),
            Json::Array(items) => Value::List(items.iter().map(|i| i.as_str().unwrap().to_owned()).collect()),
            Json::Object(o) => Value::AssocList(
                o["assoc"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| (p[0].as_str().unwrap().to_owned(), p[1].as_str().unwrap().to_owned()))
                    .collect(),
            ),
            other => panic!("unexpected variable {other}"),
        };
        vars.insert(name.clone(), value);
    }
    vars
}

#[test]
fn expands_every_rfc_example() {
    let fixture: Json = serde_json::from_str(include_str!("fixtures/rfc6570.json")).unwrap();
    let vars = rfc_variables(&fixture["variables"]);
    let cases = fixture["cases"].as_array().unwrap();
    assert!(cases.len() > 100);
    let mut failures = Vec::new();
    for case in cases {
        let (template, expected) = (case[0].as_str().unwrap(), case[1].as_str().unwrap());
        let got = UriTemplate::parse(template).unwrap_or_else(|e| panic!("{template}: {e}")).expand(&vars);
        if got != expected {
            failures.push(format!("{template}: expected {expected:?}, got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn s(v: &str) -> Value {
    Value::from(v)
}

fn list(v: &[&str]) -> Value {
    Value::List(v.iter().map(|s| (*s).to_owned()).collect())
}

#[test]
fn matches_mcp_templates() {
    let t = UriTemplate::parse("file:///{+path}").unwrap();
    assert_eq!(t.matches("file:///src/main.rs").unwrap()["path"], s("src/main.rs"));
    assert_eq!(t.matches("file:///a%20b/c.txt").unwrap()["path"], s("a b/c.txt"));
    assert!(t.matches("file:///").is_none(), "{{+path}} needs a value");
    assert!(t.matches("http://x/y").is_none());

    let t = UriTemplate::parse("test://template/{id}/data").unwrap();
    assert_eq!(t.matches("test://template/123/data").unwrap()["id"], s("123"));
    assert!(t.matches("test://template/1/2/data").is_none(), "{{id}} does not span '/'");
    assert!(t.matches("test://template//data").is_none());
    assert!(t.matches("test://template/123/datax").is_none());

    let t = UriTemplate::parse("git://{repo}/commit/{sha}").unwrap();
    let v = t.matches("git://mcpd/commit/abc123").unwrap();
    assert_eq!((v["repo"].clone(), v["sha"].clone()), (s("mcpd"), s("abc123")));

    let t = UriTemplate::parse("users{/id}{?fields*}").unwrap();
    let v = t.matches("users/42?fields=name&fields=email").unwrap();
    assert_eq!(v["id"], s("42"));
    assert_eq!(v["fields"], list(&["name", "email"]));
    let v = t.matches("users").unwrap();
    assert!(v.is_empty(), "optional expressions may be absent");
    let v = t.matches("users/7?a=1&b=2").unwrap();
    assert_eq!(v["fields"], Value::AssocList(vec![("a".into(), "1".into()), ("b".into(), "2".into())]));

    let t = UriTemplate::parse("search{?q,lang}").unwrap();
    let v = t.matches("search?lang=en&q=hello%20world").unwrap();
    assert_eq!((v["q"].clone(), v["lang"].clone()), (s("hello world"), s("en")));
    assert!(t.matches("search?q=x&other=1").is_none(), "unknown query parameters do not match");

    let t = UriTemplate::parse("{/segments*}").unwrap();
    assert_eq!(t.matches("/a/b/c").unwrap()["segments"], list(&["a", "b", "c"]));

    let t = UriTemplate::parse("docs/{name}.{ext}").unwrap();
    let v = t.matches("docs/readme.md").unwrap();
    assert_eq!((v["name"].clone(), v["ext"].clone()), (s("readme"), s("md")));
    // `{name}` may contain '.', and the longest capture wins, so an optional
    // `{.ext}` right after it stays undefined.
    let t = UriTemplate::parse("docs/{name}{.ext}").unwrap();
    let v = t.matches("docs/readme.md").unwrap();
    assert_eq!(v["name"], s("readme.md"));
    assert!(!v.contains_key("ext"));

    let t = UriTemplate::parse("map{;x,y}").unwrap();
    let v = t.matches("map;y=768;x=1024").unwrap();
    assert_eq!((v["x"].clone(), v["y"].clone()), (s("1024"), s("768")));

    let t = UriTemplate::parse("page{#section}").unwrap();
    assert_eq!(t.matches("page#intro/part").unwrap()["section"], s("intro/part"));

    let t = UriTemplate::parse("a{x}{y}b").unwrap();
    let v = t.matches("a123b").unwrap();
    assert_eq!(
        (v["x"].clone(), v["y"].clone()),
        (s("12"), s("3")),
        "longest first, leaving the rest a character"
    );

    let literal = UriTemplate::parse("test://static").unwrap();
    assert!(literal.is_literal());
    assert!(literal.matches("test://static").unwrap().is_empty());
    assert!(literal.matches("test://static2").is_none());
}

#[test]
fn non_ascii_uris_never_split_a_character() {
    // Found by `matching_never_panics`: a capture end inside a multi-byte character.
    let uri = "a\u{74ef1}\tѨT\t.{ =?\u{1ed36}";
    for template in ["{a}{b}", "a{x:3}b", "{.a,b}", "file:///{+path}"] {
        let _ = UriTemplate::parse(template).unwrap().matches(uri);
    }
    let t = UriTemplate::parse("app://{name}/x").unwrap();
    assert_eq!(t.matches("app://héllo/x").unwrap()["name"], s("héllo"));
}

#[test]
fn long_uris_match_promptly_and_correctly() {
    let long = "x".repeat(100_000);
    let t = UriTemplate::parse("file:///{+path}").unwrap();
    assert_eq!(t.matches(&format!("file:///{long}")).unwrap()["path"], s(&long));
    let t = UriTemplate::parse("{a}{b}{c}{d}z").unwrap();
    assert!(t.matches(&long).is_none(), "no z: fails within the step budget");
    // Each backtracking step is constant work: values are bound only after
    // the whole template matched (a 100 KB run of '/' once took seconds here).
    let slashes = "/".repeat(100_000);
    assert!(UriTemplate::parse("{+a}{b}").unwrap().matches(&slashes).is_none());
    assert!(UriTemplate::parse("{+a}{+b}{+c}z").unwrap().matches(&long).is_none());
    let t = UriTemplate::parse("{+a}{b}").unwrap();
    let v = t.matches(&format!("{slashes}x")).unwrap();
    assert_eq!(v["b"], s("x"));
}

#[test]
fn reports_parse_errors_with_positions() {
    assert_eq!(UriTemplate::parse("a{b").unwrap_err(), Error::Unclosed(1));
    assert_eq!(UriTemplate::parse("a}b").unwrap_err(), Error::UnexpectedClose(1));
    assert!(matches!(UriTemplate::parse("{}").unwrap_err(), Error::Empty(_)));
    assert!(matches!(UriTemplate::parse("{=x}").unwrap_err(), Error::ReservedOperator { op: '=', .. }));
    assert!(matches!(UriTemplate::parse("{a b}").unwrap_err(), Error::InvalidVarName { .. }));
    assert!(matches!(UriTemplate::parse("{x:0}").unwrap_err(), Error::InvalidPrefix(_)));
    assert!(matches!(UriTemplate::parse("{x:10000}").unwrap_err(), Error::InvalidPrefix(_)));
    assert!(matches!(UriTemplate::parse("{x:01}").unwrap_err(), Error::InvalidPrefix(_)), "no leading zero");
    assert!(matches!(UriTemplate::parse("a b{x}").unwrap_err(), Error::InvalidLiteral { .. }));
    assert!(UriTemplate::parse("{x.y,%41}").is_ok());
    let t = UriTemplate::parse("{a}/{+b}{?a,c}").unwrap();
    assert_eq!(t.variables().collect::<Vec<_>>(), ["a", "b", "c"]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn simple_values_round_trip(a in "[a-zA-Z0-9 %/éü-]{1,20}", b in "[a-z0-9._~-]{1,10}") {
        let t = UriTemplate::parse("app://x/{a}/y{?b}").unwrap();
        let mut vars = Variables::new();
        vars.insert("a".into(), Value::from(a.as_str()));
        vars.insert("b".into(), Value::from(b.as_str()));
        prop_assert_eq!(t.matches(&t.expand(&vars)), Some(vars));
    }

    #[test]
    fn reserved_paths_round_trip(p in "[a-z0-9/._-]{1,40}") {
        let t = UriTemplate::parse("file:///{+path}").unwrap();
        let mut vars = Variables::new();
        vars.insert("path".into(), Value::from(p.as_str()));
        prop_assert_eq!(t.matches(&t.expand(&vars)), Some(vars));
    }

    #[test]
    fn exploded_segments_round_trip(segs in prop::collection::vec("[a-z0-9]{1,6}", 1..6)) {
        let t = UriTemplate::parse("app:{/segs*}").unwrap();
        let mut vars = Variables::new();
        vars.insert("segs".into(), Value::List(segs.clone()));
        prop_assert_eq!(t.matches(&t.expand(&vars)), Some(vars));
    }

    #[test]
    fn matching_never_panics(uri in ".{0,64}", template in prop::sample::select(vec![
        "file:///{+path}", "{a}{b}", "x{/p*}{?q*}", "{;a,b*}", "{#f}", "{.a,b}", "a{x:3}b",
    ])) {
        let _ = UriTemplate::parse(template).unwrap().matches(&uri);
    }

    #[test]
    fn parsing_and_expanding_never_panic(template in "[{}a-z+#./;?&*:0-9,é -]{0,40}", value in ".{0,12}") {
        if let Ok(t) = UriTemplate::parse(&template) {
            let mut vars = Variables::new();
            for name in t.variables().map(str::to_owned).collect::<Vec<_>>() {
                vars.insert(name, Value::from(value.as_str()));
            }
            let expanded = t.expand(&vars);
            let _ = t.matches(&expanded);
        }
    }
}
