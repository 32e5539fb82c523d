//! The first scan announces each folder as the walk enters it
//! ([`ServedTree::scan_entering`]), before it reads the folder's ignore
//! files and files, and looks again at every folder whose names changed
//! after the walk began (the sorted walk lists a folder's names just
//! before announcing it). That is what lets the server answer `initialize`
//! before the scan and still miss no edit made during it: whatever changes
//! in a folder after its watch is reported by the watch, and whatever
//! changed before is read by the walk or by the second look. These tests
//! change a folder from inside the hook, at the moment it is told the walk
//! enters it, and check that the scan reads the folder as changed: its
//! new files, and its new `.gitignore`.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use switchboard_files::{FilesOptions, ServedTree};

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, text).unwrap();
}

/// A root with a few levels of folders, a file in each.
fn tree() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    for folder in ["a", "a/b", "a/b/c", "d"] {
        write(&root.join(folder).join("old.rs"), "// old\n");
    }
    (dir, root)
}

#[test]
fn every_folder_is_announced_before_it_is_read_with_files_made_then_found() {
    let (_dir, root) = tree();
    let tree = ServedTree::new(&root, &FilesOptions::default()).unwrap();
    let entered = Arc::new(Mutex::new(Vec::new()));
    let hook = {
        let entered = Arc::clone(&entered);
        move |dir: &Path| {
            // What a client's edit looks like when it lands as the walk
            // reaches the folder: before the folder's watch would exist.
            std::fs::write(dir.join("made-on-entry.rs"), "// new\n").unwrap();
            entered.lock().unwrap().push(dir.to_path_buf());
        }
    };
    let scan = tree.scan_entering(Arc::new(hook));
    let mut entered = entered.lock().unwrap().clone();
    entered.sort();
    let expected: Vec<PathBuf> = ["", "a", "a/b", "a/b/c", "d"].iter().map(|f| root.join(f)).collect();
    assert_eq!(entered, expected, "the root and every folder, each once");
    assert_eq!(scan.dirs.iter().cloned().collect::<Vec<_>>(), expected, "the folders the scan lists");
    for folder in ["", "a", "a/b", "a/b/c", "d"] {
        let served = if folder.is_empty() {
            "made-on-entry.rs".to_owned()
        } else {
            format!("{folder}/made-on-entry.rs")
        };
        assert!(
            scan.files.contains_key(&served),
            "{served} made on entering its folder is listed: {:?}",
            scan.files.keys()
        );
    }
    assert_eq!(scan.files.len(), 9, "four old files and five made on entry: {:?}", scan.files.keys());
    // And the same scan without the hook agrees: nothing else was found.
    assert_eq!(tree.scan().files.keys().collect::<Vec<_>>(), scan.files.keys().collect::<Vec<_>>());
}

#[test]
fn an_ignore_file_written_as_its_folder_is_entered_applies_to_that_walk() {
    let (_dir, root) = tree();
    let tree = ServedTree::new(&root, &FilesOptions::default()).unwrap();
    let b = root.join("a/b");
    let hook = move |dir: &Path| {
        if dir == b {
            std::fs::write(dir.join(".gitignore"), "old.rs\nc/\n").unwrap();
        }
    };
    let scan = tree.scan_entering(Arc::new(hook));
    let served: Vec<&String> = scan.files.keys().collect();
    assert!(!scan.files.contains_key("a/b/old.rs"), "ignored by the .gitignore written on entry: {served:?}");
    assert!(!scan.files.contains_key("a/b/c/old.rs"), "its ignored folder is not walked: {served:?}");
    assert!(!scan.dirs.contains(&root.join("a/b/c")), "nor watched");
    assert!(scan.files.contains_key("a/old.rs") && scan.files.contains_key("d/old.rs"), "{served:?}");
}
