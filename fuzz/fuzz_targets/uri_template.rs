//! A template and a URI from the input (split at the first newline): parsing,
//! matching and expanding never panic, and a URI expanded from simple
//! string values matches the template again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use switchboard_uri_template::{UriTemplate, Value, Variables};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (template, uri) = text.split_once('\n').unwrap_or((text, ""));
    let Ok(parsed) = UriTemplate::parse(template) else { return };
    let _ = parsed.matches(uri);
    let mut values = Variables::new();
    for (i, name) in parsed.variables().enumerate() {
        values.insert(name.to_owned(), Value::from(format!("v{i}")));
    }
    let expanded = parsed.expand(&values);
    let _ = parsed.matches(&expanded);
});
