//! MCP Apps in the server (extension `io.modelcontextprotocol/ui`): the
//! checks a UI resource and a tool's view linkage pass at registration, the
//! read wrapper that copies a resource's `_meta.ui` onto every content it
//! returns, and the rule for when the builder offers the extension itself.
//!
//! Why its own module: resources, templates, tools and the builder all
//! apply these rules; keeping them here means each rule exists once, and
//! the wire types stay in `switchboard_types::apps`.
//!
//! Spec: `specification/2026-01-26/apps.mdx` of `modelcontextprotocol/ext-apps`.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::Value;
use switchboard_types::ResourceContents;
use switchboard_types::apps::{self, ToolUi, UiResourceMeta};
use switchboard_types::meta::Meta;

use crate::context::RequestContext;
use crate::error::{Error, Result};
use crate::handler_error::HandlerError;
use crate::resource::{ReadRequest, Resource, ResourceHandler, ResourceTemplate};
use crate::resource_source::ResourceSource;
use crate::tool::Tool;

/// How many items of each [`ResourceSource`] the build-time linkage check
/// lists at most: a tool's view is looked for among a source's first
/// items, so a source of millions cannot stall `build()`.
const SOURCE_SCAN_LIMIT: usize = 10_000;

/// Checks a resource (or template, `uri` being its template text) against
/// the Apps rules: a resource that says it is a view (MIME type
/// [`apps::MIME_TYPE`] or a `_meta.ui`) lives under `ui://`; a `ui://`
/// resource has that MIME type; its CSP origins pass
/// [`apps::check_origin`]; its `_meta.ui` parses as [`UiResourceMeta`].
pub(crate) fn check_resource(uri: &str, mime_type: Option<&str>, meta: Option<&Meta>) -> Result<()> {
    let invalid = |reason: String| Error::InvalidUiResource { uri: uri.to_owned(), reason };
    let ui_meta = meta.and_then(|m| m.get(apps::META_KEY));
    let is_view = mime_type == Some(apps::MIME_TYPE) || ui_meta.is_some();
    let under_ui = uri.starts_with(apps::URI_SCHEME);
    if is_view && !under_ui {
        return Err(invalid(format!(
            "a view (MIME type {:?} or `_meta.ui`) must have a `ui://` URI",
            apps::MIME_TYPE
        )));
    }
    if under_ui && !apps::is_ui_uri(uri) {
        return Err(invalid("a `ui://` URI needs a name after the scheme, e.g. ui://server/view".into()));
    }
    if under_ui && mime_type != Some(apps::MIME_TYPE) {
        return Err(invalid(format!(
            "a `ui://` resource has the MIME type {:?} (found {:?}); build it with `Resource::ui`",
            apps::MIME_TYPE,
            mime_type.unwrap_or("none")
        )));
    }
    if let Some(value) = ui_meta {
        let parsed: UiResourceMeta = serde_json::from_value(value.clone())
            .map_err(|e| invalid(format!("`_meta.ui` is not a UI resource meta object: {e}")))?;
        parsed.check().map_err(invalid)?;
    }
    Ok(())
}

/// The `_meta.ui` a resource's contents should carry, if it has one.
pub(crate) fn content_meta(meta: Option<&Meta>) -> Option<Value> {
    meta?.get(apps::META_KEY).cloned()
}

/// Wraps a read handler so that every content it returns carries the
/// resource's `_meta.ui` (kept when the handler set its own).
pub(crate) fn with_content_meta(
    handler: Arc<dyn ResourceHandler>,
    ui: Option<Value>,
) -> Arc<dyn ResourceHandler> {
    match ui {
        Some(ui) => Arc::new(ContentMeta { inner: handler, ui }),
        None => handler,
    }
}

struct ContentMeta {
    inner: Arc<dyn ResourceHandler>,
    ui: Value,
}

impl ResourceHandler for ContentMeta {
    fn read(
        &self,
        request: ReadRequest,
        ctx: RequestContext,
    ) -> BoxFuture<'static, std::result::Result<Vec<ResourceContents>, HandlerError>> {
        let read = self.inner.read(request, ctx);
        let ui = self.ui.clone();
        Box::pin(async move {
            let mut contents = read.await?;
            for content in &mut contents {
                let meta = match content {
                    ResourceContents::Text(t) => &mut t.meta,
                    ResourceContents::Blob(b) => &mut b.meta,
                };
                meta.get_or_insert_with(Meta::new).entry(apps::META_KEY).or_insert_with(|| ui.clone());
            }
            Ok(contents)
        })
    }
}

/// Checks a tool's view linkage at registration: `visibility` comes with
/// a view and names someone, and `_meta.ui.resourceUri` (or the flat key)
/// names a `ui://` URI.
pub(crate) fn check_tool(tool: &Tool) -> Result<()> {
    let invalid = |reason: String| Error::InvalidToolUi { tool: tool.def.name.clone(), reason };
    if tool.ui.as_ref().is_some_and(|ui| ui.resource_uri.is_empty()) {
        return Err(invalid("`visibility` was set without a view: call `.ui(\"ui://…\")` too".into()));
    }
    let Some(ui) = tool.def.meta.as_ref().and_then(ToolUi::from_meta) else { return Ok(()) };
    if !apps::is_ui_uri(&ui.resource_uri) {
        return Err(invalid(format!("its view {:?} is not a `ui://` URI", ui.resource_uri)));
    }
    if ui.visibility.as_ref().is_some_and(Vec::is_empty) {
        return Err(invalid(
            "an empty `visibility` lets nobody call it: name \"model\", \"app\" or both".into(),
        ));
    }
    Ok(())
}

/// Whether a resource definition is a view.
fn is_view(uri: &str, mime_type: Option<&str>, meta: Option<&Meta>) -> bool {
    uri.starts_with(apps::URI_SCHEME)
        || mime_type == Some(apps::MIME_TYPE)
        || meta.is_some_and(|m| m.contains_key(apps::META_KEY))
}

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
    for tool in tools {
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
