//! The `search` tool: ripgrep's own crates (`ignore` for the walk, honouring
//! `.gitignore`; `grep-regex` and `grep-searcher` for matching) over the
//! files of the root.

use grep_regex::RegexMatcherBuilder;
use grep_searcher::sinks::UTF8;
use grep_searcher::{BinaryDetection, SearcherBuilder};
use ignore::WalkBuilder;
use ignore::overrides::OverrideBuilder;
use mcp_server::{CallToolResult, ContentBlock, FileRoot, RequestContext, Tool, ToolError};
use serde::Deserialize;
use serde_json::{Value, json};

use super::{blocking, display_path, path_error};

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

pub(super) fn tool(root: FileRoot) -> Tool {
    Tool::new("search")
        .title("Search files")
        .description(
            "Searches the text files under the served root for a regular expression (Rust regex syntax) \
             or, with fixed_strings, a literal string. Files ignored by .gitignore are skipped. \
             Returns `path:line: text` lines.",
        )
        .input_schema(json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "minLength": 1, "description": "Regular expression (or literal text with fixed_strings)"},
                "path": {"type": "string", "description": "Sub-directory or file to search, relative to the root (default: everything)"},
                "glob": {"type": "string", "description": "Only files whose path matches this glob, e.g. `*.rs` or `src/**/*.toml`"},
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
            let root = root.clone();
            async move {
                let args: Args = serde_json::from_value(args)
                    .map_err(|e| ToolError::new(format!("search: invalid arguments: {e}")))?;
                blocking("search", move || search(&root, &args)).await
            }
        })
}

fn search(root: &FileRoot, args: &Args) -> Result<CallToolResult, ToolError> {
    let sub = args.path.as_deref().unwrap_or(".");
    let start = root.resolve_relative(sub).map_err(|e| path_error("search", sub, &e))?;
    let matcher = RegexMatcherBuilder::new()
        .case_insensitive(args.case_insensitive)
        .fixed_strings(args.fixed_strings)
        .build(&args.pattern)
        .map_err(|e| ToolError::new(format!("search: invalid pattern {:?}: {e}", args.pattern)))?;
    let mut walk = WalkBuilder::new(&start);
    // .gitignore applies even when the root is not a git repository.
    walk.require_git(false).follow_links(false);
    if let Some(glob) = &args.glob {
        let mut overrides = OverrideBuilder::new(root.path());
        overrides.add(glob).map_err(|e| ToolError::new(format!("search: invalid glob {glob:?}: {e}")))?;
        let overrides =
            overrides.build().map_err(|e| ToolError::new(format!("search: invalid glob {glob:?}: {e}")))?;
        walk.overrides(overrides);
    }
    let mut searcher =
        SearcherBuilder::new().binary_detection(BinaryDetection::quit(0)).line_number(true).build();
    let mut matches: Vec<(String, u64, String)> = Vec::new();
    let mut truncated = false;
    for entry in walk.build() {
        let Ok(entry) = entry else { continue };
        // Symlinks are skipped: a link could lead outside the root.
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let shown = display_path(root, entry.path());
        let result = searcher.search_path(
            &matcher,
            entry.path(),
            UTF8(|line, text| {
                if matches.len() >= args.max_results {
                    truncated = true;
                    return Ok(false);
                }
                let text = text.trim_end_matches(['\n', '\r']);
                let text: String = text.chars().take(MAX_LINE_CHARS).collect();
                matches.push((shown.clone(), line, text));
                Ok(true)
            }),
        );
        if let Err(e) = result {
            tracing::debug!(path = %shown, error = %e, "search skipped a file");
        }
        if truncated {
            break;
        }
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
