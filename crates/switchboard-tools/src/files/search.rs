//! The `search` tool: ripgrep's matching crates (`grep-regex`,
//! `grep-searcher`) over the files the served tree serves. The walk is the
//! tree's ([`ServedTree::walk_files`]): a `glob` only narrows it, so no
//! pattern reaches an ignored, hidden or `.git` file.

use grep_regex::RegexMatcherBuilder;
use grep_searcher::sinks::UTF8;
use grep_searcher::{BinaryDetection, SearcherBuilder};
use serde::Deserialize;
use serde_json::{Value, json};
use switchboard_server::{CallToolResult, ContentBlock, RequestContext, Tool, ToolError};
use switchboard_tree::{ServedTree, TreeError};

use super::{blocking, path_error};

/// Longest line text returned, in characters.
const MAX_LINE_CHARS: usize = 500;

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
             fixed_strings, a literal string. Returns `path:line: text` lines.",
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
                        "text": {"type": "string"}
                    },
                    "required": ["path", "line", "text"]
                }},
                "truncated": {"type": "boolean", "description": "true when max_results cut the list"}
            },
            "required": ["matches", "truncated"]
        }))
        .read_only()
        .raw_handler(move |args: Value, _ctx: RequestContext| {
            let tree = tree.clone();
            async move {
                let args: Args = serde_json::from_value(args)
                    .map_err(|e| ToolError::new(format!("search: invalid arguments: {e}")))?;
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
    let mut matches: Vec<(String, u64, String)> = Vec::new();
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
                let text: String = text.chars().take(MAX_LINE_CHARS).collect();
                matches.push((file.served.clone(), line, text));
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
    let mut text: String =
        matches.iter().map(|(p, l, t)| format!("{p}:{l}: {t}\n")).collect::<Vec<_>>().concat();
    if matches.is_empty() {
        text = format!("No matches for {:?}.", args.pattern);
    } else if truncated {
        text.push_str(&format!(
            "[stopped at max_results = {}; narrow the search for more]",
            args.max_results
        ));
    }
    let structured = json!({
        "matches": matches.iter().map(|(p, l, t)| json!({"path": p, "line": l, "text": t})).collect::<Vec<_>>(),
        "truncated": truncated,
    });
    Ok(CallToolResult {
        content: vec![ContentBlock::text(text)],
        structured_content: Some(structured),
        is_error: None,
        meta: None,
    })
}
