//! A path given by a client or model, parsed once: `/`-separated plain
//! names relative to the served folder. Every access goes through this
//! parser, so no path reaches the file system with a `..`, an absolute
//! prefix, a backslash or a NUL in it.

use crate::TreeError;

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
