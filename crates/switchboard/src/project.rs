//! A project: everything one configuration serves, built and checked.
//!
//! [`Project::load`] reads the configuration and builds every registration
//! it names (file resources, prompts, tools) without touching a running
//! server, collecting *every* problem on the way, so `switchboard check` reports
//! all of them at once and a hot reload can refuse an invalid edit while
//! the running server keeps the last good project. [`Project::apply`] then
//! swaps a running server's registrations over to a newer project with one
//! announcement per list that changed.

use std::path::{Path, PathBuf};

use switchboard_config::{Config, Problem};
use switchboard_files::{FileResources, ServedTree};
use switchboard_git::GitResources;
use switchboard_server::{Prompt, Resource, ResourceTemplate, Server, ServerBuilder, ServerOptions, Tool};

/// Everything a configuration serves.
pub(crate) struct Project {
    pub config: Config,
    pub files: Option<FileResources>,
    pub tools: Vec<Tool>,
    pub prompts: Vec<Prompt>,
    /// Resources that are not files (fixed URIs).
    pub resources: Vec<Resource>,
    pub templates: Vec<ResourceTemplate>,
    pub prompts_dir: Option<PathBuf>,
    pub git: Option<GitResources>,
    /// `[http.auth]`, checked.
    pub auth: Option<switchboard_http::AuthOptions>,
}

impl Project {
    /// Loads the configuration for `dir` (or `explicit`) and builds it.
    /// The file index is left empty: [`Project::scan_files`] fills it.
    pub fn load(dir: &Path, explicit: Option<&Path>) -> Result<Self, Vec<Problem>> {
        let config = Config::load(dir, explicit)?;
        Self::build(config)
    }

    /// Scans the served files (blocking; milliseconds for a project, long
    /// for a whole disk: `serve` runs it in the background).
    pub fn scan_files(&self) {
        if let Some(files) = &self.files {
            files.rescan(&switchboard_files::WatchBatch::default());
        }
    }

    /// Builds everything `config` names; every problem is reported.
    pub fn build(config: Config) -> Result<Self, Vec<Problem>> {
        let mut problems = Vec::new();
        // The folder's one access policy: the file resources, the file
        // tools, command-tool path arguments and git paths all consult it.
        let tree = match ServedTree::with_protected(config.dir(), &config.files, protected_paths(&config)) {
            Ok(tree) => Some(tree),
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
        // History shows only what the name rules allow (no .env, no .git).
        let git = git.zip(tree.clone()).map(|(git, tree)| git.restrict_paths(move |p| tree.permits_name(p)));
        if let Some(git) = &git {
            resources.extend(git.resources());
            templates.extend(git.templates());
        }
        let tools = match &tree {
            Some(tree) => build_tools(&config, tree, &mut problems),
            None => Vec::new(),
        };
        let auth = crate::network::auth_options(&config, &mut problems);
        let prompts_dir = config.prompts_dir();
        let mut prompts = Vec::new();
        let mut file_names = std::collections::HashSet::new();
        if let Some(dir) = &prompts_dir {
            let loaded = switchboard_prompts::load_dir(dir);
            problems.extend(
                loaded.errors.into_iter().map(|e| Problem::new(Some(&e.path), e.line, e.column, e.message)),
            );
            for file in loaded.prompts {
                file_names.insert(file.name().to_owned());
                prompts.push(file.to_prompt());
            }
        }
        if config.prompts.enabled && config.prompts.builtin {
            // A prompt file named like a built-in prompt replaces it.
            prompts.extend(
                switchboard_prompts::builtin_prompts().into_iter().filter(|p| !file_names.contains(p.name())),
            );
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(Self { config, files, tools, prompts, resources, templates, prompts_dir, git, auth })
    }

    /// A server builder with this project's identity and `options`.
    fn builder(&self, options: ServerOptions) -> ServerBuilder {
        let options = crate::network::server_options(&self.config.limits, options);
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
        if let Some(instructions) = &section.instructions {
            builder = builder.instructions(instructions);
        }
        // A hot reload may add tools or prompts to a project that had none:
        // offer the capabilities (with listChanged) from the start.
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
        for tool in std::mem::take(&mut self.tools) {
            builder = builder.tool(tool);
        }
        for prompt in std::mem::take(&mut self.prompts) {
            builder = builder.prompt(prompt);
        }
        for resource in std::mem::take(&mut self.resources) {
            builder = builder.resource(resource);
        }
        if let Some(files) = &self.files {
            for resource in files.resources() {
                builder = builder.resource(resource);
            }
            builder = builder.resource_template(files.template());
        }
        for template in std::mem::take(&mut self.templates) {
            builder = builder.resource_template(template);
        }
        Ok(builder.build()?)
    }

    /// Moves a running `server` (serving `old`) over to this project: tools,
    /// prompts, templates and resources are replaced, each list announced
    /// once if it visibly changed. Returns what the server identity section
    /// changed that needs a restart, if anything.
    pub fn apply(mut self, old: &Project, server: &Server) -> anyhow::Result<(Project, Option<String>)> {
        server.replace_tools(std::mem::take(&mut self.tools))?;
        server.replace_prompts(std::mem::take(&mut self.prompts))?;
        // Files: keep the running index when the [files] section is the same
        // (the watcher keeps it current); otherwise swap to the new scan.
        let mut upserts = std::mem::take(&mut self.resources);
        let mut keep: std::collections::HashSet<String> =
            upserts.iter().map(|r| r.uri().to_owned()).collect();
        if old.config.files == self.config.files {
            self.files = old.files.clone();
        } else if let Some(files) = &self.files {
            let resources = files.resources();
            keep.extend(resources.iter().map(|r| r.uri().to_owned()));
            upserts.extend(resources);
        }
        let mut templates: Vec<ResourceTemplate> = self.files.iter().map(FileResources::template).collect();
        templates.append(&mut self.templates);
        server.replace_resource_templates(templates)?;
        if let Some(files) = &self.files {
            keep.extend(files.resources().iter().map(|r| r.uri().to_owned()));
        }
        let removals: Vec<String> =
            server.resources().into_iter().map(|r| r.uri).filter(|uri| !keep.contains(uri)).collect();
        server.update_resources(upserts, &removals)?;
        let changed: Vec<&str> = [
            ("[server]", old.config.server != self.config.server),
            ("[limits]", old.config.limits != self.config.limits),
            ("[http]", old.config.http != self.config.http),
        ]
        .into_iter()
        .filter_map(|(name, changed)| changed.then_some(name))
        .collect();
        let restart = (!changed.is_empty())
            .then(|| format!("{} changed; restart switchboard for that to take effect", changed.join(", ")));
        Ok((self, restart))
    }
}

/// What the model may never write, whatever the tools: the configuration
/// file in use, `switchboard.toml` where switchboard looks for one, and the prompt
/// folders (the configured one and the two zero-config looks for, which
/// need not exist yet). Dotfiles and dot-folders (`.switchboard/`, `.git/`) are
/// refused by the tree itself.
fn protected_paths(config: &Config) -> Vec<PathBuf> {
    let mut paths =
        vec![config.dir().join(switchboard_config::FILE_NAME), config.resolve(Path::new("prompts"))];
    paths.extend(config.path().map(Path::to_path_buf));
    paths.extend(config.prompts_dir());
    paths
}

/// The built-in file tools and the declared command and HTTP tools; each
/// problem is placed on the table that caused it.
fn build_tools(config: &Config, tree: &ServedTree, problems: &mut Vec<Problem>) -> Vec<Tool> {
    let mut tools = switchboard_tools::file_tools(tree, &config.tools.builtin);
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
    for spec in &config.tools.command {
        add(switchboard_tools::command_tool(spec.get_ref(), tree), spec.span(), problems);
    }
    for spec in &config.tools.http {
        add(switchboard_tools::http_tool(spec.get_ref()), spec.span(), problems);
    }
    tools
}
