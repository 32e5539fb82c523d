//! The git tools on a real repository made with libgit2 in a temporary
//! folder, served through a real server and the in-memory client. The
//! path filter here hides `secret*` (in the binary it is the served
//! tree's policy; see crates/switchboard/tests/integration/git_tools.rs).

use std::path::Path;

use git2::{Repository, Signature, Time};
use serde_json::{Value, json};
use switchboard_git::{GitOptions, GitResources};
use switchboard_server::Server;
use switchboard_testkit::TestClient;

fn write(dir: &Path, path: &str, text: &str) {
    let full = dir.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, text).unwrap();
}

/// Writes and stages `files`, commits them on HEAD as `who` at `when`.
fn commit(repo: &Repository, files: &[(&str, &str)], message: &str, who: &str, when: i64) -> git2::Oid {
    let mut index = repo.index().unwrap();
    for (path, text) in files {
        write(repo.workdir().unwrap(), path, text);
        index.add_path(Path::new(path)).unwrap();
    }
    index.write().unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let sig =
        Signature::new(who, &format!("{}@example.com", who.to_lowercase()), &Time::new(when, 0)).unwrap();
    let parent = repo.head().ok().and_then(|h| h.peel_to_commit().ok());
    let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
    repo.commit(Some("HEAD"), &sig, &sig, message, &tree, &parents).unwrap()
}

/// main: c1 (Ada) → c2 (Bob) → c3 (Ada); `topic` branches at c2 and adds one commit.
fn repository() -> (tempfile::TempDir, Repository, Vec<git2::Oid>) {
    let dir = tempfile::tempdir().unwrap();
    let repo = Repository::init(dir.path()).unwrap();
    let c1 = commit(
        &repo,
        &[("src/lib.rs", "one\ntwo\nthree\n"), ("secret.txt", "hunter2\n"), ("README.md", "# Demo\n")],
        "Initial",
        "Ada",
        1_700_000_000,
    );
    let c2 = commit(
        &repo,
        &[("src/lib.rs", "one\nTWO\nthree\n"), ("secret.txt", "hunter3\n")],
        "Shout two",
        "Bob",
        1_710_000_000,
    );
    let c3 = commit(&repo, &[("README.md", "# Demo\n\nMore.\n")], "Extend README", "Ada", 1_720_000_000);
    let topic = repo.branch("topic", &repo.find_commit(c2).unwrap(), false).unwrap();
    let topic_ref = topic.get().name().unwrap().to_owned();
    let sig = Signature::new("Cy", "cy@example.com", &Time::new(1_730_000_000, 0)).unwrap();
    let mut builder = repo.treebuilder(Some(&repo.find_commit(c2).unwrap().tree().unwrap())).unwrap();
    let blob = repo.blob(b"topic\n").unwrap();
    builder.insert("topic.txt", blob, 0o100644).unwrap();
    let tree = repo.find_tree(builder.write().unwrap()).unwrap();
    let c4 = repo
        .commit(Some(&topic_ref), &sig, &sig, "Topic work", &tree, &[&repo.find_commit(c2).unwrap()])
        .unwrap();
    drop((tree, topic, builder));
    (dir, repo, vec![c1, c2, c3, c4])
}

async fn serve(dir: &Path, write: bool) -> TestClient {
    let git = GitResources::discover(dir, GitOptions::default())
        .unwrap()
        .expect("a repository")
        .restrict_paths(|p: &str| !p.starts_with("secret"))
        .restrict_writes(|p: &str| !p.starts_with("protected"));
    let mut builder = Server::builder("git", "1");
    for t in git.tools(write) {
        builder = builder.tool(t);
    }
    for r in git.resources() {
        builder = builder.resource(r);
    }
    for t in git.templates() {
        builder = builder.resource_template(t);
    }
    TestClient::connect_legacy(&builder.build().unwrap(), "2025-06-18").await
}

async fn call(client: &mut TestClient, name: &str, args: Value) -> (String, Value, bool) {
    let r = client.call_tool(name, args).await.unwrap_or_else(|e| panic!("{name}: {e}"));
    let text = r["content"][0]["text"].as_str().unwrap_or_default().to_owned();
    (text, r["structuredContent"].clone(), r["isError"] == json!(true))
}

#[tokio::test]
async fn status_lists_staged_unstaged_and_untracked_without_hidden_paths() {
    let (dir, repo, _) = repository();
    write(dir.path(), "src/lib.rs", "changed\n");
    write(dir.path(), "new.txt", "new\n");
    write(dir.path(), "secret.txt", "changed secret\n");
    write(dir.path(), "staged.txt", "staged\n");
    let mut index = repo.index().unwrap();
    index.add_path(Path::new("staged.txt")).unwrap();
    index.write().unwrap();
    let mut client = serve(dir.path(), false).await;
    let (text, s, error) = call(&mut client, "git_status", json!({})).await;
    assert!(!error, "{text}");
    assert_eq!(s["branch"], "master", "{s}");
    assert_eq!(s["staged"], json!([{"path": "staged.txt", "status": "added"}]));
    assert_eq!(s["unstaged"], json!([{"path": "src/lib.rs", "status": "modified"}]));
    assert_eq!(s["untracked"], json!(["new.txt"]));
    assert_eq!(s["not_shown"], 1);
    assert!(!text.contains("secret") && text.contains("src/lib.rs"), "{text}");
    assert!(s["upstream"].is_null(), "{s}");
    // With an upstream one commit behind HEAD: ahead 1, behind 0.
    repo.remote("origin", "https://example.invalid/demo.git").unwrap();
    let behind = repo.head().unwrap().peel_to_commit().unwrap().parent_id(0).unwrap();
    repo.reference("refs/remotes/origin/master", behind, false, "test").unwrap();
    repo.find_branch("master", git2::BranchType::Local).unwrap().set_upstream(Some("origin/master")).unwrap();
    let (text, s, _) = call(&mut client, "git_status", json!({})).await;
    assert_eq!(
        (s["upstream"].as_str(), s["ahead"].as_u64(), s["behind"].as_u64()),
        (Some("origin/master"), Some(1), Some(0))
    );
    assert!(text.contains("1 ahead, 0 behind"), "{text}");
}

#[tokio::test]
async fn big_diffs_are_cut_with_a_notice_that_says_how_to_narrow() {
    let (dir, _, _) = repository();
    let mut client = serve(dir.path(), false).await;
    let big: String = (0..30_000).map(|i| format!("line {i}\n")).collect();
    write(dir.path(), "src/lib.rs", &big);
    write(dir.path(), "README.md", "changed\n");
    let (text, _, error) = call(&mut client, "git_diff", json!({})).await;
    assert!(!error);
    assert!(text.len() < 101_000, "{}", text.len());
    assert!(
        text.contains("[diff cut at 100000 bytes: ") && text.contains("narrow it with path"),
        "{}",
        &text[text.len() - 300..]
    );
    // Narrowed to the other file, it is whole.
    let (text, _, _) = call(&mut client, "git_diff", json!({"path": "README.md"})).await;
    assert!(text.contains("+changed") && !text.contains("diff cut"), "{text}");
}

#[tokio::test]
async fn diff_covers_worktree_index_revisions_and_ranges() {
    let (dir, repo, ids) = repository();
    let mut client = serve(dir.path(), false).await;
    write(dir.path(), "src/lib.rs", "one\nTWO\nthree\nfour\n");
    write(dir.path(), "secret.txt", "hunter4\n");
    let (text, _, _) = call(&mut client, "git_diff", json!({})).await;
    assert!(text.contains("+four") && !text.contains("hunter") && !text.contains("secret"), "{text}");
    assert!(text.contains("1 changed files not shown"), "{text}");
    let (text, _, _) = call(&mut client, "git_diff", json!({"staged": true})).await;
    assert!(text.starts_with("No differences"), "{text}");
    repo.index().and_then(|mut i| i.add_path(Path::new("src/lib.rs")).and_then(|_| i.write())).unwrap();
    let (text, _, _) = call(&mut client, "git_diff", json!({"staged": true, "context_lines": 0})).await;
    assert!(text.contains("+four") && !text.contains("\n three"), "{text}");
    let (text, _, _) = call(&mut client, "git_diff", json!({"from": ids[0].to_string(), "to": "HEAD"})).await;
    assert!(text.contains("-two") && text.contains("+More.") && !text.contains("hunter"), "{text}");
    // A..B and A...B: master..topic has master's own README change undone; the merge base does not.
    let (two_dot, _, _) = call(&mut client, "git_diff", json!({"range": "master..topic"})).await;
    assert!(two_dot.contains("-More.") && two_dot.contains("+topic"), "{two_dot}");
    let (three_dot, _, _) = call(&mut client, "git_diff", json!({"range": "master...topic"})).await;
    assert!(!three_dot.contains("More.") && three_dot.contains("+topic"), "{three_dot}");
    let (text, _, _) =
        call(&mut client, "git_diff", json!({"range": "HEAD~2..HEAD", "path": "README.md"})).await;
    assert!(text.contains("+More.") && !text.contains("TWO"), "{text}");
    // Flags and hidden paths are refused.
    for args in [
        json!({"from": "--output=/tmp/x"}),
        json!({"range": "--output=/tmp/x..HEAD"}),
        json!({"range": "HEAD..-p"}),
        json!({"path": "secret.txt"}),
        json!({"path": "../x"}),
        json!({"path": "/etc/passwd"}),
    ] {
        let (text, _, error) = call(&mut client, "git_diff", args.clone()).await;
        assert!(error, "{args}: {text}");
    }
    assert!(
        !Path::new("/tmp/x").exists()
            || std::fs::read_to_string("/tmp/x").is_ok_and(|t| !t.contains("hunter"))
    );
}

#[tokio::test]
async fn range_diffs_are_resources_too() {
    let (dir, _, _) = repository();
    let mut client = serve(dir.path(), false).await;
    for (uri, expect) in [("git://diff/HEAD~2..HEAD", "+More."), ("git://diff/master...topic", "+topic")] {
        let read = client.read_resource(uri).await.unwrap_or_else(|e| panic!("{uri}: {e}"));
        let text = read["contents"][0]["text"].as_str().unwrap();
        assert!(text.contains(expect) && !text.contains("hunter"), "{uri}: {text}");
    }
    assert!(client.read_resource("git://diff/HEAD..-p").await.is_err());
}

#[tokio::test]
async fn log_filters_by_path_author_and_dates() {
    let (dir, _, ids) = repository();
    let mut client = serve(dir.path(), false).await;
    let (text, s, _) = call(&mut client, "git_log", json!({})).await;
    assert_eq!(s["commits"].as_array().unwrap().len(), 3, "{text}");
    assert_eq!(s["commits"][0]["id"], ids[2].to_string());
    let (_, s, _) = call(&mut client, "git_log", json!({"author": "BOB"})).await;
    assert_eq!(s["commits"][0]["subject"], "Shout two");
    assert_eq!(s["commits"].as_array().unwrap().len(), 1);
    let (_, s, _) = call(&mut client, "git_log", json!({"since": "2024-01-01", "until": "2024-06-01"})).await;
    assert_eq!(s["commits"].as_array().unwrap().len(), 1, "{s}");
    let (_, s, _) = call(&mut client, "git_log", json!({"path": "src", "rev": "topic"})).await;
    assert_eq!(s["commits"].as_array().unwrap().len(), 2, "{s}");
    let (text, s, _) = call(&mut client, "git_log", json!({"max_count": 1})).await;
    assert_eq!(s["truncated"], true);
    assert!(text.contains("raise max_count"), "{text}");
    for args in [json!({"path": "secret.txt"}), json!({"rev": "-n1"}), json!({"since": "yesterday-ish"})] {
        let (text, _, error) = call(&mut client, "git_log", args.clone()).await;
        assert!(error, "{args}: {text}");
    }
}

#[tokio::test]
async fn an_empty_repository_has_an_empty_log() {
    let dir = tempfile::tempdir().unwrap();
    Repository::init(dir.path()).unwrap();
    let mut client = serve(dir.path(), false).await;
    let read = client.read_resource("git://log").await.unwrap();
    assert_eq!(read["contents"][0]["text"], "No commits yet.\n");
    let (_, s, error) = call(&mut client, "git_log", json!({})).await;
    assert!(!error);
    assert_eq!(s["commits"], json!([]));
    let (_, s, error) = call(&mut client, "git_status", json!({})).await;
    assert!(!error && s["head"].is_null(), "{s}");
    let (_, s, _) = call(&mut client, "git_branch", json!({})).await;
    assert_eq!(s["branches"], json!([]));
}

#[tokio::test]
async fn show_and_blame_name_commits_and_lines() {
    let (dir, _, ids) = repository();
    let mut client = serve(dir.path(), false).await;
    let (text, _, _) = call(&mut client, "git_show", json!({"rev": "HEAD~1"})).await;
    assert!(text.starts_with(&format!("commit {}", ids[1])), "{text}");
    assert!(text.contains("Shout two") && text.contains(" src/lib.rs | +1 -1"), "{text}");
    assert!(
        text.contains("1 files changed") && !text.contains("secret") && !text.contains("hunter"),
        "{text}"
    );
    let (_, s, _) =
        call(&mut client, "git_blame", json!({"path": "src/lib.rs", "start_line": 2, "end_line": 3})).await;
    let lines = s["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 2, "{s}");
    assert_eq!((lines[0]["author"].as_str(), lines[0]["text"].as_str()), (Some("Bob"), Some("TWO")));
    assert_eq!(lines[1]["author"], "Ada");
    let (_, s, _) =
        call(&mut client, "git_blame", json!({"path": "src/lib.rs", "rev": ids[0].to_string()})).await;
    assert_eq!(s["lines"][1]["text"], "two");
    for args in [json!({"path": "secret.txt"}), json!({"path": "src/lib.rs", "rev": "--since=x"})] {
        let (text, _, error) = call(&mut client, "git_blame", args.clone()).await;
        assert!(error, "{args}: {text}");
    }
    let (_, s, _) = call(&mut client, "git_branch", json!({})).await;
    let names: Vec<&str> =
        s["branches"].as_array().unwrap().iter().map(|b| b["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["master", "topic"]);
    assert_eq!(s["branches"][0]["current"], true);
}

#[tokio::test]
async fn write_tools_are_offered_only_with_write() {
    let (dir, _, _) = repository();
    let mut client = serve(dir.path(), false).await;
    let names: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, ["git_status", "git_diff", "git_log", "git_show", "git_blame", "git_branch"]);
    for tool in client.list_all_tools().await.unwrap() {
        assert_eq!(tool["annotations"]["readOnlyHint"], true, "{tool}");
    }
    let mut writer = serve(dir.path(), true).await;
    assert_eq!(writer.list_all_tools().await.unwrap().len(), 11);
}

#[tokio::test]
async fn add_commit_branch_and_checkout_within_the_policy() {
    let (dir, repo, _) = repository();
    let mut client = serve(dir.path(), true).await;
    write(dir.path(), "src/new.rs", "new\n");
    write(dir.path(), "secret2.txt", "x\n");
    let (text, _, error) = call(&mut client, "git_add", json!({"paths": ["src"]})).await;
    assert!(!error && text.contains("src/new.rs"), "{text}");
    let (text, _, error) = call(&mut client, "git_add", json!({"paths": ["secret2.txt"]})).await;
    assert!(error, "{text}");
    // Adding everything still leaves hidden files out.
    call(&mut client, "git_add", json!({"paths": ["."]})).await;
    assert!(repo.index().unwrap().get_path(Path::new("secret2.txt"), 0).is_none());
    let (text, _, error) = call(&mut client, "git_reset", json!({"paths": ["src/new.rs"]})).await;
    assert!(!error, "{text}");
    assert!(repo.index().unwrap().get_path(Path::new("src/new.rs"), 0).is_none());
    call(&mut client, "git_add", json!({"paths": ["src/new.rs"]})).await;
    let (text, _, error) = call(&mut client, "git_commit", json!({"message": "Add new"})).await;
    assert!(!error && text.starts_with("Committed"), "{text}");
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    assert_eq!(head.summary().unwrap(), Some("Add new"));
    let (text, _, error) = call(&mut client, "git_commit", json!({"message": "Again"})).await;
    assert!(error && text.contains("nothing staged"), "{text}");
    let (text, _, error) = call(&mut client, "git_create_branch", json!({"name": "-f"})).await;
    assert!(error, "{text}");
    let (_, _, error) =
        call(&mut client, "git_create_branch", json!({"name": "next", "start": "HEAD~1"})).await;
    assert!(!error);
    let (text, _, error) = call(&mut client, "git_checkout", json!({"rev": "topic"})).await;
    assert!(!error, "{text}");
    assert_eq!(std::fs::read_to_string(dir.path().join("topic.txt")).unwrap(), "topic\n");
    assert_eq!(repo.head().unwrap().shorthand().unwrap(), "topic");
}

#[tokio::test]
async fn checkout_refuses_to_change_files_the_model_may_not_write() {
    let (dir, repo, _) = repository();
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    repo.branch("evil", &head, false).unwrap();
    repo.set_head("refs/heads/evil").unwrap();
    commit(&repo, &[("protected.toml", "evil = true\n")], "Plant", "Eve", 1_740_000_000);
    repo.set_head("refs/heads/master").unwrap();
    repo.checkout_head(Some(git2::build::CheckoutBuilder::new().force())).unwrap();
    let mut client = serve(dir.path(), true).await;
    let (text, _, error) = call(&mut client, "git_checkout", json!({"rev": "evil"})).await;
    assert!(error && text.contains("refused") && text.contains("Nothing was changed"), "{text}");
    assert!(!dir.path().join("protected.toml").exists());
    assert_eq!(repo.head().unwrap().shorthand().unwrap(), "master");
    // A branch that only adds a symlink (to a dotfile the write rules
    // never allow): a checkout never makes one.
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    let blob = repo.blob(b".gitignore").unwrap();
    let mut builder = repo.treebuilder(Some(&head.tree().unwrap())).unwrap();
    builder.insert("notes", blob, 0o120000).unwrap();
    let tree = repo.find_tree(builder.write().unwrap()).unwrap();
    let eve = git2::Signature::now("Eve", "eve@example.com").unwrap();
    repo.commit(Some("refs/heads/linked"), &eve, &eve, "Link", &tree, &[&head]).unwrap();
    let (text, _, error) = call(&mut client, "git_checkout", json!({"rev": "linked"})).await;
    assert!(error && text.contains("symlinks") && text.contains("Nothing was changed"), "{text}");
    assert!(dir.path().join("notes").symlink_metadata().is_err(), "the link was made");
    assert_eq!(repo.head().unwrap().shorthand().unwrap(), "master");
}
