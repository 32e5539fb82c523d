//! The YAML front matter of a `SKILL.md`, as JSON, with the lines of its
//! keys for placing problems.
//!
//! The block is what hosts (and the conformance suite) take it to be: an
//! optional byte-order mark, a first line `---`, then everything up to the
//! next line that is `---` (trailing spaces and tabs allowed). Its YAML is
//! rendered as a JSON object verbatim, key order kept, because a
//! `skills/list` entry's `frontmatter` must be identical in content to the
//! file's.

use serde_json::{Map, Value};

/// A front matter block, read.
#[derive(Debug)]
pub(crate) struct FrontMatter {
    /// The fields, as JSON.
    pub fields: Map<String, Value>,
    /// The YAML text between the fences.
    yaml: String,
    /// The 1-based line of the file on which the YAML starts.
    first_line: usize,
}

/// Why a `SKILL.md` has no usable front matter: the 1-based line and
/// column, and what is wrong.
pub(crate) type Unreadable = (usize, usize, String);

impl FrontMatter {
    /// Reads the front matter at the start of `text`.
    pub fn parse(text: &str) -> Result<Self, Unreadable> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let first_end = line_end(text, 0);
        if text[..first_end].trim_end_matches(['\r', '\n']) != "---" || first_end == text.len() {
            return Err((
                1,
                1,
                "SKILL.md must begin with YAML front matter: a `---` line, `name: …` and `description: …`, \
                 and a closing `---` line"
                    .to_owned(),
            ));
        }
        let mut offset = first_end;
        // Every line is looked at once: the loop ends at the end of the text.
        let close = loop {
            if offset >= text.len() {
                return Err((
                    1,
                    1,
                    "the front matter opened by `---` on line 1 is never closed by a `---` line".to_owned(),
                ));
            }
            let end = line_end(text, offset);
            let content = text[offset..end].trim_end_matches(['\r', '\n']);
            if content.strip_prefix("---").is_some_and(|rest| rest.chars().all(|c| c == ' ' || c == '\t')) {
                break offset;
            }
            offset = end;
        };
        let yaml = text[first_end..close].to_owned();
        let value: Value = if yaml.trim().is_empty() {
            Value::Null
        } else {
            serde_norway::from_str(&yaml).map_err(|e| {
                let (l, c) = e.location().map_or((1, 1), |l| (l.line(), l.column()));
                (l + 1, c, format!("front matter: {}", strip_location(&e.to_string())))
            })?
        };
        let fields = match value {
            Value::Object(fields) => fields,
            Value::Null => {
                return Err((
                    2,
                    1,
                    "the front matter is empty; it needs `name: …` and `description: …`".to_owned(),
                ));
            }
            _ => return Err((2, 1, "the front matter must be a YAML mapping of keys to values".to_owned())),
        };
        Ok(Self { fields, yaml, first_line: 2 })
    }

    /// The 1-based line and column of the top-level key `key` (the opening
    /// fence when it is not written).
    pub fn place_of(&self, key: &str) -> (usize, usize) {
        for (i, line) in self.yaml.lines().enumerate() {
            let written = line.strip_prefix(key).or_else(|| {
                line.strip_prefix(&format!("\"{key}\"")).or_else(|| line.strip_prefix(&format!("'{key}'")))
            });
            if written.is_some_and(|rest| rest.trim_start().starts_with(':')) {
                return (self.first_line + i, 1);
            }
        }
        (1, 1)
    }
}

/// The offset just past the line that starts at `start` (its newline included).
fn line_end(text: &str, start: usize) -> usize {
    text[start..].find('\n').map_or(text.len(), |i| start + i + 1)
}

/// serde_norway appends " at line L column C" to its messages; the place is
/// reported separately, relative to the file.
fn strip_location(message: &str) -> &str {
    match message.find(" at line ") {
        Some(i) => &message[..i],
        None => message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_the_block_verbatim_in_order() {
        let text = "\u{feff}---\nname: pdf-processing\ndescription: Fill PDF forms\nmetadata:\n  version: \"2.1\"\n  \
                    level: 3\nlicense: MIT\n---  \n\n# Body\n---\n";
        let fm = FrontMatter::parse(text).unwrap();
        assert_eq!(
            Value::Object(fm.fields.clone()),
            json!({"name": "pdf-processing", "description": "Fill PDF forms",
                   "metadata": {"version": "2.1", "level": 3}, "license": "MIT"})
        );
        let keys: Vec<&String> = fm.fields.keys().collect();
        assert_eq!(keys, ["name", "description", "metadata", "license"]);
        assert_eq!(fm.place_of("description"), (3, 1));
        assert_eq!(fm.place_of("license"), (7, 1));
        assert_eq!(fm.place_of("missing"), (1, 1));
    }

    #[test]
    fn crlf_files_read_alike() {
        let fm = FrontMatter::parse("---\r\nname: a\r\ndescription: b\r\n---\r\nbody").unwrap();
        assert_eq!(Value::Object(fm.fields), json!({"name": "a", "description": "b"}));
    }

    #[test]
    fn missing_unclosed_empty_and_bad_blocks_are_placed() {
        assert_eq!(FrontMatter::parse("# Title\n").unwrap_err().0, 1);
        assert_eq!(FrontMatter::parse("---").unwrap_err().0, 1);
        let unclosed = FrontMatter::parse("---\nname: a\n").unwrap_err();
        assert!(unclosed.2.contains("never closed"), "{unclosed:?}");
        let empty = FrontMatter::parse("---\n\n---\n").unwrap_err();
        assert!(empty.2.contains("empty"), "{empty:?}");
        let list = FrontMatter::parse("---\n- a\n- b\n---\n").unwrap_err();
        assert!(list.2.contains("mapping"), "{list:?}");
        let (line, _, message) =
            FrontMatter::parse("---\nname: a\ndescription: [unclosed\n---\n").unwrap_err();
        assert!(line >= 3, "{line} {message}");
        assert!(message.starts_with("front matter: "), "{message}");
        assert!(!message.contains(" at line "), "{message}");
    }
}
