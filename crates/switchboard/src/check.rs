//! `switchboard check`: validates a configuration and everything it names.

use switchboard_server::ServerOptions;

use crate::commands::{load, print};
use crate::live::Source;

/// `switchboard check`: validates the configuration and everything it names.
pub(crate) fn run(source: &Source, _json: bool) -> anyhow::Result<()> {
    let mut project = load(source)?;
    let cwd = std::env::current_dir().ok().and_then(|d| d.canonicalize().ok()).unwrap_or_default();
    let origin = match project.config.path() {
        Some(p) => p.strip_prefix(&cwd).unwrap_or(p).display().to_string(),
        None => "the embedded default configuration".to_owned(),
    };
    let server = project.serve(ServerOptions::default(), |b| b)?;
    print(&format!(
        "{origin}: ok — {} tools, {} prompts, {} resources, {} resource templates\n",
        server.tools().len(),
        server.prompts().len(),
        server.resources().len(),
        server.resource_templates().len()
    ))
}
