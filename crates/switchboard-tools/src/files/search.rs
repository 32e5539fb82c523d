//! The `search` tool: ripgrep's matching crates (`grep-regex`,
//! `grep-searcher`) over the files the served tree serves. The walk is the
//! tree's ([`ServedTree::walk_files`]): a `glob` only narrows it, so no
//! pattern reaches an ignored, hidden or `.git` file.
//!
//! A long line is not cut at its start: it is shown as windows around its
//! first matches, marked with `…` where text was left out, so the match is
//! always visible, and the 1-based column (in characters) of the first
//! match is given.

use grep_matcher::Matcher;
use grep_regex::RegexMatcherBuilder;
use grep_searcher::sinks::UTF8;
use grep_searcher::{BinaryDetection, SearcherBuilder};
use serde::Deserialize;
use serde_json::{Value, json};
use switchboard_server::{CallToolResult, ContentBlock, RequestContext, Tool, ToolError};
use switchboard_tree::{ServedTree, TreeError};

use super::{blocking, parse_args, path_error};

/// Longest line returned whole, in characters; longer ones are windows.
const MAX_LINE_CHARS: usize = 500;
/// Characters shown before and after a match in a window.
const CONTEXT_CHARS: usize = 80;
/// Longest part of one match shown, in characters.
const MAX_MATCH_CHARS: usize = 200;
/// Matches of one long line shown as windows.
const MAX_WINDOWS: usize = 3;

#[derive(Debug, Deserialize)]
struct Args {
    pattern: String,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    glob: Option<String>,
    #[serde(default)]
    case_insensitive: bool,
    #[serde(default)]
    fixed_strings: bool,
    #[serde(default = "default_max_results")]
    max_results: usize,
}

fn default_max_results() -> usize {
    100
}

pub(super) fn tool(tree: ServedTree) -> Tool {
    Tool::new("search")
        .title("Search files")
        .description(
            "Searches the served text files of the project (what the file:// resources serve: .gitignore'd, \
             hidden and .git files never) for a regular expression (Rust regex syntax) or, with \
             fixed_strings, a literal string. Returns `path:line:column: text` lines; a long line is \
             shown as windows around its matches, with … where text was left out.",
        )
        .input_schema(json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "minLength": 1, "description": "Regular expression (or literal text with fixed_strings)"},
                "path": {"type": "string", "description": "Sub-folder or file to search, relative to the served folder (default: everything)"},
                "glob": {"type": "string", "description": "Only served files whose path matches this glob, e.g. `*.rs` or `src/**/*.toml` (narrows the search, never widens it)"},
                "case_insensitive": {"type": "boolean", "default": false},
                "fixed_strings": {"type": "boolean", "default": false, "description": "Treat pattern as literal text"},
                "max_results": {"type": "integer", "minimum": 1, "maximum": 10000, "default": 100}
            },
            "required": ["pattern"],
            "additionalProperties": false
        }))
        .output_schema(json!({
            "type": "object",
            "properties": {
                "matches": {"type": "array", "items": {
                    "type": "object",
                    "properties": {
                        "path": {"type": "string"},
                        "line": {"type": "integer"},
                        "column": {"type": "integer", "description": "1-based, in characters, of the first match"},
                        "text": {"type": "string", "description": "The line, or windows of it around the matches"}
                    },
                    "required": ["path", "line", "column", "text"]
                }},
                "truncated": {"type": "boolean", "description": "true when max_results cut the list"}
            },
            "required": ["matches", "truncated"]
        }))
        .read_only()
        .raw_handler(move |args: Value, _ctx: RequestContext| {
            let tree = tree.clone();
            async move {
                let args: Args = parse_args("search", args)?;
                blocking("search", move || search(&tree, &args)).await
            }
        })
}

fn search(tree: &ServedTree, args: &Args) -> Result<CallToolResult, ToolError> {
    let start = args.path.as_deref().unwrap_or("");
    let matcher = RegexMatcherBuilder::new()
        .case_insensitive(args.case_insensitive)
        .fixed_strings(args.fixed_strings)
        .build(&args.pattern)
        .map_err(|e| ToolError::new(format!("search: invalid pattern {:?}: {e}", args.pattern)))?;
    let mut searcher =
        SearcherBuilder::new().binary_detection(BinaryDetection::quit(0)).line_number(true).build();
    let mut matches: Vec<Match> = Vec::new();
    let mut truncated = false;
    let walked = tree.walk_files(start, args.glob.as_deref(), |file| {
        let result = searcher.search_path(
            &matcher,
            &file.path,
            UTF8(|line, text| {
                if matches.len() >= args.max_results {
                    truncated = true;
                    return Ok(false);
                }
                let text = text.trim_end_matches(['\n', '\r']);
                let spans = spans(&matcher, text);
                let column = spans.first().map_or(1, |&(start, _)| text[..start].chars().count() + 1);
                matches.push(Match { path: file.served.clone(), line, column, text: excerpt(text, &spans) });
                Ok(true)
            }),
        );
        if let Err(e) = result {
            tracing::debug!(path = %file.served, error = %e, "search skipped a file");
        }
        !truncated
    });
    match walked {
        Ok(()) => {}
        Err(TreeError::Glob { pattern, reason }) => {
            return Err(ToolError::new(format!("search: invalid glob {pattern:?}: {reason}")));
        }
        Err(e) => return Err(path_error("search", start, &e)),
    }
    let mut text: String = matches
        .iter()
        .map(|m| format!("{}:{}:{}: {}\n", m.path, m.line, m.column, m.text))
        .collect::<String>();
    if matches.is_empty() {
        text = format!("No matches for {:?}.", args.pattern);
    } else if truncated {
        text.push_str(&format!(
            "[stopped at max_results = {}; narrow the search for more]",
            args.max_results
        ));
    }
    let structured = json!({
        "matches": matches.iter().map(|m| json!({"path": m.path, "line": m.line, "column": m.column, "text": m.text}))
            .collect::<Vec<_>>(),
        "truncated": truncated,
    });
    Ok(CallToolResult {
        content: vec![ContentBlock::text(text)],
        structured_content: Some(structured),
        is_error: None,
        meta: None,
    })
}

/// One matching line.
struct Match {
    path: String,
    line: u64,
    column: usize,
    text: String,
}

/// Byte ranges of the first [`MAX_WINDOWS`] matches in `line`.
fn spans(matcher: &impl Matcher, line: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let found = matcher.find_iter(line.as_bytes(), |m| {
        spans.push((m.start(), m.end()));
        spans.len() < MAX_WINDOWS
    });
    if found.is_err() {
        spans.clear();
    }
    // Keep only ranges on character boundaries (a regex over UTF-8 text
    // gives those; anything else is shown from the line's start).
    spans.retain(|&(s, e)| line.is_char_boundary(s) && line.is_char_boundary(e));
    spans
}

/// `line` whole when short, else windows of [`CONTEXT_CHARS`] around each
/// of `spans` (the match itself up to [`MAX_MATCH_CHARS`]), merged where
/// they overlap, with `…` where text was left out.
fn excerpt(line: &str, spans: &[(usize, usize)]) -> String {
    if line.chars().count() <= MAX_LINE_CHARS {
        return line.to_owned();
    }
    if spans.is_empty() {
        let end = chars_after(line, 0, MAX_LINE_CHARS);
        return format!("{}…", &line[..end]);
    }
    let mut windows: Vec<(usize, usize)> = Vec::new();
    for &(start, end) in spans {
        let shown_end = end.min(chars_after(line, start, MAX_MATCH_CHARS));
        let window = (chars_before(line, start, CONTEXT_CHARS), chars_after(line, shown_end, CONTEXT_CHARS));
        match windows.last_mut() {
            Some(last) if window.0 <= last.1 => last.1 = last.1.max(window.1),
            _ => windows.push(window),
        }
    }
    let mut out = String::new();
    for &(start, end) in &windows {
        if start > 0 || !out.is_empty() {
            out.push('…');
        }
        out.push_str(&line[start..end]);
    }
    if windows.last().is_some_and(|&(_, end)| end < line.len()) {
        out.push('…');
    }
    out
}

/// The byte offset `n` characters before `at` (or 0).
fn chars_before(line: &str, at: usize, n: usize) -> usize {
    line[..at].char_indices().rev().nth(n.saturating_sub(1)).map_or(0, |(i, _)| i)
}

/// The byte offset `n` characters after `at` (or the end).
fn chars_after(line: &str, at: usize, n: usize) -> usize {
    line[at..].char_indices().nth(n).map_or(line.len(), |(i, _)| at + i)
}

#[cfg(test)]
mod tests {
    use super::{CONTEXT_CHARS, excerpt};

    #[test]
    fn a_match_deep_in_a_long_line_is_shown_with_markers() {
        let line = format!("{}NEEDLE{}", "a".repeat(1000), "é".repeat(1000));
        let shown = excerpt(&line, &[(1000, 1006)]);
        assert!(shown.starts_with('…') && shown.ends_with('…'), "{shown}");
        assert!(shown.contains(&format!("{}NEEDLE{}", "a".repeat(CONTEXT_CHARS), "é".repeat(CONTEXT_CHARS))));
        assert_eq!(shown.chars().count(), 2 * CONTEXT_CHARS + 6 + 2);
        assert_eq!(excerpt("short line", &[(0, 5)]), "short line");
        let at_start = excerpt(&line, &[(0, 1)]);
        assert!(!at_start.starts_with('…') && at_start.ends_with('…'), "{at_start}");
    }
}
