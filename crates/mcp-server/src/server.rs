//! The server: its registries and options, and the connection loop that
//! drives one transport.
//!
//! The connection loop reads frames in order on one task, finishes
//! notifications and protocol errors inline, and spawns each request that
//! reaches a handler as its own task, so a slow handler never holds up the
//! next line. One writer task owns the output and writes each serialized
//! message followed by a newline. On end of input the loop stops reading,
//! lets requests in flight finish for [`ServerOptions::shutdown_grace`],
//! cancels the rest, flushes and returns.

use std::sync::Arc;

use mcp_types::content::Icon;
use mcp_types::jsonrpc::encode_error;
use mcp_types::{ErrorObject, Implementation};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use crate::context::{Outbound, Principal};
use crate::dispatch::Accepted;
use crate::error::Result;
use crate::options::ServerOptions;
use crate::registry::ToolRegistry;
use crate::session::Session;
use crate::tool::Tool;
use crate::transport::{Frame, FrameReader, FrameWriter, Transport};

pub(crate) struct ServerInner {
    pub info: Implementation,
    /// `info` pre-rendered for 2026-07-28 results' `_meta`.
    pub modern_info: Value,
    pub instructions: Option<String>,
    pub options: ServerOptions,
    pub tools: ToolRegistry,
    pub tools_enabled: bool,
}

/// An MCP server. Cheap to clone: clones share registries and options.
#[derive(Clone)]
pub struct Server {
    pub(crate) inner: Arc<ServerInner>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("info", &self.inner.info).finish_non_exhaustive()
    }
}

/// Builds a [`Server`].
#[derive(Debug)]
#[must_use]
pub struct ServerBuilder {
    info: Implementation,
    instructions: Option<String>,
    options: ServerOptions,
    tools: Vec<Tool>,
    tools_enabled: bool,
}

impl ServerBuilder {
    /// Display name (2025-06-18 and later clients).
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.info.title = Some(title.into());
        self
    }

    /// Description (2025-11-25 and later clients).
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.info.description = Some(description.into());
        self
    }

    /// Home page (2025-11-25 and later clients).
    pub fn website_url(mut self, url: impl Into<String>) -> Self {
        self.info.website_url = Some(url.into());
        self
    }

    /// Adds an icon (2025-11-25 and later clients).
    pub fn icon(mut self, icon: Icon) -> Self {
        self.info.icons.get_or_insert_with(Vec::new).push(icon);
        self
    }

    /// Instructions for the model, returned by `initialize` and `server/discover`.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Replaces the options.
    pub fn options(mut self, options: ServerOptions) -> Self {
        self.options = options;
        self
    }

    /// Registers a tool (checked when [`ServerBuilder::build`] runs).
    pub fn tool(mut self, tool: Tool) -> Self {
        self.tools.push(tool);
        self
    }

    /// Advertises the `tools` capability even with no tool registered yet,
    /// for servers that add tools at run time.
    pub fn enable_tools(mut self) -> Self {
        self.tools_enabled = true;
        self
    }

    /// Builds the server. Fails on a bad or duplicate tool name, a tool
    /// without a handler, or a schema that does not compile.
    pub fn build(self) -> Result<Server> {
        let tools = ToolRegistry::new();
        let tools_enabled = self.tools_enabled || !self.tools.is_empty();
        for tool in self.tools {
            tools.add(tool)?;
        }
        let modern_info = serde_json::to_value(&self.info).expect("Implementation serializes; qed");
        Ok(Server {
            inner: Arc::new(ServerInner {
                info: self.info,
                modern_info,
                instructions: self.instructions,
                options: self.options,
                tools,
                tools_enabled,
            }),
        })
    }
}

impl Server {
    /// Starts building a server that calls itself `name` `version`.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder {
            info: Implementation::new(name, version),
            instructions: None,
            options: ServerOptions::default(),
            tools: Vec::new(),
            tools_enabled: false,
        }
    }

    /// The server's identity.
    pub fn info(&self) -> &Implementation {
        &self.inner.info
    }

    /// The options in force.
    pub fn options(&self) -> &ServerOptions {
        &self.inner.options
    }

    /// Registers a tool at run time. Connected clients that finished the
    /// handshake receive `notifications/tools/list_changed`.
    pub fn add_tool(&self, tool: Tool) -> Result<()> {
        self.inner.tools.add(tool)
    }

    /// Removes a tool at run time; true if it existed. Emits
    /// `notifications/tools/list_changed` like [`Server::add_tool`].
    pub fn remove_tool(&self, name: &str) -> bool {
        self.inner.tools.remove(name)
    }

    /// The registered tools' definitions, in listing order.
    pub fn tools(&self) -> Vec<mcp_types::Tool> {
        self.inner.tools.load().tools.values().map(|e| e.def.clone()).collect()
    }

    /// A new session whose outgoing messages go to `outbound`. Transports
    /// call this once per connection.
    pub fn new_session(&self, outbound: Outbound, principal: Option<Principal>) -> Arc<Session> {
        Arc::new(Session::new(outbound, principal))
    }

    /// Serves one connection until its input ends.
    pub async fn serve<T: Transport>(&self, transport: T) -> Result<()> {
        let (mut reader, writer) = transport.split();
        let (tx, rx) = mpsc::channel::<Vec<u8>>(self.inner.options.outbound_queue.max(1));
        let writer_task = tokio::spawn(write_loop(writer, rx));
        let session = self.new_session(tx.clone(), None);
        let mut changes = self.inner.tools.subscribe();
        let mut tasks = JoinSet::new();
        let read_result = loop {
            tokio::select! {
                frame = reader.next_frame() => match frame {
                    Ok(Some(Frame::Message(bytes))) => match self.accept(&session, &bytes) {
                        Accepted::Done(Some(reply)) => {
                            if tx.send(reply).await.is_err() { break Ok(()); }
                        }
                        Accepted::Done(None) => {}
                        Accepted::Pending(fut) => {
                            let tx = tx.clone();
                            tasks.spawn(async move {
                                if let Some(reply) = fut.await {
                                    let _ = tx.send(reply).await;
                                }
                            });
                        }
                    },
                    Ok(Some(Frame::TooLarge { limit })) => {
                        let error = ErrorObject::invalid_request(format!(
                            "message larger than the {limit}-byte limit was discarded"
                        ));
                        if tx.send(encode_error(None, &error)).await.is_err() { break Ok(()); }
                    }
                    Ok(None) => break Ok(()),
                    Err(e) => break Err(e),
                },
                change = changes.recv() => match change {
                    Ok(change) => session.notify_list_changed(change).await,
                    // Missed some changes: one notification covers them all.
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                        session.notify_list_changed(crate::registry::ListChanged::Tools).await;
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => {}
                },
                Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
            }
        };
        // Input ended: let requests in flight finish, within the grace period.
        let grace = self.inner.options.shutdown_grace;
        let drained = tokio::time::timeout(grace, async { while tasks.join_next().await.is_some() {} }).await;
        if drained.is_err() {
            tracing::warn!(
                remaining = tasks.len(),
                ?grace,
                "cancelling requests still running after input closed"
            );
            session.cancel_all();
            tasks.shutdown().await;
        }
        drop(session);
        drop(tx);
        let write_result = writer_task.await.unwrap_or(Ok(()));
        read_result?;
        write_result?;
        Ok(())
    }

    /// Serves the process's stdin and stdout (newline-delimited JSON).
    pub async fn serve_stdio(&self) -> Result<()> {
        self.serve(crate::transport::stdio(self.inner.options.max_message_size)).await
    }
}

async fn write_loop<W: FrameWriter>(mut writer: W, mut rx: mpsc::Receiver<Vec<u8>>) -> std::io::Result<()> {
    while let Some(frame) = rx.recv().await {
        writer.write_frame(&frame).await?;
        // Flush only when nothing else is waiting, so bursts share a syscall.
        while let Ok(more) = rx.try_recv() {
            writer.write_frame(&more).await?;
        }
        writer.flush().await?;
    }
    writer.flush().await
}
