//! The tools area's state: the registered tools, whether the `tools`
//! capability is announced, and the rate limits on `tools/call`.

use serde_json::Value;

use crate::catalog::{Catalog, prepare_all};
use crate::error::{Error, Result};
use crate::session::limits::Limiters;
use crate::tools::Tool;
use crate::tools::entry::ToolEntry;

pub(crate) struct Tools {
    pub catalog: Catalog<ToolEntry>,
    /// The `tools` capability is announced (something was registered, or
    /// run-time registration was asked for).
    pub enabled: bool,
    /// Rate limits on tools/call.
    pub limits: Limiters,
}

impl Tools {
    /// Calls `check` with the input schema of tool `name` when the tool
    /// mirrors arguments into headers (`x-mcp-header`); `None` when there
    /// is no such tool or nothing is mirrored. Nothing is cloned.
    pub(crate) fn with_mirrored_schema<R>(&self, name: &str, check: impl FnOnce(&Value) -> R) -> Option<R> {
        let tools = self.catalog.load();
        let entry = &tools.get(name)?.value;
        entry.mirrors_headers.then(|| check(&entry.def.input_schema))
    }

    /// Tools checked and compiled for a bulk change, keyed by name.
    pub(crate) fn entries(tools: Vec<Tool>) -> Result<Vec<(String, ToolEntry)>> {
        prepare_all(tools, ToolEntry::prepare, |e| e.def.name.as_str(), Error::DuplicateTool)
    }

    /// Registers `tool`; a name already taken is [`Error::DuplicateTool`].
    pub(crate) fn add(&self, tool: Tool) -> Result<()> {
        let entry = ToolEntry::prepare(tool)?;
        self.catalog
            .insert(entry.def.name.clone(), entry, false)
            .map_err(|taken| Error::DuplicateTool(taken.0))
    }
}
