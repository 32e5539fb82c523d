//! The built-in prompts: prompt files embedded in the binary, written in
//! the same format users write theirs in.

use std::path::Path;

use switchboard_server::Prompt;

use crate::PromptFile;

/// (file name, contents) of each built-in prompt.
const FILES: &[(&str, &str)] = &[
    ("code_review.md", include_str!("builtin/code_review.md")),
    ("explain_code.md", include_str!("builtin/explain_code.md")),
    ("write_tests.md", include_str!("builtin/write_tests.md")),
];

/// The built-in prompts: `code_review` (the example of the spec's prompts
/// page), `explain_code` and `write_tests`.
pub fn builtin_prompts() -> Vec<Prompt> {
    builtin_files().iter().map(PromptFile::to_prompt).collect()
}

/// The built-in prompt files, parsed.
pub(crate) fn builtin_files() -> Vec<PromptFile> {
    FILES
        .iter()
        .map(|(name, text)| {
            PromptFile::parse(&Path::new("<builtin>").join(name), text)
                .expect("the built-in prompts are valid; qed")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_builtin_parses() {
        assert_eq!(super::builtin_files().len(), super::FILES.len());
    }
}
