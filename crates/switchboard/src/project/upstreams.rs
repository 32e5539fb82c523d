//! `[[upstreams]]` as the gateway runs them: the environment a stdio
//! upstream gets (`PATH` and the names in `env`, then `set_env`: nothing
//! else of switchboard's), the headers an HTTP upstream gets (credentials
//! read from the environment or the `env_file` now, never logged; an
//! upstream whose credential is not set is left out), and how their states
//! are shown by `list` and `/readyz`.

use switchboard_config::{Config, Problem, UpstreamSpec};
use switchboard_proxy::{
    Mount, NameFilter, Override, Transport, UpstreamConfig, UpstreamState, UpstreamStatus,
};

/// The upstreams of `config`. One whose credential's variable is not set
/// (in the environment or the `env_file`) is left out, placed on that key
/// in `left_out`; anything else wrong is a problem placed on its entry.
pub(crate) fn configs(
    config: &Config,
    views: &super::apps::Views,
    problems: &mut Vec<Problem>,
    left_out: &mut Vec<Problem>,
) -> Vec<UpstreamConfig> {
    let mut out = Vec::new();
    for (i, spanned) in config.upstreams.iter().enumerate() {
        let spec = spanned.get_ref();
        let views = match view_metas(config, views, i, spec) {
            Ok(metas) => metas,
            Err(found) => {
                problems.extend(found);
                continue;
            }
        };
        match resolve(config, spec, &views) {
            Ok(upstream) => out.push(upstream),
            Err(Unresolved::MissingSecret { key, message }) => {
                let index = i.to_string();
                let at: Vec<&str> =
                    ["upstreams", index.as_str()].into_iter().chain(key.iter().map(String::as_str)).collect();
                left_out.push(super::secrets::left_out(config, &at, &message, "this upstream"));
            }
            Err(Unresolved::Invalid(message)) => problems.push(config.problem_at(spanned.span(), message)),
        }
    }
    out
}

/// Why an upstream entry does not become an upstream.
enum Unresolved {
    /// A credential's variable is not set; `key` is where it is named in
    /// the entry (`["headers_env", "X-Api-Key"]`).
    MissingSecret { key: Vec<String>, message: String },
    /// Anything else.
    Invalid(String),
}

/// For each overridden tool of upstream `index` that names a view of the
/// apps folder (`ui`), the `_meta` that links it; a name that is no view,
/// or a `visibility` without a `ui`, is a problem at its key.
fn view_metas(
    config: &Config,
    views: &super::apps::Views,
    index: usize,
    spec: &UpstreamSpec,
) -> Result<std::collections::BTreeMap<String, serde_json::Map<String, serde_json::Value>>, Vec<Problem>> {
    let mut metas = std::collections::BTreeMap::new();
    let mut problems = Vec::new();
    let index = index.to_string();
    for (tool, o) in &spec.tools {
        let at = |key: &'static str| ["upstreams", index.as_str(), "tools", tool.as_str(), key];
        let Some(name) = &o.ui else {
            if o.visibility.is_some() {
                problems.push(config.problem_at_path(
                    &at("visibility"),
                    "visibility applies to a tool with a view: add ui = \"<view name>\" too, or remove it",
                ));
            }
            continue;
        };
        let Some(uri) = views.uri(name) else {
            problems.push(config.problem_at_path(&at("ui"), views.missing(name)));
            continue;
        };
        let mut ui = switchboard_server::apps::ToolUi::new(uri);
        if let Some(visibility) = o.visibility.clone() {
            ui = ui.visibility(visibility);
        }
        let mut meta = serde_json::Map::new();
        ui.write_into(&mut meta);
        metas.insert(tool.clone(), meta);
    }
    if problems.is_empty() { Ok(metas) } else { Err(problems) }
}

fn resolve(
    config: &Config,
    spec: &UpstreamSpec,
    views: &std::collections::BTreeMap<String, serde_json::Map<String, serde_json::Value>>,
) -> Result<UpstreamConfig, Unresolved> {
    let transport = match (&spec.url, spec.command.split_first()) {
        (Some(url), _) => {
            let mut headers: Vec<(String, String)> =
                spec.headers.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            let secret = |variable: &str, key: Vec<String>, what: &str| match switchboard_tools::env_var(
                variable,
            ) {
                Some(value) if !value.trim().is_empty() => Ok(value.trim().to_owned()),
                _ => Err(Unresolved::MissingSecret {
                    key,
                    message: format!(
                        "upstream {:?}: {what} is read from ${variable}, which is not set; set it in the \
                         environment switchboard starts with (a host's `env` block) or in the `[server] env_file`",
                        spec.name
                    ),
                }),
            };
            for (header, variable) in &spec.headers_env {
                let key = vec!["headers_env".to_owned(), header.clone()];
                headers.push((header.clone(), secret(variable, key, &format!("header {header}"))?));
            }
            if let Some(variable) = &spec.bearer_token_env {
                let token = secret(variable, vec!["bearer_token_env".to_owned()], "the bearer token")?;
                headers.push(("authorization".to_owned(), format!("Bearer {token}")));
            }
            Transport::Http { url: url.clone(), headers }
        }
        (None, Some((program, args))) => {
            // The names in `env` pass through from the environment, or
            // from the `env_file` when the environment does not set them.
            let mut env: Vec<(String, String)> = std::iter::once("PATH")
                .chain(spec.env.iter().map(String::as_str))
                .filter_map(|name| switchboard_tools::env_var(name).map(|value| (name.to_owned(), value)))
                .collect();
            env.retain(|(k, _)| !spec.set_env.contains_key(k));
            env.extend(spec.set_env.iter().map(|(k, v)| (k.clone(), v.clone())));
            let cwd = spec
                .resolved_cwd(config.dir())
                .map_err(|e| Unresolved::Invalid(format!("upstream {:?}: {e}", spec.name)))?;
            Transport::Command { program: program.clone(), args: args.to_vec(), env, cwd: Some(cwd) }
        }
        (None, None) => {
            return Err(Unresolved::Invalid(format!("upstream {:?} needs `command` or `url`", spec.name)));
        }
    };
    let overrides = |items: &std::collections::BTreeMap<String, switchboard_config::ItemOverride>| {
        items
            .iter()
            .map(|(k, o)| {
                let o = Override {
                    name: o.name.clone(),
                    title: o.title.clone(),
                    description: o.description.clone(),
                    annotations: o.annotations.clone(),
                    meta: views.get(k).cloned(),
                };
                (k.clone(), o)
            })
            .collect()
    };
    let mount = Mount {
        prefix: spec.effective_prefix().map(str::to_owned),
        tools: NameFilter { include: spec.include_tools.clone(), exclude: spec.exclude_tools.clone() },
        prompts: NameFilter { include: spec.include_prompts.clone(), exclude: spec.exclude_prompts.clone() },
        tool_overrides: overrides(&spec.tools),
        prompt_overrides: overrides(&spec.prompts),
        resources: spec.resources,
    };
    let mut upstream = UpstreamConfig::new(spec.name.clone(), transport);
    upstream.mount = mount;
    upstream.timeout = spec.timeout;
    upstream.connect_timeout = spec.connect_timeout;
    upstream.backoff_initial = spec.backoff_initial;
    upstream.backoff_max = spec.backoff_max;
    upstream.ping_interval = spec.ping_interval;
    Ok(upstream)
}

/// One line per upstream for `switchboard list`.
pub(crate) fn describe(status: &UpstreamStatus) -> String {
    let state = match status.state {
        UpstreamState::Connected => format!(
            "connected ({}; {} tools, {} prompts, {} resources, {} resource templates)",
            status.server.as_deref().unwrap_or("?"),
            status.tools,
            status.prompts,
            status.resources,
            status.templates
        ),
        UpstreamState::Connecting => "connecting".to_owned(),
        UpstreamState::Down => {
            format!("down: {}", status.error.as_deref().unwrap_or("not reached yet"))
        }
    };
    format!("  {:<24} {state}", status.name)
}

/// What `/readyz` adds to its answer: every upstream's state, and the
/// names of those that are down (`/readyz` stays 200 while switchboard's
/// own serving is fine: an upstream that is down is isolated, not a reason
/// to take the whole server out of rotation).
pub(crate) fn readiness(gateway: switchboard_proxy::Gateway) -> switchboard_http::Readiness {
    switchboard_http::Readiness(std::sync::Arc::new(move || {
        let statuses = gateway.statuses();
        let down: Vec<&str> = statuses
            .iter()
            .filter(|s| s.state != UpstreamState::Connected)
            .map(|s| s.name.as_str())
            .collect();
        serde_json::json!({"upstreams": statuses, "upstreamsNotConnected": down})
    }))
}
