//! A path given by a client or model, parsed once: `/`-separated plain
//! names relative to the served folder. Every access goes through this
//! parser, so no path reaches the file system with a `..`, an absolute
//! prefix, a backslash or a NUL in it.

use std::cmp::Ordering;

use crate::TreeError;

/// Compares two served paths (`/`-separated) component by component: as
/// if `/` sorted below every other byte, so `a/x` < `a.txt` < `a0`, and a
/// folder's files follow the folder's name directly. This is the order of
/// a depth-first walk whose folder entries are sorted by file name (the
/// order [`ServedTree::scan`](crate::ServedTree::scan) walks in), and in
/// it a path and everything below it (`p`, `p/…`) are one contiguous run,
/// as are all paths starting with any given string.
pub fn cmp_served(a: &str, b: &str) -> Ordering {
    let rank = |byte: u8| if byte == b'/' { 0 } else { u16::from(byte) + 1 };
    a.bytes().map(rank).cmp(b.bytes().map(rank))
}

/// A parsed relative path: plain names, no `.` or `..` (empty: the served
/// folder itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServedPath {
    segments: Vec<String>,
}

impl ServedPath {
    /// Parses `input`: `src/main.rs`, `./src//main.rs` (the same), `.` or
    /// `""` (the folder itself). Refused: `..` anywhere, absolute paths,
    /// backslashes, NUL. Percent signs are plain characters.
    pub fn parse(input: &str) -> Result<Self, TreeError> {
        if input.contains('\0') {
            return Err(TreeError::Malformed("NUL byte"));
        }
        if input.contains('\\') {
            return Err(TreeError::Malformed("backslash (use '/')"));
        }
        if input.starts_with('/') {
            return Err(TreeError::Malformed("absolute path (paths are relative to the served folder)"));
        }
        let mut segments = Vec::new();
        for segment in input.split('/') {
            match segment {
                "" | "." => {}
                ".." => return Err(TreeError::Malformed("'..' segment")),
                name => segments.push(name.to_owned()),
            }
        }
        Ok(Self { segments })
    }

    /// Its names, outermost first.
    pub fn segments(&self) -> &[String] {
        &self.segments
    }

    /// Whether it names the served folder itself.
    pub fn is_root(&self) -> bool {
        self.segments.is_empty()
    }

    /// `/`-joined (`""` for the folder itself).
    pub fn as_string(&self) -> String {
        self.segments.join("/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn served_order_puts_a_folder_s_files_right_after_its_name() {
        let mut paths =
            vec!["foo.rs", "foo-bar", "foo/z", "foo/a/b", "foo", "fo", "foo0", "a/x", "a.txt", "a0"];
        paths.sort_by(|a, b| cmp_served(a, b));
        assert_eq!(
            paths,
            ["a/x", "a.txt", "a0", "fo", "foo", "foo/a/b", "foo/z", "foo-bar", "foo.rs", "foo0"]
        );
        assert_eq!(cmp_served("x", "x"), Ordering::Equal);
    }

    #[test]
    fn plain_paths_parse_and_escapes_are_refused() {
        assert_eq!(ServedPath::parse("src/main.rs").unwrap().as_string(), "src/main.rs");
        assert_eq!(ServedPath::parse("./src//./main.rs").unwrap().as_string(), "src/main.rs");
        assert!(ServedPath::parse(".").unwrap().is_root());
        assert!(ServedPath::parse("").unwrap().is_root());
        // Not decoded: a name with percent signs.
        assert_eq!(ServedPath::parse("%2e%2e/x").unwrap().segments(), ["%2e%2e", "x"]);
        for evil in ["..", "../x", "src/../../x", "src/..", "/etc/passwd", "a\\b", "a\0b", "//x"] {
            assert!(matches!(ServedPath::parse(evil), Err(TreeError::Malformed(_))), "{evil:?}");
        }
    }
}
