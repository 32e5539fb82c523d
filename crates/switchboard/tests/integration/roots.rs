//! `switchboard serve` over stdio with no folder: a client that declares
//! `roots` is served its roots (and not the folder switchboard was started
//! in), follows `notifications/roots/list_changed`, has `/` refused; a
//! client without roots gets the working folder, or the refusal when that
//! is `/`. The real binary, a client that answers `roots/list`, and the
//! files read back through `resources/read`.

use crate::common;

use std::path::Path;
use std::time::Duration;

use common::Switchboard;
use serde_json::{Value, json};

const LIST_CHANGED: &str = "notifications/resources/list_changed";

/// A folder with `files` (name, content) in it.
fn folder_with(base: &Path, name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
    let dir = base.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    for (file, content) in files {
        std::fs::write(dir.join(file), content).unwrap();
    }
    dir
}

/// The client's `roots` for `folders`.
fn roots(folders: &[&Path]) -> Value {
    folders
        .iter()
        .map(|f| json!({"uri": format!("file://{}", f.display()), "name": f.file_name().unwrap().to_string_lossy()}))
        .collect()
}

/// The listed resource URIs.
fn listed(sb: &mut Switchboard) -> Vec<String> {
    let list = sb.result("resources/list", json!({}));
    list["resources"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap().to_owned()).collect()
}

/// The text of a resource, or the error of reading it.
fn read(sb: &mut Switchboard, uri: &str) -> Result<String, Value> {
    let response = sb.request("resources/read", json!({"uri": uri}));
    match response["result"]["contents"][0]["text"].as_str() {
        Some(text) => Ok(text.to_owned()),
        None => Err(response),
    }
}

#[test]
fn a_clients_root_is_served_and_the_working_folder_is_not() {
    let base = tempfile::tempdir().unwrap();
    let cwd = folder_with(base.path(), "started-here", &[("cwd-only.txt", "not for this client")]);
    let root = folder_with(base.path(), "project", &[("in-root.txt", "root content")]);
    let mut sb = Switchboard::start_with_roots(&["serve"], &cwd, &[], roots(&[&root]));
    sb.notification(LIST_CHANGED, None);
    assert_eq!(sb.roots_asked, 1);

    let uris = listed(&mut sb);
    assert!(uris.contains(&"file:///in-root.txt".to_owned()), "{uris:?}");
    assert!(!uris.iter().any(|u| u.contains("cwd-only")), "{uris:?}");
    assert_eq!(read(&mut sb, "file:///in-root.txt").unwrap(), "root content");
    let refused = read(&mut sb, "file:///cwd-only.txt").unwrap_err();
    assert!(refused.get("error").is_some(), "{refused}");
    // The tools see the same folder.
    let call = sb.result("tools/call", json!({"name": "read_file", "arguments": {"path": "cwd-only.txt"}}));
    assert_eq!(call["isError"], true, "{call}");
    let call = sb.result("tools/call", json!({"name": "read_file", "arguments": {"path": "in-root.txt"}}));
    assert!(call.to_string().contains("root content"), "{call}");
    sb.finish();
}

#[test]
fn started_in_the_root_folder_a_client_with_roots_is_served_its_roots() {
    let base = tempfile::tempdir().unwrap();
    let root = folder_with(base.path(), "project", &[("in-root.txt", "root content")]);
    let mut sb = Switchboard::start_with_roots(&["serve"], Path::new("/"), &[], roots(&[&root]));
    sb.notification(LIST_CHANGED, None);
    assert_eq!(listed(&mut sb), ["file:///in-root.txt"]);
    assert_eq!(read(&mut sb, "file:///in-root.txt").unwrap(), "root content");
    sb.finish();
}

#[test]
fn a_roots_change_switches_what_is_served_and_sends_list_changed() {
    let base = tempfile::tempdir().unwrap();
    let cwd = folder_with(base.path(), "started-here", &[]);
    let alpha = folder_with(base.path(), "alpha", &[("a.txt", "from alpha")]);
    let beta = folder_with(base.path(), "beta", &[("b.txt", "from beta")]);
    let other = folder_with(&base.path().join("elsewhere"), "alpha", &[("c.txt", "the other alpha")]);
    let mut sb = Switchboard::start_with_roots(&["serve"], &cwd, &[], roots(&[&alpha]));
    sb.notification(LIST_CHANGED, None);
    assert_eq!(listed(&mut sb), ["file:///a.txt"]);

    // Several roots: mounted under their folder names, made unique.
    sb.change_roots(roots(&[&alpha, &beta, &other]));
    sb.notification(LIST_CHANGED, None);
    assert_eq!(sb.roots_asked, 2);
    let mut uris = listed(&mut sb);
    uris.sort();
    assert_eq!(uris, ["file:///alpha-2/c.txt", "file:///alpha/a.txt", "file:///beta/b.txt"]);
    assert_eq!(read(&mut sb, "file:///beta/b.txt").unwrap(), "from beta");
    assert_eq!(read(&mut sb, "file:///alpha-2/c.txt").unwrap(), "the other alpha");

    // Back to one: alpha is gone, beta is the served folder.
    sb.change_roots(roots(&[&beta]));
    sb.notification(LIST_CHANGED, None);
    assert_eq!(listed(&mut sb), ["file:///b.txt"]);
    assert!(read(&mut sb, "file:///alpha/a.txt").is_err());
    sb.finish();
}

#[test]
fn a_root_of_slash_or_another_scheme_is_refused_and_nothing_is_served() {
    let base = tempfile::tempdir().unwrap();
    let cwd = folder_with(base.path(), "started-here", &[("cwd-only.txt", "not for this client")]);
    let client_roots =
        json!([{"uri": "file:///", "name": "everything"}, {"uri": "https://example.com/repo"}]);
    let mut sb = Switchboard::start_with_roots(&["serve"], &cwd, &[], client_roots);
    // The working folder served until the answer is dropped with it.
    sb.notification(LIST_CHANGED, None);
    assert_eq!(listed(&mut sb), Vec::<String>::new());
    assert!(read(&mut sb, "file:///etc/hostname").is_err());
    assert!(read(&mut sb, "file:///cwd-only.txt").is_err());
    let call = sb.result("tools/call", json!({"name": "read_file", "arguments": {"path": "etc/hostname"}}));
    assert_eq!(call["isError"], true, "{call}");
    let stderr = sb.wait_stderr("root not served");
    assert!(stderr.contains("is the root folder"), "{stderr}");
    sb.finish();
}

#[test]
fn a_client_without_roots_gets_the_working_folder() {
    let base = tempfile::tempdir().unwrap();
    let cwd = folder_with(base.path(), "started-here", &[("cwd.txt", "working folder")]);
    let mut sb = Switchboard::start(&["serve"], &cwd);
    assert_eq!(listed(&mut sb), ["file:///cwd.txt"]);
    assert_eq!(read(&mut sb, "file:///cwd.txt").unwrap(), "working folder");
    std::thread::sleep(Duration::from_millis(200));
    let asked: Vec<Value> = sb.received().into_iter().filter(|m| m["method"] == "roots/list").collect();
    assert_eq!(asked, Vec::<Value>::new(), "a client without roots is never asked");
    sb.finish();
}

#[test]
fn a_client_without_roots_in_the_root_folder_gets_the_refusal() {
    let mut sb = Switchboard::start(&["serve"], Path::new("/"));
    let status = sb.wait_exit(common::WAIT);
    assert_eq!(status.code(), Some(2), "a usage error, as without roots support");
    let stderr = sb.stderr();
    assert!(stderr.contains("is the root folder") && stderr.contains("named no roots"), "{stderr}");
}
