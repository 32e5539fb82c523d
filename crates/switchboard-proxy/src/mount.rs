//! How an upstream's tools and prompts appear in front: under a prefix,
//! through include/exclude filters on their names, with per-item
//! overrides of name, title, description and annotations.

use std::collections::BTreeMap;

use serde_json::Value;
use switchboard_server::types::prompts::Prompt;
use switchboard_server::types::tools::Tool;

/// The prefix, filters and overrides applied to one upstream.
#[derive(Debug, Clone, PartialEq)]
pub struct Mount {
    /// Prepended (with `_`) to the names of tools and prompts.
    pub prefix: Option<String>,
    /// Which tools pass, by their name upstream.
    pub tools: NameFilter,
    /// Which prompts pass, by their name upstream.
    pub prompts: NameFilter,
    /// Overrides by a tool's name upstream.
    pub tool_overrides: BTreeMap<String, Override>,
    /// Overrides by a prompt's name upstream.
    pub prompt_overrides: BTreeMap<String, Override>,
    /// Pass the upstream's resources and resource templates through.
    pub resources: bool,
}

impl Default for Mount {
    fn default() -> Self {
        Self {
            prefix: None,
            tools: NameFilter::default(),
            prompts: NameFilter::default(),
            tool_overrides: BTreeMap::new(),
            prompt_overrides: BTreeMap::new(),
            resources: true,
        }
    }
}

/// Globs (`*` any run of characters, `?` one character) on names: a name
/// passes when `include` is empty or one of its globs matches, and no
/// `exclude` glob matches.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NameFilter {
    /// Globs of the names to keep (empty: all).
    pub include: Vec<String>,
    /// Globs of the names to leave out (wins over `include`).
    pub exclude: Vec<String>,
}

impl NameFilter {
    /// Whether `name` passes.
    pub fn passes(&self, name: &str) -> bool {
        (self.include.is_empty() || self.include.iter().any(|g| glob_match(g, name)))
            && !self.exclude.iter().any(|g| glob_match(g, name))
    }
}

/// What an override replaces; `None` keeps the upstream's.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Override {
    /// The whole name shown in front (the prefix is not added to it).
    pub name: Option<String>,
    /// The display title.
    pub title: Option<String>,
    /// The description.
    pub description: Option<String>,
    /// Tool annotations, merged key by key over the upstream's.
    pub annotations: Option<serde_json::Map<String, Value>>,
    /// Tool `_meta` keys set over the upstream's (an MCP Apps view of
    /// this server: `ui` and `ui/resourceUri`).
    pub meta: Option<serde_json::Map<String, Value>>,
}

impl Mount {
    /// The name shown in front for `remote` (an override's name, else the
    /// prefixed name).
    pub fn front_name(&self, remote: &str, overrides: &BTreeMap<String, Override>) -> String {
        if let Some(name) = overrides.get(remote).and_then(|o| o.name.clone()) {
            return name;
        }
        match self.prefix.as_deref().filter(|p| !p.is_empty()) {
            Some(prefix) => format!("{prefix}_{remote}"),
            None => remote.to_owned(),
        }
    }

    /// `def` as shown in front with its name upstream, or `None` when the
    /// filters leave it out.
    pub(crate) fn tool(&self, mut def: Tool) -> Option<(String, Tool)> {
        let remote = std::mem::take(&mut def.name);
        if !self.tools.passes(&remote) {
            return None;
        }
        def.name = self.front_name(&remote, &self.tool_overrides);
        if let Some(o) = self.tool_overrides.get(&remote) {
            if o.title.is_some() {
                def.title.clone_from(&o.title);
            }
            if o.description.is_some() {
                def.description.clone_from(&o.description);
            }
            if let Some(extra) = &o.annotations {
                let mut merged = def
                    .annotations
                    .as_ref()
                    .and_then(|a| serde_json::to_value(a).ok())
                    .and_then(|v| v.as_object().cloned())
                    .unwrap_or_default();
                merged.extend(extra.clone());
                match serde_json::from_value(Value::Object(merged)) {
                    Ok(annotations) => def.annotations = Some(annotations),
                    Err(e) => tracing::warn!(tool = %remote, error = %e, "annotations override not applied"),
                }
            }
            if let Some(extra) = &o.meta {
                def.meta.get_or_insert_with(Default::default).extend(extra.clone());
            }
        }
        Some((remote, def))
    }

    /// Like [`Mount::tool`] for a prompt.
    pub(crate) fn prompt(&self, mut def: Prompt) -> Option<(String, Prompt)> {
        let remote = std::mem::take(&mut def.name);
        if !self.prompts.passes(&remote) {
            return None;
        }
        def.name = self.front_name(&remote, &self.prompt_overrides);
        if let Some(o) = self.prompt_overrides.get(&remote) {
            if o.title.is_some() {
                def.title.clone_from(&o.title);
            }
            if o.description.is_some() {
                def.description.clone_from(&o.description);
            }
        }
        Some((remote, def))
    }
}

/// Whether `name` matches `glob` (`*`: any run of characters, `?`: one
/// character; everything else stands for itself).
pub fn glob_match(glob: &str, name: &str) -> bool {
    let (g, n): (Vec<char>, Vec<char>) = (glob.chars().collect(), name.chars().collect());
    let (mut gi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        match g.get(gi) {
            Some('*') => {
                star = Some((gi, ni));
                gi += 1;
            }
            Some(&c) if c == '?' || c == n[ni] => {
                gi += 1;
                ni += 1;
            }
            _ => match star {
                Some((sg, sn)) => {
                    gi = sg + 1;
                    ni = sn + 1;
                    star = Some((sg, sn + 1));
                }
                None => return false,
            },
        }
    }
    g[gi..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_names() {
        assert!(glob_match("*", "anything"));
        assert!(glob_match("git_*", "git_log"));
        assert!(!glob_match("git_*", "gitlog"));
        assert!(glob_match("a?c", "abc"));
        assert!(glob_match("*_basket", "create_basket"));
        assert!(glob_match("*a*b*", "xxaxxbxx"));
        assert!(!glob_match("*a*b", "xxaxxbxx"));
        assert!(glob_match("echo", "echo"));
        assert!(!glob_match("echo", "echoes"));
    }

    #[test]
    fn filters_and_overrides_shape_names() {
        let mut mount = Mount { prefix: Some("demo".into()), ..Mount::default() };
        mount.tools.exclude = vec!["*_basket".into()];
        mount.tool_overrides.insert(
            "echo".into(),
            Override {
                name: Some("say".into()),
                description: Some("Says it back.".into()),
                annotations: Some(serde_json::json!({"readOnlyHint": true}).as_object().cloned().unwrap()),
                ..Override::default()
            },
        );
        let tool = |name: &str| Tool {
            name: name.into(),
            title: None,
            description: Some("up".into()),
            input_schema: serde_json::json!({"type": "object"}),
            output_schema: None,
            annotations: None,
            icons: None,
            execution: None,
            meta: None,
        };
        assert!(mount.tool(tool("create_basket")).is_none());
        let (remote, add) = mount.tool(tool("add")).unwrap();
        assert_eq!((remote.as_str(), add.name.as_str()), ("add", "demo_add"));
        let (_, echo) = mount.tool(tool("echo")).unwrap();
        assert_eq!(echo.name, "say");
        assert_eq!(echo.description.as_deref(), Some("Says it back."));
        assert_eq!(serde_json::to_value(&echo.annotations).unwrap()["readOnlyHint"], true);
    }
}
