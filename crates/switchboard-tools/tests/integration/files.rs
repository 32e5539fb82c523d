//! The built-in file tools over a temporary root with a `.gitignore`, a
//! secret outside the root and symlinks leading out.

use serde_json::{Value, json};
use switchboard_tools::{FileToolsOptions, file_tools};
use switchboard_tree::{FilesOptions, ServedTree};
use tempfile::TempDir;

use crate::common::{client, is_error, text};

/// `base/root` is served; `base/secret.txt` and `base/outside/` are not.
fn fixture() -> (TempDir, Root) {
    let base = tempfile::tempdir().unwrap();
    let root = base.path().join("root");
    std::fs::create_dir_all(root.join("src/deep")).unwrap();
    std::fs::create_dir_all(root.join("target")).unwrap();
    std::fs::create_dir_all(base.path().join("outside")).unwrap();
    std::fs::write(root.join(".gitignore"), "ignored.txt\ntarget/\n").unwrap();
    std::fs::write(root.join("src/lib.rs"), "fn hello() {}\n// TODO: tidy\nfn (x) {}\n").unwrap();
    std::fs::write(root.join("src/deep/mod.rs"), "// todo lower case\n").unwrap();
    std::fs::write(root.join("notes.md"), "line 1\nTODO later\nline 3\n").unwrap();
    std::fs::write(root.join("ignored.txt"), "TODO hidden by .gitignore\n").unwrap();
    std::fs::write(root.join("target/out.txt"), "TODO build output\n").unwrap();
    std::fs::write(base.path().join("secret.txt"), "TODO secret\n").unwrap();
    std::fs::write(base.path().join("outside/other.txt"), "TODO outside\n").unwrap();
    std::os::unix::fs::symlink(base.path().join("secret.txt"), root.join("link.txt")).unwrap();
    std::os::unix::fs::symlink(base.path().join("outside"), root.join("outdir")).unwrap();
    let root = Root(ServedTree::new(&root, &FilesOptions::default()).unwrap(), root.canonicalize().unwrap());
    (base, root)
}

/// The served tree and its folder.
struct Root(ServedTree, std::path::PathBuf);

fn options(write: bool, max_read_bytes: u64) -> FileToolsOptions {
    FileToolsOptions { search: true, read: true, write, max_read_bytes }
}

fn names(tools: &[Value]) -> Vec<&str> {
    tools.iter().map(|t| t["name"].as_str().unwrap()).collect()
}

#[tokio::test]
async fn the_options_choose_the_tools() {
    let (_base, root) = fixture();
    let mut c = client(file_tools(&root.0, &FileToolsOptions::default())).await;
    let tools = c.list_all_tools().await.unwrap();
    assert_eq!(names(&tools), ["search", "read_file"]);
    assert!(tools.iter().all(|t| t["annotations"]["readOnlyHint"] == true));
    let mut c = client(file_tools(&root.0, &options(true, 1024))).await;
    let tools = c.list_all_tools().await.unwrap();
    assert_eq!(names(&tools), ["search", "read_file", "write_file", "edit_file"]);
    let only_read = FileToolsOptions { search: false, ..FileToolsOptions::default() };
    assert_eq!(file_tools(&root.0, &only_read).len(), 1);
    let parsed: FileToolsOptions = toml::from_str("write = true").unwrap();
    assert!(parsed.search && parsed.read && parsed.write && parsed.max_read_bytes == 1 << 20);
    assert!(toml::from_str::<FileToolsOptions>("delete = true").is_err());
}

#[tokio::test]
async fn search_honours_gitignore_and_never_follows_links_out() {
    let (_base, root) = fixture();
    let mut c = client(file_tools(&root.0, &FileToolsOptions::default())).await;
    let r = c.call_tool("search", json!({"pattern": "TODO"})).await.unwrap();
    assert!(!is_error(&r), "{r}");
    let mut lines: Vec<&str> = text(&r).lines().collect();
    lines.sort_unstable();
    assert_eq!(lines, ["notes.md:2: TODO later", "src/lib.rs:2: // TODO: tidy"]);
    assert_eq!(r["structuredContent"]["truncated"], false);
    let matches = r["structuredContent"]["matches"].as_array().unwrap();
    assert!(matches.contains(&json!({"path": "notes.md", "line": 2, "text": "TODO later"})), "{r}");

    let r = c
        .call_tool("search", json!({"pattern": "todo", "case_insensitive": true, "glob": "*.rs"}))
        .await
        .unwrap();
    let mut lines: Vec<&str> = text(&r).lines().collect();
    lines.sort_unstable();
    assert_eq!(lines, ["src/deep/mod.rs:1: // todo lower case", "src/lib.rs:2: // TODO: tidy"]);

    let r = c
        .call_tool("search", json!({"pattern": "todo", "case_insensitive": true, "path": "src/deep"}))
        .await
        .unwrap();
    assert_eq!(text(&r), "src/deep/mod.rs:1: // todo lower case\n");

    let r = c.call_tool("search", json!({"pattern": "fn (x)", "fixed_strings": true})).await.unwrap();
    assert_eq!(text(&r), "src/lib.rs:3: fn (x) {}\n");

    let r = c.call_tool("search", json!({"pattern": "nothing-matches-this"})).await.unwrap();
    assert!(!is_error(&r));
    assert_eq!(text(&r), "No matches for \"nothing-matches-this\".");

    let r = c.call_tool("search", json!({"pattern": "line|TODO|fn", "max_results": 2})).await.unwrap();
    assert_eq!(r["structuredContent"]["matches"].as_array().unwrap().len(), 2);
    assert_eq!(r["structuredContent"]["truncated"], true);
    assert!(text(&r).contains("[stopped at max_results = 2"), "{r}");
}

#[tokio::test]
async fn search_errors_say_what_to_fix() {
    let (_base, root) = fixture();
    let mut c = client(file_tools(&root.0, &FileToolsOptions::default())).await;
    for (args, expected) in [
        (json!({"pattern": "(unclosed"}), "search: invalid pattern \"(unclosed\""),
        (json!({"pattern": "x", "glob": "a[b"}), "search: invalid glob \"a[b\""),
        (json!({"pattern": "x", "path": "../"}), "'..' segment"),
        (json!({"pattern": "x", "path": "/etc"}), "absolute path"),
        (json!({"pattern": "x", "path": "outdir"}), "no served file or folder there"),
        (json!({"pattern": "x", "path": "nope"}), "no served file or folder there"),
        (json!({"pattern": "x", "path": "target"}), "no served file or folder there"),
        (json!({"pattern": "x", "max_results": 0}), "max_results"),
    ] {
        let r = c.call_tool("search", args.clone()).await.unwrap();
        assert!(is_error(&r), "{args}: {r}");
        assert!(text(&r).contains(expected), "{args}: {r}");
    }
}

#[tokio::test]
async fn read_file_reads_whole_files_and_line_ranges() {
    let (_base, root) = fixture();
    let mut c = client(file_tools(&root.0, &FileToolsOptions::default())).await;
    let r = c.call_tool("read_file", json!({"path": "notes.md"})).await.unwrap();
    assert_eq!(text(&r), "line 1\nTODO later\nline 3\n");
    let r = c
        .call_tool("read_file", json!({"path": "./notes.md", "start_line": 2, "end_line": 3}))
        .await
        .unwrap();
    assert_eq!(text(&r), "TODO later\nline 3\n");
    let r = c.call_tool("read_file", json!({"path": "notes.md", "start_line": 3})).await.unwrap();
    assert_eq!(text(&r), "line 3\n");
    let r = c.call_tool("read_file", json!({"path": "notes.md", "end_line": 1})).await.unwrap();
    assert_eq!(text(&r), "line 1\n");
    // end_line past the end reads to the end.
    let r =
        c.call_tool("read_file", json!({"path": "notes.md", "start_line": 3, "end_line": 99})).await.unwrap();
    assert_eq!(text(&r), "line 3\n");
    // Ignored files are not served by path either.
    let r = c.call_tool("read_file", json!({"path": "ignored.txt"})).await.unwrap();
    assert!(is_error(&r), "{r}");
    assert!(!text(&r).contains("TODO"), "{r}");
}

#[tokio::test]
async fn read_file_errors_and_escapes() {
    let (base, root) = fixture();
    std::fs::write(root.1.join("big.txt"), "0123456789\n".repeat(20)).unwrap();
    std::fs::write(root.1.join("bin.dat"), b"ab\0cd").unwrap();
    let mut c = client(file_tools(&root.0, &options(false, 100))).await;
    let secret = base.path().join("secret.txt").display().to_string();
    for (args, expected) in [
        (
            json!({"path": "notes.md", "start_line": 9}),
            "start_line 9 is past the end of \"notes.md\", which has 3 lines",
        ),
        (json!({"path": "notes.md", "start_line": 3, "end_line": 2}), "end_line 2 is before start_line 3"),
        (json!({"path": "notes.md", "start_line": 0}), "start_line"),
        (json!({"path": "big.txt"}), "is 220 bytes, over the 100-byte limit"),
        (json!({"path": "bin.dat"}), "binary file"),
        (json!({"path": "src"}), "it is a folder, not a file"),
        (json!({"path": "nope.txt"}), "no served file or folder there"),
        (json!({"path": "../secret.txt"}), "'..' segment"),
        (json!({"path": "src/../../secret.txt"}), "'..' segment"),
        (json!({"path": secret}), "absolute path"),
        (json!({"path": "link.txt"}), "no served file or folder there"),
        (json!({"path": "outdir/other.txt"}), "no served file or folder there"),
    ] {
        let r = c.call_tool("read_file", args.clone()).await.unwrap();
        assert!(is_error(&r), "{args}: {r}");
        assert!(text(&r).contains(expected), "{args}: {r}");
        assert!(!text(&r).contains("TODO"), "no secret content leaks: {r}");
    }
    std::fs::write(root.1.join("long-line.txt"), format!("short\n{}\n", "y".repeat(150))).unwrap();
    let r = c.call_tool("read_file", json!({"path": "long-line.txt", "start_line": 2})).await.unwrap();
    assert!(is_error(&r), "{r}");
    assert!(text(&r).contains("line 2 of \"long-line.txt\" alone is longer than the 100-byte limit"), "{r}");
    let r = c.call_tool("read_file", json!({"path": "long-line.txt", "end_line": 1})).await.unwrap();
    assert_eq!(text(&r), "short\n");
    // A range of a big file stays under the cap, saying where to continue.
    let r = c.call_tool("read_file", json!({"path": "big.txt", "start_line": 1})).await.unwrap();
    assert!(!is_error(&r), "{r}");
    assert!(text(&r).starts_with(&"0123456789\n".repeat(9)), "{r}");
    assert!(text(&r).contains("continue with start_line = 10"), "{r}");
}

#[tokio::test]
async fn write_file_creates_files_and_directories_inside_the_root_only() {
    let (base, root) = fixture();
    let mut c = client(file_tools(&root.0, &options(true, 1 << 20))).await;
    let r = c.call_tool("write_file", json!({"path": "new/dir/file.txt", "content": "hi\n"})).await.unwrap();
    assert!(!is_error(&r), "{r}");
    assert_eq!(std::fs::read_to_string(root.1.join("new/dir/file.txt")).unwrap(), "hi\n");
    let r = c.call_tool("write_file", json!({"path": "notes.md", "content": "replaced"})).await.unwrap();
    assert!(!is_error(&r), "{r}");
    assert_eq!(std::fs::read_to_string(root.1.join("notes.md")).unwrap(), "replaced");

    let escape = base.path().join("escape.txt").display().to_string();
    for (args, expected) in [
        (json!({"path": "../escape.txt", "content": "x"}), "'..' segment"),
        (json!({"path": "a/../../escape.txt", "content": "x"}), "'..' segment"),
        (json!({"path": escape, "content": "x"}), "absolute path"),
        (json!({"path": "outdir/escape.txt", "content": "x"}), "no served file or folder there"),
        (json!({"path": "outdir/sub/escape.txt", "content": "x"}), "no served file or folder there"),
        (json!({"path": "link.txt", "content": "x"}), "no served file or folder there"),
        (json!({"path": "src", "content": "x"}), "it is a folder, not a file"),
        (json!({"path": "notes.md/x", "content": "x"}), "a folder on the way is a file"),
        (json!({"path": "ignored.txt", "content": "x"}), "no served file or folder there"),
        (json!({"path": "target/new.txt", "content": "x"}), "no served file or folder there"),
        (json!({"path": ".gitignore", "content": "x"}), "names starting with '.' are never written"),
    ] {
        let r = c.call_tool("write_file", args.clone()).await.unwrap();
        assert!(is_error(&r), "{args}: {r}");
        assert!(text(&r).contains(expected), "{args}: {r}");
    }
    assert!(!base.path().join("escape.txt").exists());
    assert!(!base.path().join("outside/escape.txt").exists());
    assert!(!base.path().join("outside/sub").exists());
    assert!(!root.1.join("a").exists(), "nothing created for a refused path");
    assert_eq!(std::fs::read_to_string(base.path().join("secret.txt")).unwrap(), "TODO secret\n");
}

#[tokio::test]
async fn edit_file_replaces_exactly_one_occurrence() {
    let (base, root) = fixture();
    std::fs::write(root.1.join("twice.txt"), "same\nsame\n").unwrap();
    let mut c = client(file_tools(&root.0, &options(true, 1 << 20))).await;
    let r = c
        .call_tool(
            "edit_file",
            json!({"path": "src/lib.rs", "old_text": "fn hello() {}", "new_text": "fn hi() {}"}),
        )
        .await
        .unwrap();
    assert!(!is_error(&r), "{r}");
    assert_eq!(
        std::fs::read_to_string(root.1.join("src/lib.rs")).unwrap(),
        "fn hi() {}\n// TODO: tidy\nfn (x) {}\n"
    );

    for (args, expected) in [
        (json!({"path": "twice.txt", "old_text": "same", "new_text": "x"}), "old_text occurs 2 times"),
        (json!({"path": "twice.txt", "old_text": "absent", "new_text": "x"}), "old_text was not found"),
        (json!({"path": "twice.txt", "old_text": "", "new_text": "x"}), "old_text"),
        (json!({"path": "link.txt", "old_text": "TODO", "new_text": "x"}), "no served file or folder there"),
        (json!({"path": "../secret.txt", "old_text": "TODO", "new_text": "x"}), "'..' segment"),
        (json!({"path": "missing.txt", "old_text": "a", "new_text": "b"}), "no served file or folder there"),
        (
            json!({"path": "ignored.txt", "old_text": "TODO", "new_text": "b"}),
            "no served file or folder there",
        ),
    ] {
        let r = c.call_tool("edit_file", args.clone()).await.unwrap();
        assert!(is_error(&r), "{args}: {r}");
        assert!(text(&r).contains(expected), "{args}: {r}");
    }
    assert_eq!(std::fs::read_to_string(root.1.join("twice.txt")).unwrap(), "same\nsame\n");
    assert_eq!(std::fs::read_to_string(base.path().join("secret.txt")).unwrap(), "TODO secret\n");
}
