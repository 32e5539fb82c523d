//! The files a configuration depends on or must keep from the model: what
//! a write may never change, what a sandboxed command may only read, and
//! what may never be served at all.

use std::path::{Path, PathBuf};

use switchboard_config::Config;

use super::{apps, databases};

/// The paths that configure the server or run as part of it, outside any
/// sandbox: the configuration file in use, `switchboard.toml`, the prompt
/// folders and the skills folders (they need not exist yet), the OpenAPI
/// documents (they decide the tools and where their credentials are sent;
/// an edit reloads live), what stdio upstream servers run (their
/// program in the folder, script arguments) and the `[[databases]]`
/// files. The write policy and the sandbox's read-only entries both start
/// from this one list.
pub(crate) fn configuration_paths(config: &Config) -> Vec<PathBuf> {
    let mut paths =
        vec![config.dir().join(switchboard_config::FILE_NAME), config.resolve(Path::new("prompts"))];
    paths.extend(config.path().map(Path::to_path_buf));
    paths.extend(config.prompts_dir());
    // Skills are instructions hosts load into a model's context later.
    paths.push(config.resolve(Path::new("skills")));
    // Views are pages a host runs in front of the user (see `apps.rs`):
    // the whole folder once it serves views (the tree guards its view files
    // before that; a monorepo's `apps/` of code stays writable).
    paths.extend(apps::views_folder_in_use(config));
    paths.extend(config.skills.dir_in(config.dir()));
    paths.extend(openapi_documents(config));
    // The `[[databases]]` files (and SQLite's files beside them): written
    // only through the database's own write tools, never as files, nor by
    // a sandboxed command (a model that rewrote one would write around a
    // read-only database).
    paths.extend(databases::database_files(config));
    for upstream in &config.upstreams {
        let upstream = upstream.get_ref();
        let cwd = upstream.cwd.clone().unwrap_or_else(|| PathBuf::from("."));
        paths.extend(switchboard_tools::files_run_by_argv(&upstream.command, &cwd, config.dir()));
    }
    paths
}

/// What the model may never see, like `.env`: the configuration file in
/// use, `switchboard.toml` where switchboard looks for one (a literal
/// token in a header would otherwise be one `search` away) and the
/// `env_file` it reads secrets from.
pub(crate) fn never_served_paths(config: &Config) -> Vec<PathBuf> {
    let mut paths = vec![config.dir().join(switchboard_config::FILE_NAME)];
    paths.extend(config.path().map(Path::to_path_buf));
    paths.extend(config.env_file());
    // A database is read through its tools and resources, where `exclude`
    // and the engine's read-only hold; its file would bypass both.
    paths.extend(databases::database_files(config));
    paths
}

/// The OpenAPI document files `config` reads (edits to them reload it).
pub(crate) fn openapi_documents(config: &Config) -> Vec<PathBuf> {
    config.tools.openapi.iter().filter_map(|spec| spec.get_ref().document_file(config.dir())).collect()
}
