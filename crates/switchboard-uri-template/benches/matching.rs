//! Template matching and expansion costs.
//!
//! Run with: cargo bench -p switchboard-uri-template --bench matching

use criterion::{Criterion, criterion_group, criterion_main};
use switchboard_uri_template::{UriTemplate, Value, Variables};

fn matching(c: &mut Criterion) {
    let cases = [
        ("simple", "test://template/{id}/data", "test://template/12345/data".to_owned()),
        ("reserved_path", "file:///{+path}", "file:///src/server/dispatch/mod.rs".to_owned()),
        (
            "path_and_query",
            "users{/id}{?fields*}",
            "users/42?fields=name&fields=email&fields=role".to_owned(),
        ),
        ("long_reserved", "file:///{+path}", format!("file:///{}", "segment/".repeat(500))),
    ];
    for (name, template, uri) in &cases {
        let t = UriTemplate::parse(template).expect("valid template");
        c.bench_function(&format!("match_{name}"), |b| b.iter(|| t.matches(uri)));
    }
    let t = UriTemplate::parse("https://api.example.com{/version}/users{/id}{?fields*,lang}")
        .expect("valid template");
    let mut vars = Variables::new();
    vars.insert("version".into(), Value::from("v2"));
    vars.insert("id".into(), Value::from("42"));
    vars.insert("fields".into(), Value::List(vec!["name".into(), "email".into()]));
    vars.insert("lang".into(), Value::from("en GB"));
    c.bench_function("expand_level4", |b| b.iter(|| t.expand(&vars)));
    c.bench_function("parse_level4", |b| {
        b.iter(|| UriTemplate::parse("https://api.example.com{/version}/users{/id}{?fields*,lang}"))
    });
}

criterion_group!(benches, matching);
criterion_main!(benches);
