//! `:name` placeholders in statements from the configuration, rewritten to
//! PostgreSQL's `$n`.
//!
//! This runs on trusted text only (the operator's `[[tools.sql]]`
//! statements), never on the model's SQL, and it decides nothing about
//! safety: a wrong rewrite makes a statement fail to prepare, nothing
//! more. It is a small scanner rather than a SQL parser because all it must
//! know is where a `:` is not a placeholder: inside string literals (`'…'`
//! with `''`, `E'…'` with backslash escapes, dollar quoting `$tag$…$tag$`),
//! quoted identifiers, comments (`--` and nested `/* */`), and the `::`
//! cast operator.

use crate::Error;

/// The statement with `$1`, `$2`, … in place of `:name`, and the names in
/// the order of their numbers (one number per distinct name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rewritten {
    /// The SQL with `$n` placeholders.
    pub sql: String,
    /// `names[n - 1]` is the name of `$n`.
    pub names: Vec<String>,
}

/// Rewrites `:name` to `$n`. A `$n` already in the text is refused: the
/// configuration names its parameters.
pub(crate) fn rewrite(sql: &str) -> Result<Rewritten, Error> {
    let chars: Vec<char> = sql.chars().collect();
    let mut out = String::with_capacity(sql.len() + 8);
    let mut names: Vec<String> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let after_identifier = i > 0 && is_ident_char(chars[i - 1]);
        let end = match c {
            '\'' => skip_quoted(&chars, i, '\'', false),
            'E' | 'e' if next == Some('\'') && !after_identifier => skip_quoted(&chars, i + 1, '\'', true),
            '"' => skip_quoted(&chars, i, '"', false),
            '-' if next == Some('-') => skip_line_comment(&chars, i),
            '/' if next == Some('*') => skip_block_comment(&chars, i),
            '$' if next.is_some_and(|n| n.is_ascii_digit()) && !after_identifier => {
                return Err(Error::Prepare(
                    "write parameters as :name in a configured statement, not $n".to_owned(),
                ));
            }
            '$' if !after_identifier => skip_dollar_quoted(&chars, i).unwrap_or(i + 1),
            ':' if next == Some(':') => i + 2,
            ':' if next.is_some_and(is_ident_start) && !(i > 0 && chars[i - 1] == ':') => {
                let start = i + 1;
                let mut stop = start;
                while stop < chars.len() && is_ident_char(chars[stop]) {
                    stop += 1;
                }
                let name: String = chars[start..stop].iter().collect();
                let number = match names.iter().position(|n| *n == name) {
                    Some(at) => at + 1,
                    None => {
                        names.push(name);
                        names.len()
                    }
                };
                out.push_str(&format!("${number}"));
                i = stop;
                continue;
            }
            _ => i + 1,
        };
        out.extend(&chars[i..end]);
        i = end;
    }
    Ok(Rewritten { sql: out, names })
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// The index just past the literal opened by the `quote` at `open`
/// (doubled quotes stay inside; with `backslashes`, `\x` too). An
/// unterminated literal runs to the end.
fn skip_quoted(chars: &[char], open: usize, quote: char, backslashes: bool) -> usize {
    let mut i = open + 1;
    while i < chars.len() {
        match chars[i] {
            '\\' if backslashes => i += 2,
            c if c == quote && chars.get(i + 1) == Some(&quote) => i += 2,
            c if c == quote => return i + 1,
            _ => i += 1,
        }
    }
    chars.len()
}

fn skip_line_comment(chars: &[char], start: usize) -> usize {
    chars[start..].iter().position(|&c| c == '\n').map_or(chars.len(), |at| start + at + 1)
}

/// Block comments nest in PostgreSQL.
fn skip_block_comment(chars: &[char], start: usize) -> usize {
    let mut depth = 0usize;
    let mut i = start;
    while i < chars.len() {
        if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
            depth += 1;
            i += 2;
        } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    chars.len()
}

/// `$tag$…$tag$` starting at `start`: the index past the closing tag, or
/// `None` when `start` does not open one.
fn skip_dollar_quoted(chars: &[char], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < chars.len() && chars[i] != '$' {
        if !(is_ident_start(chars[i]) || (i > start + 1 && chars[i].is_ascii_digit())) {
            return None;
        }
        i += 1;
    }
    if i >= chars.len() {
        return None;
    }
    let tag = &chars[start..=i];
    let mut j = i + 1;
    while j + tag.len() <= chars.len() {
        if chars[j..j + tag.len()] == *tag {
            return Some(j + tag.len());
        }
        j += 1;
    }
    Some(chars.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sql(text: &str) -> String {
        rewrite(text).unwrap().sql
    }

    #[test]
    fn names_become_numbers_once_each() {
        let r = rewrite("SELECT * FROM t WHERE a = :a AND b > :b_2 OR a < :a").unwrap();
        assert_eq!(r.sql, "SELECT * FROM t WHERE a = $1 AND b > $2 OR a < $1");
        assert_eq!(r.names, ["a", "b_2"]);
    }

    #[test]
    fn casts_are_not_placeholders() {
        assert_eq!(sql("SELECT :id::int8, x::text"), "SELECT $1::int8, x::text");
        assert_eq!(sql("SELECT a :: text"), "SELECT a :: text");
    }

    #[test]
    fn string_literals_are_skipped() {
        assert_eq!(sql("SELECT ':a', 'it''s :b', :c"), "SELECT ':a', 'it''s :b', $1");
        assert_eq!(rewrite("SELECT 'it''s :b', :c").unwrap().names, ["c"]);
    }

    #[test]
    fn escape_strings_are_skipped() {
        assert_eq!(sql(r"SELECT E'\' :a', :b"), r"SELECT E'\' :a', $1");
        assert_eq!(sql(r"SELECT e'x\\' , :b"), r"SELECT e'x\\' , $1");
        // A standard string: a backslash is an ordinary character.
        assert_eq!(sql(r"SELECT '\', :b"), r"SELECT '\', $1");
    }

    #[test]
    fn dollar_quotes_are_skipped() {
        assert_eq!(sql("SELECT $$ :a $$, :b"), "SELECT $$ :a $$, $1");
        assert_eq!(sql("SELECT $fn$ :a $x$ :c $fn$, :b"), "SELECT $fn$ :a $x$ :c $fn$, $1");
    }

    #[test]
    fn quoted_identifiers_are_skipped() {
        assert_eq!(
            sql(r#"SELECT ":a" FROM "t""x:y" WHERE b = :b"#),
            r#"SELECT ":a" FROM "t""x:y" WHERE b = $1"#
        );
    }

    #[test]
    fn comments_are_skipped() {
        assert_eq!(sql("SELECT 1 -- :a\n, :b"), "SELECT 1 -- :a\n, $1");
        assert_eq!(sql("SELECT /* :a /* :x */ :y */ :b"), "SELECT /* :a /* :x */ :y */ $1");
    }

    #[test]
    fn positional_parameters_are_refused() {
        assert!(matches!(rewrite("SELECT $1"), Err(Error::Prepare(_))));
        // Inside a literal it is text, and an identifier may hold `$`.
        assert_eq!(sql("SELECT '$1', a$1 FROM t"), "SELECT '$1', a$1 FROM t");
    }

    #[test]
    fn unicode_and_unterminated_text() {
        assert_eq!(sql("SELECT 'é :x', :ü"), "SELECT 'é :x', $1");
        assert_eq!(sql("SELECT ':a"), "SELECT ':a");
        assert_eq!(sql("SELECT /* :a"), "SELECT /* :a");
    }
}
