//! The served folder through a real server and the in-memory client:
//! listing, reads, the template, completion, limits, and changes on disk
//! arriving as notifications through the real watcher.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use switchboard_files::{Change, DebouncedWatcher, FileResources, FilesOptions, RootSpec};
use switchboard_server::Server;
use switchboard_testkit::TestClient;

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::create_dir_all(p.join("src/nested")).unwrap();
    std::fs::create_dir_all(p.join("target/debug")).unwrap();
    std::fs::write(p.join(".gitignore"), "target/\n*.log\n.env\n").unwrap();
    std::fs::write(p.join("src/main.rs"), "fn main() {}\n").unwrap();
    std::fs::write(p.join("src/nested/deep file.txt"), "deep\n").unwrap();
    std::fs::write(p.join("README.md"), "# Hello\n").unwrap();
    std::fs::write(p.join("LICENSE"), "MIT\n").unwrap();
    std::fs::write(p.join("logo.png"), b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01").unwrap();
    std::fs::write(p.join("blob"), b"\x00\x01\x02\xff").unwrap();
    std::fs::write(p.join("debug.log"), "ignored\n").unwrap();
    std::fs::write(p.join(".env"), "SECRET=1\n").unwrap();
    std::fs::write(p.join(".hidden"), "hidden\n").unwrap();
    std::fs::write(p.join("target/debug/out"), "built\n").unwrap();
    dir
}

fn serve(files: &FileResources) -> Server {
    Server::builder("files", "1")
        .resource_source(std::sync::Arc::new(files.clone()))
        .resource_template(files.template())
        .build()
        .unwrap()
}

async fn uris(client: &mut TestClient) -> Vec<String> {
    let mut uris: Vec<String> = client
        .list_all("resources/list", "resources")
        .await
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap().to_owned())
        .collect();
    uris.sort();
    uris
}

fn rpc_code(e: switchboard_testkit::Error) -> (i32, String) {
    match e {
        switchboard_testkit::Error::Rpc(e) => (e.code.0, e.message.into_owned()),
        other => panic!("expected a JSON-RPC error, got {other}"),
    }
}

#[tokio::test]
async fn lists_what_git_would_track_with_metadata() {
    let dir = project();
    let files = FileResources::new(dir.path(), &FilesOptions::default()).unwrap();
    let server = serve(&files);
    let mut client = TestClient::connect_legacy(&server, "2025-06-18").await;
    assert_eq!(
        uris(&mut client).await,
        vec![
            "file:///LICENSE",
            "file:///README.md",
            "file:///blob",
            "file:///logo.png",
            "file:///src/main.rs",
            "file:///src/nested/deep%20file.txt",
        ]
    );
    let listed = client.list_all("resources/list", "resources").await.unwrap();
    let main = listed.iter().find(|r| r["uri"] == "file:///src/main.rs").unwrap();
    assert_eq!(main["name"], "src/main.rs");
    assert_eq!(main["mimeType"], "text/x-rust");
    assert_eq!(main["size"], 13);
    let modified = main["annotations"]["lastModified"].as_str().unwrap();
    assert!(modified.ends_with('Z') && modified.len() == 20, "{modified}");
    let by_uri = |u: &str| listed.iter().find(|r| r["uri"] == u).unwrap()["mimeType"].clone();
    assert_eq!(by_uri("file:///logo.png"), "image/png");
    assert_eq!(by_uri("file:///LICENSE"), "text/plain");
    assert_eq!(by_uri("file:///blob"), "application/octet-stream");
    assert_eq!(by_uri("file:///README.md"), "text/markdown");
}

#[tokio::test]
async fn source_files_are_listed_and_read_with_their_language_type() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.ts"), "export const a = 1;\n").unwrap();
    std::fs::write(dir.path().join("B.java"), "class B {}\n").unwrap();
    std::fs::write(dir.path().join("c.py"), "print('c')\n").unwrap();
    std::fs::write(dir.path().join("Dockerfile"), "FROM scratch\n").unwrap();
    let files = FileResources::new(dir.path(), &FilesOptions::default()).unwrap();
    let server = serve(&files);
    let mut client = TestClient::connect_legacy(&server, "2025-11-25").await;
    let listed = client.list_all("resources/list", "resources").await.unwrap();
    let types: Vec<(&str, &str)> =
        listed.iter().map(|r| (r["uri"].as_str().unwrap(), r["mimeType"].as_str().unwrap())).collect();
    assert_eq!(
        types,
        [
            ("file:///B.java", "text/x-java"),
            ("file:///Dockerfile", "text/x-dockerfile"),
            ("file:///a.ts", "text/typescript"),
            ("file:///c.py", "text/x-python"),
        ]
    );
    let read = client.read_resource("file:///a.ts").await.unwrap();
    assert_eq!(
        read["contents"][0],
        json!({"uri": "file:///a.ts", "mimeType": "text/typescript", "text": "export const a = 1;\n"})
    );
}

#[tokio::test]
async fn reads_text_as_text_and_binary_as_blob() {
    let dir = project();
    let files = FileResources::new(dir.path(), &FilesOptions::default()).unwrap();
    let server = serve(&files);
    let mut client = TestClient::connect_legacy(&server, "2025-11-25").await;
    let text = client.read_resource("file:///src/main.rs").await.unwrap();
    assert_eq!(
        text["contents"][0],
        json!({"uri": "file:///src/main.rs", "mimeType": "text/x-rust", "text": "fn main() {}\n"})
    );
    let spaced = client.read_resource("file:///src/nested/deep%20file.txt").await.unwrap();
    assert_eq!(spaced["contents"][0]["text"], "deep\n");
    let blob = client.read_resource("file:///blob").await.unwrap();
    assert_eq!(blob["contents"][0]["blob"], "AAEC/w==");
    assert!(blob["contents"][0].get("text").is_none());
    // Through the template: an encoded slash still names the same file.
    let via_template = client.read_resource("file:///src%2Fmain.rs").await.unwrap();
    assert_eq!(via_template["contents"][0]["text"], "fn main() {}\n");
}

#[tokio::test]
async fn ignored_hidden_outside_and_missing_files_are_not_served() {
    let dir = project();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "secret").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), dir.path().join("link.txt")).unwrap();
    let files = FileResources::new(dir.path(), &FilesOptions::default()).unwrap();
    let server = serve(&files);
    let mut client = TestClient::connect_legacy(&server, "2025-06-18").await;
    for uri in [
        "file:///.env",
        "file:///debug.log",
        "file:///target/debug/out",
        "file:///.hidden",
        "file:///.git/config",
        "file:///link.txt",
        "file:///nope.rs",
        "file:///../etc/passwd",
        "file:///%2e%2e/etc/passwd",
        "file:///src/../.env",
    ] {
        let (code, message) = rpc_code(client.read_resource(uri).await.unwrap_err());
        assert!(code == -32002 || code == -32602, "{uri}: {code} {message}");
    }
    // The server keeps serving.
    assert!(client.read_resource("file:///README.md").await.is_ok());
}

#[tokio::test]
async fn a_listed_file_is_checked_again_when_read() {
    let dir = project();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "secret outside").unwrap();
    let files = FileResources::new(dir.path(), &FilesOptions::default()).unwrap();
    let server = serve(&files);
    let mut client = TestClient::connect_legacy(&server, "2025-06-18").await;
    assert!(uris(&mut client).await.contains(&"file:///README.md".to_owned()));
    // No rescan in between: the list is stale, the read is not.
    std::fs::write(dir.path().join(".gitignore"), "target/\n*.log\n.env\nREADME.md\n").unwrap();
    let (code, _) = rpc_code(client.read_resource("file:///README.md").await.unwrap_err());
    assert_eq!(code, -32002, "a file that became ignored is not read");
    #[cfg(unix)]
    {
        std::fs::remove_file(dir.path().join("LICENSE")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.txt"), dir.path().join("LICENSE")).unwrap();
        let (code, message) = rpc_code(client.read_resource("file:///LICENSE").await.unwrap_err());
        assert_eq!(code, -32002, "a file that became a symlink out is not read: {message}");
    }
    assert!(client.read_resource("file:///src/main.rs").await.is_ok());
}

#[tokio::test]
async fn large_files_are_listed_but_refused_with_the_limit_named() {
    let dir = project();
    std::fs::write(dir.path().join("big.txt"), "x".repeat(2048)).unwrap();
    let options = FilesOptions { max_file_size: 1024, ..FilesOptions::default() };
    let files = FileResources::new(dir.path(), &options).unwrap();
    let server = serve(&files);
    let mut client = TestClient::connect_legacy(&server, "2025-06-18").await;
    assert!(uris(&mut client).await.contains(&"file:///big.txt".to_owned()));
    let (code, message) = rpc_code(client.read_resource("file:///big.txt").await.unwrap_err());
    assert_eq!(code, -32602);
    assert!(message.contains("2048 bytes") && message.contains("max_file_size"), "{message}");
}

#[tokio::test]
async fn hidden_and_exclude_options() {
    let dir = project();
    let options = FilesOptions {
        hidden: true,
        exclude: vec!["*.png".into(), "src/nested/".into()],
        ..FilesOptions::default()
    };
    let files = FileResources::new(dir.path(), &options).unwrap();
    let server = serve(&files);
    let mut client = TestClient::connect_legacy(&server, "2025-06-18").await;
    let listed = uris(&mut client).await;
    assert!(listed.contains(&"file:///.hidden".to_owned()));
    assert!(listed.contains(&"file:///.gitignore".to_owned()));
    assert!(!listed.contains(&"file:///.env".to_owned()), "still gitignored");
    assert!(!listed.iter().any(|u| u.contains(".git/")));
    assert!(!listed.contains(&"file:///logo.png".to_owned()));
    assert!(!listed.iter().any(|u| u.contains("nested")));
    let bad = FilesOptions { exclude: vec!["a{".into()], ..FilesOptions::default() };
    let err = FileResources::new(dir.path(), &bad).unwrap_err().to_string();
    assert!(err.contains("a{"), "{err}");
}

#[tokio::test]
async fn several_roots_under_mounts() {
    let dir = project();
    let docs = tempfile::tempdir().unwrap();
    std::fs::write(docs.path().join("guide.md"), "guide").unwrap();
    let options = FilesOptions {
        roots: vec![
            RootSpec { path: ".".into(), mount: String::new() },
            RootSpec { path: docs.path().to_path_buf(), mount: "docs".into() },
        ],
        ..FilesOptions::default()
    };
    let files = FileResources::new(dir.path(), &options).unwrap();
    let server = serve(&files);
    let mut client = TestClient::connect_legacy(&server, "2025-06-18").await;
    assert!(uris(&mut client).await.contains(&"file:///docs/guide.md".to_owned()));
    let read = client.read_resource("file:///docs/guide.md").await.unwrap();
    assert_eq!(read["contents"][0]["text"], "guide");
    for (roots, needle) in [
        (vec![RootSpec { path: "missing".into(), mount: String::new() }], "missing"),
        (
            vec![
                RootSpec { path: ".".into(), mount: "a".into() },
                RootSpec { path: "src".into(), mount: "a/".into() },
            ],
            "share",
        ),
        (vec![RootSpec { path: ".".into(), mount: "../x".into() }], "plain path"),
    ] {
        let err = FileResources::new(dir.path(), &FilesOptions { roots, ..FilesOptions::default() })
            .unwrap_err()
            .to_string();
        assert!(err.contains(needle), "{err}");
    }
}

#[tokio::test]
async fn template_completes_path_prefixes() {
    let dir = project();
    let files = FileResources::new(dir.path(), &FilesOptions::default()).unwrap();
    let server = serve(&files);
    let mut client = TestClient::connect_legacy(&server, "2025-06-18").await;
    let templates = client.list_all("resources/templates/list", "resourceTemplates").await.unwrap();
    assert_eq!(templates[0]["uriTemplate"], "file:///{+path}");
    let done = client
        .complete(json!({"type": "ref/resource", "uri": "file:///{+path}"}), "path", "src/")
        .await
        .unwrap();
    assert_eq!(done["completion"]["values"], json!(["src/main.rs", "src/nested/deep file.txt"]));
    let none = client
        .complete(json!({"type": "ref/resource", "uri": "file:///{+path}"}), "path", "zzz")
        .await
        .unwrap();
    assert_eq!(none["completion"]["values"], json!([]));
}

async fn wait_for_batch(watcher: &mut DebouncedWatcher) -> switchboard_files::WatchBatch {
    tokio::time::timeout(Duration::from_secs(20), watcher.next()).await.expect("a batch within 20 s").unwrap()
}

/// Waits until a rescan reports something (the watcher may deliver the
/// creation and the write in separate batches).
async fn next_changes(files: &FileResources, server: &Server, watcher: &mut DebouncedWatcher) -> Vec<Change> {
    for _ in 0..10 {
        let batch = wait_for_batch(watcher).await;
        let changes = files.sync(server, &batch).await.unwrap();
        if !changes.is_empty() {
            return changes;
        }
    }
    panic!("no change seen in ten batches");
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}

#[tokio::test]
async fn changes_on_disk_become_notifications() {
    let dir = project();
    let files =
        FileResources::new(dir.path(), &FilesOptions { debounce_ms: 50, ..FilesOptions::default() }).unwrap();
    let server = serve(&files);
    let mut watcher = DebouncedWatcher::new(Duration::from_millis(50)).unwrap();
    for d in files.watch_dirs() {
        watcher.watch_dir_flat(&d).unwrap();
    }
    assert!(!files.watch_dirs().iter().any(|d| d.ends_with("target") || d.ends_with("target/debug")));
    let mut client = TestClient::connect_legacy(&server, "2025-06-18").await;
    client.request("resources/subscribe", json!({"uri": "file:///src/main.rs"})).await.unwrap();

    // A modified file: resources/updated for the subscriber, no list change.
    write(&dir.path().join("src/main.rs"), "fn main() { println!(\"hi\"); }\n");
    let changes = next_changes(&files, &server, &mut watcher).await;
    assert_eq!(changes, vec![Change::Modified("src/main.rs".into())]);
    let updated = client.next_notification("notifications/resources/updated").await.unwrap();
    assert_eq!(updated["params"]["uri"], "file:///src/main.rs");
    let read = client.read_resource("file:///src/main.rs").await.unwrap();
    assert!(read["contents"][0]["text"].as_str().unwrap().contains("hi"));

    // A new file: one list_changed, and it is listed and readable.
    write(&dir.path().join("src/new.rs"), "// new\n");
    let changes = next_changes(&files, &server, &mut watcher).await;
    assert!(changes.contains(&Change::Added("src/new.rs".into())), "{changes:?}");
    client.next_notification("notifications/resources/list_changed").await.unwrap();
    assert!(uris(&mut client).await.contains(&"file:///src/new.rs".to_owned()));

    // An ignored file changes nothing visible.
    write(&dir.path().join("other.log"), "x");
    let batch = wait_for_batch(&mut watcher).await;
    assert!(files.sync(&server, &batch).await.unwrap().is_empty());

    // A removed file: list_changed, and reads are refused.
    std::fs::remove_file(dir.path().join("src/new.rs")).unwrap();
    let changes = next_changes(&files, &server, &mut watcher).await;
    assert_eq!(changes, vec![Change::Removed("src/new.rs".into())]);
    client.next_notification("notifications/resources/list_changed").await.unwrap();
    let (code, _) = rpc_code(client.read_resource("file:///src/new.rs").await.unwrap_err());
    assert_eq!(code, -32002);

    // Editing .gitignore reveals a file.
    write(&dir.path().join(".gitignore"), "target/\n.env\n");
    let changes = next_changes(&files, &server, &mut watcher).await;
    assert!(changes.contains(&Change::Added("debug.log".into())), "{changes:?}");
    let _: Value = client.read_resource("file:///debug.log").await.unwrap();
}
