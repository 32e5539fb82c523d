//! The first `resources/list` page does not wait for the whole first scan.
//!
//! The first scan walks the tree in the index's order (each folder's
//! entries sorted by name, a path's files right after its name:
//! `switchboard_tree::cmp_served`), files what it finds as it goes, and
//! publishes how many positions are settled; a list waits only for the
//! positions its page needs. These tests hold the walk still as it enters
//! chosen folders (the hook a scan calls with each folder, where the
//! server adds the folder's watch), so a page is provably answered while
//! the scan is running, and check that it is the page a finished index
//! gives, that paging through a running scan misses and repeats nothing,
//! and that a tree whose roots cannot be walked in order still lists
//! completely (its lists wait for the whole scan).

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::{Value, json};
use switchboard_files::{Change, FileResources, FilesOptions, RootSpec, ServedTree, WatchBatch};
use switchboard_server::{ResourceSource, Server};
use switchboard_testkit::TestClient;

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, text).unwrap();
}

/// Eight folders `f0`..`f7` of 60 files each: 480 files.
fn folders() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    for folder in 0..8 {
        for file in 0..60 {
            write(&root.join(format!("f{folder}/n{file:02}.rs")), "// n\n");
        }
    }
    (dir, root)
}

/// The test's side of a walk held at chosen folders: `paused` names each
/// folder the walk stopped at; one `go` lets it continue.
struct Held {
    paused: Receiver<String>,
    go: Sender<()>,
}

/// Starts the first scan of `files` on a thread, holding the walk as it
/// enters each folder named in `hold` until the test lets it go;
/// `on_entering` runs first at every folder.
fn scan_held(
    files: &FileResources,
    hold: &'static [&'static str],
    on_entering: impl Fn(&Path) + Send + Sync + 'static,
) -> (Held, JoinHandle<Vec<Change>>) {
    let (paused_tx, paused) = channel();
    let (go, go_rx) = channel::<()>();
    let go_rx = Mutex::new(go_rx);
    let hook = move |dir: &Path| {
        on_entering(dir);
        let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
        if hold.contains(&name.as_str()) {
            paused_tx.send(name).unwrap();
            go_rx.lock().unwrap().recv().unwrap();
        }
    };
    let scanning = files.clone();
    let scan = std::thread::spawn(move || scanning.rescan_watching(&WatchBatch::default(), Arc::new(hook)));
    (Held { paused, go }, scan)
}

fn server_of(files: &FileResources) -> Server {
    Server::builder("files", "1")
        .resource_source(Arc::new(files.clone()))
        .resource_template(files.template())
        .build()
        .unwrap()
}

fn names(page: &Value) -> Vec<String> {
    page["resources"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn pages_listed_while_the_first_scan_is_held_are_the_final_listing_with_nothing_missed_or_repeated() {
    let (_dir, root) = folders();
    let files = FileResources::unscanned(ServedTree::new(&root, &FilesOptions::default()).unwrap());
    let mut client = TestClient::connect_legacy(&server_of(&files), "2025-06-18").await;
    let (held, scan) = scan_held(&files, &["f2", "f4", "f6"], |_| {});
    let mut listed = Vec::new();
    let mut cursor: Option<String> = None;
    let mut first_page = Vec::new();
    // Held at f2, f4 and f6: 120, 240 and 360 files walked, enough for
    // the first three pages of 100.
    for folder in ["f2", "f4", "f6"] {
        assert_eq!(held.paused.recv().unwrap(), folder);
        assert!(!files.wait_indexed(Duration::ZERO), "the first scan is still running");
        let params = cursor.as_ref().map_or_else(|| json!({}), |c| json!({"cursor": c}));
        let page = client.request("resources/list", params).await.unwrap();
        assert!(!files.wait_indexed(Duration::ZERO), "answered while the scan is held at {folder}");
        if first_page.is_empty() {
            first_page = names(&page);
        }
        listed.extend(names(&page));
        cursor = Some(page["nextCursor"].as_str().expect("more pages follow").to_owned());
        held.go.send(()).unwrap();
    }
    while let Some(c) = cursor.take() {
        let page = client.request("resources/list", json!({"cursor": c})).await.unwrap();
        listed.extend(names(&page));
        cursor = page.get("nextCursor").and_then(Value::as_str).map(str::to_owned);
    }
    assert_eq!(scan.join().unwrap().len(), 480, "the first scan reports every file it filed");
    let after: Vec<String> = client
        .list_all("resources/list", "resources")
        .await
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(after.len(), 480);
    assert_eq!(first_page, after[..100], "the first page is the page a finished index gives");
    assert_eq!(listed, after, "paging through the running scan missed and repeated nothing");
}

#[test]
fn a_count_asked_for_while_the_walk_is_held_is_what_is_settled_and_never_less_than_asked() {
    let (_dir, root) = folders();
    let files = FileResources::unscanned(ServedTree::new(&root, &FilesOptions::default()).unwrap());
    let (held, scan) = scan_held(&files, &["f3"], |_| {});
    assert_eq!(held.paused.recv().unwrap(), "f3");
    // f0..f2 are walked; the files not filed yet are filed by the ask.
    assert_eq!(ResourceSource::len_past(&files, 0), 180);
    assert_eq!(ResourceSource::len_past(&files, 179), 180);
    let listed = ResourceSource::list(&files, 0..180);
    assert_eq!(listed.first().map(|r| r.name.as_str()), Some("f0/n00.rs"));
    assert_eq!(listed.last().map(|r| r.name.as_str()), Some("f2/n59.rs"));
    held.go.send(()).unwrap();
    scan.join().unwrap();
    assert_eq!(ResourceSource::len_past(&files, 0), 480, "once done, everything");
    assert_eq!(ResourceSource::list(&files, 0..180), listed, "settled positions did not move");
}

#[tokio::test]
async fn a_file_made_in_a_folder_as_the_walk_enters_it_is_filed() {
    let (_dir, root) = folders();
    // Folders last changed an hour ago: only the one changed during the
    // walk is looked at again.
    let hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
    for folder in std::iter::once(root.clone()).chain((0..8).map(|f| root.join(format!("f{f}")))) {
        std::fs::File::open(&folder).unwrap().set_modified(hour_ago).unwrap();
    }
    let files = FileResources::unscanned(ServedTree::new(&root, &FilesOptions::default()).unwrap());
    // The walk lists a folder's names before it says it enters it (it
    // sorts them), so a file made then is found by looking again.
    let make = |dir: &Path| {
        if dir.ends_with("f5") {
            std::fs::write(dir.join("made-on-entry.rs"), "// new\n").unwrap();
        }
    };
    let (held, scan) = scan_held(&files, &[], make);
    drop(held);
    scan.join().unwrap();
    assert_eq!(files.served_path(&root.join("f5/made-on-entry.rs")).as_deref(), Some("f5/made-on-entry.rs"));
    assert_eq!(files.len(), 481);
}

#[tokio::test]
async fn a_folder_lists_right_after_its_name_before_siblings_that_extend_the_name() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    for file in ["foo.rs", "foo-bar", "foo0", "foo/inner.rs", "foo/a/deep.rs", "fo"] {
        write(&root.join(file), "x\n");
    }
    let files = FileResources::new(&root, &FilesOptions::default()).unwrap();
    let expected = ["fo", "foo/a/deep.rs", "foo/inner.rs", "foo-bar", "foo.rs", "foo0"];
    let mut client = TestClient::connect_legacy(&server_of(&files), "2025-06-18").await;
    let listed = client.list_all("resources/list", "resources").await.unwrap();
    let listed: Vec<&str> = listed.iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(listed, expected);
    assert_eq!(files.complete("foo"), expected[1..], "every path starting with the text, in order");
    assert_eq!(files.complete("foo/"), ["foo/a/deep.rs", "foo/inner.rs"]);
}

#[test]
fn a_root_mounted_inside_another_lists_completely_even_when_asked_during_the_scan() {
    let outer = tempfile::tempdir().unwrap();
    let inner = tempfile::tempdir().unwrap();
    for file in ["a.rs", "docs.txt", "z/x.rs"] {
        write(&outer.path().join(file), "x\n");
    }
    write(&inner.path().join("guide.md"), "# guide\n");
    let options = FilesOptions {
        roots: vec![
            RootSpec { path: outer.path().to_path_buf(), mount: String::new() },
            RootSpec { path: inner.path().to_path_buf(), mount: "docs".into() },
        ],
        ..FilesOptions::default()
    };
    let tree = ServedTree::new(outer.path(), &options).unwrap();
    assert!(!tree.walks_in_served_order(), "docs/ is mounted inside the root at \"\"");
    let files = FileResources::unscanned(tree);
    let (held, scan) = scan_held(&files, &["z"], |_| {});
    assert_eq!(held.paused.recv().unwrap(), "z");
    let asking = files.clone();
    let asked = std::thread::spawn(move || ResourceSource::len_past(&asking, 0));
    held.go.send(()).unwrap();
    assert_eq!(asked.join().unwrap(), 4, "a list during the scan waits for all of it");
    scan.join().unwrap();
    let listed: Vec<String> = ResourceSource::list(&files, 0..4).into_iter().map(|r| r.name).collect();
    assert_eq!(listed, ["a.rs", "docs/guide.md", "docs.txt", "z/x.rs"]);
}
