//! MCP Apps across tools and resources, checked when the server is built:
//! every tool's view is served, and whether the builder offers the
//! extension itself.
//!
//! Spec: `specification/2026-01-26/apps.mdx` of `modelcontextprotocol/ext-apps`.

use std::sync::Arc;

use switchboard_types::apps::ToolUi;

use crate::error::{Error, Result};
use crate::resources::source::ResourceSource;
use crate::resources::views::is_view;
use crate::resources::{Resource, ResourceTemplate};
use crate::tools::Tool;
use crate::tools::entry::check_tool;

/// How many items of each [`ResourceSource`] the build-time linkage check
/// lists at most: a tool's view is looked for among a source's first
/// items, so a source of millions cannot stall `build()`.
const SOURCE_SCAN_LIMIT: usize = 10_000;

/// Whether anything the builder holds uses Apps, so the server offers the
/// extension.
pub(crate) fn uses_apps(tools: &[Tool], resources: &[Resource], templates: &[ResourceTemplate]) -> bool {
    tools.iter().any(|t| t.ui.is_some() || t.def.meta.as_ref().and_then(ToolUi::from_meta).is_some())
        || resources.iter().any(|r| is_view(&r.def.uri, r.def.mime_type.as_deref(), r.def.meta.as_ref()))
        || templates
            .iter()
            .any(|t| is_view(&t.def.uri_template, t.def.mime_type.as_deref(), t.def.meta.as_ref()))
}

/// Checks, when the server is built, that every tool's view is served: by
/// a registered resource, a resource template that matches the URI, or a
/// resource source listing it among its first [`SOURCE_SCAN_LIMIT`] items.
pub(crate) fn check_links(
    tools: &[Tool],
    resources: &[Resource],
    templates: &[ResourceTemplate],
    sources: &[Arc<dyn ResourceSource>],
) -> Result<()> {
    for tool in tools.iter().filter(|t| !t.as_given) {
        check_tool(tool)?;
        let Some(ui) = tool.def.meta.as_ref().and_then(ToolUi::from_meta) else { continue };
        let uri = ui.resource_uri.as_str();
        let served = resources.iter().any(|r| r.def.uri == uri)
            || templates.iter().any(|t| t.template.matches(uri).is_some())
            || sources.iter().any(|s| source_lists(s.as_ref(), uri));
        if !served {
            return Err(Error::InvalidToolUi {
                tool: tool.def.name.clone(),
                reason: format!(
                    "its view {uri:?} is not served: register `Resource::ui({uri:?}, …)` or a template \
                     that matches it"
                ),
            });
        }
    }
    Ok(())
}

/// Whether `source` lists `uri` among its first items.
fn source_lists(source: &dyn ResourceSource, uri: &str) -> bool {
    const CHUNK: usize = 500;
    let end = source.len().min(SOURCE_SCAN_LIMIT);
    let mut start = 0;
    while start < end {
        let stop = (start + CHUNK).min(end);
        if source.list(start..stop).iter().any(|r| r.uri == uri) {
            return true;
        }
        start = stop;
    }
    false
}
