//! Changes in a served folder as a subscribed client hears them, through
//! the real `switchboard` binary over stdio: a saved file, a new file, a
//! removed file, a renamed folder and a `.gitignore` edit are each
//! announced, and the list and reads afterwards match the disk. Changes
//! are applied to the index path by path (issue #30); these tests hold
//! that what is announced and listed is what the served tree serves.

use crate::common;

use std::path::Path;
use std::time::Instant;

use common::Switchboard;
use serde_json::json;

/// Packages of a few files, each with a `.gitignore` hiding its `target/`.
fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for p in ["alpha", "beta"] {
        let package = dir.path().join(p);
        std::fs::create_dir_all(package.join("src/inner")).unwrap();
        std::fs::create_dir_all(package.join("target")).unwrap();
        std::fs::write(package.join(".gitignore"), "target/\n").unwrap();
        std::fs::write(package.join("target/out.o"), "built").unwrap();
        std::fs::write(package.join("src/lib.rs"), format!("// {p}\n")).unwrap();
        std::fs::write(package.join("src/inner/mod.rs"), format!("// {p} inner\n")).unwrap();
    }
    dir
}

fn uris(switchboard: &mut Switchboard) -> Vec<String> {
    let listed = switchboard.result("resources/list", json!({}));
    listed["resources"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap().to_owned()).collect()
}

/// Waits for `list_changed` until the list satisfies `done` (a burst may
/// be announced in more than one batch).
fn list_until(switchboard: &mut Switchboard, what: &str, done: impl Fn(&[String]) -> bool) -> Vec<String> {
    let deadline = Instant::now() + common::WAIT;
    loop {
        let listed = uris(switchboard);
        if done(&listed) {
            return listed;
        }
        assert!(Instant::now() < deadline, "{what}: the list is still {listed:?}");
        switchboard.notification("notifications/resources/list_changed", None);
    }
}

fn read_text(switchboard: &mut Switchboard, uri: &str) -> String {
    let read = switchboard.result("resources/read", json!({"uri": uri}));
    read["contents"][0]["text"].as_str().unwrap().to_owned()
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}

#[test]
fn a_saved_file_is_announced_to_its_subscriber_and_reads_new() {
    let dir = tree();
    let mut switchboard = Switchboard::start(&["serve", "."], dir.path());
    switchboard.result("resources/subscribe", json!({"uri": "file:///beta/src/inner/mod.rs"}));
    write(&dir.path().join("beta/src/inner/mod.rs"), "// saved\n");
    switchboard.notification("notifications/resources/updated", Some("file:///beta/src/inner/mod.rs"));
    assert_eq!(read_text(&mut switchboard, "file:///beta/src/inner/mod.rs"), "// saved\n");
    let listed = switchboard.result("resources/list", json!({}));
    let entry = listed["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["uri"] == "file:///beta/src/inner/mod.rs")
        .cloned()
        .unwrap();
    assert_eq!(entry["size"], 9, "the listed size is the saved file's: {entry}");
    switchboard.finish();
}

#[test]
fn new_and_removed_files_change_the_list_and_reads() {
    let dir = tree();
    let mut switchboard = Switchboard::start(&["serve", "."], dir.path());
    write(&dir.path().join("alpha/src/inner/new.rs"), "// new\n");
    list_until(&mut switchboard, "a new file", |l| l.contains(&"file:///alpha/src/inner/new.rs".to_owned()));
    assert_eq!(read_text(&mut switchboard, "file:///alpha/src/inner/new.rs"), "// new\n");
    std::fs::remove_file(dir.path().join("alpha/src/inner/new.rs")).unwrap();
    list_until(&mut switchboard, "a removed file", |l| {
        !l.contains(&"file:///alpha/src/inner/new.rs".to_owned())
    });
    let refused = switchboard.request("resources/read", json!({"uri": "file:///alpha/src/inner/new.rs"}));
    assert_eq!(refused["error"]["code"], -32002, "{refused}");
    // A new file in the ignored target/ is never announced nor listed.
    write(&dir.path().join("alpha/target/late.o"), "built");
    write(&dir.path().join("alpha/src/marker.rs"), "// marker\n");
    let listed = list_until(&mut switchboard, "a marker file", |l| {
        l.contains(&"file:///alpha/src/marker.rs".to_owned())
    });
    assert!(!listed.iter().any(|u| u.contains("target")), "{listed:?}");
    switchboard.finish();
}

#[test]
fn a_renamed_folder_moves_every_file_in_it() {
    let dir = tree();
    let mut switchboard = Switchboard::start(&["serve", "."], dir.path());
    std::fs::rename(dir.path().join("alpha/src"), dir.path().join("alpha/lib")).unwrap();
    let listed = list_until(&mut switchboard, "a renamed folder", |l| {
        l.contains(&"file:///alpha/lib/inner/mod.rs".to_owned())
            && !l.iter().any(|u| u.starts_with("file:///alpha/src/"))
    });
    assert!(listed.contains(&"file:///alpha/lib/lib.rs".to_owned()), "{listed:?}");
    assert_eq!(read_text(&mut switchboard, "file:///alpha/lib/inner/mod.rs"), "// alpha inner\n");
    // The moved folder is watched where it is now.
    write(&dir.path().join("alpha/lib/inner/after.rs"), "// after\n");
    list_until(&mut switchboard, "a file in the moved folder", |l| {
        l.contains(&"file:///alpha/lib/inner/after.rs".to_owned())
    });
    switchboard.finish();
}

#[test]
fn a_gitignore_edit_hides_and_reveals_what_it_governs_only() {
    let dir = tree();
    let mut switchboard = Switchboard::start(&["serve", "."], dir.path());
    write(&dir.path().join("alpha/.gitignore"), "target/\ninner/\n");
    let listed = list_until(&mut switchboard, "inner/ ignored", |l| {
        !l.contains(&"file:///alpha/src/inner/mod.rs".to_owned())
    });
    // Only alpha's .gitignore changed: beta's inner/ stays.
    assert!(listed.contains(&"file:///beta/src/inner/mod.rs".to_owned()), "{listed:?}");
    assert!(listed.contains(&"file:///alpha/src/lib.rs".to_owned()), "{listed:?}");
    let refused = switchboard.request("resources/read", json!({"uri": "file:///alpha/src/inner/mod.rs"}));
    assert_eq!(refused["error"]["code"], -32002, "{refused}");
    // Un-ignoring target/ reveals the build output.
    write(&dir.path().join("alpha/.gitignore"), "");
    let listed = list_until(&mut switchboard, "target/ revealed", |l| {
        l.contains(&"file:///alpha/target/out.o".to_owned())
    });
    assert!(listed.contains(&"file:///alpha/src/inner/mod.rs".to_owned()), "{listed:?}");
    assert!(!listed.contains(&"file:///beta/target/out.o".to_owned()), "{listed:?}");
    switchboard.finish();
}

#[test]
fn a_list_asked_for_during_the_first_index_of_a_big_folder_is_complete() {
    // 20,000 files: more than the server indexes before it answers
    // `initialize` (it waits 100 ms at most).
    let dir = tempfile::tempdir().unwrap();
    for d in 0..100 {
        let folder = dir.path().join(format!("pkg{d:03}"));
        std::fs::create_dir_all(&folder).unwrap();
        for f in 0..200 {
            std::fs::write(folder.join(format!("f{f:03}.rs")), "// f\n").unwrap();
        }
    }
    std::fs::write(dir.path().join(".gitignore"), "pkg099/\n").unwrap();
    let mut switchboard = Switchboard::start(&["serve", "."], dir.path());
    let first = switchboard.result("resources/list", json!({}));
    assert_eq!(first["resources"].as_array().unwrap().len(), 100, "a full first page");
    let mut listed = 0;
    let mut cursor: Option<String> = None;
    for _ in 0..1_000 {
        let params = cursor.as_ref().map_or(json!({}), |c| json!({"cursor": c}));
        let page = switchboard.result("resources/list", params);
        listed += page["resources"].as_array().unwrap().len();
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    assert_eq!(listed, 99 * 200, "every served file, none of the ignored package");
    switchboard.finish();
}
