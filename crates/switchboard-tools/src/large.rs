//! What a tool does with output larger than its cap (`max_output` of a
//! command tool, `max_response` of an HTTP or OpenAPI tool): by default it
//! returns the first part with a notice that says how much was cut and the
//! total size; with `on_large_output = "error"` the call is an `isError`
//! result that says the same, and no partial output.
//!
//! Why truncate by default: a model that asked for a long log or a large
//! listing can still act on its start, and the notice tells it to ask for
//! less; an error gives it nothing to work with. Why the total size: it
//! tells the model (and the person reading along) how far off it was.

use std::fmt;

use schemars::JsonSchema;
use serde::Deserialize;

/// What a tool does when its output passes its cap.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LargeOutput {
    /// Return the first part with a notice giving the total size (the default).
    #[default]
    Truncate,
    /// Return an `isError` result giving the total size, and no output.
    Error,
}

/// The size of a whole output, of which only a part may have been kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Total {
    /// Exactly this many bytes.
    Exact(u64),
    /// At least this many: counting stopped (time limit, or too much to count).
    AtLeast(u64),
}

impl Total {
    /// The counted bytes (a lower bound for [`Total::AtLeast`]).
    pub fn bytes(self) -> u64 {
        match self {
            Total::Exact(n) | Total::AtLeast(n) => n,
        }
    }
}

impl fmt::Display for Total {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Total::Exact(n) => write!(f, "{n} bytes"),
            Total::AtLeast(n) => write!(f, "at least {n} bytes"),
        }
    }
}

/// The notice appended to a truncated output: `what` is "output" or
/// "response", `limit` the setting's name (`max_output`) and value.
pub fn truncation_notice(what: &str, kept: usize, total: Total, limit: (&str, usize)) -> String {
    let (key, value) = limit;
    format!(
        "[{what} truncated: showing the first {kept} bytes of {total}; the tool's {key} limit is {value} bytes]"
    )
}

/// The message of an `isError` result for output over the cap under
/// [`LargeOutput::Error`].
pub fn refusal(tool: &str, what: &str, total: Total, limit: (&str, usize)) -> String {
    let (key, value) = limit;
    format!(
        "{tool}: the {what} is {total}, more than the tool's {key} limit of {value} bytes \
         (on_large_output = \"error\"); ask for less, or raise {key}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_notice_gives_what_was_kept_and_the_total() {
        let notice = truncation_notice("response", 100, Total::Exact(5000), ("max_response", 100));
        assert_eq!(
            notice,
            "[response truncated: showing the first 100 bytes of 5000 bytes; the tool's max_response limit is 100 bytes]"
        );
        let refused = refusal("big", "output", Total::AtLeast(70), ("max_output", 64));
        assert!(refused.starts_with("big: the output is at least 70 bytes, more than"), "{refused}");
        assert_eq!(Total::AtLeast(3).bytes(), 3);
    }

    #[test]
    fn the_setting_reads_as_lowercase_words() {
        let parsed: LargeOutput = serde_json::from_value(serde_json::json!("error")).unwrap();
        assert_eq!(parsed, LargeOutput::Error);
        assert_eq!(LargeOutput::default(), LargeOutput::Truncate);
        assert!(serde_json::from_value::<LargeOutput>(serde_json::json!("cut")).is_err());
    }
}
