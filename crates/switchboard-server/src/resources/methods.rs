//! `resources/list`, `resources/templates/list`, `resources/read`,
//! `resources/subscribe` and `resources/unsubscribe`.
//!
//! Spec: `docs/specification/<rev>/server/resources.mdx`. A read looks for a
//! resource registered under the exact URI first, then tries the templates
//! in registration order; the first whose RFC 6570 pattern matches gets the
//! read with the matched variables. A resource that does not exist is
//! `-32002` with `data.uri` for handshake-era revisions and `-32602` with
//! `data.uri` in 2026-07-28 — never an empty `contents`.

use std::sync::Arc;

use arc_swap::ArcSwap;
use serde_json::{Map, Value, json};
use switchboard_types::methods::EmptyResult;
use switchboard_types::pagination::PaginatedParams;
use switchboard_types::resources::UriParams;
use switchboard_types::{ErrorCode, ErrorObject, ProtocolVersion, ResourceContents};

use crate::catalog::{Catalog, CursorCodec};
use crate::context::RequestContext;
use crate::options::ServerOptions;
use crate::output::Output;
use crate::resources::area::Resources;
use crate::resources::entry::{ResourceEntry, TemplateEntry};
use crate::resources::list_page::PageWriter;
use crate::resources::listing::{Paging, list, listed};
use crate::resources::source::{
    ResourcePage, ResourceSource, SOURCE_PHASE, decode_position, encode_position,
};
use crate::resources::uri::validate_uri;
use crate::resources::{ReadRequest, ResourceHandler};
use crate::session::Session;
use crate::session::caller::permits;
use crate::session::events::ListKind;
use crate::shape;
use crate::shared::Shared;

/// Room reserved per computed item of a page: enough for a URI, a name and
/// a MIME type, so a typical page is written without growing its buffer.
const COMPUTED_ITEM_BYTES: usize = 128;

/// The part of the server's core the resources methods read: the area's
/// registered resources, templates and sources, and the shared cursor
/// codec and options. References only, so handing it over clones nothing.
#[derive(Clone, Copy)]
pub(crate) struct ResourcesCore<'a> {
    pub resources: &'a Catalog<ResourceEntry>,
    pub templates: &'a Catalog<TemplateEntry>,
    pub sources: &'a [Arc<dyn ResourceSource>],
    pub cursors: &'a ArcSwap<CursorCodec>,
    pub options: &'a ServerOptions,
}

impl Resources {
    /// This area with what it reads of the shared part.
    pub(crate) fn with_shared<'a>(&'a self, shared: &'a Shared) -> ResourcesCore<'a> {
        ResourcesCore {
            resources: &self.catalog,
            templates: &self.templates,
            sources: &self.sources,
            cursors: &shared.cursors,
            options: &shared.options,
        }
    }
}

impl<'a> From<ResourcesCore<'a>> for Paging<'a> {
    fn from(core: ResourcesCore<'a>) -> Self {
        Paging { cursors: core.cursors, options: core.options }
    }
}

listed! {
    ResourceEntry: Resources in "resources";
    TemplateEntry: ResourceTemplates in "resourceTemplates";
}

/// The resource-not-found error of `version`.
pub(crate) fn not_found(uri: &str, version: ProtocolVersion) -> ErrorObject {
    let message = format!("Resource not found: {uri}");
    let error = match version.rules().resource_not_found {
        // `-32602` with its usual "Invalid params: " prefix.
        ErrorCode::INVALID_PARAMS => ErrorObject::invalid_params(message),
        code => ErrorObject::new(code, message),
    };
    error.with_data(json!({"uri": uri}))
}

fn checked_uri(params: &UriParams) -> std::result::Result<(), ErrorObject> {
    validate_uri(&params.uri).map_err(|reason| {
        ErrorObject::invalid_params(format!("invalid resource URI {:?}: {reason}", params.uri))
            .with_data(json!({"uri": params.uri}))
    })
}

pub(crate) async fn list_resources(
    core: ResourcesCore<'_>,
    _: &Arc<Session>,
    ctx: &RequestContext,
    params: PaginatedParams,
) -> Result<Output, ErrorObject> {
    if core.sources.is_empty() {
        return list(core, ctx, core.resources, params);
    }
    // Registered resources first, then each source in order; a page
    // fills up across the boundaries.
    let version = ctx.protocol_version();
    let codec = core.cursors.load();
    let page_size = core.options.page_size.max(1);
    let after = match params.cursor.as_deref() {
        None => None,
        Some(c) => Some(codec.decode(ListKind::Resources, c)?),
    };
    let set = core.resources.load();
    let (registered, mut next, mut position) = match after {
        Some(seq) if seq >= SOURCE_PHASE => {
            let (index, offset) = decode_position(seq);
            (Vec::new(), None, next_source_position(core, index, offset))
        }
        _ => {
            let (page, next) =
                set.page_of(params.cursor.as_deref(), page_size, &codec, ListKind::Resources, |e| {
                    permits(ctx.principal(), &e.scopes)
                })?;
            let position = if next.is_none() { next_source_position(core, 0, 0) } else { None };
            (page, next, position)
        }
    };
    // One buffer, written front to back: the registered items from
    // their cached JSON, then each source's items as it pushes them.
    let mut room = page_size - registered.len();
    let registered_bytes: usize = registered.iter().map(|e| e.value.rendered(version).len() + 1).sum();
    let mut page = PageWriter::new("resources", registered_bytes + room * COMPUTED_ITEM_BYTES);
    for entry in &registered {
        page.item(entry.value.rendered(version).as_bytes());
    }
    while room > 0 {
        let Some((index, offset)) = position else { break };
        let source = &core.sources[index];
        let end = (offset + room).min(source.len_past(offset + room));
        source.list_into(offset..end, &mut ResourcePage::new(&mut page, version, end - offset));
        room -= end - offset;
        position = next_source_position(core, index, end);
    }
    if let Some((index, offset)) = position {
        next = Some(codec.encode(ListKind::Resources, encode_position(index, offset)));
    }
    Ok(page.finish(next))
}

/// The first position at or after (`index`, `offset`) that names an item.
fn next_source_position(core: ResourcesCore<'_>, index: usize, offset: usize) -> Option<(usize, usize)> {
    let sources = &core.sources;
    let mut offset = offset;
    for (i, source) in sources.iter().enumerate().skip(index) {
        if offset < source.len_past(offset) {
            return Some((i, offset));
        }
        offset = 0;
    }
    None
}

pub(crate) async fn list_resource_templates(
    core: ResourcesCore<'_>,
    _: &Arc<Session>,
    ctx: &RequestContext,
    params: PaginatedParams,
) -> Result<Output, ErrorObject> {
    list(core, ctx, core.templates, params)
}

/// Finds who serves `uri` for `principal` among the registered
/// resources and templates: the exact resource, else the first matching
/// template; what the caller may not use is not there.
pub(crate) fn find_resource(
    core: ResourcesCore<'_>,
    uri: &str,
    principal: Option<&crate::Principal>,
) -> Option<(Arc<dyn ResourceHandler>, ReadRequest)> {
    if let Some(item) = core.resources.load().get(uri) {
        if !permits(principal, &item.value.scopes) {
            return None;
        }
        let request = ReadRequest { uri: uri.to_owned(), variables: Default::default() };
        return Some((Arc::clone(&item.value.handler), request));
    }
    let templates = core.templates.load();
    templates.iter().filter(|item| permits(principal, &item.value.scopes)).find_map(|item| {
        let variables = item.value.template.matches(uri)?;
        Some((Arc::clone(&item.value.handler), ReadRequest { uri: uri.to_owned(), variables }))
    })
}

pub(crate) async fn read_resource(
    core: ResourcesCore<'_>,
    _: &Arc<Session>,
    ctx: &RequestContext,
    params: UriParams,
) -> Result<Map<String, Value>, ErrorObject> {
    checked_uri(&params)?;
    let version = ctx.protocol_version();
    // Registered resources, then sources, then templates.
    let principal = ctx.principal();
    let exact = core
        .resources
        .load()
        .get(params.uri.as_str())
        .map(|item| (permits(principal, &item.value.scopes), Arc::clone(&item.value.handler)));
    let read = match exact {
        Some((false, _)) => return Err(not_found(&params.uri, version)),
        Some((true, handler)) => {
            handler.read(ReadRequest { uri: params.uri.clone(), variables: Default::default() }, ctx.clone())
        }
        None => match core.sources.iter().find_map(|s| s.read(&params.uri, ctx.clone())) {
            Some(read) => read,
            None => {
                let Some((handler, request)) = find_resource(core, &params.uri, principal) else {
                    return Err(not_found(&params.uri, version));
                };
                handler.read(request, ctx.clone())
            }
        },
    };
    let contents = read.await.map_err(|e| e.into_error(|| not_found(&params.uri, version)))?;
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

pub(crate) async fn subscribe(
    core: ResourcesCore<'_>,
    session: &Arc<Session>,
    ctx: &RequestContext,
    params: UriParams,
) -> Result<EmptyResult, ErrorObject> {
    checked_uri(&params)?;
    let known = find_resource(core, &params.uri, ctx.principal()).is_some()
        || core.sources.iter().any(|s| s.read(&params.uri, ctx.clone()).is_some());
    if !known {
        return Err(not_found(&params.uri, ctx.protocol_version()));
    }
    session.subscribe(params.uri);
    Ok(Map::new())
}

pub(crate) async fn unsubscribe(
    _: ResourcesCore<'_>,
    session: &Arc<Session>,
    _: &RequestContext,
    params: UriParams,
) -> Result<EmptyResult, ErrorObject> {
    checked_uri(&params)?;
    // Unsubscribing from something not subscribed is harmless.
    session.unsubscribe(&params.uri);
    Ok(Map::new())
}
