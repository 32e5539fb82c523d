//! Changing many registrations at once, with one announcement.
//!
//! A file watcher that saw forty files change, or a configuration reload
//! that rebuilt every tool, should not send forty `list_changed`
//! notifications, nor any when nothing a client can see changed. These
//! methods publish one new snapshot per list and announce it once, only
//! when the visible list changed (`notifications/*/list_changed` in
//! `docs/specification/<rev>/server/{tools,prompts,resources}.mdx`).

use std::sync::atomic::Ordering;

use crate::catalog::Catalog;
use crate::error::{Error, Result};
use crate::prompts::Prompt;
use crate::prompts::entry::PromptEntry;
use crate::resources::entry::{ResourceEntry, TemplateEntry};
use crate::resources::{Resource, ResourceTemplate};
use crate::server::Server;
use crate::tools::Tool;
use crate::tools::entry::ToolEntry;

/// Fails on the first key that appears twice in `keys`.
fn unique<'a>(keys: impl Iterator<Item = &'a str>, error: impl Fn(String) -> Error) -> Result<()> {
    let mut seen = std::collections::HashSet::new();
    for key in keys {
        if !seen.insert(key) {
            return Err(error(key.to_owned()));
        }
    }
    Ok(())
}

/// Upserts `entries` and removes `removals` in `catalog` in one step;
/// announces once if an item came, went, or `differs` from the one it
/// replaces. Returns whether it announced.
fn upsert<T>(
    catalog: &Catalog<T>,
    entries: Vec<(String, T)>,
    removals: &[String],
    differs: impl Fn(&T, &T) -> bool,
) -> bool {
    let changed = {
        let current = catalog.load();
        entries.iter().any(|(k, e)| current.get(k).is_some_and(|old| differs(&old.value, e)))
    };
    let mut announced = false;
    catalog.apply(entries, removals, |added, removed| {
        announced = added || removed || changed;
        announced
    });
    announced
}

impl Server {
    /// Tools checked and compiled for a bulk change, keyed by name.
    fn tool_entries(tools: Vec<Tool>) -> Result<Vec<(String, ToolEntry)>> {
        let mut entries = Vec::with_capacity(tools.len());
        for tool in tools {
            let entry = ToolEntry::prepare(tool)?;
            entries.push((entry.def.name.clone(), entry));
        }
        unique(entries.iter().map(|(k, _)| k.as_str()), Error::DuplicateTool)?;
        Ok(entries)
    }

    /// Prompts checked for a bulk change, keyed by name (a completer among
    /// them turns `completions` on).
    fn prompt_entries(&self, prompts: Vec<Prompt>) -> Result<Vec<(String, PromptEntry)>> {
        let mut entries = Vec::with_capacity(prompts.len());
        let mut completers = false;
        for prompt in prompts {
            let entry = PromptEntry::prepare(prompt)?;
            completers |= !entry.completers.is_empty();
            entries.push((entry.def.name.clone(), entry));
        }
        unique(entries.iter().map(|(k, _)| k.as_str()), Error::DuplicatePrompt)?;
        if completers {
            self.core.has_completers.store(true, Ordering::Release);
        }
        Ok(entries)
    }

    /// Resource templates checked for a bulk change, keyed by their
    /// template text (a completer among them turns `completions` on).
    fn template_entries(&self, templates: Vec<ResourceTemplate>) -> Result<Vec<(String, TemplateEntry)>> {
        let mut entries = Vec::with_capacity(templates.len());
        let mut completers = false;
        for template in templates {
            let entry = TemplateEntry::prepare(template)?;
            completers |= !entry.completers.is_empty();
            entries.push((entry.def.uri_template.clone(), entry));
        }
        unique(entries.iter().map(|(k, _)| k.as_str()), Error::DuplicateResource)?;
        if completers {
            self.core.has_completers.store(true, Ordering::Release);
        }
        Ok(entries)
    }

    /// Adds or replaces every resource of `upserts` and removes the URIs in
    /// `removals`, in one step. Clients hear one `resources/list_changed` if
    /// a resource came or went, and `resources/updated` for each replaced
    /// resource they subscribed to. Nothing changes if a resource is invalid.
    pub fn update_resources(&self, upserts: Vec<Resource>, removals: &[String]) -> Result<()> {
        let mut entries = Vec::with_capacity(upserts.len());
        for resource in upserts {
            let entry = ResourceEntry::prepare(resource)?;
            entries.push((entry.def.uri.clone(), entry));
        }
        unique(entries.iter().map(|(k, _)| k.as_str()), Error::DuplicateResource)?;
        let replaced = self.core.resources.apply(entries, removals, |added, removed| added || removed);
        for uri in replaced {
            self.notify_resource_updated(uri);
        }
        Ok(())
    }

    /// Makes the tool list exactly `tools` (tools already registered keep
    /// their place). Announces `tools/list_changed` only if a tool came,
    /// went, or changed its definition; handlers are replaced either way.
    /// Returns whether it announced. Nothing changes if a tool is invalid.
    pub fn replace_tools(&self, tools: Vec<Tool>) -> Result<bool> {
        Ok(self.core.tools.replace_all(Self::tool_entries(tools)?, |old, new| old.def != new.def))
    }

    /// Makes the prompt list exactly `prompts`, like [`Server::replace_tools`].
    pub fn replace_prompts(&self, prompts: Vec<Prompt>) -> Result<bool> {
        Ok(self.core.prompts.replace_all(self.prompt_entries(prompts)?, |old, new| old.def != new.def))
    }

    /// Makes the resource-template list exactly `templates`, like
    /// [`Server::replace_tools`].
    pub fn replace_resource_templates(&self, templates: Vec<ResourceTemplate>) -> Result<bool> {
        Ok(self.core.templates.replace_all(self.template_entries(templates)?, |old, new| old.def != new.def))
    }

    /// Adds or replaces (in place) every tool of `upserts` and removes the
    /// names in `removals`, leaving every other tool as it is, in one step
    /// (a gateway that owns part of the list). Announces
    /// `tools/list_changed` once if a tool came, went or changed its
    /// definition; returns whether it announced. Nothing changes if a tool
    /// is invalid.
    pub fn update_tools(&self, upserts: Vec<Tool>, removals: &[String]) -> Result<bool> {
        Ok(upsert(&self.core.tools, Self::tool_entries(upserts)?, removals, |old, new| old.def != new.def))
    }

    /// [`Server::update_tools`] for prompts.
    pub fn update_prompts(&self, upserts: Vec<Prompt>, removals: &[String]) -> Result<bool> {
        Ok(upsert(&self.core.prompts, self.prompt_entries(upserts)?, removals, |old, new| old.def != new.def))
    }

    /// [`Server::update_tools`] for resource templates (keyed by their
    /// template text).
    pub fn update_resource_templates(
        &self,
        upserts: Vec<ResourceTemplate>,
        removals: &[String],
    ) -> Result<bool> {
        let entries = self.template_entries(upserts)?;
        Ok(upsert(&self.core.templates, entries, removals, |old, new| old.def != new.def))
    }

    /// The registered prompts' definitions, in listing order.
    pub fn prompts(&self) -> Vec<switchboard_types::Prompt> {
        self.core.prompts.load().iter().map(|e| e.value.def.clone()).collect()
    }

    /// The registered resources' definitions, in listing order.
    pub fn resources(&self) -> Vec<switchboard_types::resources::Resource> {
        self.core.resources.load().iter().map(|e| e.value.def.clone()).collect()
    }

    /// Every resource `resources/list` shows, in listing order: the
    /// registered ones, then each [`ResourceSource`](crate::ResourceSource)'s
    /// (all of them rendered: for printing a project's listing, not for a
    /// request path).
    pub fn listed_resources(&self) -> Vec<switchboard_types::resources::Resource> {
        let mut all = self.resources();
        for source in &self.core.sources {
            all.extend(source.list(0..source.len()));
        }
        all
    }

    /// The registered resource templates' definitions, in listing order.
    pub fn resource_templates(&self) -> Vec<switchboard_types::resources::ResourceTemplate> {
        self.core.templates.load().iter().map(|e| e.value.def.clone()).collect()
    }
}
