//! The served tree's rules, path by path: what is served, what may be
//! written, and that a full scan and a single-path check agree.

use std::path::Path;

use switchboard_tree::{EntryKind, FilesOptions, Kind, RootSpec, ServedTree, TreeError};

/// A project as a new user has one: a git folder with secrets kept out of
/// git, nested ignore files, symlinks in and out, and a secret outside.
fn project() -> (tempfile::TempDir, std::path::PathBuf) {
    let base = tempfile::tempdir().unwrap();
    let dir = base.path().join("project");
    let write = |rel: &str, text: &str| {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(".gitignore", "ignored.log\n/build/\n*.key\n");
    write(".env", "API_KEY=supersecret\n");
    write(".git/config", "[core]\n\tsecret = supersecret\n");
    write("ignored.log", "supersecret log\n");
    write("build/out.txt", "supersecret build\n");
    write("src/main.rs", "fn main() {}\n");
    write("src/private.key", "supersecret key\n");
    write("src/nested/.gitignore", "local.txt\n");
    write("src/nested/local.txt", "supersecret nested\n");
    write("src/nested/kept.txt", "kept\n");
    write("docs/guide.md", "# Guide\n");
    write("big.txt", &"x".repeat(2000));
    std::fs::write(base.path().join("outside.txt"), "supersecret outside\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::symlink;
        symlink(base.path().join("outside.txt"), dir.join("out-link.txt")).unwrap();
        symlink(dir.join("src/main.rs"), dir.join("main-link.rs")).unwrap();
        symlink(dir.join(".env"), dir.join("env-link.txt")).unwrap();
        symlink(dir.join("ignored.log"), dir.join("log-link.txt")).unwrap();
        symlink(base.path(), dir.join("up")).unwrap();
        symlink(dir.join("src"), dir.join("src-link")).unwrap();
    }
    (base, dir)
}

fn tree(dir: &Path) -> ServedTree {
    let options =
        FilesOptions { max_file_size: 1000, exclude: vec!["docs/secret*".into()], ..Default::default() };
    ServedTree::with_protected(dir, &options, [dir.join("switchboard.toml"), dir.join("prompts")]).unwrap()
}

/// Paths that must never be read, listed or searched.
const NOT_SERVED: &[&str] = &[
    ".env",
    "./.env",
    "src/../.env",
    "/.env",
    ".git/config",
    ".git",
    ".gitignore",
    "ignored.log",
    "build/out.txt",
    "build",
    "src/private.key",
    "src/nested/local.txt",
    "src/nested/.gitignore",
    "out-link.txt",
    "env-link.txt",
    "log-link.txt",
    "up/outside.txt",
    "src-link/main.rs",
    "%2e%2e/outside.txt",
    "../outside.txt",
    ".ENV",
    "IGNORED.log",
    "missing.txt",
];

#[test]
fn only_what_the_rules_allow_is_served() {
    let (_base, dir) = project();
    let tree = tree(&dir);
    for path in NOT_SERVED {
        assert!(tree.locate(path).is_err(), "{path} must not be served");
        assert!(tree.readable(path).is_err(), "{path} must not be readable");
    }
    assert_eq!(tree.readable("src/main.rs").unwrap().kind, Kind::File);
    assert_eq!(tree.readable("./src//main.rs").unwrap().served, "src/main.rs");
    assert_eq!(tree.readable("src/nested/kept.txt").unwrap().size, 5);
    assert_eq!(tree.locate("src").unwrap().kind, Kind::Dir);
    assert_eq!(tree.locate("").unwrap().kind, Kind::Dir);
    // A symlink to a served file inside is served, and read from its target.
    #[cfg(unix)]
    assert!(tree.readable("main-link.rs").unwrap().path.ends_with("src/main.rs"));
    // Too large: refused with the size.
    assert!(matches!(tree.readable("big.txt"), Err(TreeError::TooLarge { size: 2000, max: 1000 })));
    // A refusal of something that exists reads like one of something that does not.
    assert_eq!(
        tree.readable(".env").unwrap_err().to_string(),
        tree.readable("nope").unwrap_err().to_string()
    );
}

#[test]
fn a_scan_and_single_checks_agree() {
    let (_base, dir) = project();
    let tree = tree(&dir);
    let scan = tree.scan();
    let listed: Vec<&str> = scan.files.keys().map(String::as_str).collect();
    let mut expected = vec!["big.txt", "docs/guide.md", "src/main.rs", "src/nested/kept.txt"];
    #[cfg(unix)]
    expected.push("main-link.rs");
    expected.sort();
    assert_eq!(listed, expected);
    for path in &listed {
        assert!(tree.locate(path).is_ok(), "{path}");
    }
    for path in NOT_SERVED {
        assert!(!scan.files.contains_key(*path), "{path}");
    }
    assert!(scan.dirs.iter().all(|d| !d.ends_with(".git") && !d.ends_with("build")));
}

#[test]
fn a_search_walk_is_only_narrowed_by_its_glob() {
    let (_base, dir) = project();
    let tree = tree(&dir);
    let walk = |start: &str, glob: Option<&str>| {
        let mut seen = Vec::new();
        tree.walk_files(start, glob, |f| {
            seen.push(f.served);
            true
        })
        .map(|()| {
            seen.sort();
            seen
        })
    };
    for glob in ["*", "**", "**/.env", ".env", "../*", "*.log", "**/*.key", "build/**", ".git/*", "*link*"] {
        let seen = walk("", Some(glob)).unwrap();
        for path in &seen {
            assert!(tree.locate(path).is_ok(), "glob {glob} widened to {path}");
        }
        assert!(!seen.iter().any(|p| p.contains("env") || p.ends_with(".log") || p.ends_with(".key")));
    }
    assert_eq!(walk("", Some("*.rs")).unwrap().len(), if cfg!(unix) { 2 } else { 1 });
    assert_eq!(walk("src", None).unwrap(), ["src/main.rs", "src/nested/kept.txt"]);
    // big.txt is above the read limit: never searched.
    assert!(!walk("", None).unwrap().contains(&"big.txt".to_owned()));
    for start in ["build", ".git", "../", "src-link", "up"] {
        assert!(walk(start, None).is_err(), "{start}");
    }
    assert!(matches!(walk("", Some("a{")), Err(TreeError::Glob { .. })));
}

#[test]
fn writes_never_touch_configuration_dotfiles_or_unserved_files() {
    let (_base, dir) = project();
    let tree = tree(&dir);
    for path in [
        ".env",
        ".gitignore",
        ".ignore",
        ".git/config",
        ".git/hooks/pre-commit",
        ".switchboard/prompts/x.md",
        ".vscode/tasks.json",
        "src/nested/.gitignore",
        "src/.envrc",
        "switchboard.toml",
        "prompts/evil.md",
        "prompts/sub/evil.md",
        "ignored.log",
        "build/new.txt",
        "src/private.key",
        "out-link.txt",
        "env-link.txt",
        "up/new.txt",
        "src-link/new.rs",
        "docs/secret-plan.md",
        "../escape.txt",
        "/tmp/escape.txt",
        "",
        "src",
    ] {
        assert!(tree.writable(path).is_err(), "{path:?} must not be writable");
    }
    assert!(matches!(tree.writable(".git/config"), Err(TreeError::Protected(_))));
    assert!(matches!(tree.writable("switchboard.toml"), Err(TreeError::Protected(_))));
    let existing = tree.writable("src/main.rs").unwrap();
    assert!(existing.exists);
    let new = tree.writable("src/new/deeper/file.rs").unwrap();
    assert!(!new.exists);
    new.prepare().unwrap();
    std::fs::write(&new.path, "x").unwrap();
    assert!(dir.join("src/new/deeper/file.rs").is_file());
    assert!(tree.readable("src/new/deeper/file.rs").is_ok());
}

#[test]
fn names_that_need_not_exist_follow_the_name_rules() {
    let (_base, dir) = project();
    let tree = tree(&dir);
    assert!(tree.permits_name("src/old.rs"));
    for path in [".env", "config/.env", ".git/HEAD", "docs/secret-plan.md", "../x"] {
        assert!(!tree.permits_name(path), "{path}");
    }
}

#[test]
fn hidden_files_are_served_on_request_but_never_git_or_written() {
    let (_base, dir) = project();
    let options = FilesOptions { hidden: true, ..Default::default() };
    let tree = ServedTree::new(&dir, &options).unwrap();
    assert!(tree.readable(".env").is_ok());
    assert!(tree.readable(".git/config").is_err());
    assert!(tree.writable(".env").is_err());
    // Still ignored by .gitignore.
    assert!(tree.readable("ignored.log").is_err());
}

#[test]
fn mounted_roots_serve_under_their_prefix() {
    let (base, dir) = project();
    std::fs::create_dir_all(base.path().join("manual")).unwrap();
    std::fs::write(base.path().join("manual/intro.md"), "intro").unwrap();
    let roots = vec![
        RootSpec { path: ".".into(), mount: String::new() },
        RootSpec { path: "../manual".into(), mount: "docs".into() },
    ];
    let tree = ServedTree::new(&dir, &FilesOptions { roots, ..Default::default() }).unwrap();
    assert!(tree.readable("docs/intro.md").unwrap().path.ends_with("manual/intro.md"));
    // The folder's own docs/ is shadowed by the mount.
    assert!(tree.readable("docs/guide.md").is_err());
    let scan = tree.scan();
    assert!(scan.files.contains_key("docs/intro.md") && !scan.files.contains_key("docs/guide.md"));
    assert!(tree.writable("docs/new.md").unwrap().path.ends_with("manual/new.md"));
}

#[test]
fn gitignore_off_still_hides_dotfiles_and_git() {
    let (_base, dir) = project();
    let tree = ServedTree::new(&dir, &FilesOptions { gitignore: false, ..Default::default() }).unwrap();
    assert!(tree.readable("ignored.log").is_ok());
    assert!(tree.readable(".env").is_err());
    assert!(tree.readable(".git/config").is_err());
}

#[test]
fn history_paths_follow_the_name_rules_and_the_ignore_files_in_force_now() {
    let (_base, dir) = project();
    std::fs::create_dir_all(dir.join(".git/info")).unwrap();
    std::fs::write(dir.join(".git/info/exclude"), "local-only.txt\n").unwrap();
    let tree = tree(&dir);
    // Files that need not exist, in folders that need not exist.
    for path in ["src/old.rs", "src/nested/kept-old.txt", "new/dir/file.md", "README.md"] {
        assert!(tree.permits_history_path(path), "{path}");
    }
    for path in [
        ".env",
        "config/.env",
        ".git/HEAD",
        "docs/secret-plan.md",
        "ignored.log",
        "build/old.txt",
        "build/deep/er.txt",
        "old.key",
        "src/deep/old.key",
        "src/nested/local.txt",
        "local-only.txt",
        "../x",
        "/etc/passwd",
        "",
    ] {
        assert!(!tree.permits_history_path(path), "{path}");
    }
    // For regular files that exist, the history rule and the walker agree.
    for path in ["src/main.rs", "src/nested/kept.txt", "docs/guide.md", "ignored.log", "src/private.key"] {
        assert_eq!(tree.permits_history_path(path), tree.locate(path).is_ok(), "{path}");
    }
}

#[test]
fn history_rules_see_ignore_files_change_and_negations() {
    let (_base, dir) = project();
    let tree = tree(&dir);
    let rules = tree.history_rules();
    assert!(rules.permits("later.txt"));
    std::fs::write(dir.join(".gitignore"), "ignored.log\n/build/\n*.key\nlater.txt\n").unwrap();
    assert!(!rules.permits("later.txt"), "a line added to .gitignore hides the path at once");
    // `.ignore` wins over `.gitignore`; a deeper file wins over a shallower one.
    std::fs::write(dir.join("src/nested/.ignore"), "!local.txt\n").unwrap();
    assert!(rules.permits("src/nested/local.txt"));
    assert!(tree.locate("src/nested/local.txt").is_ok(), "the walker agrees");
    // Off: only the name rules.
    let off = ServedTree::new(&dir, &FilesOptions { gitignore: false, ..Default::default() }).unwrap();
    assert!(off.permits_history_path("ignored.log") && !off.permits_history_path(".env"));
}

#[test]
fn history_paths_of_a_work_tree_map_to_served_paths() {
    let (base, dir) = project();
    std::fs::create_dir_all(base.path().join("manual")).unwrap();
    let roots = vec![
        RootSpec { path: "src".into(), mount: String::new() },
        RootSpec { path: "../manual".into(), mount: "docs".into() },
    ];
    let tree = ServedTree::new(&dir, &FilesOptions { roots, ..Default::default() }).unwrap();
    let rules = tree.history_rules();
    let workdir = dir.canonicalize().unwrap();
    // The repository's src/main.rs is served as main.rs; files outside the roots are not.
    assert!(rules.permits_in_workdir(&workdir, "src/main.rs"));
    assert!(!rules.permits_in_workdir(&workdir, "README.md"));
    assert!(!rules.permits_in_workdir(&workdir, "src/private.key"));
    assert!(!rules.permits_in_workdir(&workdir, "src/../.env"));
    // src/docs/x would be served as docs/x, which belongs to the mount.
    assert!(!rules.permits_in_workdir(&workdir, "src/docs/x.md"));
    // Writes through git follow the write policy.
    assert!(rules.writable_in_workdir(&workdir, "src/main.rs"));
    assert!(rules.writable_in_workdir(&workdir, "src/new/file.rs"));
    for path in ["src/.env", "src/private.key", "README.md", "src/../x", "/etc/passwd"] {
        assert!(!rules.writable_in_workdir(&workdir, path), "{path}");
    }
}

#[test]
fn a_listing_finds_what_a_scan_serves_and_nothing_else() {
    let (_base, dir) = project();
    let tree = tree(&dir);
    let scan = tree.scan();
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    tree.list("", usize::MAX, |entry| match entry.kind {
        EntryKind::Dir => dirs.push(entry.served),
        _ => files.push(entry.served),
    })
    .unwrap();
    files.sort();
    // big.txt is above max_file_size: listed (and scanned), never read.
    assert_eq!(files, scan.files.keys().cloned().collect::<Vec<_>>());
    assert_eq!(dirs, ["docs", "src", "src/nested"]);
    let mut found = Vec::new();
    tree.find("", "**", |entry| found.push(entry.served)).unwrap();
    found.sort();
    assert_eq!(found, files, "a glob only narrows");
    for path in NOT_SERVED {
        assert!(tree.list(path, 1, |_| {}).is_err(), "{path}");
        assert!(tree.describe(path).is_err(), "{path}");
        assert!(tree.removable(path).is_err(), "{path}");
    }
    #[cfg(unix)]
    assert_eq!(tree.describe("main-link.rs").unwrap().kind, EntryKind::FileLink);
    assert!(matches!(tree.list("src/main.rs", 1, |_| {}), Err(TreeError::WrongKind(_))));
}

#[test]
fn folders_are_made_and_entries_removed_only_where_files_may_be_written() {
    let (_base, dir) = project();
    let tree = tree(&dir);
    let made = tree.writable_dir("docs/new/deeper").unwrap();
    assert!(!made.exists);
    made.prepare().unwrap();
    assert!(dir.join("docs/new/deeper").is_dir());
    assert!(tree.writable_dir("docs").unwrap().exists);
    for path in [
        ".hidden",
        "src/.cache",
        ".git/x",
        "build/x",
        "prompts",
        "prompts/x",
        "up/x",
        "docs/secret-notes",
        "",
    ] {
        assert!(tree.writable_dir(path).is_err(), "{path}");
        assert!(!dir.join(path).join("x").exists(), "{path}");
    }
    let removable = tree.removable("docs/guide.md").unwrap();
    assert_eq!(removable.path, dir.canonicalize().unwrap().join("docs/guide.md"));
    #[cfg(unix)]
    {
        // A link is never written through, moved or removed: the rules
        // judge the path given, and a write through the link would land on
        // a file they never saw. Its target is untouched.
        assert!(matches!(tree.removable("main-link.rs"), Err(TreeError::Protected(_))));
        assert!(matches!(tree.writable("main-link.rs"), Err(TreeError::Protected(_))));
        assert!(dir.join("src/main.rs").exists());
    }
    assert!(tree.removable("").is_err());
}

#[test]
fn never_served_paths_are_not_listed_read_walked_written_or_named() {
    let (base, dir) = project();
    std::fs::write(dir.join("switchboard.toml"), "# supersecret config\n").unwrap();
    std::fs::write(dir.join(".switchboard.env"), "TOKEN=supersecret\n").unwrap();
    std::fs::write(base.path().join("elsewhere.toml"), "# supersecret explicit\n").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.join("switchboard.toml"), dir.join("config-link.toml")).unwrap();
    // Whatever `hidden` and the other rules say, and with a root above
    // the project that reaches the explicit configuration file too.
    let roots = vec![
        RootSpec { path: ".".into(), mount: String::new() },
        RootSpec { path: "..".into(), mount: "up".into() },
    ];
    let options = FilesOptions { hidden: true, gitignore: false, roots, ..Default::default() };
    let tree = ServedTree::new(&dir, &options).unwrap().never_serving([
        dir.join("switchboard.toml"),
        ".switchboard.env".into(),
        base.path().join("elsewhere.toml"),
    ]);
    for path in [
        "switchboard.toml",
        "./switchboard.toml",
        ".switchboard.env",
        "config-link.toml",
        "up/elsewhere.toml",
        "up/project/switchboard.toml",
        "up/project/.switchboard.env",
    ] {
        assert!(matches!(tree.locate(path), Err(TreeError::NotServed)), "{path} located");
        assert!(tree.readable(path).is_err(), "{path} readable");
        // A name rule: a link is judged at its target when it is used.
        assert!(path == "config-link.toml" || !tree.permits_name(path), "{path} permitted by name");
        assert!(tree.writable(path).is_err(), "{path} writable");
        assert!(path == "config-link.toml" || !tree.permits_history_path(path), "{path} in history");
    }
    let scan = tree.scan();
    assert!(
        !scan.files.keys().any(|k| {
            k.ends_with("switchboard.toml") || k.ends_with(".switchboard.env") || k.contains("elsewhere")
        }),
        "{:?}",
        scan.files.keys()
    );
    let mut walked = Vec::new();
    tree.walk_files("", None, |f| {
        walked.push(f.served);
        true
    })
    .unwrap();
    assert!(
        walked.iter().all(|p| !p.contains("switchboard.toml") && !p.ends_with(".switchboard.env")),
        "{walked:?}"
    );
    // The rest is served as before (hidden = true: the old .env too).
    assert!(tree.readable("src/main.rs").is_ok());
    assert!(tree.readable(".env").is_ok());
    assert!(tree.permits_name("src/main.rs"));
    // A configuration file that does not exist yet cannot be created.
    let fresh =
        ServedTree::new(&dir, &FilesOptions::default()).unwrap().never_serving([dir.join("new.toml")]);
    assert!(matches!(fresh.writable("new.toml"), Err(TreeError::Protected(_))));
}

/// An apps folder's view files (pages and side files directly in it) are
/// never written, created, moved onto or removed; its subfolders follow
/// the usual rules, and a tool is not handed the folder or an ancestor.
#[test]
fn the_view_files_of_an_apps_folder_are_never_written() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("apps/web")).unwrap();
    std::fs::write(dir.path().join("apps/report.html"), "<p>view</p>").unwrap();
    std::fs::write(dir.path().join("apps/web/index.html"), "<p>code</p>").unwrap();
    let tree = ServedTree::new(dir.path(), &FilesOptions::default())
        .unwrap()
        .protecting_views([std::path::PathBuf::from("apps")]);
    for path in ["apps/report.html", "apps/new.html", "apps/report.toml"] {
        assert!(matches!(tree.writable(path), Err(TreeError::Protected(_))), "{path}");
    }
    assert!(tree.removable("apps/report.html").is_err());
    assert!(tree.writable("apps/web/index.html").is_ok());
    assert!(tree.writable("apps/notes.md").is_ok());
    assert!(tree.readable("apps/report.html").is_ok(), "views are served files");
    let base = dir.path().canonicalize().unwrap();
    assert!(tree.contains_protected(&base.join("apps")) && tree.contains_protected(&base));
    assert!(!tree.contains_protected(&base.join("apps/web")));
    assert!(switchboard_tree::is_view_file_name("a.html") && !switchboard_tree::is_view_file_name("a.md"));
}

/// A single path costs the folders on its way, not the folders beside
/// them: the check never opens a neighbouring folder's ignore files. A
/// neighbour whose `.gitignore` is a FIFO would block an open for good;
/// the check still answers (it once read and compiled the ignore files of
/// every folder beside the way, so one saved file in a monorepo cost CPU
/// in proportion to the whole tree).
#[cfg(unix)]
#[test]
fn a_single_path_check_never_reads_the_folders_beside_its_way() {
    let (_base, dir) = project();
    std::fs::create_dir_all(dir.join("beside")).unwrap();
    let made = std::process::Command::new("mkfifo").arg(dir.join("beside/.gitignore")).status().unwrap();
    assert!(made.success(), "mkfifo");
    let tree = tree(&dir);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let answers = (tree.locate("src/main.rs").is_ok(), tree.locate("src/nested/local.txt").is_err());
        let _ = tx.send(answers);
    });
    let answered = rx.recv_timeout(std::time::Duration::from_secs(20));
    if answered.is_err() {
        // Unblock the reader left behind before failing.
        let _ = std::fs::write(dir.join("beside/.gitignore"), "");
    }
    assert_eq!(answered, Ok((true, true)), "a check opened an ignore file off its way");
}
