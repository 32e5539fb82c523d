//! MCP prompts from Markdown files.
//!
//! A prompt file is Markdown with front matter; the body is a
//! [minijinja](https://docs.rs/minijinja) template rendered with the
//! prompt's arguments (`docs/specification/<rev>/server/prompts.mdx`):
//!
//! ```markdown
//! ---
//! title: Review a change
//! description: Asks for a focused review of a diff.
//! arguments:
//!   - name: diff
//!     description: The unified diff to review
//!     required: true
//!   - name: focus
//!     description: What to look at most
//!     completions: [security, performance, readability]
//! ---
//! Please review this change{% if focus %}, paying most attention to {{ focus }}{% endif %}:
//!
//! {{ diff }}
//! <!-- assistant -->
//! I will go through it file by file.
//! <!-- user -->
//! Start with the riskiest part.
//! ```
//!
//! - The prompt is named after the file (`review.md` → `review`) unless
//!   the front matter sets `name`. Keys: `name`, `title`, `description`,
//!   `arguments` (each `name`, `description`, `required` (default false),
//!   `completions`: values offered by `completion/complete`). Unknown keys
//!   are errors, so a typo does not silently drop a setting.
//! - Front matter is YAML between `---` lines, or TOML between `+++` lines;
//!   a file without front matter is a prompt with no arguments.
//! - The body is one user message, or several: a line that is exactly
//!   `<!-- user -->` or `<!-- assistant -->` (invisible when the Markdown is
//!   rendered) starts a message with that role. Blank lines around each
//!   message are trimmed.
//! - Templates are checked when the file loads: a syntax error, or a
//!   variable that is not a declared argument, is a [`PromptError`] with the
//!   line and column *in the file*. Optional arguments that were not given
//!   are undefined, so `{% if focus %}` works.
//!
//! [`load_dir`] loads every `*.md` of a folder (not its subfolders);
//! [`builtin_prompts`] are prompt files embedded in this crate.

mod builtin;
mod file;
mod front_matter;

use std::path::{Path, PathBuf};

pub use builtin::builtin_prompts;
pub use file::PromptFile;

/// A problem with a prompt file, placed by line and column.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}:{line}:{column}: {message}", path.display())]
pub struct PromptError {
    /// The file.
    pub path: PathBuf,
    /// 1-based line in the file.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl PromptError {
    pub(crate) fn new(path: &Path, line: usize, column: usize, message: impl Into<String>) -> Self {
        Self { path: path.to_path_buf(), line: line.max(1), column: column.max(1), message: message.into() }
    }
}

/// Every `*.md` file in `dir`, sorted by file name. A bad file becomes a
/// [`PromptError`] and does not stop the others; two files that define the
/// same prompt name are an error naming both.
pub fn load_dir(dir: &Path) -> (Vec<PromptFile>, Vec<PromptError>) {
    let mut prompts = Vec::new();
    let mut errors = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            errors.push(PromptError::new(dir, 1, 1, format!("cannot read the prompts folder: {e}")));
            return (prompts, errors);
        }
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x.eq_ignore_ascii_case("md")))
        .collect();
    paths.sort();
    for path in paths {
        let loaded = std::fs::read_to_string(&path)
            .map_err(|e| PromptError::new(&path, 1, 1, format!("cannot read it: {e}")))
            .and_then(|text| PromptFile::parse(&path, &text));
        match loaded {
            Ok(prompt) => {
                if let Some(first) = prompts.iter().find(|p: &&PromptFile| p.name() == prompt.name()) {
                    errors.push(PromptError::new(
                        &path,
                        1,
                        1,
                        format!(
                            "prompt name {:?} is already defined by {}; set a different `name` in the front matter",
                            prompt.name(),
                            first.path().display()
                        ),
                    ));
                } else {
                    prompts.push(prompt);
                }
            }
            Err(e) => errors.push(e),
        }
    }
    (prompts, errors)
}
