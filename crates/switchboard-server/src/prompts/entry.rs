//! One registered prompt ([`PromptEntry`]): its definition checked at
//! registration, with its argument completers.

use std::collections::HashMap;
use std::sync::Arc;

use switchboard_types::ProtocolVersion;

use crate::completion::Completer;
use crate::error::{Error, Result};
use crate::prompts::{Prompt, PromptHandler};
use crate::shape;

/// A registered prompt.
pub(crate) struct PromptEntry {
    pub def: switchboard_types::Prompt,
    pub handler: Arc<dyn PromptHandler>,
    pub completers: HashMap<String, Arc<dyn Completer>>,
    /// Scopes a caller must hold.
    pub scopes: Box<[String]>,
    rendered: shape::Rendered,
}

impl PromptEntry {
    pub(crate) fn prepare(prompt: Prompt) -> Result<Self> {
        let invalid = |reason: String| Error::InvalidPrompt { prompt: prompt.def.name.clone(), reason };
        if prompt.def.name.is_empty() {
            return Err(invalid("the name is empty".into()));
        }
        let declared: Vec<&str> = prompt.def.arguments.iter().flatten().map(|a| a.name.as_str()).collect();
        if let Some(unknown) = prompt.completers.keys().find(|k| !declared.contains(&k.as_str())) {
            return Err(invalid(format!("a completer is registered for undeclared argument {unknown:?}")));
        }
        let handler = prompt
            .handler
            .clone()
            .ok_or_else(|| Error::MissingHandler(format!("prompt {:?}", prompt.def.name)))?;
        Ok(Self {
            def: prompt.def,
            handler,
            completers: prompt.completers,
            scopes: prompt.scopes.into(),
            rendered: Default::default(),
        })
    }

    pub(crate) fn rendered(&self, version: ProtocolVersion) -> &str {
        self.rendered.get_or_init(version, || shape::prompt(&self.def, version))
    }
}
