//! What `list` and `call` share: the project loaded as `serve` would load
//! it, with its databases and upstreams each tried once, on a runtime of
//! this thread.

use std::time::Duration;

use anyhow::Context as _;

use crate::exit;
use crate::output::{self, with_spinner};
use crate::project::{Project, Source};

/// Loads the project, printing every problem to stderr.
pub(crate) fn load(source: &Source) -> anyhow::Result<Project> {
    let loaded = with_spinner("loading the configuration and scanning files", || {
        let project = Project::load(&source.dir, source.config.as_deref())?;
        project.scan_files();
        Ok(project)
    });
    loaded.map_err(output::report)
}

/// Zero-config finds its SQLite files, then every database is opened and
/// tried once (bounded by its connect timeout), so what is listed or
/// called is what `serve` offers once they are open.
pub(crate) async fn open_databases(project: &mut Project) {
    project.detect_databases(None);
    project.start_databases();
    project.wait_databases(None).await;
}

/// Starts the project's upstreams and waits until each has been tried once
/// (bounded by its connect timeout); their states.
pub(crate) async fn attempt_upstreams(project: &Project) -> Vec<switchboard_proxy::UpstreamStatus> {
    let limit = project.upstreams.iter().map(|u| u.connect_timeout).max().unwrap_or_default();
    project.start_upstreams();
    let gateway = project.gateway.clone().expect("serve made the gateway");
    gateway.wait_attempted(limit + Duration::from_secs(1)).await;
    gateway.statuses()
}

/// A runtime on this thread, for the commands that run one thing and stop.
pub(crate) fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build();
    runtime.context("starting the async runtime").map_err(exit::io)
}
