//! The project's skills folder (`[skills]`, or `skills/` when the served
//! folder has one), served through the skills extension
//! (`switchboard-skills`), checked like the prompts folder, and kept in step
//! with the disk.
//!
//! Problems follow the prompts' policy: with no `switchboard.toml` a skill
//! that does not load is a note and is left out (someone's folder as it
//! is must not stop switchboard); with one, it is a problem placed at its
//! `SKILL.md`, and nothing is served (at start) or the last good skills
//! stay (on a live edit) until it is fixed. An auto-detected `skills/` that
//! the `[files]` rules do not serve (ignored, hidden) is only ever a note.
//!
//! Why the extension is offered only when a skills folder is in use at
//! start: capabilities are sent once per connection. A folder that appears
//! later is announced as needing a restart, like `[server]` changes.

use std::path::{Path, PathBuf};

use switchboard_config::{Config, Problem};
use switchboard_files::{ServedTree, WatchBatch};
use switchboard_server::{Server, ServerBuilder};
use switchboard_skills::{SkillSet, Skills, SkillsError};

/// The skills of a project: loaded with it, then served and kept current.
pub(crate) struct ProjectSkills {
    /// The folder as configured (resolved against the served folder).
    dir: PathBuf,
    /// The same, canonical (watch events may name either).
    canonical: PathBuf,
    tree: ServedTree,
    /// A skill that does not load is a problem (a configuration file is in
    /// use), not a note.
    strict: bool,
    /// The set loaded with the project, until it is served.
    loaded: Option<SkillSet>,
    /// The skills in force on the server, once registered.
    live: Option<Skills>,
}

impl ProjectSkills {
    /// The skills `config` names, loaded through `tree`; problems and notes
    /// go to the lists given. `None` when no skills folder is in use (or an
    /// auto-detected one cannot be served: a note says why).
    pub fn load(
        config: &Config,
        tree: &ServedTree,
        problems: &mut Vec<Problem>,
        notes: &mut Vec<Problem>,
    ) -> Option<Self> {
        let dir = config.skills.dir_in(config.dir())?;
        let strict = config.path().is_some();
        let configured = config.skills.dir.is_some();
        let loaded = match SkillSet::load(tree, &dir) {
            Ok(loaded) => loaded,
            Err(e) => {
                let problem = config.problem(format!("[skills]: {e}"));
                if configured {
                    problems.push(problem)
                } else {
                    notes.push(problem)
                }
                return None;
            }
        };
        let (set, found) = loaded;
        let placed = found.into_iter().map(|e| placed(e, config));
        if strict {
            problems.extend(placed)
        } else {
            notes.extend(placed)
        }
        let canonical = dir.canonicalize().unwrap_or_else(|_| dir.clone());
        Some(Self { dir, canonical, tree: tree.clone(), strict, loaded: Some(set), live: None })
    }

    /// The folder to watch (recursively).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// How many skills are served (or would be).
    pub fn count(&self) -> usize {
        match (&self.live, &self.loaded) {
            (Some(live), _) => live.current().len(),
            (None, Some(set)) => set.len(),
            (None, None) => 0,
        }
    }

    /// The skills served (or that would be), as `list` shows them.
    pub fn listed(&self) -> Vec<switchboard_skills::SkillInfo> {
        match (&self.live, &self.loaded) {
            (Some(live), _) => live.current().skills(),
            (None, Some(set)) => set.skills(),
            (None, None) => Vec::new(),
        }
    }

    /// Offers the extension on `builder` and serves the loaded skills.
    pub fn register(&mut self, builder: ServerBuilder) -> ServerBuilder {
        let skills = Skills::new(self.loaded.take().unwrap_or_default());
        let builder = skills.register(builder);
        self.live = Some(skills);
        builder
    }

    /// Moves a reloaded project's skills onto the server: `old` (the
    /// project in force, if it served skills) keeps serving, now this set.
    /// Returns a note when the server cannot take them without a restart.
    pub fn adopt(next: Option<&mut Self>, old: Option<&Self>, server: &Server) -> Option<String> {
        match (next, old.and_then(|o| o.live.clone())) {
            (Some(next), Some(live)) => {
                let changes = live.replace(next.loaded.take().unwrap_or_default(), server);
                if !changes.is_empty() {
                    tracing::info!(?changes, "skills reloaded");
                }
                next.live = Some(live);
                None
            }
            (None, Some(live)) => {
                live.replace(SkillSet::default(), server);
                None
            }
            (Some(_), None) => {
                Some("a skills folder is now in use; restart switchboard to serve it".to_owned())
            }
            (None, None) => None,
        }
    }

    /// Whether `batch` may change the skills: a change inside the folder,
    /// or to an ignore file anywhere (which may hide or reveal a skill file).
    pub fn touched(&self, batch: &WatchBatch) -> bool {
        batch.touches(&self.dir)
            || batch.touches(&self.canonical)
            || batch.paths.iter().any(|p| p.file_name().is_some_and(|n| n == ".gitignore" || n == ".ignore"))
    }

    /// Loads the folder again after an edit and serves the result. With a
    /// configuration file, a skill that no longer loads keeps the last good
    /// skills in force (the problems go to stderr and to the clients);
    /// without one it is left out with a note.
    pub async fn sync(&self, server: &Server, config: &Config) {
        let Some(live) = &self.live else { return };
        let (tree, dir) = (self.tree.clone(), self.dir.clone());
        let loaded = match tokio::task::spawn_blocking(move || SkillSet::load(&tree, &dir)).await {
            Ok(Ok(loaded)) => loaded,
            Ok(Err(e)) => {
                tracing::warn!("skills not reloaded: {e}");
                return;
            }
            Err(e) => {
                tracing::error!(error = %e, "skills reload failed");
                return;
            }
        };
        let (set, found) = loaded;
        let problems: Vec<String> = found.into_iter().map(|e| placed(e, config).to_string()).collect();
        if self.strict && !problems.is_empty() {
            for problem in &problems {
                tracing::error!("{problem}");
            }
            tracing::error!(
                problems = problems.len(),
                "skills not reloaded; the last good skills stay in force"
            );
            server.log_to_clients(
                switchboard_server::types::logging::LoggingLevel::Error,
                Some("switchboard"),
                serde_json::json!({
                    "message": "skills not reloaded; the last good skills stay in force",
                    "problems": problems,
                }),
            );
            return;
        }
        for note in &problems {
            tracing::warn!("{note}; this skill is left out");
        }
        let changes = live.replace(set, server);
        if !changes.is_empty() {
            tracing::info!(
                added = changes.added.len(),
                removed = changes.removed.len(),
                modified = changes.modified.len(),
                "skills changed"
            );
        }
    }
}

/// A skills error as a configuration problem at its place.
fn placed(error: SkillsError, config: &Config) -> Problem {
    match error {
        SkillsError::Skill { path, line, column, message } => {
            Problem::new(Some(&path), line, column, message)
        }
        other => config.problem(format!("[skills]: {other}")),
    }
}

/// The skills of `--fixtures conformance` (the official suite's
/// `sep-2640-skills-*` scenarios), the same files as the folder
/// `conformance/skills-folder/skills` that `conformance/run.sh` serves in
/// its `alpha-skills` run: the first skill has a subfolder (for
/// `resources/directory/read`) and a prefix (`acme/billing`).
pub(crate) const FIXTURE: [(&str, &str); 5] = [
    (
        "acme/billing/refunds/SKILL.md",
        "---\nname: refunds\ndescription: Process customer refund requests per company policy\nlicense: Apache-2.0\n---\n\n\
         # Refunds\n\nLook the order up, check it against the policy, then answer with the matching\n\
         template from `templates/` (`templates/refund-email.md` for an approved refund).\n",
    ),
    (
        "acme/billing/refunds/templates/refund-email.md",
        "Subject: Your refund for order {order}\n\nHello {name},\n\nWe refunded {amount} to your original payment method.\n",
    ),
    (
        "pdf-processing/SKILL.md",
        "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  version: \"2.1.0\"\n---\n\n\
         # PDF processing\n\nRead `references/FORMS.md` before filling a form; `scripts/extract.py` prints a\n\
         document's text.\n",
    ),
    (
        "pdf-processing/references/FORMS.md",
        "# Forms\n\nFill every required field; leave optional ones empty.\n",
    ),
    (
        "pdf-processing/scripts/extract.py",
        "import sys\n\nprint(open(sys.argv[1], \"rb\").read().decode(\"latin-1\"))\n",
    ),
];

/// Serves [`FIXTURE`] on `builder` (for `--fixtures conformance`).
pub(crate) fn fixture(builder: ServerBuilder) -> ServerBuilder {
    let (set, problems) = SkillSet::from_memory(FIXTURE);
    debug_assert!(problems.is_empty(), "{problems:?}");
    Skills::new(set).register(builder)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fixture_is_the_folder_the_alpha_skills_run_serves() {
        let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conformance/skills-folder/skills");
        for (path, text) in FIXTURE {
            let on_disk =
                std::fs::read_to_string(folder.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
            assert_eq!(on_disk, text, "{path}");
        }
        let (set, problems) = SkillSet::from_memory(FIXTURE);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(set.len(), 2);
    }
}
