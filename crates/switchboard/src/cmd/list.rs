//! `switchboard list`: what would be served (tools, prompts, resource
//! templates, resources, views, skills, and the databases and upstreams with
//! their states), as text or, with `--json`, the definitions as clients see
//! them.

use anyhow::Context as _;
use serde_json::{Value, json};
use switchboard_server::{Server, ServerOptions};

use super::inspect;
use crate::cli::{Fixtures, ProjectArgs};
use crate::output::print;
use crate::project::Source;

/// `switchboard list [--json] [--fixtures F | DIR]`.
pub(crate) fn run(
    fixtures: Option<Fixtures>,
    project_args: &ProjectArgs,
    as_json: bool,
) -> anyhow::Result<()> {
    let Some(fixtures) = fixtures else { return project(&project_args.source("list")?, as_json) };
    let server = crate::fixtures::builder(
        ServerOptions::default(),
        fixtures,
        switchboard_server::state::MemoryStore::new(),
    )
    .build()
    .context("building the server")?;
    print_listing(
        &Listing {
            server: &server,
            skills: &[],
            upstreams: None,
            sandbox: None,
            left_out: &[],
            databases: &[],
        },
        as_json,
    )
}

/// What the project at `source` would serve, as text or JSON.
fn project(source: &Source, as_json: bool) -> anyhow::Result<()> {
    let mut project = inspect::load(source)?;
    // Each database is opened once (bounded), then listed with its state.
    let runtime = inspect::runtime()?;
    let _entered = runtime.enter();
    runtime.block_on(inspect::open_databases(&mut project));
    let server = project.serve(ServerOptions::default(), |b| b)?;
    let databases = crate::project::databases::listed(&project.sql, &project.databases, &server);
    let skills =
        project.skills.as_ref().map(crate::project::skills::ProjectSkills::listed).unwrap_or_default();
    let sandbox = project.sandbox.clone();
    let listing = Listing {
        server: &server,
        skills: &skills,
        upstreams: None,
        sandbox: sandbox.as_ref(),
        left_out: &project.left_out,
        databases: &databases,
    };
    // Each upstream is tried once, then listed with its state.
    let result = if project.upstreams.is_empty() {
        print_listing(&listing, as_json)
    } else {
        let statuses = runtime.block_on(inspect::attempt_upstreams(&project));
        print_listing(&Listing { upstreams: Some(&statuses), ..listing }, as_json)
    };
    drop(project);
    drop(_entered);
    runtime.shutdown_background();
    result
}

/// What `list` shows: a server's registrations, its skills and, when it
/// has upstreams, their states.
#[derive(Clone, Copy)]
pub(crate) struct Listing<'a> {
    pub server: &'a Server,
    pub skills: &'a [switchboard_skills::SkillInfo],
    pub upstreams: Option<&'a [switchboard_proxy::UpstreamStatus]>,
    /// The command tools' sandbox (see `crate::project::sandbox`).
    pub sandbox: Option<&'a Value>,
    /// What is left out because a secret it needs is not set, and why.
    pub left_out: &'a [switchboard_config::Problem],
    /// The databases and their states (see `crate::project::databases`).
    pub databases: &'a [crate::project::databases::Listed],
}

/// Prints a listing as text or JSON.
pub(crate) fn print_listing(listing: &Listing<'_>, as_json: bool) -> anyhow::Result<()> {
    if as_json { print(&listing_json(listing)?) } else { print(&listing_text(listing)?) }
}

/// A listing as JSON: the definitions as clients see them.
fn listing_json(listing: &Listing<'_>) -> anyhow::Result<String> {
    use std::fmt::Write as _;
    let Listing { server, skills, upstreams, sandbox, left_out, databases } = *listing;
    let mut out = String::new();
    let mut listing = json!({
        "tools": server.tools(),
        "prompts": server.prompts(),
        "resources": server.listed_resources(),
        "resourceTemplates": server.resource_templates(),
    });
    if !skills.is_empty() {
        listing["skills"] = skills
            .iter()
            .map(|s| json!({"name": s.name, "description": s.description, "uri": s.uri, "files": s.files}))
            .collect();
    }
    if let Some(upstreams) = upstreams {
        listing["upstreams"] = json!(upstreams);
    }
    if let Some(sandbox) = sandbox {
        listing["sandbox"] = sandbox.clone();
    }
    if !left_out.is_empty() {
        listing["leftOut"] = left_out.iter().map(|p| json!(p.to_string())).collect();
    }
    if !databases.is_empty() {
        listing["databases"] = databases.iter().map(crate::project::databases::listed_json).collect();
    }
    let views = crate::project::apps::listed(server);
    if !views.is_empty() {
        listing["views"] = Value::Array(views);
    }
    writeln!(out, "{}", serde_json::to_string_pretty(&listing)?)?;
    Ok(out)
}

/// A listing as text, a section per kind.
fn listing_text(listing: &Listing<'_>) -> anyhow::Result<String> {
    use std::fmt::Write as _;
    let Listing { server, skills, upstreams, sandbox, left_out, databases } = *listing;
    let mut out = String::new();
    if !left_out.is_empty() {
        writeln!(out, "Left out ({}):", left_out.len())?;
        for problem in left_out {
            writeln!(out, "  {problem}")?;
        }
    }
    if !databases.is_empty() {
        writeln!(out, "Databases ({}):", databases.len())?;
        for status in databases {
            out.push_str(&crate::project::databases::describe(status));
        }
    }
    if let Some(upstreams) = upstreams {
        writeln!(out, "Upstreams ({}):", upstreams.len())?;
        for status in upstreams {
            writeln!(out, "{}", crate::project::upstreams::describe(status))?;
        }
    }
    let tools = server.tools();
    writeln!(out, "Tools ({}):", tools.len())?;
    for tool in tools {
        writeln!(out, "  {:<24} {}", tool.name, first_line(tool.description.as_deref()))?;
    }
    if let Some(sandbox) = sandbox {
        out.push_str(&crate::project::sandbox::describe(sandbox));
    }
    let prompts = server.prompts();
    writeln!(out, "Prompts ({}):", prompts.len())?;
    for prompt in prompts {
        let args: Vec<String> = prompt
            .arguments
            .iter()
            .flatten()
            .map(|a| if a.required == Some(true) { a.name.clone() } else { format!("[{}]", a.name) })
            .collect();
        writeln!(
            out,
            "  {:<24} {} {}",
            prompt.name,
            args.join(" "),
            first_line(prompt.description.as_deref())
        )?;
    }
    let templates = server.resource_templates();
    writeln!(out, "Resource templates ({}):", templates.len())?;
    for template in templates {
        writeln!(out, "  {:<40} {}", template.uri_template, first_line(template.description.as_deref()))?;
    }
    let resources = server.listed_resources();
    writeln!(out, "Resources ({}):", resources.len())?;
    for resource in resources {
        let size = resource.size.map(|s| format!("{s} B")).unwrap_or_default();
        let mime = resource.mime_type.unwrap_or_default();
        writeln!(out, "  {:<48} {mime:<24} {size}", resource.uri)?;
    }
    out.push_str(&crate::project::apps::describe(server));
    if !skills.is_empty() {
        writeln!(out, "Skills ({}):", skills.len())?;
        for skill in skills {
            let files = if skill.files == 1 { "1 file".to_owned() } else { format!("{} files", skill.files) };
            writeln!(out, "  {:<24} {:<10} {}", skill.name, files, first_line(Some(&skill.description)))?;
        }
    }
    Ok(out)
}

fn first_line(text: Option<&str>) -> &str {
    text.unwrap_or_default().lines().next().unwrap_or_default()
}
