//! Many upstream servers behind one [`Server`], beside the server's own
//! items: a [`Gateway`] supervises each upstream (connect, follow its
//! changes, notice that it is gone, reconnect with exponential backoff)
//! and keeps the part of the server's lists that the upstreams own in
//! step with what each offers while it is connected.
//!
//! Why the gateway owns only part of the lists: the server's own tools,
//! prompts and resources (a configuration's, a file watcher's) change on
//! their own schedule. The gateway remembers which keys it put there
//! ([`Owned`]) and only ever adds, replaces or removes those
//! ([`Server::update_tools`] and friends), one announcement per list.
//!
//! Name clashes: a key the server already has and the gateway does not
//! own is the server's own item, which wins; between upstreams, the one
//! listed first wins. Each skipped item is logged.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Value, json};
use switchboard_server::Server;
use switchboard_server::types::prompts::Prompt as PromptDef;
use switchboard_server::types::resources::{Resource as ResourceDef, ResourceTemplate as TemplateDef};
use switchboard_server::types::tools::Tool as ToolDef;
use tokio::sync::watch;

use crate::{Error, Mount, Proxy, Upstream};

/// How to reach an upstream.
#[derive(Clone, PartialEq)]
pub enum Transport {
    /// A program speaking MCP on stdin/stdout, in a process group of its own.
    Command {
        /// The program (a path, or a name looked up on `PATH`).
        program: String,
        /// Its arguments.
        args: Vec<String>,
        /// Its whole environment (nothing else is passed on).
        env: Vec<(String, String)>,
        /// Its working directory (`None`: switchboard's).
        cwd: Option<PathBuf>,
    },
    /// A Streamable HTTP endpoint.
    Http {
        /// The endpoint URL.
        url: String,
        /// Headers sent with every request (may carry credentials).
        headers: Vec<(String, String)>,
    },
}

impl std::fmt::Debug for Transport {
    /// Environment and header values are left out: they may be secrets.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Command { program, args, env, cwd } => f
                .debug_struct("Command")
                .field("program", program)
                .field("args", args)
                .field("env", &env.iter().map(|(k, _)| k).collect::<Vec<_>>())
                .field("cwd", cwd)
                .finish(),
            Self::Http { url, headers } => f
                .debug_struct("Http")
                .field("url", url)
                .field("headers", &headers.iter().map(|(k, _)| k).collect::<Vec<_>>())
                .finish(),
        }
    }
}

/// One upstream: where it is, how it is mounted, how it is supervised.
#[derive(Debug, Clone, PartialEq)]
pub struct UpstreamConfig {
    /// Its name (in logs, `list`, `/readyz`).
    pub name: String,
    /// How to reach it.
    pub transport: Transport,
    /// Prefix, filters, overrides.
    pub mount: Mount,
    /// How long one request may wait for its answer.
    pub timeout: Duration,
    /// How long connecting (start, handshake, first lists) may take.
    pub connect_timeout: Duration,
    /// The first wait before reconnecting; doubled after each failure.
    pub backoff_initial: Duration,
    /// The longest wait between two attempts.
    pub backoff_max: Duration,
    /// How often a connected upstream is pinged (a silent one is down).
    pub ping_interval: Duration,
}

impl UpstreamConfig {
    /// An upstream with the default timings: 10 min per request, 30 s to
    /// connect, backoff from 500 ms to 30 s, a ping every 15 s.
    pub fn new(name: impl Into<String>, transport: Transport) -> Self {
        Self {
            name: name.into(),
            transport,
            mount: Mount::default(),
            timeout: Duration::from_secs(600),
            connect_timeout: Duration::from_secs(30),
            backoff_initial: Duration::from_millis(500),
            backoff_max: Duration::from_secs(30),
            ping_interval: Duration::from_secs(15),
        }
    }
}

/// Where an upstream stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum UpstreamState {
    /// Starting or handshaking (first time or after a failure).
    Connecting,
    /// Serving: its items are listed.
    Connected,
    /// Gone or never reached; waiting to try again.
    Down,
}

/// One upstream's state, for `list` and `/readyz`.
#[derive(Debug, Clone, Serialize)]
pub struct UpstreamStatus {
    /// The configured name.
    pub name: String,
    /// connected / connecting / down.
    pub state: UpstreamState,
    /// Why it is down (the last error), if it is or was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The upstream's `serverInfo` name and version, once connected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// Items it serves now (after filters and clashes).
    pub tools: usize,
    /// Prompts it serves now.
    pub prompts: usize,
    /// Resources it serves now.
    pub resources: usize,
    /// Resource templates it serves now.
    #[serde(rename = "resourceTemplates")]
    pub templates: usize,
    /// Connection attempts after the first.
    pub retries: u32,
    /// Whether the first attempt has ended (connected or failed).
    #[serde(skip)]
    pub attempted: bool,
}

/// The keys of each list the gateway put on the server.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Owned {
    /// Tool names.
    pub tools: BTreeSet<String>,
    /// Prompt names.
    pub prompts: BTreeSet<String>,
    /// Resource URIs.
    pub resources: BTreeSet<String>,
    /// Resource template texts.
    pub templates: BTreeSet<String>,
}

/// A key's owner (the connection generation) and its definition.
type Claim = (u64, Value);

#[derive(Default)]
struct Claims {
    tools: HashMap<String, Claim>,
    prompts: HashMap<String, Claim>,
    resources: HashMap<String, Claim>,
    templates: HashMap<String, Claim>,
}

/// What a connected upstream offers (after its mount).
struct Live {
    generation: u64,
    proxy: Proxy,
    tools: Vec<(String, ToolDef)>,
    prompts: Vec<(String, PromptDef)>,
    resources: Vec<ResourceDef>,
    templates: Vec<TemplateDef>,
}

struct Slot {
    id: u64,
    config: UpstreamConfig,
    status: UpstreamStatus,
    live: Option<Live>,
    task: Option<tokio::task::AbortHandle>,
}

#[derive(Default)]
struct State {
    slots: Vec<Slot>,
    claims: Claims,
    next_id: u64,
}

struct Inner {
    server: Server,
    state: Mutex<State>,
    /// Bumped at every status change (for [`Gateway::wait_attempted`]).
    changes: watch::Sender<u64>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        let state = self.state.get_mut().expect("gateway lock");
        for slot in &mut state.slots {
            stop(slot);
        }
    }
}

/// Upstream servers served through one [`Server`]; see the module docs.
/// Cheap to clone.
#[derive(Clone)]
pub struct Gateway {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Gateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gateway").field("upstreams", &self.statuses()).finish()
    }
}

/// Which lists to read again.
#[derive(Debug, Clone, Copy)]
enum Lists {
    All,
    Tools,
    Prompts,
    Resources,
}

impl Gateway {
    /// A gateway with no upstream yet, serving through `server`.
    pub fn new(server: Server) -> Self {
        Self { inner: Arc::new(Inner { server, state: Mutex::default(), changes: watch::channel(0).0 }) }
    }

    /// The server it serves through.
    pub fn server(&self) -> &Server {
        &self.inner.server
    }

    /// Makes the upstreams exactly `configs` (in this order of precedence):
    /// an upstream whose configuration is unchanged keeps running, a
    /// changed one is restarted, a removed one is stopped (its process
    /// group killed) and its items leave the lists. Needs a Tokio runtime.
    pub fn set_upstreams(&self, configs: Vec<UpstreamConfig>) {
        let mut state = self.lock();
        let mut old: Vec<Slot> = std::mem::take(&mut state.slots);
        let mut seen = HashSet::new();
        for config in configs {
            if !seen.insert(config.name.clone()) {
                tracing::warn!(upstream = %config.name, "an upstream of this name is already configured; skipped");
                continue;
            }
            if let Some(i) = old.iter().position(|s| s.config == config) {
                state.slots.push(old.remove(i));
                continue;
            }
            let slot = self.start_slot(&mut state, config, None);
            state.slots.push(slot);
        }
        for mut slot in old {
            tracing::info!(upstream = %slot.config.name, "upstream stopped (configuration changed)");
            stop(&mut slot);
        }
        self.sync(&mut state);
        drop(state);
        self.changed();
    }

    /// Adds `config` supervised from an already connected `proxy` (made
    /// with [`Proxy::connect_mounted`] and `config.mount`): `switchboard
    /// proxy` connects once first to learn the upstream's name.
    pub fn adopt(&self, config: UpstreamConfig, proxy: Proxy) {
        let mut state = self.lock();
        if let Some(i) = state.slots.iter().position(|s| s.config.name == config.name) {
            let mut slot = state.slots.remove(i);
            stop(&mut slot);
        }
        let slot = self.start_slot(&mut state, config, Some(proxy));
        state.slots.push(slot);
        drop(state);
        self.changed();
    }

    fn start_slot(&self, state: &mut State, config: UpstreamConfig, first: Option<Proxy>) -> Slot {
        state.next_id += 1;
        let id = state.next_id;
        let status = UpstreamStatus {
            name: config.name.clone(),
            state: UpstreamState::Connecting,
            error: None,
            server: None,
            tools: 0,
            prompts: 0,
            resources: 0,
            templates: 0,
            retries: 0,
            attempted: false,
        };
        let task = tokio::spawn(supervise(Arc::downgrade(&self.inner), id, config.clone(), first));
        Slot { id, config, status, live: None, task: Some(task.abort_handle()) }
    }

    /// Each upstream's state, in configuration order.
    pub fn statuses(&self) -> Vec<UpstreamStatus> {
        self.lock().slots.iter().map(|s| s.status.clone()).collect()
    }

    /// The keys the upstreams hold in each list now.
    pub fn owned(&self) -> Owned {
        owned(&self.lock().claims)
    }

    /// Runs `change` (which changes the server's own items, given the keys
    /// the upstreams hold) with the lists held still, then lets the
    /// upstreams take the keys that became free. `change` returns the keys
    /// it put on the server: one the upstreams held becomes the server's
    /// own (it wins; logged).
    pub fn with_local<R>(&self, change: impl FnOnce(&Owned) -> (Owned, R)) -> R {
        let mut state = self.lock();
        let (local, result) = change(&owned(&state.claims));
        let all = &mut state.claims;
        for (kind, keys, claims) in [
            ("tool", &local.tools, &mut all.tools),
            ("prompt", &local.prompts, &mut all.prompts),
            ("resource", &local.resources, &mut all.resources),
            ("resource template", &local.templates, &mut all.templates),
        ] {
            for key in keys {
                if claims.remove(key).is_some() {
                    tracing::warn!(kind, key = %key, "a local item replaces an upstream's of the same name");
                }
            }
        }
        self.sync(&mut state);
        drop(state);
        result
    }

    /// Waits (at most `limit`) until every upstream has been tried once.
    pub async fn wait_attempted(&self, limit: Duration) {
        let mut rx = self.inner.changes.subscribe();
        let _ = tokio::time::timeout(limit, async {
            loop {
                if self.lock().slots.iter().all(|s| s.status.attempted) {
                    return;
                }
                if rx.changed().await.is_err() {
                    return;
                }
            }
        })
        .await;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.inner.state.lock().expect("gateway lock")
    }

    fn changed(&self) {
        self.inner.changes.send_modify(|n| *n += 1);
    }

    /// Brings the server's upstream-owned items in line with what each
    /// connected upstream offers, in one update per list.
    fn sync(&self, state: &mut State) {
        let server = &self.inner.server;
        let slots = &state.slots;
        let live = || slots.iter().filter_map(|s| s.live.as_ref().map(|l| (s.config.name.as_str(), l)));

        let present: HashSet<String> = server.tools().into_iter().map(|t| t.name).collect();
        let candidates = live().flat_map(|(n, l)| {
            l.tools.iter().map(move |(remote, def)| (def.name.clone(), n, l, remote, def))
        });
        let (upserts, removals, claims) = plan("tool", &state.claims.tools, &present, candidates);
        let items = upserts.into_iter().map(|(_, l, remote, def)| l.proxy.tool(remote.clone(), def.clone()));
        if let Err(e) = server.update_tools(items.collect(), &removals) {
            tracing::warn!(error = %e, "could not update the upstream tools");
        }
        let tools = claims;

        let present: HashSet<String> = server.prompts().into_iter().map(|p| p.name).collect();
        let candidates = live().flat_map(|(n, l)| {
            l.prompts.iter().map(move |(remote, def)| (def.name.clone(), n, l, remote, def))
        });
        let (upserts, removals, prompts) = plan("prompt", &state.claims.prompts, &present, candidates);
        let items =
            upserts.into_iter().map(|(_, l, remote, def)| l.proxy.prompt(remote.clone(), def.clone()));
        if let Err(e) = server.update_prompts(items.collect(), &removals) {
            tracing::warn!(error = %e, "could not update the upstream prompts");
        }

        let present: HashSet<String> =
            server.resource_templates().into_iter().map(|t| t.uri_template).collect();
        let candidates = live()
            .flat_map(|(n, l)| l.templates.iter().map(move |def| (def.uri_template.clone(), n, l, &(), def)));
        let (upserts, removals, templates) =
            plan("resource template", &state.claims.templates, &present, candidates);
        let items = upserts.into_iter().filter_map(|(_, l, (), def)| l.proxy.template(def.clone()));
        if let Err(e) = server.update_resource_templates(items.collect(), &removals) {
            tracing::warn!(error = %e, "could not update the upstream resource templates");
        }

        let present: HashSet<String> = server.resources().into_iter().map(|r| r.uri).collect();
        let candidates =
            live().flat_map(|(n, l)| l.resources.iter().map(move |def| (def.uri.clone(), n, l, &(), def)));
        let (upserts, removals, resources) = plan("resource", &state.claims.resources, &present, candidates);
        let items = upserts.into_iter().map(|(_, l, (), def)| l.proxy.resource(def.clone()));
        if let Err(e) = server.update_resources(items.collect(), &removals) {
            tracing::warn!(error = %e, "could not update the upstream resources");
        }

        state.claims = Claims { tools, prompts, resources, templates };
        // Each upstream's counts, as served after clashes.
        let generations: HashMap<u64, usize> = state
            .slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.live.as_ref().map(|l| (l.generation, i)))
            .collect();
        let mut counts = vec![[0usize; 4]; state.slots.len()];
        for (k, claims) in
            [&state.claims.tools, &state.claims.prompts, &state.claims.resources, &state.claims.templates]
                .into_iter()
                .enumerate()
        {
            for (generation, _) in claims.values() {
                if let Some(&i) = generations.get(generation) {
                    counts[i][k] += 1;
                }
            }
        }
        for (slot, [tools, prompts, resources, templates]) in state.slots.iter_mut().zip(counts) {
            slot.status.tools = tools;
            slot.status.prompts = prompts;
            slot.status.resources = resources;
            slot.status.templates = templates;
        }
    }

    /// Runs `update` on the slot `id` (if it is still configured) and syncs.
    fn update(&self, id: u64, update: impl FnOnce(&mut Slot)) -> bool {
        let mut state = self.lock();
        let Some(slot) = state.slots.iter_mut().find(|s| s.id == id) else { return false };
        update(slot);
        self.sync(&mut state);
        drop(state);
        self.changed();
        true
    }
}

/// What to upsert and remove in one list, and the new claims: the
/// candidates in precedence order, each as (key, upstream name, live
/// connection, name upstream, definition).
#[allow(clippy::type_complexity)]
fn plan<'a, R: ?Sized, D: Serialize + 'a>(
    kind: &str,
    claims: &HashMap<String, Claim>,
    present: &HashSet<String>,
    candidates: impl Iterator<Item = (String, &'a str, &'a Live, &'a R, &'a D)>,
) -> (Vec<(String, &'a Live, &'a R, &'a D)>, Vec<String>, HashMap<String, Claim>) {
    let mut next: HashMap<String, Claim> = HashMap::new();
    let mut owners: HashMap<String, &str> = HashMap::new();
    let mut upserts = Vec::new();
    for (key, name, live, remote, def) in candidates {
        if let Some(first) = owners.get(&key) {
            tracing::warn!(kind, key = %key, upstream = name, first = first, "the name is taken by another upstream; skipped");
            continue;
        }
        if present.contains(&key) && !claims.contains_key(&key) {
            tracing::warn!(kind, key = %key, upstream = name, "the name is taken by a local item; skipped");
            continue;
        }
        let claim = (live.generation, serde_json::to_value(def).unwrap_or(Value::Null));
        if claims.get(&key) != Some(&claim) {
            upserts.push((key.clone(), live, remote, def));
        }
        owners.insert(key.clone(), name);
        next.insert(key, claim);
    }
    let removals = claims.keys().filter(|k| !next.contains_key(*k)).cloned().collect();
    (upserts, removals, next)
}

fn owned(claims: &Claims) -> Owned {
    Owned {
        tools: claims.tools.keys().cloned().collect(),
        prompts: claims.prompts.keys().cloned().collect(),
        resources: claims.resources.keys().cloned().collect(),
        templates: claims.templates.keys().cloned().collect(),
    }
}

/// Stops a slot's supervisor and its connection (a stdio upstream's
/// process group is killed).
fn stop(slot: &mut Slot) {
    if let Some(task) = slot.task.take() {
        task.abort();
    }
    if let Some(live) = slot.live.take() {
        live.proxy.upstream().shutdown();
    }
}

/// Starts the upstream and runs the handshake (bounded by its connect timeout).
async fn connect(config: &UpstreamConfig) -> Result<Proxy, String> {
    let upstream = match &config.transport {
        Transport::Command { program, args, env, cwd } => {
            let mut command = tokio::process::Command::new(program);
            command.args(args).env_clear().envs(env.iter().map(|(k, v)| (k, v)));
            if let Some(cwd) = cwd {
                command.current_dir(cwd);
            }
            Upstream::from_command(command, program)
        }
        Transport::Http { url, headers } => Upstream::http_with_headers(url, headers),
    }
    .map_err(|e| e.to_string())?
    .with_timeout(config.timeout);
    let handshake = Proxy::connect_mounted(upstream.clone(), config.mount.clone());
    match tokio::time::timeout(config.connect_timeout, handshake).await {
        Ok(Ok(proxy)) => Ok(proxy),
        Ok(Err(e)) => {
            upstream.shutdown();
            Err(e.to_string())
        }
        Err(_) => {
            upstream.shutdown();
            Err(format!("no answer to initialize within {} s", config.connect_timeout.as_secs()))
        }
    }
}

/// Reads the lists `which` of a connected upstream into its slot.
async fn refresh(
    gateway: &Gateway,
    id: u64,
    live: &mut Option<Live>,
    proxy: &Proxy,
    which: Lists,
) -> Result<(), Error> {
    let all = matches!(which, Lists::All);
    let tools =
        if all || matches!(which, Lists::Tools) { Some(proxy.tool_definitions().await?) } else { None };
    let prompts =
        if all || matches!(which, Lists::Prompts) { Some(proxy.prompt_definitions().await?) } else { None };
    let (resources, templates) = if all || matches!(which, Lists::Resources) {
        (Some(proxy.resource_definitions().await?), Some(proxy.template_definitions().await?))
    } else {
        (None, None)
    };
    let mut current = live.take().ok_or_else(|| Error::Upstream("not connected".into()))?;
    if let Some(tools) = tools {
        current.tools = tools;
    }
    if let Some(prompts) = prompts {
        current.prompts = prompts;
    }
    if let Some(resources) = resources {
        current.resources = resources;
    }
    if let Some(templates) = templates {
        current.templates = templates;
    }
    // The slot holds the published copy; this task keeps a shadow to
    // update from (both share the same proxy).
    let published = Live {
        generation: current.generation,
        proxy: current.proxy.clone(),
        tools: current.tools.clone(),
        prompts: current.prompts.clone(),
        resources: current.resources.clone(),
        templates: current.templates.clone(),
    };
    *live = Some(current);
    gateway.update(id, |slot| slot.live = Some(published));
    Ok(())
}

/// One upstream's life: connect, serve until gone, wait, again.
async fn supervise(inner: std::sync::Weak<Inner>, id: u64, config: UpstreamConfig, mut first: Option<Proxy>) {
    static GENERATION: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let mut backoff = config.backoff_initial;
    let mut retries = 0u32;
    loop {
        let Some(gateway) = inner.upgrade().map(|inner| Gateway { inner }) else { return };
        gateway.update(id, |slot| {
            slot.status.state = UpstreamState::Connecting;
            slot.status.retries = retries;
        });
        let connected = match first.take() {
            Some(proxy) => Ok(proxy),
            None => connect(&config).await,
        };
        let mut served_for = Duration::ZERO;
        let reason = match connected {
            Ok(proxy) => {
                let generation = GENERATION.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let info = proxy.upstream_info();
                let server = format!("{} {}", info.name, info.version);
                let mut live = Some(Live {
                    generation,
                    proxy: proxy.clone(),
                    tools: Vec::new(),
                    prompts: Vec::new(),
                    resources: Vec::new(),
                    templates: Vec::new(),
                });
                let since = Instant::now();
                let reason = match refresh(&gateway, id, &mut live, &proxy, Lists::All).await {
                    Ok(()) => {
                        gateway.update(id, |slot| {
                            slot.status.state = UpstreamState::Connected;
                            slot.status.error = None;
                            slot.status.server = Some(server.clone());
                            slot.status.attempted = true;
                        });
                        tracing::info!(upstream = %config.name, server = %server, "upstream connected");
                        drop(gateway);
                        let reason = follow(&inner, id, &config, &proxy, &mut live).await;
                        served_for = since.elapsed();
                        reason
                    }
                    Err(e) => format!("listing what it offers: {e}"),
                };
                proxy.upstream().shutdown();
                reason
            }
            Err(e) => e,
        };
        let Some(gateway) = inner.upgrade().map(|inner| Gateway { inner }) else { return };
        tracing::warn!(upstream = %config.name, error = %reason, retry_in = ?backoff, "upstream down");
        let still = gateway.update(id, |slot| {
            slot.live = None;
            slot.status.state = UpstreamState::Down;
            slot.status.error = Some(reason.clone());
            slot.status.attempted = true;
        });
        drop(gateway);
        if !still {
            return;
        }
        // A connection that served a while starts the backoff over.
        if served_for >= Duration::from_secs(30) {
            backoff = config.backoff_initial;
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(config.backoff_max.max(config.backoff_initial));
        retries = retries.saturating_add(1);
    }
}

/// Follows a connected upstream's changes until it is gone; returns why.
async fn follow(
    inner: &std::sync::Weak<Inner>,
    id: u64,
    config: &UpstreamConfig,
    proxy: &Proxy,
    live: &mut Option<Live>,
) -> String {
    use tokio::sync::broadcast::error::RecvError;
    let upstream = proxy.upstream().clone();
    let mut notes = upstream.notifications();
    let mut ping = tokio::time::interval(config.ping_interval.max(Duration::from_millis(100)));
    ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    ping.tick().await;
    loop {
        let which = tokio::select! {
            reason = upstream.closed() => return reason,
            note = notes.recv() => match note {
                Ok(note) => match note["method"].as_str().unwrap_or_default() {
                    "notifications/tools/list_changed" => Lists::Tools,
                    "notifications/prompts/list_changed" => Lists::Prompts,
                    "notifications/resources/list_changed" => Lists::Resources,
                    "notifications/resources/updated" => {
                        let Some(gateway) = inner.upgrade() else { return "stopped".into() };
                        if let Some(uri) = note["params"]["uri"].as_str() {
                            let ours = gateway.state.lock().expect("gateway lock").claims.resources.contains_key(uri);
                            let local = !ours && gateway.server.resources().iter().any(|r| r.uri == uri);
                            if !local {
                                gateway.server.notify_resource_updated(uri);
                            }
                        }
                        continue;
                    }
                    _ => continue,
                },
                Err(RecvError::Lagged(_)) => Lists::All,
                Err(RecvError::Closed) => return "the upstream connection closed".into(),
            },
            _ = ping.tick() => {
                let answer = tokio::time::timeout(Duration::from_secs(10), upstream.request("ping", json!({}))).await;
                match answer {
                    Ok(Ok(_)) => continue,
                    Ok(Err(e)) if e.code.0 == -32601 => continue,
                    Ok(Err(e)) => return format!("ping failed: {}", e.message),
                    Err(_) => return "no answer to ping within 10 s".into(),
                }
            }
        };
        let Some(gateway) = inner.upgrade().map(|inner| Gateway { inner }) else { return "stopped".into() };
        if let Err(e) = refresh(&gateway, id, live, proxy, which).await {
            if let Some(reason) = upstream.closed_reason() {
                return reason;
            }
            tracing::warn!(upstream = %config.name, error = %e, "could not follow an upstream change");
        }
    }
}
