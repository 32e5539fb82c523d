//! A real repository, built with libgit2 in a temporary folder, served
//! through a real server and the in-memory client.

use std::path::Path;

use git2::{Repository, Signature, Time};
use serde_json::{Value, json};
use switchboard_git::{GitOptions, GitResources};
use switchboard_server::Server;
use switchboard_testkit::TestClient;

/// Writes `files` (None = delete), commits them on HEAD with `message` at `when`.
fn commit(repo: &Repository, files: &[(&str, Option<&[u8]>)], message: &str, when: i64) -> git2::Oid {
    let workdir = repo.workdir().unwrap();
    let mut index = repo.index().unwrap();
    for (path, contents) in files {
        let full = workdir.join(path);
        match contents {
            Some(bytes) => {
                std::fs::create_dir_all(full.parent().unwrap()).unwrap();
                std::fs::write(&full, bytes).unwrap();
                index.add_path(Path::new(path)).unwrap();
            }
            None => {
                std::fs::remove_file(&full).unwrap();
                index.remove_path(Path::new(path)).unwrap();
            }
        }
    }
    index.write().unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let sig = Signature::new("Ada Lovelace", "ada@example.com", &Time::new(when, 0)).unwrap();
    let parents: Vec<git2::Commit<'_>> =
        repo.head().ok().and_then(|h| h.peel_to_commit().ok()).into_iter().collect();
    let parents: Vec<&git2::Commit<'_>> = parents.iter().collect();
    repo.commit(Some("HEAD"), &sig, &sig, message, &tree, &parents).unwrap()
}

/// A repository with four commits, a branch, a tag, a binary file and a deletion.
fn repository() -> (tempfile::TempDir, Vec<git2::Oid>) {
    let dir = tempfile::tempdir().unwrap();
    let repo = Repository::init(dir.path()).unwrap();
    let c1 = commit(
        &repo,
        &[("README.md", Some(b"# Demo\n")), ("src/lib.rs", Some(b"pub fn one() {}\n"))],
        "Initial commit",
        1_700_000_000,
    );
    let c2 = commit(
        &repo,
        &[
            ("src/lib.rs", Some(b"pub fn one() {}\npub fn two() {}\n")),
            ("logo.png", Some(b"\x89PNG\r\n\x1a\n\0\0\0\x01")),
        ],
        "Add two and a logo",
        1_700_000_100,
    );
    repo.tag_lightweight("v1.0", &repo.find_object(c2, None).unwrap(), false).unwrap();
    repo.branch("feature", &repo.find_commit(c2).unwrap(), false).unwrap();
    let c3 = commit(&repo, &[("notes.txt", Some(b"temporary\n"))], "Add notes", 1_700_000_200);
    let c4 = commit(
        &repo,
        &[("notes.txt", None), ("README.md", Some(b"# Demo\n\nMore.\n"))],
        "Remove notes, extend README\n\nA longer body.",
        1_700_000_300,
    );
    (dir, vec![c1, c2, c3, c4])
}

async fn serve(dir: &Path, options: GitOptions) -> TestClient {
    let git = GitResources::discover(dir, options).unwrap().expect("a repository");
    let mut builder = Server::builder("git", "1");
    for r in git.resources() {
        builder = builder.resource(r);
    }
    for t in git.templates() {
        builder = builder.resource_template(t);
    }
    TestClient::connect_legacy(&builder.build().unwrap(), "2025-06-18").await
}

async fn read_text(client: &mut TestClient, uri: &str) -> String {
    let read = client.read_resource(uri).await.unwrap_or_else(|e| panic!("{uri}: {e}"));
    read["contents"][0]["text"].as_str().unwrap_or_else(|| panic!("{uri}: not text: {read}")).to_owned()
}

fn rpc(e: switchboard_testkit::Error) -> (i32, String) {
    match e {
        switchboard_testkit::Error::Rpc(e) => (e.code.0, e.message.into_owned()),
        other => panic!("expected a JSON-RPC error, got {other}"),
    }
}

#[tokio::test]
async fn lists_the_log_and_the_templates() {
    let (dir, ids) = repository();
    let mut client = serve(dir.path(), GitOptions::default()).await;
    let resources = client.list_all("resources/list", "resources").await.unwrap();
    assert_eq!(resources[0]["uri"], "git://log");
    let templates: Vec<Value> = client
        .list_all("resources/templates/list", "resourceTemplates")
        .await
        .unwrap()
        .iter()
        .map(|t| t["uriTemplate"].clone())
        .collect();
    assert_eq!(
        templates,
        [
            json!("git://log/{+path}"),
            json!("git://commit/{rev}"),
            json!("git://diff/{rev}"),
            json!("git://file/{rev}/{+path}")
        ]
    );
    let log = read_text(&mut client, "git://log").await;
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 4, "{log}");
    assert!(lines[0].ends_with("Ada Lovelace Remove notes, extend README"), "{log}");
    assert!(lines[0].contains("2023-11-14T22:18:20Z"), "{log}");
    assert!(lines[3].starts_with(&ids[0].to_string()[..7]), "{log}");
    // A limit, and the log of one path.
    let mut limited = serve(dir.path(), GitOptions { log_limit: 2, ..GitOptions::default() }).await;
    assert_eq!(read_text(&mut limited, "git://log").await.lines().count(), 2);
    let readme = read_text(&mut client, "git://log/README.md").await;
    assert_eq!(readme.lines().count(), 2, "{readme}");
    let src = read_text(&mut client, "git://log/src").await;
    assert_eq!(src.lines().count(), 2, "{src}");
    let none = read_text(&mut client, "git://log/nothing-here").await;
    assert!(none.starts_with("No commit"), "{none}");
}

#[tokio::test]
async fn reads_commits_diffs_and_files_at_revisions() {
    let (dir, ids) = repository();
    let mut client = serve(dir.path(), GitOptions::default()).await;
    let head = read_text(&mut client, "git://commit/HEAD").await;
    assert!(head.starts_with(&format!("commit {}\nparent {}\n", ids[3], ids[2])), "{head}");
    assert!(head.contains("author Ada Lovelace <ada@example.com> 2023-11-14T22:18:20Z"), "{head}");
    assert!(head.contains("Remove notes, extend README\n\nA longer body."), "{head}");
    assert!(head.contains("changed files:\nM README.md\nD notes.txt\n"), "{head}");
    // By tag, by branch, by short id, by ancestry.
    for rev in ["v1.0", "feature", &ids[1].to_string()[..8], "HEAD~2"] {
        let text = read_text(&mut client, &format!("git://commit/{rev}")).await;
        assert!(text.starts_with(&format!("commit {}", ids[1])), "{rev}: {text}");
    }
    let diff = read_text(&mut client, "git://diff/HEAD").await;
    assert!(diff.contains("diff --git a/README.md b/README.md"), "{diff}");
    assert!(diff.contains("+More."), "{diff}");
    assert!(diff.contains("-temporary"), "{diff}");
    // A root commit diffs against the empty tree.
    let root = read_text(&mut client, &format!("git://diff/{}", ids[0])).await;
    assert!(root.contains("+pub fn one() {}"), "{root}");
    let read = client.read_resource("git://diff/HEAD").await.unwrap();
    assert_eq!(read["contents"][0]["mimeType"], "text/x-diff");

    assert_eq!(
        read_text(&mut client, "git://file/v1.0/src/lib.rs").await,
        "pub fn one() {}\npub fn two() {}\n"
    );
    assert_eq!(read_text(&mut client, &format!("git://file/{}/README.md", ids[0])).await, "# Demo\n");
    // A file deleted later is still there at its revision.
    assert_eq!(read_text(&mut client, "git://file/HEAD~1/notes.txt").await, "temporary\n");
    let logo = client.read_resource("git://file/HEAD/logo.png").await.unwrap();
    assert_eq!(logo["contents"][0]["mimeType"], "image/png");
    assert_eq!(logo["contents"][0]["blob"], "iVBORw0KGgoAAAAB");
}

#[tokio::test]
async fn bad_revisions_paths_and_sizes_get_clear_errors() {
    let (dir, _) = repository();
    let mut client = serve(dir.path(), GitOptions { max_blob_bytes: 10, ..GitOptions::default() }).await;
    for uri in [
        "git://commit/nope",
        "git://diff/deadbeef",
        "git://file/HEAD/notes.txt",
        "git://file/nope/README.md",
        "git://commit/-p",
    ] {
        let (code, message) = rpc(client.read_resource(uri).await.unwrap_err());
        assert_eq!(code, -32002, "{uri}: {message}");
    }
    for uri in ["git://file/HEAD/../secret", "git://file/HEAD/src", "git://log/a/../b"] {
        let (code, message) = rpc(client.read_resource(uri).await.unwrap_err());
        assert_eq!(code, -32602, "{uri}: {message}");
    }
    let (code, message) = rpc(client.read_resource("git://file/HEAD/README.md").await.unwrap_err());
    assert_eq!(code, -32602);
    assert!(message.contains("max_blob_bytes"), "{message}");
    // Diffs are cut at the limit with a note.
    let diff = read_text(&mut client, "git://diff/HEAD").await;
    assert!(diff.contains("[diff cut at 10 bytes"), "{diff}");
    // The server keeps serving.
    assert!(read_text(&mut client, "git://log").await.contains("Initial commit"));
}

#[tokio::test]
async fn completes_revisions_and_paths() {
    let (dir, ids) = repository();
    let mut client = serve(dir.path(), GitOptions::default()).await;
    let reference = json!({"type": "ref/resource", "uri": "git://commit/{rev}"});
    let done = client.complete(reference.clone(), "rev", "fe").await.unwrap();
    assert_eq!(done["completion"]["values"], json!(["feature"]));
    let done = client.complete(reference.clone(), "rev", "v").await.unwrap();
    assert_eq!(done["completion"]["values"], json!(["v1.0"]));
    let short = &ids[2].to_string()[..4];
    let done = client.complete(reference, "rev", short).await.unwrap();
    assert!(
        done["completion"]["values"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| ids[2].to_string().starts_with(v.as_str().unwrap()))
    );
    let file = json!({"type": "ref/resource", "uri": "git://file/{rev}/{+path}"});
    let done = client.complete(file.clone(), "path", "src/").await.unwrap();
    assert_eq!(done["completion"]["values"], json!(["src/lib.rs"]));
    // With the revision chosen: the tree at that revision.
    let r = client
        .request(
            "completion/complete",
            json!({"ref": file, "argument": {"name": "path", "value": "no"}, "context": {"arguments": {"rev": "HEAD~1"}}}),
        )
        .await
        .unwrap();
    assert_eq!(r["completion"]["values"], json!(["notes.txt"]));
}

#[test]
fn a_folder_outside_any_repository_is_none() {
    let dir = tempfile::tempdir().unwrap();
    assert!(GitResources::discover(dir.path(), GitOptions::default()).unwrap().is_none());
    let (repo_dir, _) = repository();
    std::fs::create_dir_all(repo_dir.path().join("src/deep")).unwrap();
    let git =
        GitResources::discover(&repo_dir.path().join("src/deep"), GitOptions::default()).unwrap().unwrap();
    assert_eq!(git.workdir().canonicalize().unwrap(), repo_dir.path().canonicalize().unwrap());
    assert!(git.git_dir().ends_with(".git/") || git.git_dir().ends_with(".git"));
}

/// A file at a revision has the MIME type the `file://` resources give it:
/// one table (`switchboard_files::mime_from_name`), so `.ts` is TypeScript
/// here too, not MPEG transport-stream video.
#[tokio::test]
async fn files_at_a_revision_have_the_shared_mime_types() {
    let dir = tempfile::tempdir().unwrap();
    let repo = Repository::init(dir.path()).unwrap();
    let files: &[(&str, Option<&[u8]>)] = &[
        ("app.ts", Some(b"export const x = 1;\n")),
        ("Main.java", Some(b"class Main {}\n")),
        ("tool.py", Some(b"print(1)\n")),
    ];
    commit(&repo, files, "Sources", 1_700_000_000);
    let mut client = serve(dir.path(), GitOptions::default()).await;
    for (path, mime) in
        [("app.ts", "text/typescript"), ("Main.java", "text/x-java"), ("tool.py", "text/x-python")]
    {
        let read = client.read_resource(&format!("git://file/HEAD/{path}")).await.unwrap();
        assert_eq!(read["contents"][0]["mimeType"], mime, "{path}");
    }
}
