//! Splitting a prompt file into its front matter (YAML between `---`
//! lines, or TOML between `+++` lines) and its body, with errors placed on
//! the file's own lines.

use std::path::Path;

use serde::Deserialize;

use crate::PromptError;

/// The front matter's keys.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FrontMatter {
    pub name: Option<String>,
    pub title: Option<String>,
    pub description: Option<String>,
    #[serde(default)]
    pub arguments: Vec<ArgumentSpec>,
}

/// One declared argument.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ArgumentSpec {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    #[serde(default)]
    pub required: bool,
    #[serde(default)]
    pub completions: Vec<String>,
}

/// A file split in two.
#[derive(Debug)]
pub(crate) struct Split<'a> {
    pub front: FrontMatter,
    pub body: &'a str,
    /// The 1-based line of the file on which the body starts.
    pub body_line: usize,
}

/// Splits `text` (read from `path`).
pub(crate) fn split<'a>(path: &Path, text: &'a str) -> Result<Split<'a>, PromptError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let fence = match first_line(text) {
        "---" => "---",
        "+++" => "+++",
        _ => return Ok(Split { front: FrontMatter::default(), body: text, body_line: 1 }),
    };
    // Find the closing fence: a line that is exactly the fence.
    let mut offset = line_end(text, 0);
    let mut line = 2;
    let close = loop {
        if offset >= text.len() {
            return Err(PromptError::new(
                path,
                1,
                1,
                format!("the front matter opened with {fence} on line 1 is never closed by a {fence} line"),
            ));
        }
        let end = line_end(text, offset);
        if text[offset..end].trim_end_matches(['\r', '\n']) == fence {
            break (offset, end);
        }
        offset = end;
        line += 1;
    };
    let source = &text[line_end(text, 0)..close.0];
    let front = if source.trim().is_empty() {
        FrontMatter::default()
    } else if fence == "---" {
        serde_norway::from_str(source).map_err(|e| {
            let (l, c) = e.location().map(|l| (l.line(), l.column())).unwrap_or((1, 1));
            PromptError::new(path, l + 1, c, format!("front matter: {}", strip_location(&e.to_string())))
        })?
    } else {
        toml::from_str(source).map_err(|e| {
            let at = e.span().map_or(0, |s| s.start);
            let before = &source[..at.min(source.len())];
            let l = before.matches('\n').count() + 1;
            let c = before.rsplit('\n').next().unwrap_or_default().chars().count() + 1;
            PromptError::new(path, l + 1, c, format!("front matter: {}", e.message().trim_end()))
        })?
    };
    Ok(Split { front, body: &text[close.1..], body_line: line + 1 })
}

fn first_line(text: &str) -> &str {
    text[..line_end(text, 0)].trim_end_matches(['\r', '\n'])
}

/// The offset just past the line that starts at `start` (its newline included).
fn line_end(text: &str, start: usize) -> usize {
    text[start..].find('\n').map_or(text.len(), |i| start + i + 1)
}

/// serde_norway appends " at line L column C" to its messages; the error
/// carries the (file-relative) place separately.
fn strip_location(message: &str) -> &str {
    match message.find(" at line ") {
        Some(i) => &message[..i],
        None => message,
    }
}
