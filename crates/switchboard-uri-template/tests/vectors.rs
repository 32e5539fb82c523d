//! RFC 6570 vectors (expansion), matching vectors, parse errors, long
//! URIs, and the expand/match round trip.

use proptest::prelude::*;
use serde_json::Value as Json;
use switchboard_uri_template::{Error, UriTemplate, Value, Variables};

fn fixture() -> Json {
    serde_json::from_str(include_str!("fixtures/rfc6570.json")).expect("valid fixture")
}

fn rfc_variables(json: &Json) -> Variables {
    let text = |v: &Json| v.as_str().expect("a string").to_owned();
    let mut vars = Variables::new();
    for (name, v) in json.as_object().expect("an object") {
        let value = match v {
            Json::Null => continue,
            Json::String(s) => Value::String(s.clone()),
            Json::Array(items) => Value::List(items.iter().map(text).collect()),
            Json::Object(o) => Value::AssocList(
                o["assoc"].as_array().expect("pairs").iter().map(|p| (text(&p[0]), text(&p[1]))).collect(),
            ),
            other => panic!("unexpected variable {other}"),
        };
        vars.insert(name.clone(), value);
    }
    vars
}

/// Every (section, template, expansion) of the fixture.
fn rfc_cases(fixture: &Json) -> Vec<(String, String, String)> {
    let mut cases = Vec::new();
    for section in fixture["sections"].as_array().expect("sections") {
        let name = section["section"].as_str().expect("a section number");
        for case in section["cases"].as_array().expect("cases") {
            let (t, e) = (case[0].as_str().expect("template"), case[1].as_str().expect("expansion"));
            cases.push((name.to_owned(), t.to_owned(), e.to_owned()));
        }
    }
    cases
}

#[test]
fn expands_every_rfc_example() {
    let fixture = fixture();
    let vars = rfc_variables(&fixture["variables"]);
    let cases = rfc_cases(&fixture);
    assert_eq!(cases.len(), 180, "sections 1.2 and 3.2.1 to 3.2.9");
    let mut failures = Vec::new();
    for (section, template, expected) in &cases {
        let t = UriTemplate::parse(template).unwrap_or_else(|e| panic!("§{section} {template}: {e}"));
        let got = t.expand(&vars);
        if got != *expected {
            failures.push(format!("§{section} {template}: expected {expected:?}, got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Matching every RFC expansion against its template and expanding the
/// result gives the same URI back, except where the expansion has lost
/// what the matcher would need.
#[test]
fn rfc_expansions_match_back() {
    // Undefined and empty variables expand alike, and `{var}` needs a character.
    let no_match = ["O{empty}X", "O{undef}X", "O{+empty}X", "O{+undef}X"];
    // A list or associative list expanded without `*` comes back as one
    // string (its commas no longer mark items), which expands with `%2C`;
    // and in `X{.keys*}` the `dot` value is itself a `.`.
    let ambiguous = [
        "{list}",
        "{keys}",
        "{count}",
        "X{.list}",
        "X{.keys}",
        "X{.keys*}",
        "{/list}",
        "{/keys}",
        "{/count}",
        "{;list}",
        "{;keys}",
        "{;count}",
        "{?list}",
        "{?keys}",
        "{?count}",
        "{&list}",
        "{&keys}",
    ];
    let fixture = fixture();
    let vars = rfc_variables(&fixture["variables"]);
    let mut failures = Vec::new();
    let mut checked = 0;
    for (section, template, uri) in rfc_cases(&fixture) {
        let t = UriTemplate::parse(&template).expect("parses");
        if ambiguous.contains(&template.as_str()) {
            assert!(t.matches(&uri).is_some(), "§{section} {template} matches {uri}");
            continue;
        }
        let back = t.matches(&uri).map(|v| t.expand(&v));
        let expected_back = if no_match.contains(&template.as_str()) { None } else { Some(uri.clone()) };
        checked += 1;
        if back != expected_back {
            failures.push(format!("§{section} {template}: {uri:?} came back as {back:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(checked, 150, "every vector but the ambiguous ones (30, counting repeats)");
    // Spot checks of what the matcher binds.
    let t = UriTemplate::parse("{/list*,path:4}").expect("parses");
    let v = t.matches("/red/green/blue/%2Ffoo").expect("matches");
    assert_eq!(v["list"], vars["list"]);
    assert_eq!(v["path"], s("/foo"));
    let t = UriTemplate::parse("{;keys*}").expect("parses");
    assert_eq!(t.matches(";semi=%3B;dot=.;comma=%2C").expect("matches")["keys"], vars["keys"]);
}

/// More expansion cases: prefixes in characters, pct-encoded triplets
/// kept whole, empty associative lists.
#[test]
fn expansion_details() {
    let mut vars = Variables::new();
    vars.insert("pct".into(), s("%20ab"));
    vars.insert("uni".into(), s("héllo wörld"));
    vars.insert("empty_keys".into(), Value::AssocList(Vec::new()));
    vars.insert("empty_list".into(), Value::List(Vec::new()));
    vars.insert("emoji".into(), s("😀x"));
    vars.insert("odd".into(), s("%zz%4"));
    vars.insert("pairs".into(), Value::AssocList(vec![("a b".into(), "".into()), ("c".into(), "d".into())]));
    let cases = [
        ("{+pct:2}", "%20a"),
        ("{#pct:1}", "#%20"),
        ("{pct:2}", "%252"),
        ("{uni:2}", "h%C3%A9"),
        ("{+uni}", "h%C3%A9llo%20w%C3%B6rld"),
        ("{emoji:1}", "%F0%9F%98%80"),
        ("{+odd}", "%25zz%254"),
        ("X{empty_keys}", "X"),
        ("X{?empty_keys*}", "X"),
        ("X{/empty_list*}", "X"),
        ("{?pairs*}", "?a%20b=&c=d"),
        ("{;pairs*}", ";a%20b;c=d"),
        ("{pairs*}", "a%20b=,c=d"),
        ("", ""),
        ("plain", "plain"),
        ("100%25{?nothing}", "100%25"),
    ];
    for (template, expected) in cases {
        assert_eq!(UriTemplate::parse(template).expect("parses").expand(&vars), expected, "{template}");
    }
}

fn s(v: &str) -> Value {
    Value::from(v)
}

fn list(v: &[&str]) -> Value {
    Value::List(v.iter().map(|s| (*s).to_owned()).collect())
}

fn assoc(v: &[(&str, &str)]) -> Value {
    Value::AssocList(v.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect())
}

fn vars(v: &[(&str, Value)]) -> Variables {
    v.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect()
}

/// (template, URI, what it binds or `None` when it must not match).
fn matching_vectors() -> Vec<(&'static str, String, Option<Variables>)> {
    let v = |pairs: &[(&str, Value)]| Some(vars(pairs));
    let cases: Vec<(&str, &str, Option<Variables>)> = vec![
        // MCP: file paths.
        ("file:///{+path}", "file:///src/main.rs", v(&[("path", s("src/main.rs"))])),
        ("file:///{+path}", "file:///a%20b/c.txt", v(&[("path", s("a b/c.txt"))])),
        ("file:///{+path}", "file:///dir/", v(&[("path", s("dir/"))])),
        ("file:///{+path}", "file:///a?b#c", v(&[("path", s("a?b#c"))])),
        ("file:///{+path}", "file:///", None),
        ("file:///{+path}", "http://x/y", None),
        ("file:///{+path}", "file:///a b", None),
        ("file:///{+path}", "file:///50%", None),
        // MCP: the test server's templates.
        ("test://template/{id}/data", "test://template/123/data", v(&[("id", s("123"))])),
        ("test://template/{id}/data", "test://template/hello%20world/data", v(&[("id", s("hello world"))])),
        ("test://template/{id}/data", "test://template/a%2Fb/data", v(&[("id", s("a/b"))])),
        ("test://template/{id}/data", "test://template/1/2/data", None),
        ("test://template/{id}/data", "test://template//data", None),
        ("test://template/{id}/data", "test://template/123/datax", None),
        ("test://template/{id}/data", "test://template/123/data/", None),
        ("test://template/{id}/data", "test://other/123/data", None),
        (
            "git://{repo}/commit/{sha}",
            "git://switchboard/commit/abc123",
            v(&[("repo", s("switchboard")), ("sha", s("abc123"))]),
        ),
        ("git://{repo}/commit/{sha}", "git://switchboard/tree/abc123", None),
        ("git://{repo}/commit/{sha}", "git://a/b/commit/abc", None),
        // Path segments and exploded queries.
        (
            "users{/id}{?fields*}",
            "users/42?fields=name&fields=email",
            v(&[("id", s("42")), ("fields", list(&["name", "email"]))]),
        ),
        ("users{/id}{?fields*}", "users", v(&[])),
        ("users{/id}{?fields*}", "users/42", v(&[("id", s("42"))])),
        ("users{/id}{?fields*}", "users/", v(&[("id", s(""))])),
        ("users{/id}{?fields*}", "users?fields=name", v(&[("fields", list(&["name"]))])),
        (
            "users{/id}{?fields*}",
            "users/7?a=1&b=2",
            v(&[("id", s("7")), ("fields", assoc(&[("a", "1"), ("b", "2")]))]),
        ),
        (
            "users{/id}{?fields*}",
            "users/7?fields=a&b=2",
            v(&[("id", s("7")), ("fields", assoc(&[("fields", "a"), ("b", "2")]))]),
        ),
        ("users{/id}{?fields*}", "users/1/2", None),
        ("users{/id}{?fields*}", "users/42#top", None),
        ("users{/id}{?fields*}", "users/42?", None),
        ("{/segments*}", "/a/b/c", v(&[("segments", list(&["a", "b", "c"]))])),
        ("app:{/segs*}{?q}", "app:/a/b%2Fc?q=1", v(&[("segs", list(&["a", "b/c"])), ("q", s("1"))])),
        ("www{.dom*}", "www.example.com", v(&[("dom", list(&["example", "com"]))])),
        (
            "{keys*}",
            "semi=%3B,dot=.,comma=%2C",
            v(&[("keys", assoc(&[("semi", ";"), ("dot", "."), ("comma", ",")]))]),
        ),
        ("{/keys*}", "/a=1/b=2", v(&[("keys", assoc(&[("a", "1"), ("b", "2")]))])),
        ("{?list*}", "?list=red&list=green", v(&[("list", list(&["red", "green"]))])),
        (
            "{/list*,path:4}",
            "/red/green/%2Ffoo",
            v(&[("list", list(&["red", "green"])), ("path", s("/foo"))]),
        ),
        // Queries: any order, optional, closed.
        (
            "search{?q,lang}",
            "search?lang=en&q=hello%20world",
            v(&[("q", s("hello world")), ("lang", s("en"))]),
        ),
        ("search{?q,lang}", "search?q=x", v(&[("q", s("x"))])),
        ("search{?q,lang}", "search", v(&[])),
        ("search{?q,lang}", "search?q=", v(&[("q", s(""))])),
        ("search{?q,lang}", "search?q=x&other=1", None),
        ("search{?q,lang}", "search?q=1&q=2", None),
        ("search{?q,lang}", "search?q=1&q=1", v(&[("q", s("1"))])),
        ("search{?q,lang}", "search?=1", None),
        ("search{?q}{&page}", "search?q=a&page=2", v(&[("q", s("a")), ("page", s("2"))])),
        ("search{?q}{&page}", "search&page=2", v(&[("page", s("2"))])),
        ("?fixed=yes{&x}", "?fixed=yes&x=1024", v(&[("x", s("1024"))])),
        ("?fixed=yes{&x}", "?fixed=no&x=1024", None),
        ("{+path}{?rev}", "a/b?rev=1", v(&[("path", s("a/b")), ("rev", s("1"))])),
        ("{+path}{?rev}", "a/b", v(&[("path", s("a/b"))])),
        ("{+path}{/v}{?rev}", "a/b?rev=1", v(&[("path", s("a/b")), ("rev", s("1"))])),
        ("{+path}{#section}", "doc/intro#part-2", v(&[("path", s("doc/intro")), ("section", s("part-2"))])),
        ("page{#section}", "page#intro/part", v(&[("section", s("intro/part"))])),
        ("foo{#empty}", "foo#", v(&[("empty", s(""))])),
        // Path-style parameters.
        ("map{;x,y}", "map;y=768;x=1024", v(&[("x", s("1024")), ("y", s("768"))])),
        ("{;v,empty,who}", ";v=6;empty;who=fred", v(&[("v", s("6")), ("empty", s("")), ("who", s("fred"))])),
        ("{;list*}", ";list=red;list=green", v(&[("list", list(&["red", "green"]))])),
        // Several variables in one expression.
        ("{x,y}", "1024,768", v(&[("x", s("1024")), ("y", s("768"))])),
        ("{x,y}", "1024", v(&[("x", s("1024"))])),
        ("?{x,y}", "?1024,", v(&[("x", s("1024")), ("y", s(""))])),
        ("{x,y}", "1,2,3", None),
        ("X{.x,y}", "X.1024.768", v(&[("x", s("1024")), ("y", s("768"))])),
        ("{/var,x}/here", "/value/1024/here", v(&[("var", s("value")), ("x", s("1024"))])),
        ("{/var:1,var}", "/v/value", v(&[("var", s("value"))])),
        ("{/var:1,var}", "/x/value", None),
        // Adjacent expressions: the longest first capture that leaves a match.
        ("a{x}{y}b", "a123b", v(&[("x", s("12")), ("y", s("3"))])),
        ("{a}{b}", "ab", v(&[("a", s("a")), ("b", s("b"))])),
        ("{a}{b}", "a", None),
        ("{a}-{b}", "x-y-z", v(&[("a", s("x-y")), ("b", s("z"))])),
        ("docs/{name}.{ext}", "docs/readme.md", v(&[("name", s("readme")), ("ext", s("md"))])),
        ("docs/{name}.{ext}", "docs/archive.tar.gz", v(&[("name", s("archive.tar")), ("ext", s("gz"))])),
        ("docs/{name}{.ext}", "docs/readme.md", v(&[("name", s("readme.md"))])),
        ("{+a}/{b}", "x/y/z", v(&[("a", s("x/y")), ("b", s("z"))])),
        // Prefix modifiers bound the capture.
        ("{var:3}", "val", v(&[("var", s("val"))])),
        ("{var:3}", "value", None),
        ("{var:3}{rest}", "value", v(&[("var", s("val")), ("rest", s("ue"))])),
        ("{var:2}", "%C3%A9t", v(&[("var", s("ét"))])),
        ("{+path:6}/here", "/foo/b/here", v(&[("path", s("/foo/b"))])),
        // A repeated variable binds one value.
        ("http://{var}/{var:2}", "http://value/va", v(&[("var", s("value"))])),
        ("http://{var:2}/{var}", "http://va/value", v(&[("var", s("value"))])),
        ("http://{var}/{var:2}", "http://value/vb", None),
        ("{a}/{a}", "x/x", v(&[("a", s("x"))])),
        ("{a}/{a}", "x/y", None),
        // Percent-encoding and non-ASCII.
        ("{half}", "50%25", v(&[("half", s("50%"))])),
        ("app://{name}/x", "app://h%C3%A9llo/x", v(&[("name", s("héllo"))])),
        ("app://{name}/x", "app://héllo/x", v(&[("name", s("héllo"))])),
        ("app://{name}/x", "app://%e2%82%ac/x", v(&[("name", s("€"))])),
        ("app://{name}/x", "app://%FF/x", None),
        ("app://{name}/x", "app://%C3/x", None),
        ("app://{name}/x", "app://50%/x", None),
        ("app://{name}/x", "app://a%2/x", None),
        ("app://{name}/x", "app://a b/x", None),
        ("app://{+p}%C3%A9", "app://x/%C3%A9", v(&[("p", s("x/"))])),
        ("{list}", "red,green,blue", v(&[("list", s("red,green,blue"))])),
        // Literal templates.
        ("test://static", "test://static", v(&[])),
        ("test://static", "test://static2", None),
        ("test://static", "test://stati", None),
        ("", "", v(&[])),
        ("", "x", None),
    ];
    cases.into_iter().map(|(t, u, v)| (t, u.to_owned(), v)).collect()
}

#[test]
fn matches_vectors() {
    let mut failures = Vec::new();
    let vectors = matching_vectors();
    for (template, uri, expected) in &vectors {
        let got = UriTemplate::parse(template).unwrap_or_else(|e| panic!("{template}: {e}")).matches(uri);
        if got != *expected {
            failures.push(format!("{template} ~ {uri:?}: expected {expected:?}, got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(vectors.iter().filter(|(.., v)| v.is_none()).count() >= 30);
}

#[test]
fn api_conveniences() {
    let t: UriTemplate = "users{/id}{?fields*,id}".parse().expect("parses");
    assert_eq!(t.as_str(), "users{/id}{?fields*,id}");
    assert_eq!(t.to_string(), t.as_str());
    assert_eq!(t.variables().collect::<Vec<_>>(), ["id", "fields"]);
    assert!(!t.is_literal());
    assert_eq!(t.clone(), t);
    assert_ne!(t, UriTemplate::parse("users{/id}").expect("parses"));
    assert!(format!("{t:?}").contains("UriTemplate"));
    assert!(UriTemplate::parse("test://static").expect("parses").is_literal());
    assert!(UriTemplate::parse("").expect("parses").is_literal());

    assert_eq!(Value::from("a").as_str(), Some("a"));
    assert_eq!(Value::from(String::from("a")), Value::String("a".into()));
    assert_eq!(Value::from(vec![String::from("a")]), list(&["a"]));
    assert_eq!(Value::from(vec![(String::from("k"), String::from("v"))]), assoc(&[("k", "v")]));
    assert_eq!(list(&["a"]).as_str(), None);
    assert_eq!(switchboard_uri_template::percent_decode("a%20b%C3%A9"), Some("a bé".into()));
    assert_eq!(switchboard_uri_template::percent_decode("%FF"), None);
    assert_eq!(switchboard_uri_template::percent_decode("%2"), None);
}

#[test]
fn reports_parse_errors_with_positions() {
    let cases: &[(&str, Error)] = &[
        ("a{b", Error::Unclosed(1)),
        ("{var}{", Error::Unclosed(5)),
        ("{?a,b", Error::Unclosed(0)),
        ("a}b", Error::UnexpectedClose(1)),
        ("{}", Error::Empty(1)),
        ("{a,}", Error::Empty(3)),
        ("{?}", Error::Empty(2)),
        ("{=x}", Error::ReservedOperator { op: '=', at: 1 }),
        ("x{,y}", Error::ReservedOperator { op: ',', at: 2 }),
        ("{!x}", Error::ReservedOperator { op: '!', at: 1 }),
        ("{@x}", Error::ReservedOperator { op: '@', at: 1 }),
        ("{|x}", Error::ReservedOperator { op: '|', at: 1 }),
        ("{a b}", Error::InvalidVarName { ch: ' ', at: 2 }),
        ("{a-b}", Error::InvalidVarName { ch: '-', at: 2 }),
        ("{.a.}", Error::InvalidVarName { ch: '.', at: 3 }),
        ("{a..b}", Error::InvalidVarName { ch: '.', at: 3 }),
        ("{a%2}", Error::InvalidVarName { ch: '%', at: 2 }),
        ("{é}", Error::InvalidVarName { ch: 'é', at: 1 }),
        ("{a{b}", Error::InvalidVarName { ch: '{', at: 2 }),
        ("{x:0}", Error::InvalidPrefix(3)),
        ("{x:01}", Error::InvalidPrefix(3)),
        ("{x:10000}", Error::InvalidPrefix(3)),
        ("{x:}", Error::InvalidPrefix(3)),
        ("{x:a}", Error::InvalidPrefix(3)),
        ("{/y,x:-1}", Error::InvalidPrefix(6)),
        ("{x:3*}", Error::PrefixWithExplode(2)),
        ("{x*:3}", Error::PrefixWithExplode(2)),
        ("a b{x}", Error::InvalidLiteral { ch: ' ', at: 1 }),
        ("50%{x}", Error::InvalidLiteral { ch: '%', at: 2 }),
        ("%4", Error::InvalidLiteral { ch: '%', at: 0 }),
        ("x<y", Error::InvalidLiteral { ch: '<', at: 1 }),
        ("x\ny", Error::InvalidLiteral { ch: '\n', at: 1 }),
    ];
    for (template, error) in cases {
        assert_eq!(UriTemplate::parse(template).as_ref().err(), Some(error), "{template}");
        assert!(error.to_string().contains("byte"), "{error}");
    }
    for ok in ["{x.y,%41}", "{x:9999}", "{_a1,B2}", "{+path}/%2F{?q*}", "é{x}", "", "{var:1}{var*}"] {
        assert!(UriTemplate::parse(ok).is_ok(), "{ok}");
    }
}

#[test]
fn long_uris_match_promptly_and_correctly() {
    const LEN: usize = 100_000;
    let xs = "x".repeat(LEN);
    let t = UriTemplate::parse("file:///{+path}").expect("parses");
    let path = "segment/".repeat(LEN / 8);
    assert_eq!(t.matches(&format!("file:///{path}")), Some(vars(&[("path", s(&path))])));

    let t = UriTemplate::parse("{a}{b}").expect("parses");
    assert_eq!(t.matches(&xs), Some(vars(&[("a", s(&xs[1..])), ("b", s("x"))])));

    // Every split of a 100 KB run is tried against the rest: fails at once.
    let t = UriTemplate::parse("{+a}{b}").expect("parses");
    assert_eq!(t.matches(&"/".repeat(LEN)), None);
    let uri = format!("{}x", "/".repeat(LEN));
    assert_eq!(t.matches(&uri), Some(vars(&[("a", s(&uri[..LEN])), ("b", s("x"))])));
    let t = UriTemplate::parse("{a}{b}{c}{d}-{e}").expect("parses");
    assert_eq!(t.matches(&xs), None);
    let t = UriTemplate::parse("{+a}/{+b}/{+c}/end").expect("parses");
    assert_eq!(t.matches(&"a/".repeat(LEN / 2)), None);

    // Long queries, matched parameter by parameter.
    let t = UriTemplate::parse("users{/id}{?fields*}").expect("parses");
    let query = vec!["fields=ab"; LEN / 10].join("&");
    let got = t.matches(&format!("users/1?{query}")).expect("matches");
    assert_eq!(got["fields"], Value::List(vec!["ab".into(); LEN / 10]));
    let t = UriTemplate::parse("{&x*}").expect("parses");
    let got = t.matches(&"&x=1".repeat(LEN / 4)).expect("matches");
    assert_eq!(got["x"], Value::List(vec!["1".into(); LEN / 4]));
    let t = UriTemplate::parse("{;a}").expect("parses");
    assert_eq!(t.matches(&";a=1".repeat(LEN / 4)), Some(vars(&[("a", s("1"))])));

    // Multi-byte characters and escapes throughout.
    let t = UriTemplate::parse("app://{name}/x").expect("parses");
    let name = "é%C3%A9".repeat(LEN / 8);
    let got = t.matches(&format!("app://{name}/x")).expect("matches");
    assert_eq!(got["name"].as_str().map(|n| n.chars().count()), Some(LEN / 8 * 2));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Simple expressions, and a query: any non-empty values.
    #[test]
    fn simple_values_round_trip(a in ".{1,20}", b in ".{1,10}", c in prop::option::of(".{1,10}")) {
        let t = UriTemplate::parse("app://x/{a}/y{?b,c}").expect("parses");
        let mut vars = Variables::new();
        vars.insert("a".into(), Value::from(a.as_str()));
        vars.insert("b".into(), Value::from(b.as_str()));
        if let Some(c) = c {
            vars.insert("c".into(), Value::from(c));
        }
        prop_assert_eq!(t.matches(&t.expand(&vars)), Some(vars));
    }

    /// Two variables in one simple expression, and in a path expression.
    #[test]
    fn multi_variable_round_trip(x in ".{1,10}", y in ".{1,10}") {
        for template in ["{x,y}", "p{/x,y}/q"] {
            let t = UriTemplate::parse(template).expect("parses");
            let vars = vars(&[("x", s(&x)), ("y", s(&y))]);
            prop_assert_eq!(t.matches(&t.expand(&vars)), Some(vars));
        }
    }

    /// `{+path}` keeps reserved characters; values without `%` come back.
    #[test]
    fn reserved_paths_round_trip(p in "[a-zA-Z0-9/._~:@!$&'()*+,;= ?#\\[\\]é中-]{1,40}") {
        let t = UriTemplate::parse("file:///{+path}").expect("parses");
        let vars = vars(&[("path", s(&p))]);
        prop_assert_eq!(t.matches(&t.expand(&vars)), Some(vars));
    }

    /// `{/segs*}`: any non-empty segments.
    #[test]
    fn exploded_segments_round_trip(segs in prop::collection::vec(".{1,6}", 1..6)) {
        let t = UriTemplate::parse("app:{/segs*}").expect("parses");
        let vars = vars(&[("segs", Value::List(segs))]);
        prop_assert_eq!(t.matches(&t.expand(&vars)), Some(vars));
    }

    /// `{?q,tags*}`: named parameters, an exploded list, any of them absent.
    #[test]
    fn query_round_trip(
        q in prop::option::of(".{1,10}"),
        tags in prop::option::of(prop::collection::vec(".{0,6}", 1..5)),
    ) {
        let t = UriTemplate::parse("search{?q,tags*}").expect("parses");
        let mut vars = Variables::new();
        if let Some(q) = q {
            vars.insert("q".into(), Value::from(q));
        }
        if let Some(tags) = tags {
            vars.insert("tags".into(), Value::List(tags));
        }
        prop_assert_eq!(t.matches(&t.expand(&vars)), Some(vars));
    }

    /// `{?params*}` with an associative list of names no other variable has.
    #[test]
    fn query_assoc_round_trip(pairs in prop::collection::vec(("[a-z]{1,4}", ".{0,6}"), 1..5)) {
        let pairs: Vec<(String, String)> =
            pairs.into_iter().filter(|(k, _)| k != "params" && k != "page").collect();
        prop_assume!(!pairs.is_empty());
        let t = UriTemplate::parse("list{?page,params*}").expect("parses");
        let vars = vars(&[("page", s("2")), ("params", Value::AssocList(pairs))]);
        prop_assert_eq!(t.matches(&t.expand(&vars)), Some(vars));
    }

    /// What a match binds expands back to the URI it matched, for
    /// templates where that is well defined.
    #[test]
    fn matches_expand_back(uri in "[a-z0-9/%?=&.,;é-]{0,30}", template in prop::sample::select(vec![
        "{+path}", "/{a}/{b}", "{/segs*}", "x{?q,r}",
    ])) {
        let t = UriTemplate::parse(template).expect("parses");
        if let Some(vars) = t.matches(&uri) {
            // Decoding then re-encoding may change the escapes' spelling.
            let back = t.expand(&vars);
            prop_assert_eq!(t.matches(&back), Some(vars));
        }
    }

    #[test]
    fn matching_never_panics(uri in ".{0,64}", template in prop::sample::select(vec![
        "file:///{+path}", "{a}{b}", "x{/p*}{?q*}", "{;a,b*}", "{#f}", "{.a,b}", "a{x:3}b",
        "{/a:2,b}", "{x}{x:1}", "{?a}{&b*}", "{keys*}", "{+a:2}{#b}",
    ])) {
        let _ = UriTemplate::parse(template).expect("parses").matches(&uri);
    }

    #[test]
    fn parsing_and_expanding_never_panic(template in "[{}a-z+#./;?&*:0-9,é% -]{0,40}", value in ".{0,12}") {
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
