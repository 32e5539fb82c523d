//! `resources/list`, `resources/templates/list`, `resources/read`,
//! `resources/subscribe` and `resources/unsubscribe`.
//!
//! Spec: `docs/specification/<rev>/server/resources.mdx`. A read looks for a
//! resource registered under the exact URI first, then tries the templates
//! in registration order; the first whose RFC 6570 pattern matches gets the
//! read with the matched variables. A resource that does not exist is
//! `-32002` with `data.uri` for legacy revisions and `-32602` with
//! `data.uri` in 2026-07-28 — never an empty `contents`.

use std::sync::{Arc, OnceLock};

use mcp_types::pagination::PaginatedParams;
use mcp_types::resources::UriParams;
use mcp_types::{ErrorCode, ErrorObject, ProtocolVersion, ResourceContents};
use mcp_uri_template::UriTemplate;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::completion::Completer;
use crate::context::RequestContext;
use crate::dispatch::{Output, parse_params};
use crate::error::{Error, Result};
use crate::events::ListKind;
use crate::resource::{ReadRequest, Resource, ResourceHandler, ResourceTemplate};
use crate::server::Server;
use crate::session::Session;
use crate::shape;
use crate::uri::validate_uri;

/// A registered resource.
pub(crate) struct ResourceEntry {
    pub def: mcp_types::resources::Resource,
    pub handler: Arc<dyn ResourceHandler>,
    rendered: [OnceLock<Box<str>>; 5],
}

impl ResourceEntry {
    pub(crate) fn prepare(resource: Resource) -> Result<Self> {
        validate_uri(&resource.def.uri)
            .map_err(|reason| Error::InvalidUri { uri: resource.def.uri.clone(), reason })?;
        let handler = resource
            .handler
            .ok_or_else(|| Error::MissingHandler(format!("resource {:?}", resource.def.uri)))?;
        Ok(Self { def: resource.def, handler, rendered: Default::default() })
    }

    fn rendered(&self, version: ProtocolVersion) -> &str {
        self.rendered[version as usize]
            .get_or_init(|| shape::metadata(&self.def, version).to_string().into_boxed_str())
    }
}

/// A registered resource template.
pub(crate) struct TemplateEntry {
    pub def: mcp_types::resources::ResourceTemplate,
    pub template: UriTemplate,
    pub handler: Arc<dyn ResourceHandler>,
    pub completers: std::collections::HashMap<String, Arc<dyn Completer>>,
    rendered: [OnceLock<Box<str>>; 5],
}

impl TemplateEntry {
    pub(crate) fn prepare(template: ResourceTemplate) -> Result<Self> {
        let handler = template.handler.ok_or_else(|| {
            Error::MissingHandler(format!("resource template {:?}", template.def.uri_template))
        })?;
        let known: Vec<&str> = template.template.variables().collect();
        if let Some(unknown) = template.completers.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(Error::InvalidUri {
                uri: template.def.uri_template.clone(),
                reason: format!(
                    "a completer is registered for {unknown:?}, which is not a variable of the template"
                ),
            });
        }
        Ok(Self {
            def: template.def,
            template: template.template,
            handler,
            completers: template.completers,
            rendered: Default::default(),
        })
    }

    fn rendered(&self, version: ProtocolVersion) -> &str {
        self.rendered[version as usize]
            .get_or_init(|| shape::metadata(&self.def, version).to_string().into_boxed_str())
    }
}

/// The resource-not-found error of `version`.
pub(crate) fn not_found(uri: &str, version: ProtocolVersion) -> ErrorObject {
    let error = if version.is_legacy() {
        ErrorObject::new(ErrorCode::RESOURCE_NOT_FOUND, format!("Resource not found: {uri}"))
    } else {
        ErrorObject::invalid_params(format!("Resource not found: {uri}"))
    };
    error.with_data(json!({"uri": uri}))
}

fn checked_uri(params: &UriParams) -> std::result::Result<(), ErrorObject> {
    validate_uri(&params.uri).map_err(|reason| {
        ErrorObject::invalid_params(format!("invalid resource URI {:?}: {reason}", params.uri))
            .with_data(json!({"uri": params.uri}))
    })
}

impl Server {
    pub(crate) fn list_resources(
        &self,
        ctx: &RequestContext,
        params: Option<&RawValue>,
    ) -> std::result::Result<crate::dispatch::Output, ErrorObject> {
        let version = ctx.protocol_version();
        self.list_page(&self.inner.resources, ListKind::Resources, "resources", params, |e| {
            e.rendered(version)
        })
    }

    pub(crate) fn list_resource_templates(
        &self,
        ctx: &RequestContext,
        params: Option<&RawValue>,
    ) -> std::result::Result<crate::dispatch::Output, ErrorObject> {
        let version = ctx.protocol_version();
        self.list_page(&self.inner.templates, ListKind::ResourceTemplates, "resourceTemplates", params, |e| {
            e.rendered(version)
        })
    }

    /// Finds who serves `uri`: the exact resource, else the first matching template.
    pub(crate) fn find_resource(&self, uri: &str) -> Option<(Arc<dyn ResourceHandler>, ReadRequest)> {
        if let Some(item) = self.inner.resources.load().get(uri) {
            let request = ReadRequest { uri: uri.to_owned(), variables: Default::default() };
            return Some((Arc::clone(&item.value.handler), request));
        }
        let templates = self.inner.templates.load();
        templates.iter().find_map(|item| {
            let variables = item.value.template.matches(uri)?;
            Some((Arc::clone(&item.value.handler), ReadRequest { uri: uri.to_owned(), variables }))
        })
    }

    pub(crate) async fn read_resource(
        &self,
        ctx: &RequestContext,
        params: Option<&RawValue>,
    ) -> std::result::Result<Map<String, Value>, ErrorObject> {
        let params: UriParams = parse_params(params)?;
        checked_uri(&params)?;
        let version = ctx.protocol_version();
        let Some((handler, request)) = self.find_resource(&params.uri) else {
            return Err(not_found(&params.uri, version));
        };
        let contents = handler
            .read(request, ctx.clone())
            .await
            .map_err(|e| e.into_error(|| not_found(&params.uri, version)))?;
        if contents.is_empty() {
            // Never an empty `contents` for a resource that is not there.
            return Err(not_found(&params.uri, version));
        }
        let contents: Vec<Value> = contents
            .into_iter()
            .map(|c| shape::resource_contents(c, version))
            .collect::<Vec<ResourceContents>>()
            .iter()
            .map(|c| serde_json::to_value(c).expect("ResourceContents serializes; qed"))
            .collect();
        let mut map = Map::with_capacity(1);
        map.insert("contents".into(), Value::Array(contents));
        Ok(map)
    }

    pub(crate) fn subscribe(
        &self,
        session: &Session,
        ctx: &RequestContext,
        params: Option<&RawValue>,
        subscribe: bool,
    ) -> std::result::Result<Map<String, Value>, ErrorObject> {
        let params: UriParams = parse_params(params)?;
        checked_uri(&params)?;
        if subscribe {
            if self.find_resource(&params.uri).is_none() {
                return Err(not_found(&params.uri, ctx.protocol_version()));
            }
            session.subscribe(params.uri);
        } else {
            // Unsubscribing from something not subscribed is harmless.
            session.unsubscribe(&params.uri);
        }
        Ok(Map::new())
    }
}

impl Server {
    /// One page of a list method: parses the cursor, pages the catalog and
    /// writes the result straight from each item's cached JSON for the
    /// request's revision (no per-request rendering or `Value` copies).
    pub(crate) fn list_page<T>(
        &self,
        catalog: &crate::catalog::Catalog<T>,
        kind: ListKind,
        key: &str,
        params: Option<&RawValue>,
        render: impl Fn(&T) -> &str,
    ) -> std::result::Result<Output, ErrorObject> {
        let params: PaginatedParams = parse_params(params)?;
        let set = catalog.load();
        let (page, next) =
            set.page(params.cursor.as_deref(), self.inner.options.page_size, &self.inner.cursors, kind)?;
        let rendered: Vec<&str> = page.iter().map(|e| render(&e.value)).collect();
        let mut out =
            Vec::with_capacity(rendered.iter().map(|r| r.len() + 1).sum::<usize>() + key.len() + 64);
        out.extend_from_slice(b"{\"");
        out.extend_from_slice(key.as_bytes());
        out.extend_from_slice(b"\":[");
        for (i, item) in rendered.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(item.as_bytes());
        }
        out.push(b']');
        if let Some(next) = next {
            out.extend_from_slice(b",\"nextCursor\":");
            serde_json::to_writer(&mut out, &next).expect("a string serializes; qed");
        }
        out.push(b'}');
        Ok(Output::Raw(out))
    }
}
