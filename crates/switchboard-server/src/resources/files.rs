//! Safe mapping of `file://` URIs to paths under a root directory.
//!
//! A read of `file:///{path}` must never leave the served root: not through
//! `..` segments, not through their percent-encoded forms (`%2e%2e`,
//! `%2f`), not through a backslash, a NUL, an absolute path, or a symlink
//! that points outside (2026-07-28 `server/resources.mdx`: servers MUST
//! sanitize `file://` paths against directory traversal).
//!
//! ```no_run
//! use switchboard_server::FileRoot;
//! let root = FileRoot::new("./project").unwrap();
//! let path = root.resolve("file:///src/main.rs").unwrap();
//! assert!(path.starts_with(root.path()));
//! assert!(root.resolve("file:///../etc/passwd").is_err());
//! ```

use std::io;
use std::path::{Component, Path, PathBuf};

use switchboard_uri_template::percent_decode;

/// Why a `file://` URI cannot be served.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FileAccessError {
    /// Not a `file:///…` URI.
    #[error("not a file:/// URI")]
    NotAFileUri,
    /// The path tries to leave the root, or is malformed.
    #[error("path is not allowed: {0}")]
    Forbidden(&'static str),
    /// Nothing exists there.
    #[error("no such file")]
    NotFound,
    /// The file system failed.
    #[error("I/O error: {0}")]
    Io(#[from] io::Error),
}

/// A directory whose contents may be served as `file://` resources.
#[derive(Debug, Clone)]
pub struct FileRoot {
    root: PathBuf,
}

impl FileRoot {
    /// A root at `dir` (canonicalized; it must exist).
    pub fn new(dir: impl AsRef<Path>) -> io::Result<Self> {
        Ok(Self { root: dir.as_ref().canonicalize()? })
    }

    /// The canonical root directory.
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// Maps `file:///rel/path` to a path inside the root, following symlinks
    /// and refusing any result outside the root.
    pub fn resolve(&self, uri: &str) -> Result<PathBuf, FileAccessError> {
        let rest = uri.strip_prefix("file://").ok_or(FileAccessError::NotAFileUri)?;
        let rest = rest.strip_prefix("localhost").unwrap_or(rest);
        let encoded = rest.strip_prefix('/').ok_or(FileAccessError::NotAFileUri)?;
        let encoded = encoded.split(['?', '#']).next().unwrap_or_default();
        let decoded = percent_decode(encoded).ok_or(FileAccessError::Forbidden("bad percent-encoding"))?;
        if decoded.contains('\0') {
            return Err(FileAccessError::Forbidden("NUL byte"));
        }
        if decoded.contains('\\') {
            return Err(FileAccessError::Forbidden("backslash"));
        }
        self.resolve_relative(&decoded)
    }

    /// Maps a plain path relative to the root (`src/main.rs`, `.` or the
    /// empty string for the root itself) to the canonical path inside the
    /// root, with the same checks as [`FileRoot::resolve`]: no NUL, no
    /// backslash, no `..` component, no absolute path, and no symlink
    /// leading outside. Nothing is percent-decoded: `%2e%2e` is a name.
    pub fn resolve_relative(&self, path: &str) -> Result<PathBuf, FileAccessError> {
        let joined = self.join_checked(path)?;
        let canonical = match joined.canonicalize() {
            Ok(p) => p,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(FileAccessError::NotFound),
            Err(e) => return Err(e.into()),
        };
        if !canonical.starts_with(&self.root) {
            return Err(FileAccessError::Forbidden("the path leads outside the root (symlink?)"));
        }
        Ok(canonical)
    }

    /// Maps a relative path of a file that may not exist yet (for writing)
    /// to a path inside the root. Its parent directory must exist and be
    /// inside the root after following symlinks; if the file itself exists
    /// as a symlink, its target must be inside the root too.
    pub fn resolve_new(&self, path: &str) -> Result<PathBuf, FileAccessError> {
        let joined = self.join_checked(path)?;
        if joined == self.root {
            return Err(FileAccessError::Forbidden("the root itself is not a file"));
        }
        let (Some(parent), Some(name)) = (joined.parent(), joined.file_name()) else {
            return Err(FileAccessError::Forbidden("no file name"));
        };
        let parent = match parent.canonicalize() {
            Ok(p) => p,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(FileAccessError::NotFound),
            Err(e) => return Err(e.into()),
        };
        if !parent.starts_with(&self.root) {
            return Err(FileAccessError::Forbidden("the path leads outside the root (symlink?)"));
        }
        let target = parent.join(name);
        if target.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink()) {
            let inside = target.canonicalize().is_ok_and(|t| t.starts_with(&self.root));
            if !inside {
                return Err(FileAccessError::Forbidden("the path leads outside the root (symlink?)"));
            }
        }
        Ok(target)
    }

    /// The root joined with `path`'s components, refusing anything but
    /// plain names (no symlinks are followed yet).
    fn join_checked(&self, path: &str) -> Result<PathBuf, FileAccessError> {
        if path.contains('\0') {
            return Err(FileAccessError::Forbidden("NUL byte"));
        }
        if path.contains('\\') {
            return Err(FileAccessError::Forbidden("backslash"));
        }
        let mut joined = self.root.clone();
        for component in Path::new(path).components() {
            match component {
                Component::Normal(part) => joined.push(part),
                Component::CurDir => {}
                Component::ParentDir => return Err(FileAccessError::Forbidden("'..' segment")),
                Component::RootDir | Component::Prefix(_) => {
                    return Err(FileAccessError::Forbidden("absolute path"));
                }
            }
        }
        Ok(joined)
    }

    /// The `file:///…` URI of a path inside the root (percent-encoding what
    /// must be), or `None` for a path outside it.
    pub fn uri_for(&self, path: &Path) -> Option<String> {
        let relative = path.strip_prefix(&self.root).ok()?;
        let mut uri = String::from("file:///");
        for (i, part) in relative.components().enumerate() {
            let Component::Normal(part) = part else { return None };
            if i > 0 {
                uri.push('/');
            }
            percent_encode_segment(&part.to_string_lossy(), &mut uri);
        }
        Some(uri)
    }
}

fn percent_encode_segment(s: &str, out: &mut String) {
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp_root() -> (PathBuf, FileRoot) {
        let base = std::env::temp_dir().join(format!("mcp-files-{}-{}", std::process::id(), rand_suffix()));
        std::fs::create_dir_all(base.join("root/src")).unwrap();
        std::fs::write(base.join("root/src/main.rs"), "fn main() {}").unwrap();
        std::fs::write(base.join("root/a b.txt"), "x").unwrap();
        std::fs::write(base.join("secret.txt"), "secret").unwrap();
        let root = FileRoot::new(base.join("root")).unwrap();
        (base, root)
    }

    fn rand_suffix() -> u64 {
        let mut b = [0u8; 8];
        getrandom::fill(&mut b).unwrap();
        u64::from_le_bytes(b)
    }

    #[test]
    fn resolves_inside_and_refuses_traversal() {
        let (base, root) = tmp_root();
        assert!(root.resolve("file:///src/main.rs").unwrap().ends_with("src/main.rs"));
        assert!(root.resolve("file:///a%20b.txt").is_ok());
        assert!(matches!(root.resolve("file:///nope.txt"), Err(FileAccessError::NotFound)));
        for evil in [
            "file:///../secret.txt",
            "file:///src/../../secret.txt",
            "file:///%2e%2e/secret.txt",
            "file:///%2E%2E%2Fsecret.txt",
            "file:///..%2fsecret.txt",
            "file:///src%5c..%5c..%5csecret.txt",
            "file:////etc/passwd",
            "file:///a%00b",
            "file:///%zz",
        ] {
            assert!(matches!(root.resolve(evil), Err(FileAccessError::Forbidden(_))), "{evil}");
        }
        assert!(matches!(root.resolve("http://x/y"), Err(FileAccessError::NotAFileUri)));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(base.join("secret.txt"), base.join("root/link.txt")).unwrap();
            assert!(matches!(root.resolve("file:///link.txt"), Err(FileAccessError::Forbidden(_))));
        }
        let p = root.resolve("file:///a%20b.txt").unwrap();
        assert_eq!(root.uri_for(&p).unwrap(), "file:///a%20b.txt");
        std::fs::remove_dir_all(base).unwrap();
    }

    #[test]
    fn relative_paths_stay_inside_the_root() {
        let (base, root) = tmp_root();
        assert!(root.resolve_relative("src/main.rs").unwrap().ends_with("src/main.rs"));
        assert!(root.resolve_relative("./src/./main.rs").unwrap().ends_with("src/main.rs"));
        assert_eq!(root.resolve_relative("").unwrap(), root.path());
        assert_eq!(root.resolve_relative(".").unwrap(), root.path());
        assert!(matches!(root.resolve_relative("nope.txt"), Err(FileAccessError::NotFound)));
        // Plain paths are not percent-decoded: this is a (missing) name.
        assert!(matches!(root.resolve_relative("%2e%2e/secret.txt"), Err(FileAccessError::NotFound)));
        for evil in ["../secret.txt", "src/../../secret.txt", "/etc/passwd", "a\0b", "src\\..\\x"] {
            assert!(matches!(root.resolve_relative(evil), Err(FileAccessError::Forbidden(_))), "{evil}");
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(base.join("secret.txt"), base.join("root/link.txt")).unwrap();
            assert!(matches!(root.resolve_relative("link.txt"), Err(FileAccessError::Forbidden(_))));
            std::os::unix::fs::symlink(&base, base.join("root/out")).unwrap();
            assert!(matches!(root.resolve_relative("out/secret.txt"), Err(FileAccessError::Forbidden(_))));
        }
        std::fs::remove_dir_all(base).unwrap();
    }

    #[test]
    fn new_paths_need_a_parent_inside_the_root() {
        let (base, root) = tmp_root();
        assert!(root.resolve_new("new.txt").unwrap().ends_with("root/new.txt"));
        assert!(root.resolve_new("src/main.rs").unwrap().ends_with("src/main.rs"));
        assert!(matches!(root.resolve_new("missing/new.txt"), Err(FileAccessError::NotFound)));
        for evil in ["../new.txt", "/tmp/new.txt", "", ".", "src/../../x", "a\0b"] {
            assert!(matches!(root.resolve_new(evil), Err(FileAccessError::Forbidden(_))), "{evil:?}");
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&base, base.join("root/out")).unwrap();
            assert!(matches!(root.resolve_new("out/new.txt"), Err(FileAccessError::Forbidden(_))));
            std::os::unix::fs::symlink(base.join("secret.txt"), base.join("root/link.txt")).unwrap();
            assert!(matches!(root.resolve_new("link.txt"), Err(FileAccessError::Forbidden(_))));
            std::os::unix::fs::symlink(base.join("nowhere"), base.join("root/dangling")).unwrap();
            assert!(matches!(root.resolve_new("dangling"), Err(FileAccessError::Forbidden(_))));
        }
        std::fs::remove_dir_all(base).unwrap();
    }
}
