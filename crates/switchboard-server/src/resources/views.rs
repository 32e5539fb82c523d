//! MCP Apps views among resources (extension `io.modelcontextprotocol/ui`):
//! the checks a UI resource passes at registration and the read wrapper
//! that copies a resource's `_meta.ui` onto every content it returns. A
//! tool's side is `tools/entry.rs`; the build-time linkage of tools to
//! views is `tools/view_links.rs`.
//!
//! Spec: `specification/2026-01-26/apps.mdx` of `modelcontextprotocol/ext-apps`.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::Value;
use switchboard_types::ResourceContents;
use switchboard_types::apps::{self, UiResourceMeta};
use switchboard_types::meta::Meta;

use crate::context::RequestContext;
use crate::error::{Error, Result};
use crate::handler_error::HandlerError;
use crate::resources::{ReadRequest, ResourceHandler};

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

/// Whether a resource definition is a view.
pub(crate) fn is_view(uri: &str, mime_type: Option<&str>, meta: Option<&Meta>) -> bool {
    uri.starts_with(apps::URI_SCHEME)
        || mime_type == Some(apps::MIME_TYPE)
        || meta.is_some_and(|m| m.contains_key(apps::META_KEY))
}
