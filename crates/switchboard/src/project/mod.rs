//! A project: everything one configuration serves, built and checked.
//!
//! [`Project::load`] reads the configuration and builds every registration
//! it names (file resources, prompts, tools) without touching a running
//! server, collecting *every* problem on the way, so `switchboard check` reports
//! all of them at once and a hot reload can refuse an invalid edit while
//! the running server keeps the last good project. [`Project::apply`] then
//! swaps a running server's registrations over to a newer project with one
//! announcement per list that changed.
//!
//! Prompt files are the one place where what counts as a problem depends
//! on where the configuration came from ([`PromptPolicy`]): with no
//! `switchboard.toml`, switchboard is pointed at someone's folder as it is, so
//! a `prompts/` folder made for another tool must not stop it; what it
//! leaves out becomes a [`Project::notes`] line on stderr instead.

pub(crate) mod apps;
pub(crate) mod databases;
pub(crate) mod live;
pub(crate) mod network;
mod paths;
pub(crate) mod roots;
pub(crate) mod sandbox;
mod secrets;
pub(crate) mod skills;
mod source;
pub(crate) mod upstreams;

pub(crate) use source::{Source, unservable_folder};

use std::path::{Path, PathBuf};

use switchboard_config::{Config, Problem};
use switchboard_files::{FileResources, FileSource, ServedTree};
use switchboard_git::GitResources;
use switchboard_prompts::{LoadedDir, PromptError, PromptFile, SkipReason};
use switchboard_proxy::Owned;
use switchboard_server::{Prompt, Resource, ResourceTemplate, Server, ServerBuilder, ServerOptions, Tool};

/// Everything a configuration serves.
pub(crate) struct Project {
    pub config: Config,
    pub files: Option<FileResources>,
    /// What the server lists as the files: one source for the server's
    /// life, pointed at `files` by [`Project::serve`] and each reload.
    pub file_source: FileSource,
    pub tools: Vec<Tool>,
    pub prompts: Vec<Prompt>,
    /// Resources that are not files (fixed URIs).
    pub resources: Vec<Resource>,
    pub templates: Vec<ResourceTemplate>,
    pub prompts_dir: Option<PathBuf>,
    pub git: Option<GitResources>,
    /// `[http.auth]`, checked.
    pub auth: Option<switchboard_http::AuthOptions>,
    /// The prompt files served (their prompts are in `prompts` until
    /// [`Project::serve`] takes them), kept for the next reload.
    pub prompt_files: Vec<PromptFile>,
    /// What was left out without being a problem, one placed line each:
    /// with no `switchboard.toml`, the files of the prompts folder that are
    /// not prompt files and the prompt files that do not load. They are
    /// logged as warnings when the project loads; `check` may print them.
    pub notes: Vec<Problem>,
    /// What was left out because a secret it needs is not set (an HTTP
    /// tool, an OpenAPI entry, an upstream), and what is wrong with the
    /// `env_file`, one placed line each (see `crate::secrets`). They are
    /// in `notes` too (logged, and told to clients on a reload); `check`
    /// reports them as problems.
    pub left_out: Vec<Problem>,
    /// The skills folder, when one is in use (see `crate::skills`).
    pub skills: Option<skills::ProjectSkills>,
    /// The views of the apps folder and the built-in ones (see `crate::apps`).
    pub views: apps::Views,
    /// What `switchboard list` says about the sandbox of the command tools
    /// (see `crate::sandbox`); `None` without command tools.
    pub sandbox: Option<serde_json::Value>,
    /// `[[upstreams]]`, resolved (environment read, folders checked).
    pub upstreams: Vec<switchboard_proxy::UpstreamConfig>,
    /// The upstreams' supervisor once [`Project::serve`] built the server
    /// (started by [`Project::start_upstreams`]; a reload hands it on).
    pub gateway: Option<switchboard_proxy::Gateway>,
    /// `[[databases]]` and `[[tools.sql]]`, resolved, and with no
    /// `switchboard.toml` the SQLite files found among the served files
    /// ([`Project::detect_databases`]).
    pub sql: databases::Planned,
    /// What keeps the databases open and makes their tools and resources:
    /// one per running server, handed on by a reload like `gateway`
    /// (started by [`Project::start_databases`]).
    pub databases: switchboard_sql::serve::Databases,
}

/// What a reload carries over from the project in force.
#[derive(Clone, Default)]
pub(crate) struct Carried {
    prompt_files: Vec<PromptFile>,
    notes: Vec<Problem>,
}

impl Project {
    /// Loads the configuration for `dir` (or `explicit`) and builds it,
    /// noting on stderr what was left out (see [`Project::notes`]).
    /// The file index is left empty: [`Project::scan_files`] fills it.
    pub fn load(dir: &Path, explicit: Option<&Path>) -> Result<Self, Vec<Problem>> {
        Self::reload(dir, explicit, &Carried::default())
    }

    /// [`Project::load`] for a project that replaces a running one: a
    /// prompt file that no longer loads keeps its last good version from
    /// `carried` (zero-config; with a configuration file it is a problem),
    /// and only the notes that `carried` did not have are logged again.
    pub fn reload(dir: &Path, explicit: Option<&Path>, carried: &Carried) -> Result<Self, Vec<Problem>> {
        Self::reload_with_roots(dir, explicit, &[], carried)
    }

    /// [`Project::reload`] serving `roots` instead of the configuration's
    /// `[[files.roots]]` (the client's roots, see `roots.rs`); empty:
    /// the configuration's own.
    pub fn reload_with_roots(
        dir: &Path,
        explicit: Option<&Path>,
        roots: &[switchboard_files::RootSpec],
        carried: &Carried,
    ) -> Result<Self, Vec<Problem>> {
        let mut config = Config::load(dir, explicit).map_err(|mut problems| {
            // Every problem in one run: the prompt files and skills too.
            problems.extend(Config::fallback(dir, explicit).map(named_file_problems).unwrap_or_default());
            problems
        })?;
        if !roots.is_empty() {
            config.files.roots = roots.to_vec();
        }
        let project = Self::build(config, &carried.prompt_files)?;
        for note in project.new_notes(&carried.notes) {
            tracing::warn!("{note}");
        }
        Ok(project)
    }

    /// What a reload needs from this project (see [`Project::reload`]).
    pub fn carried(&self) -> Carried {
        Carried { prompt_files: self.prompt_files.clone(), notes: self.notes.clone() }
    }

    /// The notes of this project that `before` did not have.
    pub fn new_notes<'a>(&'a self, before: &'a [Problem]) -> impl Iterator<Item = &'a Problem> + 'a {
        self.notes.iter().filter(move |note| !before.contains(note))
    }

    /// Scans the served files (blocking; milliseconds for a project, long
    /// for a whole disk: `serve` runs it in the background).
    pub fn scan_files(&self) {
        if let Some(files) = &self.files {
            files.rescan(&switchboard_files::WatchBatch::default());
        }
    }

    /// Builds everything `config` names; every problem is reported. A
    /// prompt file that no longer loads keeps its version in `last_good`
    /// when the policy allows it ([`PromptPolicy::Lenient`]).
    fn build(config: Config, last_good: &[PromptFile]) -> Result<Self, Vec<Problem>> {
        let mut problems = Vec::new();
        // The folder's one access policy: the file resources, the file
        // tools, command-tool path arguments and git paths all consult it.
        let tree = match ServedTree::with_protected(config.dir(), &config.files, protected_paths(&config)) {
            Ok(tree) => Some(
                tree.never_serving(paths::never_served_paths(&config))
                    .protecting_views(apps::watched_dir(&config)),
            ),
            Err(e) => {
                problems.push(config.problem(format!("[files]: {e}")));
                None
            }
        };
        let files = tree.clone().filter(|_| config.files.enabled).map(FileResources::unscanned);
        // The `file:///{+path}` template is added by `serve`/`apply` from the
        // file index in force (the one the watcher keeps current).
        let mut templates = Vec::new();
        let mut resources = Vec::new();
        let git = if config.git.enabled {
            match GitResources::discover(config.dir(), config.git.clone()) {
                Ok(git) => git,
                Err(e) => {
                    problems.push(config.problem(format!("[git]: {e}")));
                    None
                }
            }
        } else {
            None
        };
        // History shows only what the tree would serve now at that path:
        // name rules and ignore files (no .env, no .git, nothing ignored).
        // The git write tools change only what the model may write.
        let git = git.zip(tree.clone()).map(|(git, tree)| {
            let rules = tree.history_rules();
            let writes = rules.clone();
            let workdir = git.workdir().canonicalize().unwrap_or_else(|_| git.workdir().to_path_buf());
            let writes_in = workdir.clone();
            git.restrict_paths(move |p| rules.permits_in_workdir(&workdir, p))
                .restrict_writes(move |p| writes.writable_in_workdir(&writes_in, p))
        });
        if let Some(git) = &git {
            resources.extend(git.resources());
            templates.extend(git.templates());
        }
        // The secrets' file first: the tools read their headers from it.
        let mut left_out = secrets::load_env_file(&config);
        let sandbox = sandbox::Plan::of(&config);
        // The views before the tools: a tool names its view.
        let mut view_notes = Vec::new();
        let views = apps::Views::load(&config, tree.as_ref(), &mut problems, &mut view_notes);
        let tools = match &tree {
            Some(tree) => {
                build_tools(&config, tree, git.as_ref(), &sandbox, &views, &mut problems, &mut left_out)
            }
            None => Vec::new(),
        };
        resources.extend(views.resources());
        if views.builtin {
            templates.push(apps::builtin_views());
        }
        let auth = network::auth_options(&config, &mut problems);
        let prompts_dir = config.prompts_dir();
        let loaded = match &prompts_dir {
            Some(dir) => PromptPolicy::of(&config).load(dir, last_good),
            None => LoadedPrompts::default(),
        };
        problems.extend(loaded.problems);
        let mut notes = loaded.notes;
        notes.extend(view_notes);
        notes.extend(sandbox.notes(&config));
        let sandbox = sandbox.summary(&config);
        let skills = tree
            .as_ref()
            .and_then(|tree| skills::ProjectSkills::load(&config, tree, &mut problems, &mut notes));
        let prompts = served_prompts(&config, &loaded.files);
        let upstreams = upstreams::configs(&config, &views, &mut problems, &mut left_out);
        let sql = databases::plan(&config, &mut problems, &mut left_out);
        check_sql_views(&config, &views, &mut problems);
        if !problems.is_empty() {
            return Err(problems);
        }
        notes.extend(left_out.iter().cloned());
        // Served anyway (the model never reads the file), but `check` refuses them.
        notes.extend(config.literal_credentials().iter().cloned());
        Ok(Self {
            config,
            files,
            file_source: FileSource::default(),
            tools,
            prompts,
            resources,
            templates,
            prompts_dir,
            git,
            auth,
            prompt_files: loaded.files,
            notes,
            left_out,
            skills,
            views,
            sandbox,
            upstreams,
            gateway: None,
            sql,
            databases: switchboard_sql::serve::Databases::new(),
        })
    }

    /// Starts (or, after a reload, brings in line) the upstreams of this
    /// project on the server [`Project::serve`] built. Needs a Tokio runtime.
    pub fn start_upstreams(&self) {
        if let Some(gateway) = &self.gateway {
            gateway.set_upstreams(self.upstreams.clone());
        }
    }

    /// Opens (or, after a reload, brings in line) the databases of this
    /// project in the background. Needs a Tokio runtime.
    pub fn start_databases(&self) {
        self.databases.set(self.sql.databases.clone(), self.sql.tools.clone());
    }

    /// Zero-config (no configuration file): the SQLite files among the
    /// files in force (`files`, else this project's scan) become read-only
    /// databases (see `databases::detect`). Run after the scan, so
    /// `initialize` never waits for it.
    pub fn detect_databases(&mut self, files: Option<&FileResources>) {
        if self.config.path().is_some() {
            return;
        }
        let Some(files) = files.or(self.files.as_ref()) else { return };
        self.sql = databases::detect(&files.scanned_files());
    }

    /// Waits until every database was tried once, for at most `limit`
    /// (`None`: each one's connect timeout): `list`, `call` and the first
    /// lists of `serve` show them.
    pub async fn wait_databases(&self, limit: Option<std::time::Duration>) {
        if self.sql.is_empty() {
            return;
        }
        let wait = databases::open_wait(&self.sql);
        let deadline = tokio::time::Instant::now() + limit.map_or(wait, |limit| limit.min(wait));
        while self
            .databases
            .statuses()
            .iter()
            .any(|s| s.state == switchboard_sql::serve::DatabaseState::Connecting)
            && tokio::time::Instant::now() < deadline
        {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }

    /// A server builder with this project's identity and `options`.
    fn builder(&self, options: ServerOptions) -> ServerBuilder {
        let options = network::server_options(&self.config.limits, options);
        let section = &self.config.server;
        let name = section.name.clone().unwrap_or_else(|| "switchboard".to_owned());
        let version = section.version.clone().unwrap_or_else(|| env!("CARGO_PKG_VERSION").to_owned());
        let mut builder = Server::builder(name, version).options(options).enable_logging();
        if let Some(title) = &section.title {
            builder = builder.title(title);
        }
        if let Some(description) = &section.description {
            builder = builder.description(description);
        }
        if let Some(url) = &section.website_url {
            builder = builder.website_url(url);
        }
        // Rows a model reads may hold text written to steer it: say once
        // that they are data (each result says so too).
        let instructions = match (&section.instructions, self.sql.is_empty()) {
            (Some(own), false) => Some(format!("{own}\n\n{}", databases::INSTRUCTIONS)),
            (None, false) => Some(databases::INSTRUCTIONS.to_owned()),
            (own, true) => own.clone(),
        };
        if let Some(instructions) = instructions {
            builder = builder.instructions(instructions);
        }
        // A hot reload may add tools or prompts to a project that had none,
        // or views (a page saved into the apps folder): offer the
        // capabilities (with listChanged) and the extension from the start.
        let builder = if self.config.apps.enabled { builder.enable_apps() } else { builder };
        builder.enable_tools().enable_prompts().enable_resources()
    }

    /// A server serving this project. The registrations move into the
    /// server; `self` keeps the configuration and the file index.
    /// Builds the server; `wrap` adds what the command line asks for
    /// (e.g. the metrics layer).
    pub fn serve(
        &mut self,
        options: ServerOptions,
        wrap: impl FnOnce(switchboard_server::ServerBuilder) -> switchboard_server::ServerBuilder,
    ) -> anyhow::Result<Server> {
        let mut builder = wrap(self.builder(options));
        self.take_database_items();
        for tool in std::mem::take(&mut self.tools) {
            builder = builder.tool(tool);
        }
        for prompt in std::mem::take(&mut self.prompts) {
            builder = builder.prompt(prompt);
        }
        for resource in std::mem::take(&mut self.resources) {
            builder = builder.resource(resource);
        }
        // The files are listed from the index, not registered one by one.
        self.file_source.set(self.files.clone());
        builder = builder.resource_source(std::sync::Arc::new(self.file_source.clone()));
        if let Some(files) = &self.files {
            builder = builder.resource_template(files.template());
        }
        for template in std::mem::take(&mut self.templates) {
            builder = builder.resource_template(template);
        }
        if let Some(skills) = &mut self.skills {
            builder = skills.register(builder);
        }
        let server = builder.build()?;
        self.gateway = Some(switchboard_proxy::Gateway::new(server.clone()));
        self.databases.attach(&server);
        Ok(server)
    }

    /// Adds the tools, resources and templates of the databases open now
    /// to this project's (what [`Project::serve`] and [`Project::apply`]
    /// register).
    fn take_database_items(&mut self) {
        let items = self.databases.items();
        // `check` places the clashes the file shows; one only known now
        // (an OpenAPI operation's name) keeps the project's own tool.
        let taken: std::collections::HashSet<String> =
            self.tools.iter().map(|t| t.name().to_owned()).collect();
        let (clashing, tools): (Vec<Tool>, Vec<Tool>) =
            items.tools.into_iter().partition(|t| taken.contains(t.name()));
        for tool in clashing {
            tracing::warn!(
                tool = tool.name(),
                "a database tool has the name of another tool and is left out"
            );
        }
        let tools: Vec<Tool> = tools
            .into_iter()
            .map(|tool| {
                let view = self.database_tool_view(tool.name());
                let visibility = self
                    .sql
                    .tools
                    .iter()
                    .find(|spec| spec.name == tool.name())
                    .and_then(|spec| spec.visibility.clone());
                match (view, visibility) {
                    (Some(uri), Some(visibility)) => tool.ui(uri).visibility(&visibility),
                    (Some(uri), None) => tool.ui(uri),
                    (None, _) => tool,
                }
            })
            .collect();
        self.tools.extend(tools);
        self.resources.extend(items.resources);
        self.templates.extend(items.templates);
    }

    /// A database tool with its view: a `[[tools.sql]]` tool's `ui` (checked
    /// when the project loaded), else, with `[apps] builtin`, the built-in
    /// table for the tools that return rows (the query tools and the read
    /// `[[tools.sql]]` tools).
    fn database_tool_view(&self, tool: &str) -> Option<String> {
        match self.sql.tools.iter().find(|spec| spec.name == tool) {
            Some(spec) => match &spec.ui {
                Some(name) => self.views.uri(name).map(str::to_owned),
                None => (self.views.builtin && spec.access == switchboard_sql::Access::Read)
                    .then(|| apps::TABLE_VIEW.to_owned()),
            },
            None => self.views.builtin.then(|| apps::TABLE_VIEW.to_owned()),
        }
    }

    /// Moves a running `server` (serving `old`) over to this project: tools,
    /// prompts, templates and resources are replaced, each list announced
    /// once if it visibly changed. Returns what the server identity section
    /// changed that needs a restart, if anything.
    pub fn apply(mut self, old: &Project, server: &Server) -> anyhow::Result<(Project, Option<String>)> {
        // The upstreams' items stay (the gateway owns them); a local item
        // that takes an upstream's name wins, and freed names go back to
        // the upstreams.
        self.gateway = old.gateway.clone();
        self.file_source = old.file_source.clone();
        // The databases stay open across reloads: the same ones are kept,
        // and what is open now is registered with the rest.
        self.databases = old.databases.clone();
        let kept_files = (old.config.files == self.config.files && old.config.dir() == self.config.dir())
            .then(|| old.files.clone())
            .flatten();
        self.detect_databases(kept_files.as_ref());
        self.start_databases();
        self.take_database_items();
        match self.gateway.clone() {
            Some(gateway) => gateway.with_local(|owned| match self.apply_local(old, server, owned) {
                Ok(local) => (local, Ok(())),
                Err(e) => (Owned::default(), Err(e)),
            })?,
            None => {
                self.apply_local(old, server, &Owned::default())?;
            }
        }
        self.start_upstreams();
        // With no configuration file on either side, only the name taken
        // from the folder can differ (a client's roots moved it): nothing
        // a restart would be needed for.
        let zero_config = old.config.path().is_none() && self.config.path().is_none();
        let changed: Vec<&str> = [
            // The env_file is read again on every reload: no restart.
            ("[server]", identity(&old.config) != identity(&self.config) && !zero_config),
            ("[limits]", old.config.limits != self.config.limits),
            ("[http]", old.config.http != self.config.http),
        ]
        .into_iter()
        .filter_map(|(name, changed)| changed.then_some(name))
        .collect();
        let restart = (!changed.is_empty())
            .then(|| format!("{} changed; restart switchboard for that to take effect", changed.join(", ")));
        let skills = skills::ProjectSkills::adopt(self.skills.as_mut(), old.skills.as_ref(), server);
        let restart = match (restart, skills) {
            (Some(changed), Some(skills)) => Some(format!("{changed}; {skills}")),
            (changed, skills) => changed.or(skills),
        };
        Ok((self, restart))
    }

    /// Moves the server's own items (not the upstreams', in `owned`) over
    /// to this project's; returns the keys it put on the server.
    fn apply_local(&mut self, old: &Project, server: &Server, owned: &Owned) -> anyhow::Result<Owned> {
        let mut local = Owned::default();
        let tools = std::mem::take(&mut self.tools);
        local.tools = tools.iter().map(|t| t.name().to_owned()).collect();
        let gone = |present: Vec<String>,
                    keep: &std::collections::BTreeSet<String>,
                    theirs: &std::collections::BTreeSet<String>|
         -> Vec<String> {
            present.into_iter().filter(|k| !keep.contains(k) && !theirs.contains(k)).collect()
        };
        let removals = gone(server.tools().into_iter().map(|t| t.name).collect(), &local.tools, &owned.tools);
        server.update_tools(tools, &removals)?;
        let prompts = std::mem::take(&mut self.prompts);
        local.prompts = prompts.iter().map(|p| p.name().to_owned()).collect();
        let removals =
            gone(server.prompts().into_iter().map(|p| p.name).collect(), &local.prompts, &owned.prompts);
        server.update_prompts(prompts, &removals)?;
        // Files: keep the running index when the [files] section and the
        // folder are the same (the watcher keeps it current); otherwise swap
        // to the new scan (a client's roots moved the folder).
        let upserts = std::mem::take(&mut self.resources);
        let keep: std::collections::HashSet<String> = upserts.iter().map(|r| r.uri().to_owned()).collect();
        if old.config.files == self.config.files && old.config.dir() == self.config.dir() {
            self.files = old.files.clone();
        }
        if self.file_source.set(self.files.clone()) {
            server.notify_list_changed(switchboard_server::ListKind::Resources);
        }
        let mut templates: Vec<ResourceTemplate> = self.files.iter().map(FileResources::template).collect();
        templates.append(&mut self.templates);
        local.templates = templates.iter().map(|t| t.uri_template().to_owned()).collect();
        let removals = gone(
            server.resource_templates().into_iter().map(|t| t.uri_template).collect(),
            &local.templates,
            &owned.templates,
        );
        server.update_resource_templates(templates, &removals)?;
        let removals: Vec<String> = server
            .resources()
            .into_iter()
            .map(|r| r.uri)
            .filter(|uri| !keep.contains(uri) && !owned.resources.contains(uri))
            .collect();
        local.resources = upserts.iter().map(|r| r.uri().to_owned()).collect();
        server.update_resources(upserts, &removals)?;
        Ok(local)
    }
}

/// `[server]` without what a reload applies by itself (the `env_file`).
fn identity(config: &Config) -> switchboard_config::ServerSection {
    switchboard_config::ServerSection { env_file: None, ..config.server.clone() }
}

/// The problems of the files `config` (a [`Config::fallback`]) names: its
/// prompt files and skills, as a configuration file reads them.
fn named_file_problems(config: Config) -> Vec<Problem> {
    let mut problems = Vec::new();
    if let Some(dir) = config.prompts_dir() {
        problems.extend(PromptPolicy::Strict.load(&dir, &[]).problems);
    }
    if let Ok(tree) = ServedTree::new(config.dir(), &config.files) {
        skills::ProjectSkills::load(&config, &tree, &mut problems, &mut Vec::new());
    }
    problems
}

/// How strictly the prompts folder is read.
///
/// With no configuration file the folder is whatever the project happens
/// to have in `prompts/` (another tool's templates, a README): nothing in
/// it may stop switchboard from starting, so each file that is not a
/// prompt, or does not load, is a note and is left out. Whoever writes a
/// `switchboard.toml` has chosen this folder for prompts: a file in it
/// that is not one (but a README) or does not load is a problem, and
/// nothing is served until it is fixed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PromptPolicy {
    /// Zero-config: notes, and the rest is served.
    Lenient,
    /// A configuration file: problems, all or nothing.
    Strict,
}

/// The prompt files of a folder under a [`PromptPolicy`].
#[derive(Default)]
struct LoadedPrompts {
    files: Vec<PromptFile>,
    problems: Vec<Problem>,
    notes: Vec<Problem>,
}

impl PromptPolicy {
    fn of(config: &Config) -> Self {
        if config.path().is_none() { Self::Lenient } else { Self::Strict }
    }

    /// Loads `dir`; under [`PromptPolicy::Lenient`] a prompt file that
    /// does not load keeps its version in `last_good` if it has one.
    fn load(self, dir: &Path, last_good: &[PromptFile]) -> LoadedPrompts {
        let loaded = switchboard_prompts::load_dir(dir);
        match self {
            Self::Lenient => lenient(dir, loaded, last_good),
            Self::Strict => {
                LoadedPrompts { problems: strict_problems(&loaded), files: loaded.prompts, notes: Vec::new() }
            }
        }
    }
}

/// Zero-config: everything that is not served becomes a note.
fn lenient(dir: &Path, mut loaded: LoadedDir, last_good: &[PromptFile]) -> LoadedPrompts {
    let mut notes: Vec<Problem> = loaded
        .keep_last_good(last_good)
        .into_iter()
        .map(|(error, kept)| {
            let message = format!(
                "{}; the last good version of prompt {:?} stays in force",
                error.message,
                kept.name()
            );
            placed(&error, message)
        })
        .collect();
    notes.extend(loaded.errors.iter().map(|error| {
        let left_out = if error.path == dir { "no prompt file is served" } else { "this prompt is left out" };
        placed(error, format!("{}; {left_out} until that is fixed", error.message))
    }));
    notes.extend(loaded.skipped.iter().map(|skipped| {
        let message = match skipped.reason {
            SkipReason::Readme => format!("skipped: {}", skipped.reason),
            SkipReason::NoFrontMatter => format!("skipped, not a prompt file: {}", skipped.reason),
        };
        Problem::new(Some(&skipped.path), 1, 1, message)
    }));
    notes.sort_by(|a, b| (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column)));
    LoadedPrompts { files: loaded.prompts, problems: Vec::new(), notes }
}

/// With a configuration file: every error, and every skipped file but a
/// README, is a problem that says how to fix it.
fn strict_problems(loaded: &LoadedDir) -> Vec<Problem> {
    let mut problems: Vec<Problem> = loaded.errors.iter().map(|e| placed(e, e.message.clone())).collect();
    problems.extend(loaded.skipped.iter().filter(|s| s.reason != SkipReason::Readme).map(|skipped| {
        let message = format!(
            "not a prompt file: {}; add front matter to make it a prompt, or move it out of the prompts \
             folder",
            skipped.reason
        );
        Problem::new(Some(&skipped.path), 1, 1, message)
    }));
    problems
}

fn placed(error: &PromptError, message: String) -> Problem {
    Problem::new(Some(&error.path), error.line, error.column, message)
}

/// The prompts to serve: the files', then the built-in ones that no file
/// replaces (a prompt file named like a built-in prompt replaces it).
fn served_prompts(config: &Config, files: &[PromptFile]) -> Vec<Prompt> {
    let mut prompts: Vec<Prompt> = files.iter().map(PromptFile::to_prompt).collect();
    if config.prompts.enabled && config.prompts.builtin {
        let taken: std::collections::HashSet<&str> = files.iter().map(PromptFile::name).collect();
        prompts
            .extend(switchboard_prompts::builtin_prompts().into_iter().filter(|p| !taken.contains(p.name())));
    }
    prompts
}

/// What the model may never write, whatever the tools: the configuration
/// file in use, `switchboard.toml` where switchboard looks for one, the prompt
/// folders (the configured one and the two zero-config looks for, which
/// need not exist yet), the skills folders (`skills/` and the configured
/// one) and the files command tools run directly
/// ([`switchboard_tools::files_run_by`]). Dotfiles and dot-folders
/// (`.switchboard/`, `.git/`) are refused by the tree itself.
fn protected_paths(config: &Config) -> Vec<PathBuf> {
    let mut paths = paths::configuration_paths(config);
    // What command tools run directly (`./scripts/test.sh`, `python3
    // tools/gen.py`): a model that rewrote one would run its own code the
    // next time the tool is called.
    for spec in &config.tools.command {
        paths.extend(switchboard_tools::files_run_by(spec.get_ref(), config.dir()));
    }
    paths
}

/// The built-in file and git tools and the declared command, HTTP and OpenAPI
/// tools; each problem is placed on the table that caused it.
fn build_tools(
    config: &Config,
    tree: &ServedTree,
    git: Option<&GitResources>,
    sandbox: &sandbox::Plan,
    views: &apps::Views,
    problems: &mut Vec<Problem>,
    left_out: &mut Vec<Problem>,
) -> Vec<Tool> {
    let mut tools = switchboard_tools::file_tools(tree, &config.tools.builtin);
    if views.builtin {
        tools = tools
            .into_iter()
            .map(|tool| if tool.name() == "search" { tool.ui(apps::SEARCH_VIEW) } else { tool })
            .collect();
    }
    // Git tools when the folder is a repository; the writing ones with the file writes.
    tools.extend(git.map(|git| git.tools(config.tools.builtin.write)).unwrap_or_default());
    let mut names: std::collections::HashMap<String, std::ops::Range<usize>> =
        tools.iter().map(|t| (t.name().to_owned(), 0..0)).collect();
    let mut add = |tool: Result<Tool, switchboard_tools::ToolsError>,
                   span: std::ops::Range<usize>,
                   problems: &mut Vec<Problem>| {
        match tool {
            Ok(tool) => {
                if names.contains_key(tool.name()) {
                    problems.push(config.problem_at(
                        span,
                        format!(
                            "tool {:?} is defined twice (or shadows a built-in tool); rename one",
                            tool.name()
                        ),
                    ));
                } else {
                    names.insert(tool.name().to_owned(), span);
                    tools.push(tool);
                }
            }
            Err(e) => problems.push(config.problem_at(span, e.to_string())),
        }
    };
    for (i, spec) in config.tools.command.iter().enumerate() {
        let contained = sandbox.for_tool(spec.get_ref());
        let (ui, visibility) = (spec.get_ref().ui.as_deref(), spec.get_ref().visibility.clone());
        let tool = switchboard_tools::sandboxed_command_tool(spec.get_ref(), tree, contained).map(|tool| {
            views.link(config, tool, ui, visibility, &["tools", "command", &i.to_string()], problems)
        });
        add(tool, spec.span(), problems);
    }
    for (i, spec) in config.tools.http.iter().enumerate() {
        let index = i.to_string();
        let (ui, visibility) = (spec.get_ref().ui.as_deref(), spec.get_ref().visibility.clone());
        let at = ["tools", "http", index.as_str()];
        match switchboard_tools::http_tool(spec.get_ref())
            .map(|tool| views.link(config, tool, ui, visibility, &at, problems))
        {
            Err(e) if e.is_missing_secret() => {
                let key = e.missing_secret_key().into_iter().flatten();
                let at: Vec<&str> = ["tools", "http", &index].into_iter().chain(key).collect();
                left_out.push(secrets::left_out(config, &at, &e.to_string(), "this tool"));
            }
            tool => add(tool, spec.span(), problems),
        }
    }
    for (i, spec) in config.tools.openapi.iter().enumerate() {
        let (ui, visibility) = (spec.get_ref().ui.as_deref(), spec.get_ref().visibility.clone());
        let index = i.to_string();
        let at = ["tools", "openapi", index.as_str()];
        match switchboard_openapi::openapi_tools(spec.get_ref(), config.dir()) {
            Ok(built) => built.into_iter().for_each(|tool| {
                let tool = views.link(config, tool, ui, visibility.clone(), &at, problems);
                add(Ok(tool), spec.span(), problems)
            }),
            Err(e) if e.is_missing_secret() => {
                let index = i.to_string();
                let key = e.missing_secret_key().into_iter().flatten();
                let at: Vec<&str> = ["tools", "openapi", &index].into_iter().chain(key).collect();
                let what = "the tools of this entry are";
                left_out.push(secrets::left_out(config, &at, &e.to_string(), what));
            }
            // A syntax error of the document file is placed in that file.
            Err(e) => problems.push(match e.document_place() {
                Some((file, line, column)) => Problem::new(Some(file), line, column, e.to_string()),
                None => config.problem_at(spec.span(), e.to_string()),
            }),
        }
    }
    tools
}

/// Each `[[tools.sql]]` tool's `ui` names a view of the apps folder, and
/// `visibility` comes with a view (its `ui`, or the built-in table of a
/// read tool) (the tools themselves are made when the
/// database opens: their view is checked here, at the tool's line).
fn check_sql_views(config: &Config, views: &apps::Views, problems: &mut Vec<Problem>) {
    for (i, spec) in config.tools.sql.iter().enumerate() {
        let spec = spec.get_ref();
        let index = i.to_string();
        match (&spec.ui, &spec.visibility) {
            (Some(name), _) if views.uri(name).is_none() => {
                problems.push(config.problem_at_path(&["tools", "sql", &index, "ui"], views.missing(name)))
            }
            // A read tool without `ui` shows the built-in table.
            (None, Some(_)) if !(views.builtin && spec.access == switchboard_sql::Access::Read) => problems
                .push(config.problem_at_path(
                    &["tools", "sql", &index, "visibility"],
                    "visibility applies to a tool with a view: add ui = \"<view name>\" too, or remove it",
                )),
            _ => {}
        }
    }
}
