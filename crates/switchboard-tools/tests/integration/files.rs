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
    FileToolsOptions { write, max_read_bytes, ..FileToolsOptions::default() }
}

fn names(tools: &[Value]) -> Vec<&str> {
    tools.iter().map(|t| t["name"].as_str().unwrap()).collect()
}

#[tokio::test]
async fn the_options_choose_the_tools() {
    let (_base, root) = fixture();
    let mut c = client(file_tools(&root.0, &FileToolsOptions::default())).await;
    let tools = c.list_all_tools().await.unwrap();
    assert_eq!(names(&tools), ["search", "read_file", "list_directory", "find_files", "file_info"]);
    assert!(tools.iter().all(|t| t["annotations"]["readOnlyHint"] == true));
    let mut c = client(file_tools(&root.0, &options(true, 1024))).await;
    let tools = c.list_all_tools().await.unwrap();
    let written = ["write_file", "edit_file", "create_directory", "move_file"];
    assert_eq!(names(&tools)[5..], written);
    let with_delete = FileToolsOptions { delete: true, ..options(true, 1024) };
    assert_eq!(
        names(&client(file_tools(&root.0, &with_delete)).await.list_all_tools().await.unwrap())[9..],
        ["delete_file"]
    );
    // The hints say what each writing tool does.
    let hints = |name: &str| {
        let tool = tools.iter().find(|t| t["name"] == name).unwrap();
        let a = &tool["annotations"];
        (a["readOnlyHint"].clone(), a["destructiveHint"].clone(), a["idempotentHint"].clone())
    };
    assert_eq!(hints("write_file"), (json!(false), json!(true), json!(true)));
    assert_eq!(hints("edit_file"), (json!(false), json!(true), json!(false)));
    assert_eq!(hints("create_directory"), (json!(false), json!(false), json!(true)));
    assert_eq!(hints("move_file"), (json!(false), json!(false), json!(false)));
    let only_read = FileToolsOptions { search: false, list: false, ..FileToolsOptions::default() };
    assert_eq!(file_tools(&root.0, &only_read).len(), 1);
    let no_reads = FileToolsOptions { read: false, ..FileToolsOptions::default() };
    assert_eq!(
        names(&client(file_tools(&root.0, &no_reads)).await.list_all_tools().await.unwrap()),
        ["search"]
    );
    let parsed: FileToolsOptions = toml::from_str("write = true").unwrap();
    assert!(parsed.search && parsed.read && parsed.list && parsed.write && parsed.max_read_bytes == 1 << 20);
    assert!(!parsed.delete && parsed.max_image_bytes == 5 << 20);
    let parsed: FileToolsOptions = toml::from_str("delete = true\nmax_image_bytes = 10").unwrap();
    assert_eq!(parsed.tool_names().last(), Some(&"delete_file"));
    assert!(toml::from_str::<FileToolsOptions>("remove = true").is_err());
}

#[tokio::test]
async fn search_honours_gitignore_and_never_follows_links_out() {
    let (_base, root) = fixture();
    let mut c = client(file_tools(&root.0, &FileToolsOptions::default())).await;
    let r = c.call_tool("search", json!({"pattern": "TODO"})).await.unwrap();
    assert!(!is_error(&r), "{r}");
    let mut lines: Vec<&str> = text(&r).lines().collect();
    lines.sort_unstable();
    assert_eq!(lines, ["notes.md:2:1: TODO later", "src/lib.rs:2:4: // TODO: tidy"]);
    assert_eq!(r["structuredContent"]["truncated"], false);
    let matches = r["structuredContent"]["matches"].as_array().unwrap();
    assert!(
        matches.contains(&json!({"path": "notes.md", "line": 2, "column": 1, "text": "TODO later"})),
        "{r}"
    );

    let r = c
        .call_tool("search", json!({"pattern": "todo", "case_insensitive": true, "glob": "*.rs"}))
        .await
        .unwrap();
    let mut lines: Vec<&str> = text(&r).lines().collect();
    lines.sort_unstable();
    assert_eq!(lines, ["src/deep/mod.rs:1:4: // todo lower case", "src/lib.rs:2:4: // TODO: tidy"]);

    let r = c
        .call_tool("search", json!({"pattern": "todo", "case_insensitive": true, "path": "src/deep"}))
        .await
        .unwrap();
    assert_eq!(text(&r), "src/deep/mod.rs:1:4: // todo lower case\n");

    let r = c.call_tool("search", json!({"pattern": "fn (x)", "fixed_strings": true})).await.unwrap();
    assert_eq!(text(&r), "src/lib.rs:3:1: fn (x) {}\n");

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
    // The last lines, as the filesystem server's `tail`; more than the file has is all of it.
    let r = c.call_tool("read_file", json!({"path": "notes.md", "tail_lines": 2})).await.unwrap();
    assert_eq!(text(&r), "TODO later\nline 3\n");
    let r = c.call_tool("read_file", json!({"path": "notes.md", "tail_lines": 50})).await.unwrap();
    assert_eq!(text(&r), "line 1\nTODO later\nline 3\n");
    let r = c
        .call_tool("read_file", json!({"path": "notes.md", "tail_lines": 1, "start_line": 1}))
        .await
        .unwrap();
    assert!(is_error(&r) && text(&r).contains("not both"), "{r}");
    // Ignored files are not served by path either, in any form.
    for args in [json!({"path": "ignored.txt"}), json!({"path": "ignored.txt", "tail_lines": 1})] {
        let r = c.call_tool("read_file", args).await.unwrap();
        assert!(is_error(&r), "{r}");
        assert!(!text(&r).contains("TODO"), "{r}");
    }
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

/// A served symlink to a served file, next to the fixture's links out.
fn with_alias(root: &Root) {
    std::os::unix::fs::symlink("notes.md", root.1.join("alias.md")).unwrap();
}

fn entries(r: &Value) -> Vec<(String, String, u64)> {
    r["structuredContent"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["path"].as_str().unwrap().to_owned(),
                e["kind"].as_str().unwrap().to_owned(),
                e["depth"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[tokio::test]
async fn list_directory_shows_only_served_entries_as_a_tree() {
    let (_base, root) = fixture();
    with_alias(&root);
    let mut c = client(file_tools(&root.0, &FileToolsOptions::default())).await;
    let r = c.call_tool("list_directory", json!({})).await.unwrap();
    assert!(!is_error(&r), "{r}");
    let e = |p: &str, k: &str, d: u64| (p.to_owned(), k.to_owned(), d);
    assert_eq!(
        entries(&r),
        [e("alias.md", "symlink-to-file", 1), e("notes.md", "file", 1), e("src", "dir", 1)]
    );
    assert_eq!(text(&r), "./\n  alias.md (symlink to a file)\n  notes.md\n  src/\n");
    assert_eq!(r["structuredContent"]["omitted"], 0);

    let r = c.call_tool("list_directory", json!({"path": "src", "depth": 3, "sizes": true})).await.unwrap();
    assert_eq!(
        entries(&r),
        [e("src/deep", "dir", 1), e("src/deep/mod.rs", "file", 2), e("src/lib.rs", "file", 1)]
    );
    assert_eq!(text(&r), "src/\n  deep/\n    mod.rs (19 bytes)\n  lib.rs (38 bytes)\n");

    let r = c.call_tool("list_directory", json!({"depth": 10, "max_entries": 2})).await.unwrap();
    assert_eq!(r["structuredContent"]["entries"].as_array().unwrap().len(), 2);
    assert_eq!(r["structuredContent"]["omitted"], 4);
    assert!(text(&r).contains("[4 more entries not shown (max_entries = 2)"), "{r}");

    for (args, expected) in [
        (json!({"path": "notes.md"}), "it is a file, not a folder"),
        (json!({"path": "target"}), "no served file or folder there"),
        (json!({"path": "outdir"}), "no served file or folder there"),
        (json!({"path": "../"}), "'..' segment"),
        (json!({"path": "/tmp"}), "absolute path"),
        (json!({"depth": 11}), "depth"),
    ] {
        let r = c.call_tool("list_directory", args.clone()).await.unwrap();
        assert!(is_error(&r), "{args}: {r}");
        assert!(text(&r).contains(expected), "{args}: {r}");
    }
}

#[tokio::test]
async fn list_directory_shows_mounted_roots_as_folders() {
    let (base, _root) = fixture();
    let options = FilesOptions {
        roots: vec![
            switchboard_tree::RootSpec { path: "root".into(), mount: String::new() },
            switchboard_tree::RootSpec { path: "outside".into(), mount: "docs/ext".into() },
        ],
        ..FilesOptions::default()
    };
    let tree = ServedTree::new(base.path(), &options).unwrap();
    let mut c = client(file_tools(&tree, &FileToolsOptions::default())).await;
    let r = c.call_tool("list_directory", json!({"depth": 3})).await.unwrap();
    let listed: Vec<String> = entries(&r).into_iter().map(|(p, _, _)| p).collect();
    assert_eq!(
        listed,
        [
            "docs",
            "docs/ext",
            "docs/ext/other.txt",
            "notes.md",
            "src",
            "src/deep",
            "src/deep/mod.rs",
            "src/lib.rs"
        ]
    );
    let r = c.call_tool("list_directory", json!({"path": "docs"})).await.unwrap();
    assert_eq!(text(&r), "docs/\n  ext/\n");
    let r = c.call_tool("find_files", json!({"pattern": "*.txt"})).await.unwrap();
    assert_eq!(text(&r), "docs/ext/other.txt\n");
}

#[tokio::test]
async fn find_files_matches_served_paths_only() {
    let (_base, root) = fixture();
    with_alias(&root);
    std::fs::write(root.1.join(".env"), "KEY=1").unwrap();
    let mut c = client(file_tools(&root.0, &FileToolsOptions::default())).await;
    let r = c.call_tool("find_files", json!({"pattern": "*.rs"})).await.unwrap();
    assert_eq!(text(&r), "src/deep/mod.rs\nsrc/lib.rs\n");
    assert_eq!(r["structuredContent"]["files"][1], json!({"path": "src/lib.rs", "kind": "file", "size": 38}));
    let r = c.call_tool("find_files", json!({"pattern": "src/**/mod.rs"})).await.unwrap();
    assert_eq!(text(&r), "src/deep/mod.rs\n");
    let r = c.call_tool("find_files", json!({"pattern": "*.md", "path": "src"})).await.unwrap();
    assert_eq!(text(&r), "No served files match \"*.md\".");
    for pattern in ["*.txt", "**/.env", ".gitignore", "target/**", "**/*.txt", "**/config"] {
        let r = c.call_tool("find_files", json!({"pattern": pattern})).await.unwrap();
        assert!(!is_error(&r), "{r}");
        assert!(text(&r).starts_with("No served files match"), "{pattern}: {r}");
    }
    let r = c.call_tool("find_files", json!({"pattern": "*", "max_results": 2})).await.unwrap();
    assert_eq!(r["structuredContent"]["omitted"], 2);
    assert!(text(&r).contains("[2 more matches not shown (max_results = 2)"), "{r}");
    let r = c.call_tool("find_files", json!({"pattern": "a[b"})).await.unwrap();
    assert!(is_error(&r) && text(&r).contains("invalid glob"), "{r}");
    let r = c.call_tool("find_files", json!({"pattern": "*", "path": "outdir"})).await.unwrap();
    assert!(is_error(&r) && text(&r).contains("no served file or folder there"), "{r}");
}

#[tokio::test]
async fn file_info_describes_served_entries_and_refuses_the_rest() {
    let (_base, root) = fixture();
    with_alias(&root);
    std::fs::write(root.1.join("big.txt"), "x\n".repeat(100)).unwrap();
    let tree = ServedTree::with_protected(
        &root.1,
        &FilesOptions { max_file_size: 100, ..FilesOptions::default() },
        [root.1.join("notes.md")],
    )
    .unwrap();
    let mut c = client(file_tools(&tree, &FileToolsOptions::default())).await;
    let r = c.call_tool("file_info", json!({"path": "src/lib.rs"})).await.unwrap();
    let info = &r["structuredContent"];
    assert_eq!(info["kind"], "file");
    assert_eq!(info["size"], 38);
    assert_eq!(info["lines"], 3);
    assert_eq!(info["mimeType"], "text/x-rust");
    assert_eq!((info["readable"].clone(), info["writable"].clone()), (json!(true), json!(true)));
    assert!(info["modified"].as_str().unwrap().ends_with('Z'), "{r}");
    assert!(text(&r).contains("path: src/lib.rs\nkind: file\nsize: 38\n"), "{r}");

    let r = c.call_tool("file_info", json!({"path": "alias.md"})).await.unwrap();
    let info = &r["structuredContent"];
    assert_eq!(info["kind"], "symlink-to-file");
    assert_eq!(info["writable"], false);
    assert!(info["writeReason"].as_str().unwrap().contains("a symlink is never written"), "{r}");

    let r = c.call_tool("file_info", json!({"path": "big.txt"})).await.unwrap();
    assert_eq!(r["structuredContent"]["readable"], false);
    assert!(
        r["structuredContent"]["readReason"].as_str().unwrap().contains("above the 100-byte limit"),
        "{r}"
    );
    let r = c.call_tool("file_info", json!({"path": "src"})).await.unwrap();
    assert_eq!(r["structuredContent"]["kind"], "dir");

    let refused = c.call_tool("file_info", json!({"path": "nope.txt"})).await.unwrap();
    for path in ["ignored.txt", ".gitignore", "link.txt", "outdir", "target/out.txt", "../secret.txt"] {
        let r = c.call_tool("file_info", json!({"path": path})).await.unwrap();
        assert!(is_error(&r), "{path}: {r}");
        if !path.starts_with("..") {
            assert_eq!(
                text(&r).replace(path, "P"),
                text(&refused).replace("nope.txt", "P"),
                "same refusal: {r}"
            );
        }
    }
}

/// The smallest PNG: signature, IHDR, IDAT, IEND (1x1, grey).
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, b'I', b'H', b'D', b'R', 0, 0, 0, 1, 0, 0, 0,
    1, 8, 0, 0, 0, 0, 0x3a, 0x7e, 0x9b, 0x55, 0, 0, 0, 10, b'I', b'D', b'A', b'T', 0x78, 0x9c, 0x63, 0x60, 0,
    0, 0, 2, 0, 1, 0x48, 0xaf, 0xa4, 0x71, 0, 0, 0, 0, b'I', b'E', b'N', b'D', 0xae, 0x42, 0x60, 0x82,
];

#[tokio::test]
async fn read_file_returns_images_by_content_and_several_files() {
    let (_base, root) = fixture();
    std::fs::write(root.1.join("picture.dat"), PNG).unwrap();
    std::fs::write(root.1.join("fake.png"), "not an image\n").unwrap();
    let mut c = client(file_tools(&root.0, &FileToolsOptions::default())).await;
    let r = c.call_tool("read_file", json!({"path": "picture.dat"})).await.unwrap();
    assert!(!is_error(&r), "{r}");
    assert_eq!(r["content"][0]["type"], "image");
    assert_eq!(r["content"][0]["mimeType"], "image/png");
    let data = r["content"][0]["data"].as_str().unwrap();
    use base64::Engine;
    assert_eq!(base64::engine::general_purpose::STANDARD.decode(data).unwrap(), PNG);
    let r = c.call_tool("read_file", json!({"path": "fake.png"})).await.unwrap();
    assert_eq!(text(&r), "not an image\n");

    let small = FileToolsOptions { max_image_bytes: 10, ..FileToolsOptions::default() };
    let mut c2 = client(file_tools(&root.0, &small)).await;
    let r = c2.call_tool("read_file", json!({"path": "picture.dat"})).await.unwrap();
    assert!(is_error(&r) && text(&r).contains("over the 10-byte limit for images"), "{r}");
    // With paths, the images of one call share the cap.
    let one_image = FileToolsOptions { max_image_bytes: PNG.len() as u64, ..FileToolsOptions::default() };
    let mut c3 = client(file_tools(&root.0, &one_image)).await;
    let r = c3.call_tool("read_file", json!({"paths": ["picture.dat", "picture.dat"]})).await.unwrap();
    assert_eq!(r["content"][1]["type"], "image", "{r}");
    assert!(r["content"][2]["text"].as_str().unwrap().contains("limit for images"), "{r}");

    let r = c
        .call_tool("read_file", json!({"paths": ["notes.md", "ignored.txt", "picture.dat", "../secret.txt"]}))
        .await
        .unwrap();
    assert!(!is_error(&r), "{r}");
    let blocks = r["content"].as_array().unwrap();
    assert_eq!(blocks[0]["text"], "==> notes.md <==");
    assert_eq!(blocks[1]["text"], "line 1\nTODO later\nline 3\n");
    assert!(blocks[2]["text"].as_str().unwrap().starts_with("==> ignored.txt <== not read: "), "{r}");
    assert!(blocks[2]["text"].as_str().unwrap().contains("no served file or folder there"), "{r}");
    assert_eq!(blocks[3]["text"], "==> picture.dat <==");
    assert_eq!(blocks[4]["type"], "image");
    assert!(blocks[5]["text"].as_str().unwrap().contains("'..' segment"), "{r}");
    assert!(!r.to_string().contains("TODO hidden") && !r.to_string().contains("TODO secret"));
    let r = c.call_tool("read_file", json!({"paths": ["ignored.txt", "link.txt"]})).await.unwrap();
    assert!(is_error(&r), "every path refused: {r}");
    let r = c.call_tool("read_file", json!({"path": "notes.md", "paths": ["notes.md"]})).await.unwrap();
    assert!(is_error(&r) && text(&r).contains("either path"), "{r}");
}

#[tokio::test]
async fn search_shows_the_match_of_a_very_long_line() {
    let (_base, root) = fixture();
    let mut line = "x".repeat(600_000);
    line.replace_range(480_000..480_006, "NEEDLE");
    std::fs::write(root.1.join("minified.js"), &line).unwrap();
    let mut c = client(file_tools(&root.0, &FileToolsOptions::default())).await;
    let r = c.call_tool("search", json!({"pattern": "NEEDLE"})).await.unwrap();
    let m = &r["structuredContent"]["matches"][0];
    assert_eq!(
        (m["path"].clone(), m["line"].clone(), m["column"].clone()),
        (json!("minified.js"), json!(1), json!(480_001))
    );
    let shown = m["text"].as_str().unwrap();
    assert!(shown.starts_with('…') && shown.ends_with('…') && shown.contains("xNEEDLEx"), "{shown}");
    assert!(shown.len() < 1000, "a window, not the line");
    assert!(text(&r).starts_with("minified.js:1:480001: …"), "{r}");
}

#[tokio::test]
async fn edit_file_applies_several_edits_all_or_nothing_with_a_diff() {
    let (_base, root) = fixture();
    use std::os::unix::fs::PermissionsExt;
    let lib = root.1.join("src/lib.rs");
    std::fs::set_permissions(&lib, std::fs::Permissions::from_mode(0o751)).unwrap();
    let mut c = client(file_tools(&root.0, &options(true, 1 << 20))).await;
    let edits =
        json!([{"old_text": "fn hello()", "new_text": "fn hi()"}, {"old_text": "tidy", "new_text": "done"}]);
    let r = c
        .call_tool("edit_file", json!({"path": "src/lib.rs", "edits": edits, "dry_run": true}))
        .await
        .unwrap();
    assert!(!is_error(&r), "{r}");
    let diff = r["structuredContent"]["diff"].as_str().unwrap();
    assert!(diff.starts_with("--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,3 +1,3 @@\n"), "{diff}");
    assert!(diff.contains("-fn hello() {}\n-// TODO: tidy\n+fn hi() {}\n+// TODO: done\n"), "{diff}");
    assert_eq!(r["structuredContent"]["written"], false);
    assert_eq!(
        std::fs::read_to_string(&lib).unwrap(),
        "fn hello() {}\n// TODO: tidy\nfn (x) {}\n",
        "dry run"
    );

    // The second edit fails: nothing is written.
    let bad =
        json!([{"old_text": "fn hello()", "new_text": "fn hi()"}, {"old_text": "absent", "new_text": "x"}]);
    let r = c.call_tool("edit_file", json!({"path": "src/lib.rs", "edits": bad})).await.unwrap();
    assert!(is_error(&r) && text(&r).contains("edits[1].old_text was not found"), "{r}");
    assert_eq!(std::fs::read_to_string(&lib).unwrap(), "fn hello() {}\n// TODO: tidy\nfn (x) {}\n");

    let r = c.call_tool("edit_file", json!({"path": "src/lib.rs", "edits": edits})).await.unwrap();
    assert!(!is_error(&r), "{r}");
    assert!(text(&r).starts_with("Edited: src/lib.rs (2 edit(s)).\n--- a/src/lib.rs"), "{r}");
    assert_eq!(std::fs::read_to_string(&lib).unwrap(), "fn hi() {}\n// TODO: done\nfn (x) {}\n");
    assert_eq!(std::fs::metadata(&lib).unwrap().permissions().mode() & 0o777, 0o751, "permissions kept");
    let leftovers: Vec<_> =
        std::fs::read_dir(root.1.join("src")).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(leftovers.len(), 2, "no temporary file left: {leftovers:?}");
    let r = c
        .call_tool(
            "edit_file",
            json!({"path": "src/lib.rs", "old_text": "a", "new_text": "b", "edits": edits}),
        )
        .await
        .unwrap();
    assert!(is_error(&r) && text(&r).contains("give either edits"), "{r}");
}

#[tokio::test]
async fn create_move_and_delete_stay_inside_the_policy() {
    let (base, root) = fixture();
    let tools = FileToolsOptions { delete: true, ..options(true, 1 << 20) };
    let mut c = client(file_tools(&root.0, &tools)).await;
    let ok = |r: &Value| assert!(!is_error(r), "{r}");
    ok(&c.call_tool("create_directory", json!({"path": "docs/guide"})).await.unwrap());
    assert!(root.1.join("docs/guide").is_dir());
    let again = c.call_tool("create_directory", json!({"path": "docs/guide"})).await.unwrap();
    assert!(text(&again).contains("exists already"), "{again}");
    ok(&c
        .call_tool("move_file", json!({"source": "notes.md", "destination": "docs/guide/notes.md"}))
        .await
        .unwrap());
    assert!(!root.1.join("notes.md").exists());
    assert_eq!(
        std::fs::read_to_string(root.1.join("docs/guide/notes.md")).unwrap(),
        "line 1\nTODO later\nline 3\n"
    );
    let r = c
        .call_tool("move_file", json!({"source": "docs/guide/notes.md", "destination": "src/lib.rs"}))
        .await
        .unwrap();
    assert!(is_error(&r) && text(&r).contains("never overwrites"), "{r}");
    let r = c.call_tool("move_file", json!({"source": "src", "destination": "source"})).await.unwrap();
    assert!(is_error(&r) && text(&r).contains("only files are moved"), "{r}");
    let r = c.call_tool("delete_file", json!({"path": "docs"})).await.unwrap();
    assert!(is_error(&r) && text(&r).contains("is not empty"), "{r}");
    ok(&c.call_tool("delete_file", json!({"path": "docs/guide/notes.md"})).await.unwrap());
    ok(&c.call_tool("delete_file", json!({"path": "docs/guide"})).await.unwrap());
    assert!(!root.1.join("docs/guide").exists() && root.1.join("docs").is_dir());
    // A folder holding only what is not served is not empty.
    std::fs::create_dir(root.1.join("cache")).unwrap();
    std::fs::write(root.1.join("cache/.env"), "KEY=1").unwrap();
    let r = c.call_tool("delete_file", json!({"path": "cache"})).await.unwrap();
    assert!(is_error(&r), "{r}");
    assert!(root.1.join("cache/.env").exists());
    for (tool, args, expected) in [
        ("create_directory", json!({"path": ".hidden"}), "names starting with '.'"),
        ("create_directory", json!({"path": "../escape"}), "'..' segment"),
        ("create_directory", json!({"path": "outdir/sub"}), "no served file or folder there"),
        ("create_directory", json!({"path": "target/sub"}), "no served file or folder there"),
        ("move_file", json!({"source": "src/lib.rs", "destination": ".env"}), "names starting with '.'"),
        (
            "move_file",
            json!({"source": "ignored.txt", "destination": "x.txt"}),
            "no served file or folder there",
        ),
        (
            "move_file",
            json!({"source": "link.txt", "destination": "x.txt"}),
            "no served file or folder there",
        ),
        (
            "move_file",
            json!({"source": "src/lib.rs", "destination": "outdir/lib.rs"}),
            "no served file or folder there",
        ),
        ("delete_file", json!({"path": ".gitignore"}), "no served file or folder there"),
        ("delete_file", json!({"path": "link.txt"}), "no served file or folder there"),
        ("delete_file", json!({"path": "."}), "never written, moved or removed"),
    ] {
        let r = c.call_tool(tool, args.clone()).await.unwrap();
        assert!(is_error(&r), "{tool} {args}: {r}");
        assert!(text(&r).contains(expected), "{tool} {args}: {r}");
    }
    assert!(!base.path().join("escape").exists() && !base.path().join("outside/sub").exists());
    assert!(
        root.1.join("src/lib.rs").exists()
            && root.1.join("ignored.txt").exists()
            && root.1.join(".gitignore").exists()
    );
    assert!(!root.1.join(".env").exists() && !root.1.join(".hidden").exists());
}
