//! A configuration problem, placed by file, line and column.

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// One thing wrong with a configuration or a file it names, printed as
/// `file:line:column: message` like a compiler diagnostic.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct Problem {
    /// The file (`None`: the embedded default configuration).
    pub file: Option<PathBuf>,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What is wrong, and what to do about it.
    pub message: String,
}

impl Problem {
    /// A problem at a known line and column of `file`.
    pub fn new(file: Option<&Path>, line: usize, column: usize, message: impl Into<String>) -> Self {
        Self { file: file.map(Path::to_path_buf), line, column, message: message.into() }
    }

    /// A problem at the start of a byte range of `text` (read from `file`).
    pub fn at(file: Option<&Path>, text: &str, span: Range<usize>, message: String) -> Self {
        let (line, column) = line_column(text, span.start);
        Self { file: file.map(Path::to_path_buf), line, column, message }
    }

    /// The same problem with its file shown relative to `base` when it is
    /// inside it (what a person typing commands in `base` expects to read).
    #[must_use]
    pub fn relative_to(mut self, base: &Path) -> Self {
        if let Some(file) = &self.file
            && let Ok(rel) = file.strip_prefix(base)
        {
            self.file = Some(rel.to_path_buf());
        }
        self
    }

    /// A problem with a file as a whole.
    pub fn whole_file(file: Option<&Path>, message: String) -> Self {
        Self { file: file.map(Path::to_path_buf), line: 1, column: 1, message }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.file {
            Some(file) => write!(f, "{}:{}:{}: {}", file.display(), self.line, self.column, self.message),
            None => write!(f, "<embedded default>:{}:{}: {}", self.line, self.column, self.message),
        }
    }
}

/// The 1-based line and column (in characters) of byte `offset` in `text`.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

#[cfg(test)]
mod tests {
    use super::line_column;

    #[test]
    fn lines_and_columns_are_one_based_and_count_characters() {
        let text = "a = 1\nbé = 2\n";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 6), (2, 1));
        assert_eq!(line_column(text, 9), (2, 3));
        assert_eq!(line_column(text, 8), (2, 2), "inside a character: its start");
        assert_eq!(line_column(text, 1000), (3, 1));
    }
}
