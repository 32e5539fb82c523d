//! What the README and the workspace promise about shipping: every crate
//! meant for crates.io has complete metadata and its license files, crates
//! not meant for it say so, and the names this project gave up (taken on
//! crates.io by other projects) appear nowhere in the tree.
//!
//! `.ci/run` also runs `cargo package --workspace --no-verify`, which builds
//! each `.crate` file the way `cargo publish` would.

use std::path::{Path, PathBuf};

use serde_json::Value;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the workspace root")
}

/// `cargo metadata --no-deps` of the workspace.
fn metadata() -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let out = std::process::Command::new(cargo)
        .args(["metadata", "--no-deps", "--format-version", "1", "--offline"])
        .current_dir(workspace_root())
        .output()
        .expect("cargo metadata runs");
    assert!(out.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON")
}

fn is_published(package: &Value) -> bool {
    // `publish = false` is `[]`; absent (any registry) is null.
    package["publish"].as_array().is_none_or(|registries| !registries.is_empty())
}

#[test]
fn every_publishable_crate_has_complete_metadata_and_its_license_files() {
    let metadata = metadata();
    let packages = metadata["packages"].as_array().expect("packages");
    let published: Vec<&Value> = packages.iter().filter(|p| is_published(p)).collect();
    assert!(published.len() >= 17, "{} publishable crates", published.len());
    for package in published {
        let name = package["name"].as_str().expect("a name");
        let dir =
            Path::new(package["manifest_path"].as_str().expect("a manifest")).parent().expect("a folder");
        assert!(name == "switchboard" || name.starts_with("switchboard-"), "{name}: not of the family");
        let description = package["description"].as_str().unwrap_or_default();
        assert!(description.len() >= 20, "{name}: no real description");
        assert_eq!(package["license"], "MIT OR Apache-2.0", "{name}");
        let readme = package["readme"].as_str().unwrap_or_else(|| panic!("{name}: no readme"));
        assert!(dir.join(readme).is_file(), "{name}: readme {readme} missing");
        let keywords = package["keywords"].as_array().expect("keywords");
        assert!((1..=5).contains(&keywords.len()), "{name}: crates.io takes 1 to 5 keywords");
        for keyword in keywords {
            let keyword = keyword.as_str().expect("a keyword");
            assert!(
                keyword.len() <= 20 && keyword.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'),
                "{name}: keyword {keyword:?}"
            );
        }
        assert!(!package["categories"].as_array().expect("categories").is_empty(), "{name}: no category");
        assert!(package["rust_version"].is_string(), "{name}: no rust-version");
        for license in ["LICENSE-MIT", "LICENSE-APACHE"] {
            let text = std::fs::read_to_string(dir.join(license))
                .unwrap_or_else(|e| panic!("{name}: {license}: {e}"));
            assert!(text.len() > 500, "{name}: {license} is not the license text");
        }
        // A dependency on another crate of the workspace must carry a
        // version, or the published crate could not resolve it (a
        // dev-dependency without one is dropped on purpose: see Cargo.toml).
        for dep in package["dependencies"].as_array().expect("dependencies") {
            if dep["path"].is_string() && dep["kind"] != "dev" {
                assert_ne!(dep["req"], "*", "{name}: {} has no version", dep["name"]);
            }
        }
    }
}

#[test]
fn crates_not_meant_for_crates_io_say_so() {
    let metadata = metadata();
    for package in metadata["packages"].as_array().expect("packages") {
        let name = package["name"].as_str().expect("a name");
        if name.starts_with("example-") || name == "switchboard-bench" {
            assert!(!is_published(package), "{name} must have publish = false");
        }
    }
}

/// The names given up: an unrelated `mcpd` binary crate, the official SDK's
/// old `mcp-server`/`mcp-macros`, another project's `mcp-types`, and the
/// rest of the old family with them.
const OLD_NAMES: &[&str] = &[
    "mcpd",
    "mcp-types",
    "mcp_types",
    "mcp-server",
    "mcp_server",
    "mcp-http",
    "mcp_http",
    "mcp-macros",
    "mcp_macros",
    "mcp-metrics",
    "mcp_metrics",
    "mcp-proxy",
    "mcp_proxy",
    "mcp-testkit",
    "mcp_testkit",
    "mcp-uri-template",
    "mcp_uri_template",
    "mcp-state-redis",
    "mcp_state_redis",
];

/// Files of the tree (not build output, dependencies or VCS data).
fn tree_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a readable folder").flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let file_type = entry.file_type().expect("a file type");
        if file_type.is_dir() {
            if !matches!(name.as_ref(), "target" | ".git" | "node_modules" | "corpus" | "artifacts") {
                tree_files(&path, out);
            }
        } else if file_type.is_file() {
            out.push(path);
        }
    }
}

/// Whether `text` has `word` where a name would be: not inside a longer
/// word (`rmcp-server` is someone else's and fine).
fn names(text: &str, word: &str) -> bool {
    let is_name_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        // `mcp-bench` etc. are the shared harness's names, not ours.
        !before.is_some_and(is_name_char) && !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

#[test]
fn the_old_names_appear_nowhere() {
    let root = workspace_root();
    let mut files = Vec::new();
    tree_files(&root, &mut files);
    let mut found = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&root).expect("inside the root");
        if relative == Path::new(file!()) {
            continue; // this file lists them
        }
        let Ok(text) = std::fs::read_to_string(file) else { continue }; // binary files
        for word in OLD_NAMES {
            let in_name = relative.to_string_lossy().contains(word);
            if in_name || names(&text, word) {
                found.push(format!("{}: {word}", relative.display()));
            }
        }
    }
    assert!(found.is_empty(), "old names remain:\n{}", found.join("\n"));
}
