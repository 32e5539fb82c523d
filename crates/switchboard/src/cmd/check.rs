//! `switchboard check`: validates a configuration and everything it names.
//!
//! Why a command of its own: a server that refuses to start shows one
//! line in a host's log; `check` lists *every* problem of the file at once
//! (see `switchboard_config::Config::parse`: unknown keys, wrong types,
//! placeholders, globs, headers, schemas, names, programs that must
//! exist), then builds the whole project as `serve` would, so prompt files
//! and the rest are checked too. What `serve` would leave out because a
//! secret it needs is not set (see `crate::project::secrets`), and a credential
//! written literally in the file (which `serve` only warns about), are
//! problems here. Each database is opened (bounded by its
//! `connect_timeout`) and every `[[tools.sql]]` statement prepared against
//! it, each problem placed at its key (see `crate::project::databases::check`).
//!
//! Text output (the default): one `file:line:column: message` line per
//! problem on stderr, like a compiler, or `FILE: ok — N tools, …` on
//! stdout.
//!
//! `--json`, for editors and CI: one JSON document on stdout, whatever the
//! outcome (stderr gets only the one-line summary):
//!
//! ```json
//! {
//!   "ok": false,
//!   "file": "switchboard.toml",
//!   "problems": [
//!     {"file": "switchboard.toml", "line": 5, "column": 17,
//!      "message": "`max_file_size` must be a whole number of bytes, like `1048576`; found the text \"1MB\""}
//!   ],
//!   "summary": {"problems": 1, "files": 1, "tools": null, "prompts": null,
//!               "resources": null, "resourceTemplates": null, "skills": null}
//! }
//! ```
//!
//! - `file`: the configuration checked, relative to the current folder
//!   when inside it; `null` for the embedded default (no file).
//! - `problems`: in file order; `line` and `column` are 1-based, the
//!   column counts characters; `file` is the file the problem is in (a
//!   prompt file can be another one; `null`: the embedded default).
//! - `notes` (only when `ok`): what zero-config left out without failing
//!   (a file in the prompts folder that is not a prompt file, a prompt
//!   that does not load), each placed like a problem; `[]` otherwise.
//! - `summary.problems`: how many; `summary.files`: in how many files;
//!   `tools`, `prompts`, `resources` (registered, skill files not
//!   counted), `resourceTemplates`, `skills`: what would be served, when
//!   `ok` (`null` otherwise: nothing is built).
//!
//! The exit status is 0 when `ok`, 3 when there are problems (see
//! `exit.rs`).

use std::path::Path;

use serde_json::{Value, json};
use switchboard_config::Problem;
use switchboard_server::ServerOptions;

use crate::cli::ProjectArgs;
use crate::output::{self, print, with_spinner};
use crate::project::{Project, Source};

/// `switchboard check [--json] [DIR]`.
pub(crate) fn run(project_args: &ProjectArgs, json: bool) -> anyhow::Result<()> {
    match project_args.source("check") {
        Ok(source) => check(&source, json),
        // No folder or configuration file to check: with --json, still
        // one document on stdout, then the same exit status.
        Err(error) if json => print_unchecked(error),
        Err(error) => Err(error),
    }
}

/// Validates the configuration at `source` and everything it names.
fn check(source: &Source, json: bool) -> anyhow::Result<()> {
    let cwd = std::env::current_dir().ok().and_then(|d| d.canonicalize().ok()).unwrap_or_default();
    let loaded = with_spinner("loading the configuration and scanning files", || {
        let mut project = Project::load(&source.dir, source.config.as_deref())?;
        // `serve` leaves out what needs a secret that is not set and serves
        // the rest, and serves a file with a literal credential in it; for
        // `check` each is a problem to fix.
        let mut refused = project.config.literal_credentials().to_vec();
        refused.extend(project.left_out.iter().cloned());
        project.scan_files();
        // Each database is opened (bounded) and every statement prepared:
        // an unknown table, a privileged role, an unreachable server.
        project.detect_databases(None);
        refused.extend(crate::project::databases::check(&project.config, &project.sql));
        if !refused.is_empty() {
            refused.sort_by(|a, b| (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column)));
            return Err(refused);
        }
        Ok::<_, Vec<Problem>>(project)
    });
    let file = match &source.config {
        Some(explicit) => Some(shown(explicit, &cwd)),
        None => Some(source.dir.join(switchboard_config::FILE_NAME))
            .filter(|f| f.exists())
            .map(|f| shown(&f, &cwd)),
    };
    match loaded {
        Ok(mut project) => {
            // The databases' items are counted as `serve` offers them open.
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
            let _entered = runtime.enter();
            project.start_databases();
            runtime.block_on(project.wait_databases(None));
            let server = project.serve(ServerOptions::default(), |b| b)?;
            let counts = [
                server.tools().len(),
                server.prompts().len(),
                server.listed_resources().len(),
                server.resource_templates().len(),
            ];
            let skills = project.skills.as_ref().map(crate::project::skills::ProjectSkills::count);
            if json {
                let mut doc = report(file.as_deref(), &[], Some(counts));
                doc["summary"]["skills"] = json!(skills.unwrap_or(0));
                let notes: Vec<Problem> = project.notes.iter().map(|n| n.clone().relative_to(&cwd)).collect();
                doc["notes"] = notes.iter().map(problem_json).collect();
                print(&format!("{doc:#}\n"))
            } else {
                let origin = file.unwrap_or_else(|| "the embedded default configuration".to_owned());
                let [tools, prompts, resources, templates] = counts;
                let skills = skills.map(|n| format!(", {n} skills")).unwrap_or_default();
                print(&format!(
                    "{origin}: ok — {tools} tools, {prompts} prompts, {resources} resources, \
                     {templates} resource templates{skills}\n"
                ))
            }
        }
        Err(problems) if json => {
            let problems: Vec<Problem> = problems.into_iter().map(|p| p.relative_to(&cwd)).collect();
            print(&format!("{:#}\n", report(file.as_deref(), &problems, None)))?;
            let s = if problems.len() == 1 { "" } else { "s" };
            Err(crate::exit::config(anyhow::anyhow!("{} problem{s} in the configuration", problems.len())))
        }
        Err(problems) => Err(output::report(problems)),
    }
}

/// `--json` when there is nothing to check (the folder or the `--config`
/// file cannot be found or read): the document with `error`'s message as
/// its one problem, placed nowhere (`file`, `line` and `column` null); the
/// error is returned so the exit status stays the one it carries.
fn print_unchecked(error: anyhow::Error) -> anyhow::Result<()> {
    let mut doc = report(None, &[], None);
    doc["ok"] = json!(false);
    doc["problems"] = json!([{"file": null, "line": null, "column": null, "message": format!("{error:#}")}]);
    doc["summary"]["problems"] = json!(1);
    print(&format!("{doc:#}\n"))?;
    Err(error)
}

/// `path` relative to `cwd` when inside it.
fn shown(path: &Path, cwd: &Path) -> String {
    let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    path.strip_prefix(cwd).unwrap_or(&path).display().to_string()
}

/// The `--json` document (see the module docs); `counts` are tools,
/// prompts, resources and resource templates, when the project was built.
fn report(file: Option<&str>, problems: &[Problem], counts: Option<[usize; 4]>) -> Value {
    let files: std::collections::BTreeSet<Option<String>> =
        problems.iter().map(|p| p.file.as_ref().map(|f| f.display().to_string())).collect();
    let count = |i: usize| counts.map_or(Value::Null, |c| json!(c[i]));
    json!({
        "ok": problems.is_empty(),
        "file": file,
        "problems": problems.iter().map(problem_json).collect::<Vec<_>>(),
        "notes": [],
        "summary": {
            "problems": problems.len(),
            "files": files.len(),
            "tools": count(0),
            "prompts": count(1),
            "resources": count(2),
            "resourceTemplates": count(3),
            "skills": null,
        },
    })
}

fn problem_json(problem: &Problem) -> Value {
    json!({
        "file": problem.file.as_ref().map(|f| f.display().to_string()),
        "line": problem.line,
        "column": problem.column,
        "message": problem.message,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_json_report_counts_problems_and_files() {
        let problems = [
            Problem::new(Some(Path::new("switchboard.toml")), 2, 1, "a"),
            Problem::new(Some(Path::new("switchboard.toml")), 5, 3, "b"),
            Problem::new(Some(Path::new("prompts/x.md")), 1, 1, "c"),
        ];
        let doc = report(Some("switchboard.toml"), &problems, None);
        assert_eq!(doc["ok"], false);
        assert_eq!(doc["summary"]["problems"], 3);
        assert_eq!(doc["summary"]["files"], 2);
        assert_eq!(doc["summary"]["tools"], Value::Null);
        assert_eq!(
            doc["problems"][1],
            json!({"file": "switchboard.toml", "line": 5, "column": 3, "message": "b"})
        );
        let ok = report(None, &[], Some([2, 1, 3, 4]));
        assert_eq!(ok["ok"], true);
        assert_eq!(ok["file"], Value::Null);
        assert_eq!(ok["summary"]["resourceTemplates"], 4);
    }
}
