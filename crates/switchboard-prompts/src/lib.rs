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
//! ## What a prompt file is
//!
//! A prompts folder (`prompts/`, `.switchboard/prompts/` or a configured one) is
//! often there for other reasons too: templates another tool renders, notes,
//! a README. So a file in it is a *prompt file* exactly when
//!
//! 1. it lies directly in the folder (subfolders are not read),
//! 2. its name ends in `.md` (any case) and is not `README.md` (any case),
//! 3. and it starts with front matter: its first line, after an optional
//!    UTF-8 byte-order mark, is exactly `---` (YAML) or `+++` (TOML)
//!    ([`starts_with_front_matter`]). The front matter runs to the next line
//!    that is exactly the same fence, and may be empty (`---` then `---`: a
//!    prompt with no arguments). A file that opens front matter and never
//!    closes it is a prompt file with an error, not a skipped file.
//!
//! Front matter is the sign that a Markdown file was written in this
//! format; without it a file is someone's document or a template for
//! another tool, whatever it contains. [`load_dir`] reports the `.md` files
//! that are not prompt files in [`LoadedDir::skipped`] with the reason, and
//! does not look at other files at all. A prompt file that does not load
//! (front matter that does not parse, a template error, a name already
//! taken, unreadable) is a [`PromptError`] in [`LoadedDir::errors`], placed
//! by line and column; the other files load all the same. What to do with
//! both is the caller's policy: `switchboard` with no configuration file notes them
//! on stderr and serves the rest, while with an `switchboard.toml` every error, and
//! every skipped file but a README, is a problem that stops the load.
//!
//! ## The format
//!
//! - The prompt is named after the file (`review.md` → `review`) unless
//!   the front matter sets `name`. Keys: `name`, `title`, `description`,
//!   `arguments` (each `name`, `description`, `required` (default false),
//!   `completions`: values offered by `completion/complete`). Unknown keys
//!   are errors, so a typo does not silently drop a setting.
//! - Front matter is YAML between `---` lines, or TOML between `+++` lines.
//!   [`PromptFile::parse`], given text with no front matter, takes it all
//!   as the body of a prompt with no arguments: the parser does not decide
//!   what is a prompt file, [`load_dir`] does.
//! - The body is one user message, or several: a line that is exactly
//!   `<!-- user -->` or `<!-- assistant -->` (invisible when the Markdown is
//!   rendered) starts a message with that role. Blank lines around each
//!   message are trimmed.
//! - Templates are checked when the file loads: a syntax error, or a
//!   variable that is not a declared argument, is a [`PromptError`] with the
//!   line and column *in the file*. Optional arguments that were not given
//!   are undefined, so `{% if focus %}` works.
//!
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

/// What [`load_dir`] found in a folder.
#[derive(Debug, Default)]
pub struct LoadedDir {
    /// The prompt files that loaded, sorted by path.
    pub prompts: Vec<PromptFile>,
    /// Prompt files that did not load, and the folder itself if it could
    /// not be read (then with the folder's path).
    pub errors: Vec<PromptError>,
    /// `.md` files that are not prompt files, sorted by path.
    pub skipped: Vec<Skipped>,
}

/// A `.md` file of a prompts folder that is not a prompt file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: skipped, not a prompt file: {reason}", path.display())]
pub struct Skipped {
    /// The file.
    pub path: PathBuf,
    /// Why it is not a prompt file.
    pub reason: SkipReason,
}

/// Why a `.md` file is not a prompt file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SkipReason {
    /// `README.md`, whatever its case: it describes the folder.
    #[error("a README describes the folder and is never a prompt")]
    Readme,
    /// Its first line is not a front-matter fence.
    #[error(
        "it has no front matter; a prompt file starts with a `---` (YAML) or `+++` (TOML) line \
         (front matter may be empty: a `---` line, then another)"
    )]
    NoFrontMatter,
}

/// Whether `bytes`, the start of a file or all of it, open front matter:
/// a first line (after an optional UTF-8 byte-order mark) that is exactly
/// `---` or `+++`, with `\n` or `\r\n`.
pub fn starts_with_front_matter(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let line = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    let mut line = line;
    while let Some(rest) = line.strip_suffix(b"\r") {
        line = rest;
    }
    line == b"---" || line == b"+++"
}

/// Loads the prompt files of `dir` (see the [crate docs](crate) for what
/// one is), sorted by path. A prompt file that does not load becomes its
/// [`PromptError`]s (every problem of the file) and does not stop the others; two files that define the
/// same prompt name are an error naming both (the first by path wins).
pub fn load_dir(dir: &Path) -> LoadedDir {
    let mut loaded = LoadedDir::default();
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            loaded.errors.push(PromptError::new(dir, 1, 1, format!("cannot read the prompts folder: {e}")));
            return loaded;
        }
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x.eq_ignore_ascii_case("md")))
        .collect();
    paths.sort();
    for path in paths {
        if path.file_stem().is_some_and(|s| s.eq_ignore_ascii_case("readme")) {
            loaded.skipped.push(Skipped { path, reason: SkipReason::Readme });
            continue;
        }
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) => {
                loaded.errors.push(PromptError::new(&path, 1, 1, format!("cannot read it: {e}")));
                continue;
            }
        };
        if !starts_with_front_matter(&bytes) {
            loaded.skipped.push(Skipped { path, reason: SkipReason::NoFrontMatter });
            continue;
        }
        let parsed = String::from_utf8(bytes)
            .map_err(|e| {
                let at = e.utf8_error().valid_up_to();
                let before = &e.as_bytes()[..at];
                let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
                let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
                let column = String::from_utf8_lossy(&before[line_start..]).chars().count() + 1;
                vec![PromptError::new(&path, line, column, "not valid UTF-8 text")]
            })
            .and_then(|text| PromptFile::parse_all(&path, &text));
        match parsed {
            Ok(prompt) => {
                if let Some(first) = loaded.prompts.iter().find(|p| p.name() == prompt.name()) {
                    loaded.errors.push(PromptError::new(
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
                    loaded.prompts.push(prompt);
                }
            }
            Err(errors) => loaded.errors.extend(errors),
        }
    }
    loaded
}

impl LoadedDir {
    /// Puts back, for each prompt file that did not load, the last version
    /// of it that did (from `last_good`, matched by path) when its prompt
    /// name is still free, so a broken edit of a served prompt keeps the
    /// prompt as it was. Returns the errors covered that way, with the
    /// prompt kept for each; they leave [`LoadedDir::errors`].
    pub fn keep_last_good<'a>(
        &mut self,
        last_good: impl IntoIterator<Item = &'a PromptFile>,
    ) -> Vec<(PromptError, PromptFile)> {
        let mut last_good: Vec<&PromptFile> = last_good.into_iter().collect();
        let mut kept: Vec<(PromptError, PromptFile)> = Vec::new();
        let mut errors = Vec::new();
        for error in std::mem::take(&mut self.errors) {
            // A file with several problems: each is covered by the one kept.
            if let Some((_, prompt)) = kept.iter().find(|(e, _)| e.path == error.path) {
                let prompt = prompt.clone();
                kept.push((error, prompt));
                continue;
            }
            let found = last_good
                .iter()
                .position(|p| p.path() == error.path && self.prompts.iter().all(|q| q.name() != p.name()));
            match found {
                Some(i) => {
                    let prompt = last_good.swap_remove(i).clone();
                    self.prompts.push(prompt.clone());
                    kept.push((error, prompt));
                }
                None => errors.push(error),
            }
        }
        self.errors = errors;
        self.prompts.sort_by(|a, b| a.path().cmp(b.path()));
        kept
    }
}
