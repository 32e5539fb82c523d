//! The first scan of a big folder runs while the server already answers
//! (`initialize` does not wait for it, issue #30): edits made right after
//! `initialize`, while the folder is still walked, are never missed. Each
//! folder is watched as the walk enters it, before it is read, so an edit
//! lands either before the read (the walk finds it) or after the watch
//! (the watch reports it). Checked against the disk afterwards: the list
//! names every new file, no removed one, and each edited file at its size
//! on disk; reads return what is on disk.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Instant;

use common::Switchboard;
use serde_json::{Value, json};

/// Packages in the served tree.
const PACKAGES: usize = 100;
/// The folders of a package, each inside the one before.
const DEPTH: [&str; 8] = ["a", "b", "c", "d", "e", "f", "g", "h"];
/// Files per folder: 100 packages × 8 folders × 25 files = 20,000 files.
const FILES_PER_FOLDER: usize = 25;

/// 20,000 files in 100 packages, each package a chain of 8 folders.
fn big_tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for p in 0..PACKAGES {
        let mut folder = dir.path().join(format!("pkg{p:03}"));
        for name in DEPTH {
            folder.push(name);
            std::fs::create_dir_all(&folder).unwrap();
            for f in 0..FILES_PER_FOLDER {
                std::fs::write(folder.join(format!("f{f:02}.rs")), "// f\n").unwrap();
            }
        }
    }
    dir
}

/// The deepest folder of package `p`, relative to the root.
fn deepest(p: usize) -> PathBuf {
    let mut folder = PathBuf::from(format!("pkg{p:03}"));
    folder.extend(DEPTH);
    folder
}

fn served(path: &Path) -> String {
    path.to_str().unwrap().to_owned()
}

/// Every listed resource, page by page: served path → listed size.
fn list_all(switchboard: &mut Switchboard) -> std::collections::BTreeMap<String, u64> {
    let mut listed = std::collections::BTreeMap::new();
    let mut cursor: Option<String> = None;
    for _ in 0..1_000 {
        let params = cursor.as_ref().map_or(json!({}), |c| json!({"cursor": c}));
        let page = switchboard.result("resources/list", params);
        for resource in page["resources"].as_array().unwrap() {
            let name = resource["name"].as_str().unwrap().to_owned();
            listed.insert(name, resource["size"].as_u64().unwrap());
        }
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    listed
}

fn read_text(switchboard: &mut Switchboard, served: &str) -> Value {
    switchboard.result("resources/read", json!({"uri": format!("file:///{served}")}))["contents"][0]["text"]
        .clone()
}

#[test]
fn edits_deep_in_a_big_tree_right_after_initialize_are_never_missed() {
    let dir = big_tree();
    let root = dir.path();
    let mut switchboard = Switchboard::start(&["serve", "."], root);
    // At once, while the folder is walked: in the deepest folder of every
    // package, a new file, a saved file (longer) and a removed file; the
    // walk is somewhere among them, before some and past others.
    let started = Instant::now();
    for p in 0..PACKAGES {
        let deep = root.join(deepest(p));
        std::fs::write(deep.join("new.rs"), format!("// new in {p}\n")).unwrap();
        std::fs::write(deep.join("f00.rs"), format!("// saved in package {p}\n")).unwrap();
        std::fs::remove_file(deep.join("f01.rs")).unwrap();
    }
    let edits_took = started.elapsed();
    let expected_files = PACKAGES * DEPTH.len() * FILES_PER_FOLDER;
    // The changes reach the index through the watches (a burst is
    // announced in one or more batches): list until every one shows, or
    // fail at the deadline with what is missing.
    let deadline = Instant::now() + common::WAIT;
    let missing = loop {
        let listed = list_all(&mut switchboard);
        let missing: Vec<String> = (0..PACKAGES)
            .flat_map(|p| {
                let deep = deepest(p);
                let saved = format!("// saved in package {p}\n").len() as u64;
                let mut wrong = Vec::new();
                if !listed.contains_key(&served(&deep.join("new.rs"))) {
                    wrong.push(format!("{} not listed", served(&deep.join("new.rs"))));
                }
                if listed.get(&served(&deep.join("f00.rs"))) != Some(&saved) {
                    wrong.push(format!("{} not at its saved size", served(&deep.join("f00.rs"))));
                }
                if listed.contains_key(&served(&deep.join("f01.rs"))) {
                    wrong.push(format!("{} still listed", served(&deep.join("f01.rs"))));
                }
                wrong
            })
            .collect();
        if missing.is_empty() {
            assert_eq!(listed.len(), expected_files, "every file on disk, once");
            break missing;
        }
        if Instant::now() > deadline {
            break missing;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert!(
        missing.is_empty(),
        "{} edits missed (made within {edits_took:?} of initialize): {:?}",
        missing.len(),
        &missing[..missing.len().min(10)]
    );
    for p in [0, PACKAGES / 2, PACKAGES - 1] {
        let deep = deepest(p);
        assert_eq!(
            read_text(&mut switchboard, &served(&deep.join("f00.rs"))),
            format!("// saved in package {p}\n")
        );
        assert_eq!(read_text(&mut switchboard, &served(&deep.join("new.rs"))), format!("// new in {p}\n"));
    }
    switchboard.finish();
}

#[test]
fn a_subscribed_file_saved_after_the_first_index_is_announced() {
    // The same tree: subscribed right after `initialize`, saved once the
    // first index answers a list, announced to the subscriber.
    let dir = big_tree();
    let root = dir.path();
    let mut switchboard = Switchboard::start(&["serve", "."], root);
    let deep = served(&deepest(PACKAGES - 1).join("f02.rs"));
    let uri = format!("file:///{deep}");
    switchboard.result("resources/subscribe", json!({"uri": uri}));
    // A list waits for the first index: from here the folder is indexed
    // and watched.
    switchboard.result("resources/list", json!({}));
    std::fs::write(root.join(&deep), "// saved after the index\n").unwrap();
    switchboard.notification("notifications/resources/updated", Some(&uri));
    assert_eq!(read_text(&mut switchboard, &deep), "// saved after the index\n");
    switchboard.finish();
}
