//! The resources area's state: the registered resources and templates, the
//! sources listed and read on demand after them, whether the `resources`
//! capability is announced, and whether some template has a completer.

use std::sync::Arc;

use crate::catalog::{Catalog, prepare_all};
use crate::completion::CompleterFlag;
use crate::error::{Error, Result};
use crate::resources::entry::{ResourceEntry, TemplateEntry};
use crate::resources::source::ResourceSource;
use crate::resources::{Resource, ResourceTemplate};

pub(crate) struct Resources {
    pub catalog: Catalog<ResourceEntry>,
    pub templates: Catalog<TemplateEntry>,
    /// Resources listed and read on demand, after the registered ones.
    pub sources: Vec<Arc<dyn ResourceSource>>,
    /// The `resources` capability is announced.
    pub enabled: bool,
    /// Some template has a completer (so `completions` is offered).
    pub completers: CompleterFlag,
}

impl Resources {
    /// Resources checked for a bulk change, keyed by URI.
    pub(crate) fn entries(resources: Vec<Resource>) -> Result<Vec<(String, ResourceEntry)>> {
        prepare_all(resources, ResourceEntry::prepare, |e| e.def.uri.as_str(), Error::DuplicateResource)
    }

    /// Resource templates checked for a bulk change, keyed by their
    /// template text (a completer among them turns `completions` on).
    pub(crate) fn template_entries(
        &self,
        templates: Vec<ResourceTemplate>,
    ) -> Result<Vec<(String, TemplateEntry)>> {
        let entries = prepare_all(
            templates,
            TemplateEntry::prepare,
            |e| e.def.uri_template.as_str(),
            Error::DuplicateResource,
        )?;
        if entries.iter().any(|(_, e)| !e.completers.is_empty()) {
            self.completers.note();
        }
        Ok(entries)
    }

    /// Registers `resource`, replacing one at the same URI when `replace`;
    /// otherwise a URI already taken is [`Error::DuplicateResource`].
    pub(crate) fn add(&self, resource: Resource, replace: bool) -> Result<()> {
        let entry = ResourceEntry::prepare(resource)?;
        self.catalog
            .insert(entry.def.uri.clone(), entry, replace)
            .map_err(|taken| Error::DuplicateResource(taken.0))
    }

    /// Registers `template`; a template text already taken is
    /// [`Error::DuplicateResource`].
    pub(crate) fn add_template(&self, template: ResourceTemplate) -> Result<()> {
        let entry = TemplateEntry::prepare(template)?;
        let completers = !entry.completers.is_empty();
        let key = entry.def.uri_template.clone();
        self.templates.insert(key, entry, false).map_err(|taken| Error::DuplicateResource(taken.0))?;
        if completers {
            self.completers.note();
        }
        Ok(())
    }
}
