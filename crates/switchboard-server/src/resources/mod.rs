//! Resources and resource templates: definitions plus read handlers.
//!
//! ```
//! use switchboard_server::{ReadRequest, RequestContext, Resource, ResourceTemplate, complete_from};
//! use switchboard_server::types::ResourceContents;
//!
//! let about = Resource::new("app://about", "about").mime_type("text/plain").text("Version 1");
//! let users = ResourceTemplate::new("app://users/{id}", "user")
//!     .unwrap()
//!     .mime_type("application/json")
//!     .handler(|req: ReadRequest, _ctx: RequestContext| async move {
//!         let id = req.var("id").unwrap_or_default().to_owned();
//!         Ok(ResourceContents::text(req.uri, Some("application/json".into()), format!("{{\"id\":{id:?}}}")))
//!     })
//!     .complete("id", complete_from(["alice", "bob"]));
//! # let _ = (about, users);
//! ```
//!
//! Spec: `docs/specification/<rev>/server/resources.mdx`.

pub(crate) mod area;
pub(crate) mod entry;
pub(crate) mod files;
pub(crate) mod list_page;
pub(crate) mod listing;
pub(crate) mod methods;
pub(crate) mod source;
pub(crate) mod uri;
pub(crate) mod views;

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use futures::future::BoxFuture;
use switchboard_types::ResourceContents;
use switchboard_types::content::Annotations;
use switchboard_uri_template::{UriTemplate, Variables};

use crate::completion::Completer;
use crate::context::RequestContext;
use crate::handler_error::HandlerError;

/// What a read handler is asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadRequest {
    /// The URI as the client sent it.
    pub uri: String,
    /// The template variables matched from the URI (empty for a plain resource).
    pub variables: Variables,
}

impl ReadRequest {
    /// A variable's value when it matched as a single string.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.variables.get(name).and_then(|v| v.as_str())
    }
}

/// Converts a read handler's success value into resource contents.
pub trait IntoContents {
    /// The contents.
    fn into_contents(self) -> Vec<ResourceContents>;
}

impl IntoContents for ResourceContents {
    fn into_contents(self) -> Vec<ResourceContents> {
        vec![self]
    }
}

impl IntoContents for Vec<ResourceContents> {
    fn into_contents(self) -> Vec<ResourceContents> {
        self
    }
}

/// The type-erased read handler.
pub trait ResourceHandler: Send + Sync + 'static {
    /// Reads the resource.
    fn read(
        &self,
        request: ReadRequest,
        ctx: RequestContext,
    ) -> BoxFuture<'static, Result<Vec<ResourceContents>, HandlerError>>;
}

struct FnHandler<F>(F);

impl<F, Fut, C> ResourceHandler for FnHandler<F>
where
    F: Fn(ReadRequest, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<C, HandlerError>> + Send + 'static,
    C: IntoContents,
{
    fn read(
        &self,
        request: ReadRequest,
        ctx: RequestContext,
    ) -> BoxFuture<'static, Result<Vec<ResourceContents>, HandlerError>> {
        let fut = (self.0)(request, ctx);
        Box::pin(async move { fut.await.map(IntoContents::into_contents) })
    }
}

struct Static(Vec<ResourceContents>);

impl ResourceHandler for Static {
    fn read(
        &self,
        _: ReadRequest,
        _: RequestContext,
    ) -> BoxFuture<'static, Result<Vec<ResourceContents>, HandlerError>> {
        let contents = self.0.clone();
        Box::pin(async move { Ok(contents) })
    }
}

/// Base64 of raw bytes, for `blob` contents and image/audio blocks.
pub fn base64_encode(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

/// A resource with a fixed URI.
pub struct Resource {
    pub(crate) def: switchboard_types::resources::Resource,
    pub(crate) handler: Option<Arc<dyn ResourceHandler>>,
    pub(crate) scopes: Vec<String>,
    /// Made by `from_definition`: a definition written elsewhere (an
    /// upstream server, a document) is passed on as given, and the MCP Apps
    /// rules (`resources/views.rs`, `tools/entry.rs`) check only what this server declares.
    pub(crate) as_given: bool,
}

impl fmt::Debug for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Resource").field("def", &self.def).finish_non_exhaustive()
    }
}

/// The shared setters plus the two that resources and templates add.
macro_rules! common_setters {
    () => {
        crate::setters::metadata_setters!();

        /// MIME type.
        #[must_use]
        pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
            self.def.mime_type = Some(mime_type.into());
            self
        }

        /// Annotations (audience, priority, lastModified).
        #[must_use]
        pub fn annotations(mut self, annotations: Annotations) -> Self {
            self.def.annotations = Some(annotations);
            self
        }

        /// MCP Apps: sets `_meta.ui` (CSP origins, sandbox permissions,
        /// dedicated domain, border preference) on the listed definition
        /// and on every content a read returns, keeping other `_meta` keys.
        /// Only a `ui://` view may have it; its origins are checked when
        /// it is registered. Call it after [`meta`](Self::meta), which
        /// replaces the whole `_meta`.
        #[must_use]
        pub fn ui_meta(mut self, ui: switchboard_types::apps::UiResourceMeta) -> Self {
            ui.write_into(self.def.meta.get_or_insert_with(Default::default));
            self.as_given = false;
            self
        }
    };
}

impl Resource {
    /// A resource at `uri` called `name`, with no contents yet.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            def: switchboard_types::resources::Resource::new(uri, name),
            handler: None,
            scopes: Vec::new(),
            as_given: false,
        }
    }

    /// MCP Apps: a view at `uri` (a `ui://` URI) called `name`, with the
    /// MIME type `text/html;profile=mcp-app`. Give it its HTML with
    /// [`text`](Self::text) (or [`blob`](Self::blob) or a
    /// [`handler`](Self::handler)) and its sandbox with
    /// [`ui_meta`](Self::ui_meta); link tools to it with
    /// [`Tool::ui`](crate::Tool::ui). Registering it makes the server offer
    /// the extension `io.modelcontextprotocol/ui`.
    ///
    /// ```
    /// use switchboard_server::apps::{UiCsp, UiResourceMeta};
    /// use switchboard_server::{NoArgs, RequestContext, Resource, Server, Tool};
    ///
    /// let view = Resource::ui("ui://clock/view", "clock-view")
    ///     .text("<!doctype html><p id=now></p>")
    ///     .ui_meta(UiResourceMeta { prefers_border: Some(true), ..Default::default() });
    /// let server = Server::builder("clock", "1")
    ///     .resource(view)
    ///     .tool(Tool::new("now").ui("ui://clock/view").handler(|_: NoArgs, _: RequestContext| async { Ok("12:00") }))
    ///     .build();
    /// assert!(server.is_ok());
    /// ```
    pub fn ui(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self::new(uri, name).mime_type(switchboard_types::apps::MIME_TYPE)
    }

    /// A resource with this wire definition (size, MIME type, annotations,
    /// …) and no contents yet.
    pub fn from_definition(def: switchboard_types::resources::Resource) -> Self {
        Self { def, handler: None, scopes: Vec::new(), as_given: true }
    }

    common_setters!();

    /// The URI.
    pub fn uri(&self) -> &str {
        &self.def.uri
    }

    /// Raw size in bytes, shown in listings.
    #[must_use]
    pub fn size(mut self, size: u64) -> Self {
        self.def.size = Some(size);
        self
    }

    /// Fixed text contents (sets `size` too).
    #[must_use]
    pub fn text(mut self, text: impl Into<String>) -> Self {
        let text = text.into();
        self.def.size = Some(text.len() as u64);
        let contents = ResourceContents::text(self.def.uri.clone(), self.def.mime_type.clone(), text);
        self.handler = Some(Arc::new(Static(vec![contents])));
        self
    }

    /// Fixed binary contents, sent base64 in `blob` (sets `size` to the raw length).
    #[must_use]
    pub fn blob(mut self, bytes: &[u8]) -> Self {
        self.def.size = Some(bytes.len() as u64);
        let contents =
            ResourceContents::blob(self.def.uri.clone(), self.def.mime_type.clone(), base64_encode(bytes));
        self.handler = Some(Arc::new(Static(vec![contents])));
        self
    }

    /// Contents produced on each read.
    #[must_use]
    pub fn handler<F, Fut, C>(mut self, f: F) -> Self
    where
        F: Fn(ReadRequest, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<C, HandlerError>> + Send + 'static,
        C: IntoContents,
    {
        self.handler = Some(Arc::new(FnHandler(f)));
        self
    }
}

/// A family of resources named by an RFC 6570 URI template.
pub struct ResourceTemplate {
    pub(crate) def: switchboard_types::resources::ResourceTemplate,
    pub(crate) template: UriTemplate,
    pub(crate) handler: Option<Arc<dyn ResourceHandler>>,
    pub(crate) completers: HashMap<String, Arc<dyn Completer>>,
    pub(crate) scopes: Vec<String>,
    /// Made by `from_definition`: a definition written elsewhere (an
    /// upstream server, a document) is passed on as given, and the MCP Apps
    /// rules (`resources/views.rs`, `tools/entry.rs`) check only what this server declares.
    pub(crate) as_given: bool,
}

impl fmt::Debug for ResourceTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceTemplate").field("def", &self.def).finish_non_exhaustive()
    }
}

impl ResourceTemplate {
    /// A template; fails if `uri_template` is not a valid RFC 6570 template.
    pub fn new(uri_template: &str, name: impl Into<String>) -> Result<Self, switchboard_uri_template::Error> {
        let template = UriTemplate::parse(uri_template)?;
        Ok(Self {
            def: switchboard_types::resources::ResourceTemplate {
                uri_template: uri_template.to_owned(),
                name: name.into(),
                title: None,
                description: None,
                mime_type: None,
                icons: None,
                annotations: None,
                meta: None,
            },
            template,
            handler: None,
            completers: HashMap::new(),
            scopes: Vec::new(),
            as_given: false,
        })
    }

    /// A template with this wire definition; fails if its `uriTemplate` is
    /// not a valid RFC 6570 template.
    pub fn from_definition(
        def: switchboard_types::resources::ResourceTemplate,
    ) -> Result<Self, switchboard_uri_template::Error> {
        let template = UriTemplate::parse(&def.uri_template)?;
        Ok(Self {
            def,
            template,
            handler: None,
            completers: HashMap::new(),
            scopes: Vec::new(),
            as_given: true,
        })
    }

    common_setters!();

    /// The template text.
    pub fn uri_template(&self) -> &str {
        &self.def.uri_template
    }

    /// Reads a URI that matched the template; `request.variables` holds the values.
    #[must_use]
    pub fn handler<F, Fut, C>(mut self, f: F) -> Self
    where
        F: Fn(ReadRequest, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<C, HandlerError>> + Send + 'static,
        C: IntoContents,
    {
        self.handler = Some(Arc::new(FnHandler(f)));
        self
    }

    /// Completes the template variable `variable` (`completion/complete`
    /// with `ref/resource`).
    #[must_use]
    pub fn complete(mut self, variable: impl Into<String>, completer: Arc<dyn Completer>) -> Self {
        self.completers.insert(variable.into(), completer);
        self
    }
}
