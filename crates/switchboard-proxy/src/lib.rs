//! Front another MCP server and serve its tools, prompts, resources and
//! resource templates as your own: a [`Proxy`] connects to an [`Upstream`]
//! (a child process over stdio, or a Streamable HTTP URL), lists what it
//! offers, and registers a forwarding handler for each item in an
//! [`switchboard_server::ServerBuilder`]. Everything the server adds applies to the
//! re-exported items too: every protocol revision (a 2024-11-05 client can
//! use a 2025-11-25 upstream, and a 2026-07-28 client a stdio-only one),
//! authorization and scopes, rate limits, middleware, metrics.
//!
//! What crosses the proxy:
//! - calls, prompt renders and reads, with the upstream's results and
//!   JSON-RPC errors passed through (a resource the upstream does not have
//!   is this server's not-found error for the client's revision);
//! - argument completion, when the upstream offers it;
//! - cancellation (a cancelled client request cancels the upstream one)
//!   and progress (relayed as the upstream reports it);
//! - the upstream's questions during a call (elicitation, sampling, roots),
//!   asked of the client that made the call at its revision: a live
//!   request in the handshake era, an `InputRequiredResult` round in
//!   2026-07-28 (the `calls` module says how the call is replayed);
//! - list changes and resource updates, after [`Proxy::follow`] (the
//!   proxy subscribes upstream to the resources it passes through when the
//!   upstream offers subscriptions).
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use switchboard_proxy::{Proxy, Upstream};
//! let upstream = Upstream::spawn("npx", &["-y".into(), "@modelcontextprotocol/server-everything".into()])?;
//! let proxy = Proxy::connect(upstream, None).await?;
//! let builder = proxy.register(switchboard_server::Server::builder("front", "1")).await?;
//! let server = builder.build()?;
//! proxy.follow(server.clone());
//! server.serve_stdio().await?;
//! # Ok(()) }
//! ```

mod calls;
mod client;
mod gateway;
mod mount;

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use switchboard_server::types::completion::{
    CompleteParams, CompletionArgument, CompletionContext, CompletionReference,
};
use switchboard_server::types::methods::{self, Request};
use switchboard_server::types::prompts::GetPromptParams;
use switchboard_server::types::resources::UriParams;
use switchboard_server::types::tools::CallToolParams;
use switchboard_server::types::{Implementation, ResourceContents};
use switchboard_server::{
    Completer, CompletionRequest, ErrorObject, HandlerError, Prompt, RequestContext, Resource,
    ResourceTemplate, Server, ServerBuilder, Tool, ToolError,
};

use calls::Calls;
pub use client::{ProgressSink, RequestHandler, Upstream, UpstreamRequest};
pub use gateway::{Gateway, Owned, Transport, UpstreamConfig, UpstreamState, UpstreamStatus};
pub use mount::{Mount, NameFilter, Override, glob_match};

/// Errors from connecting to or listing an upstream server.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The upstream program could not be started.
    #[error("could not start the upstream server {0:?}: {1}")]
    Spawn(String, #[source] std::io::Error),
    /// The upstream misbehaved (closed, unreachable, unreadable).
    #[error("upstream server: {0}")]
    Upstream(String),
    /// The upstream answered a request with an error.
    #[error("upstream server error during {0}: {1}")]
    Rpc(&'static str, ErrorObject),
    /// Registering what the upstream offers failed.
    #[error(transparent)]
    Server(#[from] switchboard_server::Error),
}

/// Most pages read from one upstream list (a list that never ends is cut).
const MAX_PAGES: usize = 10_000;

/// Most resources one proxy subscribes to upstream (the rest are served,
/// and their updates are not relayed; a warning says so).
const MAX_SUBSCRIPTIONS: usize = 1_000;

/// A connected upstream and what it announced.
#[derive(Clone)]
pub struct Proxy {
    upstream: Upstream,
    /// The prefix, filters and overrides applied to what the upstream offers.
    mount: Arc<Mount>,
    info: Implementation,
    capabilities: Value,
    instructions: Option<String>,
    /// The client requests in flight upstream (progress and questions
    /// find their client request here).
    calls: Arc<Calls>,
    /// The resource URIs registered from the upstream (for list changes).
    resources: Arc<Mutex<HashSet<String>>>,
    /// The resource URIs this proxy subscribed to upstream.
    subscribed: Arc<Mutex<HashSet<String>>>,
}

impl std::fmt::Debug for Proxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Proxy").field("upstream", &self.info).finish_non_exhaustive()
    }
}

impl Proxy {
    /// Runs the `initialize` handshake with `upstream`. With a `prefix`,
    /// tools and prompts are re-exported as `{prefix}_{name}`.
    pub async fn connect(upstream: Upstream, prefix: Option<String>) -> Result<Self, Error> {
        Self::connect_mounted(upstream, Mount { prefix, ..Mount::default() }).await
    }

    /// Runs the `initialize` handshake with `upstream`; its tools and
    /// prompts are re-exported through `mount` (prefix, filters, overrides).
    pub async fn connect_mounted(upstream: Upstream, mount: Mount) -> Result<Self, Error> {
        let calls = Arc::new(Calls::default());
        let relay = Arc::clone(&calls);
        upstream.on_request(Arc::new(move |request| {
            let calls = Arc::clone(&relay);
            Box::pin(async move { calls.relay(request).await })
        }));
        let progress = Arc::clone(&calls);
        upstream.on_progress(Arc::new(move |params| progress.progress(params)));
        let result =
            upstream.initialize("switchboard-proxy").await.map_err(|e| Error::Rpc("initialize", e))?;
        let info = serde_json::from_value(result["serverInfo"].clone())
            .map_err(|e| Error::Upstream(format!("unreadable serverInfo: {e}")))?;
        let proxy = Self {
            upstream,
            mount: Arc::new(mount),
            info,
            capabilities: result.get("capabilities").cloned().unwrap_or_else(|| json!({})),
            instructions: result.get("instructions").and_then(Value::as_str).map(str::to_owned),
            calls,
            resources: Arc::default(),
            subscribed: Arc::default(),
        };
        Ok(proxy)
    }

    /// The upstream's name and version.
    pub fn upstream_info(&self) -> &Implementation {
        &self.info
    }

    /// The upstream's `instructions`, if it sent any.
    pub fn instructions(&self) -> Option<&str> {
        self.instructions.as_deref()
    }

    /// The upstream connection.
    pub fn upstream(&self) -> &Upstream {
        &self.upstream
    }

    /// Whether the upstream offers the extension `id` (its
    /// `capabilities.extensions`), e.g. MCP Apps: a relay of its views
    /// offers it too.
    pub fn offers_extension(&self, id: &str) -> bool {
        self.capabilities["extensions"].get(id).is_some_and(|settings| !settings.is_null())
    }

    fn offers(&self, capability: &str) -> bool {
        self.capabilities.get(capability).is_some_and(|c| !c.is_null())
    }

    /// Registers everything the upstream offers in `builder`.
    pub async fn register(&self, mut builder: ServerBuilder) -> Result<ServerBuilder, Error> {
        for tool in self.tools().await? {
            builder = builder.tool(tool);
        }
        for prompt in self.prompts().await? {
            builder = builder.prompt(prompt);
        }
        for resource in self.resources().await? {
            builder = builder.resource(resource);
        }
        for template in self.resource_templates().await? {
            builder = builder.resource_template(template);
        }
        if self.offers("tools") {
            builder = builder.enable_tools();
        }
        if self.offers("prompts") {
            builder = builder.enable_prompts();
        }
        if self.offers("resources") {
            builder = builder.enable_resources();
        }
        Ok(builder)
    }

    async fn list_all<T: DeserializeOwned>(&self, method: &'static str, key: &str) -> Result<Vec<T>, Error> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let page = self.upstream.request(method, params).await.map_err(|e| Error::Rpc(method, e))?;
            let list = page.get(key).cloned().unwrap_or_else(|| json!([]));
            let list: Vec<Value> = serde_json::from_value(list)
                .map_err(|e| Error::Upstream(format!("{method}: {key} is not a list: {e}")))?;
            for item in list {
                match serde_json::from_value::<T>(item.clone()) {
                    Ok(item) => items.push(item),
                    Err(e) => tracing::warn!(method, %item, error = %e, "skipping an unreadable item"),
                }
            }
            cursor = page.get("nextCursor").and_then(Value::as_str).map(str::to_owned);
            if cursor.is_none() {
                return Ok(items);
            }
        }
        tracing::warn!(method, "the upstream list did not end within {MAX_PAGES} pages; the rest is cut");
        Ok(items)
    }

    /// The upstream's tools, each forwarding its calls.
    pub async fn tools(&self) -> Result<Vec<Tool>, Error> {
        if !self.offers("tools") {
            return Ok(Vec::new());
        }
        Ok(self.tool_definitions().await?.into_iter().map(|(remote, def)| self.tool(remote, def)).collect())
    }

    /// The upstream's tools as this server shows them (filtered, renamed,
    /// overridden), each with its name upstream.
    pub(crate) async fn tool_definitions(
        &self,
    ) -> Result<Vec<(String, switchboard_server::types::tools::Tool)>, Error> {
        if !self.offers("tools") {
            return Ok(Vec::new());
        }
        let defs: Vec<switchboard_server::types::tools::Tool> = self.list_all("tools/list", "tools").await?;
        Ok(defs.into_iter().filter_map(|def| self.mount.tool(def)).collect())
    }

    pub(crate) fn tool(&self, remote: String, def: switchboard_server::types::tools::Tool) -> Tool {
        let proxy = self.clone();
        Tool::from_definition(def).raw_handler(move |arguments: Value, ctx: RequestContext| {
            let (proxy, remote) = (proxy.clone(), remote.clone());
            async move {
                let params = CallToolParams {
                    name: remote,
                    arguments: arguments.as_object().cloned(),
                    task: None,
                    input_responses: None,
                    request_state: None,
                    meta: None,
                };
                proxy.call::<methods::CallTool>(&ctx, params).await.map_err(ToolError::Protocol)
            }
        })
    }

    /// The upstream's prompts, each forwarding its renders (and completion).
    pub async fn prompts(&self) -> Result<Vec<Prompt>, Error> {
        if !self.offers("prompts") {
            return Ok(Vec::new());
        }
        Ok(self
            .prompt_definitions()
            .await?
            .into_iter()
            .map(|(remote, def)| self.prompt(remote, def))
            .collect())
    }

    /// The upstream's prompts as this server shows them, each with its
    /// name upstream.
    pub(crate) async fn prompt_definitions(
        &self,
    ) -> Result<Vec<(String, switchboard_server::types::prompts::Prompt)>, Error> {
        if !self.offers("prompts") {
            return Ok(Vec::new());
        }
        let defs: Vec<switchboard_server::types::prompts::Prompt> =
            self.list_all("prompts/list", "prompts").await?;
        Ok(defs.into_iter().filter_map(|def| self.mount.prompt(def)).collect())
    }

    pub(crate) fn prompt(&self, remote: String, def: switchboard_server::types::prompts::Prompt) -> Prompt {
        let arguments: Vec<String> = def.arguments.iter().flatten().map(|a| a.name.clone()).collect();
        let proxy = self.clone();
        let forward_name = remote.clone();
        let mut prompt = Prompt::from_definition(def).raw_handler(
            move |arguments: BTreeMap<String, String>, ctx: RequestContext| {
                let (proxy, remote) = (proxy.clone(), forward_name.clone());
                async move {
                    let params = GetPromptParams { name: remote, arguments: Some(arguments), meta: None };
                    proxy.call::<methods::GetPrompt>(&ctx, params).await.map_err(handler_error)
                }
            },
        );
        if self.offers("completions") {
            for argument in arguments {
                let reference = CompletionReference::Prompt { name: remote.clone() };
                prompt = prompt.complete(argument, Arc::new(Forwarded { proxy: self.clone(), reference }));
            }
        }
        prompt
    }

    /// The upstream's resources, each forwarding its reads.
    pub async fn resources(&self) -> Result<Vec<Resource>, Error> {
        let defs = self.resource_definitions().await?;
        *self.resources.lock().expect("resources lock") = defs.iter().map(|d| d.uri.clone()).collect();
        Ok(defs.into_iter().map(|def| self.resource(def)).collect())
    }

    /// The upstream's resources (none when the mount hides them).
    pub(crate) async fn resource_definitions(
        &self,
    ) -> Result<Vec<switchboard_server::types::resources::Resource>, Error> {
        if !self.offers("resources") || !self.mount.resources {
            return Ok(Vec::new());
        }
        let defs = self.list_all("resources/list", "resources").await?;
        self.subscribe_upstream(&defs).await;
        Ok(defs)
    }

    /// Subscribes upstream to the resources passed through that are not
    /// subscribed yet, when the upstream offers subscriptions: its
    /// `notifications/resources/updated` then reach the clients subscribed
    /// here (the server sends each update only to its subscribers). A URI
    /// that left the list is forgotten, so it is subscribed again if it
    /// comes back.
    async fn subscribe_upstream(&self, defs: &[switchboard_server::types::resources::Resource]) {
        if self.capabilities["resources"]["subscribe"] != json!(true) {
            return;
        }
        let fresh: Vec<String> = {
            let mut subscribed = self.subscribed.lock().expect("subscribed lock");
            let listed: HashSet<&str> = defs.iter().map(|d| d.uri.as_str()).collect();
            subscribed.retain(|uri| listed.contains(uri.as_str()));
            let room = MAX_SUBSCRIPTIONS.saturating_sub(subscribed.len());
            let fresh: Vec<String> =
                defs.iter().filter(|d| !subscribed.contains(&d.uri)).map(|d| d.uri.clone()).collect();
            if fresh.len() > room {
                tracing::warn!(
                    upstream = %self.info.name,
                    limit = MAX_SUBSCRIPTIONS,
                    "the upstream has more resources than this proxy subscribes to; updates of the rest are not relayed"
                );
            }
            fresh
                .into_iter()
                .take(room)
                .inspect(|uri| {
                    subscribed.insert(uri.clone());
                })
                .collect()
        };
        let upstream = &self.upstream;
        futures::StreamExt::for_each_concurrent(futures::stream::iter(fresh), 16, |uri| async move {
            if let Err(e) = upstream.request("resources/subscribe", json!({"uri": uri})).await {
                tracing::warn!(%uri, error = %e.message, "could not subscribe to an upstream resource");
            }
        })
        .await;
    }

    pub(crate) fn resource(&self, def: switchboard_server::types::resources::Resource) -> Resource {
        let proxy = self.clone();
        Resource::from_definition(def).handler(
            move |read: switchboard_server::ReadRequest, ctx: RequestContext| {
                let proxy = proxy.clone();
                async move { proxy.read(&ctx, &read.uri).await }
            },
        )
    }

    /// The upstream's resource templates, each forwarding reads of the URIs
    /// they match (and completion of their variables).
    pub async fn resource_templates(&self) -> Result<Vec<ResourceTemplate>, Error> {
        let defs = self.template_definitions().await?;
        Ok(defs.into_iter().filter_map(|def| self.template(def)).collect())
    }

    /// The upstream's resource templates (none when the mount hides them).
    pub(crate) async fn template_definitions(
        &self,
    ) -> Result<Vec<switchboard_server::types::resources::ResourceTemplate>, Error> {
        if !self.offers("resources") || !self.mount.resources {
            return Ok(Vec::new());
        }
        self.list_all("resources/templates/list", "resourceTemplates").await
    }

    /// One upstream template, forwarding reads and completion (`None`, with
    /// a warning, when it is not a valid RFC 6570 template).
    pub(crate) fn template(
        &self,
        def: switchboard_server::types::resources::ResourceTemplate,
    ) -> Option<ResourceTemplate> {
        {
            let text = def.uri_template.clone();
            let variables = template_variables(&text);
            let mut template = match ResourceTemplate::from_definition(def) {
                Ok(t) => t,
                Err(e) => {
                    tracing::warn!(template = %text, error = %e, "skipping an invalid upstream template");
                    return None;
                }
            };
            let proxy = self.clone();
            template = template.handler(move |read: switchboard_server::ReadRequest, ctx: RequestContext| {
                let proxy = proxy.clone();
                async move { proxy.read(&ctx, &read.uri).await }
            });
            if self.offers("completions") {
                for variable in variables {
                    let reference = CompletionReference::Resource { uri: text.clone() };
                    template =
                        template.complete(variable, Arc::new(Forwarded { proxy: self.clone(), reference }));
                }
            }
            Some(template)
        }
    }

    async fn read(&self, ctx: &RequestContext, uri: &str) -> Result<Vec<ResourceContents>, HandlerError> {
        let params = UriParams { uri: uri.to_owned(), meta: None };
        Ok(self.call::<methods::ReadResource>(ctx, params).await.map_err(handler_error)?.contents)
    }

    /// Sends request `M` upstream ([`Proxy::forward`]) and reads its result.
    async fn call<M: Request>(
        &self,
        ctx: &RequestContext,
        params: M::Params,
    ) -> Result<M::Result, ErrorObject> {
        let params = serde_json::to_value(params).map_err(|e| ErrorObject::internal(e.to_string()))?;
        decode(self.forward(ctx, M::FACTS.name, params).await?)
    }

    /// Sends one client request upstream, relaying its progress, its
    /// cancellation and the upstream's questions during it.
    async fn forward(
        &self,
        ctx: &RequestContext,
        method: &str,
        mut params: Value,
    ) -> Result<Value, ErrorObject> {
        let id = self.upstream.next_id();
        if ctx.progress_token().is_some() {
            params["_meta"] = json!({"progressToken": id});
        }
        let mut registered = self.calls.open(id, ctx.clone());
        let call = Arc::clone(&registered.call);
        let answer = self.upstream.request_with_id(id, method, params);
        let (cancelled, awaiting_client) = (ctx.cancelled(), call.awaiting_client());
        tokio::pin!(answer, cancelled, awaiting_client);
        let answer = loop {
            tokio::select! {
                answer = &mut answer => break answer,
                Some(progress) = registered.progress.recv() => calls::relay_progress(ctx, &progress).await,
                () = &mut cancelled => {
                    self.upstream.cancel(id, "cancelled by the client").await;
                    break Err(ErrorObject::internal("cancelled"));
                }
                () = &mut awaiting_client => {
                    // The client answers in its next round, and the call
                    // is made again then (see the `calls` module).
                    self.upstream.cancel(id, "the client is asked for input first").await;
                    break Err(ErrorObject::internal("waiting for the client's input"));
                }
            }
        };
        // Progress that came before the answer goes out before it.
        while let Ok(progress) = registered.progress.try_recv() {
            calls::relay_progress(ctx, &progress).await;
        }
        answer
    }

    /// Follows the upstream's changes on `server` (which should serve only
    /// this proxy's items: lists are replaced wholesale): list changes are
    /// re-listed and announced, resource updates passed on. Runs until the
    /// upstream goes away.
    pub fn follow(&self, server: Server) -> tokio::task::JoinHandle<()> {
        let proxy = self.clone();
        let mut notifications = self.upstream.notifications();
        tokio::spawn(async move {
            loop {
                let note = match notifications.recv().await {
                    Ok(note) => note,
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
                };
                if let Err(e) = proxy.apply(&server, &note).await {
                    tracing::warn!(error = %e, "could not follow an upstream change");
                }
            }
        })
    }

    async fn apply(&self, server: &Server, note: &Value) -> Result<(), Error> {
        match note["method"].as_str().unwrap_or_default() {
            "notifications/tools/list_changed" => {
                server.replace_tools(self.tools().await?)?;
            }
            "notifications/prompts/list_changed" => {
                server.replace_prompts(self.prompts().await?)?;
            }
            "notifications/resources/list_changed" => {
                let before = self.resources.lock().expect("resources lock").clone();
                let resources = self.resources().await?;
                let now = self.resources.lock().expect("resources lock").clone();
                let gone: Vec<String> = before.difference(&now).cloned().collect();
                server.update_resources(resources, &gone)?;
                server.replace_resource_templates(self.resource_templates().await?)?;
            }
            "notifications/resources/updated" => {
                if let Some(uri) = note["params"]["uri"].as_str() {
                    server.notify_resource_updated(uri);
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// Completion of one prompt argument or template variable, asked upstream.
struct Forwarded {
    proxy: Proxy,
    reference: CompletionReference,
}

impl Completer for Forwarded {
    fn complete(
        &self,
        request: CompletionRequest,
        ctx: RequestContext,
    ) -> BoxFuture<'static, Result<Vec<String>, HandlerError>> {
        let proxy = self.proxy.clone();
        let params = CompleteParams {
            reference: self.reference.clone(),
            argument: CompletionArgument { name: request.argument, value: request.value },
            context: Some(CompletionContext { arguments: Some(request.context) }),
        };
        Box::pin(async move {
            let result = proxy.call::<methods::Complete>(&ctx, params).await.map_err(handler_error)?;
            Ok(result.completion.values)
        })
    }
}

/// An upstream error as this server's: its not-found becomes ours (spelled
/// for the client's revision), anything else passes through.
fn handler_error(error: ErrorObject) -> HandlerError {
    if error.code.0 == -32002 { HandlerError::NotFound } else { HandlerError::Rpc(error) }
}

fn decode<T: DeserializeOwned>(value: Value) -> Result<T, ErrorObject> {
    serde_json::from_value(value)
        .map_err(|e| ErrorObject::internal(format!("the upstream server's result is unreadable: {e}")))
}

/// The variable names of an RFC 6570 template.
fn template_variables(template: &str) -> Vec<String> {
    switchboard_server::uri_template::UriTemplate::parse(template)
        .map(|t| t.variables().map(str::to_owned).collect())
        .unwrap_or_default()
}
