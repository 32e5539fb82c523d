//! Changes applied path by path end where a fresh full scan would: after
//! each step of a sequence of edits (saved, new, removed and ignored files,
//! a new folder, a renamed folder, `.gitignore` edits at a package and at
//! the root, a file replaced by a folder, a folder removed), the index
//! updated from the batch a watcher reports equals the index of a new full
//! scan, files and watched folders alike. An overflowing watcher rescans
//! everything and subscribers hear of it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;
use switchboard_files::{Change, FileResources, FilesOptions, WatchBatch};
use switchboard_server::Server;
use switchboard_testkit::TestClient;

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, text).unwrap();
}

fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    write(&p.join(".gitignore"), "*.log\n");
    for package in ["a", "b"] {
        write(&p.join(package).join(".gitignore"), "target/\n");
        write(&p.join(package).join("target/out.o"), "built");
        write(&p.join(package).join("src/x.rs"), "// x\n");
        write(&p.join(package).join("src/y.rs"), "// y\n");
        write(&p.join(package).join("src/inner/z.rs"), "// z\n");
        write(&p.join(package).join("notes.log"), "ignored\n");
    }
    write(&p.join("README.md"), "# readme\n");
    dir
}

/// What an index serves: every file with its size, and the folders watched.
type Served = (Vec<(String, PathBuf, u64)>, Vec<PathBuf>);

fn served(files: &FileResources) -> Served {
    (files.scanned_files(), files.watch_dirs().into_iter().collect())
}

type Step = Box<dyn Fn(&Path)>;

fn step(change: impl Fn(&Path) + 'static) -> Step {
    Box::new(change)
}

fn batch(paths: &[PathBuf]) -> WatchBatch {
    WatchBatch { paths: paths.iter().cloned().collect(), overflow: false }
}

#[test]
fn updates_from_watch_batches_match_a_fresh_full_scan() {
    let dir = tree();
    let root = dir.path().canonicalize().unwrap();
    let options = FilesOptions::default();
    let files = FileResources::new(&root, &options).unwrap();
    let p = |rel: &str| root.join(rel);
    // Each step: what changes on disk, then the paths a flat watcher reports.
    let steps: Vec<(&str, Step, Vec<PathBuf>)> = vec![
        ("save", step(|r: &Path| write(&r.join("a/src/x.rs"), "// x, saved\n")), vec![p("a/src/x.rs")]),
        ("new file", step(|r: &Path| write(&r.join("a/src/new.rs"), "// new\n")), vec![p("a/src/new.rs")]),
        ("ignored file", step(|r: &Path| write(&r.join("a/src/more.log"), "x")), vec![p("a/src/more.log")]),
        ("hidden file", step(|r: &Path| write(&r.join("a/.env"), "SECRET=1")), vec![p("a/.env")]),
        (
            "removed file",
            step(|r: &Path| std::fs::remove_file(r.join("b/src/y.rs")).unwrap()),
            vec![p("b/src/y.rs")],
        ),
        (
            "new folder",
            step(|r: &Path| {
                write(&r.join("c/deep/er/one.rs"), "1");
                write(&r.join("c/two.rs"), "2");
            }),
            vec![p("c")],
        ),
        (
            "renamed folder",
            step(|r: &Path| std::fs::rename(r.join("a/src"), r.join("a/lib")).unwrap()),
            vec![p("a/src"), p("a/lib")],
        ),
        (
            "package .gitignore",
            step(|r: &Path| write(&r.join("b/.gitignore"), "inner/\n")),
            vec![p("b/.gitignore")],
        ),
        ("root .gitignore", step(|r: &Path| write(&r.join(".gitignore"), "two.rs\n")), vec![p(".gitignore")]),
        (
            "file becomes a folder",
            step(|r: &Path| {
                std::fs::remove_file(r.join("a/lib/x.rs")).unwrap();
                write(&r.join("a/lib/x.rs/inside.rs"), "inside");
            }),
            vec![p("a/lib/x.rs")],
        ),
        (
            "removed folder",
            step(|r: &Path| std::fs::remove_dir_all(r.join("c")).unwrap()),
            vec![p("c"), p("c/deep"), p("c/deep/er/one.rs")],
        ),
        ("everything in .git", step(|r: &Path| write(&r.join(".git/index"), "index")), vec![p(".git/index")]),
    ];
    for (what, change, paths) in steps {
        change(&root);
        let changes = files.update(&batch(&paths));
        let fresh = FileResources::new(&root, &options).unwrap();
        assert_eq!(served(&files), served(&fresh), "after the step {what:?} (changes {changes:?})");
    }
    // The sequence did change what is served, in every direction.
    let (listed, _) = served(&files);
    let names: Vec<&str> = listed.iter().map(|(s, _, _)| s.as_str()).collect();
    for expected in ["a/lib/new.rs", "a/lib/x.rs/inside.rs", "a/notes.log", "b/notes.log", "b/target/out.o"] {
        assert!(names.contains(&expected), "{expected} not in {names:?}");
    }
    for gone in ["a/src/x.rs", "b/src/y.rs", "b/src/inner/z.rs", "c/two.rs", "a/.env"] {
        assert!(!names.contains(&gone), "{gone} still in {names:?}");
    }
}

#[test]
fn a_saved_file_reports_it_modified_even_with_the_same_size_and_time() {
    let dir = tree();
    let root = dir.path().canonicalize().unwrap();
    let files = FileResources::new(&root, &FilesOptions::default()).unwrap();
    let changes = files.update(&batch(&[root.join("a/src/x.rs")]));
    assert_eq!(changes, vec![Change::Modified("a/src/x.rs".into())]);
    // An ignored file's event changes nothing.
    assert!(files.update(&batch(&[root.join("a/target/out.o")])).is_empty());
}

#[tokio::test]
async fn an_overflowing_watcher_rescans_everything_and_subscribers_hear_it() {
    let dir = tree();
    let root = dir.path().canonicalize().unwrap();
    let files = FileResources::new(&root, &FilesOptions::default()).unwrap();
    let server = Server::builder("files", "1")
        .resource_source(std::sync::Arc::new(files.clone()))
        .resource_template(files.template())
        .build()
        .unwrap();
    let mut client = TestClient::connect_legacy(&server, "2025-06-18").await;
    client.request("resources/subscribe", json!({"uri": "file:///a/src/x.rs"})).await.unwrap();
    // Changes the watcher never reported (its queue overflowed).
    write(&root.join("a/src/x.rs"), "// x, changed while events were lost\n");
    write(&root.join("b/src/lost.rs"), "// lost\n");
    std::fs::remove_file(root.join("README.md")).unwrap();
    let overflow = WatchBatch { paths: Default::default(), overflow: true };
    let mut changes = files.sync(&server, &overflow).await.unwrap();
    changes.sort();
    assert_eq!(
        changes,
        vec![
            Change::Added("b/src/lost.rs".into()),
            Change::Removed("README.md".into()),
            Change::Modified("a/src/x.rs".into()),
        ]
    );
    let wait = Duration::from_secs(20);
    let updated = tokio::time::timeout(wait, client.next_notification("notifications/resources/updated"))
        .await
        .unwrap();
    assert_eq!(updated.unwrap()["params"]["uri"], "file:///a/src/x.rs");
    tokio::time::timeout(wait, client.next_notification("notifications/resources/list_changed"))
        .await
        .unwrap()
        .unwrap();
    let listed: Vec<String> = client
        .list_all("resources/list", "resources")
        .await
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap().to_owned())
        .collect();
    assert!(listed.contains(&"file:///b/src/lost.rs".to_owned()), "{listed:?}");
    assert!(!listed.contains(&"file:///README.md".to_owned()), "{listed:?}");
}

/// `many` more files under `many/` in the usual tree, served before any
/// scan: the files, a server over them, and a thread that indexes them
/// after 300 ms (so a request sent now arrives during the first index).
fn served_before_the_first_index(
    many: usize,
) -> (tempfile::TempDir, PathBuf, FileResources, Server, std::thread::JoinHandle<Vec<Change>>) {
    let dir = tree();
    let root = dir.path().canonicalize().unwrap();
    for i in 0..many {
        write(&root.join(format!("many/f{i:03}.rs")), "// many\n");
    }
    let tree = switchboard_files::ServedTree::new(&root, &FilesOptions::default()).unwrap();
    let files = FileResources::unscanned(tree);
    let server = Server::builder("files", "1")
        .resource_source(std::sync::Arc::new(files.clone()))
        .resource_template(files.template())
        .build()
        .unwrap();
    let indexing = files.clone();
    let scan = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        indexing.rescan(&WatchBatch::default())
    });
    (dir, root, files, server, scan)
}

#[tokio::test]
async fn a_list_asked_for_during_the_first_index_waits_for_it_and_is_complete() {
    let (_dir, root, _files, server, scan) = served_before_the_first_index(500);
    let mut client = TestClient::connect_legacy(&server, "2025-06-18").await;
    let listed = client.list_all("resources/list", "resources").await.unwrap();
    let fresh = FileResources::new(&root, &FilesOptions::default()).unwrap();
    assert_eq!(listed.len(), fresh.len(), "the first list holds every served file");
    assert_eq!(listed.len(), 500 + 7);
    assert!(!scan.join().unwrap().is_empty());
}

#[tokio::test]
async fn a_completion_asked_for_during_the_first_index_waits_for_it() {
    let (_dir, _root, _files, server, scan) = served_before_the_first_index(50);
    let mut client = TestClient::connect_legacy(&server, "2025-06-18").await;
    let completed = client
        .request(
            "completion/complete",
            json!({
                "ref": {"type": "ref/resource", "uri": "file:///{+path}"},
                "argument": {"name": "path", "value": "many/f0"}
            }),
        )
        .await
        .unwrap();
    let values = completed["completion"]["values"].as_array().unwrap();
    assert_eq!(values.len(), 50, "every file under many/ is a candidate: {completed}");
    assert!(!scan.join().unwrap().is_empty());
}
