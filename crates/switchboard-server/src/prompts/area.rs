//! The prompts area's state: the registered prompts, whether the `prompts`
//! capability is announced, and whether some prompt has a completer.

use crate::catalog::{Catalog, prepare_all};
use crate::completion::CompleterFlag;
use crate::error::{Error, Result};
use crate::prompts::Prompt;
use crate::prompts::entry::PromptEntry;

pub(crate) struct Prompts {
    pub catalog: Catalog<PromptEntry>,
    /// The `prompts` capability is announced.
    pub enabled: bool,
    /// Some prompt has a completer (so `completions` is offered).
    pub completers: CompleterFlag,
}

impl Prompts {
    /// Prompts checked for a bulk change, keyed by name (a completer among
    /// them turns `completions` on).
    pub(crate) fn entries(&self, prompts: Vec<Prompt>) -> Result<Vec<(String, PromptEntry)>> {
        let entries =
            prepare_all(prompts, PromptEntry::prepare, |e| e.def.name.as_str(), Error::DuplicatePrompt)?;
        if entries.iter().any(|(_, e)| !e.completers.is_empty()) {
            self.completers.note();
        }
        Ok(entries)
    }

    /// Registers `prompt`; a name already taken is [`Error::DuplicatePrompt`].
    pub(crate) fn add(&self, prompt: Prompt) -> Result<()> {
        let entry = PromptEntry::prepare(prompt)?;
        let completers = !entry.completers.is_empty();
        self.catalog
            .insert(entry.def.name.clone(), entry, false)
            .map_err(|taken| Error::DuplicatePrompt(taken.0))?;
        if completers {
            self.completers.note();
        }
        Ok(())
    }
}
