//! Views (MCP Apps) with no code: the pages of the apps folder, the
//! tools that name them, and switchboard's built-in views.
//!
//! Each `<apps dir>/<name>.html` is the UI resource `ui://<server>/<name>`
//! (MIME type `text/html;profile=mcp-app`), with what its side file
//! `<name>.toml` says (title, description, CSP origins, permissions; see
//! [`switchboard_config::view_settings`]). A tool of `switchboard.toml`
//! shows it with `ui = "<name>"`.
//!
//! Why the pages are read through the [`ServedTree`]: a view is served
//! to the host as it is, so it may only be a file the model could read
//! anyway (not ignored, not hidden, not a link out of the folder). The
//! same tree keeps the model from writing them: a model that rewrote a
//! view would put its own script in front of the user. The view files
//! directly in the folder are never written (`ServedTree::protecting_views`,
//! even before the folder exists); once the folder serves views it is
//! protected whole and read-only to sandboxed commands
//! ([`views_folder_in_use`], via `paths::configuration_paths`), while an
//! `apps/` of code (a monorepo's) keeps its subfolders writable.
//!
//! The built-in views are pages embedded in the binary, with a small
//! hand-written bridge (`views/bridge.js`: JSON-RPC over postMessage with
//! the host) and no network at all: `search` results grouped by file,
//! and a sortable table for the rows of the SQL tools. A host that does
//! not render views reads the same results as text, as before.
//!
//! Problems follow the prompts' policy, for a configuration that chose
//! views (`[apps] dir`, or a tool's `ui`): a view that does not load is a
//! problem placed at its file and nothing is served until it is fixed.
//! Otherwise (no `switchboard.toml`, or an `apps/` that is just there) it
//! is a note and the view is left out.

use std::path::{Path, PathBuf};

use switchboard_config::{Config, Problem};
use switchboard_files::ServedTree;
use switchboard_server::apps::{MIME_TYPE, UiResourceMeta, Visibility};
use switchboard_server::types::content::{ResourceContents, TextResourceContents};
use switchboard_server::{HandlerError, ReadRequest, RequestContext, Resource, ResourceTemplate, Tool};

/// The built-in view of the `search` tool's results.
pub(crate) const SEARCH_VIEW: &str = "ui://switchboard/search";
/// The built-in view of rows (the SQL query tools).
pub(crate) const TABLE_VIEW: &str = "ui://switchboard/table";

const BRIDGE: &str = include_str!("views/bridge.js");
const STYLE: &str = include_str!("views/style.css");
const SEARCH_PAGE: &str = include_str!("views/search.html");
const TABLE_PAGE: &str = include_str!("views/table.html");

/// Views read from one folder at most (a bound on the work of a reload).
const MAX_VIEWS: usize = 256;

/// A built-in page with its style and bridge put in.
fn builtin_page(page: &str) -> String {
    page.replacen("/*STYLE*/", STYLE, 1).replacen("/*BRIDGE*/", BRIDGE, 1)
}

/// The template of the built-in views (`ui://switchboard/search`,
/// `ui://switchboard/table`).
///
/// Why a template and not two listed resources: the views belong to the
/// built-in tools, not to the project, so they stay out of
/// `resources/list` (a folder's listing is its files); a host reads them
/// by the URI a tool's `_meta.ui` names, which the template serves.
pub(crate) fn builtin_views() -> ResourceTemplate {
    ResourceTemplate::new("ui://switchboard/{view}", "switchboard-views")
        .expect("a valid URI template")
        .title("switchboard's built-in views")
        .description(
            "Views of the built-in tools' results: `search` (matches grouped by file) and `table` (rows).",
        )
        .mime_type(MIME_TYPE)
        .handler(|request: ReadRequest, _ctx: RequestContext| async move {
            let page = match request.var("view") {
                Some("search") => SEARCH_PAGE,
                Some("table") => TABLE_PAGE,
                _ => return Err(HandlerError::NotFound),
            };
            let meta = UiResourceMeta { prefers_border: Some(true), ..UiResourceMeta::default() };
            let mut contents = TextResourceContents {
                uri: request.uri.clone(),
                mime_type: Some(MIME_TYPE.to_owned()),
                text: builtin_page(page),
                meta: None,
            };
            meta.write_into(contents.meta.get_or_insert_with(Default::default));
            Ok(ResourceContents::Text(contents))
        })
}

/// One page of the apps folder.
#[derive(Debug, Clone)]
pub(crate) struct View {
    /// Its name (the file name without `.html`), as `ui = "…"` gives it.
    pub name: String,
    /// `ui://<server>/<name>`.
    pub uri: String,
    settings: switchboard_config::ViewSettings,
    html: String,
}

impl View {
    fn resource(&self) -> Resource {
        let mut resource = Resource::ui(&self.uri, &self.name);
        if let Some(title) = &self.settings.title {
            resource = resource.title(title);
        }
        if let Some(description) = &self.settings.description {
            resource = resource.description(description);
        }
        resource.text(self.html.clone()).ui_meta(self.settings.meta.clone())
    }
}

/// The views of a project: the apps folder's and whether the built-in ones
/// are linked.
#[derive(Debug, Clone, Default)]
pub(crate) struct Views {
    /// The apps folder in use (it may not exist yet: zero-config `apps/`).
    dir: Option<PathBuf>,
    views: Vec<View>,
    /// `[apps] builtin`: link the built-in tools to the built-in views.
    pub builtin: bool,
}

impl Views {
    /// The views `config` names, read through `tree`; problems and notes go
    /// to the lists given (see the module docs for which is which).
    pub fn load(
        config: &Config,
        tree: Option<&ServedTree>,
        problems: &mut Vec<Problem>,
        notes: &mut Vec<Problem>,
    ) -> Self {
        let builtin = config.apps.enabled && config.apps.builtin;
        let mut found = Vec::new();
        let views = match (config.apps_dir(), tree) {
            (Some(dir), Some(tree)) => read_folder(config, tree, &dir, &mut found, notes),
            _ => Vec::new(),
        };
        if chose_views(config) {
            problems.extend(found);
        } else {
            notes.extend(found);
        }
        Self { dir: watched_dir(config), views, builtin }
    }

    /// The folder whose changes reload the views (also the one the model
    /// may never write).
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// The URI of the view called `name`.
    pub fn uri(&self, name: &str) -> Option<&str> {
        self.views.iter().find(|v| v.name == name).map(|v| v.uri.as_str())
    }

    /// The resources of the apps folder's views.
    pub fn resources(&self) -> Vec<Resource> {
        self.views.iter().map(View::resource).collect()
    }

    /// `tool` shown with the view `ui` (a name of the apps folder) and
    /// called by `visibility`; a name that is no view, or a visibility
    /// without a view, is a problem placed at `at` (the tool's table).
    pub fn link(
        &self,
        config: &Config,
        tool: Tool,
        ui: Option<&str>,
        visibility: Option<Vec<Visibility>>,
        at: &[&str],
        problems: &mut Vec<Problem>,
    ) -> Tool {
        let key = |k: &'static str| -> Vec<&str> { at.iter().copied().chain([k]).collect() };
        let Some(name) = ui else {
            if visibility.is_some() {
                problems.push(config.problem_at_path(
                    &key("visibility"),
                    "visibility applies to a tool with a view: add ui = \"<view name>\" too, or remove it",
                ));
            }
            return tool;
        };
        let Some(uri) = self.uri(name) else {
            problems.push(config.problem_at_path(&key("ui"), self.missing(name)));
            return tool;
        };
        let tool = tool.ui(uri);
        match visibility {
            Some(visibility) => tool.visibility(&visibility),
            None => tool,
        }
    }

    /// Why `name` names no view, and what the views are.
    pub fn missing(&self, name: &str) -> String {
        let known = if self.views.is_empty() {
            match &self.dir {
                Some(dir) => format!("the apps folder {} has no view", dir.display()),
                None => "there is no apps folder (apps/ or [apps] dir)".to_owned(),
            }
        } else {
            let names: Vec<&str> = self.views.iter().map(|v| v.name.as_str()).collect();
            format!("the views are {}", names.join(", "))
        };
        let hint = switchboard_config::view_name_problem(name)
            .unwrap_or_else(|| format!("no view {name:?} (a file {name}.html in the apps folder)"));
        format!("{hint}; {known}")
    }
}

/// The views of the apps folder `dir`, read through `tree`; what keeps one
/// out goes to `found`, a note that is never a problem to `notes`.
fn read_folder(
    config: &Config,
    tree: &ServedTree,
    dir: &Path,
    found: &mut Vec<Problem>,
    notes: &mut Vec<Problem>,
) -> Vec<View> {
    if !dir.is_dir() {
        let message = format!("the apps folder {} does not exist (or is not a folder)", dir.display());
        found.push(config.problem_at_path(&["apps", "dir"], message));
        return Vec::new();
    }
    let Some(served_dir) = dir.canonicalize().ok().and_then(|d| tree.served_path_of(&d)) else {
        let message =
            format!("the apps folder {} is outside the served folder; views are served files", dir.display());
        found.push(config.problem_at_path(&["apps", "dir"], message));
        return Vec::new();
    };
    let mut pages = Vec::new();
    let mut sides = std::collections::HashMap::new();
    let mut more = false;
    let walked = tree.walk_files(&served_dir, None, |file| {
        // Only the folder's own files: a subfolder may hold anything.
        let Some(file_name) = direct_child(&served_dir, &file.served) else { return true };
        if !switchboard_files::is_view_file_name(file_name) {
            return true;
        }
        if let Some(name) = file_name.strip_suffix(".html") {
            if pages.len() == MAX_VIEWS {
                more = true;
                return false;
            }
            pages.push((name.to_owned(), file.path));
        } else if let Some(name) = file_name.strip_suffix(".toml") {
            sides.insert(name.to_owned(), file.path);
        }
        true
    });
    if let Err(e) = walked {
        let message = format!("the apps folder {} is not served ([files] rules): {e}", dir.display());
        found.push(config.problem_at_path(&["apps", "dir"], message));
        return Vec::new();
    }
    if more {
        let message = format!("more than {MAX_VIEWS} views: only the first {MAX_VIEWS} found are served");
        notes.push(Problem::new(Some(dir), 1, 1, message));
    }
    pages.sort_by(|a, b| a.0.cmp(&b.0));
    let authority = uri_authority(config.server.name.as_deref().unwrap_or("switchboard"));
    let mut views = Vec::new();
    for (name, page) in pages {
        let side = sides.remove(&name);
        match load_view(&name, &page, side.as_deref(), &authority) {
            Ok(view) => views.push(view),
            Err(problems) => found.extend(problems),
        }
    }
    let mut orphans: Vec<(String, PathBuf)> = sides.into_iter().collect();
    orphans.sort();
    for (name, side) in orphans {
        let message =
            format!("a side file with no view: add {name}.html beside it, or rename it to match its view");
        found.push(Problem::new(Some(&side), 1, 1, message));
    }
    views
}

/// Whether the configuration file chose views: it names the apps folder
/// (`[apps] dir`) or a tool names a view (`ui`). Then a view that does not
/// load is a problem; otherwise (no file, or an `apps/` found as it is,
/// perhaps a monorepo's folder of code) it is a note and is left out.
fn chose_views(config: &Config) -> bool {
    let tools = &config.tools;
    config.path().is_some()
        && (config.apps.dir.is_some()
            || tools.command.iter().any(|t| t.get_ref().ui.is_some())
            || tools.http.iter().any(|t| t.get_ref().ui.is_some())
            || tools.openapi.iter().any(|t| t.get_ref().ui.is_some())
            || tools.sql.iter().any(|t| t.get_ref().ui.is_some())
            || config.upstreams.iter().any(|u| u.get_ref().tools.values().any(|o| o.ui.is_some())))
}

/// The apps folder a project watches and protects: the configured one, else
/// `apps/` whether or not it exists yet (a folder that appears is loaded).
pub(crate) fn watched_dir(config: &Config) -> Option<PathBuf> {
    if !config.apps.enabled {
        return None;
    }
    Some(config.resolve(config.apps.dir.as_deref().unwrap_or(Path::new("apps"))))
}

/// The apps folder when it serves views: the configured one, or `apps/`
/// holding a page (`*.html` directly in it). The model never writes there
/// and sandboxed commands may not change it (`paths::configuration_paths`);
/// an `apps/` of code (a monorepo's) is left as it is.
pub(crate) fn views_folder_in_use(config: &Config) -> Option<PathBuf> {
    let dir = config.apps_dir()?;
    if config.apps.dir.is_some() {
        return Some(dir);
    }
    let entries = std::fs::read_dir(&dir).ok()?;
    let has_page = entries
        .take(10_000)
        .flatten()
        .any(|e| e.file_name().to_str().is_some_and(|n| n.ends_with(".html")) && e.path().is_file());
    has_page.then_some(dir)
}

/// The name of `served` when it is a file directly in `dir` (served paths).
fn direct_child<'a>(dir: &str, served: &'a str) -> Option<&'a str> {
    let rest = if dir.is_empty() { served } else { served.strip_prefix(dir)?.strip_prefix('/')? };
    (!rest.contains('/')).then_some(rest)
}

/// The server name as a URI authority: what is not a letter, digit, `-`,
/// `.`, `_` or `~` becomes `-` (a folder name may have spaces).
pub(crate) fn uri_authority(server: &str) -> String {
    let cleaned: String = server
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~') { c } else { '-' })
        .collect();
    if cleaned.is_empty() { "switchboard".to_owned() } else { cleaned }
}

/// One view from its page and side file.
fn load_view(name: &str, page: &Path, side: Option<&Path>, authority: &str) -> Result<View, Vec<Problem>> {
    if let Some(message) = switchboard_config::view_name_problem(name) {
        return Err(vec![Problem::new(Some(page), 1, 1, format!("{message}; rename the file"))]);
    }
    let read = |file: &Path| {
        std::fs::read_to_string(file)
            .map_err(|e| vec![Problem::new(Some(file), 1, 1, format!("cannot read it as UTF-8 text: {e}"))])
    };
    let html = read(page)?;
    let settings = match side {
        Some(side) => switchboard_config::view_settings(side, &read(side)?)?,
        None => switchboard_config::ViewSettings::default(),
    };
    Ok(View { name: name.to_owned(), uri: format!("ui://{authority}/{name}"), settings, html })
}

/// The views `server` serves (its `ui://` resources, then the built-in
/// views its tools show) with the tools that show each, as `switchboard
/// list --json` gives them.
pub(crate) fn listed(server: &switchboard_server::Server) -> Vec<serde_json::Value> {
    let tools = server.tools();
    let mut views: Vec<(String, String, Option<String>, Option<serde_json::Value>)> = server
        .listed_resources()
        .into_iter()
        .filter(|r| r.mime_type.as_deref() == Some(MIME_TYPE))
        .map(|r| (r.uri, r.name, r.title, r.meta.and_then(|m| m.get("ui").cloned())))
        .collect();
    for (uri, name) in [(SEARCH_VIEW, "search"), (TABLE_VIEW, "table")] {
        let shown = tools.iter().any(|t| {
            t.meta
                .as_ref()
                .and_then(switchboard_server::apps::ToolUi::from_meta)
                .is_some_and(|ui| ui.resource_uri == uri)
        });
        if shown {
            views.push((uri.to_owned(), name.to_owned(), None, None));
        }
    }
    views
        .into_iter()
        .map(|(uri, name, title, ui)| {
            let shown_by: Vec<serde_json::Value> = tools
                .iter()
                .filter_map(|tool| {
                    let ui = switchboard_server::apps::ToolUi::from_meta(tool.meta.as_ref()?)?;
                    (ui.resource_uri == uri).then(|| {
                        let mut entry = serde_json::json!({"name": tool.name});
                        if let Some(visibility) = ui.visibility {
                            entry["visibility"] = serde_json::json!(visibility);
                        }
                        entry
                    })
                })
                .collect();
            let mut entry = serde_json::json!({"uri": uri, "name": name, "tools": shown_by});
            if let Some(title) = title {
                entry["title"] = title.into();
            }
            if let Some(ui) = ui {
                entry["ui"] = ui;
            }
            entry
        })
        .collect()
}

/// The views `server` serves, as `switchboard list` prints them: each URI
/// with the tools that show it (`(app)`: only the view may call it).
pub(crate) fn describe(server: &switchboard_server::Server) -> String {
    use std::fmt::Write as _;
    let views = listed(server);
    let mut out = String::new();
    if views.is_empty() {
        return out;
    }
    let _ = writeln!(out, "Views ({}):", views.len());
    for view in views {
        let tools: Vec<String> = view["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|t| {
                let name = t["name"].as_str().unwrap_or_default();
                match t["visibility"].as_array() {
                    Some(v) if v.len() == 1 => format!("{name} ({})", v[0].as_str().unwrap_or_default()),
                    _ => name.to_owned(),
                }
            })
            .collect();
        let shown = if tools.is_empty() { "no tool".to_owned() } else { tools.join(", ") };
        let _ = writeln!(out, "  {:<40} shown by {shown}", view["uri"].as_str().unwrap_or_default());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_pages_have_their_bridge_and_no_network() {
        for page in [builtin_page(SEARCH_PAGE), builtin_page(TABLE_PAGE)] {
            assert!(page.contains("<script>") && page.contains("bridge.start("));
            assert!(!page.contains("/*BRIDGE*/") && !page.contains("/*STYLE*/"));
            assert!(page.contains("ui/initialize") && page.contains("ui/notifications/tool-result"));
            assert!(
                !page.contains("http://") && !page.contains("https://") && !page.contains("src="),
                "{page}"
            );
        }
    }

    #[test]
    fn server_names_become_uri_authorities() {
        assert_eq!(uri_authority("my project"), "my-project");
        assert_eq!(uri_authority("shop.v2"), "shop.v2");
        assert_eq!(uri_authority(""), "switchboard");
    }

    #[test]
    fn only_the_folders_own_files_are_views() {
        assert_eq!(direct_child("apps", "apps/report.html"), Some("report.html"));
        assert_eq!(direct_child("apps", "apps/lib/x.html"), None);
        assert_eq!(direct_child("", "x.html"), Some("x.html"));
        assert_eq!(direct_child("apps", "appsx/y.html"), None);
    }
}
